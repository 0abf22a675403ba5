"""The imported ONNX specs carry opgen's own texts: English and Chinese for every summary, attribute,
input, output and type constraint, written in the project's words, not pasted from ONNX's docs.

"Own words" is measured against the onnx package's documentation strings (onnx.defs): no English
text longer than a phrase shares more than 60% of its words in sequence with ONNX's text for the
same slot, and none copies a run of 12 words or more."""
from __future__ import annotations

import difflib
import re

import onnx.defs
import pytest

from opgen.importer import MARK

from conftest import SPECS, project_specs

ONNX = project_specs().domain("onnx")
IMPORTED = [op for op in ONNX.ops
            if (SPECS / "onnx" / f"{op.name}.yaml").read_text(encoding="utf-8").startswith(MARK)]
CJK = re.compile(r"[\u4e00-\u9fff]")


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def slots(v, s):
    """(slot, our text, ONNX's text) for every text of one version."""
    yield "summary", v.summary, s.doc or ""
    theirs = {a.name: a.description for a in s.attributes.values()}
    for a in v.attributes:
        yield f"attributes.{a.name}", a.description, theirs.get(a.name, "")
    for side, ours, params in (("inputs", v.inputs, s.inputs), ("outputs", v.outputs, s.outputs)):
        for p, q in zip(ours, params):
            yield f"{side}.{p.name}", p.description, q.description or ""
    theirs = {t.type_param_str: t.description for t in s.type_constraints}
    for t in v.type_constraints:
        yield f"type_constraints.{t.name}", t.description, theirs.get(t.name, "")


def test_every_operator_but_the_seed_transcriptions_is_imported():
    assert {op.name for op in ONNX.ops} - {op.name for op in IMPORTED} == {"PRelu", "Elu"}


@pytest.mark.parametrize("op", IMPORTED, ids=lambda op: op.name)
def test_texts_are_bilingual_and_in_our_own_words(op):
    problems = []
    for v in op.versions:
        s = onnx.defs.get_schema(op.name, v.since_version, op.onnx_domain or "")
        for slot, text, onnx_text in slots(v, s):
            where = f"{v.key} {slot}"
            if not text.en or not text.zh or not CJK.search(text.zh):
                problems.append(f"{where}: English and Chinese are both required")
                continue
            a, b = words(text.en), words(onnx_text)
            if len(onnx_text) <= 30 or len(a) <= 6:
                continue  # a phrase such as "Input tensor." is nobody's wording
            matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
            if matcher.ratio() > 0.6:
                problems.append(f"{where}: {matcher.ratio():.2f} of the words follow ONNX's text")
            run = matcher.find_longest_match(0, len(a), 0, len(b))
            if run.size >= 12:
                problems.append(f"{where}: copies {run.size} words of ONNX's text")
    assert problems == []


def test_a_pasted_text_would_be_caught():
    """The measure itself: ONNX's own summary of Relu fails it, a rewording passes."""
    theirs = onnx.defs.get_schema("Relu", 14, "").doc
    a, b = words(theirs), words(theirs)
    assert difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() > 0.6
    ours = ONNX.op("Relu").versions[0].summary.en
    assert difflib.SequenceMatcher(None, words(ours), b, autojunk=False).ratio() <= 0.6


def test_each_op_links_its_onnx_page():
    for op in IMPORTED:
        # onnx.ai names a page by the op's domain without its dots: onnx_aionnxml_LabelEncoder.html
        page = f"onnx_{op.onnx_domain.replace('.', '')}_{op.name}" if op.onnx_domain else f"onnx__{op.name}"
        assert op.sources[0].url == f"https://onnx.ai/onnx/operators/{page}.html"
