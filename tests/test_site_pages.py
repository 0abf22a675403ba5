"""The documentation site's sources as a reader sees them, checked without a browser or a site build
(fast): the cases beyond onnx.checker in both languages from one source that the README carries, op
pages in the navigation, index summaries, changelogs in the reader's terms, labelled notes, example
descriptions in the page's language, back links to the index, and the no-change rebuild."""
from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from opgen.model import SpecSet
from opgen.parse import load_specs
from opgen.render.docs import CATEGORIES, LABELS
from opgen.site import beyond_checker
from opgen.site.build import LANGS, inputs_digest, mkdocs_config
from opgen.site.examples import RunExample
from opgen.site.pages import OpExtras, changelog_page, checker_page, first_sentence, index_page, op_page
from opgen.site.strings import STRINGS

ROOT = Path(__file__).resolve().parent.parent
_CJK = re.compile(r"[\u4e00-\u9fff]")


@functools.lru_cache(maxsize=1)
def _specs() -> SpecSet:
    specs, _ = load_specs(ROOT / "specs")
    return specs


def _table_cases(markdown: str) -> list[list[str]]:
    """The first cell of each body row, per Markdown table (header and rule rows left out)."""
    tables: list[list[str]] = []
    previous = ""
    for line in markdown.split("\n"):
        if line.startswith("|") and not line.startswith("|---"):
            if not previous.startswith("|"):
                tables.append([])  # the header row starts a table
            else:
                tables[-1].append(line.split("|")[1].strip())
        previous = line
    return tables


def test_checker_cases_readme_and_both_languages_from_one_source() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    body = beyond_checker.readme_body(readme)
    assert body == beyond_checker.section_body("en"), "README's section differs: run `python -m opgen.site --readme`"
    english, chinese = checker_page("en"), checker_page("zh")
    # the same tables, rows and case names in the README and both pages
    assert _table_cases(english) == _table_cases(chinese) == _table_cases(body)
    assert [len(t) for t in _table_cases(body)] == [3, 1]
    assert "`slope_not_broadcastable`" in _table_cases(chinese)[0]
    # the Chinese page is Chinese: its headers and every prose paragraph and cell beyond the names
    assert "| 情况 | 用法 | onnx.checker | opgen |" in chinese
    for block in beyond_checker.BLOCKS:
        texts = [block.text["zh"]] if isinstance(block, beyond_checker.Paragraph) else \
            [cell["zh"] for case in block for cell in (case.use, case.checker, case.opgen)]
        assert all(_CJK.search(t) for t in texts if not re.fullmatch(r"PRelu-\d+.*", t)), texts
    assert "accepts" not in chinese and "接受" in chinese


def test_checker_readme_update_rewrites_only_the_section(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    stale = readme.replace("| `slope_rank_above_x` |", "| `slope_rank_above_y` |")
    path = tmp_path / "README.md"
    path.write_text(stale, "utf-8")
    assert beyond_checker.update_readme(path)
    assert path.read_text("utf-8") == readme
    assert not beyond_checker.update_readme(path)


def test_every_op_is_in_the_navigation_under_its_domain_and_category() -> None:
    for lang in LANGS:
        config = mkdocs_config(lang, list(_specs().domains), Path("/tmp/site"))
        assert "navigation.prune" in config["theme"]["features"] and "not_in_nav" not in config
        listed: dict[str, str] = {}
        for entry in config["nav"][1:-1]:
            (domain, items), = entry.items()
            assert items[0] == f"{domain}/index.md"  # the domain's tab opens its index
            for group in items[3:]:
                (category, ops), = group.items()
                for op in ops:
                    (name, path), = op.items()
                    assert path == f"{domain}/{name}.md" and path not in listed
                    listed[path] = category
        expected = {f"{o.domain}/{o.name}.md": CATEGORIES[o.category][LANGS.index(lang)] for o in _specs().ops()}
        assert listed == expected


def test_index_summaries_end_at_a_sentence_and_keep_an_announced_formula() -> None:
    assert first_sentence("Applies f, e.g. tanh. Then more.") == "Applies f, e.g. tanh."
    assert first_sentence("对每个元素应用激活函数。其余说明。") == "对每个元素应用激活函数。"
    assert first_sentence("Version 1.5 of it. Next") == "Version 1.5 of it."
    assert first_sentence("By this formula:\n\ny = 1, if x > 0\n\ny = 0 otherwise") == \
        "By this formula: y = 1, if x > 0; y = 0 otherwise"
    cut = []
    for o in _specs().ops():
        for lang in LANGS:
            summary = o.versions[0].summary.get(lang).strip()
            shown = first_sentence(summary)
            first_line = summary.split("\n")[0].strip()
            announces = first_line.endswith((":", "：")) and shown.startswith(first_line + " ")  # + its formula
            whole = shown == first_line or shown.endswith((".", "。", "!", "?")) or announces
            in_order = first_line.startswith(shown) or shown.startswith(first_line)
            if not (whole and in_order) or shown.endswith((":", "：")):
                cut.append((o.key, lang, shown[-30:]))
    assert cut == []
    # Expm1's entry keeps its formula: the summary's paragraph after "the following formula:"
    expm1 = next(o for o in _specs().ops() if o.key == "hlir.Expm1")
    for lang in LANGS:
        formula = expm1.versions[0].summary.get(lang).strip().split("\n\n")[1].strip()
        row = next(line for line in index_page(_specs().domain("hlir"), lang).split("\n")
                   if line.startswith("| [Expm1]"))
        assert row.rstrip(" |").endswith(formula), row


# internal names a changelog must not show: the element-wise broadcast modes' keys and shape rules
_INTERNAL = re.compile(r"->|-&gt;|\bsingle\b|\b(onnx_prelu_legacy|onednn_prelu|unidirectional_broadcast|"
                       r"multidirectional_broadcast)\b")


def test_changelogs_speak_in_the_readers_terms() -> None:
    rule_names = {c.rule for o in _specs().ops() for v in o.versions for c in v.constraints if c.rule}
    leaks = []
    for domain in _specs().domains:
        for lang in LANGS:
            text = changelog_page(domain, lang)
            leaks += [(domain.name, lang, m.group(0)) for m in _INTERNAL.finditer(text)]
            leaks += [(domain.name, lang, r) for r in rule_names if re.search(rf"\b{re.escape(r)}\b", text)]
            # every constraint a change names links to the version that has it
            for cid, op, version in re.findall(r"\[(\w+)\]\((\w+)\.md#v(\d+)-constraints\)", text):
                spec = next(o for o in domain.ops if o.name == op)
                v = next(x for x in spec.versions if x.since_version == int(version))
                assert cid in {c.id for c in v.constraints}, (op, version, cid)
    assert leaks == []
    prelu = changelog_page(_specs().domain("onnx"), "en").split("## [PRelu]")[1].split("## ")[0]
    assert "**6 → 7**: broadcasting: the slope is one value, one value per channel, or broadcasts to X" in prelu


@pytest.mark.parametrize("key", ["onnx.Cast", "hlir.GeGlu", "onnx.PRelu", "hlir.If"])
def test_op_pages_label_notes_describe_examples_and_link_back(key: str) -> None:
    op = next(o for o in _specs().ops() if o.key == key)
    domain = _specs().domain(op.domain)
    # examples as the build would show them (their running is tested by the site build)
    extras = OpExtras(examples={v.since_version: [RunExample(e.name, "code\n", "output\n") for e in v.examples]
                                for v in op.versions})
    for lang in LANGS:
        S = STRINGS[lang]
        page = op_page(op, domain, lang, extras)
        assert f"[← {S['back_to_index'].format(domain=op.domain)}](index.md){{ .opgen-back }}" in page
        # each note is an admonition whose type and title say its kind; four kinds, four labels
        labels = {"erratum": ("bug", S["note_erratum"]), "decision": ("note", S["note_decision"]),
                  "reference_difference": ("warning", S["note_reference_difference"]), "info": ("info", S["note_info"])}
        assert len({t for t, _ in labels.values()}) == len({label for _, label in labels.values()}) == 4
        undocumented = f'"{LABELS[lang]["undocumented"]}"'  # the op's provenance, not a note
        shown = re.findall(r'^!!! (\w+) "([^"·]+?)(?: · ([^"]+))?"$', page.replace(undocumented, ""), re.M)
        kinds = {n.id: n.kind for n in op.all_notes() if n.id}
        assert shown
        for admonition, label, note_id in shown:
            assert (admonition, label) in labels.values()
            if note_id:
                assert labels[kinds[note_id]] == (admonition, label), note_id
        # every example description in the page's language
        for v in op.versions:
            for e in v.examples:
                if e.description:
                    assert e.description.get(lang).split("\n")[0][:30] in page.replace("\\", ""), (e.name, lang)


def test_no_change_rebuild_stops_at_the_inputs_digest(tmp_path: Path) -> None:
    """The digest that lets a rebuild with nothing changed stop at once follows every input file."""
    root = tmp_path / "project"
    for folder in ("specs/onnx", "templates/site", "generator", "generated/python"):
        (root / folder).mkdir(parents=True)
    (root / "specs" / "onnx" / "Abs.yaml").write_text("name: Abs\n")
    (root / "generator" / "__pycache__").mkdir()
    first = inputs_digest(root, tmp_path / "site")
    (root / "generator" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    assert inputs_digest(root, tmp_path / "site") == first  # bytecode caches are not inputs
    (root / "specs" / "onnx" / "Abs.yaml").write_text("name: Abs\n# changed\n")
    assert inputs_digest(root, tmp_path / "site") != first


def test_note_references_link_to_the_note_they_name() -> None:
    from opgen.site.pages import NoteRefs, see_notes

    refs = NoteRefs(frozenset({"fold_left", "seed"}), "",
                    (("xla_broadcasting", ("Add", "Subtract")), ("pad_modes", ("Pad",)), ("fold_left", ("Reduce",))))
    cases = {
        "(notes fold_left, l2_and_count and pad_modes)":
            "([notes fold_left](#note-fold_left), l2_and_count and [pad_modes](Pad.md#note-pad_modes))",
        "rule (see Add's note xla_broadcasting)":
            "rule ([see Add's note xla_broadcasting](Add.md#note-xla_broadcasting))",
        "as in Pad (see its note pad_modes)": "as in Pad ([see its note pad_modes](Pad.md#note-pad_modes))",
        "as in Subtract: see note xla_broadcasting":
            "as in Subtract: [see note xla_broadcasting](Subtract.md#note-xla_broadcasting)",
        "见说明 seed。": "[见说明 seed](#note-seed)。", "(注释 fold_left、pad_modes)":
            "([注释 fold_left](#note-fold_left)、[pad_modes](Pad.md#note-pad_modes))",
        "note seed is a word here": "note seed is a word here",  # a bare "note" and an id without "_"
        "see note xla_broadcasting": "see note xla_broadcasting",  # two ops have it, neither named
        "see note unknown_one": "see note unknown_one",
    }
    assert {text: see_notes(text, refs) for text in cases} == cases
    on_index = NoteRefs(frozenset({"seed"}), "Dropout.md")
    assert see_notes("see note seed", on_index) == "[see note seed](Dropout.md#note-seed)"


def test_every_example_on_the_site_runs() -> None:
    """Each op page shows its examples run through the generated package (opgen.site.examples); one that
    raises shows "This example did not run" instead of its output. The site build only lists those in its
    log, so this checks every example of every op with a kernel runs (LapackGeev's first did not: its
    complex outputs took the example's double dtype until the example named theirs)."""
    from opgen.site.examples import run, snippet

    failures = [f"{v.key} {e.name}: {error}" for d in _specs().domains for op in d.ops for v in op.versions
                if v.has_kernel for e in v.examples for _, error in [run(snippet(v, e))] if error]
    assert not failures, "\n".join(failures)
