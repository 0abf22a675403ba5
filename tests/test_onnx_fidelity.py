"""Each ONNX spec version equals what the installed onnx package's schemas report."""
from __future__ import annotations

import onnx.defs
import onnx.parser
import pytest

from opgen.parse import load_or_raise

from conftest import SPECS

SPECS_ONNX = load_or_raise(SPECS).domain("onnx")
VERSIONS = [(op, v) for op in SPECS_ONNX.ops for v in op.versions]
IDS = [v.key for _, v in VERSIONS]

_ATTR_TYPES = {"INT": "int", "FLOAT": "float", "STRING": "string", "INTS": "ints", "FLOATS": "floats",
               "STRINGS": "strings", "TENSOR": "tensor", "GRAPH": "graph"}
_OPTION = {"Single": "single", "Optional": "optional", "Variadic": "variadic"}


def schema(op, v):
    s = onnx.defs.get_schema(op.name, v.since_version, "")
    assert s.since_version == v.since_version, f"{v.key}: onnx.defs resolves to since_version {s.since_version}"
    return s


@pytest.mark.parametrize("op,v", VERSIONS, ids=IDS)
def test_metadata(op, v):
    s = schema(op, v)
    assert v.support_level == s.support_level.name
    assert bool(v.function) == (s.has_function or s.has_context_dependent_function)
    assert bool(v.shape_inference) == s.has_type_and_shape_inference_function


@pytest.mark.parametrize("op,v", VERSIONS, ids=IDS)
def test_attributes(op, v):
    s = schema(op, v)
    ours = {a.name: a for a in v.attributes}
    assert set(ours) == set(s.attributes)
    for name, attr in s.attributes.items():
        assert ours[name].type == _ATTR_TYPES[attr.type.name]
        assert ours[name].required == attr.required
        default = onnx.helper.get_attribute_value(attr.default_value) if attr.default_value.name else None
        assert ours[name].has_default == (default is not None)
        if default is not None:
            assert ours[name].default == pytest.approx(default)


@pytest.mark.parametrize("op,v", VERSIONS, ids=IDS)
def test_parameters(op, v):
    s = schema(op, v)
    for ours, theirs in ((v.inputs, s.inputs), (v.outputs, s.outputs)):
        assert [p.name for p in ours] == [p.name for p in theirs]
        assert [p.option for p in ours] == [_OPTION[p.option.name] for p in theirs]
        assert [p.type for p in ours] == [p.type_str for p in theirs]
        for p, t in zip(ours, theirs):
            assert p.homogeneous == t.is_homogeneous


@pytest.mark.parametrize("op,v", VERSIONS, ids=IDS)
def test_type_constraints(op, v):
    s = schema(op, v)
    ours = {t.name: set(t.types) for t in v.type_constraints}
    theirs = {t.type_param_str: set(t.allowed_type_strs) for t in s.type_constraints}
    assert ours == theirs


@pytest.mark.parametrize("op,v", [(op, v) for op, v in VERSIONS if v.function], ids=lambda x: getattr(x, "key", ""))
def test_function_body_parses(op, v):
    function = onnx.parser.parse_function(v.function_body)
    assert function.name == op.name
    assert [o.version for o in function.opset_import if o.domain == ""] == [v.function_opset]
    assert list(function.input) == [p.name for p in v.inputs]
    assert list(function.output) == [p.name for p in v.outputs]
    assert list(function.attribute) == [a.name for a in v.attributes]


def test_every_documented_version_is_transcribed():
    """The seeds give PRelu 16, 9, 7, 6, 1 and Elu 22, 6, 1."""
    assert [v.since_version for v in SPECS_ONNX.op("PRelu").versions] == [16, 9, 7, 6, 1]
    assert [v.since_version for v in SPECS_ONNX.op("Elu").versions] == [22, 6, 1]
