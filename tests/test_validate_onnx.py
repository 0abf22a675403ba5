"""`opgen validate` on ONNX models.

The models are the onnx package's own node test cases for PRelu and Elu (`collect_testcases`) and
mutated copies of them. Expected verdicts come from the operator definitions (a disallowed dtype,
a wrong arity, an unknown attribute, an attribute of the wrong type, a slope that does not
broadcast) and from onnx.checker.check_model(full_check=True), whose every verdict on this set
opgen must match, except for the cases README lists as caught beyond it.
"""
from __future__ import annotations

import copy
import functools
import json
import re
import warnings

import numpy
import onnx
import pytest
from click.testing import CliRunner
from onnx import TensorProto, helper

from opgen.cli import main
from opgen.validate import Limits, ModelReadError, validate_model
from opgen.validate.onnx_reader import read_onnx
from opgen.validate.registry import make_registry

from conftest import ROOT

BASE = ["test_prelu_example", "test_prelu_broadcast", "test_elu_example", "test_elu", "test_elu_default"]
EXPANDED = ["test_prelu_example_expanded", "test_prelu_broadcast_expanded", "test_elu_example_expanded_ver18",
            "test_elu_expanded_ver18", "test_elu_default_expanded_ver18"]
# Function bodies in which onnx.shape_inference writes dim_value -1 (an unknown dimension).
AFFINE_GRID = ["test_affine_grid_3d_expanded", "test_affine_grid_3d_align_corners_expanded"]


@functools.lru_cache(maxsize=None)
def node_tests() -> dict[str, onnx.ModelProto]:
    from onnx.backend.test.case import node

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = node.collect_testcases()  # all of them: the collection is global state, filled once
    return {c.name: c.model for c in cases if c.name in BASE + EXPANDED + AFFINE_GRID}


def model_of(name: str) -> onnx.ModelProto:
    return copy.deepcopy(node_tests()[name])


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def make(nodes, inputs, outputs, opset, value_info=(), initializers=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers), value_info=list(value_info))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def checker_accepts(model: onnx.ModelProto) -> bool:
    try:
        onnx.checker.check_model(model, full_check=True)
        return True
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError):
        return False


# ---- mutations ----------------------------------------------------------------------------------------

def _elem(model, elem):
    for v in list(model.graph.input) + list(model.graph.output):
        v.type.tensor_type.elem_type = elem
    return model


def int8_everywhere(model):
    return _elem(model, TensorProto.INT8)


def extra_input(model):
    node = model.graph.node[0]
    node.input.append(node.input[-1])
    return model


def missing_input(model):
    del model.graph.node[0].input[-1]
    return model


def unknown_attribute(model):
    model.graph.node[0].attribute.append(helper.make_attribute("foo", 1))
    return model


def alpha_as_int(model):
    node = model.graph.node[0]
    if node.op_type != "Elu":
        return None
    kept = [a for a in node.attribute if a.name != "alpha"]
    del node.attribute[:]
    node.attribute.extend(kept + [helper.make_attribute("alpha", 2)])
    return model


def slope_not_broadcastable(model):
    node = model.graph.node[0]
    if node.op_type != "PRelu":
        return None
    x = next(v for v in model.graph.input if v.name == node.input[0])
    last = x.type.tensor_type.shape.dim[-1].dim_value
    slope = next(v for v in model.graph.input if v.name == node.input[1])
    del slope.type.tensor_type.shape.dim[:]
    slope.type.tensor_type.shape.dim.add().dim_value = last + 1
    return model


MUTATIONS = {
    "int8_everywhere": (int8_everywhere, "dtype int8 is not allowed"),
    "extra_input": (extra_input, "inputs: expected"),
    "missing_input": (missing_input, "inputs: expected"),
    "unknown_attribute": (unknown_attribute, "attribute 'foo': is not an attribute of this op"),
    "alpha_as_int": (alpha_as_int, "attribute 'alpha': expected a float attribute, found INT 2"),
    "slope_not_broadcastable": (slope_not_broadcastable, "does not broadcast to X shape"),
}
def mutated_cases():
    return [(base, name) for base in BASE for name, (fn, _) in MUTATIONS.items() if fn(model_of(base)) is not None]


# Hand-built uses that the onnx node tests do not cover (X [3, 4, 5]).
F = TensorProto.FLOAT
EXTRA = {
    "slope_rank_above_x": lambda: make([helper.make_node("PRelu", ["X", "s"], ["Y"])],
                                       [vi("X", F, [3, 4, 5]), vi("s", F, [1, 3, 4, 5])], [vi("Y", F, [3, 4, 5])], 16),
    "legacy_slope_not_channels": lambda: make([helper.make_node("PRelu", ["X", "s"], ["Y"])],
                                              [vi("X", F, [2, 3, 4]), vi("s", F, [5])], [vi("Y", F, [2, 3, 4])], 6),
    "output_dtype_differs": lambda: make([helper.make_node("PRelu", ["X", "s"], ["Y"])],
                                         [vi("X", F, [3]), vi("s", F, [1])], [vi("Y", TensorProto.DOUBLE, [3])], 16),
    "int32_before_opset_9": lambda: make([helper.make_node("PRelu", ["X", "s"], ["Y"])],
                                         [vi("X", TensorProto.INT32, [3]), vi("s", TensorProto.INT32, [1])],
                                         [vi("Y", TensorProto.INT32, [3])], 8),
    "legacy_slope_channels": lambda: make([helper.make_node("PRelu", ["X", "s"], ["Y"])],
                                          [vi("X", F, [2, 3, 4]), vi("s", F, [3])], [vi("Y", F, [2, 3, 4])], 6),
}


# ---- the onnx node tests ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", BASE)
def test_onnx_node_tests_validate_clean(name):
    report = validate_model(node_tests()[name])
    assert report.valid and report.records == [], report.to_text()
    assert report.nodes == 1


@pytest.mark.parametrize("name", EXPANDED)
def test_expanded_node_tests_are_checked_node_by_node(name):
    """The function bodies use Constant, CastLike, Less, Where, ...: every one has a spec now."""
    report = validate_model(node_tests()[name])
    assert report.valid and report.records == [], report.to_text()
    assert report.checked == report.nodes > 1


@pytest.mark.parametrize("base", BASE)
@pytest.mark.parametrize("mutation", list(MUTATIONS))
def test_mutated_copies_are_rejected_with_the_right_message(base, mutation):
    fn, fragment = MUTATIONS[mutation]
    model = fn(model_of(base))
    if model is None:
        assert (mutation, base.split("_")[1]) in {("alpha_as_int", "prelu"), ("slope_not_broadcastable", "elu")}
        return
    report = validate_model(model)
    assert not report.valid
    messages = [str(r) for r in report.problems]
    assert any(fragment in m for m in messages), messages
    op = model.graph.node[0].op_type
    assert all(f"onnx.{op}@" in r.op for r in report.problems), messages
    assert all(r.index == 0 and r.node == model.graph.node[0].name for r in report.problems)


def _beyond_listed_in_readme() -> set[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("### Cases opgen catches beyond onnx.checker", 1)[1].split("\n#", 1)[0]
    return {m.group(1) for m in re.finditer(r"^\|\s*`([a-z0-9_]+)`", section, re.M)}


def test_every_checker_verdict_is_matched_and_the_rest_is_documented():
    beyond: set[str] = set()
    compared = 0
    cases = [(base, name, MUTATIONS[name][0](model_of(base))) for base, name in mutated_cases()]
    cases += [(base, None, model_of(base)) for base in BASE]
    cases += [("hand-built", name, build()) for name, build in EXTRA.items()]
    for base, name, model in cases:
        theirs, ours = checker_accepts(model), validate_model(model).valid
        compared += 1
        if theirs and not ours:
            beyond.add(name)
        else:
            assert ours == theirs, (base, name, validate_model(model).to_text())
    for name in EXPANDED:  # ops without specs are warnings here; the checker knows them all
        assert validate_model(node_tests()[name], allow_unknown_ops=True).valid == checker_accepts(node_tests()[name])
    assert compared == len(BASE) * (len(MUTATIONS) - 1) + len(EXTRA) + len(BASE)  # alpha: Elu; slope: PRelu
    assert beyond == _beyond_listed_in_readme()
    assert beyond  # opgen checks more than the checker


# ---- ONNX specifics -----------------------------------------------------------------------------------

def test_opset_resolves_to_the_newest_version_not_above_it():
    model = make([helper.make_node("PRelu", ["X", "s"], ["Y"])], [vi("X", F, [2]), vi("s", F, [1])],
                 [vi("Y", F, [2])], 8)
    report = validate_model(_elem(model, TensorProto.INT64))
    assert [r.op for r in report.problems] == ["onnx.PRelu@7"] * 3  # int64 only from PRelu-9


def test_ai_onnx_domain_is_the_default_domain():
    node = helper.make_node("Elu", ["X"], ["Y"], domain="ai.onnx")
    graph = helper.make_graph([node], "g", [vi("X", F, [2])], [vi("Y", F, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("ai.onnx", 22)])
    report = validate_model(model)
    assert report.valid and report.context == "onnx opset 22"


def test_other_domains_have_no_spec():
    node = helper.make_node("Gelu", ["X"], ["Y"], domain="com.example")
    graph = helper.make_graph([node], "g", [vi("X", F, [2])], [vi("Y", F, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22), helper.make_opsetid("com.example", 1)])
    report = validate_model(model)
    assert [r.op for r in report.problems] == ["com.example.Gelu"]
    assert "no spec for com.example.Gelu" in report.problems[0].message
    relaxed = validate_model(model, allow_unknown_ops=True)  # a warning now, but nothing was checked:
    assert not relaxed.valid and relaxed.exit_code == 1 and relaxed.checked == 0  # not called valid
    assert relaxed.summary().endswith("0 of 1 node checked, 1 not (com.example.Gelu ×1 have no spec); nothing was "
                                      "checked, so the model is not called valid (onnx opset 22, com.example 1)")
    assert relaxed.to_dict()["unchecked"] == {"com.example.Gelu": 1} and relaxed.to_dict()["checked"] == 0


def test_summaries_say_what_was_checked_and_group_what_was_not():
    nodes = [helper.make_node("Relu", ["X"], ["A"])] + [
        helper.make_node(op, [f"A{k}" if k else "A"], [f"A{k + 1}"], domain="com.example")
        for k, op in enumerate(["Foo", "Foo", "Bar"])] + [helper.make_node("Elu", ["A3"], ["Y"])]
    graph = helper.make_graph(nodes, "g", [vi("X", F, [2])], [vi("Y", F, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22), helper.make_opsetid("com.example", 1)])
    report = validate_model(model, allow_unknown_ops=True)
    assert report.valid and report.checked == 2 and report.unchecked == {"com.example.Foo": 2, "com.example.Bar": 1}
    assert "2 of 5 nodes checked, 3 not (com.example.Foo ×2, com.example.Bar ×1 have no spec)" in report.summary()
    assert all(len(r.message) < 200 for r in report.records)  # no op list repeated on each line


def test_graph_checks_defined_before_use_single_producer_and_outputs():
    model = make([helper.make_node("Elu", ["T"], ["Y"], name="late_user"),
                  helper.make_node("Elu", ["X"], ["T"], name="producer"),
                  helper.make_node("Elu", ["X"], ["Y"], name="again")],
                 [vi("X", F, [2])], [vi("Y", F, [2]), vi("Z", F, [2])], 22)
    messages = [str(r) for r in validate_model(model).problems]
    assert any("node 'late_user' (#0)" in m and "value 'T' is used before it is defined" in m for m in messages)
    assert any("node 'again' (#2)" in m and "value 'Y' is produced twice" in m for m in messages)
    assert any("graph output 'Z' is not defined" in m for m in messages)
    assert not any("cycle" in m for m in messages)


def test_a_cycle_is_reported_not_followed():
    model = make([helper.make_node("PRelu", ["X", "B"], ["A"], name="a"),
                  helper.make_node("Elu", ["A"], ["B"], name="b")],
                 [vi("X", F, [2])], [vi("B", F, [2])], 16, value_info=[vi("A", F, [2])])
    report = validate_model(model)
    cycles = [r for r in report.problems if r.where == "nodes"]
    assert len(cycles) == 1 and "node 'a' (#0), node 'b' (#1)" in cycles[0].message


def test_missing_information_is_completed_by_shape_inference():
    # t has no value_info: its shape comes from onnx.shape_inference, and the slope is checked against it.
    model = make([helper.make_node("Elu", ["X"], ["t"]), helper.make_node("PRelu", ["t", "s"], ["Y"])],
                 [vi("X", F, [2, 3]), vi("s", F, [4])], [vi("Y", F, [2, 3])], 16)
    report = validate_model(model)
    assert [r.where for r in report.problems] == ["constraint C1"]
    assert "X shape [2, 3]" in report.problems[0].message


def test_shape_inference_does_not_run_when_everything_is_declared(monkeypatch):
    def fail(*args, **kwargs):
        raise AssertionError("shape inference ran")

    model = make([helper.make_node("Elu", ["X"], ["t"]), helper.make_node("PRelu", ["t", "s"], ["Y"])],
                 [vi("X", F, [2, 3]), vi("s", F, [3])], [vi("Y", F, [2, 3])], 16, value_info=[vi("t", F, [2, 3])])
    monkeypatch.setattr(onnx.shape_inference, "infer_shapes", fail)
    assert validate_model(model).valid


def test_dtypes_propagate_through_nodes_without_declared_types(monkeypatch):
    # t gets float from Elu's type variable T and its shape from Elu's spec: the specs complete every
    # output, so shape inference does not run (it is made to fail: no warning either).
    def fail(*args, **kwargs):
        raise RuntimeError("no inference today")

    monkeypatch.setattr(onnx.shape_inference, "infer_shapes", fail)
    model = make([helper.make_node("Elu", ["X"], ["t"]), helper.make_node("PRelu", ["t", "s"], ["Y"])],
                 [vi("X", F, [2]), vi("s", TensorProto.DOUBLE, [1])], [vi("Y", F, [2])], 16)
    report = validate_model(model)
    assert report.warnings == []
    assert any("input 'slope': dtype double differs from float of input 'X'" in str(r) for r in report.problems)


def test_a_failed_shape_inference_is_a_warning_and_declared_types_are_used(monkeypatch):
    # The custom op's output t is described by nothing (no spec, no value_info): inference is needed, fails.
    def fail(*args, **kwargs):
        raise RuntimeError("no inference today")

    monkeypatch.setattr(onnx.shape_inference, "infer_shapes", fail)
    model = make([helper.make_node("Mystery", ["X"], ["t"], domain="custom"), helper.make_node("Elu", ["t"], ["Y"])],
                 [vi("X", F, [2])], [vi("Y", F, [2])], 16)
    model.opset_import.append(helper.make_opsetid("custom", 1))
    report = validate_model(model, allow_unknown_ops=True)
    assert [r.where for r in report.warnings] == ["shape inference", "op"]
    assert "no inference today" in report.warnings[0].message and report.valid


def test_small_initializers_are_values_large_ones_are_not():
    import numpy as np

    small = onnx.numpy_helper.from_array(np.full((3,), 0.5, np.float32), "s")
    large = onnx.numpy_helper.from_array(np.zeros((5000,), np.float32), "w")
    model = make([helper.make_node("PRelu", ["X", "s"], ["Y"])], [vi("X", F, [3])], [vi("Y", F, [3])], 16,
                 initializers=[small, large])
    graph, _, _ = read_onnx(model, make_registry(), Limits())
    assert graph.values["s"].value.tolist() == [0.5, 0.5, 0.5]
    assert graph.values["w"].value is None and graph.values["w"].shape == (5000,)


def _if_model(branch_dtype):
    def branch(name):
        return helper.make_graph([helper.make_node("PRelu", ["X", "s"], [f"{name}_out"], name=f"{name}_prelu")],
                                 name, [], [vi(f"{name}_out", branch_dtype, [2])])
    node = helper.make_node("If", ["cond"], ["Y"], name="choose", then_branch=branch("then"), else_branch=branch("else"))
    return make([node], [vi("cond", TensorProto.BOOL, []), vi("X", branch_dtype, [2]), vi("s", branch_dtype, [1])],
                [vi("Y", branch_dtype, [2])], 16)


def test_subgraphs_are_walked_with_outer_values_visible():
    report = validate_model(_if_model(TensorProto.INT8))
    assert report.warnings == []  # If has a spec, and it allows int8 outputs
    inner = [r for r in report.problems]
    assert {r.graph for r in inner} == {"node 'choose' (#0).then_branch", "node 'choose' (#0).else_branch"}
    assert all(r.node.endswith("_prelu") and "dtype int8 is not allowed" in r.message for r in inner)
    assert report.nodes == 3
    assert validate_model(_if_model(F)).valid


def test_model_local_functions_are_warnings():
    function = helper.make_function("local", "Twice", ["a"], ["b"], [helper.make_node("Elu", ["a"], ["b"])],
                                    [helper.make_opsetid("", 22)])
    graph = helper.make_graph([helper.make_node("Twice", ["X"], ["T"], domain="local"),
                               helper.make_node("Elu", ["T"], ["Y"])], "g", [vi("X", F, [2])], [vi("Y", F, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22), helper.make_opsetid("local", 1)],
                              functions=[function])
    report = validate_model(model)
    assert report.valid and "model-local function local.Twice" in report.warnings[0].message


# ---- files and the CLI ----------------------------------------------------------------------------------

def run(*args):
    return CliRunner().invoke(main, ["validate", *args])


def test_cli_exit_codes_and_text(tmp_path):
    good, bad = tmp_path / "good.onnx", tmp_path / "bad.onnx"
    onnx.save(node_tests()["test_prelu_broadcast"], good)
    onnx.save(int8_everywhere(model_of("test_prelu_broadcast")), bad)
    result = run(str(good))
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"{good}: 0 problems in 0 of 1 node (onnx opset 16)"
    result = run(str(bad))
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert lines[-1] == f"{bad}: 3 problems in 1 of 1 node (onnx opset 16)"
    assert lines[0] == (f"{bad}: node #0: onnx.PRelu@16: input 'X': dtype int8 is not allowed; allowed (T): "
                        "bfloat16, double, float, float16, int32, int64, uint32, uint64")


def test_cli_json_records(tmp_path):
    bad = tmp_path / "bad.onnx"
    onnx.save(alpha_as_int(model_of("test_elu")), bad)
    result = run(str(bad), "--format", "json")
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert data["valid"] is False and data["nodes"] == 1 and data["problems"] == 1
    (record,) = data["records"]
    assert record == {"severity": "error", "node": model_of("test_elu").graph.node[0].name, "index": 0, "graph": "",
                      "op": "onnx.Elu@22", "where": "attribute 'alpha'",
                      "message": "expected a float attribute, found INT 2", "found": "INT", "expected": "float"}


def test_cli_unknown_ops_flag(tmp_path):
    path = tmp_path / "custom.onnx"
    nodes = [helper.make_node("Elu", ["X"], ["T"]), helper.make_node("Fancy", ["T"], ["Y"], domain="example.com")]
    model = helper.make_model(helper.make_graph(nodes, "g", [vi("X", F, [2])], [vi("Y", F, [2])]),
                              opset_imports=[helper.make_opsetid("", 22), helper.make_opsetid("example.com", 1)])
    onnx.save(model, path)
    assert run(str(path)).exit_code == 1
    result = run(str(path), "--allow-unknown-ops")
    assert result.exit_code == 0 and "warning: node" in result.output


@pytest.mark.parametrize("content,fragment", [
    (b"", "no graph"),
    (b"\xff\xff\xff\xff garbage", "not an ONNX model"),
    (None, "no such file"),
])
def test_cli_unreadable_files_exit_2(tmp_path, content, fragment):
    path = tmp_path / "model.onnx"
    if content is not None:
        path.write_bytes(content)
    result = run(str(path))
    assert result.exit_code == 2 and fragment in result.output and "Traceback" not in result.output


def test_truncated_file_exits_2(tmp_path):
    data = node_tests()["test_prelu_broadcast"].SerializeToString()
    path = tmp_path / "cut.onnx"
    path.write_bytes(data[: len(data) // 2])
    result = run(str(path))
    assert result.exit_code == 2 and "not an ONNX model" in result.output


def test_absurd_dimensions_and_deep_nesting_are_read_errors():
    huge = make([helper.make_node("Elu", ["X"], ["Y"])], [vi("X", F, [2**62])], [vi("Y", F, [2])], 22)
    with pytest.raises(ModelReadError, match="dimension 4611686018427387904 is outside"):
        validate_model(huge)
    leaf = helper.make_graph([helper.make_node("Elu", ["X"], ["Y"])], "leaf", [], [vi("Y", F, [2])])
    graph = leaf
    for depth in range(20):  # nested along then_branch only: 20 levels, not 2**20 graphs
        graph = helper.make_graph([helper.make_node("If", ["c"], ["Y"], then_branch=graph, else_branch=leaf)],
                                  f"level{depth}", [], [vi("Y", F, [2])])
    nested = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])
    with pytest.raises(ModelReadError, match="nested more than 16 deep"):
        validate_model(nested, allow_unknown_ops=True)


def _negative_dims(graph: onnx.GraphProto) -> list[int]:
    """Negative dim_values in a graph and in the graphs nested in it."""
    found = [d.dim_value for v in [*graph.input, *graph.value_info, *graph.output]
             for d in v.type.tensor_type.shape.dim if d.HasField("dim_value") and d.dim_value < 0]
    for n in graph.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                found += _negative_dims(a.g)
    return found


@pytest.mark.parametrize("name", AFFINE_GRID)
def test_unknown_dimensions_written_by_shape_inference_are_read(name):
    model = node_tests()[name]
    assert _negative_dims(model.graph) == []  # as given: the -1 comes from inference, which the reader runs
    inferred = onnx.shape_inference.infer_shapes(model, check_type=False, strict_mode=False, data_prop=False)
    assert set(_negative_dims(inferred.graph)) == {-1}
    assert checker_accepts(model) and checker_accepts(inferred)
    report = validate_model(model)
    assert report.nodes > 100 and report.checked == report.nodes, report.to_text()  # every node checked
    # Nothing about shapes or dimensions: the one problem is the Split in the If branch that the 3-D
    # grid does not take (tests/test_onnx_node_tests.py, OPGEN_ONLY; README, cases beyond the checker).
    assert [(r.op, r.where) for r in report.records] == [("onnx.Split@18", "constraint C4")], report.to_text()
    assert "else_branch" in report.records[0].graph or "then_branch" in report.records[0].graph
    assert "3d" in name


def test_declared_unknown_dimensions_are_unknown_and_impossible_ones_are_located():
    prelu = [helper.make_node("PRelu", ["X", "s"], ["Y"])]
    model = make(prelu, [vi("X", F, [-1, 3]), vi("s", F, [3])], [vi("Y", F, [-1, 3])], 16)
    assert checker_accepts(model)
    report = validate_model(model)
    assert report.valid and report.records == [], report.to_text()
    model = make(prelu, [vi("X", F, [2, 3]), vi("s", F, [4])], [vi("Y", F, [-1, 3])], 16)
    assert [r.where for r in validate_model(model).problems] == ["constraint C1"]  # known shapes still checked
    bad = make(prelu, [vi("X", F, [2, -2]), vi("s", F, [3])], [vi("Y", F, [2, 3])], 16)
    with pytest.raises(ModelReadError) as info:
        validate_model(bad)
    assert str(info.value) == "input 'X': dimension -2 is outside [0, 281474976710656] (axis 1)"
    branch = helper.make_graph([helper.make_node("Elu", ["X"], ["b"], name="inner")], "then", [],
                               [vi("b", F, [2])], value_info=[vi("v", F, [3, -2])])
    clean = helper.make_graph([helper.make_node("Elu", ["X"], ["b"], name="inner")], "else", [], [vi("b", F, [2])])
    nested = make([helper.make_node("If", ["c"], ["Y"], name="if", then_branch=branch, else_branch=clean)],
                  [vi("X", F, [2]), vi("c", TensorProto.BOOL, [])], [vi("Y", F, [2])], 16)
    result = run_model(nested)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.output.strip().endswith(": value 'v' in node 'if' (#0).then_branch: dimension -2 is outside "
                                          "[0, 281474976710656] (axis 1)")


def run_model(model: onnx.ModelProto, *args: str):
    """The CLI on a model written to a temporary file."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = f"{folder}/model.onnx"
        onnx.save(model, path)
        return run(path, *args)


def test_attribute_problems_are_reported_for_every_node_that_has_them():
    # Nodes with the same attribute bytes share one conversion: its problems must not be the first node's only.
    twice = [helper.make_attribute("alpha", 0.5), helper.make_attribute("alpha", 0.5)]
    nodes = [helper.make_node("Elu", ["X"], ["A"], name="a"), helper.make_node("Elu", ["A"], ["Y"], name="b")]
    for node in nodes:
        node.attribute.extend(twice)
    model = make(nodes, [vi("X", F, [2])], [vi("Y", F, [2])], 22, value_info=[vi("A", F, [2])])
    assert not checker_accepts(model)
    assert [(r.node, r.where, r.message) for r in validate_model(model).problems] == [
        ("a", "attribute 'alpha'", "is given more than once"), ("b", "attribute 'alpha'", "is given more than once")]


def test_enormous_attribute_lists_are_read_errors():
    model = make([helper.make_node("Elu", ["X"], ["Y"], consumed_inputs=list(range(50)))], [vi("X", F, [2])],
                 [vi("Y", F, [2])], 1)
    assert validate_model(model).valid
    with pytest.raises(ModelReadError, match="50 elements exceed the limit of 10"):
        validate_model(model, limits=Limits(max_attribute_elements=10))
    with pytest.raises(ModelReadError, match="more than 0 nodes"):
        validate_model(model, limits=Limits(max_nodes=0))


def test_validate_model_is_exported_lazily():
    import opgen

    assert opgen.validate_model is validate_model


@pytest.mark.parametrize("attrs,out,valid", [({"value_float": 1.0}, (F, []), True),
                                             ({"value_ints": [1, 2]}, (TensorProto.INT64, [2]), True),
                                             ({"value_float": 1.0, "value_int": 2}, (F, []), False), ({}, (F, []), False)])
def test_constant_takes_exactly_one_value_attribute(attrs, out, valid):
    node = helper.make_node("Constant", [], ["Y"], **attrs)
    model = helper.make_model(helper.make_graph([node], "g", [], [helper.make_tensor_value_info("Y", *out)]),
                              opset_imports=[helper.make_opsetid("", 21)])
    report = validate_model(model)
    assert report.valid == valid, report.to_text()
    if not valid:
        assert [(r.op, r.where) for r in report.problems] == [("onnx.Constant@21", "constraint C1")]
    assert checker_accepts(model) == valid  # onnx's shape inference says the same


@pytest.mark.parametrize("axis,declared,valid", [(1, [2, 12], True), (-1, [6, 4], True), (0, [1, 24], True),
                                                 (1, [6, 4], False), (-1, [2, 12], False)])
def test_flatten_states_its_output_shape(axis, declared, valid):
    model = make([helper.make_node("Flatten", ["X"], ["Y"], axis=axis)], [vi("X", F, [2, 3, 4])],
                 [vi("Y", F, declared)], 21)
    report = validate_model(model)
    assert report.valid == valid, report.to_text()
    if not valid:
        assert [r.where for r in report.problems] == ["output 'output'"]  # Flatten's output is named output
    assert checker_accepts(model) == valid  # onnx's strict shape inference agrees


@pytest.mark.parametrize("repeats,declared,valid,where", [
    ([2, 1, 3], [4, 3, 12], True, None),
    ([2, 1, 3], [4, 3, 4], False, "output 'output'"),  # the output shape follows the constant repeats
    ([2, 3], [4, 9, 4], False, "constraint C1"),  # one repeat per input dimension
])
def test_tile_reads_constant_repeats(repeats, declared, valid, where):
    r = onnx.numpy_helper.from_array(numpy.array(repeats, numpy.int64), "r")
    graph = helper.make_graph([helper.make_node("Tile", ["X", "r"], ["Y"])], "g", [vi("X", F, [2, 3, 4])],
                              [vi("Y", F, declared)], initializer=[r])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    report = validate_model(model)
    assert report.valid == valid, report.to_text()
    if not valid:
        assert [r.where for r in report.problems] == [where]
    assert checker_accepts(model) == valid


def test_a_negative_size_that_shape_inference_computes_is_unknown_and_the_node_reports_the_fault():
    """DFT with dft_length -2: onnx.shape_inference writes a dimension of -2 into the output's type.
    That is inference's arithmetic on a bad input, not a corrupt file: the model is read and DFT's own
    constraint reports the fault (what the file itself declares negative stays unreadable, above)."""
    from onnx_cases import arr, build

    model, _ = build("DFT", 20, {"input": (1, 8, 1), "dft_length": None}, {}, {"out": None},
                     inits={"dft_length": arr(-2)})
    inferred = onnx.shape_inference.infer_shapes(model)
    assert [d.dim_value for d in inferred.graph.output[0].type.tensor_type.shape.dim][1] < -1
    report = validate_model(model)
    assert [(r.op, r.where) for r in report.records] == [("onnx.DFT@20", "constraint C3")], report.to_text()


def test_shapes_that_onnx_inference_fills_in_are_not_checked_as_the_files_declarations():
    """STFT-17 with onesided left at its default (1): onnx 1.23.2's shape inference gives the output
    n_fft bins, onnxruntime and onnx.reference give n_fft / 2 + 1 (the spec follows them). The file
    declares no output shape, so inference's guess is not held against the model: no problem, and
    the spec's shape is what flows on (a declared wrong shape is still reported)."""
    import numpy as np
    from onnx_cases import arr, build, onnx_shapes, run_shapes

    inits = {"frame_step": arr(8), "window": np.ones(16, np.float32)}
    model, feeds = build("STFT", 17, {"signal": (1, 64, 1), "frame_step": None, "window": None}, {}, {"out": None},
                         inits=inits)
    guessed, actual = onnx_shapes(model)["out"], run_shapes(model, feeds)["out"]
    assert guessed != actual == [1, 7, 9, 2]  # the disagreement this test is about
    assert validate_model(model).records == []
    wrong, _ = build("STFT", 17, {"signal": (1, 64, 1), "frame_step": None, "window": None}, {},
                     {"out": guessed}, inits=inits)
    assert [r.where for r in validate_model(wrong).problems] == ["output 'output'"]
