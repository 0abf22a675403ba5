"""oneDNN Graph convolutions, pooling and Interpolate as thin adapters over the ONNX kernels.

One implementation per semantics: a oneDNN Convolution is ONNX Conv, ConvTranspose is ONNX ConvTranspose,
MaxPool/AvgPool are ONNX's pools and Interpolate is ONNX Resize (all in turn the hlir kernels). What the
adapters add is oneDNN's way of saying the same thing, as its shape inference and graph backend read it:
- data_format NXC (channels last) is moved to NCX and back; weights_format XIO (Convolution) and XOI
  (the transposed convolutions) are moved to OIX and IOX, the layouts of ONNX's W;
- pads_begin/pads_end (empty: zeros) become ONNX pads; auto_pad SAME_UPPER/SAME_LOWER/VALID is resolved
  here to explicit pads as the library does (infer_auto_pad: a transposed convolution pads
  dilated kernel - stride in all, whatever the input size);
- rounding_type ceil pads the end of each spatial axis up to the last window, as the library's pooling
  executable does (no ONNX rule dropping a window that starts in the padding), and an average then
  excludes every padded position (the backend uses exclude-padding averaging for ceil rounding);
- the backward-data ops are the forward ops they differentiate: ConvolutionBackwardData is the
  transposed convolution with the same weights, ConvTransposeBackwardData the convolution with the IOX
  weights read as OIX; the extra size that makes diff_src the forward src's shape (dst_shape) goes to
  the end of each axis.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..elementwise import compute_dtype
from .convolution import conv
from .onnx_conv import onnx_conv, onnx_conv_transpose
from .onnx_pool import onnx_average_pool, onnx_max_pool
from .onnx_resize import onnx_resize


def _to_ncx(x: np.ndarray, data_format: str) -> np.ndarray:
    return np.moveaxis(np.asarray(x), -1, 1) if data_format == "NXC" else np.asarray(x)


def _from_ncx(y: np.ndarray, data_format: str) -> np.ndarray:
    return np.moveaxis(y, 1, -1) if data_format == "NXC" else y


def _weights_first(w: np.ndarray, spatial_first: bool) -> np.ndarray:
    """XIO -> OIX and XOI -> IOX: the last two axes, swapped, before the spatial ones."""
    w = np.asarray(w)
    if not spatial_first:
        return w
    rank = w.ndim
    return w.transpose((rank - 1, rank - 2, *range(rank - 2)))


def _explicit_pads(sizes: Sequence[int], effective: Sequence[int], strides: Sequence[int],
                   pads_begin: Sequence[int], pads_end: Sequence[int], auto_pad: str,
                   transposed: bool = False) -> tuple[list[int], list[int]]:
    """(begin, end) padding of each spatial axis, auto_pad resolved as the library's infer_auto_pad:
    SAME pads (effective kernel - stride), or - (size % stride) when the stride does not divide the size
    (a transposed convolution always the former), at least 0; the odd one goes to the end for
    SAME_UPPER and to the beginning for SAME_LOWER."""
    n = len(sizes)
    if auto_pad == "VALID":
        return [0] * n, [0] * n
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        begin, end = [], []
        for x, e, s in zip(sizes, effective, strides):
            total = max(e - s if transposed or x % s == 0 else e - x % s, 0)
            first = (total + 1) // 2 if auto_pad == "SAME_LOWER" else total // 2
            begin.append(first)
            end.append(total - first)
        return begin, end
    return [int(p) for p in pads_begin] or [0] * n, [int(p) for p in pads_end] or [0] * n


def _effective(kernel: Sequence[int], dilations: Sequence[int]) -> list[int]:
    return [d * (k - 1) + 1 for k, d in zip(kernel, dilations)]


def convolution(src: np.ndarray, weights: np.ndarray, bias: np.ndarray | None = None, *, strides: Sequence[int],
                pads_begin: Sequence[int], pads_end: Sequence[int], dilations: Sequence[int], auto_pad: str = "None",
                groups: int = 1, data_format: str = "NXC", weights_format: str = "XIO") -> np.ndarray:
    """ONNX Conv of src (NCX/NXC) with weights (OIX/XIO; grouped: I is the input channels of one group)."""
    x = _to_ncx(src, data_format)
    w = _weights_first(weights, weights_format == "XIO")
    begin, end = _explicit_pads(x.shape[2:], _effective(w.shape[2:], dilations), strides, pads_begin, pads_end,
                                auto_pad)
    y = onnx_conv(x, w, bias, dilations=list(dilations), group=groups, pads=begin + end, strides=list(strides))
    return _from_ncx(y, data_format)


def conv_transpose(src: np.ndarray, weights: np.ndarray, bias: np.ndarray | None = None, *, strides: Sequence[int],
                   pads_begin: Sequence[int], pads_end: Sequence[int], dilations: Sequence[int],
                   output_padding: Sequence[int] | None = None, auto_pad: str = "None", groups: int = 1,
                   data_format: str = "NXC", weights_format: str = "XOI") -> np.ndarray:
    """ONNX ConvTranspose of src with weights IOX/XOI (all input channels, the output channels of one
    group: torch's conv_transpose layout); output_padding adds to the end of each axis."""
    x = _to_ncx(src, data_format)
    w = _weights_first(weights, weights_format == "XOI")
    begin, end = _explicit_pads(x.shape[2:], _effective(w.shape[2:], dilations), strides, pads_begin, pads_end,
                                auto_pad, transposed=True)
    extra = list(output_padding) if output_padding else [0] * (x.ndim - 2)
    y = onnx_conv_transpose(x, w, bias, dilations=list(dilations), group=groups, output_padding=extra,
                            pads=begin + end, strides=list(strides))
    return _from_ncx(y, data_format)


def convolution_backward_data(diff_dst: np.ndarray, weights: np.ndarray, dst_shape_input: np.ndarray | None = None,
                              *, strides: Sequence[int], pads_begin: Sequence[int], pads_end: Sequence[int],
                              dilations: Sequence[int], dst_shape: Sequence[int] | None = None,
                              output_padding: Sequence[int] | None = None, auto_pad: str = "None", groups: int = 1,
                              data_format: str = "NXC", weights_format: str = "XIO") -> np.ndarray:
    """The gradient of Convolution with respect to src: the transposed convolution of diff_dst with the
    same weights (OIX is the transposed convolution's IOX), of the forward src's shape (dst_shape, the
    attribute or the input; output_padding is then implied and not read)."""
    target = dst_shape if dst_shape_input is None else [int(v) for v in np.asarray(dst_shape_input).ravel()]
    if target is None or len(target) != np.ndim(diff_dst):
        raise ValueError("onednn.ConvolutionBackwardData: dst_shape (the forward src's shape, the attribute or the "
                         "input) must give every dimension")
    y = _to_ncx(diff_dst, data_format)
    w = _weights_first(weights, weights_format == "XIO")
    sizes = list(target[2:]) if data_format == "NCX" else list(target[1:-1])
    effective = _effective(w.shape[2:], dilations)
    begin, end = _explicit_pads(sizes, effective, strides, pads_begin, pads_end, auto_pad)
    full = [s * (n - 1) + e for n, s, e in zip(y.shape[2:], strides, effective)]
    extra = [x - (f - b - a) for x, f, b, a in zip(sizes, full, begin, end)]
    x = onnx_conv_transpose(y, w, None, dilations=list(dilations), group=groups, output_padding=extra,
                            pads=begin + end, strides=list(strides))
    return _from_ncx(x, data_format)


def conv_transpose_backward_data(diff_dst: np.ndarray, weights: np.ndarray, *, strides: Sequence[int],
                                 pads_begin: Sequence[int], pads_end: Sequence[int], dilations: Sequence[int],
                                 auto_pad: str = "None", groups: int = 1, data_format: str = "NXC",
                                 weights_format: str = "XOI") -> np.ndarray:
    """The gradient of ConvTranspose with respect to src: the convolution of diff_dst with the weights,
    IOX read as OIX (the forward's input channels are the convolution's output channels)."""
    return convolution(diff_dst, np.asarray(weights), strides=strides, pads_begin=pads_begin, pads_end=pads_end,
                       dilations=dilations, auto_pad=auto_pad, groups=groups, data_format=data_format,
                       weights_format="XIO" if weights_format == "XOI" else "OIX")


def _pool_pads(x: np.ndarray, kernel: Sequence[int], strides: Sequence[int], dilations: Sequence[int],
               pads_begin: Sequence[int], pads_end: Sequence[int], auto_pad: str,
               rounding_type: str) -> tuple[list[int], list[int]]:
    """Explicit pads of a pooling; ceil rounding extends the end padding to reach the last window that
    starts before the end of the padded input, as the library's pooling executable does."""
    effective = _effective(kernel, dilations)
    begin, end = _explicit_pads(x.shape[2:], effective, strides, pads_begin, pads_end, auto_pad)
    if rounding_type == "ceil":
        for i, (n, e, s) in enumerate(zip(x.shape[2:], effective, strides)):
            count = -(-(n + begin[i] + end[i] - e) // s) + 1
            end[i] = (count - 1) * s + e - n - begin[i]
    return begin, end


def max_pool(src: np.ndarray, *, strides: Sequence[int], pads_begin: Sequence[int], pads_end: Sequence[int],
             kernel: Sequence[int], dilations: Sequence[int] | None = None, data_format: str = "NXC",
             rounding_type: str = "floor", auto_pad: str = "None") -> np.ndarray:
    """ONNX MaxPool (padding positions hold no value) over the spatial axes; dilations 1 is no dilation."""
    x = _to_ncx(src, data_format)
    dil = list(dilations) if dilations else [1] * len(kernel)
    begin, end = _pool_pads(x, kernel, strides, dil, pads_begin, pads_end, auto_pad, rounding_type)
    y, = onnx_max_pool(x, kernel_shape=list(kernel), pads=begin + end, strides=list(strides), dilations=dil,
                       requested_outputs=("Y",))
    return _from_ncx(y, data_format)


def avg_pool(src: np.ndarray, *, strides: Sequence[int], pads_begin: Sequence[int], pads_end: Sequence[int],
             exclude_pad: bool, kernel: Sequence[int], data_format: str = "NXC", rounding_type: str = "floor",
             auto_pad: str = "None") -> np.ndarray:
    """ONNX AveragePool; exclude_pad false counts the padded positions in the divisor (the whole
    kernel), except with ceil rounding, where the library averages over the positions inside src only."""
    x = _to_ncx(src, data_format)
    begin, end = _pool_pads(x, kernel, strides, [1] * len(kernel), pads_begin, pads_end, auto_pad, rounding_type)
    include = not exclude_pad and rounding_type != "ceil"
    y = onnx_average_pool(x, kernel_shape=list(kernel), pads=begin + end, strides=list(strides),
                          count_include_pad=int(include))
    return _from_ncx(y, data_format)


def interpolate(src: np.ndarray, sizes_input: np.ndarray | None = None, *, mode: str,
                sizes: Sequence[int] | None = None, scales: Sequence[float] | None = None,
                coordinate_transformation_mode: str = "half_pixel", data_format: str = "NXC") -> Any:
    """ONNX Resize over the spatial axes to the output sizes (the sizes attribute, size * scale truncated,
    or the sizes input); the source coordinates come from the sizes (input / output), as in the library's
    resampling. nearest rounds the half_pixel coordinate half away from zero (round_prefer_ceil, as
    roundf on coordinates that are not negative); linear, bilinear and trilinear are one N-linear mode."""
    x = _to_ncx(src, data_format)
    spatial = list(x.shape[2:])
    if sizes:
        target = [int(v) for v in sizes]
    elif scales:
        target = [int(n * f) for n, f in zip(spatial, scales)]
    elif sizes_input is not None:
        target = [int(v) for v in np.asarray(sizes_input).ravel()]
    else:
        raise ValueError("onednn.Interpolate: give sizes (the attribute or the input) or scales")
    if len(target) != len(spatial):
        raise ValueError(f"onednn.Interpolate: {len(target)} output sizes for {len(spatial)} spatial dimensions")
    out = np.array(list(x.shape[:2]) + target, np.int64)
    y = onnx_resize(x, None, None, out, mode="nearest" if mode == "nearest" else "linear",
                    coordinate_transformation_mode=coordinate_transformation_mode, nearest_mode="round_prefer_ceil")
    return _from_ncx(y, data_format)


def max_pool_backward(src: np.ndarray, diff_dst: np.ndarray, *, strides: Sequence[int], pads_begin: Sequence[int],
                      pads_end: Sequence[int], kernel: Sequence[int], auto_pad: str = "None",
                      dilations: Sequence[int] | None = None, data_format: str = "NXC") -> np.ndarray:
    """The gradient of MaxPool: each element of diff_dst added at the position of its window's maximum,
    which ONNX MaxPool's Indices give (the first maximum in the window's row-major order)."""
    x = _to_ncx(src, data_format)
    dy = _to_ncx(diff_dst, data_format)
    dil = list(dilations) if dilations else [1] * len(kernel)
    begin, end = _pool_pads(x, kernel, strides, dil, pads_begin, pads_end, auto_pad, "floor")
    _, index = onnx_max_pool(x, kernel_shape=list(kernel), pads=begin + end, strides=list(strides), dilations=dil)
    if index.shape != dy.shape:
        raise ValueError(f"onednn.MaxPoolBackward: diff_dst has shape {list(np.shape(diff_dst))}, the pooling of src "
                         f"gives {list(_from_ncx(index, data_format).shape)}")
    work = compute_dtype(dy.dtype)
    grad = np.zeros(x.size, work)
    np.add.at(grad, index.ravel(), dy.astype(work).ravel())
    return _from_ncx(grad.reshape(x.shape).astype(dy.dtype), data_format)


def avg_pool_backward(diff_dst: np.ndarray, src_shape_input: np.ndarray | None = None, *, strides: Sequence[int],
                      pads_begin: Sequence[int], pads_end: Sequence[int], exclude_pad: bool, kernel: Sequence[int],
                      src_shape: Sequence[int] | None = None, auto_pad: str = "None",
                      data_format: str = "NXC") -> np.ndarray:
    """The gradient of AvgPool: each element of diff_dst divided by its window's divisor (the kernel
    size, or with exclude_pad the window's positions inside src) and spread over the window: the
    transposed convolution of diff_dst / divisor with a kernel of ones per channel (ONNX ConvTranspose)."""
    shape = src_shape if src_shape_input is None else [int(v) for v in np.asarray(src_shape_input).ravel()]
    if shape is None or len(shape) != np.ndim(diff_dst):
        raise ValueError("onednn.AvgPoolBackward: src_shape (the attribute or the input) must give every dimension")
    dy = _to_ncx(diff_dst, data_format)
    work = compute_dtype(dy.dtype)
    ones = np.ones(_to_ncx(np.empty(shape, np.bool_), data_format).shape, work)
    begin, end = _pool_pads(ones, kernel, strides, [1] * len(kernel), pads_begin, pads_end, auto_pad, "floor")
    size = float(np.prod(kernel))
    divisor = onnx_average_pool(ones, kernel_shape=list(kernel), pads=begin + end, strides=list(strides),
                                count_include_pad=1) * size if exclude_pad else np.full(dy.shape, size, work)
    channels = ones.shape[1]
    spread = np.ones((channels, 1, *kernel), work)
    full = [s * (n - 1) + k for n, s, k in zip(dy.shape[2:], strides, kernel)]
    extra = [n - (f - b - e) for n, f, b, e in zip(ones.shape[2:], full, begin, end)]
    grad = onnx_conv_transpose(dy.astype(work) / divisor, spread, None, group=channels, output_padding=extra,
                               pads=begin + end, strides=list(strides))
    return _from_ncx(grad.astype(dy.dtype), data_format)


def _weights_gradient(x: np.ndarray, dy: np.ndarray, kernel: Sequence[int], strides: Sequence[int],
                      dilations: Sequence[int], begin: list[int], end: list[int], groups: int) -> np.ndarray:
    """d(conv(x, w)) / dw as (O, I, k...) for NCX x and dy: per group, hlir.Conv of x with dy as the
    kernel, batch and feature swapped (XLA's weight gradient: the forward's dilation is the window
    stride and its stride the kernel dilation), cut to the kernel's size."""
    rank = len(kernel)
    spatial = list(range(2, 2 + rank))
    per_in, per_out = x.shape[1] // groups, dy.shape[1] // groups
    parts = []
    for g in range(groups):
        part = conv(x[:, g * per_in:(g + 1) * per_in], dy[:, g * per_out:(g + 1) * per_out],
                    input_batch_dimension=1, input_feature_dimension=0, input_spatial_dimensions=spatial,
                    kernel_output_feature_dimension=1, kernel_input_feature_dimension=0,
                    kernel_spatial_dimensions=spatial, output_batch_dimension=1, output_feature_dimension=0,
                    output_spatial_dimensions=spatial, window_strides=list(dilations), padding=begin + end,
                    lhs_dilation=[1] * rank, rhs_dilation=list(strides), feature_group_count=1, batch_group_count=1)
        parts.append(part[(slice(None), slice(None), *(slice(0, k) for k in kernel))])
    return np.concatenate(parts, axis=0)


def _weights_target(weights_shape: Sequence[int] | None, weights_shape_input: np.ndarray | None, rank: int,
                    op: str) -> list[int]:
    shape = weights_shape if weights_shape_input is None else [int(v) for v in np.asarray(weights_shape_input).ravel()]
    if shape is None or len(shape) != rank:
        raise ValueError(f"onednn.{op}: weights_shape (the attribute or the input) must give every dimension")
    return list(shape)


def convolution_backward_weights(src: np.ndarray, diff_dst: np.ndarray, weights_shape_input: np.ndarray | None = None,
                                 *, strides: Sequence[int], pads_begin: Sequence[int], pads_end: Sequence[int],
                                 dilations: Sequence[int], weights_shape: Sequence[int] | None = None,
                                 auto_pad: str = "None", groups: int = 1, data_format: str = "NXC",
                                 weights_format: str = "XIO") -> np.ndarray:
    """The gradient of Convolution with respect to its weights, in weights_format (OIX or XIO)."""
    shape = _weights_target(weights_shape, weights_shape_input, np.ndim(src), "ConvolutionBackwardWeights")
    kernel = shape[2:] if weights_format == "OIX" else shape[:-2]
    x, dy = _to_ncx(src, data_format), _to_ncx(diff_dst, data_format)
    begin, end = _explicit_pads(x.shape[2:], _effective(kernel, dilations), strides, pads_begin, pads_end, auto_pad)
    dw = _weights_gradient(x, dy, kernel, strides, dilations, begin, end, groups)
    return _spatial_last_to_first(dw) if weights_format == "XIO" else dw


def conv_transpose_backward_weights(src: np.ndarray, diff_dst: np.ndarray,
                                    weights_shape_input: np.ndarray | None = None, *, strides: Sequence[int],
                                    pads_begin: Sequence[int], pads_end: Sequence[int], dilations: Sequence[int],
                                    weights_shape: Sequence[int] | None = None, auto_pad: str = "None",
                                    groups: int = 1, data_format: str = "NXC", weights_format: str = "XOI") -> np.ndarray:
    """The gradient of ConvTranspose with respect to its weights (IOX or XOI): ConvTranspose is the data
    gradient of the convolution of dst-shaped data with the IOX weights read as OIX, so its weight
    gradient is that convolution's, with diff_dst as the data and src as the output gradient."""
    shape = _weights_target(weights_shape, weights_shape_input, np.ndim(src), "ConvTransposeBackwardWeights")
    kernel = shape[2:] if weights_format == "IOX" else shape[:-2]
    x, dy = _to_ncx(src, data_format), _to_ncx(diff_dst, data_format)
    begin, end = _explicit_pads(x.shape[2:], _effective(kernel, dilations), strides, pads_begin, pads_end, auto_pad,
                                transposed=True)
    dw = _weights_gradient(dy, x, kernel, strides, dilations, begin, end, groups)
    return _spatial_last_to_first(dw) if weights_format == "XOI" else dw


def _spatial_last_to_first(w: np.ndarray) -> np.ndarray:
    """OIX -> XIO (and IOX -> XOI): the inverse of _weights_first."""
    return w.transpose((*range(2, w.ndim), 1, 0))
