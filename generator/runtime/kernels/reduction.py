"""Reductions: ArgMax/ArgMin, Reduce and the global pools.

Conventions shared by these kernels (each recorded in the op's spec notes):
- float16 inputs are computed in float32 and rounded once; other floating types in their own precision;
  integers in their own type with two's-complement wrap-around (XLA).
- "max"/"min" propagate NaN and order -0.0 below +0.0 (XLA's max/min; see Reduce note max_min_order).
"""
from __future__ import annotations

import contextlib
import functools
import math
from typing import Any, Callable, Sequence

import numpy as np

from ..elementwise import compute_dtype, ieee_results

# ---- ArgMax / ArgMin (ONNX-style: first or last index, NaN counts as the extreme) ----------------


def _arg_extreme(x: np.ndarray, axis: int, keepdims: bool, select_last_index: bool, pick: Callable[...,
                 Any]) -> np.ndarray:
    """Index of the first (or last) extreme along `axis`; NaN counts as the extreme, as in ONNX/NumPy."""
    if x.shape[axis] == 0:
        raise ValueError(f"axis {axis} is empty: the index of an extreme of no elements does not exist")
    if select_last_index:
        flipped = np.flip(x, axis=axis)
        index = x.shape[axis] - 1 - pick(flipped, axis=axis)
    else:
        index = pick(x, axis=axis)
    index = np.asarray(index, dtype=np.int64)
    return np.expand_dims(index, axis) if keepdims else index


def argmax(input: np.ndarray, *, axis: int, keepdims: bool, select_last_index: bool) -> np.ndarray:
    return _arg_extreme(np.asarray(input), axis, keepdims, select_last_index, np.argmax)


def argmin(input: np.ndarray, *, axis: int, keepdims: bool, select_last_index: bool) -> np.ndarray:
    return _arg_extreme(np.asarray(input), axis, keepdims, select_last_index, np.argmin)


# ---- max / min with XLA's order ------------------------------------------------------------------


def _floating(dtype: np.dtype) -> bool:
    return np.dtype(dtype).kind == "f" or compute_dtype(dtype) != np.dtype(dtype)


def _extreme(values: np.ndarray, largest: bool) -> np.ndarray:
    """max (or min) over the last axis, NaN-propagating, with -0.0 < +0.0 (XLA max/min)."""
    m = np.asarray(np.max(values, axis=-1) if largest else np.min(values, axis=-1))
    if not _floating(values.dtype):
        return m
    at_zero = m == 0
    if not at_zero.any():  # the signs of the zeros only matter in rows whose extreme is a zero
        return m
    rows = values[at_zero]
    zero = rows == 0
    positive_zero = np.any(zero & ~np.signbit(rows), axis=-1)
    negative_zero = np.any(zero & np.signbit(rows), axis=-1)
    want_negative = ~positive_zero if largest else negative_zero
    m = np.array(m)
    m[at_zero] = np.where(want_negative, np.array(-0.0, values.dtype), np.array(0.0, values.dtype))
    return m


def _position_of(values: np.ndarray, m: np.ndarray) -> np.ndarray:
    """First position along the last axis holding exactly m (same sign of zero; any NaN for NaN)."""
    target = m[..., None]
    same = values == target
    if _floating(values.dtype):
        same = (same & (np.signbit(values) == np.signbit(target))) | (np.isnan(values) & np.isnan(target))
    return np.argmax(same, axis=-1)


# ---- Reduce ------------------------------------------------------------------------------------
#
# hlir Reduce: a left fold of every reduced row, starting from the initial value (spec note fold_left).
#
# Each output element is f(...f(f(init, x1), x2)..., xn) over the reduced elements x1..xn in row-major
# order of the input. The reduced elements are laid out once (reduced dimensions moved first and
# flattened, the initial value prepended), and every computation is one pass along that axis, vectorised
# over the outputs:
#
# - ADD, SUB, MUL, AND, OR, XOR: the ufunc applied row after row (or its accumulate); for integers, whose
#   wrapping +, *, &, |, ^ are associative and commutative, the ufunc's reduce (the same result); floating
#   MUL also through multiply.reduce, which NumPy folds sequentially along any axis (_sequential_product);
# - DIV: XLA's division, folded step by step for integers (truncation, x / 0 = -1 or the maximum);
# - L2: hypot folded for floating types, sqrt(init² + Σx²) exactly (then truncated, saturated) for integers;
# - UPDATE: the last element; COUNT: init + n;
# - MAX, MIN, ARGMAX, ARGMIN: XLA's max/min of the first input (NaN propagates, -0.0 < +0.0), and every
#   input's value at the first position holding it, the initial value counting as position 0.
#
# float16 is computed in float32 and rounded once; integers wrap around (two's complement).


def _reduced_last(x: np.ndarray, dims: list[int]) -> np.ndarray:
    """x with the reduced dimensions moved to one last axis, in row-major order of the input."""
    kept = [k for k in range(x.ndim) if k not in dims]
    moved = np.transpose(x, kept + dims)
    return moved.reshape(tuple(x.shape[k] for k in kept) + (math.prod(x.shape[d] for d in dims),))


def _int_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """XLA integer division: truncation toward zero; x / 0 is -1 (all bits set), MIN / -1 is MIN."""
    dtype = a.dtype
    zero = b == 0
    safe = np.where(zero, np.ones((), dtype), b)
    if dtype.kind == "i":
        overflow = (a == np.iinfo(dtype).min) & (safe == -1)
        safe = np.where(overflow, np.ones((), dtype), safe)
        quotient = _trunc_div_signed(a, safe)
        quotient = np.where(overflow, a, quotient)
        return np.where(zero, np.array(-1, dtype), quotient).astype(dtype)
    quotient = a // safe
    return np.where(zero, np.array(np.iinfo(dtype).max, dtype), quotient).astype(dtype)


def _trunc_div_signed(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a / b truncated toward zero for signed integers (b != 0, no MIN / -1)."""
    q = a // b  # floor division: one below the truncated quotient when inexact and the signs differ
    adjust = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
    return (q + adjust.astype(a.dtype)).astype(a.dtype)


_isqrt = np.frompyfunc(math.isqrt, 1, 1)


def _int_l2(values: np.ndarray) -> np.ndarray:
    """floor(sqrt(sum of squares)) over the last axis, exactly (Python integers), saturated at the maximum."""
    exact = values.astype(object)
    root = _isqrt(np.sum(exact * exact, axis=-1))
    maximum = int(np.iinfo(values.dtype).max)
    return np.asarray(np.minimum(np.asarray(root, dtype=object), maximum), dtype=object).astype(values.dtype)


COMPUTATIONS = ("UPDATE", "ADD", "SUB", "MUL", "DIV", "MIN", "MAX", "AND", "OR", "XOR",
                "ARGMIN", "ARGMAX", "L2", "COUNT")
SELECTING = ("MAX", "MIN", "ARGMAX", "ARGMIN")  # the only computations allowed with several inputs
_ACCUMULATING = {"ADD": np.add, "SUB": np.subtract, "MUL": np.multiply,
                 "AND": np.bitwise_and, "OR": np.bitwise_or, "XOR": np.bitwise_xor}


def _rows(x: np.ndarray, init: np.ndarray, dims: list[int]) -> np.ndarray:
    """x with the reduced elements on one last axis, each row starting with the initial value."""
    flat = _reduced_last(x, dims)
    first = np.broadcast_to(np.asarray(init, dtype=x.dtype), flat.shape[:-1] + (1,))
    return np.concatenate([first, flat], axis=-1)


def _columns(x: np.ndarray, init: np.ndarray, dims: list[int]) -> np.ndarray:
    """The same rows transposed: the fold runs along axis 0 (init first), vectorised over the outputs."""
    kept = [k for k in range(x.ndim) if k not in dims]
    n = int(np.prod([x.shape[d] for d in dims], dtype=np.int64))
    moved = np.transpose(x, dims + kept).reshape((n,) + tuple(x.shape[k] for k in kept))
    first = np.broadcast_to(np.asarray(init, dtype=x.dtype), (1,) + moved.shape[1:])
    return np.concatenate([first, moved], axis=0)


def _leading_fold(op: np.ufunc, x: np.ndarray, init: np.ndarray, dims: list[int]) -> np.ndarray | None:
    """The left fold init op x1 op x2 ... of every output's reduced elements (row-major order) in one NumPy call:
    the reduced elements moved onto a leading axis of a C-contiguous array in the compute type (no copy when
    they lead already), the outputs side by side along the rest, then op.reduce over axis 0 from `initial`.
    NumPy reduces the leading axis of a C-contiguous array row by row (out = initial, then out = out op row for
    each row in order): a left fold for every output. It folds pairwise only along the innermost axis, which a
    single output would make the reduced one: None then, and the caller folds as before. Instead of a Python
    loop over rows that were strided (the concatenated columns keep the transposed order)."""
    shape = x.shape
    led = len(dims)
    if led < len(shape) and dims == _LEADING[led] and x.dtype.kind == "f" and x.dtype.itemsize >= 4 and \
            x.flags.c_contiguous:
        # The common case first, in fewer Python steps (a measurable part of a small reduction): float32/64,
        # its own compute type, the reduced dimensions leading, the input read through a reshaped view.
        n, out_shape = math.prod(shape[:led]), shape[led:]
        kept_total = math.prod(out_shape)
        if kept_total < 2 or n == 0:
            return None
        start = (init if init.dtype == x.dtype else np.asarray(init, dtype=x.dtype))[()]
        return op.reduce(x.reshape(n, kept_total), axis=0, initial=start).reshape(out_shape)
    kept = [k for k in range(x.ndim) if k not in dims]
    kept_total = math.prod(x.shape[k] for k in kept)
    n = math.prod(x.shape[d] for d in dims)
    if kept_total < 2 or n == 0:
        return None
    compute = compute_dtype(x.dtype)
    start = np.asarray(init, dtype=x.dtype).astype(compute)[()]
    out_shape = tuple(x.shape[k] for k in kept)
    if dims == list(range(x.ndim - len(dims), x.ndim)) and x.flags.c_contiguous and kept_total > _FOLD_BLOCK:
        return _blocked_rows_fold(op, x.reshape(kept_total, n), compute, start).reshape(out_shape)
    if dims == list(range(len(dims))) and x.flags.c_contiguous and x.dtype == compute:
        moved = x.reshape(n, kept_total)  # the reduced elements lead already: a view, no transposition
    else:
        moved = np.ascontiguousarray(np.transpose(x, dims + kept), dtype=compute).reshape(n, kept_total)
    return op.reduce(moved, axis=0, initial=start).reshape(out_shape)


_LEADING = [list(range(n)) for n in range(65)]  # dims == _LEADING[len(dims)]: the leading dimensions, in order


# Outputs per block when the reduced elements are the rows of a C-contiguous matrix: the block's rows,
# transposed, fit the second-level cache while the fold reads them (measured on 1000 x 1000 float32:
# the whole transposed copy 1.55 ms, blocks of 64 rows 1.19 ms, 128 rows 1.17 ms, 32 rows 1.53 ms).
_FOLD_BLOCK = 128


def _blocked_rows_fold(op: np.ufunc, rows: np.ndarray, compute: np.dtype, start: Any) -> np.ndarray:
    """The left fold of every row of a C-contiguous (outputs, n) matrix, _FOLD_BLOCK rows at a time: each
    block transposed into a small C-contiguous (n, block) array and folded along its leading axis, as
    _leading_fold folds the whole transposed matrix (the same additions in the same order, so the same
    bits), without a transposed copy of the whole input, whose strided writes miss the cache. A block is
    never a single row (NumPy would sum it pairwise along its innermost axis): the last takes the rest."""
    total = rows.shape[0]
    out = np.empty(total, dtype=compute)
    bounds = list(range(0, total, _FOLD_BLOCK))
    if total - bounds[-1] < 2 and len(bounds) > 1:  # a last block of one row joins the one before it
        bounds.pop()
    bounds.append(total)
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        block = np.ascontiguousarray(rows[lo:hi].T, dtype=compute)
        op.reduce(block, axis=0, initial=start, out=out[lo:hi])
    return out


def _sequential_product(x: np.ndarray, init: np.ndarray, dims: list[int]) -> np.ndarray:
    """The left fold init * x1 * x2 ... of every output's reduced elements in row-major order, as one
    np.multiply.reduce over a C-contiguous array in the compute type. NumPy multiplies sequentially
    whichever axis it reduces (only add is summed pairwise, along the innermost axis): along a contiguous
    axis one accumulator per output, `acc *= x` element after element; along an outer axis the outputs side
    by side, row after row. The iterator walks a C-contiguous input in row-major order (it only reorders the
    axes of other layouts, hence the contiguous copy), and `initial` is where every accumulator starts. The
    same bits as the fold written out (a test compares with functools.reduce), without the transposed
    copies of a blocked fold, which cost more than the dependent multiplications they let run side by side."""
    compute = compute_dtype(x.dtype)
    start = np.asarray(init, dtype=x.dtype).astype(compute)[()]
    return np.asarray(np.multiply.reduce(np.asarray(x, dtype=compute, order="C"), axis=tuple(dims),
                                         initial=start))


def _extreme_of_rows(rows: np.ndarray, largest: bool) -> np.ndarray:
    """XLA max/min over the last axis; the signed-zero rule only matters where the extreme is zero."""
    m = np.max(rows, axis=-1) if largest else np.min(rows, axis=-1)
    zero = m == 0
    if rows.dtype.kind in "iu" or not zero.any():
        return m
    m = np.array(m)
    m[zero] = _extreme(rows[zero], largest)
    return m


def max_min(x: np.ndarray, init: np.ndarray, dims: list[int], largest: bool) -> np.ndarray:
    """Reduce MAX/MIN of one input: the extreme of the reduced elements (one ufunc reduce over the input's
    own axes), then the initial value where it lies beyond that. A row whose result is a zero or a NaN,
    where the sign of the zero or the NaN's bits depend on the elements compared, is computed as
    _extreme_of_rows computes it, from the initial value and the elements. Few NumPy calls on the common
    path (a reduce, and one test for a zero or NaN result): on a small input their fixed cost is what the
    kernel costs, on a large one every extra pass over the input or a copy of it would."""
    floating = _floating(x.dtype)
    init = np.asarray(init, dtype=x.dtype)
    start = init.item()  # a Python number: compared without NumPy's per-call cost
    if x.size == 0 or start != start:  # no elements, or a NaN initial value
        return _extreme_of_rows(_rows(x, init, dims), largest)
    # exact on every other element: a maximum (minimum) is one of the values compared
    out = np.asarray((np.maximum if largest else np.minimum).reduce(x, axis=tuple(dims)))
    if start != _no_bound(x.dtype, largest):  # the identity of max (min) never lies beyond
        out = np.where(init > out if largest else init < out, init, out)  # NaN: out stays
    if floating and not np.minimum.reduce(np.abs(out), axis=None) > 0:  # a zero or a NaN (NaN compares false)
        redo = out == 0
        redo |= out != out  # NaN
        out = np.array(out)
        first = np.broadcast_to(init, (int(np.count_nonzero(redo)), 1))
        out[redo] = _extreme_of_rows(np.concatenate([first, _reduced_last(x, dims)[redo]], axis=-1), largest)
    return out


@functools.lru_cache(maxsize=64)
def _no_bound(dtype: np.dtype, largest: bool) -> Any:
    """The initial value that never lies beyond the extreme of any element of dtype: -inf (+inf) for floating
    types, the integer type's lowest (highest) value; None (no such value) for the others."""
    if _floating(dtype):
        return -np.inf if largest else np.inf
    if dtype.kind in "iu":
        limits = np.iinfo(dtype)
        return limits.min if largest else limits.max
    return None


def _left_fold(op: np.ufunc, values: np.ndarray) -> np.ndarray:
    """((v0 op v1) op v2) ... along axis 0: row by row, vectorised over the outputs, when there are
    several outputs; along one contiguous axis with op.accumulate when there are few."""
    if values[0].size >= 8 or values.shape[0] <= 2:
        acc = np.array(values[0])
        for row in values[1:]:
            op(acc, row, out=acc)
        return acc
    return op.accumulate(np.ascontiguousarray(np.moveaxis(values, 0, -1)), axis=-1)[..., -1]


def _fold(computation: str, columns: np.ndarray) -> np.ndarray:
    """The left fold along axis 0 (columns[0] is the initial value) in the compute precision."""
    dtype = columns.dtype
    values = columns.astype(compute_dtype(dtype), copy=False)
    integer = dtype.kind in "iu"
    if computation in _ACCUMULATING:
        if integer:  # wrapping integer +, *, &, |, ^ are associative and commutative: any order is the fold
            return _ACCUMULATING[computation].reduce(values, axis=0)
        return _left_fold(_ACCUMULATING[computation], values)
    if computation == "DIV":
        if not integer:
            return _left_fold(np.divide, values)
        acc = values[0]
        for k in range(1, values.shape[0]):
            acc = _int_div(acc, values[k])
        return acc
    if computation == "L2":
        if values.shape[0] == 1:  # nothing reduced: the initial value itself, also when negative
            return values[0]
        if integer:
            return _int_l2(np.moveaxis(values, 0, -1))
        return _left_fold(np.hypot, values)
    if computation == "UPDATE":
        return values[-1]
    if computation == "COUNT":
        n = np.asarray(values.shape[0] - 1).astype(values.dtype)  # wraps for narrow integers
        return values[0] + n
    raise ValueError(f"unknown computation {computation!r}; known: {', '.join(COMPUTATIONS)}")


def reduce(inputs: Sequence[np.ndarray], init_values: Sequence[np.ndarray], *, dimensions: Sequence[int],
           type: str | None = None, computation: str) -> tuple[np.ndarray, ...]:
    """XLA Reduce with the spec's left fold from the initial value; `type` has no effect (note type_ignored).
    Infinities, NaN and overflow are results, not warnings (np.errstate here rather than the ieee_results
    decorator, whose extra call is a measurable part of a small reduction's cost)."""
    xs = [np.asarray(x) for x in inputs]
    inits = [np.asarray(v) for v in init_values]
    if not xs or len(xs) != len(inits):
        raise ValueError(f"Reduce needs one initial value per input: {len(xs)} inputs, {len(inits)} init_values")
    if len(xs) > 1 and computation not in SELECTING:
        raise ValueError(f"with {len(xs)} inputs the computation must be one of {', '.join(SELECTING)}, "
                         f"not {computation}")
    if computation in ("AND", "OR", "XOR") and xs[0].dtype.kind not in "iub":  # bool: StablehloReduce's any/all
        raise ValueError(f"{computation} is bitwise: it needs an integer or boolean type, not {xs[0].dtype}")
    dims = sorted(map(int, dimensions))
    if dims and (dims[0] < 0 or dims[-1] >= xs[0].ndim or len(set(dims)) != len(dims)):
        raise ValueError(f"dimensions {list(dimensions)} must be distinct dimensions of rank {xs[0].ndim}")
    shape = xs[0].shape
    for k, (x, v) in enumerate(zip(xs, inits)):
        if x.shape != shape or v.ndim != 0:
            raise ValueError(f"input {k} {x.shape} must have the first input's shape {shape} "
                             f"and its initial value must be a scalar (rank {v.ndim})")
    if computation in ("MAX", "MIN") and len(xs) == 1:
        # outside np.errstate (a measurable part of a small reduction's cost): max, min, abs and
        # comparisons raise no floating-point flag, NaN included; but ml_dtypes' (bfloat16) flag a NaN
        with np.errstate(all="ignore") if xs[0].dtype.kind == "V" else contextlib.nullcontext():
            return (max_min(xs[0], inits[0], dims, computation == "MAX"),)
    with np.errstate(all="ignore"):
        return _reduce(xs, inits, dims, computation)


def _reduce(xs: list[np.ndarray], inits: list[np.ndarray], dims: list[int], computation: str) -> tuple[np.ndarray, ...]:
    """reduce() of checked arguments (but one input's MAX/MIN), under its np.errstate."""
    if computation in SELECTING:
        rows = [_rows(x, v, dims) for x, v in zip(xs, inits)]
        extreme = _extreme_of_rows(rows[0], computation in ("MAX", "ARGMAX"))
        if len(rows) == 1:
            return (extreme,)
        position = _position_of(rows[0], extreme)[..., None]
        return tuple(np.take_along_axis(r, position, axis=-1)[..., 0] for r in rows)
    if computation == "MUL" and _floating(xs[0].dtype):
        return (_sequential_product(xs[0], inits[0], dims).astype(xs[0].dtype, copy=False),)
    if computation == "ADD" and xs[0].dtype.kind == "f":
        folded = _leading_fold(np.add, xs[0], inits[0], dims)
        if folded is not None:
            return (folded.astype(xs[0].dtype, copy=False),)  # a new array already
    return (np.asarray(_fold(computation, _columns(xs[0], inits[0], dims))).astype(xs[0].dtype),)


# ---- GlobalAveragePool / GlobalMaxPool -----------------------------------------------------------


def _pooled_last(x: np.ndarray, dims: Sequence[int]) -> tuple[np.ndarray, tuple[int, ...]]:
    dims = sorted(int(d) for d in dims)
    out_shape = tuple(1 if k in dims else n for k, n in enumerate(x.shape))
    return _reduced_last(x, dims), out_shape


@ieee_results
def global_average_pool(input: np.ndarray, *, dims: Sequence[int]) -> np.ndarray:
    """Mean over the spatial dimensions `dims`, kept as size 1; no elements give NaN (0/0)."""
    x = np.asarray(input)
    rows, out_shape = _pooled_last(x.astype(compute_dtype(x.dtype), copy=False), dims)  # only read
    with np.errstate(all="ignore"):
        result = np.sum(rows, axis=-1) / rows.dtype.type(rows.shape[-1])
    return result.reshape(out_shape).astype(x.dtype)


@ieee_results
def global_max_pool(input: np.ndarray, *, dims: Sequence[int]) -> np.ndarray:
    """Max over the spatial dimensions `dims`, kept as size 1: NaN propagates, -0.0 < +0.0; no elements
    give -inf (the identity of max)."""
    x = np.asarray(input)
    rows, out_shape = _pooled_last(x, dims)
    if rows.shape[-1] == 0:
        return np.full(out_shape, -np.inf, x.dtype)
    m = np.maximum.reduce(rows, axis=-1)
    if rows.size and (not _floating(x.dtype) or m.all()):  # no zero maximum, whose sign _extreme settles
        return m.reshape(out_shape)
    return _extreme(rows, True).reshape(out_shape)
