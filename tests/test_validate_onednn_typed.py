"""oneDNN Graph files are decoded into typed records (opgen.validate.onednn_typed) and read from them:
the report, the graph and every error must be those of the document parsed by json.loads and read by
the dict reader (validate_model given the parsed dict), which the typed path claims only to speed up."""
from __future__ import annotations

import json
import typing

import pytest
import yaml

from opgen.validate import ModelReadError, validate_model
from opgen.validate.api import read_model
from opgen.validate.onednn_typed import DataType, TypedOnednn, decode

from conftest import ROOT

DATA = ROOT / "tests" / "data"
I64_MIN = -(2**63)


def lt(tid, dtype="f32", shape=(2, 8), prop="undef"):
    return {"id": tid, "dtype": dtype, "shape": list(shape), "stride": [8, 1][-len(shape):] if shape else [],
            "layout_type": "strided", "property_type": prop}


def prelu(k, src, dst, slope=99, **kw):
    op = {"id": k, "name": f"p{k}", "kind": "PReLU",
          "attrs": {"data_format": {"type": "string", "value": "NCX"},
                    "per_channel_broadcast": {"type": "bool", "value": 1}},
          "inputs": [src, lt(slope, shape=(8,), prop="constant")], "outputs": [dst]}
    op.update(kw)
    return op


def doc(*ops, **top):
    return {"version": "3.5.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": list(ops), **top}


# Documents the typed records take: what they describe must come out as the dict reader has it.
TYPED = {
    "chain": doc(prelu(0, lt(0), lt(1)), prelu(1, lt(1), lt(2))),
    "out_of_order_and_ports": doc(prelu(1, lt(1), lt(2)), prelu(0, lt(0), lt(1)), input_ports=[99, 0],
                                  output_ports=[2]),
    "produced_twice_in_order": doc(prelu(0, lt(0), lt(1)), prelu(1, lt(1), lt(2)), prelu(2, lt(0), lt(1))),
    "uses_its_own_output": doc(prelu(0, lt(0), lt(1)), prelu(1, lt(2), lt(2))),
    "contradicting_descriptions": doc(prelu(0, lt(0), lt(1)), prelu(1, lt(1, shape=(2, 9)), lt(2)),
                                      prelu(2, lt(1, dtype="bf16"), lt(3))),
    "unknown_parts_agree": doc(prelu(0, lt(0), lt(1)), prelu(1, lt(1, dtype="undef", shape=(I64_MIN,)), lt(2)),
                               prelu(2, lt(2, shape=(2, I64_MIN)), lt(3))),
    "other_dtype_names": doc(prelu(0, lt(0, dtype="f64"), lt(1, dtype="f64")), prelu(1, lt(1, dtype="s4"), lt(2))),
    "attribute_spellings": doc(prelu(0, lt(0), lt(1)),
                               prelu(1, lt(1), lt(2), attrs={"data_format": {"type": "string", "value": "NCX"},
                                                             "per_channel_broadcast": {"type": "bool",
                                                                                       "value": 1.0}}),
                               prelu(2, lt(2), lt(3), attrs={"per_channel_broadcast": {"type": "bool",
                                                                                       "value": True}})),
    "missing_fields": doc({"kind": "PReLU", "inputs": [{"id": 0}, {"id": 5, "dtype": None, "shape": None}],
                           "outputs": [{"id": 1, "dtype": "f32"}]}, {"kind": "Nothing"}),
    "odd_context": doc(prelu(0, lt(0), lt(1)), version=3, engine_kind=True, fpmath_mode=[1]),
}
TYPED.update({path.stem: json.loads(path.read_text()) for path in sorted((DATA / "onednn").glob("*.json"))})


def _same(found, expected, path):
    found, expected = found.to_dict(), expected.to_dict()
    assert found.pop("file") == str(path) and expected.pop("file") == "<model>"
    assert found.pop("summary") == expected.pop("summary").replace("<model>", str(path), 1)
    assert found == expected


@pytest.mark.parametrize("name", sorted(TYPED))
def test_typed_reading_matches_the_dict_reader(name, tmp_path):
    document = TYPED[name]
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(document))
    assert isinstance(decode(path.read_bytes()), TypedOnednn)  # the case runs the typed path
    _same(validate_model(path), validate_model(json.loads(path.read_text())), path)
    graph, records = read_model(path)
    expected, expected_records = read_model(json.loads(path.read_text()))
    assert (graph.inputs, graph.outputs, list(graph.values.items())) == \
        (expected.inputs, expected.outputs, list(expected.values.items()))
    assert [(n.name, n.op, n.inputs, n.outputs, n.attributes, n.attr_kinds) for n in graph.nodes] == \
        [(n.name, n.op, n.inputs, n.outputs, n.attributes, n.attr_kinds) for n in expected.nodes]
    assert records == expected_records


# Files the typed records do not take whole (decode gives None): json.loads and the dict reader read them,
# with their own errors.
UNTYPED = {
    "id_is_a_bool": '{"graph": [{"kind": "PReLU", "inputs": [{"id": true}]}]}',
    "dimension_is_a_float": '{"graph": [{"kind": "PReLU", "inputs": [{"id": 1, "shape": [2.0]}]}]}',
    "kind_is_a_number": '{"graph": [{"kind": 3}]}',
    "name_is_null": '{"graph": [{"kind": "PReLU", "name": null}]}',
    "inputs_not_a_list": '{"graph": [{"kind": "PReLU", "inputs": {}}]}',
    "dtype_is_a_number": '{"graph": [{"kind": "PReLU", "inputs": [{"id": 1, "dtype": 32}]}]}',
    "byte_order_mark": '\ufeff{"graph": [{"kind": "Abs", "inputs": [{"id": 1}], "outputs": [{"id": 2}]}]}',
    "not_a_number": '{"graph": [{"kind": "Abs", "attrs": {"a": {"type": "f32", "value": NaN}}}]}',
    "lone_surrogate": '{"graph": [{"kind": "\\ud800"}]}',
    "deep_attribute": '{"graph": [{"kind": "Abs", "attrs": ' + "[" * 100_000 + "]" * 100_000 + "}]}",
    "hlir_marker": '{"format": "opgen-hlir-graph", "graph": [{"kind": "Abs"}]}',
    "truncated": '{"graph": [{"kind": "Abs"',
    "dtype_oneDNN_does_not_name": json.dumps(doc(prelu(0, lt(0), lt(1)), prelu(1, lt(1, dtype="q7"), lt(2)))),
}


def test_the_records_name_the_domains_data_types():
    domain = yaml.safe_load((ROOT / "specs" / "onednn" / "domain.yaml").read_text())
    assert sorted(typing.get_args(DataType)) == sorted(["undef", *domain["dtype_names"]])


def _outcome(model, limits=None):
    try:
        return validate_model(model, **({"limits": limits} if limits else {})).to_text()
    except ModelReadError as exc:
        return f"ModelReadError: {exc}"


@pytest.mark.parametrize("name", sorted(UNTYPED))
def test_documents_the_records_do_not_take_read_as_before(name, tmp_path):
    path = tmp_path / f"{name}.json"
    path.write_bytes(UNTYPED[name].encode("utf-8", "surrogatepass"))
    assert decode(path.read_bytes()) is None

    found = _outcome(path)
    try:
        expected = _outcome(json.loads(path.read_bytes().decode("utf-8-sig", "surrogatepass")))
    except (ValueError, RecursionError) as exc:  # not JSON at all: the file's error is json's own, located
        assert found.startswith("ModelReadError: ") and ("JSON" in found), found
        assert type(exc).__name__ in ("JSONDecodeError", "RecursionError", "UnicodeDecodeError")
        return
    assert found == expected.replace("<model>", str(path))


def test_errors_in_typed_documents_are_the_dict_readers(tmp_path):
    """Errors found after decoding (a shape beyond the limits, a bad attribute object, the attribute
    budget) are raised where the dict reader raises them, naming the same op."""
    cases = [doc(prelu(0, lt(0), lt(1)), prelu(1, lt(1), lt(2, shape=(2, -3)))),
             doc(prelu(0, lt(0), lt(1)), prelu(1, lt(1), lt(2), attrs={"x": 1})),
             doc(prelu(0, lt(0), lt(1), attrs=(listed := {"a": {"type": "s64[]", "value": list(range(600))}})),
                 prelu(1, lt(1), lt(2, shape=(2, -3)), attrs=listed)),
             doc(prelu(0, lt(0), lt(1), attrs=listed), prelu(1, lt(1), lt(2), attrs=listed))]
    from opgen.validate.limits import Limits

    small = Limits(max_total_attribute_elements=1000, max_attribute_elements=700)
    for k, case in enumerate(cases):
        path = tmp_path / f"case{k}.json"
        path.write_text(json.dumps(case))
        for limits in (small, Limits()):
            found, expected = _outcome(path, limits), _outcome(case, limits).replace("<model>", str(path))
            assert found == expected and (found.startswith("ModelReadError") or limits != small)


def test_a_raw_part_too_deep_for_json_is_an_unreadable_file():
    from opgen.validate.json_part import loads_part

    assert loads_part(b'{"a": [1, 2.5, true]}') == {"a": [1, 2.5, True]}
    with pytest.raises(ModelReadError, match="nests too deeply"):
        loads_part(b"[" * 100_000 + b"]" * 100_000)
