"""hlir Resize, RoiAlign, MaxRoiPool, NMS and GridSample against independent implementations.

- Resize: onnx.reference and onnxruntime (ONNX Resize with lower-case attribute values, the output size
  given as sizes so both follow the same scale), the onnx package's node test cases, torch's interpolate;
  where the references disagree with each other or with the document the test proves which one opgen
  follows (spec notes of hlir.Resize).
- RoiAlign: onnx.reference and onnxruntime in avg mode; max mode against bilinear sampling by torch's
  grid_sample (both ONNX references pool the weighted corner values instead: note max_mode).
- MaxRoiPool: onnxruntime (the only implementation of ONNX MaxRoiPool at hand), NHWC via a transpose.
- NMS: onnx.reference, onnxruntime and the node test cases, both box formats.
- GridSample: torch.nn.functional.grid_sample (directly, and on an input padded by numpy's pad in the
  Pad mode of padding_mode), onnxruntime and the node test cases.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import opgen_ops
from kernel_refs import assert_matches, edge_values, kernel, np_dtype, random_array
from opgen.dtypes import ELEM_TYPES
from opgen.runtime.validation import ValidationError
from onnx_refs import node_test_cases, ort_session

FLOATS = ["float16", "float", "double"]


def assert_float32_close(got, want, label=""):
    """float32 results of two implementations that both compute in float32 but sum their taps or
    samples in another order (separable passes against 2-D weights), or onnx.reference's cubic weights,
    which it computes in float32 (its cubic_coeff_a is a np.float32): a few float32 ulps of the largest
    term apart, hence 1e-5 instead of the single-rounding tolerance of opgen.testing."""
    assert got.shape == np.shape(want), label
    np.testing.assert_allclose(got.astype(np.float64), np.asarray(want, np.float64), rtol=1e-5, atol=1e-5,
                               err_msg=label)


def run_onnx(op: str, feeds: list, attrs: dict, out_types: list[int], opset: int, runtime: str):
    """Run one ONNX node; feeds are (name, array) pairs, a name "" an absent optional input."""
    names = [name for name, _ in feeds]
    node = helper.make_node(op, names, [f"out{k}" for k in range(len(out_types))], **attrs)
    inputs = [helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(value.dtype), None)
              for name, value in feeds if name]
    outputs = [helper.make_tensor_value_info(f"out{k}", t, None) for k, t in enumerate(out_types)]
    model = helper.make_model(helper.make_graph([node], "g", inputs, outputs),
                              opset_imports=[helper.make_opsetid("", opset)], ir_version=10)
    values = {name: value for name, value in feeds if name}
    if runtime == "reference":
        return ReferenceEvaluator(model).run(None, values)
    return ort_session(model).run(None, values)


def node_cases(op_type: str):
    for case in node_test_cases():
        graph_node = case.model.graph.node[0]
        if graph_node.op_type != op_type:
            continue
        attrs = {a.name: helper.get_attribute_value(a) for a in graph_node.attribute}
        attrs = {k: v.decode() if isinstance(v, bytes) else v for k, v in attrs.items()}
        for inputs, outputs in case.data_sets:
            feeds = dict(zip([i for i in graph_node.input if i], inputs))  # absent optionals have no data
            yield case.name, attrs, list(graph_node.input), feeds, outputs


# ---- Resize -------------------------------------------------------------------------------------

RESIZE_MODES = ["NEAREST", "LINEAR", "CUBIC"]
NEAREST_MODES = ["ROUND_PREFER_FLOOR", "ROUND_PREFER_CEIL", "FLOOR", "CEIL"]
CTMS = ["HALF_PIXEL", "ASYMMETRIC", "PYTORCH_HALF_PIXEL", "TF_HALF_PIXEL_FOR_NN", "ALIGN_CORNERS",
        "TF_CROP_AND_RESIZE"]


def onnx_resize(x, attrs, runtime, roi=None, scales=None, sizes=None, opset=19):
    onnx_attrs = {k: (v.lower() if isinstance(v, str) else int(v) if isinstance(v, bool) else v)
                  for k, v in attrs.items()}
    feeds = [("X", x), ("roi" if roi is not None else "", roi), ("scales" if scales is not None else "", scales),
             ("sizes" if sizes is not None else "", sizes)]
    while not feeds[-1][0]:
        feeds.pop()
    elem = helper.np_dtype_to_tensor_dtype(x.dtype)
    return run_onnx("Resize", feeds, onnx_attrs, [elem], opset, runtime)[0]


def random_resize_attrs(rng) -> dict:
    mode = str(rng.choice(RESIZE_MODES))
    attrs = {"mode": mode, "coordinate_transformation_mode": str(rng.choice(CTMS[:5]))}
    if mode == "NEAREST":
        attrs["nearest_mode"] = str(rng.choice(NEAREST_MODES))
    if mode == "CUBIC":
        attrs["exclude_outside"] = bool(rng.integers(2))
        attrs["cubic_coeff_a"] = float(rng.choice([-0.75, -0.5, -0.625]))  # exact in float32, as ONNX stores it
    return attrs


def test_resize_against_onnx_reference_all_modes():
    """Every mode, nearest mode, cubic coefficient and exclude_outside, ranks 1-4, sizes given."""
    rng = np.random.default_rng(1)
    resize = kernel("Resize")
    for case in range(60):
        attrs = random_resize_attrs(rng)
        if attrs["coordinate_transformation_mode"] == "TF_HALF_PIXEL_FOR_NN":
            attrs["coordinate_transformation_mode"] = "HALF_PIXEL"  # not in onnx.reference (opset >= 13)
        if attrs["coordinate_transformation_mode"] == "PYTORCH_HALF_PIXEL" and attrs["mode"] != "NEAREST":
            attrs["coordinate_transformation_mode"] = "ASYMMETRIC"  # length 1 differs: tested below
        rank = int(rng.integers(1, 5))
        shape = tuple(int(n) for n in rng.integers(1, 6, rank))
        sizes = rng.integers(1, 9, rank).astype(np.int64)
        dtype = str(rng.choice(["float", "double"]))
        x = random_array(rng, shape, dtype)
        (got,) = resize(x, None, None, sizes, **attrs)
        want = onnx_resize(x, attrs, "reference", sizes=sizes)
        label = f"case {case} {attrs} {shape}->{sizes.tolist()}"
        assert_float32_close(got, want, label) if attrs["mode"] == "CUBIC" else assert_matches(got, want, dtype, label)


def test_resize_against_onnxruntime_all_modes():
    """onnxruntime resizes 2-D tensors in every mode (LINEAR/CUBIC only up to a few dimensions)."""
    rng = np.random.default_rng(2)
    resize = kernel("Resize")
    for case in range(50):
        attrs = random_resize_attrs(rng)
        if rng.random() < 0.2:
            attrs["coordinate_transformation_mode"] = "TF_HALF_PIXEL_FOR_NN"
        shape = tuple(int(n) for n in rng.integers(1, 6, 2))
        sizes = rng.integers(1, 9, 2).astype(np.int64)
        if attrs["coordinate_transformation_mode"] == "TF_HALF_PIXEL_FOR_NN":
            sizes = np.array([n + 1 for n in shape], np.int64)  # see test_resize_unchanged_axis_is_resampled
        x = random_array(rng, shape, "float")
        (got,) = resize(x, None, None, sizes, **attrs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = onnx_resize(x, attrs, "onnxruntime", sizes=sizes)
        assert_float32_close(got, want, f"case {case} {attrs} {shape}->{sizes.tolist()}")


def test_resize_against_torch_interpolate():
    """torch: bilinear/bicubic (a = -0.75) with align_corners False (HALF_PIXEL) or True (ALIGN_CORNERS);
    'nearest' is ASYMMETRIC + FLOOR; 'nearest-exact' is HALF_PIXEL + ROUND_PREFER_CEIL."""
    rng = np.random.default_rng(3)
    resize = kernel("Resize")
    f = torch.nn.functional
    for case in range(24):
        x = random_array(rng, (1, 2) + tuple(int(n) for n in rng.integers(2, 7, 2)), "double")
        size = tuple(int(n) for n in rng.integers(2, 11, 2))
        sizes = np.array((1, 2) + size, np.int64)
        t = torch.from_numpy(x)
        for torch_mode, align, attrs in [
            ("bilinear", False, {"mode": "LINEAR"}),
            ("bilinear", True, {"mode": "LINEAR", "coordinate_transformation_mode": "ALIGN_CORNERS"}),
            ("bicubic", False, {"mode": "CUBIC", "coordinate_transformation_mode": "HALF_PIXEL"}),
            ("bicubic", True, {"mode": "CUBIC", "coordinate_transformation_mode": "ALIGN_CORNERS"}),
            ("nearest", None, {"mode": "NEAREST", "coordinate_transformation_mode": "ASYMMETRIC",
                               "nearest_mode": "FLOOR"}),
            ("nearest-exact", None, {"mode": "NEAREST", "nearest_mode": "ROUND_PREFER_CEIL"}),
        ]:
            want = f.interpolate(t, size=size, mode=torch_mode, align_corners=align).numpy()
            (got,) = resize(x, None, None, sizes, **attrs)
            assert_matches(got, want, "double", f"case {case} {torch_mode} align={align}")


def test_resize_tf_crop_and_resize_roi_and_extrapolation():
    rng = np.random.default_rng(4)
    resize = kernel("Resize")
    for case in range(20):
        shape = tuple(int(n) for n in rng.integers(1, 6, 2))
        mode = RESIZE_MODES[case % 3]
        attrs = {"mode": mode, "coordinate_transformation_mode": "TF_CROP_AND_RESIZE",
                 "extrapolation_value": float(rng.uniform(-9, 9))}
        start = rng.uniform(-0.4, 0.6, 2)
        roi = np.concatenate([start, start + rng.uniform(0.1, 1.0, 2)]).astype(np.float32)
        sizes = rng.integers(1, 8, 2).astype(np.int64)
        x = random_array(rng, shape, "float")
        (got,) = resize(x, roi, None, sizes, **attrs)
        # onnxruntime places some crop samples differently (note onnxruntime_differences): onnx.reference
        assert_float32_close(got, onnx_resize(x, attrs, "reference", roi=roi, sizes=sizes), f"case {case} {attrs}")
        # scales: the output length is floor(length * (roi_end - roi_start) * scale) (note output_length)
        scales = rng.uniform(0.5, 3, 2).astype(np.float32)
        (got,) = resize(x, roi, scales, None, **attrs)
        lengths = np.floor(np.array(shape) * (roi[2:].astype(np.float64) - roi[:2]) * scales).astype(np.int64)
        assert got.shape == tuple(lengths)
        if lengths.min() > 0:
            want = onnx_resize(x, attrs, "reference", roi=roi, sizes=lengths)
            assert_float32_close(got, want, f"case {case} scales")


def test_resize_scales_use_length_ratio():
    """The document's scale is length_resized / length_original (note scale_in_formulas): with scales
    whose products are whole the references agree; otherwise opgen matches them given the sizes and
    differs from them given the scales."""
    resize = kernel("Resize")
    x = np.arange(25, dtype=np.float32).reshape(5, 5) ** 1.5
    whole = np.array([2.0, 0.6], np.float32)  # 5 -> 10 and 5 -> 3
    for attrs in ({"mode": "LINEAR"}, {"mode": "CUBIC"}, {"mode": "NEAREST"}):
        (got,) = resize(x, None, whole, None, **attrs)
        for runtime in ("reference", "onnxruntime"):
            assert_matches(got, onnx_resize(x, attrs, runtime, scales=whole), "float", f"{attrs} {runtime}")
    fractional = np.array([1.5, 0.5], np.float32)  # 5 -> floor(7.5) = 7 and 5 -> floor(2.5) = 2
    (got,) = resize(x, None, fractional, None, mode="LINEAR")
    assert got.shape == (7, 2)
    for runtime in ("reference", "onnxruntime"):
        with_sizes = onnx_resize(x, {"mode": "LINEAR"}, runtime, sizes=np.array([7, 2], np.int64))
        with_scales = onnx_resize(x, {"mode": "LINEAR"}, runtime, scales=fractional)
        assert_matches(got, with_sizes, "float", runtime)
        assert not np.allclose(got, with_scales), runtime


def test_resize_pytorch_half_pixel_single_output_maps_to_zero():
    """PYTORCH_HALF_PIXEL with one output position samples x_original = 0 as the document says, like
    onnxruntime; onnx.reference samples -0.5 (note pytorch_half_pixel_length_one)."""
    resize = kernel("Resize")
    x = np.array([[1.0, 3.0, 4.0, 8.0], [2.0, -1.0, 0.5, 6.0], [0.0, 1.0, 9.0, 2.0]], np.float32)
    attrs = {"mode": "CUBIC", "coordinate_transformation_mode": "PYTORCH_HALF_PIXEL"}
    sizes = np.array([1, 4], np.int64)
    (got,) = resize(x, None, None, sizes, **attrs)
    assert_matches(got, onnx_resize(x, attrs, "onnxruntime", sizes=sizes), "float")
    assert not np.allclose(got, onnx_resize(x, attrs, "reference", sizes=sizes))
    cubic_at_zero = (x[0] * 1.0 + x[1] * 0.0)[None]  # cubic weights at a whole position: 0, 1, 0, 0
    assert_matches(got, cubic_at_zero, "float")


def test_resize_unchanged_axis_is_resampled():
    """TF_HALF_PIXEL_FOR_NN shifts every axis by half a pixel, also one whose length does not change;
    onnxruntime copies such an axis unchanged (note unchanged_axes)."""
    resize = kernel("Resize")
    x = np.array([[1.0, 2.0, 4.0], [8.0, 16.0, 32.0]], np.float32)
    attrs = {"mode": "NEAREST", "coordinate_transformation_mode": "TF_HALF_PIXEL_FOR_NN",
             "nearest_mode": "ROUND_PREFER_CEIL"}
    (got,) = resize(x, None, None, np.array([2, 3], np.int64), **attrs)
    # x_original = x_resized + 0.5, rounded half up and clamped: positions 1, 2, 2 on both axes
    np.testing.assert_array_equal(got, x[[1, 1]][:, [1, 2, 2]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(onnx_resize(x, attrs, "onnxruntime", sizes=np.array([2, 3], np.int64)), x)


def test_resize_every_dtype():
    """Floats against onnx.reference (float16/bfloat16 computed in float32); integers round half to even
    and saturate (as onnx.reference does); bool likewise in [0, 1]; complex interpolates the real and
    imaginary parts; NEAREST copies values exactly (int64 beyond 2**53, NaN, infinities)."""
    rng = np.random.default_rng(5)
    resize = kernel("Resize")
    for dtype in opgen_ops.get_validator("hlir", "Resize", 1).__globals__["SIGNATURE_V1"].type_constraints["T1"]:
        for case in range(4):
            attrs = {"mode": RESIZE_MODES[case % 3], "coordinate_transformation_mode": CTMS[case % 3 + (case > 2)],
                     "exclude_outside": case == 2}
            x = random_array(rng, (3, 4), dtype, -100, 100)
            sizes = np.array([5, 3], np.int64)
            (got,) = resize(x, None, None, sizes, **attrs)
            assert got.dtype == x.dtype and got.shape == (5, 3), dtype
            kind = ELEM_TYPES[dtype].kind
            label = f"{dtype} {attrs}"
            if kind == "complex":
                re = onnx_resize(x.real.astype(np.float64), attrs, "reference", sizes=sizes)
                im = onnx_resize(x.imag.astype(np.float64), attrs, "reference", sizes=sizes)
                assert_float32_close(got.real, re, label)
                assert_float32_close(got.imag, im, label)
            elif kind == "bool":
                want = onnx_resize(x.astype(np.float64), attrs, "reference", sizes=sizes)
                np.testing.assert_array_equal(got, np.clip(np.rint(want), 0, 1) != 0, err_msg=label)
            elif kind in ("int", "uint"):
                ref_input = x.astype(np.int32) if dtype in ("uint64", "uint32") else x
                want = onnx_resize(ref_input, attrs, "reference", sizes=sizes)
                np.testing.assert_array_equal(got, want.astype(got.dtype), err_msg=label)
            else:
                want = onnx_resize(x.astype(np.float32 if dtype != "double" else np.float64), attrs, "reference",
                                   sizes=sizes)
                if dtype in ("float", "double"):
                    assert_float32_close(got, want, label)
                else:
                    assert_matches(got, want.astype(got.dtype), dtype, label)
    # saturation: cubic overshoot in int8 and uint8
    x = np.array([[-128, 127, -128, 127]], np.int8)
    (got,) = resize(x, None, None, np.array([1, 9], np.int64), mode="CUBIC")
    want = onnx_resize(x.astype(np.float64), {"mode": "CUBIC"}, "reference", sizes=np.array([1, 9], np.int64))
    np.testing.assert_array_equal(got, np.clip(np.rint(want), -128, 127).astype(np.int8))
    assert got.min() == -128 and got.max() == 127
    # NEAREST is a copy: exact for int64 beyond 2**53 and for every float edge value
    big = np.array([2 ** 62 + 1, -(2 ** 62) - 3, 2 ** 53 + 1], np.int64)
    (got,) = resize(big, None, None, np.array([6], np.int64), mode="NEAREST")
    np.testing.assert_array_equal(got, big[[0, 0, 1, 1, 2, 2]])
    for dtype in ("float16", "bfloat16", "float", "double"):
        edges = edge_values(dtype)
        (got,) = resize(edges, None, None, np.array([2 * edges.size], np.int64), mode="NEAREST",
                        nearest_mode="FLOOR", coordinate_transformation_mode="ASYMMETRIC")
        want = np.repeat(edges, 2)
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8), err_msg=dtype)


def test_resize_empty_and_rank0_and_errors():
    resize = kernel("Resize")
    x = np.zeros((0, 3), np.float32)
    (got,) = resize(x, None, None, np.array([0, 6], np.int64), mode="LINEAR")
    assert got.shape == (0, 6)
    (got,) = resize(np.ones((2, 3), np.float32), None, np.array([1.0, 0.2], np.float32), None)
    assert got.shape == (2, 0)
    (got,) = resize(np.array(2.5, np.float32), None, np.zeros(0, np.float32), None, mode="CUBIC")
    assert got.shape == () and got == np.float32(2.5)
    with pytest.raises(ValueError):
        resize(x, None, None, np.array([2, 6], np.int64))  # nothing to resize an empty axis from
    with pytest.raises(ValueError):
        resize(np.ones((2,), np.float32), None, np.array([-1.0], np.float32), None)
    with pytest.raises(ValidationError):  # C1: both scales and sizes
        resize(np.ones((2,), np.float32), None, np.array([2.0], np.float32), np.array([4], np.int64))


def _map_resize_case(attrs: dict) -> dict | None:
    """An ONNX Resize node test case in this op set's attributes, or None when it uses what the op set
    does not have (antialias, axes, keep_aspect_ratio_policy, half_pixel_symmetric)."""
    if {"antialias", "axes", "keep_aspect_ratio_policy"} & set(attrs):
        return None
    if attrs.get("coordinate_transformation_mode") == "half_pixel_symmetric":
        return None
    out = {}
    for name, value in attrs.items():
        out[name] = value.upper() if isinstance(value, str) else bool(value) if name == "exclude_outside" else value
    return out


def test_resize_onnx_node_test_cases():
    resize = kernel("Resize")
    checked = 0
    for name, attrs, names, feeds, outputs in node_cases("Resize"):
        mapped = _map_resize_case(attrs)
        if mapped is None:
            continue
        x = feeds[names[0]]
        roi, scales, sizes = (feeds.get(n) if n else None for n in (names + ["", "", ""])[1:4])
        if roi is not None and roi.size == 0:
            roi = None
        if scales is not None and scales.size == 0:
            scales = None
        (got,) = resize(x, roi, scales, sizes, **mapped)
        want = outputs[0]
        lengths = None if scales is None else np.array(x.shape) * scales.astype(np.float64)
        crop = mapped.get("coordinate_transformation_mode") == "TF_CROP_AND_RESIZE"
        if lengths is not None and (crop or not np.allclose(lengths, np.round(lengths))):
            # the case's scales are not length ratios: opgen uses the ratio (note scale_in_formulas),
            # which is what onnx.reference computes when given the sizes instead
            want = onnx_resize(x, {k: v for k, v in mapped.items()}, "reference", roi=roi,
                               sizes=np.array(got.shape, np.int64))
        if mapped.get("coordinate_transformation_mode") == "PYTORCH_HALF_PIXEL" and 1 in got.shape:
            want = onnx_resize(x, mapped, "onnxruntime", sizes=np.array(got.shape, np.int64))
        assert_float32_close(got, want, name)
        checked += 1
    assert checked >= 20


# ---- RoiAlign -----------------------------------------------------------------------------------


def random_rois(rng, count, height, width):
    """Boxes [x1, y1, x2, y2] in input pixels, some partly or wholly outside, some degenerate."""
    x1 = rng.uniform(-3, width + 1, count)
    y1 = rng.uniform(-3, height + 1, count)
    boxes = np.stack([x1, y1, x1 + rng.uniform(0, width, count), y1 + rng.uniform(0, height, count)], 1)
    boxes[::7, 2] = boxes[::7, 0]  # zero width
    return boxes


def onnx_roi_align(x, rois, batch, attrs, runtime):
    onnx_attrs = {"mode": attrs["mode"].split("_")[1].lower(),
                  "coordinate_transformation_mode": {"ROIALIGN_HALF_PIXEL": "half_pixel",
                                                     "ROIALIGN_OUTPUT_HALF_PIXEL": "output_half_pixel"}[
                      attrs["coordinate_transformation_mode"]],
                  **{k: attrs[k] for k in ("output_height", "output_width", "sampling_ratio", "spatial_scale")}}
    elem = helper.np_dtype_to_tensor_dtype(x.dtype)
    return run_onnx("RoiAlign", [("X", x), ("rois", rois), ("batch_indices", batch)], onnx_attrs, [elem], 16,
                    runtime)[0]


def random_roi_align_case(rng, mode):
    n, c, h, w = 2, int(rng.integers(1, 4)), int(rng.integers(3, 12)), int(rng.integers(3, 12))
    scale = float(rng.choice([1.0, 0.5, 0.25]))
    rois = (random_rois(rng, int(rng.integers(1, 8)), h, w) / scale)
    attrs = {"mode": mode, "coordinate_transformation_mode": str(rng.choice(["ROIALIGN_HALF_PIXEL",
                                                                             "ROIALIGN_OUTPUT_HALF_PIXEL"])),
             "output_height": int(rng.integers(1, 5)), "output_width": int(rng.integers(1, 5)),
             "sampling_ratio": int(rng.integers(0, 4)), "spatial_scale": scale}
    batch = rng.integers(0, n, rois.shape[0]).astype(np.int64)
    return (n, c, h, w), rois, batch, attrs


def test_roi_align_avg_against_onnx():
    rng = np.random.default_rng(10)
    roi_align = kernel("RoiAlign")
    for case in range(30):
        shape, rois, batch, attrs = random_roi_align_case(rng, "ROIALIGN_AVG")
        dtype = "float" if case % 3 else "double"
        x = random_array(rng, shape, dtype)
        r = rois.astype(np_dtype(dtype))
        (got,) = roi_align(x, r, batch, **attrs)
        for runtime in ("reference", "onnxruntime"):
            want = onnx_roi_align(x, r, batch, attrs, runtime)
            label = f"case {case} {runtime} {attrs}"
            assert_float32_close(got, want, label) if dtype == "float" else assert_matches(got, want, dtype, label)


def bilinear_samples_torch(image: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """RoiAlign's bilinear value at points (ys, xs) of one image (C, H, W): torch grid_sample with border
    padding on coordinates clamped to the image, 0 beyond one pixel outside it."""
    c, h, w = image.shape
    yy, xx = np.meshgrid(ys, xs, indexing="ij")
    gy = 2 * np.clip(yy, 0, h - 1) / max(h - 1, 1) - 1
    gx = 2 * np.clip(xx, 0, w - 1) / max(w - 1, 1) - 1
    grid = torch.from_numpy(np.stack([gx, gy], -1)[None])
    values = torch.nn.functional.grid_sample(torch.from_numpy(image[None]), grid, mode="bilinear",
                                             padding_mode="border", align_corners=True)[0].numpy()
    outside = (yy < -1) | (yy > h) | (xx < -1) | (xx > w)
    return np.where(outside, 0.0, values)


def roi_align_max_reference(x, rois, batch, attrs):
    oh, ow, ratio = attrs["output_height"], attrs["output_width"], attrs["sampling_ratio"]
    offset = 0.5 if attrs["coordinate_transformation_mode"] == "ROIALIGN_HALF_PIXEL" else 0.0
    out = np.zeros((len(rois), x.shape[1], oh, ow))
    for r, (roi, b) in enumerate(zip(rois.astype(np.float64), batch)):
        x1, y1, x2, y2 = roi * attrs["spatial_scale"] - offset
        rw, rh = (x2 - x1, y2 - y1) if offset else (max(x2 - x1, 1.0), max(y2 - y1, 1.0))
        gh = ratio or int(np.ceil(rh / oh))
        gw = ratio or int(np.ceil(rw / ow))
        if gh * gw == 0:
            continue
        for i in range(oh):
            for j in range(ow):
                ys = y1 + i * rh / oh + (np.arange(gh) + 0.5) * rh / oh / gh
                xs = x1 + j * rw / ow + (np.arange(gw) + 0.5) * rw / ow / gw
                out[r, :, i, j] = bilinear_samples_torch(x[b].astype(np.float64), ys, xs).max(axis=(1, 2))
    return out


def test_roi_align_max_pools_interpolated_samples():
    """ROIALIGN_MAX is the maximum of the bilinearly interpolated sample values (note max_mode);
    onnx.reference and onnxruntime take the maximum of the four weighted corner terms instead."""
    rng = np.random.default_rng(11)
    roi_align = kernel("RoiAlign")
    differs = 0
    for case in range(20):
        shape, rois, batch, attrs = random_roi_align_case(rng, "ROIALIGN_MAX")
        x = random_array(rng, shape, "double")
        (got,) = roi_align(x, rois, batch, **attrs)
        assert_matches(got, roi_align_max_reference(x, rois, batch, attrs), "double", f"case {case} {attrs}")
        ort = onnx_roi_align(x, rois, batch, attrs, "onnxruntime")
        ref = onnx_roi_align(x, rois, batch, attrs, "reference")
        assert_matches(ref, ort, "double", "the two ONNX references agree with each other")
        differs += not np.allclose(got, ort)
    assert differs >= 15


def test_roi_align_dtypes_empty_and_errors():
    rng = np.random.default_rng(12)
    roi_align = kernel("RoiAlign")
    attrs = {"coordinate_transformation_mode": "ROIALIGN_HALF_PIXEL", "output_height": 2, "output_width": 3}
    x64 = random_array(rng, (1, 2, 6, 5), "double")
    rois = random_rois(rng, 5, 6, 5)
    batch = np.zeros(5, np.int64)
    (want,) = roi_align(x64, rois, batch, **attrs)
    for dtype in FLOATS:
        x = x64.astype(np_dtype(dtype))
        (got,) = roi_align(x, rois.astype(np_dtype(dtype)), batch, **attrs)
        assert got.dtype == x.dtype
        (wide,) = roi_align(x.astype(np.float64), rois.astype(np_dtype(dtype)).astype(np.float64), batch, **attrs)
        assert_matches(got, wide.astype(x.dtype), dtype, dtype)
    (got,) = roi_align(x64, np.zeros((0, 4)), np.zeros(0, np.int64), **attrs)
    assert got.shape == (0, 2, 2, 3)
    with pytest.raises(ValueError):
        roi_align(x64, rois, np.full(5, 1, np.int64), **attrs)
    for name, attrs_, names, feeds, outputs in node_cases("RoiAlign"):
        mapped = {"mode": "ROIALIGN_" + attrs_.get("mode", "avg").upper(),
                  "coordinate_transformation_mode": {"half_pixel": "ROIALIGN_HALF_PIXEL",
                                                     "output_half_pixel": "ROIALIGN_OUTPUT_HALF_PIXEL"}[
                      attrs_.get("coordinate_transformation_mode", "half_pixel")],
                  **{k: attrs_[k] for k in ("output_height", "output_width", "sampling_ratio", "spatial_scale")
                     if k in attrs_}}
        inputs = [feeds[n] for n in names]
        (got,) = roi_align(*inputs, **mapped)
        if mapped["mode"] == "ROIALIGN_MAX":  # the case expects the weighted-corner maximum (note max_mode)
            assert not np.allclose(got, outputs[0], atol=1e-3), name
            np.testing.assert_allclose(got, roi_align_max_reference(*inputs, {"sampling_ratio": 0, "spatial_scale": 1.0,
                                                                              **mapped}), rtol=1e-5, atol=1e-5)
        else:
            np.testing.assert_allclose(got, outputs[0], rtol=0, atol=1e-4, err_msg=name)  # given to 4 decimals


# ---- MaxRoiPool ---------------------------------------------------------------------------------


def test_max_roi_pool_against_onnxruntime_both_layouts():
    rng = np.random.default_rng(20)
    pool = kernel("MaxRoiPool")
    for case in range(25):
        n, c, h, w = 2, int(rng.integers(1, 4)), int(rng.integers(2, 10)), int(rng.integers(2, 10))
        scale = float(rng.choice([1.0, 0.5, 0.25]))
        boxes = random_rois(rng, int(rng.integers(1, 6)), h, w) / scale
        rois = np.concatenate([rng.integers(0, n, (len(boxes), 1)), boxes], 1).astype(np.float32)
        pooled = [int(v) for v in rng.integers(1, 5, 2)]
        x = random_array(rng, (n, c, h, w), "float")
        want = run_onnx("MaxRoiPool", [("X", x), ("rois", rois)], {"pooled_shape": pooled, "spatial_scale": scale},
                        [TensorProto.FLOAT], 1, "onnxruntime")[0]
        (got,) = pool(x, rois, layout="NCHW", pooled_shape=pooled, spatial_scale=scale)
        assert_matches(got, want, "float", f"case {case}")
        (got,) = pool(np.ascontiguousarray(x.transpose(0, 2, 3, 1)), rois, layout="NHWC", pooled_shape=pooled,
                      spatial_scale=scale)
        assert_matches(got, want, "float", f"case {case} NHWC")


def test_max_roi_pool_dtypes_empty_and_errors():
    rng = np.random.default_rng(21)
    pool = kernel("MaxRoiPool")
    x = random_array(rng, (1, 2, 5, 5), "double")
    rois = np.array([[0, 0, 0, 4, 4], [0, 1.4, 2.5, 3.5, 4], [0, 9, 9, 12, 12]])
    (want,) = pool(x, rois, layout="NCHW", pooled_shape=[2, 2], spatial_scale=1.0)
    np.testing.assert_array_equal(want[2], 0.0)  # wholly outside: every bin is empty
    # round half away from zero (C's round, as onnxruntime): 2.5 -> 3, so the second box is rows 3..4
    assert want[1, 0, 0, 0] == x[0, 0, 3, 1:3].max()
    for dtype in FLOATS:
        (got,) = pool(x.astype(np_dtype(dtype)), rois.astype(np_dtype(dtype)), layout="NCHW", pooled_shape=[2, 2],
                      spatial_scale=1.0)
        assert got.dtype == np_dtype(dtype)
        np.testing.assert_array_equal(got, want.astype(np_dtype(dtype)))  # a maximum is exact
    (got,) = pool(x, np.zeros((0, 5)), layout="NHWC", pooled_shape=[3, 1], spatial_scale=1.0)
    assert got.shape == (0, 5, 3, 1)
    with pytest.raises(ValueError):
        pool(x, np.array([[1, 0, 0, 1, 1]], np.float64), layout="NCHW", pooled_shape=[1, 1], spatial_scale=1.0)


# ---- NMS ----------------------------------------------------------------------------------------


def onnx_nms(boxes, scores, attrs, runtime):
    feeds = [("boxes", boxes), ("scores", scores),
             ("max", np.array([attrs["max_output_boxes_per_class"]], np.int64)),
             ("iou", np.array([attrs["iou_threshold"]], np.float32)),
             ("score", np.array([attrs["score_threshold"]], np.float32))]
    return run_onnx("NonMaxSuppression", feeds, {"center_point_box": attrs["center_point_box"]},
                    [TensorProto.INT64], 11, runtime)[0]


def random_boxes(rng, batches, count, center):
    xy = rng.uniform(0, 10, (batches, count, 2))
    wh = rng.uniform(0.5, 4, (batches, count, 2))
    if center:
        return np.concatenate([xy, wh], -1).astype(np.float32)
    corners = np.concatenate([xy, xy + wh], -1)
    flip = rng.random((batches, count)) < 0.3  # diagonal corners given the other way round
    corners[flip] = corners[flip][:, [2, 3, 0, 1]]
    return corners.astype(np.float32)


def test_nms_against_onnx_both_box_formats():
    rng = np.random.default_rng(30)
    nms = kernel("NMS")
    for case in range(30):
        batches, classes, count = int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(0, 40))
        center = case % 2
        boxes = random_boxes(rng, batches, count, center)
        scores = np.round(rng.random((batches, classes, count)), 2).astype(np.float32)  # ties included
        attrs = {"max_output_boxes_per_class": int(rng.integers(0, 12)),
                 "iou_threshold": float(rng.choice([0.0, 0.3, 0.5, 0.9])),
                 "score_threshold": float(np.float32(rng.uniform(0, 0.5)) + np.float32(0.001)),  # no exact ties
                 "center_point_box": center}
        (got,) = nms(boxes, scores, **attrs)
        for runtime in ("reference", "onnxruntime"):
            np.testing.assert_array_equal(got, onnx_nms(boxes, scores, attrs, runtime),
                                          err_msg=f"case {case} {runtime} {attrs}")


def test_nms_keeps_scores_equal_to_threshold():
    """Boxes whose score is less than score_threshold are removed (the document): a score equal to it
    is kept (note score_threshold_inclusive); onnx.reference and onnxruntime keep only greater ones."""
    nms = kernel("NMS")
    boxes = np.array([[[0, 0, 1, 1], [2, 2, 3, 3], [4, 4, 5, 5]]], np.float32)
    scores = np.array([[[0.5, 0.25, 0.75]]], np.float32)
    attrs = {"max_output_boxes_per_class": 5, "iou_threshold": 0.5, "score_threshold": 0.5, "center_point_box": 0}
    (got,) = nms(boxes, scores, **attrs)
    np.testing.assert_array_equal(got, [[0, 0, 2], [0, 0, 0]])
    for runtime in ("reference", "onnxruntime"):
        np.testing.assert_array_equal(onnx_nms(boxes, scores, attrs, runtime), [[0, 0, 2]])


def test_nms_node_cases_empty_and_nan():
    nms = kernel("NMS")
    checked = 0
    for name, attrs, names, feeds, outputs in node_cases("NonMaxSuppression"):
        values = [feeds.get(n) if n else None for n in names + [""] * 5]
        boxes, scores, max_boxes, iou, score = values[:5]
        if score is None:
            continue  # score_threshold is a required attribute here; without it ONNX filters nothing
        mapped = {"max_output_boxes_per_class": int(max_boxes[0]) if max_boxes is not None else 0,
                  "iou_threshold": float(iou[0]) if iou is not None else 0.0, "score_threshold": float(score[0]),
                  "center_point_box": attrs.get("center_point_box", 0)}
        (got,) = nms(boxes, scores, **mapped)
        np.testing.assert_array_equal(got, outputs[0], err_msg=name)
        checked += 1
    assert checked >= 5
    (got,) = nms(np.zeros((2, 0, 4), np.float32), np.zeros((2, 3, 0), np.float32), max_output_boxes_per_class=3,
                 score_threshold=0.0)
    assert got.shape == (0, 3) and got.dtype == np.int64
    boxes = np.array([[[0, 0, 1, 1], [0, 0, 1, 1]]], np.float32)
    (got,) = nms(boxes, np.array([[[np.nan, 0.5]]], np.float32), max_output_boxes_per_class=3, score_threshold=0.0)
    np.testing.assert_array_equal(got, [[0, 0, 1]])  # a NaN score is never selected
    (got,) = nms(boxes, np.array([[[0.9, 0.5]]], np.float32), score_threshold=0.0)
    assert got.shape == (0, 3)  # max_output_boxes_per_class defaults to 0: no output


# ---- GridSample ---------------------------------------------------------------------------------

PAD_MODES = ["PAD_VALUE", "PAD_EDGE", "PAD_REFLECT", "PAD_SYMMETRIC"]
NUMPY_PAD = {"PAD_VALUE": "constant", "PAD_EDGE": "edge", "PAD_REFLECT": "reflect", "PAD_SYMMETRIC": "symmetric"}


def torch_grid_sample(x, grid, mode, align_corners, padding):
    return torch.nn.functional.grid_sample(torch.from_numpy(x), torch.from_numpy(grid), mode=mode,
                                           padding_mode=padding, align_corners=align_corners).numpy()


def padded_reference(x: np.ndarray, grid: np.ndarray, mode: int, align_corners: bool, padding_mode: str):
    """Pad the input with numpy's pad in the Pad mode, then sample inside it with torch (float64)."""
    _, _, h, w = x.shape
    p = 2 * max(h, w) + 4
    padded = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (p, p), (p, p)), mode=NUMPY_PAD[padding_mode])
    g = grid.astype(np.float64)
    if align_corners:
        px, py = (g[..., 0] + 1) / 2 * (w - 1), (g[..., 1] + 1) / 2 * (h - 1)
    else:
        px, py = ((g[..., 0] + 1) * w - 1) / 2, ((g[..., 1] + 1) * h - 1) / 2
    moved = np.stack([2 * (px + p) / (w + 2 * p - 1) - 1, 2 * (py + p) / (h + 2 * p - 1) - 1], -1)
    return torch_grid_sample(padded, moved, ["nearest", "bilinear"][mode], True, "zeros")


def test_grid_sample_against_torch():
    """Against torch directly where its padding is a Pad mode (zeros = PAD_VALUE, border = PAD_EDGE,
    reflection = PAD_REFLECT with align_corners and PAD_SYMMETRIC without), and for every combination
    against torch on an input padded by numpy in the Pad mode (note padding_as_pad)."""
    rng = np.random.default_rng(40)
    grid_sample = kernel("GridSample")
    direct = {("PAD_VALUE", False): "zeros", ("PAD_VALUE", True): "zeros", ("PAD_EDGE", False): "border",
              ("PAD_EDGE", True): "border", ("PAD_REFLECT", True): "reflection",
              ("PAD_SYMMETRIC", False): "reflection"}
    for case in range(48):
        mode, align, padding = case % 2, bool(case // 2 % 2), PAD_MODES[case // 4 % 4]
        n, c = int(rng.integers(1, 3)), int(rng.integers(1, 3))
        h, w = int(rng.integers(1, 7)), int(rng.integers(1, 7))
        x = random_array(rng, (n, c, h, w), "double")
        grid = rng.uniform(-2.5, 2.5, (n, int(rng.integers(1, 5)), int(rng.integers(1, 5)), 2)).astype(np.float32)
        (got,) = grid_sample(x, grid, mode=mode, align_corners=align, padding_mode=padding)
        label = f"case {case} mode={mode} align={align} {padding} {x.shape}"
        assert_matches(got, padded_reference(x, grid, mode, align, padding), "double", label)
        if (padding, align) in direct:
            want = torch_grid_sample(x, grid.astype(np.float64), ["nearest", "bilinear"][mode], align,
                                     direct[(padding, align)])
            assert_matches(got, want, "double", label + " direct")


def test_grid_sample_against_onnx():
    rng = np.random.default_rng(41)
    grid_sample = kernel("GridSample")
    onnx_padding = {"PAD_VALUE": "zeros", "PAD_EDGE": "border"}
    for case in range(16):
        mode, align = case % 2, bool(case // 2 % 2)
        padding = ["PAD_VALUE", "PAD_EDGE", "PAD_REFLECT" if align else "PAD_SYMMETRIC"][case % 3]
        x = random_array(rng, (1, 2, 5, 4), "float")
        grid = rng.uniform(-1.5, 1.5, (1, 3, 6, 2)).astype(np.float32)
        (got,) = grid_sample(x, grid, mode=mode, align_corners=align, padding_mode=padding)
        attrs = {"mode": ["nearest", "bilinear"][mode], "align_corners": int(align),
                 "padding_mode": onnx_padding.get(padding, "reflection")}
        want = run_onnx("GridSample", [("X", x), ("grid", grid)], attrs, [TensorProto.FLOAT], 16, "onnxruntime")[0]
        assert_matches(got, want, "float", f"case {case} {attrs}")
    checked = 0
    for name, attrs, names, feeds, outputs in node_cases("GridSample"):
        x, grid = feeds[names[0]], feeds[names[1]]
        mode = {"nearest": 0, "bilinear": 1, "linear": 1}.get(attrs.get("mode", "bilinear"))
        if mode is None or x.ndim != 4 or grid.dtype != np.float32:
            continue  # bicubic and 5-D grids are not in this op set
        align = bool(attrs.get("align_corners", 0))
        padding = {"zeros": "PAD_VALUE", "border": "PAD_EDGE",
                   "reflection": "PAD_REFLECT" if align else "PAD_SYMMETRIC"}[attrs.get("padding_mode", "zeros")]
        (got,) = grid_sample(x, grid, mode=mode, align_corners=align, padding_mode=padding)
        assert_matches(got, outputs[0], "float", name)
        checked += 1
    assert checked >= 8


def test_grid_sample_dtypes_and_edges():
    rng = np.random.default_rng(42)
    grid_sample = kernel("GridSample")
    x64 = random_array(rng, (1, 2, 4, 5), "double")
    grid = rng.uniform(-1.2, 1.2, (1, 3, 3, 2)).astype(np.float32)
    (want,) = grid_sample(x64, grid, mode=1, align_corners=False, padding_mode="PAD_REFLECT")
    for dtype in FLOATS:
        x = x64.astype(np_dtype(dtype))
        (got,) = grid_sample(x, grid, mode=1, align_corners=False, padding_mode="PAD_REFLECT")
        (wide,) = grid_sample(x.astype(np.float64), grid, mode=1, align_corners=False, padding_mode="PAD_REFLECT")
        assert got.dtype == x.dtype
        assert_matches(got, wide.astype(x.dtype), dtype, dtype)
    grid = np.array([[[[np.nan, 0.0], [0.0, 0.0]]]], np.float32)
    (got,) = grid_sample(x64, grid, mode=1, align_corners=True, padding_mode="PAD_VALUE")
    assert np.isnan(got[0, :, 0, 0]).all() and not np.isnan(got[0, :, 0, 1]).any()
    (got,) = grid_sample(x64, np.zeros((1, 0, 3, 2), np.float32), mode=0, align_corners=True, padding_mode="PAD_EDGE")
    assert got.shape == (1, 2, 0, 3)
    with pytest.raises(ValueError):
        grid_sample(x64, np.zeros((1, 1, 1, 2), np.float32), mode=2, align_corners=True, padding_mode="PAD_EDGE")
