"""Parts of complex numbers and the complex forms of StableHLO's element-wise operations: hlir Real, Imag
(XLA Real/Imag), StablehloImag, StablehloComplexAbs, StablehloComplexExp, StablehloComplexLog,
StablehloComplexSqrt and StablehloComplexDivide.

A complex64 element yields float32 parts, complex128 float64 parts; a floating-point element is its
own real part and has imaginary part 0 (of its own type)."""
from __future__ import annotations

from typing import Any

import numpy as np

_COMPONENT: dict[np.dtype[Any], np.dtype[Any]] = {np.dtype(np.complex64): np.dtype(np.float32),
                                                  np.dtype(np.complex128): np.dtype(np.float64)}


def _component(dtype: np.dtype) -> np.dtype:
    return _COMPONENT.get(np.dtype(dtype), np.dtype(dtype))


def real(input: np.ndarray, *, output_dtype: np.dtype[Any] | None) -> np.ndarray:
    """The real part of every element; `output_dtype` must be the input's component type."""
    x = np.asarray(input)
    want = _component(x.dtype)
    if np.dtype(output_dtype) != want:
        raise ValueError(f"Real: the output of a {x.dtype} input has type {want}, not {np.dtype(output_dtype)}")
    return np.array(np.real(x), dtype=want, copy=True)


def imag(input: np.ndarray) -> np.ndarray:
    """The imaginary part of every element (0 of the input's type for a floating-point input)."""
    x = np.asarray(input)
    if x.dtype.kind == "c":
        return np.array(np.imag(x), dtype=_component(x.dtype), copy=True)
    return np.zeros(x.shape, x.dtype)


def imag_part(operand: np.ndarray, *, output_dtype: np.dtype[Any] | None = None) -> np.ndarray:
    """StablehloImag: imag(), whose output has the input's component type (`output_dtype`, when given, must
    be that type)."""
    x = np.asarray(operand)
    if output_dtype is not None and np.dtype(output_dtype) != _component(x.dtype):
        raise ValueError(f"StablehloImag: the output of a {x.dtype} input has type {_component(x.dtype)}, "
                         f"not {np.dtype(output_dtype)}")
    return imag(x)


def modulus(operand: np.ndarray, *, output_dtype: np.dtype[Any] | None = None) -> np.ndarray:
    """StablehloComplexAbs: |a + bi| = hypot(a, b) in the input's component type (+inf when a part is
    infinite, even beside a NaN); `output_dtype`, when given, must be that type."""
    x = np.asarray(operand)
    want = _component(x.dtype)
    if output_dtype is not None and np.dtype(output_dtype) != want:
        raise ValueError(f"StablehloComplexAbs: the output of a {x.dtype} input has type {want}, "
                         f"not {np.dtype(output_dtype)}")
    return np.asarray(np.abs(x), dtype=want)


def complex_exp(operand: np.ndarray) -> np.ndarray:
    """StablehloComplexExp: e^a (cos b + i sin b) in the operand's type, special values as C99's cexp (NumPy's
    exp of complex numbers is cexp)."""
    with np.errstate(all="ignore"):
        return np.asarray(np.exp(np.asarray(operand)))


def complex_log(operand: np.ndarray) -> np.ndarray:
    """StablehloComplexLog: the principal logarithm log|z| + i arg z (arg in [-π, π]) in the operand's type,
    special values as C99's clog (NumPy's log of complex numbers is clog): log(±0 + 0i) = -inf ± ..."""
    with np.errstate(all="ignore"):
        return np.asarray(np.log(np.asarray(operand)))


def complex_sqrt(operand: np.ndarray) -> np.ndarray:
    """StablehloComplexSqrt: the principal square root (real part >= 0, imaginary part of the operand's
    imaginary part's sign) in the operand's type, special values as C99's csqrt (NumPy's sqrt is csqrt)."""
    with np.errstate(all="ignore"):
        return np.asarray(np.sqrt(np.asarray(operand)))


def complex_divide(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """StablehloComplexDivide: lhs / rhs in the operands' type, NumPy's quotient (Smith's algorithm) with the
    recovery of C99's Annex G (G.5.1) where it is NaN + NaN i: a nonzero over zero is an infinity, an
    infinity over a finite number an infinity, and a finite number over an infinity a zero, each with the
    signs that rule gives."""
    a, b = np.broadcast_arrays(np.asarray(lhs), np.asarray(rhs))
    part = _component(a.dtype).type
    with np.errstate(all="ignore"):
        quotient = np.asarray(a / b)
        lost = np.isnan(quotient.real) & np.isnan(quotient.imag)
        if not lost.any():
            return quotient
        x, y, c, d = a.real[lost], a.imag[lost], b.real[lost], b.imag[lost]
        inf, one, zero = part(np.inf), part(1), part(0)
        real, imag = quotient.real[lost].copy(), quotient.imag[lost].copy()
        by_zero = (c == 0) & (d == 0) & (~np.isnan(x) | ~np.isnan(y))
        real = np.where(by_zero, np.copysign(inf, c) * x, real)
        imag = np.where(by_zero, np.copysign(inf, c) * y, imag)
        infinite = ~by_zero & (np.isinf(x) | np.isinf(y)) & np.isfinite(c) & np.isfinite(d)
        xs, ys = np.copysign(np.where(np.isinf(x), one, zero), x), np.copysign(np.where(np.isinf(y), one, zero), y)
        real = np.where(infinite, inf * (xs * c + ys * d), real)
        imag = np.where(infinite, inf * (ys * c - xs * d), imag)
        vanishing = ~by_zero & ~infinite & (np.isinf(c) | np.isinf(d)) & np.isfinite(x) & np.isfinite(y)
        cs, ds = np.copysign(np.where(np.isinf(c), one, zero), c), np.copysign(np.where(np.isinf(d), one, zero), d)
        real = np.where(vanishing, zero * (x * cs + y * ds), real)
        imag = np.where(vanishing, zero * (y * cs - x * ds), imag)
        parts = np.empty(real.shape, quotient.dtype)  # set part by part: arithmetic would lose zeros' signs
        parts.real, parts.imag = real, imag
        quotient[lost] = parts
        return quotient
