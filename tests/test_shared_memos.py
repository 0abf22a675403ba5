"""What one check or run leaves for the next: the checker's node verdicts (opgen.validate.verdicts) and
the runner's node steps (opgen.runtime.run_plan.shared_step) are shared across models within a process.
A model read again is checked and planned by lookups; a model that differs in anything a verdict or a
step depends on (an attribute, a declared shape, an output's name in an error) gets its own answer.
Expected values come from onnx.reference."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import opgen
import opgen.validate.verdicts as verdicts
from opgen.graph import Graph, Node, small_key
from opgen.run import forget_models
from opgen.runtime import run_plan
from opgen.runtime.graph_runner import GraphFunction
from opgen.runtime.graph_runner import GraphError
from opgen.validate.api import read_model, validate_model
from opgen.validate.checker import Checker
from opgen.validate.registry import make_registry


def leaky_model(alpha: float, out_shape: list[int] | None = (2, 3), out_name: str = "y") -> onnx.ModelProto:
    nodes = [helper.make_node("LeakyRelu", ["x"], ["h"], alpha=alpha),
             helper.make_node("Transpose", ["h"], [out_name], perm=[1, 0])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 2])],
                              [helper.make_tensor_value_info(out_name, TensorProto.FLOAT, out_shape)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.fixture
def node_checks(monkeypatch):
    """How many nodes the checker works out (not answered from the memo)."""
    calls = []
    real = Checker._check_node

    def counting(self, node, infos, outs):
        calls.append(node.op)
        return real(self, node, infos, outs)

    monkeypatch.setattr(Checker, "_check_node", counting)
    return calls


def test_a_model_checked_again_is_answered_from_the_shared_verdicts(node_checks):
    m = leaky_model(0.25)
    first = validate_model(m)
    node_checks.clear()
    again = validate_model(m.SerializeToString())  # read anew: new graph, new nodes, new checker
    assert node_checks == [] and again.problems == first.problems == []
    forget_models()  # what earlier models left is dropped: every node is worked out again
    validate_model(m)
    assert sorted(node_checks) == ["LeakyRelu", "Transpose"]


def test_models_differing_in_a_declared_shape_get_their_own_verdicts():
    assert validate_model(leaky_model(0.25)).problems == []
    wrong = leaky_model(0.25, out_shape=[3, 2])
    with pytest.raises(onnx.shape_inference.InferenceError):  # onnx agrees: the declared shape is wrong
        onnx.shape_inference.infer_shapes(wrong, strict_mode=True)
    found = validate_model(wrong).problems
    assert [(p.op, p.where, p.node) for p in found] == [("onnx.Transpose@13", "output 'transposed'", "")]


def test_models_differing_in_an_attribute_run_with_their_own_keywords():
    x = np.array([[-1.0, 2.0], [-3.0, 4.0], [5.0, -6.0]], np.float32)
    for alpha in (0.25, 0.5, 0.25):
        m = leaky_model(alpha)
        got = opgen.run_model(m, {"x": x})["y"]
        np.testing.assert_array_equal(got, ReferenceEvaluator(m).run(None, {"x": x})[0])


def test_a_shared_step_belongs_to_its_own_node(monkeypatch):
    """Two models whose nodes share a step: each run's step holds its own node, so a failing result is
    named by that node's output (a kernel made to return the wrong shape)."""
    opgen.run_model(leaky_model(0.75, out_name="first"), {"x": np.zeros((3, 2), np.float32)})
    m = leaky_model(0.75, out_name="second")
    graph = read_model(m)[0]
    function = GraphFunction(graph, __import__("opgen_ops"))
    steps = [function._plan(node) for node in graph.nodes]
    assert [s.node for s in steps] == graph.nodes
    real = steps[1].kernel
    function._plans[id(graph.nodes[1])] = steps[1]._replace(kernel=lambda *a, **k: (real(*a, **k)[0].T,))
    with pytest.raises(GraphError, match="output 'second' has shape"):
        function.run({"x": np.zeros((3, 2), np.float32)})


def test_nodes_without_a_reader_key_are_not_shared():
    """A node built by hand (no attr_key from a reader) is planned and checked afresh, whatever its
    attributes: two such graphs with different alphas give different results."""
    x = np.array([-2.0, 2.0], np.float32)

    def graph(alpha: float) -> Graph:
        node = Node(0, "", "onnx", "LeakyRelu", 17, ("x",), ("y",))
        node.attributes = {"alpha": alpha}
        node.attr_kinds = {"alpha": ("float", "FLOAT")}
        from opgen.runtime.validation import TensorInfo
        values = {"x": TensorInfo("float", (2,)), "y": TensorInfo("float", (2,))}
        return Graph("g", ["x"], [], ["y"], values, [node])

    results = [GraphFunction(graph(a), __import__("opgen_ops")).run({"x": x})["y"] for a in (0.5, 0.125)]
    np.testing.assert_array_equal(results[0], [-1.0, 2.0])
    np.testing.assert_array_equal(results[1], [-0.25, 2.0])
    for a in (0.5, 0.125):
        assert Checker(make_registry(None)).check(graph(a)) == []


def test_the_memo_is_bounded_and_a_check_keeps_the_memo_it_started_with(monkeypatch):
    registry = make_registry(None)
    validate_model(leaky_model(0.25))
    before = registry.verdict_memo
    monkeypatch.setattr(verdicts, "MAX_VERDICTS", 0)
    checker = Checker(registry)  # the memo is full: this check starts a fresh one
    assert registry.verdict_memo is not before and checker._cache is registry.verdict_memo.verdicts


def test_large_attributes_are_not_kept_by_the_memo():
    big = np.arange(20_000, dtype=np.float32)  # 80 000 bytes of attribute
    node = helper.make_node("Constant", [], ["y"], value=numpy_helper.from_array(big))
    graph = helper.make_graph([node], "g", [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [20_000])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    assert validate_model(m).problems == []
    memo = make_registry(None).verdict_memo
    held = [k for k in memo.verdicts if isinstance(k, tuple) and k[1] == "Constant"]
    assert all(small_key(k[3]) for k in held)
    np.testing.assert_array_equal(opgen.run_model(m)["y"], big)
    assert all(small_key(k[1]) for k in run_plan._SHARED_STEPS)


def test_attributes_read_before_still_count_against_each_files_budget():
    """Attribute readings are shared across models (per Limits): a file whose lists exceed its budget is
    refused however often its attributes were read before."""
    from opgen.validate.limits import Limits, ModelReadError

    nodes = [helper.make_node("Transpose", ["x" if k == 0 else f"t{k - 1}"], [f"t{k}"], name=f"tr{k}", perm=[1, 0])
             for k in range(6)]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("t5", TensorProto.FLOAT, [2, 3])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    roomy, tight = Limits(max_total_attribute_elements=12), Limits(max_total_attribute_elements=11)
    for _ in range(2):
        assert validate_model(m, limits=roomy).valid
    for _ in range(2):
        with pytest.raises(ModelReadError, match=r"node 'tr5' \(#5\) attribute 'perm'"):
            validate_model(m, limits=tight)


def test_the_values_the_memo_holds_are_bounded(monkeypatch):
    """Verdicts that depend on values hold those values (and folded outputs): past MAX_VALUE_BYTES the
    next check starts a fresh memo."""
    registry = make_registry(None)
    forget_models()
    m = helper.make_model(helper.make_graph(
        [helper.make_node("Constant", [], ["s"], value_ints=[3, 2]), helper.make_node("Reshape", ["x", "s"], ["y"])],
        "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 2])]), opset_imports=[helper.make_opsetid("", 17)])
    assert validate_model(m).problems == []
    memo = registry.verdict_memo
    assert memo.value_bytes >= 16  # the Reshape target's bytes (and the Constant's value) are held
    monkeypatch.setattr(verdicts, "MAX_VALUE_BYTES", memo.value_bytes - 1)
    assert validate_model(m).problems == [] and registry.verdict_memo is not memo


def test_the_shared_readings_are_bounded_by_the_bytes_they_hold(monkeypatch):
    from opgen.validate import onnx_model

    forget_models()
    m = leaky_model(0.375)
    validate_model(m)
    tables = [t for t in onnx_model.SHARED_READINGS.values() if t[1]]
    assert len(tables) == 1 and tables[0][2][0] >= len(m.graph.node[0].attribute[0].SerializeToString())
    monkeypatch.setattr(onnx_model, "MAX_SHARED_BYTES", tables[0][2][0] - 1)
    validate_model(m)  # the table was past its bound: this reading started a fresh one
    assert all(t is not tables[0] for t in onnx_model.SHARED_READINGS.values())
