"""Normalisations: BatchNormInference/Training/Grad (XLA), InstanceNorm, LayerNorm, GroupNorm (ONNX).

float16 is computed in float32 and every output rounded once; float and double in their own precision.
Variances are population variances (divided by the number of reduced elements), computed in two passes
(mean, then the mean of squared deviations). Statistics over no elements are NaN (0/0).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..elementwise import compute_dtype, ieee_results


def along_axis(v: np.ndarray, rank: int, axis: int) -> np.ndarray:
    """A 1-D per-feature tensor shaped to broadcast along `axis` of a rank-`rank` tensor."""
    shape = [1] * rank
    shape[axis] = -1
    return v.reshape(shape)


def _mean(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    count = math.prod(x.shape[a] for a in axes)  # Python ints: np.prod allocates an array per call
    return np.sum(x, axis=axes, keepdims=True) / x.dtype.type(count)


def moments(x: np.ndarray, axes: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Mean and population variance over `axes`, kept as size-1 dimensions."""
    mean = _mean(x, axes)
    deviation = x - mean
    return mean, _mean(deviation * deviation, axes)


def _computed(*arrays: np.ndarray) -> tuple[np.dtype, list[np.ndarray]]:
    """The first array's dtype, and the arrays in its compute type, to be read only (an array already in
    that type is itself, not a copy)."""
    dtype = np.asarray(arrays[0]).dtype
    compute = compute_dtype(dtype)
    return dtype, [np.asarray(a).astype(compute, copy=False) for a in arrays]


def _as(dtype: np.dtype, *results: np.ndarray) -> tuple[np.ndarray, ...]:
    """Computed results (fresh arrays) in dtype, each itself when it has that type already."""
    return tuple(r.astype(dtype, copy=False) for r in results)


# ---- XLA batch normalisation ----------------------------------------------------------------------


@ieee_results
def batch_norm_inference(input: np.ndarray, scale: np.ndarray, bias: np.ndarray, mean: np.ndarray, variance: np.ndarray,
                         *, epsilon: float, feature_index: int) -> np.ndarray:
    """output = (input - mean) / sqrt(variance + epsilon) * scale + bias, per feature along feature_index."""
    dtype, (x, s, b, m, v) = _computed(input, scale, bias, mean, variance)
    rank, eps = x.ndim, x.dtype.type(epsilon)
    s, b, m, v = (along_axis(a, rank, feature_index) for a in (s, b, m, v))
    with np.errstate(all="ignore"):
        # the same operations in the same order, the first temporary reused for the others (each fresh one
        # costs a pass over new memory; with the final copy astype made, 1.3x onnx.reference)
        out = np.asarray(np.subtract(x, m))
        np.divide(out, np.sqrt(v + eps), out=out)
        np.multiply(out, s, out=out)
        np.add(out, b, out=out)
    return out.astype(dtype, copy=False)


@ieee_results
def batch_norm_training(input: np.ndarray, scale: np.ndarray, bias: np.ndarray, *, epsilon: float,
                        feature_index: int) -> tuple[np.ndarray, ...]:
    """Per feature: mean and population variance over every other dimension, then normalise with them.

    Returns (output, mean, variance); mean and variance have shape [C]."""
    dtype, (x, s, b) = _computed(input, scale, bias)
    rank, eps = x.ndim, x.dtype.type(epsilon)
    axes = tuple(k for k in range(rank) if k != feature_index)
    with np.errstate(all="ignore"):
        mean, var = moments(x, axes)
        out = (x - mean) / np.sqrt(var + eps) * along_axis(s, rank, feature_index) + along_axis(b, rank, feature_index)
    return _as(dtype, out, mean.reshape(-1), var.reshape(-1))


@ieee_results
def batch_norm_grad(input: np.ndarray, scale: np.ndarray, mean: np.ndarray, variance: np.ndarray,
                    grad_output: np.ndarray, *, epsilon: float, feature_index: int) -> tuple[np.ndarray, ...]:
    """XLA BatchNormGrad with the given (saved) mean and variance, m = number of elements per feature:

    grad_input = scale * rsqrt(var + eps)
                 * (grad_out - mean(grad_out) - (x - mean) * mean(grad_out * (x - mean)) / (var + eps))
    grad_scale = sum(grad_out * (x - mean) * rsqrt(var + eps));  grad_bias = sum(grad_out)."""
    dtype, (x, s, m, v, g) = _computed(input, scale, mean, variance, grad_output)
    rank, eps = x.ndim, x.dtype.type(epsilon)
    axes = tuple(k for k in range(rank) if k != feature_index)
    s, m, v = (along_axis(a, rank, feature_index) for a in (s, m, v))
    with np.errstate(all="ignore"):
        centered = x - m
        var_eps = v + eps
        rstd = 1 / np.sqrt(var_eps)
        grad_input = s * rstd * (g - _mean(g, axes) - centered * _mean(g * centered, axes) / var_eps)
        grad_scale = np.sum(g * centered * rstd, axis=axes)
        grad_bias = np.sum(g, axis=axes)
    return _as(dtype, grad_input, grad_scale.reshape(-1), grad_bias.reshape(-1))


# ---- ONNX-style normalisations --------------------------------------------------------------------


def _normalise(x: np.ndarray, axes: Any, eps: float) -> tuple[np.ndarray, ...]:
    mean, var = moments(x, axes)
    return (x - mean) / np.sqrt(var + eps), mean, var


@ieee_results
def instance_norm(input: np.ndarray, scale: np.ndarray, bias: np.ndarray, *, epsilon: float) -> np.ndarray:
    """Per instance and channel, normalise over the spatial dimensions. The channel dimension is 1
    (N, C, D1, ...) when scale's size equals it, else the last one (N, D1, ..., C); see note layout_choice."""
    dtype, (x, s, b) = _computed(input, scale, bias)
    rank, eps = x.ndim, x.dtype.type(epsilon)
    channel = 1 if s.shape[0] == x.shape[1] else rank - 1
    axes = tuple(k for k in range(1, rank) if k != channel)
    with np.errstate(all="ignore"):
        normalised, _, _ = _normalise(x, axes, eps)
        out = normalised * along_axis(s, rank, channel) + along_axis(b, rank, channel)
    return out.astype(dtype, copy=False)


@ieee_results
def layer_norm(input: np.ndarray, scale: np.ndarray, bias: np.ndarray, *, axis: int,
               epsilon: float) -> tuple[np.ndarray, ...]:
    """Standardise over dimensions [axis, rank) and apply scale and bias (broadcast to input).

    Returns (output, mean, rstd); mean and rstd have input's shape with the dimensions from axis on set
    to 1 (ONNX LayerNormalization's Mean and InvStdDev)."""
    dtype, (x, s, b) = _computed(input, scale, bias)
    rank, eps = x.ndim, x.dtype.type(epsilon)
    start = axis + rank if axis < 0 else axis
    axes = tuple(range(start, rank))
    with np.errstate(all="ignore"):
        mean, var = moments(x, axes)
        rstd = 1 / np.sqrt(var + eps)
        out = (x - mean) * rstd * s + b
    return _as(dtype, out, mean, rstd)


@ieee_results
def group_norm(input: np.ndarray, scale: np.ndarray, bias: np.ndarray, *, epsilon: float,
               num_groups: int) -> np.ndarray:
    """ONNX GroupNormalization-21: statistics per instance over each group of C / num_groups channels
    and all spatial dimensions; scale and bias per channel."""
    dtype, (x, s, b) = _computed(input, scale, bias)
    rank, eps = x.ndim, x.dtype.type(epsilon)
    per_group = (x.shape[1] // num_groups) * int(np.prod(x.shape[2:], dtype=np.int64))
    grouped = x.reshape(x.shape[0], num_groups, per_group)
    with np.errstate(all="ignore"):
        normalised, _, _ = _normalise(grouped, (2,), eps)
        out = normalised.reshape(x.shape) * along_axis(s, rank, 1) + along_axis(b, rank, 1)
    return out.astype(dtype, copy=False)
