"""The complex forms of StableHLO's and CHLO's element-wise functions that document 004's ops state for
real types only: tanh, tan, sinh, cosh, the inverse trigonometric and hyperbolic functions, log_plus_one,
exponential_minus_one, power, rsqrt, sign and chlo.square of complex64 and complex128 operands.

The references disagree in places, so each function says whom it follows:
- Values are the functions' values to a few units in the last place (checked against mpmath). NumPy's
  complex functions are C99's (ctanh, casin, ...) and that accurate; XLA's chlo.sinh and chlo.cosh
  decompositions lose the small part's digits (a million ulps on sinh's real part), which is noted in
  their specs.
- Zeros' signs, infinities and NaN follow StableHLO's reference interpreter (C++ std::complex, C99
  Annex G), which computes log_plus_one as log(1 + z), exponential_minus_one as exp(z) - 1, rsqrt as
  1 / sqrt(z), sign as z / |z| and power as exp(b log a). Where those naive forms lose digits (log(1 + z)
  of a small z), the values follow the function instead, as XLA's do.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .complex_parts import complex_divide


def _quietly(function: Callable[[np.ndarray], Any], name: str) -> Callable[[np.ndarray], np.ndarray]:
    """A NumPy complex function as the kernel `name`: C99's special values without floating-point warnings."""
    def kernel(operand: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return np.asarray(function(np.asarray(operand)))
    kernel.__name__ = kernel.__qualname__ = name
    return kernel


# C99's ctanh, ctan, csinh, ccosh, casin, cacos, catan, casinh, cacosh and catanh (NumPy's own)
complex_tanh = _quietly(np.tanh, "complex_tanh")
complex_tan = _quietly(np.tan, "complex_tan")
complex_sinh = _quietly(np.sinh, "complex_sinh")
complex_cosh = _quietly(np.cosh, "complex_cosh")
complex_asin = _quietly(np.arcsin, "complex_asin")
complex_acos = _quietly(np.arccos, "complex_acos")
complex_atan = _quietly(np.arctan, "complex_atan")
complex_asinh = _quietly(np.arcsinh, "complex_asinh")
complex_acosh = _quietly(np.arccosh, "complex_acosh")
complex_atanh = _quietly(np.arctanh, "complex_atanh")


def _joined(real: np.ndarray, imag: np.ndarray, dtype: np.dtype[Any]) -> np.ndarray:
    """Complex values made of their parts, set part by part (arithmetic would lose zeros' signs)."""
    out = np.empty(np.shape(real), dtype)
    out.real, out.imag = real, imag
    return out


def complex_square(operand: np.ndarray) -> np.ndarray:
    """ChloComplexSquare: z² as chlo.square computes it, (x - y)(x + y) + 2xy i: the real part has one
    rounding where x² - y² would cancel."""
    z = np.asarray(operand)
    x, y = z.real, z.imag
    with np.errstate(all="ignore"):
        return _joined((x - y) * (x + y), 2 * x * y, z.dtype)


def _wider(dtype: np.dtype[Any]) -> type[np.floating[Any]]:
    """The type the cancelling parts are computed in: double for complex64, long double for complex128 (x86's
    80-bit extended type: 11 more bits, which the cancellation of x(x + 2) + y² near the unit circle eats)."""
    return np.float64 if dtype == np.complex64 else np.longdouble


def complex_log1p(operand: np.ndarray) -> np.ndarray:
    """StablehloComplexLog1p: log(1 + z). Where 1 + z lies near the unit circle its modulus' logarithm is small
    and log(1 + z) would lose it: there the real part is ½ log1p(x(x + 2) + y²), computed in a wider type.
    Elsewhere, and for zeros, infinities and NaN, it is clog(1 + z), as the reference interpreter computes it."""
    z = np.asarray(operand)
    with np.errstate(all="ignore"):
        shifted = z + np.ones((), z.dtype)
        result = np.log(shifted)
        modulus = np.abs(shifted)
        near = np.isfinite(z) & (modulus > 0.5) & (modulus < 2) & (z != 0)
        if near.any():
            wide = _wider(z.dtype)
            x, y = z.real[near].astype(wide), z.imag[near].astype(wide)
            result.real[near] = 0.5 * np.log1p(x * (x + 2) + y * y)
    return result


def complex_expm1(operand: np.ndarray) -> np.ndarray:
    """StablehloComplexExpm1: exp(z) - 1. For |z| < 1 the real part e^x cos y - 1 would cancel: it is
    expm1(x) cos y - 2 sin²(y/2) there, computed in a wider type (the two terms still cancel where x is
    about y²/2). Elsewhere, and for zeros, infinities and NaN, it is cexp(z) - 1,
    as the reference interpreter computes it."""
    z = np.asarray(operand)
    with np.errstate(all="ignore"):
        result = np.exp(z) - np.ones((), z.dtype)
        small = (np.abs(z) < 1) & (z != 0)
        if small.any():
            wide = _wider(z.dtype)
            x, y = z.real[small].astype(wide), z.imag[small].astype(wide)
            half = np.sin(y / 2)
            result.real[small] = np.expm1(x) * np.cos(y) - 2 * half * half
    return result


def complex_rsqrt(operand: np.ndarray) -> np.ndarray:
    """StablehloComplexRsqrt: 1 / sqrt(z), the quotient with C99 Annex G's recovery (1 / (inf + nan i) = 0)."""
    z = np.asarray(operand)
    with np.errstate(all="ignore"):
        return complex_divide(np.ones(z.shape, z.dtype), np.sqrt(z))


def complex_sign(operand: np.ndarray) -> np.ndarray:
    """StablehloComplexSign: z / |z|, 0 for a zero (of either sign), NaN + NaN i for a NaN or an infinite
    part (inf / inf). The quotient by the real |z| is rounded once per part, as the reference
    interpreter's complex division by |z| + 0i gives it."""
    z = np.asarray(operand)
    x, y = z.real, z.imag
    with np.errstate(all="ignore"):
        modulus = np.abs(z)
        # (x + y·0) / |z| and (y - x·0) / |z|: the division by |z| + 0i, zeros' signs included
        result = _joined((x + y * 0) / modulus, (y - x * 0) / modulus, z.dtype)
    result[(x == 0) & (y == 0)] = 0
    return result


def _annex_g_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a · b, with C99 Annex G's recovery (G.5.1) where the plain product is NaN + NaN i: an infinite factor
    times a nonzero one is infinite. (C's complex product, which std::pow uses, recovers; NumPy's does not.)"""
    a, b = np.broadcast_arrays(a, b)
    with np.errstate(all="ignore"):
        product = np.asarray(a * b)
        lost = np.isnan(product.real) & np.isnan(product.imag)
        if not lost.any():
            return product
        x, y, c, d = (np.array(p[lost]) for p in (a.real, a.imag, b.real, b.imag))
        part = x.dtype.type
        one, zero, inf = part(1), part(0), part(np.inf)

        def boxed(u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # an infinity as ±1, the rest ±0
            return np.copysign(np.where(np.isinf(u), one, zero), u), np.copysign(np.where(np.isinf(v), one, zero), v)

        def unnan(u: np.ndarray) -> np.ndarray:
            return np.where(np.isnan(u), np.copysign(zero, u), u)

        recalc = np.zeros(x.shape, bool)
        a_inf = np.isinf(x) | np.isinf(y)
        bx, by = boxed(x, y)
        x, y = np.where(a_inf, bx, x), np.where(a_inf, by, y)
        c, d = np.where(a_inf, unnan(c), c), np.where(a_inf, unnan(d), d)
        recalc |= a_inf
        b_inf = np.isinf(c) | np.isinf(d)
        bc, bd = boxed(c, d)
        c, d = np.where(b_inf, bc, c), np.where(b_inf, bd, d)
        x, y = np.where(b_inf, unnan(x), x), np.where(b_inf, unnan(y), y)
        recalc |= b_inf
        # no infinite factor, but a partial product overflowed: NaN parts count as 0
        overflowed = ~recalc & (np.isinf(x * c) | np.isinf(y * d) | np.isinf(x * d) | np.isinf(y * c))
        x, y, c, d = (np.where(overflowed, unnan(u), u) for u in (x, y, c, d))
        recalc |= overflowed
        real, imag = product.real[lost], product.imag[lost]
        real = np.where(recalc, inf * (x * c - y * d), real)
        imag = np.where(recalc, inf * (x * d + y * c), imag)
        product[lost] = _joined(real, imag, product.dtype)
        return product


def complex_power(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """StablehloComplexPower: a^b = cexp(b · clog(a)), the principal value, as C's cpow and the reference
    interpreter's std::pow compute it (the product with Annex G's recovery). Integer exponents are not
    computed by repeated products (NumPy's power does that), so z ** 2.0 is exp(2 log z) to a few ulps."""
    a, b = np.broadcast_arrays(np.asarray(lhs), np.asarray(rhs))
    with np.errstate(all="ignore"):
        return np.asarray(np.exp(_annex_g_product(b, np.log(a))))
