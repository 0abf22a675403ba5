"""The hlir specs are a faithful transcription of seed document 004.

For every section: its spec exists, in order; for documented sections every attribute, input,
output and type-constraint bullet of the text is rebuilt from the spec (name, type spelling,
default) and vice versa; type lists equal the spec's; Chinese texts are verbatim. The only
exceptions are entries that a recorded note names (an erratum or a decision), listed below.
"""
from __future__ import annotations

import re

import pytest

from opgen.model import Attribute, OpSpec

from conftest import project_specs
from seed_004 import SEED, normalise, read_sections

SECTIONS = read_sections()
HLIR = project_specs().domain("hlir")
# The transcription is the 141 sections of document 004; the extension ops (StableHLO operations jax
# emits that the document lacks, marked `extension: stablehlo`) cite the StableHLO spec instead and are
# left out of every comparison here.
TRANSCRIBED = [op for op in HLIR.ops if op.extension is None]
EMPTY = {"BCELoss", "CustomCall", "DepthToSpace", "Dropout", "Erf", "Gemm", "GeneralSplit", "GetTupleElement",
         "GlobalMaxPool", "GroupNorm", "If", "PartialReduce", "ShiftRightArithmetic", "ShiftRightLogical",
         "SliceInDim", "Tile", "Tuple", "While"}
_ATTR_SPELLING = {"ints": "list of ints", "floats": "list of floats", "strings": "list of strings"}


def spec_of(name: str) -> OpSpec:
    op = HLIR.op(name)
    assert op is not None, f"no spec for section {name}"
    assert op.extension is None, f"section {name} has an extension spec"
    return op


def render_default(a: Attribute) -> str:
    if a.default_each is not None:
        value = a.default_each
    elif not a.has_default:
        return ""
    else:
        value = a.default
    text = str(value).lower() if isinstance(value, bool) else str(value)
    return f"(默认为{text})"


def noted_fields(op: OpSpec) -> set[str]:
    return {n.field for n in op.all_notes() if n.field}


def canonical(kind: str, item, op: OpSpec) -> str:
    """The bullet text after the name that the spec implies."""
    if item.written_as is not None:
        return item.written_as
    if kind == "attributes":
        type_text = item.tensor_type if item.type == "tensor" else _ATTR_SPELLING.get(item.type, item.type)
        default = render_default(item)
        if default and f"attributes.{item.name}.default" in noted_fields(op):
            default = ""  # a prose default, recorded with a note, has no markup in the text
        return type_text + default
    if kind == "type_constraints":
        return ", ".join(item.written_types)
    return f"list of {item.type}" if item.option == "variadic" else item.type


def accepted(kind: str, item, op: OpSpec) -> set[str]:
    """Spellings of the bullet text the spec allows: its canonical form, and for a default that a
    note discusses, the form with the default markup as well as without it."""
    out = {canonical(kind, item, op)}
    if kind == "attributes" and item.written_as is None and f"attributes.{item.name}.default" in noted_fields(op):
        type_text = item.tensor_type if item.type == "tensor" else _ATTR_SPELLING.get(item.type, item.type)
        out.add(type_text + render_default(item))
    return out


def items(op: OpSpec, kind: str) -> list:
    return list(getattr(op.versions[0], kind))


def test_every_section_has_its_spec_in_order():
    assert [s.number for s in SECTIONS] == list(range(1, 142))
    assert sorted(s.name for s in SECTIONS) == sorted(op.name for op in TRANSCRIBED)
    for s in SECTIONS:
        assert [src.section for src in spec_of(s.name).sources] == [f"3.{s.number}"]
        assert [src.document for src in spec_of(s.name).sources] == [SEED.name]


def test_empty_sections_are_marked_and_given_a_definition():
    assert {s.name for s in SECTIONS if s.empty} == EMPTY
    for name in EMPTY:
        op = spec_of(name)
        assert not op.provenance.documented
        assert op.provenance.follows in ("XLA", "ONNX", "PyTorch") and op.provenance.reference
        assert op.provenance.explanation.en and op.provenance.explanation.zh
    for s in SECTIONS:
        if not s.empty:
            assert spec_of(s.name).provenance.documented


DOCUMENTED = [s for s in SECTIONS if not s.empty]


@pytest.mark.parametrize("section", DOCUMENTED, ids=[s.name for s in DOCUMENTED])
@pytest.mark.parametrize("kind", ["attributes", "inputs", "outputs", "type_constraints"])
def test_bullets_match_spec(section, kind):
    op = spec_of(section.name)
    entries = items(op, kind)
    bullets = list(section.bullets.get(kind, []))
    noted = noted_fields(op)
    matched = []
    for line in bullets:
        # The entry named by the bullet; an entry renamed by a note (`<kind>.<name>.name`) may take a
        # bullet written under a name that another entry already took (RoiAlign's second T1).
        written = max((e.name for e in entries if line.startswith(e.name)), key=len, default=None)
        assert written is not None, f"{op.name}: document {kind} bullet {line!r} has no spec entry"
        free = [e for e in entries if e.name not in matched]
        entry = next((e for e in free if e.name == written), None) or next(
            (e for e in free if f"{kind}.{e.name}.name" in noted), None)
        assert entry is not None, f"{op.name}: document {kind} bullet {line!r} is matched twice"
        matched.append(entry.name)
        rest = line[len(written):].strip()
        assert rest in accepted(kind, entry, op), (
            f"{op.name} {kind}.{entry.name}: document says {rest!r}, spec implies {canonical(kind, entry, op)!r}")
    assert matched == [e.name for e in entries if e.name in matched], f"{op.name}: {kind} order differs"
    for e in entries:  # a spec entry absent from the text must be explained by a note
        if e.name not in matched:
            assert any(f.startswith(f"{kind}.{e.name}") or f == kind for f in noted), (
                f"{op.name}: spec {kind}.{e.name} is not in the document and no note explains it")


@pytest.mark.parametrize("section", DOCUMENTED, ids=[s.name for s in DOCUMENTED])
def test_type_lists_equal_the_document(section):
    op = spec_of(section.name)
    for tc in op.versions[0].type_constraints:
        if tc.written_as is None:
            continue  # the bullet test compared the literal list already
        written = [t.strip().strip("*.") for t in tc.written_as.split(",")]
        if all(t.startswith("tensor(") for t in written):
            aliases = {"tensor(half)": "tensor(float16)"}
            doc_types = list(dict.fromkeys(aliases.get(t, t) for t in written))
            noted = any(n.field.startswith(f"type_constraints.{tc.name}") for n in op.all_notes())
            assert doc_types == list(tc.types) or noted, f"{op.name}.{tc.name}: {doc_types} vs {list(tc.types)}"


@pytest.mark.parametrize("section", DOCUMENTED, ids=[s.name for s in DOCUMENTED])
def test_chinese_text_is_verbatim(section):
    op = spec_of(section.name)
    v = op.versions[0]
    body = normalise(section.text)
    texts = [("summary", v.summary.zh)]
    texts += [(f"{kind}.{e.name}", e.description.zh) for kind in ("attributes", "inputs", "outputs")
              for e in getattr(v, kind)]
    noted = noted_fields(op)
    for field, text in texts:
        if field in noted or f"{field}.description" in noted or any(f.startswith(field) for f in noted):
            continue  # an added or corrected entry, explained by its note
        for paragraph in filter(None, (p.strip() for p in text.split("\n\n"))):
            assert normalise(paragraph) in body, f"{op.name} {field}: not verbatim: {paragraph[:60]!r}"


def test_every_note_quotes_the_document_faithfully():
    raw = normalise(SEED.read_text(encoding="utf-8"))
    for op in TRANSCRIBED:
        for note in op.all_notes():
            if note.document_says and op.provenance.documented:
                quote = normalise(note.document_says)
                parts = [p for p in re.split(r"\.\.\.|…|/", quote) if p]  # elisions and joined quotes
                assert all(p in raw for p in parts), f"{op.name} note {note.id}: {note.document_says!r}"


# The slips the transcription issue names: each must be recorded as an erratum on its op.
KNOWN_ERRATA = ["Neg", "RoiAlign", "Softplus", "Atan2", "AveragePool", "Gather", "Sigmoid", "Resize", "Expm1",
                "NMS", "Select", "RngUniform"]


@pytest.mark.parametrize("name", KNOWN_ERRATA)
def test_known_slips_are_recorded(name):
    op = spec_of(name)
    assert any(n.kind == "erratum" for n in op.all_notes()), f"{name} has no erratum note"


# Required attributes that the references define with a default: the document gives none, so each
# spec records the reference's default in a reference_difference note on the attribute.
REFERENCE_DEFAULTS = [("Elu", "alpha", "1.0"), ("HardSigmoid", "slope", "0.2"), ("HardSigmoid", "offset", "0.5"),
                      ("LeakyRelu", "alpha", "0.01"), ("Gelu", "approximate", "'none'")]


@pytest.mark.parametrize("name,attribute,default", REFERENCE_DEFAULTS, ids=[f"{n}.{a}" for n, a, _ in REFERENCE_DEFAULTS])
def test_reference_defaults_of_required_attributes_are_noted(name, attribute, default):
    op = spec_of(name)
    attr = next(a for a in op.versions[0].attributes if a.name == attribute)
    assert attr.required and not attr.has_default
    fields = ("attributes", f"attributes.{attribute}", f"attributes.{attribute}.default")
    notes = [n for n in op.all_notes() if n.kind == "reference_difference" and n.field in fields]
    assert any(default in n.text.en and default in n.text.zh for n in notes), (
        f"{name}.{attribute}: no reference_difference note gives the references' default {default}")
