"""ONNX normalisations: BatchNormalization (every version, training outputs too), InstanceNormalization-1,
LayerNormalization, GroupNormalization, RMSNormalization, LpNormalization, MeanVarianceNormalization, LRN.

Statistics are population statistics computed in two passes (`normalization.moments`), as the hlir
normalisations compute them; ONNX's function bodies evaluate Var as E[x^2] - E[x]^2, which is the same
quantity with more cancellation. Where ONNX means what an hlir kernel computes, that kernel is called:
BatchNormalization applies `normalization.batch_norm_inference` (with the given or the batch statistics),
InstanceNormalization is `normalization.instance_norm`.

LayerNormalization, GroupNormalization-21 and RMSNormalization differ from hlir LayerNorm/GroupNorm by
their stash_type: the statistics and the normalised value are computed in the stash type (float32 by
default, also for double data), and the normalised value is rounded to X's type before the scale and
bias are applied (ONNX's two stages). Only stash types 1 (float) and 11 (double) are accepted:
onnx.reference and onnxruntime accept only 1.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..elementwise import compute_dtype, finish, ieee_results
from .normalization import along_axis, batch_norm_inference, instance_norm, moments

_STASH_TYPES: dict[int, np.dtype[Any]] = {1: np.dtype(np.float32), 11: np.dtype(np.float64)}  # TensorProto codes: FLOAT, DOUBLE


def _stash(stash_type: int) -> np.dtype:
    if stash_type not in _STASH_TYPES:
        raise ValueError(f"stash_type {stash_type} is not supported: 1 (float) or 11 (double)")
    return _STASH_TYPES[stash_type]


def _wide(*arrays: np.ndarray) -> np.dtype:
    """float64 when any array is double, else float32: the precision several floating types mix in."""
    return np.dtype(np.float64 if any(np.asarray(a).dtype == np.float64 for a in arrays) else np.float32)


# ---- BatchNormalization ------------------------------------------------------------------------


def _batch_statistics(x: np.ndarray, work: np.ndarray, per_activation: bool) -> tuple[np.ndarray, np.ndarray]:
    """Mean and population variance of each channel over the batch and spatial axes (of each activation
    over the batch only, per_activation), shaped like the per-channel (per-activation) parameters."""
    axes = (0,) if per_activation else tuple(k for k in range(x.ndim) if k != 1)
    mean, var = moments(work, axes)
    return (mean[0], var[0]) if per_activation else (mean.reshape(-1), var.reshape(-1))


def _normalise(x: np.ndarray, scale: np.ndarray, bias: np.ndarray, mean: np.ndarray, var: np.ndarray,
               epsilon: float, per_activation: bool) -> np.ndarray:
    """(x - mean) / sqrt(var + epsilon) * scale + bias, parameters per channel (axis 1) or per activation."""
    if not per_activation:
        return batch_norm_inference(x, scale, bias, mean, var, epsilon=epsilon, feature_index=1)
    work = compute_dtype(x.dtype)
    s, b, m, v = (np.asarray(a).astype(work)[None] for a in (scale, bias, mean, var))
    with np.errstate(all="ignore"):
        return finish((x.astype(work) - m) / np.sqrt(v + work.type(epsilon)) * s + b, x.dtype)


def _train(x: np.ndarray, scale: np.ndarray, bias: np.ndarray, mean: np.ndarray, var: np.ndarray, epsilon: float,
           momentum: float, per_activation: bool) -> tuple[np.ndarray, ...]:
    """Training step: Y normalised with the batch statistics; running = running * momentum + batch *
    (1 - momentum). Returns Y, running mean, running var, batch mean, batch var (population)."""
    work = _wide(x, mean, var)
    with np.errstate(all="ignore"):
        batch_mean, batch_var = _batch_statistics(x, x.astype(work), per_activation)
        y = _normalise(x, scale, bias, batch_mean, batch_var, epsilon, per_activation)
        keep = work.type(momentum)
        running_mean = np.asarray(mean).astype(work) * keep + batch_mean * (1 - keep)
        running_var = np.asarray(var).astype(work) * keep + batch_var * (1 - keep)
    stats = np.asarray(mean).dtype
    return (y, finish(running_mean, stats), finish(running_var, stats), finish(batch_mean, stats),
            finish(batch_var, stats))


def batch_norm_core(X: np.ndarray, scale: np.ndarray, B: np.ndarray, mean: np.ndarray, var: np.ndarray, epsilon: float,
                    momentum: float, training: bool, per_activation: bool, n_outputs: int) -> tuple[np.ndarray, ...]:
    """Batch normalisation as every BatchNormalization version and oneDNN's BatchNormForwardTraining
    compute it: inference with the given statistics, or training (the first `n_outputs` of y, running
    mean and variance, batch mean and variance); per_activation normalises each element apart."""
    x = np.asarray(X)
    if x.ndim == 1:  # (N,) is N samples of one channel
        results = batch_norm_core(x[:, None], scale, B, mean, var, epsilon, momentum, training, per_activation,
                                  n_outputs)
        return (results[0].reshape(x.shape),) + results[1:]
    if not training:
        return (_normalise(x, scale, B, mean, var, epsilon, per_activation),)
    return _train(x, scale, B, mean, var, epsilon, momentum, per_activation)[:n_outputs]


@ieee_results
def onnx_batch_norm(X: np.ndarray, scale: np.ndarray, B: np.ndarray, input_mean: np.ndarray, input_var: np.ndarray, *,
                    epsilon: float = 1e-5, momentum: float = 0.9, training_mode: int = 0) -> tuple[np.ndarray, ...]:
    """BatchNormalization-14/15. training_mode = 0: Y from input_mean/input_var (the only output: ONNX
    refuses more in inference). training_mode = 1: Y from the batch statistics, and the running
    statistics updated with momentum (in input_mean's type)."""
    return batch_norm_core(X, scale, B, input_mean, input_var, epsilon, momentum, bool(training_mode), False, 3)


@ieee_results
def onnx_batch_norm_inference(X: np.ndarray, scale: np.ndarray, B: np.ndarray, mean: np.ndarray, var: np.ndarray, *,
                              epsilon: float = 1e-5, momentum: float = 0.9, spatial: int = 1,
                              requested_outputs: Sequence[str] | None = None) -> tuple[np.ndarray, ...]:
    """BatchNormalization-7/9: ONNX selects the mode by the outputs the node has: Y alone is test mode
    (Y from mean and var); with the statistics outputs (`requested_outputs`, which the graph runner
    gives: spec kernel.requested_outputs) training, as onnxruntime runs it: Y from the batch statistics,
    the running mean and variance updated with momentum, and the batch mean and population variance as
    saved_mean and saved_var. Called without requested_outputs: test mode, Y alone.
    spatial = 0 (version 7): statistics and parameters per activation, shape (C, D1, ..., Dn)."""
    training = requested_outputs is not None and any(name != "Y" for name in requested_outputs)
    return batch_norm_core(X, scale, B, mean, var, epsilon, momentum, training, not spatial, 5 if training else 1)


@ieee_results
def onnx_batch_norm_is_test(X: np.ndarray, scale: np.ndarray, B: np.ndarray, mean: np.ndarray, var: np.ndarray, *,
                            epsilon: float = 1e-5, is_test: int = 0, momentum: float = 0.9, spatial: int = 1,
                            consumed_inputs: Sequence[int] | None = None) -> tuple[np.ndarray, ...]:
    """BatchNormalization-1/6. is_test != 0: Y from mean and var (one output). is_test = 0 (the default):
    training, five outputs: Y from the batch statistics, the updated running mean and variance, and the
    batch mean and (population) variance as saved_mean and saved_var."""
    return batch_norm_core(X, scale, B, mean, var, epsilon, momentum, not is_test, not spatial, 5)


# ---- instance, layer, group and RMS normalisation ----------------------------------------------


def onnx_instance_norm_1(input: np.ndarray, scale: np.ndarray, B: np.ndarray, *, epsilon: float = 1e-5,
                         consumed_inputs: Sequence[int] | None = None) -> np.ndarray:
    """InstanceNormalization-1: hlir InstanceNorm; consumed_inputs (a legacy in-place hint) is ignored."""
    return instance_norm(input, scale, B, epsilon=epsilon)


def _standardised(x: np.ndarray, axes: tuple[int, ...], epsilon: float, stash: np.dtype) -> tuple[np.ndarray, ...]:
    """(x - mean) / sqrt(var + epsilon) over axes in the stash precision; also mean and 1 / sqrt(var + epsilon)."""
    work = x.astype(stash, copy=False)  # read only: x itself when it is in the stash type already
    mean, var = moments(work, axes)
    std = np.sqrt(var + stash.type(epsilon))
    centred = np.asarray(np.subtract(work, mean))
    return np.divide(centred, std, out=centred), mean, 1 / std  # in place: one fresh array, not two


def _affine(normalised: np.ndarray, scale: np.ndarray, bias: np.ndarray | None, dtype: np.dtype,
            out_dtype: np.dtype | None = None) -> np.ndarray:
    """ONNX's second stage: the normalised value rounded to X's type, then * scale + bias, rounded once.
    `normalised` is the caller's fresh array, which this may overwrite."""
    rounded = finish(normalised, dtype)
    work = _wide(rounded, scale, *([] if bias is None else [bias]))
    # operands read in place where they are in the computation type already (astype copies by default), and
    # the products written over the normalised values when they have their shape (scale and bias broadcast
    # to X): the same operations, without a fresh array for each
    y = rounded.astype(work, copy=False)
    operands = [np.asarray(a).astype(work, copy=False) for a in ([scale] if bias is None else [scale, bias])]
    in_place = y.ndim > 0 and all(np.broadcast_shapes(y.shape, a.shape) == y.shape for a in operands)
    y = np.multiply(y, operands[0], out=y if in_place else None)
    if bias is not None:
        y = np.add(y, operands[1], out=y if in_place else None)
    return finish(y, out_dtype or dtype)


@ieee_results
def onnx_layer_norm(X: np.ndarray, Scale: np.ndarray, B: np.ndarray | None = None, *, axis: int = -1,
                    epsilon: float = 1e-5, stash_type: int = 1, Mean_dtype: np.dtype | None = None,
                    InvStdDev_dtype: np.dtype | None = None) -> tuple[np.ndarray, ...]:
    """LayerNormalization-17 over dimensions [axis, rank); Scale and B broadcast to X. Mean and
    InvStdDev keep X's leading dimensions and have size 1 from axis on (in the declared type U, else
    the stash type)."""
    x = np.asarray(X)
    stash = _stash(stash_type)
    axes = tuple(range(axis % x.ndim if x.ndim else 0, x.ndim))
    normalised, mean, inv_std = _standardised(x, axes, epsilon, stash)
    return (_affine(normalised, Scale, B, x.dtype), finish(mean, Mean_dtype or stash),
            finish(inv_std, InvStdDev_dtype or stash))


@ieee_results
def onnx_rms_norm(X: np.ndarray, scale: np.ndarray, *, axis: int = -1, epsilon: float = 1e-5,
                  stash_type: int = 1) -> np.ndarray:
    """RMSNormalization-23: X / sqrt(mean(X^2) + epsilon) over dimensions [axis, rank), then * scale;
    Y has scale's type (V)."""
    x = np.asarray(X)
    stash = _stash(stash_type)
    axes = tuple(range(axis % x.ndim if x.ndim else 0, x.ndim))
    work = x.astype(stash)
    count = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    mean_square = np.sum(work * work, axis=axes, keepdims=True) / stash.type(count)
    return _affine(work / np.sqrt(mean_square + stash.type(epsilon)), scale, None, x.dtype, np.asarray(scale).dtype)


def _group_norm(x: np.ndarray, scale: np.ndarray, bias: np.ndarray, epsilon: float, num_groups: int,
                stash: np.dtype) -> np.ndarray:
    """Statistics per sample over each group of C / num_groups channels and all spatial positions;
    scale and bias per channel."""
    grouped = x.reshape(x.shape[0], num_groups, -1) if x.size else x.reshape(x.shape[0], num_groups, 0)
    normalised, _, _ = _standardised(grouped, (2,), epsilon, stash)
    per_channel = [along_axis(np.asarray(p), x.ndim, 1) for p in (scale, bias)]
    return _affine(normalised.reshape(x.shape), per_channel[0], per_channel[1], x.dtype)


@ieee_results
def onnx_group_norm(X: np.ndarray, scale: np.ndarray, bias: np.ndarray, *, epsilon: float = 1e-5,
                    num_groups: int, stash_type: int = 1) -> np.ndarray:
    """GroupNormalization-21: scale and bias per channel, statistics in the stash type."""
    return _group_norm(np.asarray(X), scale, bias, epsilon, num_groups, _stash(stash_type))


@ieee_results
def onnx_group_norm_18(X: np.ndarray, scale: np.ndarray, bias: np.ndarray, *, epsilon: float = 1e-5,
                       num_groups: int) -> np.ndarray:
    """GroupNormalization-18: scale and bias per group (each applies to the group's C / num_groups
    channels); statistics in X's compute precision (no stash_type)."""
    x = np.asarray(X)
    per_group = x.shape[1] // num_groups if num_groups else 0
    expand = [np.repeat(np.asarray(p), per_group) for p in (scale, bias)]
    return _group_norm(x, expand[0], expand[1], epsilon, num_groups, compute_dtype(x.dtype))


# ---- Lp, mean-variance and local response normalisation -----------------------------------------


@ieee_results
def onnx_lp_norm(input: np.ndarray, *, axis: int = -1, p: int = 2) -> np.ndarray:
    """x / ||x||_p along axis (p = 1: sum of |x|; p = 2: sqrt of the sum of squares); a zero norm gives 0."""
    x = np.asarray(input)
    work = x.astype(compute_dtype(x.dtype))
    if p == 1:
        norm = np.sum(np.abs(work), axis=axis, keepdims=True)
    elif p == 2:
        norm = np.sqrt(np.sum(work * work, axis=axis, keepdims=True))
    else:
        raise ValueError(f"p must be 1 or 2, got {p}")
    return finish(np.where(norm == 0, work.dtype.type(0), work / np.where(norm == 0, 1, norm)), x.dtype)


@ieee_results
def onnx_mean_variance_norm(X: np.ndarray, *, axes: Sequence[int] = (0, 2, 3)) -> np.ndarray:
    """(X - mean) / (sqrt(var) + 1e-9) over axes: ONNX's function adds 1e-9 to the standard deviation
    (not to the variance)."""
    x = np.asarray(X)
    work = x.astype(compute_dtype(x.dtype))
    dims = tuple(sorted({int(a) % x.ndim for a in axes})) if x.ndim else ()
    mean, var = moments(work, dims)
    return finish((work - mean) / (np.sqrt(var) + work.dtype.type(1e-9)), x.dtype)


@ieee_results
def onnx_lrn(X: np.ndarray, *, alpha: float = 1e-4, beta: float = 0.75, bias: float = 1.0, size: int) -> np.ndarray:
    """Y = X / (bias + alpha / size * square_sum) ^ beta, square_sum at channel c adding the squares of
    channels c - floor((size - 1) / 2) .. c + ceil((size - 1) / 2) that exist (axis 1)."""
    x = np.asarray(X)
    work = x.astype(compute_dtype(x.dtype))
    squares = work * work
    channels = x.shape[1]
    before = (size - 1) // 2
    square_sum = np.zeros_like(squares)
    for offset in range(-before, size - before):  # add channel c + offset to channel c, where it exists
        lo, hi = max(0, -offset), min(channels, channels - offset)
        if lo < hi:
            square_sum[:, lo:hi] += squares[:, lo + offset:hi + offset]
    t = work.dtype.type
    return finish(work / (t(bias) + t(alpha) / t(size) * square_sum) ** t(beta), x.dtype)
