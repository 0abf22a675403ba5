"""oneDNN Graph backward operations that are not element-wise formulas of one tensor.

- PReLUBackward: the gradient of PReLU (slope laid over src as PReLU's broadcast rules lay it, a 1-D
  slope longer than 1 read per channel, as the library's backward pass decides), diff_slope summed back
  to slope's shape.
- SoftMaxBackward / LogSoftmaxBackward: the gradients expressed through the forward result dst, as the
  library computes them (it takes dst, not src).
- LayerNormBackward: the gradient of LayerNorm with the saved mean and variance.
- InterpolateBackward: the adjoint of this domain's Interpolate kernel. Interpolate is linear in src and
  separable by spatial axis, and its source coordinates depend only on the input and output sizes, so
  each axis's interpolation matrix is read off the forward kernel applied to an identity, and diff_dst
  is contracted with the transposed matrices. The forward's semantics therefore live in one place.
The numerics follow the other kernels: bf16/f16 are computed in float32 and rounded once.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..broadcast import onednn_prelu
from ..elementwise import compute_dtype, finish
from .onednn_conv_pool import interpolate


def prelu_backward(src: np.ndarray, slope: np.ndarray, diff_dst: np.ndarray, *,
                   data_format: str = "NXC") -> tuple[np.ndarray, np.ndarray]:
    """(diff_src, diff_slope): diff_dst where src > 0, else diff_dst * slope; the slope gradient is
    diff_dst * src where src <= 0 (0 elsewhere), summed over the dimensions slope was broadcast along."""
    x, w, dy = np.asarray(src), np.asarray(slope), np.asarray(diff_dst)
    # PReLUBackward has no per_channel_broadcast: the library reads a 1-D slope of length other than 1
    # per channel (and then requires the channel length, with no fallback), any other slope from the right
    per_channel = w.ndim == 1 and w.shape[0] != 1
    view = onednn_prelu(w.shape, x.shape, data_format, per_channel)
    if view is None:
        raise ValueError(f"onednn.PReLUBackward: slope of shape {list(w.shape)} does not broadcast over src of "
                         f"shape {list(x.shape)} ({data_format})")
    work = compute_dtype(x.dtype)
    xc, dyc, wc = x.astype(work), dy.astype(work), w.astype(work).reshape(view)
    positive = xc > 0
    diff_src = np.where(positive, dyc, dyc * wc)
    per_element = np.where(positive, np.zeros((), work), dyc * xc)
    summed_axes = tuple(a for a in range(x.ndim) if view[a] == 1 and x.shape[a] != 1)
    diff_slope = np.sum(per_element, axis=summed_axes, keepdims=True).reshape(w.shape)
    return finish(diff_src, x.dtype), finish(diff_slope, w.dtype)


def softmax_backward(diff_dst: np.ndarray, dst: np.ndarray, *, axis: int = 1,
                     diff_src_dtype: np.dtype[Any] | None = None) -> np.ndarray:
    """dst * (diff_dst - sum(diff_dst * dst along axis)); diff_src takes diff_dst's type unless the
    graph declares f32."""
    dy, y = np.asarray(diff_dst), np.asarray(dst)
    work = compute_dtype(dy.dtype)
    dyc, yc = dy.astype(work), y.astype(work)
    result = yc * (dyc - np.sum(dyc * yc, axis=axis, keepdims=True))
    return finish(result, np.dtype(dy.dtype if diff_src_dtype is None else diff_src_dtype))


def log_softmax_backward(diff_dst: np.ndarray, dst: np.ndarray, *, axis: int = -1) -> np.ndarray:
    """diff_dst - exp(dst) * sum(diff_dst along axis), dst being the forward LogSoftmax result."""
    dy, y = np.asarray(diff_dst), np.asarray(dst)
    work = compute_dtype(dy.dtype)
    dyc = dy.astype(work)
    with np.errstate(over="ignore"):
        result = dyc - np.exp(y.astype(work)) * np.sum(dyc, axis=axis, keepdims=True)
    return finish(result, dy.dtype)


def layer_norm_backward(src: np.ndarray, diff_dst: np.ndarray, mean: np.ndarray, variance: np.ndarray,
                        gamma: np.ndarray | None = None, beta: np.ndarray | None = None, *,
                        begin_norm_axis: int = -1, use_affine: bool = True,
                        epsilon: float = 1e-5) -> tuple[np.ndarray, ...]:
    """The gradient of LayerNorm over the dimensions from begin_norm_axis on, with the saved mean and
    variance (src's leading dimensions). With x_hat = (src - mean) / sqrt(variance + epsilon) and
    g = diff_dst * gamma: diff_src = (g - mean(g) - x_hat * mean(g * x_hat)) / sqrt(variance + epsilon).
    With use_affine also diff_gamma = sum(diff_dst * x_hat) and diff_beta = sum(diff_dst) over the
    leading dimensions (beta itself does not enter the gradient); otherwise diff_src alone."""
    x, dy = np.asarray(src), np.asarray(diff_dst)
    work = compute_dtype(x.dtype)
    first = begin_norm_axis % x.ndim
    norm_axes = tuple(range(first, x.ndim))
    lead_axes = tuple(range(first))
    stats_shape = x.shape[:first] + (1,) * (x.ndim - first)
    xc, dyc = x.astype(work), dy.astype(work)
    inv_std = 1 / np.sqrt(np.asarray(variance).astype(work).reshape(stats_shape) + work.type(epsilon))
    x_hat = (xc - np.asarray(mean).astype(work).reshape(stats_shape)) * inv_std
    affine = use_affine and gamma is not None
    g = dyc * np.asarray(gamma).astype(work) if affine else dyc
    diff_src = inv_std * (g - np.mean(g, axis=norm_axes, keepdims=True)
                          - x_hat * np.mean(g * x_hat, axis=norm_axes, keepdims=True))
    if not use_affine:
        return (finish(diff_src, x.dtype),)
    stats_type = np.asarray(gamma if gamma is not None else mean).dtype
    diff_gamma = np.sum(dyc * x_hat, axis=lead_axes)
    diff_beta = np.sum(dyc, axis=lead_axes)
    return finish(diff_src, x.dtype), finish(diff_gamma, stats_type), finish(diff_beta, stats_type)


def _interpolation_matrix(n_in: int, n_out: int, mode: str, coordinate_transformation_mode: str) -> np.ndarray:
    """(n_out, n_in) weights of one spatial axis: row j holds how output j mixes the n_in inputs, read off
    the forward kernel applied to the n_in unit vectors (a batch of 1-D signals, NCX)."""
    basis = np.eye(n_in, dtype=np.float64).reshape(n_in, 1, n_in)
    mixed = interpolate(basis, mode=mode, sizes=[n_out], coordinate_transformation_mode=coordinate_transformation_mode,
                        data_format="NCX")
    return np.asarray(mixed, np.float64).reshape(n_in, n_out).T


def interpolate_backward(src: np.ndarray, diff_dst: np.ndarray, sizes_input: np.ndarray | None = None, *,
                         mode: str, coordinate_transformation_mode: str = "half_pixel",
                         sizes: Any = None, scales: Any = None, data_format: str = "NXC") -> np.ndarray:
    """The adjoint of Interpolate from src's spatial sizes to diff_dst's: each diff_dst value spread back
    onto the src positions it was interpolated from, with the same weights. sizes/scales/sizes_input
    only restate diff_dst's spatial sizes (the library's coordinates come from the sizes)."""
    x, dy = np.asarray(src), np.asarray(diff_dst)
    channels_last = data_format == "NXC"
    spatial_axes = list(range(1, x.ndim - 1)) if channels_last else list(range(2, x.ndim))
    work = compute_dtype(x.dtype)
    grad: np.ndarray = dy.astype(work)
    for axis in spatial_axes:
        weights: np.ndarray = _interpolation_matrix(x.shape[axis], dy.shape[axis], mode,
                                                    coordinate_transformation_mode).astype(work)
        grad = np.moveaxis(np.tensordot(grad, weights, axes=([axis], [0])), -1, axis)
    return finish(grad, x.dtype)
