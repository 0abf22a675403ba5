"""hlir graph files (JSON) are decoded into typed records (opgen.validate.hlir_typed) that state the
published schema's constraints: the report, the graph and every error must be those of the document
parsed by json.loads, checked by the schema and read by the dict reader (validate_model given the
parsed dict), and the records' constraints must be the schema's own."""
from __future__ import annotations

import json
import typing

import pytest
import yaml

from opgen.validate import ModelReadError, validate_model
from opgen.validate.api import read_model
from opgen.validate.hlir_reader import read_hlir
from opgen.validate.hlir_typed import _IDENTIFIER, _MAX_DIM, _MAX_NAME, _MAX_RANK, Dtype, TypedHlir, decode
from opgen.validate.limits import Limits

from conftest import ROOT

SCHEMA = json.loads((ROOT / "specs" / "schema" / "hlir-graph.schema.json").read_text())


def test_the_records_state_the_published_schema():
    defs = SCHEMA["$defs"]
    assert list(typing.get_args(Dtype)) == defs["dtype"]["enum"]
    assert defs["identifier"]["pattern"] == _IDENTIFIER
    assert defs["name"] == {"type": "string", "minLength": 1, "maxLength": _MAX_NAME}
    assert defs["node"]["properties"]["name"]["maxLength"] == _MAX_NAME
    assert defs["shape"]["maxItems"] == _MAX_RANK and defs["shape"]["items"]["oneOf"][0]["maximum"] == _MAX_DIM
    assert set(defs["node"]["properties"]) == {"name", "op", "inputs", "outputs", "attributes", "graphs"}
    assert set(defs["value"]["properties"]) == {"name", "dtype", "shape"}


def value(name, dtype="float", shape=(2, 3)):
    return {"name": name, "dtype": dtype, "shape": None if shape is None else list(shape)}


def graph(*nodes, **top):
    return {"format": "opgen-hlir-graph", "version": 1, "inputs": [value("x"), value("y")],
            "values": [value("t")], "outputs": [{"name": "z"}], "nodes": list(nodes), **top}


ABS = {"name": "a", "op": "Abs", "inputs": ["x"], "outputs": ["t"]}
MAX = {"op": "Max", "inputs": ["t", "y"], "outputs": ["z"]}
CONCAT = {"op": "Concatenate", "inputs": ["x", "y"], "outputs": ["z"], "attributes": {"dimension": 0}}

# Documents the records take whole: what they describe must come out as the dict reader has it.
TYPED = {
    "chain": graph(ABS, MAX),
    "declared_twice_differently": graph(ABS, MAX, values=[value("t"), value("t", shape=(3, 2))]),
    "unknown_dimensions_and_ranks": graph(ABS, MAX, values=[value("t", shape=(None, 3))],
                                          outputs=[value("z", shape=None), value("w", dtype="int8")]),
    "attributes": graph({**CONCAT, "outputs": ["c"]},
                        {"op": "Transpose", "inputs": ["x"], "outputs": ["p"],
                         "attributes": {"permutation": [1, 0], "note": "x", "f": 1.5, "b": True, "n": None}},
                        ABS, MAX),
    "bad_attribute_and_unknown_op": graph({**CONCAT, "attributes": {"dimension": 7}}, {"op": "NoSuchOp",
                                                                                     "inputs": [], "outputs": ["q"]}),
    "domain_opset_name": graph(ABS, MAX, domain="hlir", opset=1, name="g"),
    "op_with_newline": graph({**ABS, "op": "Abs\n"}, MAX),
    "constants": graph(ABS, MAX, constants=[{"name": "k", "dtype": "int32", "value": [[1, 2], [3, 4]]},
                                            {"name": "s", "dtype": "float", "shape": [3], "value": [1, 2]}]),
    "no_optional_lists": {"format": "opgen-hlir-graph", "version": 1, "nodes": [ABS]},
}
TYPED["example"] = yaml.safe_load((ROOT / "tests" / "data" / "hlir_map_graph.yaml").read_text())
TYPED["example"]["nodes"] = [n for n in TYPED["example"]["nodes"] if "graphs" not in n]


def _outcome(model, limits=None):
    try:
        report = validate_model(model, **({"limits": limits} if limits else {})).to_dict()
    except ModelReadError as exc:
        return f"ModelReadError: {exc}"
    file = report.pop("file")
    report["summary"] = report["summary"].replace(file, "<model>", 1)
    return report


@pytest.mark.parametrize("name", sorted(TYPED))
def test_typed_reading_matches_the_dict_reader(name, tmp_path):
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(TYPED[name]))
    assert isinstance(decode(path.read_bytes()), TypedHlir)  # the case runs the typed path
    assert _outcome(path) == _outcome(json.loads(path.read_text()))
    if name == "constants":
        return
    found, records = read_model(path)
    expected, expected_records = read_model(json.loads(path.read_text()))
    assert (found.name, found.inputs, found.initializers, found.outputs, list(found.values.items())) == \
        (expected.name, expected.inputs, expected.initializers, expected.outputs, list(expected.values.items()))
    assert [(n.name, n.op, n.opset, n.inputs, n.outputs, n.attributes, n.attr_key) for n in found.nodes] == \
        [(n.name, n.op, n.opset, n.inputs, n.outputs, n.attributes, n.attr_key) for n in expected.nodes]
    assert records == expected_records


# Files the records do not take whole (decode gives None): json.loads, the schema and the dict reader
# read them, with the schema's own errors.
UNTYPED = {
    "nested_graphs": yaml.safe_load((ROOT / "tests" / "data" / "hlir_map_graph.yaml").read_text()),
    "null_dtype": graph(ABS, MAX, values=[value("t", dtype=None)]),
    "unknown_dtype": graph(ABS, MAX, values=[value("t", dtype="float32")]),
    "float_dimension": graph(ABS, MAX, values=[{"name": "t", "dtype": "float", "shape": [2.0, 3]}]),
    "negative_dimension": graph(ABS, MAX, values=[value("t", shape=(-1, 3))]),
    "unknown_key": graph({**ABS, "colour": "red"}, MAX),
    "op_not_an_identifier": graph({**ABS, "op": "A-b"}, MAX),
    "empty_value_name": graph(ABS, MAX, values=[value("")]),
    "long_input_name": graph({**ABS, "inputs": ["x" * 1025]}, MAX),
    "nested_attribute": graph({**CONCAT, "attributes": {"dimension": [[0]]}}),
    "attribute_name": graph({**CONCAT, "attributes": {"1st": 0}}),
    "version_2": {**graph(ABS), "version": 2},
    "opset_0": graph(ABS, MAX, opset=0),
    "opset_true": graph(ABS, MAX, opset=True),
    "bad_constant_and_bad_node": graph({**ABS, "op": "A-b"}, constants=[{"name": "k", "value": 1}]),
}


@pytest.mark.parametrize("name", sorted(UNTYPED))
def test_documents_the_records_do_not_take_read_as_before(name, tmp_path):
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(UNTYPED[name]))
    assert decode(path.read_bytes()) is None
    assert _outcome(path) == _outcome(json.loads(path.read_text()))


def test_errors_after_decoding_are_the_dict_readers(tmp_path):
    """What the records leave to the reading (a constant the schema refuses, its value, the attribute
    budget, a depth limit below a plain item's, another schema) ends as the dict reader ends."""
    cases = {
        "constant_without_dtype": graph(ABS, MAX, constants=[{"name": "k", "value": 1}]),
        "constant_value_not_its_dtype": graph(ABS, MAX, constants=[{"name": "k", "dtype": "int8", "value": "x"}]),
        "deep_constant": graph(ABS, MAX, constants=[{"name": "k", "dtype": "int8", "value": [[[[[[1]]]]]]}]),
        "budget": graph(*[{**CONCAT, "attributes": {"l": list(range(400))}, "outputs": [f"o{k}"]} for k in range(3)]),
    }
    for name, case in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(case))
        assert isinstance(decode(path.read_bytes()), TypedHlir)
        for limits in (Limits(max_total_attribute_elements=1000, max_json_depth=6), Limits(max_json_depth=3),
                       Limits()):
            assert _outcome(path, limits) == _outcome(case, limits), (name, limits)
    # another schema: the records are not read by themselves
    other = json.loads(json.dumps(SCHEMA))
    other["$defs"]["dtype"]["enum"].remove("float")
    path = tmp_path / "chain.json"
    path.write_text(json.dumps(TYPED["chain"]))
    with pytest.raises(ModelReadError) as typed:
        read_hlir(decode(path.read_bytes()), Limits(), other)
    with pytest.raises(ModelReadError) as plain:
        read_hlir(TYPED["chain"], Limits(), other)
    assert str(typed.value) == str(plain.value)
