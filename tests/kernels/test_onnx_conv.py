"""ONNX convolution, pooling, resize and vision kernels against independent implementations.

Every version of every op is called through `opgen_ops.get_kernel("onnx", op, version)` and compared with
onnx.reference (ReferenceEvaluator on a one-node model) and onnxruntime where they implement the version,
on random inputs. Where neither implements a version (Upsample 1, Resize 10's downsampling, MaxRoiPool 22,
GlobalLpPool 1 and 22, AveragePool 1, LpPool 1, the bfloat16 variants) the test compares with a version that
means the same thing, on inputs where ONNX's changelog says they agree. Where a reference disagrees with the
document or with the other reference, the test says which one opgen follows and why:

- ConvTranspose with group > 1: onnx.reference splits W by output channel (wrong), onnxruntime only;
- LpPool with padding: onnx.reference scales the average by the full kernel size (the padding counted as
  |x|^p = 0 only partly), onnxruntime sums over the window: onnxruntime only there;
- MaxPool storage_order 1: both references count batch and channel row-major (checked with N, C > 1);
- MaxUnpool with output_shape: onnxruntime indexes into output_shape, the node test and onnx.reference into
  the unpooled shape placed at the corner: onnx.reference (the node test) is followed;
- Resize: onnx.reference generated the node tests; onnxruntime computes align_corners with the integer output
  length (the node test test_resize_downsample_scales_linear_align_corners fails in it) and antialiasing
  with another filter (PIL's), so it is compared with sizes-based and scale-1 cases only; Resize 10 is
  compared with onnxruntime when enlarging (onnxruntime rounds nearest up when shrinking, ONNX's version
  converter maps Resize 10 to nearest_mode floor, which opgen follows) and with Resize 11 (asymmetric, floor);
- RoiAlign max mode: both references pool the largest weighted corner term (opgen follows them in ONNX);
- GridSample: onnx.reference computes the coordinates in float32, and for border padding clamps the
  coordinate into the image before the cubic taps, where torch.nn.functional.grid_sample and onnxruntime
  clamp each tap: opgen follows these two (torch is the third reference, cubic in 4-D only).
"""
from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest
import torch
from onnx import helper
from onnx.reference import ReferenceEvaluator

import opgen_ops
from onnx_refs import ort_session
from opgen.runtime.kernels.onnx_pool import onnx_max_unpool
from opgen.runtime.validation import ValidationError

F32, F64, F16 = np.float32, np.float64, np.float16
BF16 = ml_dtypes.bfloat16
RNG = np.random.default_rng(20240607)


def ours(op: str, version: int, feeds: list, attrs: dict) -> tuple:
    """The opgen kernel's outputs; feeds are (name, array) pairs, an array None an absent optional input."""
    args = [value for _, value in feeds]
    while args and args[-1] is None:
        args.pop()
    return opgen_ops.get_kernel("onnx", op, version)(*args, **attrs)


def model(op: str, opset: int, feeds: list, attrs: dict, out_dtypes: list):
    names = [name if value is not None else "" for name, value in feeds]
    while names and names[-1] == "":
        names.pop()
    node = helper.make_node(op, names, [f"out{k}" for k in range(len(out_dtypes))], **attrs)
    inputs = [helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(np.asarray(value).dtype), None)
              for name, value in feeds if value is not None]
    outputs = [helper.make_tensor_value_info(f"out{k}", helper.np_dtype_to_tensor_dtype(np.dtype(t)), None)
               for k, t in enumerate(out_dtypes)]
    return helper.make_model(helper.make_graph([node], "g", inputs, outputs),
                             opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def reference(op: str, opset: int, feeds: list, attrs: dict, out_dtypes: list, runtime: str) -> list:
    m = model(op, opset, feeds, attrs, out_dtypes)
    values = {name: value for name, value in feeds if value is not None}
    if runtime == "reference":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ReferenceEvaluator(m).run(None, values)
    return ort_session(m).run(None, values)


def assert_close(got, want, label: str, rtol: float | None = None, atol: float | None = None) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{label}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{label}: shape {got.shape} != {want.shape}"
    if got.dtype.kind in "biuO":
        np.testing.assert_array_equal(got, want, err_msg=label)
        return
    default = {np.dtype(F64): 1e-10, np.dtype(F32): 1e-5, np.dtype(F16): 4e-3, np.dtype(BF16): 2e-2}[got.dtype]
    g, w = got.astype(F64), want.astype(F64)
    scale = max(float(np.max(np.abs(w[np.isfinite(w)]), initial=1.0)), 1.0)
    np.testing.assert_allclose(g, w, rtol=rtol if rtol is not None else default,
                               atol=(atol if atol is not None else default) * scale, equal_nan=True, err_msg=label)


def check(op: str, version: int, feeds: list, attrs: dict, runtimes=("reference", "ort"), out_dtypes=None,
          outputs: int = 1, **tolerance) -> tuple:
    """Compare every requested output with each runtime; returns opgen's outputs."""
    got = ours(op, version, feeds, attrs)
    out_dtypes = out_dtypes or [got[k].dtype for k in range(outputs)]
    compared = 0
    for runtime in runtimes:
        try:
            want = reference(op, version, feeds, attrs, out_dtypes, runtime)
        except Exception as exc:  # onnxruntime without a kernel for this version and type
            if runtime == "ort" and "NOT_IMPLEMENTED" in str(exc) and len(runtimes) > 1:
                continue
            raise
        for k in range(outputs):
            assert_close(got[k], want[k], f"{op}@{version} {runtime} output {k} {attrs}", **tolerance)
        compared += 1
    assert compared, f"{op}@{version}: no reference ran"
    return got


def check_rounded(op: str, version: int, feeds: list, attrs: dict, runtimes=("ort", "reference"),
                  outputs: int = 1, opset: int | None = None) -> None:
    """float16/bfloat16 are computed in float32 and rounded once: opgen on the low-precision inputs equals
    a reference on the same (exact) values in float32, rounded to the low-precision type. onnxruntime is
    preferred (onnx.reference computes some ops in the input's dtype); the first runtime that has the op
    decides."""
    low = next(np.asarray(v).dtype for _, v in feeds if v is not None)
    widened = [(n, np.asarray(v).astype(F32) if v is not None and np.asarray(v).dtype == low else v) for n, v in feeds]
    got = ours(op, version, feeds, attrs)
    for runtime in runtimes:
        try:
            want = reference(op, opset or (22 if version < 22 and low == BF16 else version), widened, attrs,
                             [F32 if np.asarray(g).dtype == low else np.asarray(g).dtype for g in got[:outputs]],
                             runtime)
        except Exception as exc:
            if runtime == "ort" and "NOT_IMPLEMENTED" in str(exc):
                continue
            raise
        for k in range(outputs):
            w = want[k].astype(low) if want[k].dtype == F32 else want[k]
            assert_close(got[k], w, f"{op}@{version} {low} via float32 {runtime} {attrs}")
        return
    raise AssertionError(f"{op}@{version}: no reference ran")


def rand(shape, dtype=F32, low=-3.0, high=3.0) -> np.ndarray:
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        return RNG.integers(max(info.min, -60), min(info.max, 60), size=shape, endpoint=True).astype(dtype)
    return RNG.uniform(low, high, size=shape).astype(dtype)


# ---- Conv, ConvTranspose, ConvInteger, QLinearConv, DeformConv, Col2Im ------------------------------

CONV_CASES = [  # (X shape, W shape, attributes)
    ((2, 4, 7), (6, 2, 3), dict(group=2, strides=[2], pads=[1, 2], dilations=[2])),
    ((1, 3, 6, 5), (4, 3, 3, 2), dict(strides=[2, 1], pads=[1, 0, 2, 1])),
    ((1, 2, 7, 6), (2, 2, 3, 3), dict(auto_pad="SAME_UPPER", strides=[2, 2])),
    ((1, 2, 7, 6), (2, 2, 2, 3), dict(auto_pad="SAME_LOWER", strides=[2, 3], dilations=[2, 1])),
    ((1, 2, 5, 6), (3, 2, 2, 2), dict(auto_pad="VALID", kernel_shape=[2, 2])),
    ((1, 4, 4, 3, 5), (4, 1, 2, 2, 3), dict(group=4, pads=[1, 0, 1, 0, 1, 1])),
    ((0, 2, 5, 5), (3, 2, 3, 3), dict()),  # empty batch
]


@pytest.mark.parametrize("version", [1, 11, 22])
@pytest.mark.parametrize("case", range(len(CONV_CASES)))
def test_conv(version, case):
    xs, ws, attrs = CONV_CASES[case]
    # onnxruntime refuses SAME with dilations
    runtimes = ("reference",) if "SAME" in attrs.get("auto_pad", "") and "dilations" in attrs else ("reference", "ort")
    for dtype, bias in ((F32, True), (F64, False)):
        feeds = [("X", rand(xs, dtype)), ("W", rand(ws, dtype)), ("B", rand(ws[:1], dtype) if bias else None)]
        check("Conv", version, feeds, attrs, runtimes=runtimes)
    for dtype in (F16, BF16) if version == 22 else (F16,):
        check_rounded("Conv", version, [("X", rand(xs, dtype)), ("W", rand(ws, dtype)), ("B", rand(ws[:1], dtype))],
                      attrs, runtimes=runtimes[::-1])


TRANSPOSE_CASES = [  # (X shape, W shape, attributes, onnx.reference agrees)
    ((1, 2, 3, 3), (2, 3, 3, 3), dict(strides=[3, 2], pads=[1, 2, 1, 2]), True),
    ((1, 1, 3, 3), (1, 2, 3, 3), dict(strides=[3, 2], output_shape=[10, 8]), True),
    ((1, 1, 3, 3), (1, 2, 3, 3), dict(strides=[3, 2], output_shape=[8, 6]), False),  # a smaller output_shape cuts
    ((1, 1, 3, 3), (1, 2, 3, 3), dict(strides=[3, 2], output_padding=[1, 1]), True),
    ((1, 2, 3, 4), (2, 2, 3, 3), dict(strides=[2, 2], auto_pad="SAME_UPPER"), True),
    ((1, 2, 3, 4), (2, 2, 3, 2), dict(strides=[2, 3], auto_pad="SAME_LOWER"), False),
    ((1, 2, 5), (2, 2, 3), dict(dilations=[2], strides=[2], pads=[1, 0]), True),
    ((2, 4, 3, 3), (4, 3, 2, 2), dict(group=2, strides=[2, 1]), False),  # onnx.reference's groups are wrong
    ((1, 2, 2, 2, 3), (2, 1, 2, 2, 2), dict(strides=[1, 2, 2], pads=[0, 1, 0, 0, 0, 1]), True),
]


@pytest.mark.parametrize("version", [1, 11, 22])
@pytest.mark.parametrize("case", range(len(TRANSPOSE_CASES)))
def test_conv_transpose(version, case):
    xs, ws, attrs, ref_agrees = TRANSPOSE_CASES[case]
    for dtype in (F32, F64) if ref_agrees else (F32,):  # onnxruntime has no double ConvTranspose
        feeds = [("X", rand(xs, dtype)), ("W", rand(ws, dtype)), ("B", rand((ws[1] * attrs.get("group", 1),), dtype))]
        check("ConvTranspose", version, feeds, attrs, runtimes=("reference", "ort") if ref_agrees else ("ort",))


def test_conv_transpose_low_precision_and_short_kernel_same():
    for dtype in (F16, BF16):
        x, w = rand((1, 2, 3, 3), dtype), rand((2, 2, 3, 3), dtype)
        check_rounded("ConvTranspose", 22, [("X", x), ("W", w)], dict(strides=[2, 2], pads=[1, 0, 0, 1]))
    # SAME with a kernel shorter than the stride: the padding would be negative, nothing is padded
    # (note same_padding_clamped): onnxruntime's size
    x, w = rand((1, 1, 3, 3)), rand((1, 1, 1, 2))
    check("ConvTranspose", 22, [("X", x), ("W", w)], dict(strides=[3, 3], auto_pad="SAME_UPPER"), runtimes=("ort",))


def zero_point(dtype, shape=()):
    return np.asarray(rand(shape, dtype) // 4, dtype=dtype)


@pytest.mark.parametrize("types", [(np.uint8, np.uint8), (np.uint8, np.int8), (np.int8, np.int8)])
def test_conv_integer(types):
    tx, tw = types
    for xs, ws, attrs in CONV_CASES[:5]:
        feeds = [("x", rand(xs, tx)), ("w", rand(ws, tw)), ("x_zero_point", zero_point(tx)),
                 ("w_zero_point", zero_point(tw))]
        runtimes = ("reference", "ort") if tw == np.uint8 or tx == np.uint8 else ("reference",)
        if "SAME" in attrs.get("auto_pad", "") and "dilations" in attrs:  # onnxruntime refuses SAME with dilations
            runtimes = ("reference",)
        check("ConvInteger", 10, feeds, attrs, runtimes=runtimes, out_dtypes=[np.int32])
        check("ConvInteger", 10, feeds[:2], attrs, runtimes=runtimes, out_dtypes=[np.int32])
    # one w zero point per output channel (onnx.reference; onnxruntime takes per-tensor ones only)
    x, w = rand((1, 2, 5, 5), tx), rand((3, 2, 2, 2), tw)
    feeds = [("x", x), ("w", w), ("x_zero_point", zero_point(tx)), ("w_zero_point", zero_point(tw, (3,)))]
    check("ConvInteger", 10, feeds, {}, runtimes=("reference",), out_dtypes=[np.int32])


@pytest.mark.parametrize("types", [(np.uint8, np.uint8), (np.uint8, np.int8), (np.int8, np.int8)])
def test_qlinear_conv(types):
    tx, tw = types
    for xs, ws, attrs in CONV_CASES[:5]:
        m = ws[0]
        for per_channel in (False, True):
            shape = (m,) if per_channel else ()
            feeds = [("x", rand(xs, tx)), ("x_scale", np.array(0.05, F32)), ("x_zero_point", zero_point(tx)),
                     ("w", rand(ws, tw)), ("w_scale", rand(shape, F32, 0.01, 0.1)),
                     ("w_zero_point", np.zeros(shape, tw)), ("y_scale", np.array(0.7, F32)),
                     ("y_zero_point", zero_point(tx)), ("B", rand((m,), np.int32))]
            runtimes = ("reference", "ort")
            if "SAME" in attrs.get("auto_pad", "") and "dilations" in attrs:
                runtimes = ("reference",)  # onnxruntime refuses SAME with dilations
            elif per_channel and len(xs) != 4:
                runtimes = ("ort",)  # onnx.reference shapes per-channel scales for 2-D images only
            check("QLinearConv", 10, feeds, attrs, runtimes=runtimes)


def test_deform_conv_against_the_references():
    x, w = rand((1, 4, 5, 4), F32), rand((2, 2, 2, 2), F32)
    attrs = dict(group=2, offset_group=2, strides=[1, 2], pads=[1, 0, 0, 1], dilations=[2, 1])
    out = [(5 + 1 - 3) // 1 + 1, (4 + 1 - 2) // 2 + 1]
    offset = rand((1, 2 * 4 * 2, *out), F32, -1.5, 1.5)
    mask = rand((1, 2 * 4, *out), F32, 0, 1)
    for version in (19, 22):
        for feeds in ([("X", x), ("W", w), ("offset", offset), ("B", rand((2,), F32)), ("mask", mask)],
                      [("X", x), ("W", w), ("offset", offset)]):
            check("DeformConv", version, feeds, attrs)
    xd = rand((1, 2, 4, 4), F64)
    # double: onnx.reference computes the sampling coordinates in float32, hence float32's tolerance
    check("DeformConv", 22, [("X", xd), ("W", rand((2, 2, 2, 2), F64)), ("offset", rand((1, 8, 3, 3), F64, -2, 2))],
          {}, runtimes=("reference",), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape", [(1, 3, 7), (2, 2, 3, 4, 5)])
def test_deform_conv_without_offsets_is_conv(shape):
    # 1-D and 3-D: no reference implements them; zero offsets and a unit mask make DeformConv a Conv
    rank = len(shape) - 2
    x, w = rand(shape, F32), rand((4, shape[1], *([2] * rank)), F32)
    attrs = dict(pads=[1] * rank + [0] * rank, strides=[2] * rank)
    conv = ours("Conv", 22, [("X", x), ("W", w)], attrs)[0]
    offset = np.zeros((shape[0], 2 ** rank * rank, *conv.shape[2:]), F32)
    got = ours("DeformConv", 22, [("X", x), ("W", w), ("offset", offset)], attrs)[0]
    assert_close(got, reference("Conv", 22, [("X", x), ("W", w)], attrs, [F32], "ort")[0], "DeformConv as Conv")


COL2IM_CASES = [  # (image_shape, block_shape, attributes)
    ([5, 5], [2, 2], {}),
    ([5, 6], [3, 2], dict(strides=[2, 2], pads=[1, 0, 1, 1], dilations=[1, 2])),
    ([3, 4, 4], [2, 2, 2], dict(strides=[1, 2, 1], dilations=[1, 1, 2])),
]


def col2im_blocks(image, block, attrs):
    rank = len(image)
    s, d, p = attrs.get("strides", [1] * rank), attrs.get("dilations", [1] * rank), attrs.get("pads", [0] * 2 * rank)
    return int(np.prod([(n + p[i] + p[rank + i] - (b - 1) * d[i] - 1) // s[i] + 1
                        for i, (n, b) in enumerate(zip(image, block))]))


@pytest.mark.parametrize("case", range(len(COL2IM_CASES)))
def test_col2im(case):
    image, block, attrs = COL2IM_CASES[case]
    L = col2im_blocks(image, block, attrs)
    for dtype in (F32, F64, np.int32):
        x = rand((2, 3 * int(np.prod(block)), L), dtype)
        feeds = [("input", x), ("image_shape", np.array(image)), ("block_shape", np.array(block))]
        check("Col2Im", 18, feeds, attrs, runtimes=("reference", "ort") if dtype == F32 and len(image) == 2
              else ("reference",))


def test_col2im_strings_and_bool_move_like_numbers():
    # strings and bool: no reference takes them; with non-overlapping blocks Col2Im only moves elements,
    # so the strings must land where onnx.reference moves their (distinct) codes, "" elsewhere
    image, block, attrs = [6, 4], [2, 2], dict(strides=[3, 2], pads=[0, 0, 1, 0])
    L = col2im_blocks(image, block, attrs)
    codes = np.arange(1, 2 * 4 * L + 1, dtype=np.int64).reshape(2, 4, L)
    words = np.array([f"w{c}" for c in codes.ravel()], dtype=object).reshape(codes.shape)
    shapes = [("image_shape", np.array(image)), ("block_shape", np.array(block))]
    moved = reference("Col2Im", 18, [("input", codes), *shapes], attrs, [np.int64], "reference")[0]
    got = ours("Col2Im", 18, [("input", words), *shapes], attrs)[0]
    want = np.where(moved > 0, np.array([""] + [f"w{c}" for c in range(1, codes.size + 1)], dtype=object)[moved], "")
    np.testing.assert_array_equal(got, want)
    flags = ours("Col2Im", 18, [("input", codes % 3 == 0), *shapes], attrs)[0]
    np.testing.assert_array_equal(flags, (moved % 3 == 0) & (moved > 0))


# ---- AveragePool, MaxPool, LpPool, the global pools, MaxRoiPool, MaxUnpool ---------------------------

POOL_CASES = [  # (X shape, attributes, the first version that has every attribute)
    ((2, 3, 9), dict(kernel_shape=[3], strides=[2], pads=[1, 2]), 1),
    ((1, 2, 6, 7), dict(kernel_shape=[3, 2], strides=[2, 2], pads=[1, 0, 1, 1]), 1),
    ((1, 2, 6, 7), dict(kernel_shape=[3, 3], strides=[2, 2], auto_pad="SAME_UPPER"), 1),
    ((1, 2, 6, 7), dict(kernel_shape=[2, 3], strides=[2, 2], auto_pad="SAME_LOWER"), 1),
    ((1, 2, 7, 6), dict(kernel_shape=[3, 2], strides=[2, 3], auto_pad="VALID"), 1),
    ((1, 2, 6, 7), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 0, 1], ceil_mode=1), 10),
    ((1, 1, 7, 7), dict(kernel_shape=[3, 3], strides=[3, 3], pads=[1, 1, 1, 1], ceil_mode=1), 10),
    ((1, 2, 8, 7), dict(kernel_shape=[2, 3], dilations=[2, 2], pads=[1, 0, 1, 2]), 19),
    ((1, 1, 5, 6, 7), dict(kernel_shape=[2, 3, 2], strides=[2, 1, 3], dilations=[2, 1, 2], ceil_mode=1), 19),
]


@pytest.mark.parametrize("version", [1, 7, 10, 11, 19, 22])
@pytest.mark.parametrize("case", range(len(POOL_CASES)))
def test_average_pool(version, case):
    shape, attrs, since = POOL_CASES[case]
    if version < since:
        return
    # no reference has AveragePool 1 (7 without count_include_pad, whose default 0 it keeps): 7 stands in for it
    opset = max(version, 7)
    for count_include_pad in (0, 1) if version >= 7 else (0,):
        full = dict(attrs, count_include_pad=count_include_pad) if version >= 7 else attrs
        # onnx.reference miscounts the last ceil_mode windows of a dilated 3-D pool: onnxruntime only there
        ref_ok = case != 8
        for dtype, runtimes in ((F32, ("reference", "ort") if ref_ok else ("ort",)),
                                (F64, ("reference",) if ref_ok else ())):
            x = rand(shape, dtype)
            got = ours("AveragePool", version, [("X", x)], full)[0]
            for r in runtimes:
                assert_close(got, reference("AveragePool", opset, [("X", x)], full, [dtype], r)[0],
                             f"AveragePool@{version} {r} {full}")
        if version >= 19:
            check_rounded("AveragePool", version, [("X", rand(shape, BF16 if version == 22 else F16))], full)


@pytest.mark.parametrize("version", [1, 8, 10, 11, 12, 22])
@pytest.mark.parametrize("case", range(len(POOL_CASES)))
def test_max_pool(version, case):
    shape, attrs, since = POOL_CASES[case]
    if version < max(since, 10 if "dilations" in attrs else 1):
        return
    outputs = 1 if version == 1 else 2
    dtypes = (F32, F64, np.int8, np.uint8) if version >= 12 else (F32, F64)
    for dtype in dtypes:
        if dtype == F64 and attrs.get("auto_pad") == "SAME_LOWER":
            continue  # onnxruntime has no double MaxPool 1, and onnx.reference is wrong there
        x = rand(shape, dtype)
        for storage_order in (0, 1) if version >= 8 else (None,):
            full = attrs if storage_order is None else dict(attrs, storage_order=storage_order)
            # onnx.reference gives SAME_LOWER one output too few when the stride exceeds 1
            got = check("MaxPool", version, [("X", x)], full, outputs=outputs, out_dtypes=[dtype, np.int64][:outputs],
                        runtimes=("ort",) if attrs.get("auto_pad") == "SAME_LOWER" else ("reference", "ort"))
            if version >= 8:  # a node without Indices: the kernel is told, and computes Y alone
                alone = ours("MaxPool", version, [("X", x)], dict(full, requested_outputs=("Y",)))
                assert len(alone) == 1 and alone[0].tobytes() == got[0].tobytes()
    if version >= 10:
        check_rounded("MaxPool", version, [("X", rand(shape, BF16 if version == 22 else F16))], attrs, outputs=2)


def test_max_pool_indices_count_batch_and_channel_in_row_major_order():
    # storage_order 1 is column-major within each (n, c) image only (both references; onnx.reference's
    # path for unit strides gives indices within the window instead: onnxruntime only there)
    x = rand((2, 3, 5, 4), F32)
    check("MaxPool", 12, [("X", x)], dict(kernel_shape=[2, 2], storage_order=1), outputs=2,
          out_dtypes=[F32, np.int64], runtimes=("ort",))
    check("MaxPool", 12, [("X", x)], dict(kernel_shape=[3, 2], strides=[2, 1], pads=[1, 0, 1, 1], storage_order=1),
          outputs=2, out_dtypes=[F32, np.int64])


def test_max_pool_nan_propagates():
    # NaN is the largest value (hlir.MaxPool, GlobalMaxPool, ReduceMax: note nan_propagates); both references
    # skip a NaN that is not a window's first element
    x = np.array([[[1.0, np.nan, 3.0, -1.0]]], F32)
    y, i = ours("MaxPool", 12, [("X", x)], dict(kernel_shape=[2]))
    np.testing.assert_array_equal(y, np.array([[[np.nan, np.nan, 3.0]]], F32))
    np.testing.assert_array_equal(i, [[[1, 1, 2]]])


LP_CASES = [case for case in POOL_CASES if case[2] <= 11 and "pads" not in case[1]] + [
    ((1, 2, 6, 7), dict(kernel_shape=[2, 3], strides=[2, 2], dilations=[2, 1]), 18),
    ((1, 2, 6, 7), dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1), 18),
]


@pytest.mark.parametrize("version", [1, 2, 11, 18, 22])
@pytest.mark.parametrize("case", range(len(LP_CASES)))
def test_lp_pool(version, case):
    shape, attrs, since = LP_CASES[case]
    if version < since:
        return
    for p in (1, 2, 3):
        full = dict(attrs, p=float(p) if version == 1 else p)
        x = rand(shape, F32)
        # onnxruntime has no LpPool 1 (p a float there): LpPool 2 with the same integer p stands in for it
        got = ours("LpPool", version, [("X", x)], full)[0]
        want = reference("LpPool", max(version, 2), [("X", x)], dict(attrs, p=p), [F32], "ort")[0]
        assert_close(got, want, f"LpPool@{version} ort {full}")
        if version >= 18 and not attrs.get("ceil_mode"):  # onnx.reference's ceil_mode windows: see below
            check("LpPool", version, [("X", x)], full, runtimes=("reference",))
    if version == 22:
        check_rounded("LpPool", version, [("X", rand(shape, BF16))], dict(attrs, p=2), runtimes=("ort",))


def test_lp_pool_padding_adds_nothing():
    # with padding or ceil_mode onnx.reference scales the window's mean of |x|^p by the kernel size, which
    # counts the padding neither as 0 nor as absent; onnxruntime sums |x|^p over the window: onnxruntime
    x = rand((1, 2, 6, 7), F32)
    for attrs in (dict(kernel_shape=[3, 3], pads=[1, 1, 2, 0], p=2), dict(kernel_shape=[3, 2], strides=[2, 2],
                                                                            pads=[1, 0, 1, 1], ceil_mode=1, p=3)):
        check("LpPool", 18, [("X", x)], attrs, runtimes=("ort",))
    assert ours("LpPool", 1, [("X", x)], dict(kernel_shape=[2, 2], p=1.5))[0].shape == (1, 2, 5, 6)


@pytest.mark.parametrize("shape", [(2, 3, 5), (1, 2, 4, 3), (1, 2, 3, 2, 4), (1, 2, 0, 3)])
def test_global_pools(shape):
    x = rand(shape, F32)
    for version in (1, 22):
        runtimes = ("ort",) if 0 in shape else ("reference", "ort")
        check("GlobalAveragePool", version, [("X", x)], {}, runtimes=runtimes if 0 not in shape else ("ort",)) \
            if 0 not in shape else None
        # onnx.reference keeps the wrong axes for GlobalMaxPool when the input is not 4-D
        check("GlobalMaxPool", version, [("X", x)], {}, runtimes=runtimes if len(shape) == 4 else ("ort",)) \
            if 0 not in shape else None
    for version in (2, 22) if 0 not in shape else ():  # onnxruntime refuses empty images
        for p in (1, 2, 3):
            # onnxruntime has GlobalLpPool 2 only: 22 means the same on float
            got = ours("GlobalLpPool", version, [("X", x)], dict(p=p))[0]
            assert_close(got, reference("GlobalLpPool", 2, [("X", x)], dict(p=p), [F32], "ort")[0], f"GlobalLpPool p={p}")
    got = ours("GlobalLpPool", 1, [("X", x)], dict(p=2.0))[0]
    assert_close(got, ours("GlobalLpPool", 2, [("X", x)], dict(p=2))[0], "GlobalLpPool@1 is @2 for integral p")
    if 0 not in shape:
        check_rounded("GlobalAveragePool", 22, [("X", rand(shape, BF16))], {})
        check_rounded("GlobalMaxPool", 22, [("X", rand(shape, F16))], {})
    else:  # no elements: the mean is NaN (0 / 0), the max -inf, the Lp norm 0
        assert np.isnan(ours("GlobalAveragePool", 22, [("X", x)], {})[0]).all()
        assert np.isneginf(ours("GlobalMaxPool", 22, [("X", x)], {})[0]).all()
        assert (ours("GlobalLpPool", 22, [("X", x)], dict(p=2))[0] == 0).all()


def test_max_roi_pool():
    x = rand((2, 3, 8, 7), F32)
    rois = np.array([[0, 1, 1, 5, 6], [1, 0.375, 2.625, 3.5, 7.875], [1, -2, -1, 10, 12], [0, 3, 3, 3, 3]], F32)
    for attrs in (dict(pooled_shape=[2, 3]), dict(pooled_shape=[3, 3], spatial_scale=0.5)):
        check("MaxRoiPool", 1, [("X", x), ("rois", rois)], attrs, runtimes=("ort",))
        # onnxruntime has no MaxRoiPool 22: 22 adds bfloat16 only, so float must match version 1
        assert_close(ours("MaxRoiPool", 22, [("X", x), ("rois", rois)], attrs)[0],
                     ours("MaxRoiPool", 1, [("X", x), ("rois", rois)], attrs)[0], "MaxRoiPool@22")
        check_rounded("MaxRoiPool", 22, [("X", rand((2, 3, 8, 7), BF16)), ("rois", rois.astype(BF16))], attrs,
                      runtimes=("ort",), opset=1)


def test_max_unpool_function():
    # MaxUnpool's spec cannot name a kernel yet (its input output_shape clashes with a derived name): the
    # function is compared directly; MaxPool's indices make the input. onnx.reference fails with padding:
    # onnxruntime only there; with output_shape onnx.reference only (see the module docstring)
    for shape, attrs, runtimes in (((2, 3, 6, 4), dict(kernel_shape=[2, 2], strides=[2, 2]), ("reference", "ort")),
                                   ((2, 3, 6, 5), dict(kernel_shape=[3, 2], strides=[2, 1], pads=[1, 0, 0, 1]), ("ort",))):
        y, i = ours("MaxPool", 12, [("X", rand(shape, F32))], attrs)
        feeds = [("X", y), ("I", i)]
        for runtime in runtimes:
            want = reference("MaxUnpool", 11, feeds, attrs, [F32], runtime)[0]
            assert_close(onnx_max_unpool(y, i, **attrs), want, f"MaxUnpool {runtime} {attrs}")
    attrs = dict(kernel_shape=[2, 2], strides=[2, 2])
    y, i = ours("MaxPool", 12, [("X", rand((2, 3, 6, 4), F32))], attrs)
    for shape in ([2, 3, 8, 6], [2, 3, 7, 4]):
        want = reference("MaxUnpool", 11, [("X", y), ("I", i), ("output_shape", np.array(shape))], attrs, [F32],
                         "reference")[0]
        assert_close(onnx_max_unpool(y, i, np.array(shape), **attrs), want, f"MaxUnpool output_shape {shape}")


# ---- Resize, Upsample -------------------------------------------------------------------------------

RESIZE_CASES = [  # (X shape, attributes, scales or None, sizes or None, axes or None)
    ((1, 2, 4, 5), dict(mode="nearest"), [1, 1, 1.7, 0.6], None, None),
    ((1, 2, 4, 5), dict(mode="nearest", nearest_mode="round_prefer_ceil",
                        coordinate_transformation_mode="asymmetric"), None, [1, 2, 7, 3], None),
    ((2, 4, 5), dict(mode="nearest", nearest_mode="floor", coordinate_transformation_mode="align_corners"),
     [1, 0.5, 2.5], None, None),
    ((1, 1, 4, 5), dict(mode="nearest", nearest_mode="ceil", coordinate_transformation_mode="tf_half_pixel_for_nn"),
     [1, 1, 1.5, 0.8], None, None),
    ((1, 2, 4, 5), dict(mode="linear"), [1, 1, 0.6, 1.7], None, None),
    ((1, 2, 4, 5), dict(mode="linear", coordinate_transformation_mode="align_corners"), [1, 1, 0.6, 1.7], None, None),
    ((1, 2, 4, 5), dict(mode="linear", coordinate_transformation_mode="pytorch_half_pixel"), None, [1, 2, 1, 3], None),
    ((3, 4, 5), dict(mode="cubic", exclude_outside=1, cubic_coeff_a=-0.5), [1, 1.5, 0.7], None, None),
    ((1, 2, 4, 5), dict(mode="cubic", coordinate_transformation_mode="asymmetric"), None, [1, 2, 9, 2], None),
    ((1, 1, 5, 6), dict(mode="linear", coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=7.0),
     None, [1, 1, 4, 7], None),
    ((1, 1, 5, 6), dict(mode="nearest", coordinate_transformation_mode="tf_crop_and_resize"), [1, 1, 1.4, 0.5], None,
     None),
]
CROP = np.array([0, 0, -0.1, 0.2, 1, 1, 0.8, 1.3], F32)


@pytest.mark.parametrize("version", [11, 13, 18, 19])
@pytest.mark.parametrize("case", range(len(RESIZE_CASES)))
def test_resize(version, case):
    shape, attrs, scales, sizes, _ = RESIZE_CASES[case]
    if version != 11 and attrs.get("coordinate_transformation_mode") == "tf_half_pixel_for_nn":
        return  # only Resize 11 has it
    crop = attrs.get("coordinate_transformation_mode") == "tf_crop_and_resize"
    for dtype in (F32, F64, np.uint8, np.int32):
        feeds = [("X", rand(shape, dtype, 0, 100) if dtype != F64 else rand(shape, dtype)),
                 ("roi", CROP[:0] if not crop else np.concatenate([np.zeros(len(shape) - 2), CROP[2:4], np.ones(
                     len(shape) - 2), CROP[6:]]).astype(F64 if dtype == F64 else F32)),
                 ("scales", np.array(scales if scales else [], F32)),
                 ("sizes", np.array(sizes, np.int64) if sizes else None)]
        # onnxruntime: integer output lengths in its formulas (module docstring): sizes-based float cases only
        runtimes = ("reference", "ort") if sizes and dtype == F32 and version >= 13 else ("reference",)
        if attrs.get("coordinate_transformation_mode") == "tf_half_pixel_for_nn":
            if dtype not in (F32, np.uint8):
                continue
            runtimes = ("ort",)  # onnx.reference does not know Resize 11's tf_half_pixel_for_nn
        # onnx.reference's cubic weights are float32 (its cubic_coeff_a is a np.float32), and so are its
        # tf_crop_and_resize coordinates (from the float32 roi): a double result is float32-close, an integer
        # one may round the other way at a half (one unit apart; seen for linear crop with int32 when the
        # module's random stream gives other inputs, as under pytest-xdist's ordering)
        if (attrs["mode"] == "cubic" or crop) and np.dtype(dtype).kind in "iu":
            got = ours("Resize", version, feeds, attrs)[0]
            want = reference("Resize", version, feeds, attrs, [dtype], "reference")[0]
            assert got.dtype == want.dtype and got.shape == want.shape
            assert np.abs(got.astype(np.int64) - want.astype(np.int64)).max(initial=0) <= 1
            continue
        tolerance = dict(rtol=1e-5, atol=1e-5) if attrs["mode"] == "cubic" and dtype == F64 else {}
        check("Resize", version, feeds, attrs, runtimes=runtimes, **tolerance)


@pytest.mark.parametrize("policy", ["stretch", "not_larger", "not_smaller"])
def test_resize_axes_and_aspect_ratio_policies(policy):
    x = rand((2, 3, 6, 5), F32)
    for version in (18, 19):
        for mode, axes, sizes in (("nearest", [3, 2], [4, 9]), ("linear", [3, 1], [8, 2]), ("cubic", [2], [4])):
            attrs = dict(mode=mode, axes=axes, keep_aspect_ratio_policy=policy)
            feeds = [("X", x), ("roi", None), ("scales", None), ("sizes", np.array(sizes))]
            got = check("Resize", version, feeds, attrs, runtimes=("reference",))[0]
            # negative axes count from the back (onnx.reference cannot take them)
            negative = ours("Resize", version, feeds, dict(attrs, axes=[a - 4 for a in axes]))[0]
            np.testing.assert_array_equal(negative, got)
        attrs = dict(mode="linear", axes=[2, 3], coordinate_transformation_mode="half_pixel_symmetric")
        if version == 19:
            check("Resize", version, [("X", x), ("roi", None), ("scales", np.array([0.7, 1.4], F32))], attrs,
                  runtimes=("reference",))
        attrs = dict(mode="linear", axes=[3, 2], coordinate_transformation_mode="tf_crop_and_resize")
        roi = np.array([0.2, 0.1, 0.9, 1.2], F32)
        check("Resize", version, [("X", x), ("roi", roi), ("scales", np.array([1.5, 0.8], F32))], attrs,
              runtimes=("reference",))


@pytest.mark.parametrize("mode", ["linear", "cubic"])
def test_resize_antialias(mode):
    x = rand((1, 2, 9, 8), F32)
    for scales in ([1, 1, 0.45, 0.6], [1, 1, 0.3, 1.5]):
        for exclude_outside in (0, 1):
            attrs = dict(mode=mode, antialias=1, exclude_outside=exclude_outside)
            check("Resize", 18, [("X", x), ("roi", None), ("scales", np.array(scales, F32))], attrs,
                  runtimes=("reference",))
    check("Resize", 19, [("X", x), ("roi", None), ("scales", None), ("sizes", np.array([1, 2, 4, 3]))],
          dict(mode=mode, antialias=1), runtimes=("reference",))


def test_resize_low_precision_and_other_types():
    x = rand((1, 2, 4, 5), F16)
    for attrs in (dict(mode="linear"), dict(mode="cubic"), dict(mode="nearest")):
        check_rounded("Resize", 19, [("X", x), ("roi", None), ("scales", np.array([1, 1, 1.5, 0.6], F32))], attrs)
    xb = rand((1, 2, 4, 5), BF16)
    check_rounded("Resize", 19, [("X", xb), ("roi", None), ("scales", np.array([1, 1, 1.5, 0.6], F32))],
                  dict(mode="linear"), runtimes=("reference",))
    # strings and bool are copied by nearest, as the element indices of the same resize say
    codes = np.arange(40).reshape(1, 2, 4, 5)
    feeds = [("roi", None), ("scales", np.array([1, 1, 1.7, 0.6], F32))]
    where = ours("Resize", 19, [("X", codes), *feeds], {})[0]
    words = np.array([f"s{c}" for c in range(40)], dtype=object)
    np.testing.assert_array_equal(ours("Resize", 19, [("X", words[codes]), *feeds], {})[0], words[where])
    np.testing.assert_array_equal(ours("Resize", 13, [("X", codes % 3 == 0), *feeds], {})[0], where % 3 == 0)
    check("Resize", 13, [("X", codes.astype(np.int64)), *feeds], {})  # int64: exact copies
    # empty axes stay empty
    empty = np.zeros((1, 0, 3), F32)
    assert ours("Resize", 19, [("X", empty), ("roi", None), ("scales", np.array([2, 2, 2], F32))], {})[0].shape == (2, 0, 6)


def test_resize_10_and_upsample():
    x = rand((1, 2, 3, 4), F32)
    for scales in ([1, 1, 2, 3], [1, 1, 1.5, 2.5], [1, 1, 1.7, 1.3]):
        s = np.array(scales, F32)
        for mode in ("nearest", "linear"):
            check("Resize", 10, [("X", x), ("scales", s)], dict(mode=mode), runtimes=("ort",))
            check("Upsample", 9, [("X", x), ("scales", s)], dict(mode=mode), runtimes=("ort",))
            check("Upsample", 7, [("X", x)], dict(mode=mode, scales=[float(v) for v in scales]), runtimes=("ort",))
            # Resize 10 when shrinking (onnxruntime rounds nearest up there) is Resize 11 with asymmetric
            # coordinates and nearest_mode floor
            shrink = np.array([1, 1, 0.7, 0.6], F32)
            got = ours("Resize", 10, [("X", x), ("scales", shrink)], dict(mode=mode))[0]
            attrs = dict(mode=mode, coordinate_transformation_mode="asymmetric", nearest_mode="floor")
            want = reference("Resize", 11, [("X", x), ("roi", CROP[:0]), ("scales", shrink)], attrs, [F32],
                             "reference")[0]
            assert_close(got, want, f"Resize@10 {mode} {shrink}")
        if scales[0] == 1 and scales[1] == 1:  # Upsample 1 scales H and W of NCHW; "bilinear" is linear
            for mode, same in (("nearest", "nearest"), ("bilinear", "linear")):
                got = ours("Upsample", 1, [("X", x)], dict(mode=mode, height_scale=scales[2], width_scale=scales[3]))[0]
                want = ours("Upsample", 7, [("X", x)], dict(mode=same, scales=[float(v) for v in scales]))[0]
                assert_close(got, want, "Upsample@1")
    check("Upsample", 9, [("X", rand((2, 3), np.int32)), ("scales", np.array([2, 3], F32))], {}, runtimes=("reference",))


def test_upsample_10_is_deprecated():
    # Upsample 10 marks the op deprecated: the validator refuses it, as no model of opset 10 may use it
    with pytest.raises(ValidationError, match="deprecated"):
        ours("Upsample", 10, [("X", rand((1, 1, 2, 2))), ("scales", np.array([1, 1, 2, 2], F32))], {})


# ---- GridSample, RoiAlign, NonMaxSuppression, AffineGrid ----------------------------------------------

TORCH_MODES = {"linear": "bilinear", "bilinear": "bilinear", "nearest": "nearest", "cubic": "bicubic",
               "bicubic": "bicubic"}


def torch_grid_sample(x, grid, mode, padding_mode, align_corners):
    return torch.nn.functional.grid_sample(torch.from_numpy(x), torch.from_numpy(grid), mode=TORCH_MODES[mode],
                                           padding_mode=padding_mode, align_corners=bool(align_corners)).numpy()


@pytest.mark.parametrize("version", [16, 20, 22])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample(version, padding_mode):
    modes = ("bilinear", "nearest", "bicubic") if version == 16 else ("linear", "nearest", "cubic")
    x = rand((2, 3, 5, 6), F64)
    grid = rand((2, 4, 7, 2), F64, -1.6, 1.6)
    grid[0, 0, :3] = [[-1, -1], [1, 1], [0.5, -0.5]]  # corners and a pixel edge
    for mode in modes:
        for align_corners in (0, 1):
            attrs = dict(mode=mode, padding_mode=padding_mode, align_corners=align_corners)
            got = ours("GridSample", version, [("X", x), ("grid", grid)], attrs)[0]
            want = torch_grid_sample(x, grid, mode, padding_mode, align_corners)
            assert_close(got, want, f"GridSample@{version} torch {attrs}")
            check("GridSample", version, [("X", x.astype(F32)), ("grid", grid.astype(F32))], attrs,
                  runtimes=("ort",))
    if version >= 20:  # 3-D (volumetric): torch has no tricubic; onnx.reference has every mode
        x3, grid3 = rand((1, 2, 3, 4, 5), F64), rand((1, 2, 3, 4, 3), F64, -1.3, 1.3)
        for mode in ("linear", "nearest", "cubic"):
            for align_corners in (0, 1):
                attrs = dict(mode=mode, padding_mode=padding_mode, align_corners=align_corners)
                got = ours("GridSample", version, [("X", x3), ("grid", grid3)], attrs)[0]
                if mode != "cubic":
                    assert_close(got, torch_grid_sample(x3, grid3, mode, padding_mode, align_corners), "3-D torch")
                # onnx.reference denormalizes the grid in float32, and clamps the coordinate for border
                # (differs for cubic: see the module docstring; onnxruntime has no 3-D cubic)
                if not (mode == "cubic" and padding_mode == "border"):
                    check("GridSample", version, [("X", x3), ("grid", grid3)], attrs, runtimes=("reference",),
                          rtol=1e-5, atol=1e-5)


def test_grid_sample_types():
    grid = rand((1, 3, 4, 2), F32, -1.2, 1.2)
    x = rand((1, 2, 4, 5), F32, 0, 100)
    for dtype in (np.uint8, np.int32, np.int64):
        # integers are interpolated in float64, rounded half to even and saturated
        xi = x.astype(dtype)
        for mode in ("linear", "nearest", "cubic"):
            got = ours("GridSample", 20, [("X", xi), ("grid", grid)], dict(mode=mode))[0]
            want = torch_grid_sample(xi.astype(F64), grid.astype(F64), mode, "zeros", 0)
            info = np.iinfo(dtype)
            np.testing.assert_array_equal(got, np.clip(np.rint(want), info.min, info.max).astype(dtype))
    codes = np.arange(40).reshape(1, 2, 4, 5)
    words = np.array([f"p{c}" for c in range(40)], dtype=object)
    where = ours("GridSample", 20, [("X", codes + 1), ("grid", grid)], dict(mode="nearest"))[0]  # 0: outside
    got = ours("GridSample", 20, [("X", words[codes]), ("grid", grid)], dict(mode="nearest"))[0]
    np.testing.assert_array_equal(got, np.where(where > 0, words[np.maximum(where - 1, 0)], ""))
    check_rounded("GridSample", 22, [("X", rand((1, 2, 4, 5), BF16)), ("grid", rand((1, 3, 4, 2), BF16, -1, 1))],
                  dict(mode="linear"), runtimes=("ort",), opset=20)
    check_rounded("GridSample", 16, [("X", rand((1, 2, 4, 5), F16)), ("grid", rand((1, 3, 4, 2), F16, -1, 1))],
                  dict(mode="bilinear"), runtimes=("ort",))


ROIS = np.array([[0.5, 0.4, 5.2, 4.9], [1.0, 1.0, 1.2, 1.3], [-2.0, -1.5, 3.0, 9.0], [2.5, 3.0, 7.5, 6.0]], F32)


@pytest.mark.parametrize("version", [10, 16, 22])
def test_roi_align(version):
    x = rand((2, 3, 6, 7), F32)
    batch = np.array([0, 1, 1, 0], np.int64)
    for mode in ("avg", "max"):
        for ctm in ("half_pixel", "output_half_pixel") if version >= 16 else (None,):
            for extra in (dict(output_height=2, output_width=3, sampling_ratio=2),
                          dict(output_height=3, output_width=2, spatial_scale=0.5)):
                attrs = dict(extra, mode=mode)
                if ctm:
                    attrs["coordinate_transformation_mode"] = ctm
                feeds = [("X", x), ("rois", ROIS), ("batch_indices", batch)]
                if version == 22:  # onnxruntime has RoiAlign 16 at most: 22 adds bfloat16 only
                    got = ours("RoiAlign", 22, feeds, attrs)[0]
                    assert_close(got, ours("RoiAlign", 16, feeds, attrs)[0], "RoiAlign@22")
                    check("RoiAlign", 22, feeds, attrs, runtimes=("reference",))
                else:  # onnx.reference takes RoiAlign 10 for half_pixel (the newer default): onnxruntime there
                    check("RoiAlign", version, feeds, attrs, runtimes=("ort",) if version == 10 else ("reference", "ort"))
    check_rounded("RoiAlign", 22, [("X", rand((2, 3, 6, 7), BF16)), ("rois", ROIS.astype(BF16)),
                                   ("batch_indices", batch)], dict(output_height=2, output_width=2), opset=16)
    check("RoiAlign", 16, [("X", rand((2, 3, 6, 7), F64)), ("rois", ROIS.astype(F64)), ("batch_indices", batch)],
          dict(output_height=2, output_width=2), runtimes=("reference",))


@pytest.mark.parametrize("center_point_box", [0, 1])
def test_non_max_suppression(center_point_box):
    boxes = rand((2, 12, 4), F32, 0, 10)
    if center_point_box:
        boxes[..., 2:] = np.abs(boxes[..., 2:]) / 2
    scores = np.round(rand((2, 3, 12), F32, 0, 1), 1)  # ties on purpose
    for version in (10, 11):
        for limit, iou, threshold in ((3, 0.3, 0.4), (12, 0.0, None), (2, 0.6, 0.5), (0, 0.5, None)):
            feeds = [("boxes", boxes), ("scores", scores), ("max_output_boxes_per_class", np.array([limit])),
                     ("iou_threshold", np.array([iou], F32)),
                     ("score_threshold", np.array([threshold], F32) if threshold is not None else None)]
            check("NonMaxSuppression", version, feeds, dict(center_point_box=center_point_box),
                  out_dtypes=[np.int64])
        # absent inputs: no limit given keeps nothing
        assert ours("NonMaxSuppression", version, [("boxes", boxes), ("scores", scores)], {})[0].shape == (0, 3)


def test_non_max_suppression_threshold_is_strict():
    boxes = np.array([[[0, 0, 1, 1], [2, 2, 3, 3], [4, 4, 5, 5]]], F32)
    scores = np.array([[[0.5, 0.7, 0.4]]], F32)
    feeds = [("boxes", boxes), ("scores", scores), ("max_output_boxes_per_class", np.array([5])),
             ("iou_threshold", np.array([0.5], F32)), ("score_threshold", np.array([0.5], F32))]
    got = check("NonMaxSuppression", 11, feeds, {}, out_dtypes=[np.int64])[0]
    np.testing.assert_array_equal(got, [[0, 0, 1]])


def test_affine_grid():
    for size in ([2, 3, 4, 5], [1, 2, 3, 1], [2, 1, 2, 3, 4], [1, 1, 1, 2, 1]):
        rank = len(size) - 2
        theta = rand((size[0], rank, rank + 1), F32, -1.5, 1.5)
        for align_corners in (0, 1):
            attrs = dict(align_corners=align_corners)
            feeds = [("theta", theta), ("size", np.array(size, np.int64))]
            # an axis of one pixel with align_corners: torch centres it at 0, onnx.reference at -1,
            # onnxruntime at 1; opgen follows torch (the same centre as without align_corners)
            unit = align_corners and 1 in size[2:]
            got = check("AffineGrid", 20, feeds, attrs, runtimes=() if unit else ("reference", "ort"))[0] \
                if not unit else ours("AffineGrid", 20, feeds, attrs)[0]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # torch warns about unit-size grids with align_corners
                want = torch.nn.functional.affine_grid(torch.from_numpy(theta.astype(F64)), size,
                                                       align_corners=bool(align_corners)).numpy()
            assert_close(got, want.astype(F32), f"AffineGrid torch {size} {attrs}")
    theta = rand((1, 2, 3), F16)
    check_rounded("AffineGrid", 20, [("theta", theta), ("size", np.array([1, 1, 3, 4]))], {})
