"""Ordering: hlir Sort and Topk; ONNX TopK, ArgMax, ArgMin and Unique.

One order serves both (the specs' notes say why): numbers compare by value, -0.0 and +0.0 are equal,
and every NaN (of either sign) is larger than +inf and equal to the other NaNs. Equal elements keep
their input order, in ascending and in descending order alike: Sort is always stable (a stable result
is also a valid result of an unstable sort), and Topk breaks ties by the lower index, as ONNX TopK
does. This is NumPy's sort order, jax.lax.sort's (which makes signed zeros and NaNs equal before
comparing), torch.sort(stable=True)'s and onnx.reference's TopK order.

The ONNX ops mean what the hlir ones (and reduction.argmax/argmin) mean: thin adapters map their
attributes. Unique groups values with the same order's equality (one group for all NaNs, -0.0 with
+0.0), as numpy.unique does.
"""
from __future__ import annotations

from typing import Sequence

import ml_dtypes
import numpy as np

from .reduction import argmax, argmin

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


# ---- ONNX TopK, ArgMax, ArgMin -------------------------------------------------------------------


def onnx_topk(X: np.ndarray, K: np.ndarray | None = None, *, axis: int = -1, largest: int = 1, sorted: int = 1,
              k: int | None = None, Indices_dtype: np.dtype | None = None) -> tuple[np.ndarray, ...]:
    """ONNX TopK, every version: k from the attribute (version 1) or the input K (10 on); largest and
    sorted from version 11 (before: the largest, sorted). Equal values come in the order of their
    indices; sorted = 0 gets the sorted result, one of the orders it allows. Indices_dtype can only be
    int64 (the spec's type variable I has that one type)."""
    count = int(k) if k is not None else int(np.asarray(K).reshape(-1)[0])
    values, indices = topk(X, count, axis=int(axis), sorted=bool(sorted), largest=bool(largest))
    return values, indices.astype(Indices_dtype or np.int64, copy=False)


def _exact_order_keys(x: np.ndarray) -> np.ndarray:
    """bfloat16 as float32 (exact, same order): NumPy's argmax/argmin know NaN for its own types only."""
    return x.astype(np.float32) if x.dtype == _BF16 else x


def onnx_argmax(data: np.ndarray, *, axis: int = 0, keepdims: int = 1, select_last_index: int = 0) -> np.ndarray:
    """ONNX ArgMax (select_last_index from version 12): reduction.argmax, the first (or last) position of
    the largest value, a NaN counting as the largest."""
    x = _exact_order_keys(np.asarray(data))
    return argmax(x, axis=int(axis) % x.ndim, keepdims=bool(keepdims), select_last_index=bool(select_last_index))


def onnx_argmin(data: np.ndarray, *, axis: int = 0, keepdims: int = 1, select_last_index: int = 0) -> np.ndarray:
    """ONNX ArgMin: reduction.argmin, the first (or last) position of the smallest value, a NaN counting
    as the smallest (NumPy's rule: the first NaN wins either way)."""
    x = _exact_order_keys(np.asarray(data))
    return argmin(x, axis=int(axis) % x.ndim, keepdims=bool(keepdims), select_last_index=bool(select_last_index))


# ---- ONNX Unique ---------------------------------------------------------------------------------


def _group_codes(column: np.ndarray) -> np.ndarray:
    """For each value, the rank of its group of equal values in ascending order (NaNs one last group,
    -0.0 equal to +0.0)."""
    keys = column.astype(np.float32) if column.dtype == _BF16 else column
    return np.unique(keys, return_inverse=True)[1].reshape(-1).astype(np.int64)


def unique(X: np.ndarray, *, axis: int | None = None, sorted: int = 1) -> tuple[np.ndarray, ...]:
    """ONNX Unique: the distinct elements of X flattened (axis absent), or its distinct slices along
    `axis`; returns Y, indices (first occurrence of each), inverse_indices (Y's entry of each element or
    slice of X) and counts. sorted = 1 orders them ascending (slices lexicographically, element by
    element in row-major order), sorted = 0 by first occurrence. Each Y entry is X's first occurrence
    of it (which of -0.0 and +0.0, for instance)."""
    x = np.asarray(X)
    a = None if axis is None else int(axis) % x.ndim
    rows = x.reshape(-1, 1) if a is None else \
        np.moveaxis(x, a, 0).reshape(x.shape[a], int(np.prod(x.shape[:a] + x.shape[a + 1:], dtype=np.int64)))
    n = rows.shape[0]
    if n == 0 or rows.shape[1] == 0:  # no slices, or empty slices (all equal)
        group = np.zeros(n, np.int64)
    elif rows.shape[1] == 1:  # single elements: their group codes are the groups
        group = _group_codes(rows[:, 0])
    else:  # slices: equal when every element is; the codes' rows order them lexicographically
        codes = np.stack([_group_codes(rows[:, j]) for j in range(rows.shape[1])], axis=1)
        group = np.unique(codes, axis=0, return_inverse=True)[1].reshape(-1).astype(np.int64)
    n_groups = int(group.max()) + 1 if n else 0
    first = np.full(n_groups, n, np.int64)
    np.minimum.at(first, group, np.arange(n, dtype=np.int64))
    counts = np.bincount(group, minlength=n_groups).astype(np.int64)
    if not sorted:  # renumber the groups by first occurrence
        order = np.argsort(first, kind="stable")
        rank = np.empty(n_groups, np.int64)
        rank[order] = np.arange(n_groups, dtype=np.int64)
        group, first, counts = rank[group], first[order], counts[order]
    y = x.reshape(-1)[first] if a is None else np.take(x, first, axis=a)
    return y, first, group, counts


def _total_order_keys(x: np.ndarray) -> np.ndarray:
    """Integer keys ordered as StableHLO's total order of x's values: for floats -NaN < -inf < ... <
    -0.0 < +0.0 < ... < +inf < +NaN (the bits of a negative value, all but the sign flipped, compare as
    signed integers in that order); integers are their own keys."""
    if x.dtype.kind in "iu":
        return x
    signed = np.dtype(f"i{x.dtype.itemsize}")
    bits = x.view(signed)
    magnitude = np.array(np.iinfo(signed).max, signed)
    return bits ^ ((bits >> (8 * x.dtype.itemsize - 1)) & magnitude)


def chlo_top_k(operand: np.ndarray, *, k: int) -> tuple[np.ndarray, np.ndarray]:
    """hlir.ChloTopK (chlo.top_k): the k largest elements along the last dimension, in descending
    total order (-0.0 below +0.0, NaNs by their sign beyond the infinities), equal elements lower index
    first; their indices as int32."""
    x = np.asarray(operand)
    if x.ndim == 0:
        raise ValueError("ChloTopK needs an operand of rank 1 or more")
    if not 0 <= k <= x.shape[-1]:
        raise ValueError(f"k = {k} must lie in [0, {x.shape[-1]}] (the size of the last dimension)")
    keys = _total_order_keys(x)
    order = np.argsort(~keys, axis=-1, kind="stable")[..., :k]  # ~ reverses the order without overflow
    return np.take_along_axis(x, order, axis=-1), order.astype(np.int32)
