"""Each ONNX spec version equals what the installed onnx package's schemas report, and the specs hold
every operator and version of the default domain that the pinned onnx defines (no more, no fewer). The
ops of ONNX's other operator domains (onnx_domain: ai.onnx.ml, ...) are checked against their domain's
schemas; the specs hold a chosen few of them, each with every version."""
from __future__ import annotations

import onnx.defs
import onnx.parser
import pytest


from conftest import project_specs

SPECS_ONNX = project_specs().domain("onnx")
OPS = SPECS_ONNX.ops

_ATTR_TYPES = {"INT": "int", "FLOAT": "float", "STRING": "string", "INTS": "ints", "FLOATS": "floats",
               "STRINGS": "strings", "TENSOR": "tensor", "GRAPH": "graph", "SPARSE_TENSOR": "sparse_tensor",
               "TYPE_PROTO": "type_proto"}
_OPTION = {"Single": "single", "Optional": "optional", "Variadic": "variadic"}


def defined_versions(domain: str = "") -> set[tuple[str, int]]:
    wanted = ("", "ai.onnx") if domain == "" else (domain,)
    return {(s.name, s.since_version) for s in onnx.defs.get_all_schemas_with_history() if s.domain in wanted}


def test_every_operator_and_version_of_the_pinned_onnx_is_specified():
    """Fails when the pinned onnx gains an op or a version the specs lack (or the specs invent one)."""
    ours = {(op.name, v.since_version) for op in OPS for v in op.versions if op.onnx_domain is None}
    theirs = defined_versions()
    assert sorted(theirs - ours) == [], "in onnx.defs but not in specs/onnx"
    assert sorted(ours - theirs) == [], "in specs/onnx but not in onnx.defs"
    assert len({name for name, _ in theirs}) >= 203 and len(theirs) >= 629  # onnx 1.23.2


def test_the_domain_lists_every_opset_a_version_belongs_to():
    assert set(SPECS_ONNX.opset_versions) == {v for _, v in defined_versions()}
    for domain, versions in SPECS_ONNX.onnx_domains:
        assert set(versions) == {v for _, v in defined_versions(domain)}, domain


def test_ops_of_other_onnx_domains_have_every_version_of_their_domain():
    for op in OPS:
        if op.onnx_domain is not None:
            theirs = sorted((v for name, v in defined_versions(op.onnx_domain) if name == op.name), reverse=True)
            assert [v.since_version for v in op.versions] == theirs, op.name


def schema(op, v):
    s = onnx.defs.get_schema(op.name, v.since_version, op.onnx_domain or "")
    assert s.since_version == v.since_version, f"{v.key}: onnx.defs resolves to since_version {s.since_version}"
    return s


def _name(p) -> str:
    return p.name.removesuffix("...")  # Split-1/2 name their variadic output "outputs..." (a spec decision)


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_versions_equal_onnx_defs(op):
    for v in op.versions:
        s = schema(op, v)
        key = v.key
        assert v.support_level == s.support_level.name, key
        assert v.deprecated == s.deprecated, key
        assert bool(v.function) == (s.has_function or s.has_context_dependent_function), key
        assert bool(v.shape_inference) == s.has_type_and_shape_inference_function, key
        # attributes: names, types, required-ness, defaults
        ours = {a.name: a for a in v.attributes}
        assert set(ours) == set(s.attributes), key
        for name, attr in s.attributes.items():
            assert ours[name].type == _ATTR_TYPES[attr.type.name], f"{key}.{name}"
            assert ours[name].required == attr.required, f"{key}.{name}"
            default = onnx.helper.get_attribute_value(attr.default_value) if attr.default_value.name else None
            if attr.type.name in ("INT", "FLOAT", "STRING", "INTS", "FLOATS", "STRINGS"):
                assert ours[name].has_default == (default is not None), f"{key}.{name}"
                if isinstance(default, bytes):
                    default = default.decode()
                if isinstance(default, list) and default and isinstance(default[0], bytes):
                    default = [d.decode() for d in default]
                if default is not None:
                    got = list(ours[name].default) if isinstance(ours[name].default, tuple) else ours[name].default
                    assert got == pytest.approx(default) if not isinstance(default, str) else got == default, \
                        f"{key}.{name}"
        # inputs and outputs
        for mine, theirs in ((v.inputs, s.inputs), (v.outputs, s.outputs)):
            assert [p.name for p in mine] == [_name(p) for p in theirs], key
            assert [p.option for p in mine] == [_OPTION[p.option.name] for p in theirs], key
            assert [p.type for p in mine] == [p.type_str for p in theirs], key
            for p, t in zip(mine, theirs):
                assert p.homogeneous == t.is_homogeneous, f"{key}.{p.name}"
                if p.option == "variadic":
                    assert p.min_arity == t.min_arity, f"{key}.{p.name}"
        # type constraints: every type ONNX allows, none dropped
        assert {t.name: set(t.types) for t in v.type_constraints} == \
            {t.type_param_str: set(t.allowed_type_strs) for t in s.type_constraints}, key


FUNCTIONS = [(op, v) for op in OPS for v in op.versions if v.function_body]


@pytest.mark.parametrize("op,v", FUNCTIONS, ids=lambda x: getattr(x, "key", ""))
def test_function_body_parses(op, v):
    function = onnx.parser.parse_function(v.function_body)
    assert function.name == op.name
    assert [o.version for o in function.opset_import if o.domain == ""] == [v.function_opset]
    assert list(function.input) == [p.name for p in v.inputs]
    assert list(function.output) == [p.name for p in v.outputs]
    assert set(function.attribute) | {a.name for a in function.attribute_proto} <= {a.name for a in v.attributes}


def test_function_bodies_equal_onnx_defs():
    for op, v in FUNCTIONS:
        s = schema(op, v)
        assert v.function_opset == max(s.function_opset_versions), v.key
        body = s.get_function_with_opset_version(v.function_opset)
        if isinstance(body, bytes):
            body = onnx.FunctionProto.FromString(body)
        assert onnx.parser.parse_function(v.function_body) == body or \
            onnx.printer.to_text(body).strip() == v.function_body.strip(), v.key


def test_every_documented_version_is_transcribed():
    """The seeds give PRelu 16, 9, 7, 6, 1 and Elu 22, 6, 1."""
    assert [v.since_version for v in SPECS_ONNX.op("PRelu").versions] == [16, 9, 7, 6, 1]
    assert [v.since_version for v in SPECS_ONNX.op("Elu").versions] == [22, 6, 1]


def test_deprecated_operators_are_marked():
    marked = {(op.name, v.since_version) for op in OPS for v in op.versions if v.deprecated}
    assert {("Upsample", 10), ("Scatter", 11)} <= marked
