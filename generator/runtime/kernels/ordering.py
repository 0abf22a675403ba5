"""Ordering: hlir Sort and Topk.

One order serves both (the specs' notes say why): numbers compare by value, -0.0 and +0.0 are equal,
and every NaN (of either sign) is larger than +inf and equal to the other NaNs. Equal elements keep
their input order, in ascending and in descending order alike: Sort is always stable (a stable result
is also a valid result of an unstable sort), and Topk breaks ties by the lower index, as ONNX TopK
does. This is NumPy's sort order, jax.lax.sort's (which makes signed zeros and NaNs equal before
comparing), torch.sort(stable=True)'s and onnx.reference's TopK order.
"""
from __future__ import annotations

from typing import Sequence

import ml_dtypes
import numpy as np

_BF16 = np.dtype(ml_dtypes.bfloat16)


def _stable_order(keys: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Indices that sort `keys` along `axis` stably (equal keys stay in input order), ascending or
    descending.

    NumPy's stable argsort has this order ascending. Descending sorts a key whose ascending order is
    the keys' descending order: ~x for integers (it reverses the order exactly, signed or unsigned),
    -x for floating types, whose NaNs (last there) are then moved in front by a second stable sort on
    "is not NaN"; other types (bool, complex) sort the reversed keys and read that order backwards."""
    if not descending:
        return np.argsort(keys, axis=axis, kind="stable")
    if keys.dtype.kind in "iu":
        return np.argsort(np.invert(keys), axis=axis, kind="stable")
    if keys.dtype.kind == "f" or keys.dtype == _BF16:
        order = np.argsort(np.negative(keys), axis=axis, kind="stable")
        nan = np.isnan(np.take_along_axis(keys, order, axis=axis))
        if nan.any():
            order = np.take_along_axis(order, np.argsort(~nan, axis=axis, kind="stable"), axis=axis)
        return order
    n = keys.shape[axis]
    ascending_of_reversed = np.argsort(np.flip(keys, axis=axis), axis=axis, kind="stable")
    return (n - 1) - np.flip(ascending_of_reversed, axis=axis)


def sort(inputs: Sequence[np.ndarray], *, dimension: int, descending: bool, is_stable: bool) -> tuple[np.ndarray, ...]:
    """hlir.Sort: orders the first tensor along `dimension` and permutes every tensor the same way.
    The sort is always stable (a stable result is a valid unstable one too), so is_stable changes
    nothing."""
    tensors = [np.asarray(x) for x in inputs]
    if not tensors:
        raise ValueError("Sort needs at least one input")
    keys = tensors[0]
    if keys.ndim == 0:
        raise ValueError("Sort needs tensors of rank >= 1")
    if not 0 <= int(dimension) < keys.ndim:
        raise ValueError(f"dimension {dimension} is outside [0, {keys.ndim - 1}]")
    for k, x in enumerate(tensors):
        if x.shape != keys.shape:
            raise ValueError(f"input {k} has shape {x.shape}, the first input {keys.shape}: all must agree")
    order = _stable_order(keys, int(dimension), bool(descending))
    return tuple(np.take_along_axis(x, order, axis=int(dimension)) for x in tensors)


def topk(input: np.ndarray, k: int, *, axis: int, sorted: bool = True, largest: bool = True) -> tuple[np.ndarray, ...]:
    """hlir.Topk (ONNX TopK): the k largest (or smallest) elements along `axis` and their indices,
    largest first (smallest first); equal elements in the order of their indices. `sorted` = False
    leaves the order open in ONNX; the reference returns the same sorted result."""
    x = np.asarray(input)
    axis = int(axis) % x.ndim
    count = int(np.asarray(k).reshape(-1)[0])
    order = _stable_order(x, axis, descending=bool(largest))
    indices = np.take(order, np.arange(count), axis=axis).astype(np.int64)
    return np.take_along_axis(x, indices, axis=axis), indices
