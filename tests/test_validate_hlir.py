"""`opgen validate` on hlir graphs (the format of specs/schema/hlir-graph.schema.json).

Hand-built graphs exercise dtype propagation through type constraints, shape propagation through
same_shape rules, constant values, nested graphs (Map, While), graph checks, and the file format.
Expected verdicts follow from the op definitions of document 004 as the specs transcribe them.
"""
from __future__ import annotations

import copy
import json

import pytest
import yaml
from click.testing import CliRunner

from opgen.cli import main
from opgen.validate import ModelReadError, validate_model

from conftest import ROOT, project_specs

DATA = ROOT / "tests" / "data"


def doc(nodes, inputs=(), outputs=(), values=(), constants=()):
    return {"format": "opgen-hlir-graph", "version": 1, "inputs": list(inputs), "outputs": list(outputs),
            "values": list(values), "constants": list(constants), "nodes": list(nodes)}


def v(name, dtype=None, shape=None):
    out = {"name": name}
    if dtype is not None:
        out["dtype"] = dtype
    if shape is not None:
        out["shape"] = list(shape)
    return out


def n(op, inputs, outputs, name=None, **attributes):
    out = {"op": op, "inputs": list(inputs), "outputs": list(outputs)}
    if name:
        out["name"] = name
    if attributes:
        out["attributes"] = attributes
    return out


def messages(report):
    return [str(r) for r in report.problems]


# ---- dtype and shape propagation -----------------------------------------------------------------------

def test_a_fixed_output_type_propagates():
    # Compare's output type To allows only bool: Select takes it as pred, Add rejects it.
    base = [n("Compare", ["x", "y"], ["c"], comparison_direction="LT")]
    ok = validate_model(doc(base + [n("Select", ["c", "x", "y"], ["s"])], [v("x", "float", [2]), v("y", "float", [2])]))
    assert ok.valid, ok.to_text()
    bad = validate_model(doc(base + [n("Add", ["c", "c"], ["s"], name="sum")],
                             [v("x", "float", [2]), v("y", "float", [2])]))
    assert messages(bad) == [
        "node 'sum' (#1): hlir.Add@1: input 'lhs': dtype bool is not allowed; allowed (T): uint8, uint16, uint32, "
        "uint64, int8, int16, int32, int64, float16, float, double",
        "node 'sum' (#1): hlir.Add@1: input 'rhs': dtype bool is not allowed; allowed (T): uint8, uint16, uint32, "
        "uint64, int8, int16, int32, int64, float16, float, double"]


def test_a_type_variable_bound_by_an_input_propagates():
    # Abs: output T is the input's T, so t is float and Add(t, d) mixes float and double.
    graph = doc([n("Abs", ["x"], ["t"]), n("Add", ["t", "d"], ["s"], name="mix")],
                [v("x", "float", [3]), v("d", "double", [3])])
    assert messages(validate_model(graph)) == [
        "node 'mix' (#1): hlir.Add@1: input 'rhs': dtype double differs from float of input 'lhs'; type variable T "
        "must be one type"]


def test_a_fixed_output_of_a_multi_output_op_propagates():
    # Topk's indices are tensor(int64): adding them to a float tensor mixes types.
    graph = doc([n("Topk", ["x", "k"], ["vals", "idx"], axis=1), n("Add", ["vals", "idx"], ["s"], name="mix")],
                [v("x", "float", [2, 3])], constants=[{"name": "k", "dtype": "int64", "value": [2]}])
    assert messages(validate_model(graph)) == [
        "node 'mix' (#1): hlir.Add@1: input 'rhs': dtype int64 differs from float of input 'lhs'; type variable T "
        "must be one type"]


def test_declared_output_types_are_checked_not_overwritten():
    graph = doc([n("Abs", ["x"], ["t"], name="abs")], [v("x", "float", [3])], values=[v("t", "double", [3])])
    assert messages(validate_model(graph)) == [
        "node 'abs' (#0): hlir.Abs@1: output 'output': dtype double differs from float of input 'input'; type "
        "variable T must be one type"]


def test_same_shape_rules_propagate_shapes():
    # Convert ties output and input shapes (same_shape): c is [2, 3], so Dot(c, w) is checked.
    nodes = [n("Convert", ["x"], ["c"]), n("Dot", ["c", "w"], ["d"], name="dot")]
    values = [v("c", "float")]  # the dtype is declared (Convert's output type is free), the shape is not
    good = doc(nodes, [v("x", "int32", [2, 3]), v("w", "float", [3, 5])], values=values)
    assert validate_model(good).valid
    bad = doc(nodes, [v("x", "int32", [2, 3]), v("w", "float", [4, 5])], values=values)
    (problem,) = validate_model(bad).problems
    assert (problem.node, problem.op) == ("dot", "hlir.Dot@1") and problem.where.startswith("constraint C")
    assert problem.message.endswith("(contracting sizes differ: lhs [2, 3] dimension 1 vs rhs [4, 5] dimension 0)")


def test_stated_output_shapes_propagate():
    # Abs and Sub are element-wise: their output has the (broadcast) shape of their inputs, so t is
    # [2, 3] and Dot(t, w) with w [4, 5] is checked and refused at the Dot node.
    for first in (n("Abs", ["x"], ["t"]), n("Sub", ["x", "x"], ["t"])):
        shape_x = [2, 3]
        graph = doc([first, n("Dot", ["t", "w"], ["d"], name="dot")], [v("x", "float", shape_x),
                                                                        v("w", "float", [4, 5])])
        (problem,) = validate_model(graph).problems
        assert (problem.node, problem.op) == ("dot", "hlir.Dot@1"), problem


def test_shapes_are_not_invented():
    # NonZero's output shape depends on the values of its input: it stays unknown, Dot is not checked.
    graph = doc([n("NonZero", ["x"], ["t"]), n("Dot", ["t", "w"], ["d"])], [v("x", "float", [2, 3]),
                                                                             v("w", "int64", [4, 5])])
    assert validate_model(graph).valid, validate_model(graph).to_text()


def test_constant_values_reach_value_aware_rules():
    def topk(k):
        return doc([n("Topk", ["x", "k"], ["vals", "idx"], name="top", axis=1)], [v("x", "float", [2, 3])],
                   constants=[{"name": "k", "dtype": "int64", "value": k}])

    assert validate_model(topk([3])).valid
    (problem,) = validate_model(topk([5])).problems
    assert (problem.node, problem.op) == ("top", "hlir.Topk@1") and problem.where.startswith("constraint C")
    assert problem.message.endswith("(k must hold one value in [1, 3], found [5])")


# ---- nested graphs ---------------------------------------------------------------------------------------

def map_graph(inner_nodes):
    inner = {"inputs": [v("p", "float", []), v("q", "float", [])], "outputs": [v("r")], "nodes": inner_nodes}
    node = n("Map", ["x", "y"], ["m"], name="map0", dimensions=[0, 1])
    node["graphs"] = {"computation": inner}
    return doc([node], [v("x", "float", [2, 3]), v("y", "float", [2, 3]), v("d", "double", [])], [v("m")])


def test_nested_graphs_are_checked_with_their_path():
    assert validate_model(map_graph([n("Add", ["p", "q"], ["r"])])).valid
    report = validate_model(map_graph([n("Neg", ["p"], ["t"], name="neg"),
                                       n("Compare", ["t", "q"], ["r"], name="cmp", comparison_direction="UP")]))
    assert report.problems and all(r.graph == "node 'map0' (#0).computation" and (r.node, r.index) == ("cmp", 1)
                                   for r in report.problems)
    assert "node 'cmp' (#1) in node 'map0' (#0).computation: hlir.Compare@1: attribute 'comparison_direction': " \
           "value 'UP' is not allowed" in messages(report)[0]
    assert report.nodes == 3


def test_nested_graphs_see_outer_values_defined_before_the_node():
    outer_visible = map_graph([n("Add", ["p", "d"], ["r"])])  # d is an outer double scalar
    assert [r.message for r in validate_model(outer_visible).problems] == [
        "dtype double differs from float of input 'lhs'; type variable T must be one type"]
    later = map_graph([n("Add", ["p", "m"], ["r"], name="uses_m")])  # m is the Map's own output
    assert messages(validate_model(later)) == [
        "node 'uses_m' (#0) in node 'map0' (#0).computation: hlir.Add: input 'm': value 'm' is not defined by any "
        "input, initializer or node"]


def test_while_with_condition_and_body():
    condition = {"inputs": [v("i", "int32", [])], "outputs": [v("go")], "constants": [
        {"name": "limit", "dtype": "int32", "value": 10}],
        "nodes": [n("Compare", ["i", "limit"], ["go"], comparison_direction="LT")]}
    body = {"inputs": [v("j", "int32", [])], "outputs": [v("next")],
            "constants": [{"name": "one", "dtype": "int32", "value": 1}],
            "nodes": [n("Add", ["j", "one"], ["next"])]}
    loop = n("While", ["start"], ["end"], name="loop")
    loop["graphs"] = {"condition": condition, "body": body}
    graph = doc([loop], [v("start", "int32", [])], [v("end")])
    report = validate_model(graph)
    assert report.valid and report.nodes == 3, report.to_text()
    del loop["graphs"]["body"]
    assert messages(validate_model(graph)) == ["node 'loop' (#0): hlir.While@1: attribute 'body': is required but was "
                                               "not given"]


def test_nesting_deeper_than_the_limit_is_a_read_error():
    inner = {"nodes": []}
    for _ in range(20):
        node = n("Map", [], [], dimensions=[])
        node["graphs"] = {"computation": inner}
        inner = {"nodes": [node]}
    graph = doc(inner["nodes"])
    with pytest.raises(ModelReadError, match="nest"):
        validate_model(graph)


# ---- graph checks -----------------------------------------------------------------------------------------

def test_graph_checks():
    graph = doc([n("Abs", ["t"], ["u"], name="first"), n("Abs", ["x"], ["t"], name="second"),
                 n("Abs", ["x"], ["u"], name="third")], [v("x", "float", [2]), v("x", "float", [2])],
                [v("u"), v("missing")])
    found = messages(validate_model(graph))
    assert "graph: input 'x': is declared more than once" in found
    assert any("node 'first' (#0)" in m and "value 't' is used before it is defined (node 'second' (#1) produces "
               "it later" in m for m in found)
    assert any("node 'third' (#2)" in m and "value 'u' is produced twice" in m for m in found)
    assert "graph: output 'missing': graph output 'missing' is not defined by any input, initializer or node" in found


def test_cycles_are_reported():
    graph = doc([n("Add", ["x", "b"], ["a"], name="a"), n("Abs", ["a"], ["b"], name="b")], [v("x", "float", [2])])
    assert "graph: nodes: form a cycle: node 'a' (#0), node 'b' (#1)" in messages(validate_model(graph))


def test_unknown_ops_and_domains():
    graph = doc([n("Frobnicate", ["x"], ["y"])], [v("x", "float", [2])])
    report = validate_model(graph)
    assert report.problems[0].message.startswith(f"no spec for hlir.Frobnicate ({len(project_specs().domain('hlir').ops)} ops in hlir)")
    assert not validate_model(graph, allow_unknown_ops=True).valid  # a warning, but nothing was checked
    onnx_graph = dict(doc([n("PRelu", ["x", "s"], ["y"])], [v("x", "int8", [2]), v("s", "int8", [1])]),
                      domain="onnx", opset=16)
    assert [r.op for r in validate_model(onnx_graph).problems] == ["onnx.PRelu@16", "onnx.PRelu@16"]


def test_attribute_values_are_checked():
    graph = doc([n("Compare", ["x", "x"], ["c"], comparison_direction=5)], [v("x", "float", [2])])
    assert messages(validate_model(graph)) == [
        "node #0: hlir.Compare@1: attribute 'comparison_direction': expected a string (string), found int 5"]


# ---- the file format ---------------------------------------------------------------------------------------

def test_example_file_in_yaml_and_json(tmp_path):
    result = CliRunner().invoke(main, ["validate", str(DATA / "hlir_map_graph.yaml")])
    assert result.exit_code == 0, result.output
    as_json = tmp_path / "graph.json"
    as_json.write_text(json.dumps(yaml.safe_load((DATA / "hlir_map_graph.yaml").read_text())))
    result = CliRunner().invoke(main, ["validate", str(as_json), "--format", "json"])
    assert result.exit_code == 0 and json.loads(result.output)["nodes"] == 5


def test_example_file_with_a_problem(tmp_path):
    data = yaml.safe_load((DATA / "hlir_map_graph.yaml").read_text())
    data["inputs"][1]["dtype"] = "double"  # y: Compare(a: float, y: double)
    path = tmp_path / "graph.yaml"
    path.write_text(yaml.safe_dump(data))
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 1
    assert "node 'cmp0' (#1): hlir.Compare@1: input 'rhs': dtype double differs from float" in result.output


@pytest.mark.parametrize("change,fragment", [
    (lambda d: d.pop("version"), "'version' is a required property"),
    (lambda d: d["inputs"][0].update(dtype="float33"), "inputs[0].dtype"),
    (lambda d: d["nodes"][0].pop("op"), "'op' is a required property"),
    (lambda d: d["nodes"][0].update(inputs="x"), "nodes[0].inputs"),
    (lambda d: d["inputs"][0].update(shape=[2, -3]), "inputs[0].shape[1]"),
    (lambda d: d.update(extra=1), "'extra' was unexpected"),
    (lambda d: d["nodes"][3]["graphs"]["computation"].update(format="opgen-hlir-graph"), "'format' was unexpected"),
])
def test_schema_errors_are_read_errors(change, fragment):
    data = yaml.safe_load((DATA / "hlir_map_graph.yaml").read_text())
    change(data)
    with pytest.raises(ModelReadError) as info:
        validate_model(copy.deepcopy(data))
    assert fragment in str(info.value)


def test_yaml_aliases_and_bad_text_are_read_errors(tmp_path):
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("format: opgen-hlir-graph\nversion: 1\na: &a [x, x]\nb: &b [*a, *a]\nnodes: []\n")
    result = CliRunner().invoke(main, ["validate", str(bomb)])
    assert result.exit_code == 2 and "YAML aliases" in result.output
    broken = tmp_path / "broken.yaml"
    broken.write_text("format: opgen-hlir-graph\nnodes: [\n")
    result = CliRunner().invoke(main, ["validate", str(broken)])
    assert result.exit_code == 2 and "not valid YAML" in result.output and "Traceback" not in result.output
    unknown = tmp_path / "other.yaml"
    unknown.write_text("just: a mapping\n")
    result = CliRunner().invoke(main, ["validate", str(unknown)])
    assert result.exit_code == 2 and "unknown model kind" in result.output


def test_deep_json_is_a_read_error(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"format": "opgen-hlir-graph", "version": 1, "nodes": [], "x": ' + "[" * 100000 + "]" * 100000
                    + "}")
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_the_schema_is_published_next_to_the_op_schema():
    schema = json.loads((ROOT / "specs" / "schema" / "hlir-graph.schema.json").read_text())
    assert schema["$id"].endswith("/hlir-graph.schema.json")
    assert schema["properties"]["format"] == {"const": "opgen-hlir-graph"}
