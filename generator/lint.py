"""`opgen lint`: every human-readable text must exist in English and Chinese, and none may still be a
placeholder that `opgen new` wrote ("TODO...")."""
from __future__ import annotations

import re
from typing import Iterator

from .errors import Location, SpecError
from .model import OpSpec, SpecSet, Text


def _texts(op: OpSpec) -> Iterator[tuple[str, str, Text, Location]]:
    """(op@version, field, text, location) for every text of an op."""
    if op.provenance.explanation:
        yield op.key, "provenance.explanation", op.provenance.explanation, op.location
    for n in op.notes:
        yield op.key, f"notes.{n.id or '?'}", n.text, n.location
    for v in op.versions:
        yield v.key, "summary", v.summary, v.location
        for a in v.attributes:
            yield v.key, f"attributes.{a.name}.description", a.description, a.location
        for side, params in (("inputs", v.inputs), ("outputs", v.outputs)):
            for p in params:
                yield v.key, f"{side}.{p.name}.description", p.description, p.location
        for tc in v.type_constraints:
            yield v.key, f"type_constraints.{tc.name}.description", tc.description, tc.location
        for c in v.constraints:
            yield v.key, f"constraints.{c.id}.description", c.description, c.location
        for n in v.notes:
            yield v.key, f"notes.{n.id or '?'}", n.text, n.location
        for e in v.examples:
            if e.description:
                yield v.key, f"examples.{e.name}.description", e.description, e.location


# ASCII punctuation written right after Chinese text (a CJK character or a full-width closing mark):
# Chinese sentences take full-width marks (，；：？！ and 。 at a sentence end). A full stop is only
# flagged at the end of the text or before a space, where it ends a sentence (not in "3.5", "x.y").
_CJK = "\u3400-\u9fff\uff09\u201d\u300d"
_ASCII_AFTER_CJK = re.compile(f"[{_CJK}]([,;:?!]|\\.(?=\\s|$))")
_FULL_WIDTH = {",": "，", ";": "；", ":": "：", "?": "？", "!": "！", ".": "。"}
# Texts transcribed from a Chinese source document stay verbatim, punctuation included.
_TRANSCRIBED = re.compile(r"^(summary|(attributes|inputs|outputs)\.[^.]+\.description)$")


def chinese_punctuation(specs: SpecSet) -> list[SpecError]:
    """Chinese texts with ASCII punctuation after Chinese characters (texts transcribed from a Chinese
    source document excepted: they keep the document's own marks)."""
    problems = []
    for op in specs.ops():
        # An op whose section the document leaves empty is defined in our own words (provenance).
        transcribed = op.provenance.documented and any(s.language == "zh" for s in op.sources)
        seen: set[int] = set()
        for key, field, text, loc in _texts(op):
            if id(text) in seen or not text.zh or (transcribed and _TRANSCRIBED.match(field)):
                continue
            seen.add(id(text))
            found = _ASCII_AFTER_CJK.search(text.zh)
            if found:
                mark = found.group(1)
                problems.append(SpecError(loc, f"the Chinese text has ASCII {mark!r} after Chinese text (write "
                                          f"{_FULL_WIDTH[mark]!r}): ...{text.zh[max(0, found.start() - 12):found.end() + 8]}...",
                                          key, field, severity="warning"))
    return problems


def fix_chinese_punctuation(text: str) -> str:
    """The text with each flagged ASCII mark replaced by its full-width form (a space after it dropped)."""
    return re.sub(f"([{_CJK}])([,;:?!]|\\.(?=\\s|$)) ?", lambda m: m.group(1) + _FULL_WIDTH[m.group(2)], text)


def missing_translations(specs: SpecSet) -> list[SpecError]:
    problems = []
    for d in specs.domains:
        for field, text in (("description", d.description), ("versioning", d.versioning)):
            problems += _missing(d.name, field, text, d.location)
        for g in d.type_groups:
            problems += _missing(d.name, f"type_groups.{g.name}.description", g.description, d.location)
        for op in d.ops:
            seen: set[tuple[str, int]] = set()
            for key, field, text, loc in _texts(op):
                if (field, id(text)) in seen:  # the same text shared by several versions (YAML anchors)
                    continue
                seen.add((field, id(text)))
                problems += _missing(key, field, text, loc)
    return problems


def _missing(key: str, field: str, text: Text | None, loc: Location) -> list[SpecError]:
    from .new import PLACEHOLDER

    if text is None:
        return []
    problems = []
    for name, value in (("English (en)", text.en), ("Chinese (zh)", text.zh)):
        value = (value or "").strip()
        if not value:
            problems.append(SpecError(loc, f"missing {name} text", key, field, severity="warning"))
        elif value.startswith(PLACEHOLDER):
            problems.append(SpecError(loc, f"the {name} text is still a placeholder: {value[:60]!r}", key, field,
                                      severity="warning"))
    return problems
