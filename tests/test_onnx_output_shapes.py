"""Output shapes of ONNX ops stated in the specs (outputs[].shape), against onnx's strict shape
inference or, where it leaves a shape unknown, onnxruntime's result: the right shape passes and a
wrong one is reported at that output (tests/onnx_cases.check_output_shapes)."""
from __future__ import annotations

import onnx
import pytest
from onnx import TensorProto, helper

from onnx_cases import arr, build, check_output_shapes, ort_rejects

from opgen.validate import validate_model

OUT = {"out": "output 'concat_result'"}


@pytest.mark.parametrize("opset", [4, 11, 13])
@pytest.mark.parametrize("axis, shapes", [(1, [(2, 3), (2, 4), (2, 1)]), (-3, [(1, 2, 3), (4, 2, 3)]), (0, [(5,)])])
def test_concat_sums_the_axis_over_every_input(opset, axis, shapes):
    if axis < 0 and opset < 11:
        axis += len(shapes[0])  # negative axes come with version 11
    names = {f"x{k}": s for k, s in enumerate(shapes)}
    check_output_shapes("Concat", opset, names, {"axis": axis}, OUT)


def pieces(n: int) -> dict[str, str]:
    return {f"o{k}": f"output 'outputs'[{k}]" for k in range(n)}


@pytest.mark.parametrize("opset, attrs, inits, n", [
    (2, {"axis": 1}, {}, 7),                          # equal pieces, one per output
    (11, {"axis": -1, "split": [1, 3]}, {}, 2),       # lengths as an attribute
    (13, {"axis": 0}, {"split": arr([2, 1, 3])}, 3),  # lengths as a constant input
    (13, {"axis": 2}, {}, 2),
    (18, {"axis": 0, "num_outputs": 3}, {}, 3),       # 6 in 3 pieces of 2
    (18, {"axis": 1, "num_outputs": 4}, {}, 4),       # 7 in 4: pieces of ceil(7 / 4) = 2, the last of 1
    (18, {"axis": 2}, {"split": arr([3, 1])}, 2),
])
def test_split_gives_each_piece_its_length(opset, attrs, inits, n):
    inputs = {"input": (6, 7, 4), **{name: None for name in inits}}  # split: a constant input
    check_output_shapes("Split", opset, inputs, attrs, pieces(n), inits)


@pytest.mark.parametrize("opset, size, attrs, split, n, bad", [
    (18, 5, {"num_outputs": 4}, None, 4, "C4"),   # pieces of 2: the last would be 5 - 6 < 0
    (18, 5, {}, [2, 2], 2, "C5"),                 # lengths short of the axis
    (18, 6, {}, [1, 2, 3], 2, "C6"),              # three lengths for two outputs
    (13, 5, {}, None, 2, "C2"),                   # not evenly splittable
    (13, 5, {}, [2, 2], 2, "C3"),
    (13, 6, {}, [1, 2, 3], 2, "C4"),
    (11, 5, {}, None, 2, "C4"),
    (2, 7, {}, None, 3, "C4"),
    (18, 7, {"num_outputs": 4}, None, 4, None),   # 2, 2, 2, 1
    (13, 5, {}, [3, 2], 2, None),
])
def test_split_lengths_must_fit_the_axis(opset, size, attrs, split, n, bad):
    inits = {} if split is None else {"split": arr(split)}
    inputs = {"input": (size, 3), **{name: None for name in inits}}
    m, feeds = build("Split", opset, inputs, {"axis": 0, **attrs}, {f"o{k}": None for k in range(n)}, inits)
    found = [r for r in validate_model(m).records if r.severity == "error"]
    assert [r.where for r in found] == ([f"constraint {bad}"] if bad else [])
    if opset >= 7:  # onnxruntime runs opset 7 and later
        assert ort_rejects(m) == (bad is not None)


def test_an_empty_last_piece_is_valid_as_onnx_says_though_onnxruntime_refuses_it():
    """Split-18 note empty_last_piece: 6 in 4 pieces of ceil(6 / 4) = 2 leaves the last one empty."""
    import numpy as np
    from onnx.reference import ReferenceEvaluator

    m, feeds = build("Split", 18, {"input": (6, 3)}, {"axis": 0, "num_outputs": 4}, {f"o{k}": None for k in range(4)})
    assert [r for r in validate_model(m).records if r.severity == "error"] == []
    shapes = [list(r.shape) for r in ReferenceEvaluator(m).run(None, {"input": np.zeros((6, 3), np.float32)})]
    assert shapes == [[2, 3], [2, 3], [2, 3], [0, 3]]
    assert ort_rejects(m)  # the reference difference the note records


def _sparse(shape: list[int]) -> onnx.SparseTensorProto:
    values = helper.make_tensor("v", TensorProto.FLOAT, [2], [1.0, 2.0])
    indices = helper.make_tensor("i", TensorProto.INT64, [2], [0, 3])
    return helper.make_sparse_tensor(values, indices, shape)


@pytest.mark.parametrize("opset, attrs, elem", [
    (1, {"value": helper.make_tensor("t", TensorProto.FLOAT, [2, 3], [0.0] * 6)}, TensorProto.FLOAT),
    (9, {"value": helper.make_tensor("t", TensorProto.INT64, [], [7])}, TensorProto.INT64),
    (11, {"sparse_value": _sparse([2, 4])}, TensorProto.FLOAT),
    (13, {"value_float": 1.5}, TensorProto.FLOAT),
    (13, {"value_ints": [1, 2, 3, 4]}, TensorProto.INT64),
    (19, {"value_strings": ["a", "b"]}, TensorProto.STRING),
    (25, {"value": helper.make_tensor("t", TensorProto.FLOAT, [0, 5], [])}, TensorProto.FLOAT),
])
def test_constant_has_the_shape_of_its_value(opset, attrs, elem):
    check_output_shapes("Constant", opset, {}, attrs, {"out": "output 'output'"}, elems={"out": elem})
