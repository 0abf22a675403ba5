"""Indexing: hlir Gather and ScatterND, both with XLA's dimension numbers.

Both ops address `input` through *index vectors*: the dimension `index_vector_dim` of the index tensor
holds them (index_vector_dim == its rank means a trailing dimension of size 1), every other dimension
is a batch dimension. An index vector becomes a full start index into `input` by placing its k-th
component at dimension `start_index_map[k]` (`scatter_dims_to_operand_dims[k]`), 0 elsewhere.

Out-of-bounds starts (the specs' notes say why; XLA defines both):
- Gather clamps each start into [0, input.shape[d] - slice_sizes[d]], so the whole slice lies inside
  `input` (XLA Gather; jax.lax.gather with mode="clip").
- ScatterND skips an update window entirely when any part of it falls outside `input` (negative starts
  included), and applies the others (XLA Scatter; jax.lax.scatter with mode="drop").

ScatterND applies the update windows one after another, in row-major order of the update batch index,
so that overlapping windows combine in a defined order (XLA's CPU scatter does the same; XLA leaves the
order unspecified). `indices_are_sorted` and `unique_indices` are promises to an implementation; the
reference does not rely on them and gives the same result whatever their value.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

from ..elementwise import compute_dtype, ieee_maximum, ieee_minimum, xla_div


def _index_vectors_last(indices: np.ndarray, index_vector_dim: int) -> np.ndarray:
    """The index tensor as batch dimensions + one last dimension holding the index vectors.

    Indices of any integer type are read by value: an unsigned index above the int64 range becomes
    the largest int64, which lies past every dimension as the value itself does (Gather clamps it to
    the last window, ScatterND skips its window)."""
    indices = np.asarray(indices)
    if indices.dtype.kind == "u" and indices.dtype.itemsize == 8:
        indices = np.minimum(indices, np.uint64(np.iinfo(np.int64).max))
    indices = indices.astype(np.int64, copy=False)  # a read-only use: the caller's array itself when int64
    if index_vector_dim == indices.ndim:
        return indices[..., None]
    if index_vector_dim == indices.ndim - 1:  # already last (np.moveaxis would check its arguments to no end)
        return indices
    return np.moveaxis(indices, index_vector_dim, -1)


def _full_starts(vectors: np.ndarray, index_map: Sequence[int], rank: int) -> np.ndarray:
    """batch + (rank,): each index vector's k-th component placed at dimension index_map[k], 0 elsewhere."""
    starts = np.zeros(vectors.shape[:-1] + (rank,), np.int64)
    starts[..., list(index_map)] = vectors
    return starts


def _window_offsets(starts: np.ndarray, window_shape: Sequence[int], shape: Any) -> np.ndarray:
    """batch + window_shape: the row-major offset into an array of `shape` of every element of every
    window (each window starting at its row of `starts`, which must lie inside the array).

    The offset of element w of the window at s is offset(s) + offset(w): one broadcast addition of the
    windows' start offsets and the window's own element offsets."""
    strides = np.array([math.prod(shape[d + 1:]) for d in range(len(shape))], np.int64)
    in_window = np.indices(tuple(window_shape), dtype=np.int64).reshape(len(shape), math.prod(window_shape)).T @ strides
    start = starts @ strides
    return (start[..., None] + in_window).reshape(starts.shape[:-1] + tuple(window_shape))


# ---- Gather --------------------------------------------------------------------------------------


def _clamped_starts(x: np.ndarray, vectors: np.ndarray, index_map: Sequence[int], slice_sizes: list[int]) -> np.ndarray:
    """Full start indices clamped so that each slice lies inside x (XLA Gather's clamp)."""
    starts = _full_starts(vectors, index_map, x.ndim)
    return np.clip(starts, 0, np.array(x.shape, np.int64) - np.array(slice_sizes, np.int64))


def gather(input: np.ndarray, start_indices: np.ndarray, *, index_vector_dim: int, start_index_map: Sequence[int],
           collapsed_slice_dims: Sequence[int], offset_dims: Sequence[int], slice_sizes: Sequence[int],
           indices_are_sorted: bool = False) -> np.ndarray:
    """hlir.Gather (XLA Gather): one slice of size `slice_sizes` per index vector.

    The output's dimensions are the batch dimensions of `start_indices` (in order) and the slice
    dimensions not in `collapsed_slice_dims` (in order), the latter at the positions `offset_dims`."""
    x = np.asarray(input)
    vectors = _index_vectors_last(start_indices, index_vector_dim)
    batch_shape = vectors.shape[:-1]
    slice_sizes = [int(s) for s in slice_sizes]

    mapped = [int(d) for d in start_index_map]
    lookup = bool(mapped) and len(set(mapped)) == len(mapped) \
        and all(slice_sizes[d] == (1 if d in mapped else x.shape[d]) for d in range(x.ndim))
    rank = len(batch_shape)
    if lookup and mapped == [0] and x.shape[0] > 0 and [int(d) for d in collapsed_slice_dims] == [0] \
            and [int(d) for d in offset_dims] == list(range(rank, rank + x.ndim - 1)):
        # rows of a table picked by index (an embedding lookup, ONNX Gather on axis 0), the batch dimensions
        # first and each row's dimensions after them: np.take's own result, with no reshaping after it
        # (those few NumPy calls are a third of a small lookup's cost)
        return np.take(x, vectors[..., 0], axis=0, mode="clip")  # (np.ascontiguousarray makes 0-d 1-d)
    if lookup and len(mapped) == 1 and x.shape[mapped[0]] > 0:
        # one index per slice (an embedding lookup): np.take, NumPy's fastest path for one index array, with
        # its clip mode as the clamp into [0, size - 1] (slice size 1) and the index vectors read in place
        # of full start indices (contiguous indices: np.take copies strided ones first)
        picked = np.take(x, np.ascontiguousarray(vectors[..., 0]), axis=mapped[0], mode="clip")
        picked = np.moveaxis(picked, range(mapped[0], mapped[0] + len(batch_shape)), range(len(batch_shape)))
        slices = np.expand_dims(picked, len(batch_shape) + mapped[0])
    elif lookup:
        # each slice is one element along the mapped dimensions and whole along the others:
        # plain advanced indexing picks the same elements
        starts = _clamped_starts(x, vectors, start_index_map, slice_sizes)
        rest = [d for d in range(x.ndim) if d not in mapped]
        picked = np.transpose(x, mapped + rest)[tuple(starts[..., d] for d in mapped)]  # batch + rest
        slices = np.expand_dims(picked, [len(batch_shape) + d for d in sorted(mapped)])
    else:
        starts = _clamped_starts(x, vectors, start_index_map, slice_sizes)
        slices = np.take(x.reshape(-1), _window_offsets(starts, slice_sizes, x.shape))
    # slices: batch_shape + slice_sizes

    collapsed = {int(d) for d in collapsed_slice_dims}
    kept_sizes = tuple(s for d, s in enumerate(slice_sizes) if d not in collapsed)
    slices = slices.reshape(batch_shape + kept_sizes)  # the collapsed dimensions have size 1

    offset_dims = sorted(int(d) for d in offset_dims)
    out_rank = len(batch_shape) + len(kept_sizes)
    batch_dims = [d for d in range(out_rank) if d not in offset_dims]
    out = np.moveaxis(slices, list(range(out_rank)), batch_dims + offset_dims)
    return out if out.flags.c_contiguous else out.copy()  # slices is a fresh array, never the input


# ---- ScatterND -----------------------------------------------------------------------------------

_BITWISE = {"AND": np.bitwise_and, "OR": np.bitwise_or, "XOR": np.bitwise_xor}


def _l2(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """sqrt(a^2 + b^2) without overflow; for integers computed in float64, truncated toward zero and
    saturated at the type's maximum."""
    if a.dtype.kind not in "iu":
        return np.hypot(a, b)
    r = np.trunc(np.hypot(a.astype(np.float64), b.astype(np.float64)))
    info = np.iinfo(a.dtype)
    limit = float(2 ** (info.bits - (1 if info.min < 0 else 0)))  # the first value past the maximum
    out = np.where(r >= limit, 0.0, r).astype(a.dtype)
    out[r >= limit] = info.max
    return out


def _combiner(computation: str, dtype: np.dtype) -> Callable[..., Any]:
    """The scatter computation as a function (current value, update) -> new value, in `dtype`."""
    if computation in _BITWISE:
        if dtype.kind not in "iu":
            raise ValueError(f"computation {computation} is bitwise and needs an integer type, got {dtype}")
        return _BITWISE[computation]
    table: dict[str, Callable[..., Any]] = {
        "UPDATE": lambda a, b: b,
        "ADD": np.add,
        "SUB": np.subtract,
        "MUL": np.multiply,
        "DIV": xla_div,
        "MIN": ieee_minimum, "ARGMIN": ieee_minimum,
        "MAX": ieee_maximum, "ARGMAX": ieee_maximum,
        "L2": _l2,
        "COUNT": lambda a, b: a + np.ones((), a.dtype),
    }
    return table[computation]


def _all_distinct(targets: np.ndarray, size: int) -> bool:
    """Whether no offset in `targets` (each in [0, size)) occurs twice: mark them, count the marks."""
    marked = np.zeros(size, np.bool_)
    marked[targets] = True
    return int(np.count_nonzero(marked)) == targets.size


def _occurrence(targets: np.ndarray) -> np.ndarray:
    """For each entry, how many earlier entries have the same value (0 for the first occurrence)."""
    order = np.argsort(targets, kind="stable")
    ranked = targets[order]
    position = np.arange(ranked.size)
    group_begins = np.ones(ranked.size, bool)
    group_begins[1:] = ranked[1:] != ranked[:-1]
    group_start = np.maximum.accumulate(np.where(group_begins, position, 0))
    occurrence = np.empty(ranked.size, np.int64)
    occurrence[order] = position - group_start
    return occurrence


def _row_scatter(x: np.ndarray, windows: np.ndarray, starts: np.ndarray, window_shape: tuple[int, ...],
                 index_map: Sequence[int], computation: str, combine: Callable[..., Any],
                 work: np.dtype) -> np.ndarray | None:
    """scatter_nd's result when every window is one whole row of x seen as (cells, rest): the windows
    start in the k leading dimensions (size 1 there) and span all the others, and no two windows reach
    the same row. Then one row-level assignment (a window's elements are one contiguous row) applies
    them, element for element as the general path does, without an offset per element. None when the
    windows are not such rows."""
    k = len(index_map)
    if sorted(int(d) for d in index_map) != list(range(k)) or k == 0 or x.size == 0 \
            or window_shape != (1,) * k + tuple(x.shape[k:]):
        return None
    cells = np.ravel_multi_index(tuple(starts[:, d] for d in range(k)), x.shape[:k]) if starts.size else \
        np.zeros(0, np.int64)
    if not _all_distinct(cells, math.prod(x.shape[:k])):
        return None
    out = x.astype(work).reshape(math.prod(x.shape[:k]), -1)  # a fresh copy
    values = windows.reshape(cells.size, out.shape[1]).astype(work, copy=False)
    with np.errstate(all="ignore"):
        out[cells] = values if computation == "UPDATE" else \
            np.asarray(combine(out[cells], values)).astype(x.dtype, copy=False)
    return out.astype(x.dtype, copy=False).reshape(x.shape)


def scatter_nd(input: np.ndarray, scatter_indices: np.ndarray, updates: np.ndarray, *, computation: str,
               index_vector_dim: int, update_window_dims: Sequence[int], inserted_window_dims: Sequence[int],
               scatter_dims_to_operand_dims: Sequence[int], indices_are_sorted: bool = False,
               unique_indices: bool = False) -> np.ndarray:
    """hlir.ScatterND (XLA Scatter, one operand): output = input, then for every update window in
    row-major order of its batch index, output[start + w] = computation(output[start + w], update[w])
    for each element w of the window, unless the window does not fit in `input` (it is skipped).

    Computations on (current, update): UPDATE: update; ADD/SUB/MUL/DIV: current op update (integer
    DIV as XLA: toward zero, x / 0 = -1, MIN / -1 = MIN); MIN/MAX (and ARGMIN/ARGMAX, which with a
    single operand select the value the same way): XLA's NaN-propagating min/max with -0.0 < +0.0;
    AND/OR/XOR: bitwise, integers only; L2: sqrt(current^2 + update^2); COUNT: current + 1.
    Each application is computed in float32 for float16/bfloat16 and rounded to the type."""
    x = np.asarray(input)
    u = np.asarray(updates)
    combine = _combiner(computation, x.dtype)
    vectors = _index_vectors_last(scatter_indices, index_vector_dim)
    batch_shape = vectors.shape[:-1]

    # updates as batch dimensions + the full window (size 1 at the inserted dimensions)
    window_dims = sorted(int(d) for d in update_window_dims)
    u = np.transpose(u, [d for d in range(u.ndim) if d not in window_dims] + window_dims)
    inserted = {int(d) for d in inserted_window_dims}
    sizes = iter(u.shape[len(batch_shape):])
    window_shape = tuple(1 if d in inserted else next(sizes) for d in range(x.ndim))
    u = u.reshape(batch_shape + window_shape)

    # windows that do not fit are skipped whole
    starts = _full_starts(vectors, scatter_dims_to_operand_dims, x.ndim)
    fits = np.all((starts >= 0) & (starts <= np.array(x.shape, np.int64) - np.array(window_shape, np.int64)),
                  axis=-1)
    work = compute_dtype(x.dtype)
    rows = _row_scatter(x, u[fits], starts[fits], window_shape, scatter_dims_to_operand_dims, computation, combine,
                        work)
    if rows is not None:
        return rows
    targets = _window_offsets(starts[fits], window_shape, x.shape).reshape(-1)
    values = u[fits].reshape(-1)  # row-major: batch index first, so earlier windows come first

    out = x.astype(work).reshape(-1)  # a fresh copy
    values = values.astype(work, copy=False)
    with np.errstate(all="ignore"):
        if _all_distinct(targets, out.size):  # one round: no position is updated twice
            out[targets] = values if computation == "UPDATE" else \
                np.asarray(combine(out[targets], values)).astype(x.dtype, copy=False)
            return out.astype(x.dtype, copy=False).reshape(x.shape)
        # apply in rounds: round r applies every element update that is the r-th to reach its position,
        # so each position sees its updates in order and no round writes a position twice
        occurrence = _occurrence(targets)
        for r in range(int(occurrence.max()) + 1 if occurrence.size else 0):
            now = occurrence == r
            at = targets[now]
            out[at] = np.asarray(combine(out[at], values[now])).astype(x.dtype).astype(work)
    return out.astype(x.dtype, copy=False).reshape(x.shape)
