"""Output shapes stated for a further set of ONNX ops (Cast, Identity, the variadic Max/Min/Mean/Sum, losses,
recurrent and attention ops, Resize, ...), against onnx's strict shape inference or, where it leaves a shape
unknown, onnxruntime's result (tests/onnx_cases.check_output_shapes); ops neither gives a shape for are run
with onnx.reference.ReferenceEvaluator."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto
from onnx.reference import ReferenceEvaluator

from onnx_cases import B, F, I64, arr, build, check_output_shapes, errors, ort_rejects, run_shapes, where

I32 = TensorProto.INT32


def out(*names: str) -> dict[str, str]:
    return {name: f"output '{name}'" for name in names}


def check_declared(op: str, opset: int, inputs: dict, attrs: dict, outputs: dict[str, str],
                   want: dict[str, list[int]], inits: dict | None = None, elems: dict | None = None) -> None:
    """check_output_shapes with the reference shapes given (from onnx.reference's run, or NumPy where no
    onnx tool runs the version): declared right they pass, each declared wrong is reported at that output."""
    elems = elems or {}
    declared = {n: (elems.get(n, F), list(want[n])) for n in outputs}
    right, _ = build(op, opset, inputs, attrs, declared, inits)
    assert where(right) == []
    for name, at in outputs.items():
        shape = list(want[name])
        wrong = [*shape[:-1], shape[-1] + 1] if shape else [1]
        bad, _ = build(op, opset, inputs, attrs, {**declared, name: (elems.get(name, F), wrong)}, inits)
        assert where(bad) == [at], f"{op}-{opset} {name}: declared {wrong}, the op gives {shape}"


def reference_run(op: str, opset: int, inputs: dict, attrs: dict, outputs: list[str], inits: dict | None = None,
                  feeds: dict | None = None, elems: dict | None = None) -> dict[str, list[int]]:
    """Output shapes from running the one-node model with onnx.reference.ReferenceEvaluator."""
    elems = elems or {}
    m, zeros = build(op, opset, inputs, attrs, {n: (elems.get(n, F), None) for n in outputs}, inits)
    results = ReferenceEvaluator(m).run(None, {**zeros, **(feeds or {})})
    return {n: list(np.shape(r)) for n, r in zip(outputs, results)}


# ---- same shape as an input ------------------------------------------------------------------

@pytest.mark.parametrize("opset", [6, 9, 13, 19, 21, 23, 24, 25])
def test_cast_keeps_the_input_shape(opset):
    check_output_shapes("Cast", opset, {"input": (2, 3, 4)}, {"to": I64}, out("output"), elems={"output": I64})


def test_cast_1_keeps_the_input_shape():
    """Cast-1 (`to` a string): onnx infers nothing and neither onnxruntime nor onnx.reference runs it; NumPy's
    astype is the reference."""
    want = list(np.zeros((2, 3, 4), np.float32).astype(np.int64).shape)
    check_declared("Cast", 1, {"input": (2, 3, 4)}, {"to": "INT64"}, out("output"), {"output": want},
                   elems={"output": I64})


@pytest.mark.parametrize("opset", [15, 19, 21, 23, 24, 25])
def test_castlike_keeps_the_input_shape(opset):
    check_output_shapes("CastLike", opset, {"input": (3, 1, 5), "target_type": (I64, (2,))}, {}, out("output"),
                        elems={"output": I64})


def test_bitcast_keeps_the_input_shape():
    check_output_shapes("BitCast", 26, {"input": (2, 5)}, {"to": I32}, out("output"), elems={"output": I32})


@pytest.mark.parametrize("opset", [1, 13, 14, 16, 19, 21, 23, 24, 25])
@pytest.mark.parametrize("shape", [(2, 3), ()])
def test_identity_keeps_the_input_shape(opset, shape):
    check_output_shapes("Identity", opset, {"input": shape}, {}, out("output"))


@pytest.mark.parametrize("opset", [10, 20])
def test_isinf_keeps_the_input_shape(opset):
    check_output_shapes("IsInf", opset, {"X": (4, 1, 2)}, {"detect_negative": 0}, out("Y"), elems={"Y": B})


@pytest.mark.parametrize("opset", [9, 22])
@pytest.mark.parametrize("attrs", [{}, {"k": -1, "dtype": TensorProto.FLOAT}])
def test_eyelike_keeps_the_input_shape(opset, attrs):
    check_output_shapes("EyeLike", opset, {"input": (3, 5)}, attrs, out("output"))


@pytest.mark.parametrize("opset", [11, 22])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (2, 1, 2, 2)])
def test_det_drops_the_matrix_dimensions(opset, shape):
    check_output_shapes("Det", opset, {"X": shape}, {}, out("Y"))


@pytest.mark.parametrize("opset", [9, 13])
@pytest.mark.parametrize("axes", [None, [1], [0, 1, 2, 3]])
def test_mean_variance_normalization_keeps_the_input_shape(opset, axes):
    attrs = {} if axes is None else {"axes": axes}
    if opset == 13 and axes is None:
        # onnx 1.23.2's inference of the version-13 function body fails without axes (its Constant node
        # gets no value): onnxruntime's run is the reference
        m, feeds = build("MeanVarianceNormalization", opset, {"X": (2, 3, 4, 5)}, attrs, {"Y": None})
        check_declared("MeanVarianceNormalization", opset, {"X": (2, 3, 4, 5)}, attrs, out("Y"), run_shapes(m, feeds))
        return
    check_output_shapes("MeanVarianceNormalization", opset, {"X": (2, 3, 4, 5)}, attrs, out("Y"))


def test_swiglu_keeps_the_input_shape():
    check_output_shapes("SwiGLU", 28, {"A": (2, 3, 8), "B": (2, 3, 8)}, {"alpha": 1.702}, out("Y"))


@pytest.mark.parametrize("opset", [9, 10])  # deprecated in 11: no model may use it there
@pytest.mark.parametrize("axis", [0, 1])
def test_scatter_keeps_the_data_shape(opset, axis):
    check_output_shapes("Scatter", opset, {"data": (4, 5), "indices": (I64, (2, 3)), "updates": (2, 3)},
                        {"axis": axis}, out("output"))


@pytest.mark.parametrize("attrs", [{}, {"axis": 2, "mode": "circular"}])
@pytest.mark.parametrize("indices", [False, True])
def test_tensor_scatter_keeps_the_cache_shape(attrs, indices):
    update = (2, 3, 2, 4) if attrs.get("axis", -2) % 4 == 2 else None
    inputs = {"past_cache": (2, 3, 8, 4), "update": update}
    if indices:
        inputs["write_indices"] = (I64, (2,))
    check_output_shapes("TensorScatter", 24, inputs, attrs, out("present_cache"))


# ---- variadic: broadcasting over every input (8+), equal shapes before -------------------------

@pytest.mark.parametrize("op, name, opsets", [("Max", "max", [8, 12, 13]), ("Min", "min", [8, 12, 13]),
                                              ("Mean", "mean", [8, 13]), ("Sum", "sum", [8, 13])])
@pytest.mark.parametrize("shapes", [[(2, 3)], [(2, 1, 4), (3, 1), (4,)], [(), (5, 1), (1, 6), (1, 1, 1)]])
def test_variadic_ops_broadcast_every_input(op, name, opsets, shapes):
    for opset in opsets:
        check_output_shapes(op, opset, {f"x{k}": s for k, s in enumerate(shapes)}, {}, out(name))


@pytest.mark.parametrize("op, name", [("Max", "max"), ("Min", "min"), ("Mean", "mean"), ("Sum", "sum")])
@pytest.mark.parametrize("n", [1, 3])
def test_variadic_ops_before_broadcasting_keep_the_common_shape(op, name, n):
    check_output_shapes(op, 6, {f"x{k}": (2, 3) for k in range(n)}, {}, out(name))


@pytest.mark.parametrize("op", ["Max", "Min", "Mean", "Sum"])
@pytest.mark.parametrize("opset", [1, 6])
@pytest.mark.parametrize("shapes, bad", [([(2, 3), (2, 3), (2, 3)], False), ([(2, 3), (3,)], True),
                                         ([(2, 3), (2, 3), (1, 3)], True), ([(4,)], False)])
def test_variadic_ops_before_broadcasting_need_equal_shapes(op, opset, shapes, bad):
    """Constraint C1 of versions 1 and 6 (onnxruntime: "All inputs must have the same shape"; it runs no opset-1
    model, where onnx's text says the same)."""
    m, _ = build(op, opset, {f"x{k}": s for k, s in enumerate(shapes)}, {}, {"y": None})
    assert errors(m) == (["constraint C1"] if bad else [])
    if opset == 6:
        assert ort_rejects(m) == bad


# ---- Compress, CenterCropPad -------------------------------------------------------------------

@pytest.mark.parametrize("opset", [9, 11, 28])
@pytest.mark.parametrize("attrs, condition", [
    ({"axis": 1}, [1, 0, 1]),          # shorter than the axis: the rest is dropped
    ({"axis": -1}, [0, 1, 1, 1]),
    ({"axis": 0}, [1, 0, 1, 1, 1]),    # longer than the axis: onnxruntime reads only the axis' length
    ({}, [1, 0, 1, 1, 1]),             # no axis: over the flattened input
    ({}, [1] * 14),
])
def test_compress_keeps_what_a_constant_condition_selects(opset, attrs, condition):
    """onnx infers only the rank (the count depends on the condition's values): onnxruntime's run is the reference;
    for opset 28, which onnxruntime does not run, onnx.reference's (which refuses a condition longer than the axis)."""
    if opset == 28:
        inputs, inits = {"input": (3, 4), "condition": None}, {"condition": arr(condition, bool)}
        size = 3 if attrs == {"axis": 0} else 4 if attrs else 12
        if len(condition) <= size:
            check_declared("Compress", opset, inputs, attrs, out("output"),
                           reference_run("Compress", opset, inputs, attrs, ["output"], inits), inits)
        return
    check_output_shapes("Compress", opset, {"input": (3, 4), "condition": None}, attrs, out("output"),
                        {"condition": arr(condition, bool)})


@pytest.mark.parametrize("attrs, shape", [({}, [2, 8, 3]), ({"axes": [0, -2]}, [2, 8]), ({"axes": [2]}, [5]),
                                          ({"axes": [2, 0]}, [5, 1])])
def test_center_crop_pad_takes_the_constant_shape_on_its_axes(attrs, shape):
    check_output_shapes("CenterCropPad", 18, {"input_data": (4, 6, 3), "shape": None}, attrs, out("output_data"),
                        {"shape": arr(shape)})


# ---- DFT, STFT ----------------------------------------------------------------------------------

@pytest.mark.parametrize("opset", [17, 20])
@pytest.mark.parametrize("last, attrs", [(1, {}), (2, {}), (1, {"onesided": 1}), (1, {"inverse": 1}),
                                         (2, {"inverse": 1}), (2, {"onesided": 1, "inverse": 1})])
@pytest.mark.parametrize("length", [None, 5])
def test_dft_sets_the_axis_to_the_transform_length(opset, last, attrs, length):
    inputs, inits = {"input": (2, 8, last)}, {}
    if length is not None:
        inputs["dft_length"], inits["dft_length"] = None, arr(length)
    check_output_shapes("DFT", opset, inputs, attrs, out("output"), inits)


@pytest.mark.parametrize("axis", [0, 1, 2, -2, -3, -4])
@pytest.mark.parametrize("length", [None, 4])
def test_dft_on_any_signal_axis(axis, length):
    inputs = {"input": (2, 8, 6, 2), "dft_length": "" if length is None else None}
    inits = {} if length is None else {"dft_length": arr(length)}
    check_output_shapes("DFT", 17, inputs, {"axis": axis, "onesided": 0}, out("output"), inits)
    check_output_shapes("DFT", 20, {**inputs, "axis": None}, {}, out("output"), {**inits, "axis": arr(axis)})


@pytest.mark.parametrize("opset", [17, 20])
@pytest.mark.parametrize("shape, attrs, length, axis, bad", [
    ((2, 8, 3), {}, None, None, "C1"),
    ((2, 8, 2), {}, None, 2, "C2"),
    ((2, 8, 2), {}, None, -1, "C2"),
    ((2, 8, 2), {}, None, -4, "C2"),
    ((2, 8, 2), {}, 0, None, "C3"),
    ((2, 8, 2), {"onesided": 1}, None, None, "C4"),
    ((2, 8, 1), {"onesided": 1, "inverse": 1}, None, None, "C5"),
    ((2, 8, 2), {}, 3, -3, None),
    ((2, 8, 1), {"onesided": 1}, None, 0, None),
])
def test_dft_constraints(opset, shape, attrs, length, axis, bad):
    """onnx's inference and onnxruntime refuse each (the last dimension and dft_length = 0 at run time only)."""
    inputs, inits = {"input": shape, "dft_length": ""}, {}
    if length is not None:
        inputs["dft_length"], inits["dft_length"] = None, arr(length)
    if axis is not None and opset == 17:
        attrs = {**attrs, "axis": axis}
    elif axis is not None:
        inputs["axis"], inits["axis"] = None, arr(axis)
    m, _ = build("DFT", opset, inputs, attrs, {"output": None}, inits)
    assert errors(m) == ([f"constraint {bad}"] if bad else [])
    assert ort_rejects(m) == (bad is not None)


@pytest.mark.parametrize("signal, window, step, length, attrs", [
    ((2, 16, 2), None, 5, 7, {"onesided": 0}),
    ((2, 16, 2), None, 5, 7, {"onesided": 1}),
    ((2, 16, 1), None, 5, 7, {"onesided": 1}),
    ((2, 16, 1), (8,), 3, 8, {"onesided": 0}),
    ((1, 20, 1), (6,), 2, 6, {"onesided": 1}),
])
def test_stft_counts_frames_and_bins(signal, window, step, length, attrs):
    inputs = {"signal": signal, "frame_step": None, "window": window or "", "frame_length": None}
    check_output_shapes("STFT", 17, inputs, attrs, out("output"), {"frame_step": arr(step), "frame_length": arr(length)})


@pytest.mark.parametrize("window, length", [((8,), None), (None, 7), ((7,), 7), ((6,), 6)])
def test_stft_is_one_sided_by_default(window, length):
    """onnx 1.23.2's inference reads a missing onesided as 0 (the attribute's default is 1): it gives the whole frame
    length of bins; onnxruntime and onnx.reference give floor(frame_length / 2) + 1, as the operator's text says."""
    inputs = {"signal": (2, 16, 1), "frame_step": None, "window": window or "", "frame_length": "" if length is None else None}
    inits = {"frame_step": arr(4), **({} if length is None else {"frame_length": arr(length)})}
    m, feeds = build("STFT", 17, inputs, {}, {"output": None}, inits)
    want = run_shapes(m, feeds)
    assert want == reference_run("STFT", 17, inputs, {}, ["output"], inits)
    n = length or window[0]
    assert want["output"] == [2, (16 - n) // 4 + 1, n // 2 + 1, 2]
    check_declared("STFT", 17, inputs, {}, out("output"), want, inits)


# ---- MaxUnpool ----------------------------------------------------------------------------------

@pytest.mark.parametrize("opset", [9, 11, 22])
@pytest.mark.parametrize("attrs", [{"kernel_shape": [2, 2], "strides": [2, 2]}, {"kernel_shape": [3, 2], "pads": [1, 0, 0, 1]},
                                   {"kernel_shape": [2, 3], "strides": [1, 2], "pads": [0, 1, 1, 0]}])
def test_maxunpool_inverts_the_pooling_size(opset, attrs):
    check_output_shapes("MaxUnpool", opset, {"X": (1, 2, 3, 3), "I": (I64, (1, 2, 3, 3))}, attrs, out("output"))


@pytest.mark.parametrize("opset", [9, 11, 22])
def test_maxunpool_takes_a_constant_output_shape(opset):
    """onnx infers nothing from the constant: onnxruntime's run is the reference."""
    check_output_shapes("MaxUnpool", opset, {"X": (1, 2, 3, 3), "I": (I64, (1, 2, 3, 3)), "output_shape": None},
                        {"kernel_shape": [2, 2], "strides": [2, 2]}, out("output"), {"output_shape": arr([1, 2, 7, 6])})


# ---- losses ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("opset", [12, 13, 22])
@pytest.mark.parametrize("reduction", [None, "none", "sum", "mean"])
@pytest.mark.parametrize("shape", [(3, 5), (3, 5, 2, 4)])
@pytest.mark.parametrize("weight", [False, True])
def test_nll_loss_is_per_element_or_a_scalar(opset, reduction, shape, weight):
    inputs = {"input": shape, "target": (I64, (shape[0], *shape[2:]))}
    if weight:
        inputs["weight"] = (shape[1],)
    attrs = {} if reduction is None else {"reduction": reduction}
    check_output_shapes("NegativeLogLikelihoodLoss", opset, inputs, attrs, out("loss"))


@pytest.mark.parametrize("opset", [12, 13])
@pytest.mark.parametrize("reduction", [None, "none", "sum"])
@pytest.mark.parametrize("shape", [(3, 5), (3, 5, 2)])
@pytest.mark.parametrize("log_prob", [False, True])
def test_softmax_cross_entropy_loss_shapes(opset, reduction, shape, log_prob):
    inputs = {"scores": shape, "labels": (I64, (shape[0], *shape[2:]))}
    attrs = {} if reduction is None else {"reduction": reduction}
    outputs = out("output", "log_prob") if log_prob else out("output")
    check_output_shapes("SoftmaxCrossEntropyLoss", opset, inputs, attrs, outputs)


# ---- Resize -------------------------------------------------------------------------------------

def fl(values):
    return arr(values, np.float32)


@pytest.mark.parametrize("scales", [[1, 1, 2, 3], [1, 1, 0.5, 1.5], [1, 2, 0.6, 0.7], [2, 1, 1.25, 1]])
def test_resize_10_scales_every_dimension(scales):
    check_output_shapes("Resize", 10, {"X": (1, 2, 4, 6), "scales": None}, {}, out("Y"), {"scales": fl(scales)})


@pytest.mark.parametrize("opset", [11, 13, 18, 19])
@pytest.mark.parametrize("scales, sizes", [([1, 1, 2, 3], None), ([1, 1, 0.5, 1.5], None), ([1, 2, 0.6, 0.7], None),
                                           (None, [1, 2, 7, 3]), (None, [3, 1, 1, 9])])
def test_resize_from_constant_scales_or_sizes(opset, scales, sizes):
    inputs = {"X": (1, 2, 4, 6), "roi": None, "scales": None}
    inits = {"roi": fl([]), "scales": fl(scales if scales is not None else [])}
    if opset >= 13 and scales is None:
        inputs["scales"], inits = "", {"roi": fl([])}
    if opset >= 13:
        inputs["roi"], inits = "", {k: v for k, v in inits.items() if k != "roi"}
    if sizes is not None:
        inputs["sizes"], inits["sizes"] = None, arr(sizes)
    check_output_shapes("Resize", opset, inputs, {}, out("Y"), inits)


@pytest.mark.parametrize("opset", [18, 19])
@pytest.mark.parametrize("attrs, scales, sizes", [
    ({"axes": [2, 3]}, [2, 0.5], None),
    ({"axes": [-1]}, [1.5], None),
    ({"axes": [3, 1]}, [0.5, 2], None),
    ({"axes": [2, 3]}, None, [8, 3]),
    ({"axes": [-1, -2]}, None, [5, 2]),
    ({"keep_aspect_ratio_policy": "not_larger"}, None, [1, 2, 6, 6]),
    ({"keep_aspect_ratio_policy": "not_smaller"}, None, [1, 2, 6, 6]),
    ({"keep_aspect_ratio_policy": "not_larger", "axes": [2, 3]}, None, [10, 9]),
    ({"keep_aspect_ratio_policy": "not_smaller", "axes": [2, 3]}, None, [10, 9]),
    ({"keep_aspect_ratio_policy": "not_smaller", "axes": [3]}, None, [9]),
    ({"keep_aspect_ratio_policy": "not_larger", "axes": [3, 2]}, None, [3, 7]),
])
def test_resize_18_on_axes_and_keeping_the_aspect_ratio(opset, attrs, scales, sizes):
    inputs = {"X": (1, 2, 4, 6), "roi": ""}
    inits = {}
    if scales is not None:
        inputs["scales"], inits["scales"] = None, fl(scales)
    else:
        inputs["scales"], inputs["sizes"], inits["sizes"] = "", None, arr(sizes)
    check_output_shapes("Resize", opset, inputs, attrs, out("Y"), inits)


@pytest.mark.parametrize("opset", [18, 19])
@pytest.mark.parametrize("policy, bad", [("not_larger", True), ("not_smaller", True), ("stretch", False)])
def test_resize_scales_only_stretch(opset, policy, bad):
    """Constraint C6: onnx's inference ("Providing `scales` is incompatible with a `keep_aspect_ratio_policy` other
    than "stretch"") and onnxruntime refuse the other policies with scales."""
    m, _ = build("Resize", opset, {"X": (1, 2, 4, 6), "roi": "", "scales": None}, {"keep_aspect_ratio_policy": policy},
                 {"Y": None}, {"scales": fl([1, 1, 2, 0.5])})
    assert errors(m) == (["constraint C6"] if bad else [])
    assert ort_rejects(m) == bad


@pytest.mark.parametrize("opset", [10, 13, 19])
@pytest.mark.parametrize("size, scale", [(10, 0.7), (20, 0.35)])
def test_resize_floors_the_exact_product(opset, size, scale):
    """A float32 scale whose product with the size falls just short of an integer (10 * 0.7f = 6.99999988):
    onnx's inference and onnx.reference floor the exact product (6); onnxruntime multiplies in float32, which
    rounds to 7.0. opgen follows onnx."""
    inputs = {"X": (1, size), "roi": "", "scales": None} if opset > 10 else {"X": (1, size), "scales": None}
    inits = {"scales": fl([1, scale])}
    m, feeds = build("Resize", opset, inputs, {}, {"Y": None}, inits)
    assert run_shapes(m, feeds) == {"Y": [1, 7]}  # onnxruntime's float32 product
    if opset > 10:  # onnx.reference runs Resize-10 as if its second input were roi
        assert reference_run("Resize", opset, inputs, {}, ["Y"], inits) == {"Y": [1, 6]}
    check_output_shapes("Resize", opset, inputs, {}, out("Y"), inits)  # onnx's inference: 6


# ---- RNN ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("opset", [7, 14, 22])
@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
@pytest.mark.parametrize("outputs", [("Y", "Y_h"), ("Y",)])
def test_rnn_states_per_step_and_last(opset, direction, outputs):
    nd = 2 if direction == "bidirectional" else 1
    inputs = {"X": (5, 3, 4), "W": (nd, 6, 4), "R": (nd, 6, 6)}
    check_output_shapes("RNN", opset, inputs, {"hidden_size": 6, "direction": direction},
                        {n: f"output '{n}'" for n in outputs if n})


@pytest.mark.parametrize("opset", [14, 22])
@pytest.mark.parametrize("direction", ["forward", "bidirectional"])
def test_rnn_batch_first_layout(opset, direction):
    """layout = 1 (batch first): onnx's inference (onnxruntime does not run this layout)."""
    nd = 2 if direction == "bidirectional" else 1
    inputs = {"X": (3, 5, 4), "W": (nd, 6, 4), "R": (nd, 6, 6)}
    check_output_shapes("RNN", opset, inputs, {"hidden_size": 6, "direction": direction, "layout": 1},
                        out("Y", "Y_h"))


@pytest.mark.parametrize("opset", [7, 14, 22])
def test_rnn_hidden_size_from_r(opset):
    """Without hidden_size, onnx leaves the hidden dimension unknown and onnxruntime refuses to run; onnx.reference
    takes it from R (as opgen does)."""
    inputs = {"X": (5, 3, 4), "W": (1, 6, 4), "R": (1, 6, 6)}
    want = reference_run("RNN", opset, inputs, {}, ["Y", "Y_h"])
    assert want == {"Y": [5, 1, 3, 6], "Y_h": [1, 3, 6]}
    check_declared("RNN", opset, inputs, {}, out("Y", "Y_h"), want)


def test_rnn_1_with_the_output_sequence():
    """RNN-1: onnx infers both outputs with output_sequence = 1 (nothing without: opgen then states Y_h only, the
    operator's text giving its shape); neither onnxruntime nor onnx.reference runs version 1."""
    inputs = {"X": (5, 3, 4), "W": (2, 6, 4), "R": (2, 6, 6)}
    check_output_shapes("RNN", 1, inputs, {"hidden_size": 6, "output_sequence": 1, "direction": "bidirectional"},
                        out("Y", "Y_h"))
    m, _ = build("RNN", 1, inputs, {"hidden_size": 6, "direction": "bidirectional"}, {"Y": (F, [5, 2, 3, 7]), "Y_h": (F, [2, 3, 6])})
    assert where(m) == []  # Y's shape is not stated without output_sequence
    m, _ = build("RNN", 1, inputs, {"hidden_size": 6, "direction": "bidirectional"}, {"Y": None, "Y_h": (F, [2, 3, 7])})
    assert where(m) == ["output 'Y_h'"]


# ---- RotaryEmbedding, CausalConvWithState, LinearAttention, Attention --------------------------------

@pytest.mark.parametrize("X, attrs, cache", [((2, 4, 3, 8), {}, (2, 3, 4)), ((2, 3, 16), {"num_heads": 2}, (2, 3, 4)),
                                             ((2, 4, 3, 8), {"interleaved": 1, "rotary_embedding_dim": 4}, (2, 3, 2))])
def test_rotary_embedding_keeps_the_input_shape(X, attrs, cache):
    check_output_shapes("RotaryEmbedding", 23, {"X": X, "cos_cache": cache, "sin_cache": cache}, attrs, out("Y"))


@pytest.mark.parametrize("bias, past", [(False, False), (True, True)])
@pytest.mark.parametrize("k", [1, 4])
def test_causal_conv_with_state(bias, past, k):
    inputs = {"input": (2, 3, 5), "weight": (3, 1, k), "bias": (3,) if bias else "", "past_state": (2, 3, k - 1) if past else ""}
    check_output_shapes("CausalConvWithState", 27, inputs, {"activation": "silu"}, out("output", "present_state"))


@pytest.mark.parametrize("hq, hkv, dk, dv", [(2, 2, 4, 4), (4, 2, 3, 5), (3, 1, 2, 6)])
@pytest.mark.parametrize("rule", ["linear", "gated_delta"])
def test_linear_attention(hq, hkv, dk, dv, rule):
    inputs = {"query": (2, 5, hq * dk), "key": (2, 5, hkv * dk), "value": (2, 5, hkv * dv), "past_state": (2, hkv, dk, dv)}
    if rule == "gated_delta":
        inputs.update(decay=(2, 5, hkv), beta=(2, 5, hkv))
    check_output_shapes("LinearAttention", 27, inputs, {"q_num_heads": hq, "kv_num_heads": hkv, "update_rule": rule},
                        out("output", "present_state"))


@pytest.mark.parametrize("opset", [23, 24, 25])
@pytest.mark.parametrize("past", [False, True])
@pytest.mark.parametrize("outputs", [("Y",), ("Y", "present_key", "present_value", "qk_matmul_output")])
def test_attention_4d(opset, past, outputs):
    inputs = {"Q": (2, 4, 3, 8), "K": (2, 2, 5, 8), "V": (2, 2, 5, 6), "attn_mask": ""}
    if past:
        inputs.update(past_key=(2, 2, 7, 8), past_value=(2, 2, 7, 6))
    check_output_shapes("Attention", opset, inputs, {}, out(*outputs))


@pytest.mark.parametrize("opset", [23, 24, 25])
@pytest.mark.parametrize("past", [False, True])
@pytest.mark.parametrize("outputs", [("Y",), ("Y", "present_key", "present_value", "qk_matmul_output")])
def test_attention_3d(opset, past, outputs):
    inputs = {"Q": (2, 3, 4 * 8), "K": (2, 5, 2 * 8), "V": (2, 5, 2 * 6), "attn_mask": ""}
    if past:
        inputs.update(past_key=(2, 2, 7, 8), past_value=(2, 2, 7, 6))
    check_output_shapes("Attention", opset, inputs, {"q_num_heads": 4, "kv_num_heads": 2}, out(*outputs))


# ---- Einsum (equations without an ellipsis) -----------------------------------------------------------

@pytest.mark.parametrize("opset", [12, 28])
@pytest.mark.parametrize("equation, shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij, jk -> ki", [(2, 3), (3, 4)]),       # spaces
    ("bij,bjk->bik", [(5, 2, 3), (5, 3, 4)]),
    ("ii->i", [(3, 3)]),
    ("ij->", [(2, 3)]),
    ("i,i", [(4,), (4,)]),                    # implicit output: no index left
    ("ij,jk", [(2, 3), (3, 4)]),              # implicit: ik
    ("ba", [(2, 3)]),                         # implicit: sorted, ab
    ("Ba,aC", [(2, 3), (3, 5)]),              # upper case sorts first
    ("i,j,k->kji", [(2,), (3,), (4,)]),
])
def test_einsum_output_follows_the_equation(opset, equation, shapes):
    check_output_shapes("Einsum", opset, {f"x{k}": s for k, s in enumerate(shapes)}, {"equation": equation},
                        out("Output"))


def test_einsum_with_an_ellipsis_states_nothing():
    """The broadcast of the dimensions an ellipsis stands for is not stated: any declared shape passes."""
    m, _ = build("Einsum", 12, {"a": (2, 3, 4), "b": (2, 4, 5)}, {"equation": "...ij,...jk->...ik"}, {"Output": (F, [9])})
    assert where(m) == []
