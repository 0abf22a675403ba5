"""oneDNN convolutions, pooling and Interpolate (generator/runtime/kernels/onednn_conv_pool.py) against torch
on CPU: random shapes in both data formats (NCX, NXC), both weights formats, groups, strides, dilations,
pads, ceil rounding and exclude_pad.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as tf

import opgen
from opgen.validate import validate_model
from conftest import onednn_kernel as kernel

RNG = np.random.default_rng(20261127)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def t(x: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(x))


def nxc(x: np.ndarray) -> np.ndarray:
    return np.moveaxis(x, 1, -1)


def spatial_first(w: np.ndarray) -> np.ndarray:
    """OIX -> XIO and IOX -> XOI: the spatial axes first, the two channel axes swapped after them."""
    return w.transpose((*range(2, w.ndim), 1, 0))


def layouts(data_format: str, x: np.ndarray) -> np.ndarray:
    return nxc(x) if data_format == "NXC" else x


def close(got: np.ndarray, want: torch.Tensor, data_format: str = "NCX") -> None:
    expected = layouts(data_format, want.detach().numpy())
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def conv_attrs(strides: tuple[int, ...], dilations: tuple[int, ...], begin: tuple[int, ...], end: tuple[int, ...],
               groups: int, data_format: str, **more: Any) -> dict[str, Any]:
    return {"strides": list(strides), "dilations": list(dilations), "pads_begin": list(begin), "pads_end": list(end),
            "groups": groups, "data_format": data_format, **more}


# (src NCX, channels out, kernel, groups, strides, dilations, pads_begin, pads_end)
CONVS = [
    ((2, 4, 7, 6), 6, (3, 2), 2, (1, 2), (1, 1), (1, 0), (1, 1)),
    ((1, 3, 9), 4, (3,), 1, (2,), (2,), (2,), (0,)),
    ((1, 4, 5, 6, 4), 4, (2, 3, 2), 4, (1, 1, 2), (2, 1, 1), (0, 1, 1), (1, 1, 0)),
]


@pytest.mark.parametrize("data_format,weights_format", [("NCX", "OIX"), ("NXC", "XIO")])
@pytest.mark.parametrize("case", CONVS, ids=lambda c: f"{len(c[0]) - 2}d-g{c[3]}")
def test_convolution_and_its_data_gradient_match_torch(case: tuple[Any, ...], data_format: str,
                                                       weights_format: str) -> None:
    src_shape, out_channels, k, groups, strides, dilations, begin, end = case
    src, w = rand(*src_shape), rand(out_channels, src_shape[1] // groups, *k)
    bias = rand(out_channels)
    conv = {1: tf.conv1d, 2: tf.conv2d, 3: tf.conv3d}[len(k)]
    padded = tf.pad(t(src), [p for b, e in zip(reversed(begin), reversed(end)) for p in (b, e)])
    want = conv(padded, t(w), t(bias), stride=strides, dilation=dilations, groups=groups)
    weights = spatial_first(w) if weights_format == "XIO" else w
    attrs = conv_attrs(strides, dilations, begin, end, groups, data_format, weights_format=weights_format)
    (got,) = kernel("Convolution")(layouts(data_format, src), weights, bias, **attrs)
    close(got, want, data_format)
    # the gradient with respect to src, through torch's autograd on the same convolution
    diff_dst = rand(*want.shape)
    x = t(src).requires_grad_()
    y = conv(tf.pad(x, [p for b, e in zip(reversed(begin), reversed(end)) for p in (b, e)]), t(w), stride=strides,
             dilation=dilations, groups=groups)
    (grad,) = torch.autograd.grad(y, x, t(diff_dst))
    (got,) = kernel("ConvolutionBackwardData")(layouts(data_format, diff_dst), weights,
                                               dst_shape=list(layouts(data_format, src).shape), **attrs)
    close(got, grad, data_format)


@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel lengths")
@pytest.mark.parametrize("auto_pad", ["SAME_UPPER", "SAME_LOWER", "VALID"])
def test_convolution_auto_pad_matches_torch(auto_pad: str) -> None:
    # stride 1: SAME is torch's padding="same" (which puts the odd padding at the end, as SAME_UPPER)
    src, w = rand(1, 2, 6, 7), rand(3, 2, 3, 4)
    attrs = conv_attrs((1, 1), (1, 1), (5, 5), (5, 5), 1, "NCX", weights_format="OIX", auto_pad=auto_pad)
    (got,) = kernel("Convolution")(src, w, **attrs)
    if auto_pad == "SAME_LOWER":  # the odd padding first
        want = tf.conv2d(tf.pad(t(src), [2, 1, 1, 1]), t(w))
    else:
        want = tf.conv2d(t(src), t(w), padding="same" if auto_pad == "SAME_UPPER" else 0)
    close(got, want)


# (src NCX, out channels per group, kernel, groups, strides, dilations, pads, output_padding)
TRANSPOSED = [
    ((2, 4, 5, 4), 3, (3, 2), 2, (2, 1), (1, 2), (1, 0), (1, 0)),
    ((1, 3, 6), 2, (4,), 3, (3,), (1,), (2,), (2,)),
]


@pytest.mark.parametrize("data_format,weights_format", [("NCX", "IOX"), ("NXC", "XOI")])
@pytest.mark.parametrize("case", TRANSPOSED, ids=lambda c: f"{len(c[0]) - 2}d-g{c[3]}")
def test_conv_transpose_and_its_data_gradient_match_torch(case: tuple[Any, ...], data_format: str,
                                                          weights_format: str) -> None:
    src_shape, per_group, k, groups, strides, dilations, pads, output_padding = case
    src, w, bias = rand(*src_shape), rand(src_shape[1], per_group, *k), rand(per_group * groups)
    conv = {1: tf.conv_transpose1d, 2: tf.conv_transpose2d}[len(k)]
    x = t(src).requires_grad_()
    want = conv(x, t(w), t(bias), stride=strides, padding=pads, output_padding=output_padding, groups=groups,
                dilation=dilations)
    weights = spatial_first(w) if weights_format == "XOI" else w
    attrs = conv_attrs(strides, dilations, pads, pads, groups, data_format, weights_format=weights_format)
    (got,) = kernel("ConvTranspose")(layouts(data_format, src), weights, bias,
                                     output_padding=list(output_padding), **attrs)
    close(got, want, data_format)
    if any(output_padding):
        return  # ConvTransposeBackwardData has no output_padding: its diff_dst is the plain forward's size
    diff_dst = rand(*want.shape)
    (grad,) = torch.autograd.grad(want, x, t(diff_dst))
    (got,) = kernel("ConvTransposeBackwardData")(layouts(data_format, diff_dst), weights, **attrs)
    close(got, grad, data_format)


def test_conv_transpose_data_gradient_without_output_padding() -> None:
    src, w = rand(2, 4, 5, 4), rand(4, 3, 3, 2)
    x = t(src).requires_grad_()
    y = tf.conv_transpose2d(x, t(w), stride=(2, 1), padding=(1, 0), groups=2, dilation=(1, 2))
    diff_dst = rand(*y.shape)
    (grad,) = torch.autograd.grad(y, x, t(diff_dst))
    attrs = conv_attrs((2, 1), (1, 2), (1, 0), (1, 0), 2, "NXC", weights_format="XOI")
    (got,) = kernel("ConvTransposeBackwardData")(nxc(diff_dst), spatial_first(w), **attrs)
    close(got, grad, "NXC")


# (src NCX, kernel, strides, dilations, pads, rounding_type)
POOLS = [
    ((2, 3, 7, 6), (3, 2), (2, 2), (1, 1), (1, 1), "floor"),
    ((1, 2, 8, 7), (3, 3), (2, 3), (2, 1), (1, 0), "ceil"),
    ((1, 2, 9), (4,), (3,), (1,), (2,), "ceil"),
]


@pytest.mark.parametrize("data_format", ["NCX", "NXC"])
@pytest.mark.parametrize("case", POOLS, ids=lambda c: f"{len(c[0]) - 2}d-{c[5]}")
def test_pools_match_torch(case: tuple[Any, ...], data_format: str) -> None:
    src_shape, k, strides, dilations, pads, rounding = case
    src = rand(*src_shape)
    ceil = rounding == "ceil"
    pool = {1: tf.max_pool1d, 2: tf.max_pool2d}[len(k)]
    want = pool(t(src), k, strides, pads, dilations, ceil_mode=ceil)
    attrs = {"kernel": list(k), "strides": list(strides), "pads_begin": list(pads), "pads_end": list(pads),
             "data_format": data_format, "rounding_type": rounding}
    (got,) = kernel("MaxPool")(layouts(data_format, src), dilations=list(dilations), **attrs)
    close(got, want, data_format)
    average = {1: tf.avg_pool1d, 2: tf.avg_pool2d}[len(k)]
    for exclude_pad in ([True] if ceil else [True, False]):  # ceil with padding counted: see avg_pool
        want = average(t(src), k, strides, pads, ceil_mode=ceil, count_include_pad=not exclude_pad)
        (got,) = kernel("AvgPool")(layouts(data_format, src), exclude_pad=exclude_pad, **attrs)
        close(got, want, data_format)


@pytest.mark.parametrize("data_format", ["NCX", "NXC"])
@pytest.mark.parametrize("mode,shape,sizes,align", [
    ("nearest", (2, 3, 5, 7), [8, 4], False), ("bilinear", (1, 2, 4, 6), [7, 3], False),
    ("bilinear", (1, 2, 4, 6), [9, 5], True), ("linear", (2, 2, 5), [11], False),
    ("trilinear", (1, 2, 3, 4, 5), [5, 3, 7], False)])
def test_interpolate_matches_torch(mode: str, shape: tuple[int, ...], sizes: list[int], align: bool,
                                   data_format: str) -> None:
    src = rand(*shape)
    if mode == "nearest":  # torch's nearest-exact: the half-pixel source coordinate rounded
        want = tf.interpolate(t(src), size=sizes, mode="nearest-exact")
    else:
        want = tf.interpolate(t(src), size=sizes, mode=mode, align_corners=align)
    attrs = {"mode": mode, "data_format": data_format,
             "coordinate_transformation_mode": "align_corners" if align else "half_pixel"}
    (got,) = kernel("Interpolate")(layouts(data_format, src), sizes=sizes, **attrs)
    close(got, want, data_format)
    (got,) = kernel("Interpolate")(layouts(data_format, src), np.array(sizes, np.int32), **attrs)
    close(got, want, data_format)


def test_interpolate_scales_give_truncated_sizes() -> None:
    src = rand(1, 2, 4, 6)
    want = tf.interpolate(t(src), size=[10, 3], mode="bilinear")  # 4 * 2.5, 6 * 0.6 truncated
    (got,) = kernel("Interpolate")(src, mode="bilinear", scales=[2.5, 0.6], data_format="NCX")
    close(got, want)


@pytest.mark.parametrize("data_format", ["NCX", "NXC"])
def test_pool_gradients_match_torch_autograd(data_format: str) -> None:
    src = rand(2, 3, 7, 6)
    x = t(src).requires_grad_()
    attrs = {"kernel": [3, 2], "strides": [2, 2], "pads_begin": [1, 0], "pads_end": [1, 0], "data_format": data_format}
    y = tf.max_pool2d(x, (3, 2), (2, 2), (1, 0), (2, 1))
    diff_dst = rand(*y.shape)
    (want,) = torch.autograd.grad(y, x, t(diff_dst))
    (got,) = kernel("MaxPoolBackward")(layouts(data_format, src), layouts(data_format, diff_dst), dilations=[2, 1],
                                       **attrs)
    close(got, want, data_format)
    for exclude_pad in (True, False):
        y = tf.avg_pool2d(x, (3, 2), (2, 2), (1, 0), count_include_pad=not exclude_pad)
        diff_dst = rand(*y.shape)
        (want,) = torch.autograd.grad(y, x, t(diff_dst))
        (got,) = kernel("AvgPoolBackward")(layouts(data_format, diff_dst), exclude_pad=exclude_pad,
                                           src_shape=list(layouts(data_format, src).shape), **attrs)
        close(got, want, data_format)


@pytest.mark.parametrize("data_format,weights_format", [("NCX", "OIX"), ("NXC", "XIO")])
def test_weight_gradients_match_torch_autograd(data_format: str, weights_format: str) -> None:
    src, w = rand(2, 4, 7, 6), rand(6, 2, 3, 2)  # 2 groups
    x, weight = t(src), t(w).requires_grad_()
    y = tf.conv2d(tf.pad(x, [0, 1, 1, 1]), weight, stride=(2, 1), dilation=(1, 2), groups=2)
    diff_dst = rand(*y.shape)
    (want,) = torch.autograd.grad(y, weight, t(diff_dst))
    attrs = conv_attrs((2, 1), (1, 2), (1, 0), (1, 1), 2, data_format)
    shape = list(spatial_first(w).shape if weights_format == "XIO" else w.shape)
    (got,) = kernel("ConvolutionBackwardWeights")(layouts(data_format, src), layouts(data_format, diff_dst),
                                                  weights_shape=shape, weights_format=weights_format, **attrs)
    close(got, torch.from_numpy(spatial_first(want.numpy())) if weights_format == "XIO" else want)
    # the transposed convolution's weights (IOX: all input channels, the output channels of one group)
    wt = t(rand(4, 3, 3, 2)).requires_grad_()
    y = tf.conv_transpose2d(x, wt, stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2)
    diff_dst = rand(*y.shape)
    (want,) = torch.autograd.grad(y, wt, t(diff_dst))
    transposed_format = "XOI" if weights_format == "XIO" else "IOX"
    attrs = conv_attrs((2, 1), (1, 2), (1, 0), (1, 0), 2, data_format)
    shape = [4, 3, 3, 2] if transposed_format == "IOX" else [3, 2, 3, 4]
    (got,) = kernel("ConvTransposeBackwardWeights")(layouts(data_format, src), layouts(data_format, diff_dst),
                                                    np.array(shape, np.int32), weights_format=transposed_format,
                                                    **attrs)
    close(got, torch.from_numpy(spatial_first(want.numpy())) if transposed_format == "XOI" else want)


def test_benchdnn_avgpool_chain_validates_and_runs_and_negative_pads_are_refused() -> None:
    """benchdnn's pattern avgpool_3d_chain_fusion.json holds pads_end [-1, 1, 0], but the library refuses a
    negative pad when the op is added (its op-definition check on pads_begin/pads_end) and every harness
    line running the pattern replaces pads_end (0x1x0 with this kernel); the graph here is that pattern with
    the harness's attributes, smaller. Its AvgPool is checked against torch (zero padding, the sum divided
    by the count of real elements under the window: exclude_pad)."""
    path = Path(__file__).resolve().parent / "data" / "onednn" / "avgpool_3d_chain_fusion.json"
    assert validate_model(path).valid
    x, scale, mul, sub = rand(1, 2, 6, 9, 7), rand(1, 2, 1, 1, 1), rand(1, 1, 1, 1, 1), rand(1, 1, 1, 1, 1)
    pads = (1, 0, 1, 1, 1, 0)  # torch's order: the last axis first, (begin, end) each
    window_sum = tf.avg_pool3d(tf.pad(t(x), pads), (2, 4, 3), (2, 2, 2), divisor_override=1)
    count = tf.avg_pool3d(tf.pad(torch.ones_like(t(x)), pads), (2, 4, 3), (2, 2, 2), divisor_override=1)
    want = (window_sum / count / t(scale)) * t(mul) - t(sub)
    got = opgen.run_model(path, [x, scale, mul, sub])["6305"]
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-5)
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["graph"][0]["attrs"]["pads_end"]["value"] = [-1, 1, 0]  # the pattern file's own value
    problems = [str(p) for p in validate_model(doc).problems]
    assert len(problems) == 1 and "node 'POOL_0'" in problems[0] and "constraint C2" in problems[0], problems


# The ops whose schema the library checks for non-negative pads when they are added to a graph
# (src/graph/interface/op_def.hpp: check_pads)
LIBRARY_CHECKS_PADS = {"AvgPool", "AvgPoolBackward", "Convolution", "ConvolutionBackwardData",
                       "ConvolutionBackwardWeights", "ConvTranspose", "ConvTransposeBackwardData",
                       "ConvTransposeBackwardWeights", "MaxPool", "MaxPoolBackward"}


def test_every_op_with_pads_refuses_a_negative_pad_as_the_library_does() -> None:
    path = Path(__file__).resolve().parent / "data" / "onednn" / "linear_conv_pool.json"
    original = json.loads(path.read_text(encoding="utf-8"))
    refused = set()
    for index, op in enumerate(original["graph"]):
        if "pads_end" not in op["attrs"]:
            continue
        doc = json.loads(json.dumps(original))
        pads = doc["graph"][index]["attrs"]["pads_end"]
        pads["value"] = [-1] + pads["value"][1:]
        problems = [str(p) for p in validate_model(doc).problems]
        if any(f"node '{op['name']}'" in p and "non-negative" in p for p in problems):
            refused.add(op["kind"])
    assert refused == LIBRARY_CHECKS_PADS
