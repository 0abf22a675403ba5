"""What `opgen validate`'s speed-ups must not change (generator/validate/onnx_nodes.py, onnx_reader.py,
hlir_reader.py, onednn_reader.py):

- a verdict answered from a cache (attributes by their bytes, a use by its infos) is the verdict a fresh
  validation of that node alone gives, for nodes that differ only in what the keys leave out (names);
- list attributes read from the cache still count against the file's attribute budget;
- the data of large initializers dropped before shape inference changes no verdict, and a ModelProto
  the caller gives is never changed;
- hlir items the schema's fast path skips are still bounded in depth; oneDNN dimensions are checked by
  type on the fast path too.
"""
from __future__ import annotations

import json

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from opgen.validate import Limits, ModelReadError, validate_model

F = TensorProto.FLOAT


def _model(nodes, value_info=(), initializers=(), inputs=(("x", [2, 3]),), outputs=None, opset=16):
    outputs = outputs or [(nodes[-1].output[0], [2, 3])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, F, s) for n, s in inputs],
                              [helper.make_tensor_value_info(n, F, s) for n, s in outputs],
                              initializer=list(initializers), value_info=list(value_info))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _shown(records):
    """A record without where it is (node name and index): what a fresh validation must repeat."""
    return [(r.severity, r.op, r.where, r.message.replace(r.node or "\0", "<node>")) for r in records]


def _elu_int_alpha(name, src, dst):
    node = helper.make_node("Elu", [src], [dst], name=name)
    node.attribute.append(helper.make_attribute("alpha", 2))  # INT where the spec says float
    return node


def test_repeated_uses_report_what_a_fresh_validation_of_each_reports():
    """The same attributes on nodes of different shapes (the attribute cache answers, the checker's
    cache of whole uses does not), and on nodes of one shape (both answer)."""
    shapes = [[1, 3], [2, 3], [2, 3], [4, 5]]
    names = [f"elu{k}" for k in range(len(shapes))]
    nodes = [_elu_int_alpha(n, f"x{k}", f"y{k}") for k, n in enumerate(names)]
    nodes.append(helper.make_node("Elu", ["x0"], ["fine"], name="fine", alpha=0.5))
    model = _model(nodes, inputs=[(f"x{k}", s) for k, s in enumerate(shapes)],
                   outputs=[(f"y{k}", s) for k, s in enumerate(shapes)] + [("fine", [1, 3])])
    report = validate_model(model)
    by_node: dict[str, list] = {}
    for r in report.problems:
        by_node.setdefault(r.node, []).append(r)
    assert sorted(by_node) == names  # every repeated use reports its fault, the clean node nothing
    for k, (name, shape) in enumerate(zip(names, shapes)):  # each one alone, in a model of its own
        alone = validate_model(_model([_elu_int_alpha(f"only_{name}", "x", "y")], inputs=[("x", shape)],
                                      outputs=[("y", shape)]))
        assert _shown(by_node[name]) == _shown(alone.problems)
        assert [r.index for r in by_node[name]] == [k] * len(by_node[name])


def test_nodes_differing_only_in_names_get_the_same_verdicts():
    """Two models: one use repeated under different node and value names; and one use per model."""
    def gather(name, src, dst):  # axis 5 on a rank-2 input: a fault the validator reports
        return helper.make_node("Gather", [src, "idx"], [dst], name=name, axis=5)
    idx = numpy_helper.from_array(np.array([0, 1], np.int64), "idx")
    nodes = [gather(f"g{k}", "x", f"out{k}") for k in range(4)]
    outputs = [(f"out{k}", [2, 2]) for k in range(4)]
    many = validate_model(_model(nodes, initializers=[idx], outputs=outputs))
    one = validate_model(_model([gather("solo", "x", "y")], initializers=[idx], outputs=[("y", [2, 2])]))
    assert one.problems, "the fault must be reported at all"
    per_node = [[r for r in many.problems if r.node == f"g{k}"] for k in range(4)]
    assert all(_shown(found) == _shown(one.problems) for found in per_node)


def test_cached_list_attributes_still_count_against_the_files_budget():
    nodes = [helper.make_node("Transpose", ["x" if k == 0 else f"t{k - 1}"], [f"t{k}"], name=f"tr{k}", perm=[1, 0])
             for k in range(6)]
    model = _model(nodes, [helper.make_tensor_value_info(f"t{k}", F, [3, 2] if k % 2 == 0 else [2, 3])
                           for k in range(6)], outputs=[("t5", [2, 3])])
    assert validate_model(model).valid
    assert validate_model(model, limits=Limits(max_total_attribute_elements=12)).valid  # 6 lists of 2
    with pytest.raises(ModelReadError, match=r"node 'tr5' \(#5\) attribute 'perm'.*more than 11 elements in all"):
        validate_model(model, limits=Limits(max_total_attribute_elements=11))


def _big_weight_model(declared: bool) -> onnx.ModelProto:
    """MatMul by a weight larger than validation keeps (dropped before inference when read from a file),
    then a Reshape whose shape is a small initializer (which inference must still read), then an Add
    whose operands disagree with what the Reshape gives: the fault only inference can reveal."""
    weight = numpy_helper.from_array(np.ones((64, 128), np.float32), "w")  # 8192 elements > 4096
    shape = numpy_helper.from_array(np.array([4, 2, -1], np.int64), "shape")
    bias = numpy_helper.from_array(np.ones((5,), np.float32), "bias")
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Reshape", ["m", "shape"], ["r"]),
             helper.make_node("Add", ["r", "bias"], ["y"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F, [1, 64])],
                              [helper.make_tensor_value_info("y", F, None)], initializer=[weight, shape, bias])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    return onnx.shape_inference.infer_shapes(model) if declared else model


def test_dropping_large_initializer_data_before_inference_changes_no_verdict(tmp_path):
    model = _big_weight_model(declared=False)
    before = model.SerializeToString()
    path = tmp_path / "big.onnx"
    path.write_bytes(before)
    from_file = validate_model(path)
    in_memory = validate_model(model)
    assert model.SerializeToString() == before  # the caller's ModelProto is left as it was
    # the reference: the model as onnx.shape_inference completes it (every value declared, no inference)
    reference = validate_model(_big_weight_model(declared=True))
    assert not reference.valid and [r.op for r in reference.problems] == ["onnx.Add@14"]
    assert _shown(from_file.problems) == _shown(in_memory.problems) == _shown(reference.problems)
    assert from_file.nodes == in_memory.nodes == 3


def test_hlir_items_the_fast_path_skips_are_still_depth_checked():
    def doc(attribute):
        return {"format": "opgen-hlir-graph", "version": 1, "inputs": [{"name": "x", "dtype": "float", "shape": [2]}],
                "values": [], "outputs": [{"name": "y", "dtype": "float", "shape": [2]}],
                "nodes": [{"name": "n", "op": "Abs", "inputs": ["x"], "outputs": ["y"],
                           "attributes": {"a": attribute}}]}
    deep: list = []
    for _ in range(200):
        deep = [deep]
    with pytest.raises(ModelReadError, match="nests more than 120 levels"):
        validate_model(doc(deep))
    # a flat list attribute: plain, so the structure check leaves it out; with a depth limit below what
    # plain items may reach, the whole document is checked and the depth is refused
    with pytest.raises(ModelReadError, match="nests more than 4 levels"):
        validate_model(doc([1, 2]), limits=Limits(max_json_depth=4))
    assert not validate_model(doc([1, 2])).valid  # Abs has no attribute 'a': reported, not refused


@pytest.mark.parametrize("bad", [[2.0, 8], [True, 8]])
def test_onednn_dimensions_are_checked_by_type_after_a_known_description(bad):
    def lt(tid, shape):
        return {"id": tid, "dtype": "f32", "shape": shape, "stride": [8, 1], "layout_type": "strided",
                "property_type": "undef"}
    ops = [{"id": k, "name": f"relu{k}", "kind": "ReLU", "attrs": {}, "inputs": [lt(k, [2, 8])],
            "outputs": [lt(k + 1, bad if k == 1 else [2, 8])]} for k in range(2)]
    with pytest.raises(ModelReadError, match=r"graph\[1\]\.outputs\[0\]\.shape: expected a list of integers"):
        validate_model(json.loads(json.dumps({"version": "3.5.0", "graph": ops})))


def _reshape_model(shape_sources):
    """Reshape nodes of x [2, 3], node k's target shape from shape_sources[k]: a list (an int64
    initializer, its value known) or None (a graph input of the same type and shape, value unknown)."""
    nodes, inits, extra_inputs, outputs = [], [], [], []
    for k, target in enumerate(shape_sources):
        if target is None:
            extra_inputs.append(helper.make_tensor_value_info(f"s{k}", TensorProto.INT64, [2]))
        else:
            inits.append(numpy_helper.from_array(np.array(target, np.int64), f"s{k}"))
        nodes.append(helper.make_node("Reshape", ["x", f"s{k}"], [f"y{k}"], name=f"reshape{k}"))
        outputs.append(helper.make_tensor_value_info(f"y{k}", F, None))
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F, [2, 3]), *extra_inputs], outputs,
                              initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])


@pytest.mark.parametrize("sources", [[[3, 2], [4, 2], [3, 2], [6, 1]], [None, [4, 2], None, [5, 1], [1, 6]]])
def test_a_verdict_that_read_a_constant_is_not_reused_for_other_values(sources):
    """The checker's cache key holds each value's dtype and shape and whether its value is known; values
    themselves only when a check read them (Reshape's shape): nodes differing in the values of their
    constants, or in whether one is known, get the verdict of a fresh validation of each alone (and the
    element counts onnx.reference cannot reshape to are the ones reported)."""
    from onnx.reference import ReferenceEvaluator

    report = validate_model(_reshape_model(sources))
    for k, target in enumerate(sources):
        mine = [r for r in report.problems if r.node == f"reshape{k}"]
        alone = validate_model(_reshape_model([target])).problems
        assert _shown(mine) == _shown(alone), (k, target)
        if target is not None:  # onnx.reference refuses to run the same targets
            try:
                ReferenceEvaluator(_reshape_model([target])).run(None, {"x": np.zeros((2, 3), np.float32)})
                rejected = False
            except Exception:  # noqa: BLE001  (NumPy's reshape error)
                rejected = True
            assert rejected == bool(alone), (target, alone)


def test_nodes_differing_only_in_their_weights_share_one_verdict_and_it_is_the_fresh_one():
    """Conv nodes with weights of equal shape but different values: the checks read no weight, so one
    verdict answers all (the validator runs once); a bad stride is reported on each node all the same."""
    from opgen.validate import checker as checker_module

    rng = np.random.default_rng(0)
    nodes, inits = [], []
    for k in range(4):
        inits.append(numpy_helper.from_array(rng.standard_normal((2, 3, 1, 1)).astype(np.float32), f"w{k}"))
        strides = [1, 1] if k < 2 else [0, 1]  # a zero stride is refused (the last two nodes)
        nodes.append(helper.make_node("Conv", ["x", f"w{k}"], [f"y{k}"], name=f"conv{k}", strides=strides))
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F, [1, 3, 4, 4])],
                              [helper.make_tensor_value_info(f"y{k}", F, [1, 2, 4, 4]) for k in range(4)],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])
    from opgen.run import forget_models

    forget_models()  # the verdicts an earlier test left would answer some of these nodes
    calls = []
    original = checker_module.Checker._check_node

    def counting(self, node, infos, outs):
        calls.append(node.name)
        return original(self, node, infos, outs)

    checker_module.Checker._check_node = counting
    try:
        report = validate_model(model)
    finally:
        checker_module.Checker._check_node = original
    assert calls == ["conv0", "conv2"]  # one check per distinct use, whatever the weights hold
    reported = sorted({r.node for r in report.problems})
    assert reported == ["conv2", "conv3"]
    alone = validate_model(helper.make_model(helper.make_graph(
        [nodes[3]], "g", [helper.make_tensor_value_info("x", F, [1, 3, 4, 4])],
        [helper.make_tensor_value_info("y3", F, [1, 2, 4, 4])], initializer=[inits[3]]),
        opset_imports=[helper.make_opsetid("", 16)]))
    assert _shown([r for r in report.problems if r.node == "conv3"]) == _shown(alone.problems)


def test_a_model_checked_as_declared_reports_what_the_inferred_model_reports(monkeypatch):
    """A CNN without value_info (as exporters write them): the specs complete every node output, so
    `opgen validate` checks it without onnx.shape_inference; its report is the one of the model completed
    by inference (read_onnx, the runner's reading), a faulty node included (whose output the file declares:
    a node with problems passes on only what the file says)."""
    from opgen.validate import api
    from opgen.validate.registry import make_registry

    rng = np.random.default_rng(1)
    w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(np.zeros(4, np.float32), "b")
    fc = numpy_helper.from_array(rng.standard_normal((10, 16)).astype(np.float32), "fc")
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Add", ["p", "p"], ["s"]),
             helper.make_node("GlobalAveragePool", ["s"], ["g"]),
             helper.make_node("Flatten", ["g"], ["f"]),
             helper.make_node("Gemm", ["f", "fc"], ["y"], transB=1)]  # fc is [10, 16] for 4 features: a fault
    graph = helper.make_graph(nodes, "cnn", [helper.make_tensor_value_info("x", F, [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("y", F, [1, 10])], initializer=[w, b, fc])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    inferred = api._check(model, None, Limits(), make_registry(), False)[0]  # inference first, as before
    calls = []
    real = onnx.shape_inference.infer_shapes
    monkeypatch.setattr(onnx.shape_inference, "infer_shapes", lambda *a, **k: calls.append(1) or real(*a, **k))
    declared = validate_model(model)
    assert calls == []
    assert [str(r) for r in declared.records] == [str(r) for r in inferred.records]
    assert [r.node for r in declared.problems] == [""] and "Gemm" in declared.problems[0].op
