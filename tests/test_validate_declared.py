"""What the check completes by itself, so that a model is checked and run as declared, without
onnx.shape_inference: ONNX Constant outputs (type, shape and value from the attribute) and scalar
output shapes. Expected descriptions come from onnx.shape_inference, values from onnx.reference."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import opgen
import opgen.validate.onnx_reader as onnx_reader
from opgen.validate.api import check_and_read, validate_model


def model(nodes, output="y", output_type=TensorProto.FLOAT):
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info(output, output_type, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.fixture
def inference_calls(monkeypatch):
    calls = []
    real = onnx_reader.shape_inference

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(onnx_reader, "shape_inference", counting)
    return calls


CONSTANTS = [
    helper.make_node("Constant", [], ["t"], value=numpy_helper.from_array(np.ones((2, 1), np.float32))),
    helper.make_node("Constant", [], ["f"], value_float=2.5),
    helper.make_node("Constant", [], ["fs"], value_floats=[1.0, 2.0, 3.0]),
    helper.make_node("Constant", [], ["i"], value_int=1),
    helper.make_node("Constant", [], ["is"], value_ints=[3, 2]),
    helper.make_node("Shape", ["x"], ["shape"]),
    helper.make_node("Gather", ["shape", "i"], ["rows"]),  # a scalar: shape ()
]


def test_constant_outputs_and_scalars_are_described_as_onnx_infers_them(inference_calls):
    m = model(CONSTANTS + [helper.make_node("Add", ["x", "t"], ["y"])])
    report, graph = check_and_read(m)
    assert not report.problems and inference_calls == []
    spec_name = {TensorProto.FLOAT: "float", TensorProto.INT64: "int64"}
    inferred = onnx.shape_inference.infer_shapes(m).graph.value_info
    assert {vi.name for vi in inferred} >= {"t", "f", "fs", "i", "is", "shape", "rows"}
    for vi in inferred:
        want = (spec_name[vi.type.tensor_type.elem_type], tuple(d.dim_value for d in vi.type.tensor_type.shape.dim))
        assert (graph.values[vi.name].dtype, graph.values[vi.name].shape) == want, vi.name
    assert {"t", "f", "fs", "i", "is", "rows"} <= graph.inferred


def test_a_reshape_target_from_a_constant_is_checked(inference_calls):
    good = model([helper.make_node("Constant", [], ["s"], value_ints=[3, 2]),
                  helper.make_node("Reshape", ["x", "s"], ["y"])])
    assert not validate_model(good).problems and inference_calls == []
    bad = model([helper.make_node("Constant", [], ["s"], value_ints=[4, 2]),
                 helper.make_node("Reshape", ["x", "s"], ["y"])])
    problems = [str(p) for p in validate_model(bad).problems]
    assert len(problems) == 1 and "Reshape" in problems[0] and "C1" in problems[0]
    with pytest.raises(Exception):  # onnx.reference cannot run it either
        ReferenceEvaluator(bad).run(None, {"x": np.zeros((2, 3), np.float32)})


def test_run_model_runs_a_model_the_specs_describe_without_inference(inference_calls):
    m = model(CONSTANTS + [helper.make_node("Mul", ["x", "f"], ["xf"]), helper.make_node("Add", ["xf", "t"], ["y0"]),
                           helper.make_node("Reshape", ["y0", "is"], ["y"])])
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    got = opgen.run_model(m, {"x": x})
    (want,) = ReferenceEvaluator(m).run(None, {"x": x})
    assert inference_calls == [] and got["y"].shape == (3, 2)
    np.testing.assert_array_equal(got["y"], want)


def shape_chain(last: int):
    """y = Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [last])): a target computed from x's shape,
    as exporters write a flatten."""
    return model([helper.make_node("Shape", ["x"], ["shape"]),
                  helper.make_node("Constant", [], ["zero"], value_int=0),
                  helper.make_node("Gather", ["shape", "zero"], ["rows"]),
                  helper.make_node("Constant", [], ["axes"], value_ints=[0]),
                  helper.make_node("Unsqueeze", ["rows", "axes"], ["rows1"]),
                  helper.make_node("Constant", [], ["last"], value_ints=[last]),
                  helper.make_node("Concat", ["rows1", "last"], ["target"], axis=0),
                  helper.make_node("Reshape", ["x", "target"], ["y"])])


def test_shape_computations_are_folded_so_the_reshape_is_checked_without_inference(inference_calls):
    good = shape_chain(-1)
    report, graph = check_and_read(good)
    assert not report.problems and inference_calls == []
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    (target,) = ReferenceEvaluator(good).run(["target"], {"x": x})  # onnx.reference's intermediate value
    np.testing.assert_array_equal(graph.values["target"].value, target)
    assert graph.values["target"].shape == (2,) and "target" in graph.inferred
    np.testing.assert_array_equal(opgen.run_model(good, {"x": x})["y"], ReferenceEvaluator(good).run(None, {"x": x})[0])
    bad = shape_chain(4)  # 2 x 4 elements from 6
    problems = [str(p) for p in validate_model(bad).problems]
    assert len(problems) == 1 and "Reshape" in problems[0] and "C1" in problems[0]
    with pytest.raises(Exception):
        ReferenceEvaluator(bad).run(None, {"x": x})


def test_folded_values_key_the_verdicts():
    """Two Gathers of the same shapes that differ only in the index value fold to different targets; the
    Reshapes using them get their own verdicts in one check (a verdict memo keyed without the values
    would give the second the first's answer)."""
    nodes = [helper.make_node("Shape", ["x"], ["shape"])]
    for k, index in enumerate((0, 1)):  # targets [2, 3] and [3, 3]: the second does not fit 6 elements
        nodes += [helper.make_node("Constant", [], [f"i{k}"], value_ints=[index]),
                  helper.make_node("Gather", ["shape", f"i{k}"], [f"n{k}"]),
                  helper.make_node("Constant", [], [f"three{k}"], value_ints=[3]),
                  helper.make_node("Concat", [f"n{k}", f"three{k}"], [f"t{k}"], axis=0),
                  helper.make_node("Reshape", ["x", f"t{k}"], [f"r{k}"])]
    nodes.append(helper.make_node("Add", ["r0", "r0"], ["y"]))
    problems = [str(p) for p in validate_model(model(nodes)).problems]
    assert len(problems) == 1 and "C1" in problems[0] and "3 x 3" not in problems[0] and "[3, 3]" in problems[0]


@pytest.mark.parametrize("nodes", [
    [helper.make_node("Constant", [], ["s"], value_ints=[100_000, 100_000]),
     helper.make_node("ConstantOfShape", ["s"], ["y"])],
    [helper.make_node("Constant", [], ["s"], value_ints=[100_000, 100_000]),
     helper.make_node("Constant", [], ["one"], value=numpy_helper.from_array(np.ones((1, 1), np.float32))),
     helper.make_node("Expand", ["one", "s"], ["y"])],
], ids=["ConstantOfShape", "Expand"])
def test_folding_never_computes_a_large_result(nodes):
    """A file's small constants can describe a huge result (10^10 elements here): the spec's shape rule
    tells its size first, and nothing that large is folded (the check neither allocates nor runs it)."""
    report, graph = check_and_read(model(nodes, output_type=TensorProto.UNDEFINED))  # y: described by the check
    assert graph.values["y"].shape == (100_000, 100_000) and graph.values["y"].value is None
    assert not report.problems


def test_nodes_the_check_computed_do_not_run_again():
    """The shape chain the check folded (Shape, Gather, Unsqueeze, Concat and the Constants) is handed
    out as computed; only the Reshape runs. Outputs equal onnx.reference's, and a computed value given
    to the user is a writable copy of its own (changing it changes nothing for the next run)."""
    import opgen_ops
    from opgen.runtime.graph_runner import GraphFunction

    m = shape_chain(-1)
    m.graph.output.append(onnx.ValueInfoProto(name="target"))  # an output the file does not describe
    _, graph = check_and_read(m)
    function = GraphFunction(graph, opgen_ops)
    computed = {node.op for node in graph.nodes if function._plan(node).constant is not None}
    assert computed == {"Shape", "Constant", "Gather", "Unsqueeze", "Concat"}
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    want = ReferenceEvaluator(m).run(None, {"x": x})
    for _ in range(2):
        got = opgen.run_model(m, {"x": x})
        for name, expected in zip(("y", "target"), want):
            np.testing.assert_array_equal(got[name], expected)
        assert got["target"].flags.writeable
        got["target"][0] = 99  # the user's own copy
