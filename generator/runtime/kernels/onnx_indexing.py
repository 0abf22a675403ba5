"""ONNX indexing: Gather, GatherElements, GatherND, Scatter/ScatterElements, ScatterND, TensorScatter, NonZero.

ONNX's gathers and scatters are not XLA's (module `indexing`, the hlir ops), in two ways:
- what an index means: ONNX reads index values on one axis (Gather, GatherElements, ScatterElements)
  or as the leading coordinates of data (GatherND, ScatterND), and lets a negative value count from the
  end of its dimension; XLA places index vectors through dimension numbers and reads them as they are;
- what an index out of range does: ONNX makes a value outside [-s, s-1] an error; XLA Gather clamps the
  slice into the operand and XLA Scatter skips the window.
So the gathers are written here on their own: ONNX Gather is numpy.take on one axis (the indices' shape
replaces the axis in place), while XLA Gather cuts a slice per index vector, clamps it, and lays the
batch dimensions out through offset_dims. The scatters, once every index is checked and made
non-negative, are XLA scatters with particular dimension numbers: they call `indexing.scatter_nd`, so
that updates to the same position combine in one defined order (row-major order of the update, the
order of onnx.reference's loops) and reductions compute as the hlir op does (float16/bfloat16 in
float32, rounded after each application; max/min propagate NaN).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .data_movement import nonzero as _nonzero_rows
from .indexing import scatter_nd

# ONNX reduction attribute -> the computation of indexing.scatter_nd
_REDUCTIONS = {"none": "UPDATE", "add": "ADD", "mul": "MUL", "max": "MAX", "min": "MIN"}


def _as_int64(indices: Any) -> np.ndarray:
    """Index values as int64. An unsigned value above the int64 range stays out of range (it becomes the
    largest int64) instead of wrapping around to a negative, in-range value."""
    idx = np.asarray(indices)
    if idx.dtype.kind == "u" and idx.dtype.itemsize == 8:
        idx = np.minimum(idx, np.uint64(np.iinfo(np.int64).max))
    return idx.astype(np.int64, copy=False)  # read only: the callers index with it


_FEW = 64  # index tensors up to this size are range-checked in Python (NumPy's per-call costs dominate there)


def _in_range(indices: Any, size: int, what: str) -> np.ndarray:
    """Index values on a dimension of `size`, negative ones counted from its end, as int64 in [0, size).
    A value outside [-size, size - 1] is an error (ONNX), not clamped or skipped (XLA)."""
    idx = _as_int64(indices)
    if idx.size <= _FEW:  # a few indices (positions, parts of a shape): checked as Python ints, faster
        values = idx.ravel().tolist()
        if not values or min(values) >= -size and max(values) < size:
            return idx if not values or min(values) >= 0 else np.where(idx < 0, idx + size, idx)
    bad = (idx < -size) | (idx >= size)
    if bad.any():
        raise IndexError(f"{what} {idx[bad][:5].tolist()} outside [-{size}, {size - 1}] "
                         f"(the dimension has size {size})")
    return np.where(idx < 0, idx + size, idx)


def _coordinates_in_range(indices: Any, shape: tuple[int, ...], what: str) -> np.ndarray:
    """The last dimension of `indices` as leading coordinates into `shape` (GatherND, ScatterND), each
    component checked against its own dimension and made non-negative."""
    idx = _as_int64(indices)
    out = np.empty_like(idx)
    for j in range(idx.shape[-1]):
        out[..., j] = _in_range(idx[..., j], shape[j], f"{what}[..., {j}]")
    return out


def _element_coordinates(data_shape: tuple[int, ...], indices: np.ndarray, axis: int, what: str) -> np.ndarray:
    """GatherElements/ScatterElements: the full coordinate of each entry of `indices` in data, as
    indices.shape + (rank,): the entry's own position, except on `axis` where it is the index value."""
    for d, (n, m) in enumerate(zip(indices.shape, data_shape)):
        if d != axis and n > m:
            raise IndexError(f"{what} has size {n} in dimension {d}, data {m}: its positions there would lie "
                             "outside data")
    coords = np.indices(indices.shape, dtype=np.int64)
    coords[axis] = _in_range(indices, data_shape[axis], what)
    return np.moveaxis(coords, 0, -1)


# ---- gathers -------------------------------------------------------------------------------------


def onnx_gather(data: np.ndarray, indices: np.ndarray, *, axis: int = 0) -> np.ndarray:
    """ONNX Gather: numpy.take on one axis; output shape data.shape[:axis] + indices.shape +
    data.shape[axis+1:]. Version 1 does not say whether negative indices are allowed; they count from
    the end there too (spec note negative_indices)."""
    x = np.asarray(data)
    a = axis % x.ndim
    idx = _as_int64(indices)
    try:  # numpy.take's "raise" mode is ONNX's rule: -size .. size - 1, negative values from the end
        picked = np.take(x, idx, axis=a)
    except IndexError:
        _in_range(idx, x.shape[a], "indices")  # raises, naming the values and the range
        raise
    if type(picked) is np.ndarray and picked.dtype == x.dtype:
        return picked  # take's result is a new array already
    return np.array(picked, dtype=x.dtype)  # a 0-d result is a NumPy scalar (a str for strings): an array again


def gather_elements(data: np.ndarray, indices: np.ndarray, *, axis: int = 0) -> np.ndarray:
    """ONNX GatherElements (torch.gather): output[p] = data[p with p[axis] replaced by indices[p]];
    the output has the shape of indices, which may be smaller than data's in every dimension."""
    x = np.asarray(data)
    idx = np.asarray(indices)
    a = axis % x.ndim
    coords = _element_coordinates(x.shape, idx, a, "indices")
    return x[tuple(np.moveaxis(coords, -1, 0))]


def gather_nd(data: np.ndarray, indices: np.ndarray, *, batch_dims: int = 0) -> np.ndarray:
    """ONNX GatherND: the last dimension of indices (size k) holds coordinates into the dimensions
    b .. b+k-1 of data (b = batch_dims), within the batch entry that the first b dimensions of both
    share. Output shape: indices.shape[:-1] + data.shape[b+k:]."""
    x = np.asarray(data)
    idx = np.asarray(indices)
    b = int(batch_dims)
    k = idx.shape[-1]
    batch = x.shape[:b]
    n_batch = int(np.prod(batch, dtype=np.int64))
    n_index = int(np.prod(idx.shape[b:-1], dtype=np.int64))
    coords = _coordinates_in_range(idx, x.shape[b:], "indices").reshape(n_batch, n_index, k)
    flat = x.reshape((n_batch,) + x.shape[b:])
    which = np.arange(n_batch, dtype=np.int64)[:, None]
    picked = flat[(which,) + tuple(coords[..., j] for j in range(k))]  # (n_batch, n_index) + data.shape[b+k:]
    return picked.reshape(idx.shape[:-1] + x.shape[b + k:])


# ---- scatters ------------------------------------------------------------------------------------


def _computation(reduction: str) -> str:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction {reduction!r} is not one of {', '.join(_REDUCTIONS)}")
    return _REDUCTIONS[reduction]


def scatter_elements(data: np.ndarray, indices: np.ndarray, updates: np.ndarray, *, axis: int = 0,
                     reduction: str = "none") -> np.ndarray:
    """ONNX ScatterElements (and the deprecated Scatter): a copy of data where, for every position p of
    updates, output[p with p[axis] = indices[p]] = f(output[...], updates[p]), f given by `reduction`
    (none: the update itself; add, mul, max, min). The updates apply in row-major order of p, so with
    duplicate indices and reduction none the last one stays (ONNX leaves that case open).

    It is XLA Scatter with one full coordinate per update element (a window of one element)."""
    x = np.asarray(data)
    idx = np.asarray(indices)
    a = axis % x.ndim
    coords = _element_coordinates(x.shape, idx, a, "indices")
    every_dim = list(range(x.ndim))
    return scatter_nd(x, coords, np.asarray(updates), computation=_computation(reduction), index_vector_dim=idx.ndim,
                      update_window_dims=[], inserted_window_dims=every_dim, scatter_dims_to_operand_dims=every_dim)


def onnx_scatter_nd(data: np.ndarray, indices: np.ndarray, updates: np.ndarray, *,
                    reduction: str = "none") -> np.ndarray:
    """ONNX ScatterND: the last dimension of indices (size k) holds leading coordinates into data; the
    update at indices' position i (all but the last dimension) is the slice data[coordinate, ...] of
    shape data.shape[k:], combined by `reduction` as in ScatterElements, in row-major order of i.

    It is XLA Scatter with index_vector_dim the last dimension of indices, the first k dimensions of
    data inserted (scattered to in order) and updates' trailing dimensions the window."""
    x = np.asarray(data)
    idx = np.asarray(indices)
    k = idx.shape[-1]
    coords = _coordinates_in_range(idx, x.shape, "indices")
    batch_rank = idx.ndim - 1
    return scatter_nd(x, coords, np.asarray(updates), computation=_computation(reduction),
                      index_vector_dim=batch_rank,
                      update_window_dims=list(range(batch_rank, batch_rank + x.ndim - k)),
                      inserted_window_dims=list(range(k)), scatter_dims_to_operand_dims=list(range(k)))


def tensor_scatter(past_cache: np.ndarray, update: np.ndarray, write_indices: np.ndarray | None = None, *,
                   axis: int = -2, mode: str = "linear") -> np.ndarray:
    """ONNX TensorScatter: a copy of past_cache in which, for every batch entry b, the sequence positions
    write_indices[b] + s (s < update's sequence length; modulo the cache's length in circular mode) along
    `axis` hold update's position s. Linear mode requires every such position to lie in the cache."""
    cache = np.asarray(past_cache)
    new = np.asarray(update)
    a = axis % cache.ndim
    capacity, length = cache.shape[a], new.shape[a]
    batch = cache.shape[0]
    starts = np.zeros(batch, np.int64) if write_indices is None else np.asarray(write_indices, np.int64).reshape(-1)
    if starts.shape != (batch,):
        raise ValueError(f"write_indices has {starts.size} values, the batch {batch}")
    positions = starts[:, None] + np.arange(length, dtype=np.int64)[None, :]  # (batch, sequence)
    if mode == "circular":
        positions %= max(capacity, 1)
    elif mode == "linear":
        bad = (starts < 0) | (starts + length > capacity)
        if bad.any():
            raise IndexError(f"write_indices {starts[bad][:5].tolist()}: with {length} new positions the writes "
                             f"must stay within [0, {capacity}) (linear mode)")
    else:
        raise ValueError(f"mode {mode!r} is not linear or circular")
    # positions laid out as update: batch first, sequence on `axis`, every other dimension broadcast
    view = [1] * cache.ndim
    view[0], view[a] = batch, length
    where = np.broadcast_to(positions.reshape(view), new.shape)
    out = cache.copy()
    np.put_along_axis(out, where, new, axis=a)
    return out


# ---- NonZero -------------------------------------------------------------------------------------


def onnx_nonzero(X: np.ndarray) -> np.ndarray:
    """ONNX NonZero: (rank, n) int64, column j the coordinates of the j-th element that is not zero in
    row-major order; the transpose of torch.nonzero's (n, rank) (data_movement.nonzero). A scalar gives
    (0, n). An empty string is the zero of strings (NumPy's truthiness; the zero value of ONNX's
    string tensors), which torch's comparison with 0 would not see."""
    x = np.asarray(X)
    if x.dtype == object:
        x = np.vectorize(bool, otypes=[np.bool_])(x) if x.size else np.zeros(x.shape, np.bool_)
    return np.ascontiguousarray(_nonzero_rows(x).T)
