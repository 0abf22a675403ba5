"""Errata follow one rule, and the slips of the source documents are on the errata pages (issue 11).

The rule (specs/schema/op.schema.json, description of a note's `kind`): an erratum is text that is
wrong or garbled as written (a typo, a wrong or non-canonical type spelling, a missing or duplicated
word, text run onto the wrong heading); a decision is correct text that is silent or ambiguous, where
the spec chooses. Where the rule can be checked mechanically, it is: a note about a type whose
`document_says` spells a type that is not canonical (tensor(half), tensor(int), tensor(complex), a bare
int/int64/float for a tensor, a type variable for an attribute) is an erratum.
"""
from __future__ import annotations

import re

import pytest

from opgen.dtypes import ELEM_TYPES
from opgen.model import OpSpec
from opgen.render.common import md_cell

from conftest import SPECS, project_specs

ROOT = SPECS.parent
SPEC_SET = project_specs()
SOURCES = SPECS / "sources"
TYPE_FIELD = re.compile(r"^(?P<kind>inputs|outputs|attributes)\.(?P<name>\w+)\.type$|^type_constraints\.\w+\.types$")
ATTRIBUTE_SPELLINGS = {"int", "float", "string", "bool", "list of ints", "list of floats", "list of strings", "tensor",
                       "graph", "enum"}


def canonical_tensor(text: str) -> bool:
    m = re.fullmatch(r"tensor\((\w+)\)", text)
    return bool(m) and m.group(1) in ELEM_TYPES


def written_types(note, version) -> list[tuple[str, str]]:
    """(kind, spelling) of every type the note's document_says writes, for notes about a type."""
    m = TYPE_FIELD.match(note.field or "")
    if not m or not note.document_says:
        return []
    if not m.group("kind"):  # a type list: every tensor(...) in it
        return [("type_constraints", t) for t in re.findall(r"tensor\(\w+\)", note.document_says)]
    names = [e.name for kind in ("inputs", "outputs", "attributes") for e in getattr(version, kind)]
    out = []
    for part in note.document_says.split(" / "):  # joined quotes of several entries
        part = part.strip().removeprefix("•").strip()
        name = max((n for n in names if part.startswith(n)), key=len, default="")
        spelling = re.sub(r"\(默认.*$", "", part[len(name):]).strip(" :")
        out.append((m.group("kind"), spelling))
    return out


def canonical(kind: str, spelling: str, version) -> bool:
    variables = {tc.name for tc in version.type_constraints}
    if kind == "attributes":
        return spelling in ATTRIBUTE_SPELLINGS or canonical_tensor(spelling)
    if kind == "type_constraints":
        return canonical_tensor(spelling)
    listed = spelling.removeprefix("list of ")
    return listed in variables or canonical_tensor(listed)


def version_of(op: OpSpec, note):
    for v in op.versions:
        if note in v.notes:
            return v
    return op.versions[0]


def all_notes():
    for domain in SPEC_SET.domains:
        for op in domain.ops:
            for note in op.all_notes():
                yield domain.name, op, note


NON_CANONICAL = [(d, op.name, n.id) for d, op, n in all_notes()
                 if n.kind in ("erratum", "decision")
                 and not all(canonical(k, s, version_of(op, n)) for k, s in written_types(n, version_of(op, n)))]


@pytest.mark.parametrize("domain,op,note_id", NON_CANONICAL, ids=[f"{o}.{i}" for _, o, i in NON_CANONICAL])
def test_a_non_canonical_type_spelling_is_an_erratum(domain, op, note_id):
    note = next(n for n in SPEC_SET.domain(domain).op(op).all_notes() if n.id == note_id)
    assert note.kind == "erratum", f"{domain}.{op} note {note_id} quotes {note.document_says!r}: an erratum by the rule"


def test_the_mechanical_check_sees_the_known_type_slips():
    """Alike cases alike: every bare int, tensor(half), tensor(int), tensor(complex) note is found."""
    found = {(o, i) for _, o, i in NON_CANONICAL}
    expected = {("Gather", "half_type"), ("ScatterND", "half_type"), ("SelectAndScatter", "half_type"),
                ("DynamicIota", "shape_type"), ("DynamicReshape", "shape_type"), ("DynamicPad", "pads_type"),
                ("ShiftLeft", "rhs_bare_int"), ("SetDimensionSize", "size_type"), ("NonZero", "output_type"),
                ("PopulationCount", "output_type"), ("NMS", "selected_indices_type"), ("NMS", "boxes_bare_float"),
                ("Resize", "sizes_type"), ("ReverseSequence", "sequence_lens_type"), ("Topk", "tensor_int"),
                ("Topk", "tensor_int_indices"), ("Complex", "complex_type"), ("Imag", "complex_type"),
                ("LayerNorm", "axis_int64"), ("Softplus", "beta_type")}
    assert expected <= found, expected - found
    # and a canonical spelling is not flagged: GridSample's mode is an int attribute (a decision)
    assert ("GridSample", "mode_int") not in found and ("DotGeneralBias", "bias_type_variable") not in found


# (domain, op, note id, text the note quotes, versions on the errata page)
LISTED_SLIPS = [
    ("hlir", "Gather", "half_type", "tensor(half)", "1"),
    ("hlir", "ScatterND", "half_type", "tensor(half)", "1"),
    ("hlir", "SelectAndScatter", "half_type", "tensor(half)", "1"),
    ("hlir", "DynamicIota", "shape_type", "shapeint", "1"),
    ("hlir", "DynamicReshape", "shape_type", "shapeint", "1"),
    ("hlir", "DynamicPad", "pads_type", "padsint", "1"),
    ("hlir", "ShiftLeft", "rhs_bare_int", "rhsint", "1"),
    ("hlir", "SetDimensionSize", "size_type", "int", "1"),
    ("hlir", "NonZero", "output_type", "outputint64", "1"),
    ("hlir", "PopulationCount", "output_type", "outputint", "1"),
    ("hlir", "Resize", "sizes_type", "tensor(int)", "1"),
    ("hlir", "ReverseSequence", "sequence_lens_type", "tensor(int)", "1"),
    ("hlir", "Topk", "tensor_int", "tensor(int)", "1"),
    ("hlir", "Complex", "complex_type", "tensor(complex)", "1"),
    ("hlir", "Imag", "complex_type", "tensor(complex)", "1"),
    ("hlir", "Softmax", "doubled_from", "从从", "1"),
    ("hlir", "Softplus", "stray_shi", "使对", "1"),
    ("hlir", "RoiAlign", "input_called_x", "输入张量 X", "1"),
    ("hlir", "RoiAlign", "num_roi", "[num_roi,", "1"),
    ("hlir", "AveragePool", "x_and_y", "输入张量 X", "1"),
    ("hlir", "AveragePool", "x_and_y", "输出张量 Y", "1"),
    ("hlir", "Dot", "split_arrow", "= >", "1"),
    ("hlir", "DotGeneral", "split_arrow", "= >", "1"),
    ("hlir", "Resize", "nearest_quotes", "“最近 “", "1"),
    ("hlir", "Select", "inputs_heading_on_source_line", "#select 输入", "1"),
    ("onnx", "Elu", "output_called_input", "Y (heterogeneous) - T: 1D input tensor", "1"),
    ("onnx", "PRelu", "domain_label", "• : main", "16, 9, 7, 6, 1"),
    ("onnx", "PRelu", "function_body_brackets", "PRelu (X, slope) => (Y)", "16"),
]


def squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("domain,op,note_id,quote,versions", LISTED_SLIPS,
                         ids=[f"{o}.{i}.{q}" for _, o, i, q, _ in LISTED_SLIPS])
def test_listed_slip_is_an_erratum_on_the_errata_page(domain, op, note_id, quote, versions):
    spec = SPEC_SET.domain(domain).op(op)
    note = next((n for n in spec.all_notes() if n.id == note_id), None)
    assert note is not None, f"{domain}.{op}: no note {note_id}"
    assert note.kind == "erratum"
    assert quote in note.document_says
    documents = [squeeze((SOURCES / s.document).read_text(encoding="utf-8")) for s in spec.sources]
    assert any(squeeze(quote) in d for d in documents), f"{quote!r} is not in the source of {op}"
    for lang in ("en", "zh"):
        page = (ROOT / "generated" / "docs" / lang / domain / "errata.md").read_text(encoding="utf-8")
        row = (f"| [{op}]({op}.md) | {versions} | {md_cell(note.field)} | {md_cell(note.document_says)} | "
               f"{md_cell(note.text.get(lang))} |")
        assert row in page.splitlines(), f"{lang} errata page lacks the row of {op}.{note_id} (versions {versions})"


def test_select_summary_does_not_hold_the_inputs_heading():
    """The "输入" heading, run onto Select's 来源 line, is not transcribed as part of the summary."""
    summary = SPEC_SET.domain("hlir").op("Select").versions[0].summary
    assert not any(p.strip() == "输入" for p in summary.zh.split("\n\n"))
    assert not any(p.strip() == "Inputs" for p in summary.en.split("\n\n"))
    assert summary.zh.rstrip().endswith("的标量。")
