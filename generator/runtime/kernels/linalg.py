"""Linear algebra: hlir Dot, DotGeneral, DotGeneralBias, Gemm and Cholesky.

Numerics (each recorded in the op's spec notes):
- floating types are computed in their own precision, float16/bfloat16 in float32, and the result is
  rounded once to the output type;
- integer products and sums are computed in the integer type with two's-complement wrap-around (the
  result modulo 2^n, whatever width an implementation accumulates in);
- Gemm's float alpha/beta with integer types: alpha * A'B' + beta * C is evaluated in float64 and
  converted like Convert (toward zero, saturating), as onnx.reference evaluates it.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ..elementwise import compute_dtype
from .conversion import convert


def _matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.asarray(np.matmul(a, b))


def _round(value: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The computed result rounded once to the output type (overflow to inf is a result, not an error)."""
    with np.errstate(over="ignore"):
        return np.asarray(value).astype(dtype)


# ---- Dot / DotGeneral / DotGeneralBias -----------------------------------------------------------


def dot(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """hlir.Dot (XLA Dot): the sum of products over the last dimension of lhs and the first of rhs.
    [n]·[n] -> [], [m, k]·[k] -> [m], [k]·[k, n] -> [n], [m, k]·[k, n] -> [m, n]."""
    a, b = np.asarray(lhs), np.asarray(rhs)
    work = compute_dtype(a.dtype)
    return _round(_matmul(a.astype(work), b.astype(work)), a.dtype)


def _dot_general(a: np.ndarray, b: np.ndarray, lhs_batch: Sequence[int], rhs_batch: Sequence[int],
                 lhs_contract: Sequence[int], rhs_contract: Sequence[int]) -> np.ndarray:
    """XLA DotGeneral in the arrays' own dtype: output = batch dims, lhs free dims, rhs free dims."""
    lb, rb = [int(d) for d in lhs_batch], [int(d) for d in rhs_batch]
    lc, rc = [int(d) for d in lhs_contract], [int(d) for d in rhs_contract]
    lf = [d for d in range(a.ndim) if d not in lb + lc]
    rf = [d for d in range(b.ndim) if d not in rb + rc]
    batch = tuple(a.shape[d] for d in lb)
    lhs_free, rhs_free = tuple(a.shape[d] for d in lf), tuple(b.shape[d] for d in rf)
    contract = math.prod(a.shape[d] for d in lc)
    # lhs as batch x M x K, rhs as batch x K x N: one batched matrix product
    a3 = np.transpose(a, lb + lf + lc).reshape(batch + (math.prod(lhs_free), contract))
    b3 = np.transpose(b, rb + rc + rf).reshape(batch + (contract, math.prod(rhs_free)))
    return _matmul(a3, b3).reshape(batch + lhs_free + rhs_free)


def dot_general(lhs: np.ndarray, rhs: np.ndarray, *, lhs_batching_dimensions: Sequence[int],
                rhs_batching_dimensions: Sequence[int], lhs_contracting_dimensions: Sequence[int],
                rhs_contracting_dimensions: Sequence[int]) -> np.ndarray:
    """hlir.DotGeneral (XLA DotGeneral): products summed over the contracting dimension pairs, for each
    index of the batch dimension pairs; the output is batch dims + lhs free dims + rhs free dims, each
    group in the operand's dimension order."""
    a, b = np.asarray(lhs), np.asarray(rhs)
    work = compute_dtype(a.dtype)
    return _round(_dot_general(a.astype(work), b.astype(work), lhs_batching_dimensions, rhs_batching_dimensions,
                               lhs_contracting_dimensions, rhs_contracting_dimensions), a.dtype)


def dot_general_bias(lhs: np.ndarray, rhs: np.ndarray, bias: np.ndarray, *, lhs_batching_dimensions: Sequence[int],
                     rhs_batching_dimensions: Sequence[int], lhs_contracting_dimensions: Sequence[int],
                     rhs_contracting_dimensions: Sequence[int]) -> np.ndarray:
    """hlir.DotGeneralBias: DotGeneral plus `bias` along the output's last dimension.

    The bias (of its own type T1) is converted to the computation type as Convert converts (for an
    integer output: toward zero, saturating, NaN -> 0), added to the unrounded product, and the sum is
    rounded once. A rank-0 output takes a bias of one element."""
    a, b, c = np.asarray(lhs), np.asarray(rhs), np.asarray(bias)
    out_dtype = a.dtype
    work = compute_dtype(out_dtype)
    product = _dot_general(a.astype(work), b.astype(work), lhs_batching_dimensions, rhs_batching_dimensions,
                           lhs_contracting_dimensions, rhs_contracting_dimensions)
    feature = product.shape[-1] if product.ndim else 1
    if c.shape != (feature,):
        raise ValueError(f"bias must have shape ({feature},) to add along the output's last dimension, "
                         f"got {c.shape}")
    with np.errstate(all="ignore"):
        total = product + convert(c, output_dtype=work).reshape(c.shape if product.ndim else ())
    return _round(total, out_dtype)


# ---- Gemm ----------------------------------------------------------------------------------------


def gemm(A: np.ndarray, B: np.ndarray, C: np.ndarray | None = None, *, alpha: float = 1.0, beta: float = 1.0,
         transA: int = 0, transB: int = 0) -> np.ndarray:
    """hlir.Gemm (ONNX Gemm): Y = alpha * A' B' + beta * C, A' = A^T if transA, B' = B^T if transB;
    C (absent: 0) is broadcast unidirectionally to (M, N). With beta == 0, C is not read (so its inf or
    NaN does not turn into NaN), as in onnx.reference and BLAS."""
    a, b = np.asarray(A), np.asarray(B)
    out_dtype = a.dtype
    if transA:
        a = a.T
    if transB:
        b = b.T
    use_c = C is not None and beta != 0
    if out_dtype.kind in "iu":
        product = _matmul(a, b)  # wraps around in the integer type
        with np.errstate(all="ignore"):
            y = np.float64(alpha) * product.astype(np.float64)
            if use_c:
                y = y + np.float64(beta) * np.asarray(C).astype(np.float64)
        return convert(np.broadcast_to(y, product.shape), output_dtype=out_dtype)
    work = compute_dtype(out_dtype)
    shape = (a.shape[0], b.shape[1])
    with np.errstate(all="ignore"):  # one context for the whole evaluation: each costs about a microsecond
        # operands already in the computation type are read in place (astype copies them by default)
        y = np.asarray(np.matmul(a.astype(work, copy=False), b.astype(work, copy=False)))
        if alpha != 1.0:  # 1 * y is y, bit for bit: a product's NaN is already quiet
            y = work.type(alpha) * y
        if use_c:
            y = y + work.type(beta) * np.asarray(C).astype(work, copy=False)
        if y.shape != shape:
            return np.broadcast_to(y, shape).astype(out_dtype)
        return y.astype(out_dtype, copy=False)  # y is this call's own array: no copy needed


# ---- Cholesky ------------------------------------------------------------------------------------


def cholesky(input: np.ndarray, *, lower: bool) -> np.ndarray:
    """hlir.Cholesky (XLA Cholesky) of every matrix in the last two dimensions.

    lower: L with a = L L^T, read from the lower triangle of a; otherwise U with a = U^T U, read from
    the upper triangle (the other triangle of the input is ignored). The other triangle of the result
    is 0. A matrix that is not positive definite (a pivot <= 0) gives NaN in its whole result
    triangle; a NaN in the input propagates through the arithmetic (from its row on). Both as
    jax.lax.linalg.cholesky (LAPACK potrf) on the CPU."""
    return cholesky_with_info(input, lower=lower)[0]


def cholesky_with_info(input: np.ndarray, *, lower: bool) -> tuple[np.ndarray, np.ndarray]:
    """cholesky() and, for each matrix, LAPACK potrf's info: 0, or the order k (from 1) of the first
    leading minor that is not positive definite (its pivot <= 0), as int32 of the batch's shape."""
    x = np.asarray(input)
    work = compute_dtype(x.dtype)
    a = x.astype(work)
    if not lower:  # the upper triangle of a is the lower triangle of a^T, and U = L^T
        a = np.swapaxes(a, -1, -2)
    n = a.shape[-1]
    factor = np.zeros_like(a)
    info = np.zeros(a.shape[:-2], np.int32)
    with np.errstate(all="ignore"):
        for j in range(n):  # Cholesky-Crout: column j from the columns before it
            row_j = factor[..., j, :j]
            pivot = a[..., j, j] - np.sum(row_j * row_j, axis=-1)
            info[(info == 0) & (pivot <= 0)] = j + 1  # a NaN pivot is not a failure: NaN propagates
            diagonal = np.sqrt(pivot)
            factor[..., j, j] = diagonal
            below = a[..., j + 1:, j] - _matmul(factor[..., j + 1:, :j], row_j[..., None])[..., 0]
            factor[..., j + 1:, j] = below / diagonal[..., None]
    triangle = np.tril(np.ones((n, n), bool))
    factor = np.where((info == 0)[..., None, None] | ~triangle, factor, np.array(np.nan, work))
    if not lower:
        factor = np.swapaxes(factor, -1, -2)
    return _round(factor, x.dtype), info
