"""The complex forms of element-wise functions (opgen.runtime.kernels.complex_functions: StablehloComplexTanh, ...,
ChloComplexAtanh) and the real hlir.ChloCosh and ChloAcosh, each against three references:

- mpmath, for the functions' values: every part within a few units in the last place;
- jax.lax on CPU with x64 (XLA), within a few units relative to the modulus (XLA's chlo.sinh and chlo.cosh
  lose the small part's digits, so their parts are not compared with it one by one);
- StableHLO's reference interpreter for the special values of the StableHLO operations: zeros' signs,
  infinities and NaN exactly, other values within a few units (its complex64 power computes in double).
"""
from __future__ import annotations

import math
from typing import Any, Callable

import ml_dtypes
import mpmath
import numpy as np
import pytest
from kernel_refs import jnp, kernel, lax
from test_hlir_extensions import _SPECIALS, _interpreted

COMPLEX = ("complex64", "complex128")
# op -> (jax's function, mpmath's function, the StableHLO operation the interpreter runs, or None for CHLO's)
UNARY: dict[str, tuple[Callable[..., Any], Callable[..., Any], str | None]] = {
    "StablehloComplexTanh": (lax.tanh, mpmath.tanh, "tanh"),
    "StablehloComplexTan": (lax.tan, mpmath.tan, "tan"),
    "StablehloComplexLog1p": (lax.log1p, mpmath.log1p, "log_plus_one"),
    "StablehloComplexExpm1": (lax.expm1, mpmath.expm1, "exponential_minus_one"),
    "StablehloComplexRsqrt": (lax.rsqrt, lambda z: 1 / mpmath.sqrt(z), "rsqrt"),
    "StablehloComplexSign": (lax.sign, lambda z: z / abs(z), "sign"),
    "ChloComplexSquare": (jnp.square, lambda z: z * z, None),
    "ChloComplexSinh": (jnp.sinh, mpmath.sinh, None),
    "ChloComplexCosh": (jnp.cosh, mpmath.cosh, None),
    "ChloComplexAsin": (jnp.arcsin, mpmath.asin, None),
    "ChloComplexAcos": (jnp.arccos, mpmath.acos, None),
    "ChloComplexAtan": (jnp.arctan, mpmath.atan, None),
    "ChloComplexAsinh": (jnp.arcsinh, mpmath.asinh, None),
    "ChloComplexAcosh": (jnp.arccosh, mpmath.acosh, None),
    "ChloComplexAtanh": (jnp.arctanh, mpmath.atanh, None),
}


# XLA's log_plus_one and exponential_minus_one of complex numbers err by up to about a hundred units relative to
# the modulus where a part cancels (96 and 114 measured against mpmath; the kernels' errors stay within 2)
XLA_ULPS = {"StablehloComplexLog1p": 160, "StablehloComplexExpm1": 160}


def _eps(dtype: str) -> float:
    return float(np.finfo(np.float32 if dtype == "complex64" else np.float64).eps)


def _values(dtype: str, seed: int, n: int = 300) -> np.ndarray:
    """Complex numbers of moduli from 1e-6 to 30 in all four quadrants, each part drawn apart."""
    rng = np.random.default_rng(seed)
    def part() -> np.ndarray:
        return rng.uniform(-1, 1, n) * 10.0 ** rng.uniform(-6, 1.5, n)
    return (part() + 1j * part()).astype(dtype)


def _exact(function: Callable[..., Any], z: np.ndarray) -> np.ndarray:
    """The function's values at the (exactly representable) inputs, at 60 digits, rounded to complex128."""
    with mpmath.workdps(60):
        return np.array([complex(function(mpmath.mpc(v.real, v.imag))) for v in z.astype(np.complex128).tolist()])


def _part_ulps(got: np.ndarray, want: np.ndarray, eps: float) -> float:
    """The largest error of a part, in units of eps relative to that part (a part a thousand times smaller than
    the modulus counts relative to a thousandth of the modulus: there both the cancellation's rounding and the
    part's digits are beyond the type's reach)."""
    got, want = got.astype(np.complex128), want.astype(np.complex128)
    floor = np.abs(want) * 1e-3
    real = np.abs(got.real - want.real) / np.maximum(np.abs(want.real), floor)
    imag = np.abs(got.imag - want.imag) / np.maximum(np.abs(want.imag), floor)
    return float(np.max(np.maximum(real, imag))) / eps


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("op", sorted(UNARY))
def test_complex_function_matches_mpmath_part_by_part_and_jax_by_modulus(op, dtype):
    jax_function, exact, _ = UNARY[op]
    z = _values(dtype, seed=len(op))
    if op == "ChloComplexAtan":  # its poles ±i, and atanh's ±1, are not drawn (the parts are drawn apart)
        z = z[np.abs(z - 1j) * np.abs(z + 1j) > 1e-3]
    (got,) = kernel(op)(z)
    assert got.dtype == np.dtype(dtype) and got.shape == z.shape
    eps = _eps(dtype)
    assert _part_ulps(got, _exact(exact, z), eps) <= 8
    want = np.asarray(jax_function(z))
    assert want.dtype == got.dtype
    # XLA's sinh and cosh subtract exponentials: an error of e^|x| units, which for a small z is no longer
    # small beside the result (ChloComplexSinh's note references)
    scale = np.abs(want) + (np.cosh(z.real.astype(np.float64)) if op in ("ChloComplexSinh", "ChloComplexCosh") else 0)
    assert np.all(np.abs(got - want) <= XLA_ULPS.get(op, 16) * eps * scale), np.max(np.abs(got - want) / scale) / eps


@pytest.mark.parametrize("op", ["StablehloComplexLog1p", "StablehloComplexExpm1"])
def test_log1p_and_expm1_keep_the_digits_of_small_values(op):
    """log(1 + z) and exp(z) - 1 computed plainly lose a small z's digits (the reference interpreter does that:
    log1p(1e-40) is 0 there); the kernels keep them, as XLA does, near the unit circle too."""
    jax_function, exact, _ = UNARY[op]
    z = np.array([1e-40 + 0j, 1e-20 + 1e-10j, -1e-8 + 1e-4j, 1e-300 + 1e-300j, -2e-3 + 0.0632j, 3e-17 - 2e-9j])
    (got,) = kernel(op)(z)
    assert _part_ulps(got, _exact(exact, z), _eps("complex128")) <= 2
    np.testing.assert_allclose(got, np.asarray(jax_function(z)), rtol=XLA_ULPS[op] * _eps("complex128"), atol=0)


def _agree(got: complex, want: complex, eps: float) -> bool:
    """Special parts (NaN, infinities, zeros) exactly, signs included; other parts within 8 eps of the modulus."""
    scale = abs(want) if math.isfinite(abs(want)) else 0.0
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        if math.isnan(w):
            if not math.isnan(g):
                return False
        elif math.isinf(w) or w == 0:
            if g != w or math.copysign(1, g) != math.copysign(1, w):
                return False
        elif not abs(g - w) <= 8 * eps * scale:
            return False
    return True


# the interpreter's special values; 1e-40, where its plain log(1 + z) and exp(z) - 1 lose the value, is tested above
_EDGES = [z for z in _SPECIALS if z != complex(1e-40, 0)] + \
    [complex(-1, 0), complex(np.nan, np.inf), complex(np.inf, np.inf), complex(-2, -np.inf), complex(0, -np.inf),
     complex(-np.inf, np.nan)]


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("op", sorted(op for op, (_, _, operation) in UNARY.items() if operation))
def test_special_values_are_the_reference_interpreters(op, dtype):
    _, _, operation = UNARY[op]
    (got,) = kernel(op)(np.array(_EDGES, dtype))
    for z, value, expected in zip(_EDGES, got.tolist(), _interpreted(operation, [_EDGES], dtype)):
        assert _agree(value, expected, _eps(dtype)), (z, value, expected)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_power_matches_mpmath_jax_and_the_interpreters_special_values(dtype):
    """Real, integer and complex exponents; every pair of special values against the interpreter (C's cpow:
    cexp(b · clog(a)) with Annex G's product)."""
    rng = np.random.default_rng(61)
    base = _values(dtype, seed=62, n=200)
    base = base[np.abs(base) > 1e-3]
    exponent = (rng.uniform(-3, 3, base.size) + 1j * rng.uniform(-3, 3, base.size)).astype(dtype)
    exponent[:40] = np.round(exponent[:40].real)  # z ** 2.0: exp(2 log z), not repeated products
    exponent[40:80] = exponent[40:80].real
    (got,) = kernel("StablehloComplexPower")(base, exponent)
    with mpmath.workdps(60):
        exact = np.array([complex(mpmath.power(mpmath.mpc(a.real, a.imag), mpmath.mpc(b.real, b.imag)))
                          for a, b in zip(base.astype(complex).tolist(), exponent.astype(complex).tolist())])
    eps = _eps(dtype)
    # exp(b log a) carries log a's rounding times |b|, and the result's size: tens of units, as XLA's does
    np.testing.assert_allclose(got, exact, rtol=64 * eps, atol=0)
    np.testing.assert_allclose(got, np.asarray(lax.pow(base, exponent)), rtol=64 * eps, atol=0)
    edges = _EDGES[:10]
    bases, exponents = [a for a in edges for _ in edges], [b for _ in edges for b in edges]
    (got,) = kernel("StablehloComplexPower")(np.array(bases, dtype), np.array(exponents, dtype))
    for a, b, value, expected in zip(bases, exponents, got.tolist(), _interpreted("power", [bases, exponents], dtype)):
        assert _agree(value, expected, eps), (a, b, value, expected)


def test_square_is_chlos_bit_for_bit():
    """(x - y)(x + y) + 2xy i, as jax computes chlo.square; NumPy's z * z differs in the last bits."""
    z = np.concatenate([_values("complex128", seed=71), [complex(1, 1 + 2 ** -40), complex(np.inf, 1), -0.0j]])
    (got,) = kernel("ChloComplexSquare")(z)
    want = np.asarray(jnp.square(z))
    np.testing.assert_array_equal(got.view(np.float64), want.view(np.float64))
    assert not np.array_equal(np.square(z[:-3]).view(np.float64), want[:-3].view(np.float64))


REAL = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "float": np.float32, "double": np.float64}


@pytest.mark.parametrize("dtype", sorted(REAL))
@pytest.mark.parametrize("op, jax_function, exact, low", [("ChloCosh", jnp.cosh, mpmath.cosh, -12.0),
                                                          ("ChloAcosh", jnp.arccosh, mpmath.acosh, 1.0)])
def test_real_cosh_and_acosh_match_mpmath_and_jax(op, jax_function, exact, low, dtype):
    """Within a unit in the last place of mpmath (float16 and bfloat16: computed in float and rounded, within
    one of their units); against XLA, whose cosh errs in proportion to |x| (ChloCosh's note accuracy)."""
    kind = REAL[dtype]
    rng = np.random.default_rng(81)
    x = np.concatenate([rng.uniform(low, 12.0, 300), low + rng.uniform(0, 1e-3, 20)]).astype(kind)
    (got,) = kernel(op)(x)
    assert got.dtype == np.dtype(kind)
    with mpmath.workdps(40):
        want = np.array([float(exact(mpmath.mpf(float(v)))) for v in x]).astype(kind).astype(np.float64)
    unit = float(ml_dtypes.finfo(kind).eps)
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=unit if kind in (np.float16, ml_dtypes.bfloat16)
                               else 1.5 * unit, atol=0)
    xla = np.asarray(jax_function(x)).astype(np.float64)
    np.testing.assert_allclose(got.astype(np.float64), xla, rtol=(16 if op == "ChloCosh" else 2) * unit, atol=0)
    edges = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, 0.5, -1.0]).astype(kind)
    (got,) = kernel(op)(edges)
    # cosh: 1, 1, inf, inf, NaN, ...; acosh: NaN below 1 and for -inf, 0 at 1, inf at inf
    expected = [float(exact(mpmath.mpf(float(v)))) if (op == "ChloCosh" or v >= 1) and not math.isnan(v) else
                math.nan for v in edges.astype(np.float64)]
    np.testing.assert_allclose(got.astype(np.float64), expected, rtol=1.5 * unit, atol=0)
    np.testing.assert_allclose(got.astype(np.float64), np.asarray(jax_function(edges)).astype(np.float64),
                               rtol=1.5 * unit, atol=0)
