"""ONNX linear algebra: MatMul, Einsum, Det, and Gemm's legacy broadcast attribute (versions 1 and 6).

Gemm from version 7 is hlir Gemm itself (`linalg.gemm`). The numerics follow linalg's conventions:
float16/bfloat16 are computed in float32 and rounded once; integer products and sums wrap around in the
integer type (the result modulo 2^n).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..elementwise import compute_dtype, finish, ieee_results
from .linalg import gemm


@ieee_results
def onnx_matmul(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """ONNX MatMul, numpy.matmul's semantics: the last two dimensions are matrices and the leading ones
    broadcast (multidirectionally); a 1-D A gains a leading 1 and a 1-D B a trailing 1, both removed
    from the result. Unlike hlir Dot/DotGeneral, the batch dimensions broadcast and 1-D operands are
    promoted."""
    a, b = np.asarray(A), np.asarray(B)
    work = compute_dtype(a.dtype)
    return finish(np.matmul(a.astype(work, copy=False), b.astype(work, copy=False)), a.dtype)


@ieee_results
def onnx_einsum(Inputs: Sequence[np.ndarray], *, equation: str) -> np.ndarray:
    """ONNX Einsum: numpy.einsum's notation and semantics (explicit and implicit modes, ellipsis
    broadcasting, repeated labels for diagonals); spaces in the equation are ignored. No hlir op
    takes an equation (DotGeneral contracts pairs of named dimensions of two operands)."""
    operands = [np.asarray(x) for x in Inputs]
    dtype = operands[0].dtype
    work = compute_dtype(dtype)
    cleaned = "".join(equation.split())
    # optimize=False keeps numpy's own summation for integers (BLAS paths are float-only anyway)
    result = np.einsum(cleaned, *[x.astype(work, copy=False) for x in operands],
                       optimize=work.kind == "f")
    return finish(np.asarray(result), dtype)


@ieee_results
def onnx_det(X: np.ndarray) -> np.ndarray:
    """Determinant of each matrix in the last two dimensions ([*, M, M] -> [*]) by LU factorisation
    with partial pivoting (LAPACK getrf through numpy.linalg.det), in float32 for float16/bfloat16.
    An empty matrix (M = 0) has determinant 1. No hlir op computes determinants."""
    x = np.asarray(X)
    work = compute_dtype(x.dtype)
    if x.shape[-1] == 0:
        return np.ones(x.shape[:-2], x.dtype)
    if x.size == 0:
        return np.zeros(x.shape[:-2], x.dtype)
    return finish(np.linalg.det(x.astype(work, copy=False)), x.dtype)


def onnx_gemm_legacy(A: np.ndarray, B: np.ndarray, C: np.ndarray, *, alpha: float = 1.0, beta: float = 1.0,
                     broadcast: int = 0, transA: int = 0, transB: int = 0) -> np.ndarray:
    """Gemm-1/6: hlir Gemm, except that C must already have Y's shape (M, N) unless broadcast = 1, when
    it is broadcast unidirectionally as from version 7 on. The check is the kernel's: the shape
    check of those versions is not a validation rule (no reference's inference checks it)."""
    c = np.asarray(C)
    if not broadcast:
        a_shape, b_shape = np.shape(A), np.shape(B)
        m = a_shape[1] if transA else a_shape[0]
        n = b_shape[0] if transB else b_shape[1]
        if c.shape != (m, n):
            raise ValueError(f"Gemm with broadcast = 0 needs C of shape ({m}, {n}), got {c.shape}; "
                             f"set broadcast = 1 to broadcast a smaller C")
    return gemm(A, B, c, alpha=alpha, beta=beta, transA=transA, transB=transB)
