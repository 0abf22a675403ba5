"""The site's Markdown sources, from the typed spec model: an op page per op and language (the
docs renderer's views laid out for the web: maths, plots, run examples, labelled and linked notes),
each domain's index by category, errata and changelog pages, the home page and the page of cases
opgen catches beyond onnx.checker (opgen.site.beyond_checker)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import jinja2

from ..model import Domain, Example, OpSpec, SpecSet
from ..render.common import environment, md_cell, md_text
from ..render.docs import CATEGORIES, LABELS, category_title, note_view, version_view
from .beyond_checker import section_body
from .changes import user_changelog
from .examples import RunExample
from .latex import formula_latex
from .plots import OpPlots
from .strings import STRINGS

# A reference to notes as the spec texts write it, in English and Chinese: "see note X", "see Add's
# note X", "(notes X, Y and Z)", "见说明 X", "(注释 X、Y)". After "see"/"见" any note id is a
# reference; after a bare "note"/"说明"/"注释" (words of ordinary prose too) only an id with an
# underscore is taken for one.
_ID = r"`?[A-Za-z][A-Za-z0-9_]*`?"
NOTE_REFERENCE = re.compile(
    r"(?P<words>(?:\b[Ss]ee (?:(?P<owner>[A-Z][A-Za-z0-9]*)'s |its |the )?notes? |(?:参见|见)(?:说明|注释) ?)"
    r"|(?P<bare>\b(?:(?P<bare_owner>[A-Z][A-Za-z0-9]*)'s |[Ss]pec |its )?[Nn]otes? |注释 ?|说明 ?))"
    rf"(?P<ids>{_ID}(?:(?:, |、|，| and | 和 ?){_ID})*)")
_LIST_SPLIT = re.compile(r"(, |、|，| and | 和 ?)")
# How far back a reference may name the op whose note it means ("as in Pad (see its note pad_modes)").
_OWNER_LOOKBACK = 80
# A formula announced by a summary's first sentence spans at most this many paragraphs (Sign has three).
_MAX_FORMULA_PARAGRAPHS = 4
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "approx.", "resp.", "cf.")


@dataclass
class OpExtras:
    """What the site adds to an op's page beyond its spec: plots and the run examples per version."""

    plots: OpPlots = field(default_factory=OpPlots)
    examples: dict[int, list[RunExample]] = field(default_factory=dict)


def note_anchor(note_id: str) -> str:
    return "note-" + re.sub(r"[^A-Za-z0-9_-]", "-", note_id)


@dataclass(frozen=True)
class NoteRefs:
    """What a note reference on a page can link to: the op's own notes (on `page`: empty on the op's
    own page, its file name elsewhere) and the notes of the other ops of its domain by id."""

    own: frozenset[str]
    page: str = ""
    domain: tuple[tuple[str, tuple[str, ...]], ...] = ()  # note id -> the ops that have a note of that id

    @staticmethod
    def of(op: OpSpec, domain: Domain, page: str = "") -> NoteRefs:
        return NoteRefs(frozenset(n.id for n in op.all_notes() if n.id), page, _domain_notes(domain))

    def target(self, note_id: str, owner: str | None, before: str) -> str | None:
        """The link to a note: of the op the reference names, of this op, of the one op of the domain
        with that id, or of the op named just before the reference; None when none is sure."""
        holders = dict(self.domain).get(note_id, ())
        anchor = "#" + note_anchor(note_id)
        if owner and owner in holders:
            return f"{owner}.md{anchor}"
        if note_id in self.own:
            return f"{self.page}{anchor}"
        if len(holders) == 1:
            return f"{holders[0]}.md{anchor}"
        named = [h for h in holders if re.search(rf"\b{re.escape(h)}\b", before[-_OWNER_LOOKBACK:])]
        return f"{named[-1]}.md{anchor}" if len(named) == 1 else None


@lru_cache(maxsize=8)
def _domain_notes(domain: Domain) -> tuple[tuple[str, tuple[str, ...]], ...]:
    holders: dict[str, list[str]] = {}
    for o in domain.ops:
        for note_id in sorted({n.id for n in o.all_notes() if n.id}):
            holders.setdefault(note_id, []).append(o.name)
    return tuple((k, tuple(v)) for k, v in holders.items())


def see_notes(text: str, refs: NoteRefs) -> str:
    """Each reference to a note becomes a link to it (the first with the reference's words as its
    text, so "see note X" reads as one link); an id no note has stays plain text."""
    def link(m: re.Match[str]) -> str:
        owner = m.group("owner") or m.group("bare_owner")
        items = _LIST_SPLIT.split(m.group("ids"))
        out, words = [], m.group("words")
        for k, item in enumerate(items):
            if k % 2:  # a separator
                out.append(item)
                continue
            note_id = item.strip("`")
            target = None if m.group("bare") and "_" not in note_id else \
                refs.target(note_id, owner, m.string[:m.start()])
            if target is None:
                out.append(words + item)
            else:
                out.append(f"[{words}{note_id}]({target})")
            words = ""
        if all(k % 2 or "](" not in x for k, x in enumerate(out)):
            return m.group(0)
        return "".join(out)
    return NOTE_REFERENCE.sub(link, text)


def note_block(n: dict[str, Any], refs: NoteRefs, S: dict[str, str]) -> str:
    """A note as an admonition whose colour and title say its kind (erratum, decision, difference
    from a reference, information), anchored by its id so "see note X" links land on it."""
    kind = {"erratum": "bug", "decision": "note", "reference_difference": "warning"}.get(n["kind"], "info")
    title = S["note_" + n["kind"]] + (f" · {n['id']}" if n["id"] else "")
    body = md_text(n["text"])
    if n["field"]:
        body = f"`{n['field']}`: {body}"
    if n["document_says"]:
        body += f"\n\n{S['document_says']}: “{md_text(n['document_says'])}”"
    anchor = f'<a id="{note_anchor(n["id"])}"></a>\n\n' if n.get("anchor") else ""
    indented = "\n".join("    " + line if line else "" for line in see_notes(body, refs).split("\n"))
    return f'{anchor}!!! {kind} "{title.replace(chr(34), chr(39))}"\n{indented}\n'


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    # No bytecode cache: Jinja keys it by template source only, and how a filter is called is
    # compiled in, so a cached site template could outlive a change of the filters here.
    env = environment().overlay(bytecode_cache=None)
    env.filters = dict(env.filters)
    env.filters.update(see_notes=see_notes, note_block=note_block)
    return env


def _sentence_end(line: str) -> int:
    """Where the first sentence of `line` ends (0 when no full stop ends one): a full stop that is
    not part of an abbreviation or a number."""
    for m in re.finditer(r"[.。!?！？](?=\s|$)|。", line):
        end = m.end()
        if not any(line[:end].endswith(a) for a in _ABBREVIATIONS):
            return end
    return 0


def first_sentence(text: str) -> str:
    """The first sentence of a summary, whole (never cut mid-word): up to the first full stop that
    is not part of an abbreviation or a number, or the first line. A sentence that announces a
    formula ("... by the following formula:") keeps it: the paragraphs after it are joined with
    "; " up to the first that ends a sentence, so Expm1's entry reads "...: y=exp(x) - 1"."""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]
    if not paragraphs:
        return ""
    line = paragraphs[0].split("\n")[0].strip()
    end = _sentence_end(line)
    shown = line[:end] if end else line
    if not shown.endswith((":", "：")):
        return shown
    formula: list[str] = []
    for paragraph in paragraphs[1:_MAX_FORMULA_PARAGRAPHS + 1]:
        part = " ".join(x.strip() for x in paragraph.split("\n"))
        end = _sentence_end(part)
        formula.append(part[:end] if end else part)
        if end:
            break
    return f"{shown} {'; '.join(formula)}" if formula else shown


def _mark_anchors(notes: list[dict[str, Any]], seen: set[str]) -> list[dict[str, Any]]:
    """The first note of each id on a page carries its anchor (versions repeat notes)."""
    for n in notes:
        n["anchor"] = bool(n["id"]) and n["id"] not in seen
        seen.add(n["id"])
    return notes


def _example_description(e: Example, lang: str) -> str:
    """What a spec example shows, in the page's language (empty when the spec has no description)."""
    return e.description.get(lang) if e.description else ""


def op_page(op: OpSpec, domain: Domain, lang: str, extras: OpExtras) -> str:
    L, S = LABELS[lang], STRINGS[lang]
    refs = NoteRefs.of(op, domain)
    seen: set[str] = set()
    versions = []
    for v in op.versions:
        item = version_view(v, lang)
        item["latex"] = formula_latex(v.elementwise.output, v.elementwise.formula) \
            if v.elementwise and v.elementwise.fold is None else ""
        item["notes"] = _mark_anchors(item["notes"], seen)
        written = {x.name: x for x in v.examples}
        item["run_examples"] = [dict(name=e.name, source=written[e.name].source,
                                     description=_example_description(written[e.name], lang),
                                     code=e.code, output=e.output, error=e.error)
                                for e in extras.examples.get(v.since_version, [])]
        versions.append(item)
    log = [dict(old=old, new=new, changes=changes) for old, new, changes in user_changelog(op, lang)]
    notes = _mark_anchors([note_view(n, lang) for n in op.notes], seen)
    return _environment().get_template("site/op.md.j2").render(
        op=op, L=L, S=S, lang=lang, category=category_title(op.category, lang),
        category_anchor=op.category.replace("_", "-"), versions=versions, changelog=log, notes=notes,
        explanation=op.provenance.explanation.get(lang) if op.provenance.explanation else "",
        plots=extras.plots, refs=refs)


def index_page(domain: Domain, lang: str) -> str:
    L, S = LABELS[lang], STRINGS[lang]
    lines = ["---", f"title: {domain.name}", "---", "", f"# {S['domain_title'].format(domain=domain.name)}", "",
             md_text(domain.description.get(lang)), ""]
    if domain.versioning:
        lines += [md_text(domain.versioning.get(lang)), ""]
    lines += [S["index_intro"].format(n=len(domain.ops)) + f" [{S['errata']}](errata.md) · "
              f"[{S['changelog']}](changelog.md)", ""]
    for cat in CATEGORIES:
        ops = [o for o in domain.ops if o.category == cat]
        if not ops:
            continue
        lines += [f"## {category_title(cat, lang)} {{ #{cat.replace('_', '-')} }}", "",
                  f"| {L['op']} | {L['versions']} | {L['summary']} |", "|---|---|---|"]
        for o in ops:
            versions = ", ".join(f"[{v.since_version}]({o.name}.md#v{v.since_version})" for v in o.versions)
            undocumented = "" if o.provenance.documented else f" ({L['undocumented']})"
            summary = see_notes(md_cell(first_sentence(o.versions[0].summary.get(lang))),
                                NoteRefs.of(o, domain, f"{o.name}.md"))
            lines.append(f"| [{o.name}]({o.name}.md){undocumented} | {versions} | {summary} |")
        lines.append("")
    return "\n".join(lines) + "\n"


def errata_page(domain: Domain, lang: str) -> str:
    L, S = LABELS[lang], STRINGS[lang]
    lines = [f"# {domain.name}: {L['errata_title']}", "", f"[← {S['back_to_index'].format(domain=domain.name)}]"
             "(index.md)", "", L["errata_intro"], "",
             f"| {L['op']} | {L['field']} | {L['document_says']} | {L['description']} |", "|---|---|---|---|"]
    for o in domain.ops:
        for n in o.all_notes():
            if n.kind == "erratum":
                link = f"[{o.name}]({o.name}.md#{note_anchor(n.id)})" if n.id else f"[{o.name}]({o.name}.md)"
                cells = [link, md_cell(n.field), md_cell(n.document_says),
                         see_notes(md_cell(n.text.get(lang)), NoteRefs.of(o, domain, f"{o.name}.md"))]
                lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def changelog_page(domain: Domain, lang: str) -> str:
    L, S = LABELS[lang], STRINGS[lang]
    lines = [f"# {domain.name}: {S['changelog']}", "", f"[← {S['back_to_index'].format(domain=domain.name)}]"
             "(index.md)", "", S["changelog_intro"], ""]
    for o in domain.ops:
        log = user_changelog(o, lang, f"{o.name}.md")
        if not log:
            continue
        lines += [f"## [{o.name}]({o.name}.md#changelog)", ""]
        for old, new, changes in log:
            text = "; ".join(changes) if changes else L["no_changes"]
            lines.append(f"- **{old} → {new}**: {text}")
        lines.append("")
    return "\n".join(lines) + "\n"


def home_page(specs: SpecSet, lang: str) -> str:
    S = STRINGS[lang]
    lines = ["---", "title: opgen", "---", "", f"# {S['home_title']}", "", S["home_intro"], ""]
    for d in specs.domains:
        lines.append(f"- **[{d.name}]({d.name}/index.md)** ({S['n_ops'].format(n=len(d.ops))}): "
                     f"{md_text(first_sentence(d.description.get(lang)))} [{S['errata']}]({d.name}/errata.md) · "
                     f"[{S['changelog']}]({d.name}/changelog.md)")
    lines += ["", f"- [{S['checker_title']}](beyond-checker.md)", "", S["search_hint"], ""]
    return "\n".join(lines) + "\n"


def checker_page(lang: str) -> str:
    """The cases opgen catches beyond onnx.checker, in the page's language (opgen.site.beyond_checker,
    the source of the README's section too)."""
    S = STRINGS[lang]
    return f"# {S['checker_title']}\n\n{S['checker_intro']}\n\n{section_body(lang)}"
