"""Output shapes of more ONNX ops stated in the specs (outputs[].shape): Squeeze/Unsqueeze and the
reductions with their axes input (values()), ... — against onnx's strict shape inference or, where it
leaves a shape unknown, onnxruntime's result (tests/onnx_cases.check_output_shapes)."""
from __future__ import annotations

import numpy as np
import pytest

from onnx_cases import arr, build, check_output_shapes, onnx_shapes, run_shapes, where


# ---- Squeeze / Unsqueeze: axes as an attribute (1, 11) or a constant input (13 and later) ----
SQUEEZE_V = (1, 11, 13, 21, 23, 24, 25)


@pytest.mark.parametrize("opset", SQUEEZE_V)
@pytest.mark.parametrize("shape, axes", [((1, 3, 1, 4), [0]), ((1, 3, 1, 4), [2, 0]), ((1, 3, 1, 4), [-2]),
                                         ((1, 3, 1, 4), None), ((3, 4), None), ((1,), [0])])
def test_squeeze_drops_the_named_or_every_size_1_axis(opset, shape, axes):
    if axes is not None and opset == 1:  # non-negative axes before version 11; sorted: see below
        axes = sorted(a % len(shape) for a in axes)
    inputs, attrs, inits = {"data": shape}, {}, {}
    if axes is not None and opset >= 13:
        inputs["axes"], inits["axes"] = None, arr(axes)
    elif axes is not None:
        attrs["axes"] = axes
    check_output_shapes("Squeeze", opset, inputs, attrs, {"out": "output 'squeezed'"}, inits)


def test_squeeze_1_with_unsorted_axes_follows_onnxruntime():
    # onnx's Squeeze-1 inference walks the axes as if sorted: for axes [2, 0] of [1, 3, 1, 4] it gives
    # [1, 3, 4] (and its reference evaluator squeezes one axis after another, failing); onnxruntime, like
    # Squeeze-11's inference, removes both: [3, 4]. opgen gives [3, 4].
    m, feeds = build("Squeeze", 1, {"data": (1, 3, 1, 4)}, {"axes": [2, 0]}, {"out": None})
    assert onnx_shapes(m) == {"out": [1, 3, 4]} and run_shapes(m, feeds) == {"out": [3, 4]}
    right, _ = build("Squeeze", 1, {"data": (1, 3, 1, 4)}, {"axes": [2, 0]}, {"out": [3, 4]})
    assert where(right) == []
    wrong, _ = build("Squeeze", 1, {"data": (1, 3, 1, 4)}, {"axes": [2, 0]}, {"out": [1, 3, 4]})
    assert where(wrong) == ["output 'squeezed'"]


@pytest.mark.parametrize("opset", SQUEEZE_V)
def test_squeeze_with_empty_axes_input_keeps_every_dimension(opset):
    # onnx's inference (and its reference evaluator) squeeze nothing for an empty axes tensor; onnxruntime
    # squeezes every size-1 axis as if axes were absent. opgen follows onnx.
    if opset < 13:
        pytest.skip("axes is an attribute")
    check_output_shapes("Squeeze", opset, {"data": (1, 3, 1), "axes": None}, {}, {"out": "output 'squeezed'"},
                        {"axes": arr([], np.int64)})


@pytest.mark.parametrize("opset", SQUEEZE_V)
@pytest.mark.parametrize("shape, axes", [((3, 4), [0]), ((3, 4), [2, 0]), ((3, 4), [-1, 0]), ((), [0, 1]),
                                         ((3,), [1, -1]), ((2, 3, 4), [4, 1])])
def test_unsqueeze_inserts_size_1_axes_of_the_output(opset, shape, axes):
    if opset == 1:
        axes = [a + len(shape) + len(axes) if a < 0 else a for a in axes]  # negative axes come with version 11
    inputs, attrs, inits = {"data": shape}, {}, {}
    if opset >= 13:
        inputs["axes"], inits["axes"] = None, arr(axes)
    else:
        attrs["axes"] = axes
    check_output_shapes("Unsqueeze", opset, inputs, attrs, {"out": "output 'expanded'"}, inits)


# ---- ReduceSum / ReduceMean / ReduceMax: axes attribute, or axes input with noop_with_empty_axes ----
REDUCE_V = {"ReduceSum": (1, 11, 13), "ReduceMean": (1, 11, 13, 18), "ReduceMax": (1, 11, 12, 13, 18, 20)}
REDUCE_IN = {"ReduceSum": 13, "ReduceMean": 18, "ReduceMax": 18}  # first version with the axes input
REDUCE_CASES = [(op, v) for op, vs in REDUCE_V.items() for v in vs]


@pytest.mark.parametrize("op, opset", REDUCE_CASES)
@pytest.mark.parametrize("keepdims", [0, 1])
@pytest.mark.parametrize("axes", [[1], [0, 2], [-1], None])
def test_reduce_keeps_or_drops_the_reduced_axes(op, opset, keepdims, axes):
    if axes is not None and opset < 11:
        axes = [a % 3 for a in axes]  # negative axes come with version 11
    inputs, attrs, inits = {"data": (2, 3, 4)}, {"keepdims": keepdims}, {}
    if axes is not None and opset >= REDUCE_IN[op]:
        inputs["axes"], inits["axes"] = None, arr(axes)
    elif axes is not None:
        attrs["axes"] = axes
    check_output_shapes(op, opset, inputs, attrs, {"out": "output 'reduced'"}, inits)


@pytest.mark.parametrize("op, opset", [(op, v) for op, v in REDUCE_CASES if v >= REDUCE_IN[op]])
@pytest.mark.parametrize("keepdims", [0, 1])
@pytest.mark.parametrize("noop", [0, 1])
@pytest.mark.parametrize("empty", [True, False])
def test_reduce_without_axes_reduces_all_or_nothing(op, opset, keepdims, noop, empty):
    inputs, inits = {"data": (2, 3, 4)}, {}
    if empty:  # an empty axes input counts as no axes
        inputs["axes"], inits["axes"] = None, arr([], np.int64)
    check_output_shapes(op, opset, inputs, {"keepdims": keepdims, "noop_with_empty_axes": noop},
                        {"out": "output 'reduced'"}, inits)
