"""ONNX convolutions: Conv, ConvTranspose, ConvInteger, QLinearConv, DeformConv and Col2Im.

Conv, ConvInteger and QLinearConv are hlir.ConvBias (kernels/convolution.py) in the NCHW layout: ONNX's
pads, strides, dilations, group and auto_pad mean what its padding, window_strides, rhs_dilation,
feature_group_count and auto_pad mean. ConvTranspose is the same convolution of the input dilated by
the strides (lhs_dilation) with the kernel flipped and its channel axes swapped, padded by
(k - 1) * dilation - pad on each side (the output_padding at the end). DeformConv samples the input at
offset positions (N-linear interpolation, kernels/vision.py) and multiplies the samples with the kernel
as one matrix product per group. Col2Im adds every block back at its place.

The integer convolutions subtract the zero points in int32 and accumulate in int32 (wrapping around,
as the hlir integer convolution does); QLinearConv rescales the int32 sums by x_scale * w_scale /
y_scale in float64, rounds half to even, adds y_zero_point and saturates.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..elementwise import compute_dtype
from .convolution import conv_bias
from .vision import sample_points


def _spatial(X: np.ndarray, W: np.ndarray, kernel_shape: Sequence[int] | None) -> int:
    rank = X.ndim - 2
    if kernel_shape is not None and list(kernel_shape) != list(W.shape[2:]):
        raise ValueError(f"kernel_shape {list(kernel_shape)} differs from the shape of W's spatial axes "
                         f"{list(W.shape[2:])}")
    return rank


def _nchw_conv(X: np.ndarray, W: np.ndarray, B: np.ndarray | None, *, rank: int, strides: Sequence[int] | None,
               pads: Sequence[int] | None, dilations: Sequence[int] | None, group: int, auto_pad: str,
               lhs_dilation: Sequence[int] | None = None) -> np.ndarray:
    spatial = list(range(2, 2 + rank))
    return conv_bias(X, W, B, input_batch_dimension=0, input_feature_dimension=1, input_spatial_dimensions=spatial,
                     kernel_output_feature_dimension=0, kernel_input_feature_dimension=1,
                     kernel_spatial_dimensions=spatial, output_batch_dimension=0, output_feature_dimension=1,
                     output_spatial_dimensions=spatial, window_strides=list(strides or [1] * rank),
                     padding=list(pads or [0] * (2 * rank)), lhs_dilation=list(lhs_dilation or [1] * rank),
                     rhs_dilation=list(dilations or [1] * rank), feature_group_count=int(group), batch_group_count=1,
                     auto_pad=auto_pad)


def onnx_conv(X: np.ndarray, W: np.ndarray, B: np.ndarray | None = None, *, auto_pad: str = "NOTSET",
              dilations: Sequence[int] | None = None, group: int = 1, kernel_shape: Sequence[int] | None = None,
              pads: Sequence[int] | None = None, strides: Sequence[int] | None = None) -> np.ndarray:
    """ONNX Conv: hlir.ConvBias in the NCHW layout."""
    X, W = np.asarray(X), np.asarray(W)
    rank = _spatial(X, W, kernel_shape)
    return _nchw_conv(X, W, B, rank=rank, strides=strides, pads=pads, dilations=dilations, group=group,
                      auto_pad=auto_pad)


def _transpose_pads(X: np.ndarray, kernel: Sequence[int], strides: list[int], dilations: list[int],
                    output_padding: list[int], pads: Sequence[int] | None, auto_pad: str,
                    output_shape: Sequence[int] | None) -> tuple[list[int], list[int]]:
    """(begin, end) amounts cut from the full transposed result of every spatial axis; a negative end
    amount extends the result with zeros."""
    rank = len(kernel)
    full = [s * (n - 1) + q + (k - 1) * d + 1
            for n, k, s, d, q in zip(X.shape[2:], kernel, strides, dilations, output_padding)]
    if output_shape is not None:
        target: list[int] | None = [int(v) for v in list(output_shape)[-rank:]]
    elif auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        target = [n * s for n, s in zip(X.shape[2:], strides)]
    else:
        target = None
    if target is None:
        given = list(pads) if pads is not None and auto_pad in ("NOTSET", "") else [0] * (2 * rank)
        return given[:rank], given[rank:]
    begin, end = [], []
    for f, t in zip(full, target):
        total = f - t
        if total < 0:  # a longer output than the full result: zeros at the end (note output_shape_padding)
            if output_shape is None:  # SAME with a kernel shorter than the stride pads nothing (note same_padding_clamped)
                total = 0
            begin.append(0)
            end.append(total)
            continue
        small, large = total // 2, total - total // 2
        begin.append(small if auto_pad == "SAME_UPPER" else large)
        end.append(large if auto_pad == "SAME_UPPER" else small)
    return begin, end


def onnx_conv_transpose(X: np.ndarray, W: np.ndarray, B: np.ndarray | None = None, *, auto_pad: str = "NOTSET",
                        dilations: Sequence[int] | None = None, group: int = 1,
                        kernel_shape: Sequence[int] | None = None, output_padding: Sequence[int] | None = None,
                        output_shape: Sequence[int] | None = None, pads: Sequence[int] | None = None,
                        strides: Sequence[int] | None = None) -> np.ndarray:
    """ONNX ConvTranspose as the convolution of the stride-dilated input with the flipped kernel. pads
    cut the full result (stride * (n - 1) + output_padding + (k - 1) * dilation + 1 long) at both ends;
    output_shape, or SAME_* (output = n * stride), sets the total cut, split in half with the odd one at
    the end for SAME_UPPER and at the beginning otherwise (pads are then ignored)."""
    X, W = np.asarray(X), np.asarray(W)
    rank = _spatial(X, W, kernel_shape)
    kernel = list(W.shape[2:])
    strides_ = list(strides or [1] * rank)
    dilations_ = list(dilations or [1] * rank)
    output_padding_ = list(output_padding or [0] * rank)
    begin, end = _transpose_pads(X, kernel, strides_, dilations_, output_padding_, pads, auto_pad, output_shape)
    g = int(group)
    C, Mg = W.shape[:2]
    if C % g:
        raise ValueError(f"W has {C} input channels, not a multiple of group {g}")
    # (C, M/g, k...) -> (M, C/g, k...) per group, spatially flipped
    flipped = W.reshape((g, C // g, Mg) + tuple(kernel)).swapaxes(1, 2).reshape((g * Mg, C // g) + tuple(kernel))
    flipped = flipped[(slice(None), slice(None)) + (slice(None, None, -1),) * rank]
    low = [(k - 1) * d - b for k, d, b in zip(kernel, dilations_, begin)]
    high = [(k - 1) * d - e + q for k, d, e, q in zip(kernel, dilations_, end, output_padding_)]
    return _nchw_conv(X, flipped, B, rank=rank, strides=None, pads=low + high, dilations=dilations_, group=g,
                      auto_pad="NOTSET", lhs_dilation=strides_)


def _centered(value: np.ndarray | None, channel_axis_size: int, rank: int) -> np.ndarray | int:
    """A zero point as int32, a per-channel one (1-D) shaped to broadcast over (M, C, k...)."""
    if value is None:
        return 0
    z = np.asarray(value).astype(np.int32)
    if z.ndim == 1 and z.size == channel_axis_size and z.size > 1:
        return z.reshape((-1,) + (1,) * (rank + 1))
    return z.reshape(())


def _integer_conv(x: np.ndarray, w: np.ndarray, x_zero_point: Any, w_zero_point: Any, B: Any, **conv: Any) -> np.ndarray:
    x, w = np.asarray(x), np.asarray(w)
    rank = _spatial(x, w, conv.pop("kernel_shape"))
    xi = x.astype(np.int32) - _centered(x_zero_point, 1, rank)
    wi = w.astype(np.int32) - _centered(w_zero_point, w.shape[0], rank)
    bias = np.asarray(B).astype(np.int32) if B is not None else None
    return _nchw_conv(xi, wi, bias, rank=rank, **conv)


def onnx_conv_integer(x: np.ndarray, w: np.ndarray, x_zero_point: np.ndarray | None = None,
                      w_zero_point: np.ndarray | None = None, *, auto_pad: str = "NOTSET",
                      dilations: Sequence[int] | None = None, group: int = 1, kernel_shape: Sequence[int] | None = None,
                      pads: Sequence[int] | None = None, strides: Sequence[int] | None = None,
                      y_dtype: Any = "int32") -> np.ndarray:
    """ONNX ConvInteger: (x - x_zero_point) conv (w - w_zero_point) in int32; w_zero_point may hold one
    value per output channel."""
    if np.dtype(y_dtype) != np.int32:
        raise ValueError(f"y is int32, got {y_dtype}")
    return _integer_conv(x, w, x_zero_point, w_zero_point, None, auto_pad=auto_pad, dilations=dilations,
                         group=group, kernel_shape=kernel_shape, pads=pads, strides=strides)


def onnx_qlinear_conv(x: np.ndarray, x_scale: np.ndarray, x_zero_point: np.ndarray, w: np.ndarray,
                      w_scale: np.ndarray, w_zero_point: np.ndarray, y_scale: np.ndarray, y_zero_point: np.ndarray,
                      B: np.ndarray | None = None, *, auto_pad: str = "NOTSET", dilations: Sequence[int] | None = None,
                      group: int = 1, kernel_shape: Sequence[int] | None = None, pads: Sequence[int] | None = None,
                      strides: Sequence[int] | None = None) -> np.ndarray:
    """ONNX QLinearConv: the int32 sums of ConvInteger plus B, times x_scale * w_scale / y_scale (w_scale
    per output channel or one value), rounded half to even, plus y_zero_point, saturated to its type."""
    acc = _integer_conv(x, w, x_zero_point, w_zero_point, B, auto_pad=auto_pad, dilations=dilations, group=group,
                        kernel_shape=kernel_shape, pads=pads, strides=strides)
    rank = acc.ndim - 2
    ws = np.asarray(w_scale, np.float32).reshape(-1)
    ws = ws.reshape((1, -1) + (1,) * rank) if ws.size > 1 else ws.reshape(())
    multiplier = (np.asarray(x_scale, np.float32).reshape(()) * ws / np.asarray(y_scale, np.float32).reshape(()))
    out_type = np.asarray(y_zero_point).dtype
    info = np.iinfo(out_type)
    scaled = np.rint(acc.astype(np.float64) * multiplier.astype(np.float64)) + int(np.asarray(y_zero_point).reshape(()))
    return np.clip(scaled, info.min, info.max).astype(out_type)


def onnx_deform_conv(X: np.ndarray, W: np.ndarray, offset: np.ndarray, B: np.ndarray | None = None,
                     mask: np.ndarray | None = None, *, dilations: Sequence[int] | None = None, group: int = 1,
                     kernel_shape: Sequence[int] | None = None, offset_group: int = 1,
                     pads: Sequence[int] | None = None, strides: Sequence[int] | None = None) -> np.ndarray:
    """ONNX DeformConv: kernel tap t of output position o reads the input at o * stride - pad_begin +
    t * dilation + offset (per offset group, N-linear interpolation, zero outside the input), scaled by
    mask, and the samples meet the kernel as in Conv (groups, bias)."""
    X, W = np.asarray(X), np.asarray(W)
    rank = _spatial(X, W, kernel_shape)
    dtype = X.dtype
    compute = compute_dtype(dtype)
    x = X.astype(compute)
    kernel = W.shape[2:]
    strides_ = list(strides or [1] * rank)
    dilations_ = list(dilations or [1] * rank)
    pads_ = list(pads or [0] * (2 * rank))
    out = [(n + pads_[d] + pads_[rank + d] - (k - 1) * dil - 1) // s + 1
           for d, (n, k, s, dil) in enumerate(zip(X.shape[2:], kernel, strides_, dilations_))]
    N, C = X.shape[:2]
    M, G, OG = W.shape[0], int(group), int(offset_group)
    K = int(np.prod(kernel, dtype=np.int64))
    P = int(np.prod(out, dtype=np.int64))
    off = np.asarray(offset, np.float64)
    if off.shape != (N, OG * K * rank, *out):
        raise ValueError(f"offset has shape {off.shape}; {(N, OG * K * rank, *out)} needed")
    off = off.reshape(N, OG, K, rank, P)
    scale = np.ones((N, OG, K, P)) if mask is None else np.asarray(mask, np.float64).reshape(N, OG, K, P)
    # the undeformed positions (K, P) of every axis: output position * stride - pad + tap * dilation
    taps = np.indices(kernel).reshape(rank, K)
    grid = np.indices(out).reshape(rank, P)
    base = [(grid[d] * strides_[d] - pads_[d])[None, :] + (taps[d] * dilations_[d])[:, None] for d in range(rank)]
    samples = np.empty((N, C, K, P), dtype=compute)
    Cg = C // OG
    for n in range(N):
        for g in range(OG):
            points = [base[d] + off[n, g, :, d, :] for d in range(rank)]
            values = sample_points(x[n, g * Cg:(g + 1) * Cg], points, "LINEAR", "PAD_VALUE")  # (Cg, K, P)
            samples[n, g * Cg:(g + 1) * Cg] = values * scale[n, g].astype(compute)
    # one matrix product per group: (M/G, C/G * K) x (C/G * K, P)
    cols = samples.reshape(N, G, (C // G) * K, P)
    kernels = W.astype(compute).reshape(G, M // G, (C // G) * K)
    with np.errstate(all="ignore"):
        y = np.einsum("gmk,ngkp->ngmp", kernels, cols).reshape(N, M, *out)
        if B is not None:
            y = y + np.asarray(B).astype(compute).reshape((1, M) + (1,) * rank)
    return y.astype(dtype)


def onnx_col2im(input: np.ndarray, image_shape: np.ndarray, block_shape: np.ndarray, *,
                dilations: Sequence[int] | None = None, pads: Sequence[int] | None = None,
                strides: Sequence[int] | None = None) -> np.ndarray:
    """ONNX Col2Im: input (N, C * prod(block_shape), L) holds L blocks of C channels; element (c, tap) of
    block l is added at image position block_position(l) * stride - pad_begin + tap * dilation (row-major
    block and tap order), positions outside the image dropped. Numbers add in the compute type (integers
    wrap, float16/bfloat16 in float32 rounded once), bool is logical or, strings concatenate in block
    order (note col2im_types)."""
    x = np.asarray(input)
    image = [int(v) for v in np.asarray(image_shape).reshape(-1)]
    block = [int(v) for v in np.asarray(block_shape).reshape(-1)]
    rank = len(image)
    strides_ = list(strides or [1] * rank)
    dilations_ = list(dilations or [1] * rank)
    pads_ = list(pads or [0] * (2 * rank))
    N, CK, L = x.shape
    K = int(np.prod(block, dtype=np.int64))
    if K == 0 or CK % K:
        raise ValueError(f"input's dimension 1 ({CK}) is not a multiple of prod(block_shape) ({K})")
    C = CK // K
    counts = [(n + pads_[d] + pads_[rank + d] - (b - 1) * dil - 1) // s + 1
              for d, (n, b, s, dil) in enumerate(zip(image, block, strides_, dilations_))]
    if any(c <= 0 for c in counts) or int(np.prod(counts, dtype=np.int64)) != L:
        raise ValueError(f"input has {L} blocks; the image, block, strides, pads and dilations give {counts}")
    taps = np.indices(block).reshape(rank, K)
    grid = np.indices(counts).reshape(rank, L)
    # image position of every (block, tap), block-major: (L, K) per axis
    position = [(grid[d] * strides_[d] - pads_[d])[:, None] + (taps[d] * dilations_[d])[None, :] for d in range(rank)]
    inside = np.all([(p >= 0) & (p < n) for p, n in zip(position, image)], axis=0)
    target = np.ravel_multi_index(tuple(p[inside] for p in position), image)
    values = x.reshape(N, C, K, L).swapaxes(2, 3)[:, :, inside]  # (N, C, inside (block, tap) pairs)
    if x.dtype == object:
        out = np.full((N, C, int(np.prod(image))), "", dtype=object)
    else:
        out = np.zeros((N, C, int(np.prod(image))), dtype=compute_dtype(x.dtype))
        values = values.astype(out.dtype)
    np.add.at(out, (slice(None), slice(None), target), values)  # type: ignore[arg-type]  # in order: strings concatenate block by block
    return out.astype(x.dtype).reshape(N, C, *image)
