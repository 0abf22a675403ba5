"""oneDNN Graph training and dynamic-quantization operations over kernels that already hold their semantics.

- BatchNormForwardTraining is ONNX BatchNormalization in training mode (batch mean and population
  variance; running = momentum * running + (1 - momentum) * batch, the library's default momentum being
  0.5), BatchNormTrainingBackward is XLA's BatchNormGrad (hlir), BiasAddBackward is this domain's
  ReduceSum over every axis but the channels.
- DynamicQuantize/DynamicDequantize are this domain's Quantize/Dequantize with the scales and zero
  points given as tensors; per_group dequantization repeats each scale (zero point) over its group
  (group_shape) first.
The channels are axis 1 (NCX) or the last axis (NXC); the kernels move them to axis 1 and back.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..elementwise import compute_dtype, finish
from .normalization import batch_norm_grad
from .onednn_ops import dequantize, quantize, reduce_sum
from .onnx_normalization import batch_norm_core

LIBRARY_MOMENTUM = 0.5  # what the library's batch-norm executable takes when momentum is not given


def _ncx(x: np.ndarray, data_format: str) -> np.ndarray:
    x = np.asarray(x)
    return np.moveaxis(x, -1, 1) if data_format == "NXC" and x.ndim > 2 else x


def _back(y: np.ndarray, data_format: str) -> np.ndarray:
    return np.moveaxis(y, 1, -1) if data_format == "NXC" and y.ndim > 2 else y


def batch_norm_forward_training(src: np.ndarray, mean: np.ndarray, variance: np.ndarray,
                                gamma: np.ndarray | None = None, beta: np.ndarray | None = None, *,
                                epsilon: float, momentum: float | None = None,
                                data_format: str = "NXC") -> tuple[np.ndarray, ...]:
    """(dst, running_mean, running_variance, batch_mean, batch_variance), ONNX BatchNormalization's
    training step; gamma and beta default to ones and zeros."""
    x = _ncx(src, data_format)
    stats = np.asarray(mean)
    scale = np.ones(x.shape[1], stats.dtype) if gamma is None else np.asarray(gamma)
    shift = np.zeros(x.shape[1], stats.dtype) if beta is None else np.asarray(beta)
    keep = LIBRARY_MOMENTUM if momentum is None else momentum
    y, *rest = batch_norm_core(x, scale, shift, stats, variance, epsilon, keep, True, False, 5)
    return (_back(y, data_format), *rest)


def batch_norm_training_backward(src: np.ndarray, diff_dst: np.ndarray, mean: np.ndarray, variance: np.ndarray,
                                 gamma: np.ndarray | None = None, *, epsilon: float,
                                 data_format: str = "NXC") -> tuple[np.ndarray, ...]:
    """XLA BatchNormGrad with the saved mean and variance: (diff_src, diff_gamma, diff_beta), or diff_src
    alone without gamma (the library then computes no scale gradients)."""
    x, dy = _ncx(src, data_format), _ncx(diff_dst, data_format)
    work = compute_dtype(x.dtype)
    stats = np.asarray(mean).dtype
    scale = np.ones(x.shape[1], work) if gamma is None else np.asarray(gamma).astype(work)
    dx, dgamma, dbeta = batch_norm_grad(x.astype(work), scale, np.asarray(mean).astype(work),
                                        np.asarray(variance).astype(work), dy.astype(work), epsilon=epsilon,
                                        feature_index=1)
    diff_src = _back(finish(dx, x.dtype), data_format)
    return (diff_src,) if gamma is None else (diff_src, finish(dgamma, stats), finish(dbeta, stats))


def bias_add_backward(diff_dst: np.ndarray, *, data_format: str = "NXC") -> np.ndarray:
    """The sum of diff_dst over every axis but the channels (ReduceSum)."""
    dy = np.asarray(diff_dst)
    channel = 1 if data_format == "NCX" else dy.ndim - 1
    result: np.ndarray = reduce_sum(dy, axes=[a for a in range(dy.ndim) if a != channel], keep_dims=False)
    return result


def dynamic_quantize(src: np.ndarray, scales: np.ndarray, zps: np.ndarray | None = None, *,
                     qtype: str = "per_tensor", axis: int = 1, dst_dtype: np.dtype[Any] | None = None) -> np.ndarray:
    """Quantize with the scales (and zero points) of the tensors; dst takes zps' type (u8 without zps)."""
    out = dst_dtype if dst_dtype is not None else (np.asarray(zps).dtype if zps is not None else np.dtype(np.uint8))
    return quantize(src, qtype=qtype, axis=axis, scales=np.asarray(scales).ravel().tolist(),
                    zps=None if zps is None else np.asarray(zps).ravel().tolist(), dst_dtype=out)


def _per_element(values: np.ndarray, shape: Sequence[int], group_shape: Sequence[int]) -> np.ndarray:
    """A per_group scale or zero-point tensor repeated over each group of group_shape elements."""
    v = np.asarray(values)
    if v.ndim != len(shape) or any(g <= 0 or v.shape[a] * g != shape[a] for a, g in enumerate(group_shape)):
        raise ValueError(f"per_group scales of shape {list(v.shape)} and group_shape {list(group_shape)} do not "
                         f"cover src of shape {list(shape)}")
    for a, g in enumerate(group_shape):
        v = np.repeat(v, g, axis=a)
    return v


def dynamic_dequantize(src: np.ndarray, scales: np.ndarray, zps: np.ndarray | None = None, *,
                       qtype: str = "per_tensor", axis: int = 1,
                       group_shape: Sequence[int] | None = None) -> np.ndarray:
    """(src - zps) * scales in f32, rounded to the scales' type (dst's): per_tensor, per_channel along
    axis, or per_group (each scale and zero point applying to one group_shape block of src)."""
    x = np.asarray(src)
    s = np.asarray(scales)
    if qtype == "per_group":
        if not group_shape:
            raise ValueError("onednn.DynamicDequantize: per_group needs group_shape")
        work = x.astype(np.float32)
        zero = _per_element(zps, x.shape, group_shape).astype(np.float32) if zps is not None else np.float32(0)
        return finish((work - zero) * _per_element(s, x.shape, group_shape).astype(np.float32), s.dtype)
    result = dequantize(x, qtype=qtype, axis=axis,
                        scales=s.astype(np.float32).ravel().tolist(),
                        zps=None if zps is None else np.asarray(zps).astype(np.int64).ravel().tolist())
    return finish(result, s.dtype)
