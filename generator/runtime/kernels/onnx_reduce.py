"""ONNX reductions: ReduceSum, ReduceProd, ReduceMax, ReduceMin, ReduceMean, ReduceL1, ReduceL2,
ReduceSumSquare, ReduceLogSum, ReduceLogSumExp (every version), and the running CumSum / CumProd.

Every Reduce* is one of hlir Reduce's folds (`reduction.reduce`, left fold from an initial value) started
from ONNX's identity, so a reduction over no elements gives that identity: 0 for the sums and norms, 1 for
the product, the lowest (highest) value of the type for max (min), -inf for the logarithms. One explicit
difference: ONNX does not fix the order of a floating-point sum, and its sums (ReduceSum, ReduceMean,
ReduceL1, ReduceSumSquare, ReduceLogSum, ReduceLogSumExp) add as NumPy's add.reduce does, pairwise along
the innermost axis, the bits onnx.reference's np.sum gives (spec notes summation_order); hlir Reduce's
left fold (its note fold_left) along a contiguous axis costs a strided pass, 3-4x slower. What ONNX
adds is only the choice of axes and keepdims:
- versions with an `axes` attribute (1, 11, 13; ReduceSum 1, 11): absent or empty reduces every axis;
- versions with an `axes` input (ReduceSum 13, the others 18+, Max/Min 20): absent or empty reduces every
  axis, unless noop_with_empty_axes = 1: then no axis is reduced, and each output element is the
  reduction of the one input element at its place (|x| for L1 and L2, x*x for SumSquare, log x for
  LogSum, x for the others), as the ops' function bodies, onnx.reference and onnxruntime compute it.
The two forms share one function per op: `axes` is the second positional parameter and may also come
as a keyword (the attribute).

float16/bfloat16 are computed in float32 and rounded once; integers wrap around (two's complement).
The integer mean is the wrapped sum divided by the count, truncated toward zero (exactly). The
logarithms of integer data (versions before 28) are computed in float64 and converted as Convert
converts (toward zero, saturating).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..elementwise import compute_dtype, finish, ieee_results
from .conversion import convert
from .reduction import max_min, reduce


def _axes_to_reduce(rank: int, axes: Any, noop_with_empty_axes: int) -> list[int]:
    """The sorted distinct axes to reduce: every axis when axes is absent or empty (none with
    noop_with_empty_axes), negative values counting from the back."""
    values: list[int] = [] if axes is None else np.asarray(axes, dtype=np.int64).reshape(-1).tolist()
    if not values:
        return [] if noop_with_empty_axes else list(range(rank))
    return sorted({a % rank if rank else a for a in values})


def _fold(computation: str, x: np.ndarray, init: Any, dims: list[int], keepdims: int) -> np.ndarray:
    """hlir Reduce's fold of x over dims from init, in x's dtype; reduced axes kept as 1 when keepdims."""
    (result,) = reduce([x], [np.asarray(init, dtype=x.dtype)], dimensions=dims, computation=computation)
    return np.expand_dims(result, tuple(dims)) if keepdims else result


def _extreme(x: np.ndarray, init: Any, dims: list[int], keepdims: int, largest: bool) -> np.ndarray:
    """hlir Reduce MAX (MIN) of x over dims from init, as _fold computes it, without Reduce's checks of
    its arguments (dims are distinct axes of x here): on small inputs those checks cost as much as the
    reduction."""
    result = max_min(x, np.asarray(init, dtype=x.dtype), dims, largest)
    return np.expand_dims(result, tuple(dims)) if keepdims else result


def _sum(x: np.ndarray, dims: list[int], keepdims: int) -> np.ndarray:
    """The sum of x over dims in x's dtype. Floating types: NumPy's add.reduce order (pairwise along the
    innermost axis, from the first element: a set of -0.0 sums to -0.0), as onnx.reference; integers wrap,
    in any order. No axis to reduce: hlir's fold from 0, each element 0 + x (onnx.reference's no-op path
    returns x itself: only -0.0 differs)."""
    if x.dtype.kind != "f" or not dims:
        return _fold("ADD", x, 0, dims, keepdims)
    return np.asarray(np.sum(x, axis=tuple(dims), dtype=x.dtype, keepdims=bool(keepdims)))  # np.add.reduce


def _prepared(data: np.ndarray, axes: Any, noop_with_empty_axes: int) -> tuple[np.ndarray, np.ndarray, list[int]]:
    x = np.asarray(data)
    return x, x.astype(compute_dtype(x.dtype), copy=False), _axes_to_reduce(x.ndim, axes, noop_with_empty_axes)


def _count(x: np.ndarray, dims: list[int]) -> int:
    return int(np.prod([x.shape[d] for d in dims], dtype=np.int64))


def _to_integer(value: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A float64 result for integer data: toward zero, saturating (as Convert); NaN gives 0."""
    return convert(value, output_dtype=dtype)


# ---- sums, products, extremes ------------------------------------------------------------------


@ieee_results
def onnx_reduce_sum(data: np.ndarray, axes: Any = None, *, keepdims: int = 1,
                    noop_with_empty_axes: int = 0) -> np.ndarray:
    x, work, dims = _prepared(data, axes, noop_with_empty_axes)
    return finish(_sum(work, dims, keepdims), x.dtype)


@ieee_results
def onnx_reduce_prod(data: np.ndarray, axes: Any = None, *, keepdims: int = 1,
                     noop_with_empty_axes: int = 0) -> np.ndarray:
    x, work, dims = _prepared(data, axes, noop_with_empty_axes)
    return finish(_fold("MUL", work, 1, dims, keepdims), x.dtype)


def _lowest(dtype: np.dtype) -> Any:
    if dtype.kind == "b":
        return False
    return np.iinfo(dtype).min if dtype.kind in "iu" else -np.inf


def _highest(dtype: np.dtype) -> Any:
    if dtype.kind == "b":
        return True
    return np.iinfo(dtype).max if dtype.kind in "iu" else np.inf


@ieee_results
def onnx_reduce_max(data: np.ndarray, axes: Any = None, *, keepdims: int = 1,
                    noop_with_empty_axes: int = 0) -> np.ndarray:
    """The largest element (NaN propagates; -0.0 < +0.0, hlir Reduce MAX); no elements: -inf or the
    type's lowest value (false for bool, for which max is a logical OR)."""
    x, work, dims = _prepared(data, axes, noop_with_empty_axes)
    return finish(_extreme(work, _lowest(work.dtype), dims, keepdims, largest=True), x.dtype)


@ieee_results
def onnx_reduce_min(data: np.ndarray, axes: Any = None, *, keepdims: int = 1,
                    noop_with_empty_axes: int = 0) -> np.ndarray:
    """The smallest element (NaN propagates; -0.0 < +0.0); no elements: +inf or the type's highest
    value (true for bool, for which min is a logical AND)."""
    x, work, dims = _prepared(data, axes, noop_with_empty_axes)
    return finish(_extreme(work, _highest(work.dtype), dims, keepdims, largest=False), x.dtype)


@ieee_results
def onnx_reduce_mean(data: np.ndarray, axes: Any = None, *, keepdims: int = 1,
                     noop_with_empty_axes: int = 0) -> np.ndarray:
    """Sum / count. Floating types: no elements give NaN (0/0; ONNX leaves it undefined). Integers: the
    wrapped sum divided by the count, truncated toward zero (as onnxruntime and onnx.reference); the
    mean of no elements, undefined, is 0 here."""
    x, work, dims = _prepared(data, axes, noop_with_empty_axes)
    total = _sum(work, dims, keepdims)
    count = _count(x, dims)
    if x.dtype.kind in "iu":
        return _truncated_quotient(total, count)
    return finish(total / work.dtype.type(count), x.dtype)


def _truncated_quotient(total: np.ndarray, count: int) -> np.ndarray:
    """total / count rounded toward zero, exactly in the integer type (count > 0; 0 for count 0)."""
    if count == 0:
        return np.zeros_like(total)
    divisor = total.dtype.type(count)
    floor = total // divisor  # one below the truncated quotient where inexact and negative
    return (floor + ((total % divisor != 0) & (total < 0))).astype(total.dtype)


# ---- norms -------------------------------------------------------------------------------------


@ieee_results
def onnx_reduce_l1(data: np.ndarray, axes: Any = None, *, keepdims: int = 1,
                   noop_with_empty_axes: int = 0) -> np.ndarray:
    """Sum of |x| (|MIN| of a signed integer type wraps to MIN, as the type's abs does)."""
    x, work, dims = _prepared(data, axes, noop_with_empty_axes)
    return finish(_sum(np.abs(work), dims, keepdims), x.dtype)


@ieee_results
def onnx_reduce_l2(data: np.ndarray, axes: Any = None, *, keepdims: int = 1,
                   noop_with_empty_axes: int = 0) -> np.ndarray:
    """sqrt(sum of x*x), ONNX's definition (Sqrt of ReduceSumSquare) for floating types: the sum in ReduceSum's
    order, a square beyond the type's range overflowing (spec note square_root_of_the_sum); integers: hlir
    Reduce's L2 fold (floor(sqrt) of the exact sum of squares, saturated)."""
    x, work, dims = _prepared(data, axes, noop_with_empty_axes)
    if work.dtype.kind == "f":
        return finish(np.sqrt(_sum(work * work, dims, keepdims)), x.dtype)
    return finish(_fold("L2", work, 0, dims, keepdims), x.dtype)


@ieee_results
def onnx_reduce_sum_square(data: np.ndarray, axes: Any = None, *, keepdims: int = 1,
                           noop_with_empty_axes: int = 0) -> np.ndarray:
    """Sum of x*x (squares and sum wrap around for integers)."""
    x, work, dims = _prepared(data, axes, noop_with_empty_axes)
    return finish(_sum(work * work, dims, keepdims), x.dtype)


# ---- logarithms --------------------------------------------------------------------------------


def _logarithmic_work(x: np.ndarray) -> np.ndarray:
    """The data in the precision its logarithm is taken in: float64 for integers (versions before 28
    allow them), float32 for float16/bfloat16."""
    return x.astype(np.float64 if x.dtype.kind in "iu" else compute_dtype(x.dtype), copy=False)


def _logarithmic_result(value: np.ndarray, dtype: np.dtype) -> np.ndarray:
    return _to_integer(value, dtype) if dtype.kind in "iu" else finish(value, dtype)


@ieee_results
def onnx_reduce_log_sum(data: np.ndarray, axes: Any = None, *, keepdims: int = 1,
                        noop_with_empty_axes: int = 0) -> np.ndarray:
    """log(sum of x): no elements give log(0) = -inf; a negative sum gives NaN."""
    x = np.asarray(data)
    work = _logarithmic_work(x)
    dims = _axes_to_reduce(x.ndim, axes, noop_with_empty_axes)
    return _logarithmic_result(np.log(_sum(work, dims, keepdims)), x.dtype)


@ieee_results
def onnx_reduce_log_sum_exp(data: np.ndarray, axes: Any = None, *, keepdims: int = 1,
                            noop_with_empty_axes: int = 0) -> np.ndarray:
    """log(sum of exp(x)), evaluated as m + log(sum(exp(x - m))) with m the largest element of each
    reduced set (0 when that is infinite or NaN, or there are no elements), so large values do not overflow
    exp: a +inf element gives +inf, all -inf (or no elements) give -inf, NaN propagates. A single element
    gives x itself (noop_with_empty_axes)."""
    x = np.asarray(data)
    work = _logarithmic_work(x)
    dims = _axes_to_reduce(x.ndim, axes, noop_with_empty_axes)
    shift = _fold("MAX", work, -np.inf, dims, True)
    shift = np.where(np.isfinite(shift), shift, work.dtype.type(0))
    total = _sum(np.exp(work - shift), dims, True)
    result = shift + np.log(total)
    if not keepdims:
        result = np.squeeze(result, axis=tuple(dims))
    return _logarithmic_result(result, x.dtype)


# ---- CumSum / CumProd --------------------------------------------------------------------------


def _scalar_axis(axis: Any, rank: int) -> int:
    values = np.asarray(axis).reshape(-1)
    if values.size != 1:
        raise ValueError(f"axis must hold one value, got {values.size}")
    value = int(values[0])
    if not -rank <= value < rank:
        raise ValueError(f"axis {value} is outside [-{rank}, {rank - 1}] for an input of rank {rank}")
    return value % rank


def _running(step: np.ufunc, identity: int, x: Any, axis: Any, exclusive: int, reverse: int) -> np.ndarray:
    """Running `step` (add or multiply) of x along axis, from the first element on (from the last one
    when reverse); exclusive: shifted one place, the first output (last when reverse) is the identity."""
    x = np.asarray(x)
    a = _scalar_axis(axis, x.ndim)
    work = x.astype(compute_dtype(x.dtype), copy=False)
    if reverse:
        work = np.flip(work, a)
    totals = step.accumulate(work, axis=a, dtype=work.dtype)
    if exclusive and work.shape[a]:
        first = np.full_like(np.take(totals, [0], axis=a), identity)
        totals = np.concatenate([first, np.take(totals, np.arange(work.shape[a] - 1), axis=a)], axis=a)
    if reverse:
        totals = np.flip(totals, a)
    return finish(totals, x.dtype)


@ieee_results
def onnx_cumsum(x: np.ndarray, axis: np.ndarray, *, exclusive: int = 0, reverse: int = 0) -> np.ndarray:
    """ONNX CumSum: y[j] = x[0] + ... + x[j] along axis (exclusive: up to x[j-1], the first being 0)."""
    return _running(np.add, 0, x, axis, exclusive, reverse)


@ieee_results
def onnx_cumprod(x: np.ndarray, axis: np.ndarray, *, exclusive: int = 0, reverse: int = 0) -> np.ndarray:
    """ONNX CumProd: y[j] = x[0] * ... * x[j] along axis (exclusive: up to x[j-1], the first being 1)."""
    return _running(np.multiply, 1, x, axis, exclusive, reverse)

