"""Convolutions: hlir.Conv and hlir.ConvBias (XLA's ConvWithGeneralDimensions, with auto_pad).

The windows come from the helper in kernels/window.py (lhs dilation = base dilation, rhs dilation =
window dilation, holes and padding read zero); every window is then multiplied with the kernel as one
matrix product per group (im2col).

Conventions (spec notes): padding is [x1_low, x2_low, ..., x1_high, x2_high, ...] like the document's
pooling ops (note padding_layout); auto_pad SAME_UPPER/SAME_LOWER/VALID replaces the explicit padding,
applied to the lhs-dilated input with the rhs-dilated window (note auto_pad_semantics); float16 is
computed in float32 and rounded once, integers wrap around; batch_group_count splits the lhs batch
into batch_group_count consecutive blocks, block j feeding the j-th block of output features (XLA).
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..elementwise import compute_dtype
from .window import Axis, same_padding, window_view


def _axes(sizes: Sequence[int], window: Sequence[int], strides: Sequence[int], padding: Sequence[int],
          lhs_dilation: Sequence[int], rhs_dilation: Sequence[int], auto_pad: str) -> list[Axis]:
    n = len(sizes)
    if len(padding) != 2 * n:
        raise ValueError(f"padding has {len(padding)} values; {2 * n} (low and high of {n} axes) needed")
    axes = []
    for d in range(n):
        lo, hi = int(padding[d]), int(padding[n + d])
        dilated = (sizes[d] - 1) * lhs_dilation[d] + 1 if sizes[d] > 0 else 0
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            lo, hi = same_padding(dilated, window[d], strides[d], rhs_dilation[d], auto_pad == "SAME_UPPER")
        elif auto_pad == "VALID":
            lo = hi = 0
        elif auto_pad not in (None, "", "NOTSET"):
            raise ValueError(f"auto_pad must be '', NOTSET, SAME_UPPER, SAME_LOWER or VALID, got {auto_pad!r}")
        axes.append(Axis(sizes[d], window[d], strides[d], rhs_dilation[d], lhs_dilation[d], lo, hi))
    return axes


def _convolve(lhs: np.ndarray, rhs: np.ndarray, *, input_batch_dimension: int, input_feature_dimension: int,
              input_spatial_dimensions: Sequence[int], kernel_input_feature_dimension: int,
              kernel_output_feature_dimension: int, kernel_spatial_dimensions: Sequence[int],
              output_batch_dimension: int, output_feature_dimension: int, output_spatial_dimensions: Sequence[int],
              window_strides: Sequence[int], padding: Sequence[int], lhs_dilation: Sequence[int],
              rhs_dilation: Sequence[int], feature_group_count: int, batch_group_count: int,
              auto_pad: str) -> np.ndarray:
    """The convolution in the compute dtype, laid out as (batch, feature, spatial...)."""
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    compute = compute_dtype(lhs.dtype)
    n = len(input_spatial_dimensions)
    # canonical layouts: lhs (N, C, spatial...), rhs (O, I, window...)
    # (views where no conversion is needed: the im2col copy below reads them once)
    x = np.transpose(lhs, [input_batch_dimension, input_feature_dimension, *input_spatial_dimensions])
    x = x.astype(compute, copy=False)
    w = np.transpose(rhs, [kernel_output_feature_dimension, kernel_input_feature_dimension,
                           *kernel_spatial_dimensions]).astype(compute, copy=False)
    N, C = x.shape[:2]
    O, I = w.shape[:2]
    G, B = int(feature_group_count), int(batch_group_count)
    if G > 1 and B > 1:
        raise ValueError("feature_group_count and batch_group_count cannot both be greater than 1 (XLA)")
    if C != I * G or O % G or O % B or N % B:
        raise ValueError(f"feature/batch groups do not divide: lhs features {C}, kernel input features {I}, "
                         f"output features {O}, batch {N}, feature_group_count {G}, batch_group_count {B}")
    axes = _axes(x.shape[2:], w.shape[2:], window_strides, padding, lhs_dilation, rhs_dilation, auto_pad)
    spatial = list(range(2, 2 + n))
    windows = window_view(x, spatial, axes, 0)              # (N, C, out..., window...)
    out = tuple(a.out for a in axes)
    P, K = int(np.prod(out, dtype=np.int64)), int(np.prod(w.shape[2:], dtype=np.int64))
    groups, Nb, Og = G * B, N // B, O // (G * B)
    # im2col: (B, Nb, G, I, out..., window...) -> (groups, Nb*P, I*K), group = b*G + g (one of B, G is 1),
    # in one copy: splitting N and C is a view of the window view, and the transposed view is copied
    # once into the matmul's layout (reshaping the window view first copied it twice, 3/4 of the time)
    split = windows.reshape(B, Nb, G, I, *windows.shape[2:])
    out_axes, window_axes = list(range(4, 4 + n)), list(range(4 + n, 4 + 2 * n))
    cols = np.ascontiguousarray(split.transpose(0, 2, 1, *out_axes, 3, *window_axes)).reshape(groups, Nb * P, I * K)
    kernel = w.reshape(groups, Og, I * K).transpose(0, 2, 1)   # (groups, I*K, Og)
    with np.errstate(all="ignore"):
        result = np.matmul(cols, kernel)                       # (groups, Nb*P, Og)
    # output feature = group*Og + og
    return result.reshape(groups, Nb, *out, Og).transpose(1, 0, n + 2, *range(2, 2 + n)).reshape(Nb, O, *out)


def _to_output_layout(y: np.ndarray, output_batch_dimension: int, output_feature_dimension: int,
                      output_spatial_dimensions: Sequence[int]) -> np.ndarray:
    order = [output_batch_dimension, output_feature_dimension, *output_spatial_dimensions]
    return np.transpose(y, np.argsort(order))


def conv(lhs: np.ndarray, rhs: np.ndarray, *, output_batch_dimension: int, output_feature_dimension: int,
         output_spatial_dimensions: Sequence[int], auto_pad: str = "",
         **dimension_numbers_and_window: Any) -> np.ndarray:
    """hlir.Conv: XLA's convolution with general dimension numbers (every attribute of the spec)."""
    return conv_bias(lhs, rhs, None, output_batch_dimension=output_batch_dimension,
                     output_feature_dimension=output_feature_dimension,
                     output_spatial_dimensions=output_spatial_dimensions, auto_pad=auto_pad,
                     **dimension_numbers_and_window)


def conv_bias(lhs: np.ndarray, rhs: np.ndarray, bias: np.ndarray | None, *, output_batch_dimension: int,
              output_feature_dimension: int, output_spatial_dimensions: Sequence[int], auto_pad: str = "",
              **dimension_numbers_and_window: Any) -> np.ndarray:
    """hlir.ConvBias: Conv, then bias[o] added to every element of output feature o (note
    bias_feature_dimension), in the same compute dtype, rounded once. A bias of None is Conv."""
    dims: dict[str, Any] = dict(output_batch_dimension=output_batch_dimension,
                                output_feature_dimension=output_feature_dimension,
                                output_spatial_dimensions=output_spatial_dimensions)
    y = _convolve(lhs, rhs, auto_pad=auto_pad, **dims, **dimension_numbers_and_window)
    if bias is not None:
        b = np.asarray(bias)
        if b.shape != (y.shape[1],):
            raise ValueError(f"bias has shape {b.shape}; one value per output feature ({y.shape[1]}) needed")
        with np.errstate(all="ignore"):
            y = y + b.astype(y.dtype).reshape((1, -1) + (1,) * (y.ndim - 2))
    return _to_output_layout(y, **dims).astype(np.asarray(lhs).dtype)
