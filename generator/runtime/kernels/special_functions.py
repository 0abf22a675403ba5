"""Special functions of the hlir extension ops: ErfInv (CHLO erf_inv, which jax.random.normal emits
to turn uniform samples into normal ones), ChloLgamma and ChloDigamma (CHLO lgamma and digamma, which
jax.scipy.special.gammaln and digamma, the log-densities of jax.scipy.stats and jax.random.gamma emit),
ChloBesselI1e, ChloZeta and ChloPolygamma (jax.scipy.special's i1e, i1, zeta and polygamma).

Each is computed in double by SciPy and rounded once to the operand's type. Where SciPy's value at a
boundary differs from XLA's, the XLA value is taken (the ops' notes say so): lgamma(-inf) is +inf (as
C's lgamma; SciPy's gammaln gives -inf), and digamma at 0 and the negative integers, its poles, is NaN
(SciPy gives -inf and +inf at -0.0 and +0.0). Below zero digamma is computed by reflection,
psi(x) = psi(1 - x) - pi / tan(pi x), which keeps its digits beside the poles where SciPy's loses some."""
from __future__ import annotations

import numpy as np


def erf_inv(operand: np.ndarray) -> np.ndarray:
    """The inverse error function, computed in double and rounded once to the operand's type:
    erf_inv(erf(y)) = y on (-1, 1), -inf at -1, +inf at 1, NaN outside [-1, 1] and for NaN."""
    from scipy.special import erfinv  # imported when called: SciPy costs a tenth of a second to load

    with np.errstate(invalid="ignore", over="ignore"):
        return np.asarray(erfinv(operand.astype(np.float64))).astype(operand.dtype)


def lgamma(operand: np.ndarray) -> np.ndarray:
    """log |Gamma(x)|: +inf at the poles (0 and the negative integers) and at +-inf, NaN for NaN."""
    from scipy.special import gammaln

    wide = operand.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        result = np.asarray(gammaln(wide))
    result[wide == -np.inf] = np.inf
    return result.astype(operand.dtype)


def digamma(operand: np.ndarray) -> np.ndarray:
    """The logarithmic derivative of Gamma: NaN at its poles (0 and the negative integers), at -inf and for NaN;
    +inf at +inf."""
    from scipy.special import psi

    wide = operand.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        result = np.asarray(psi(wide))
        negative = np.isfinite(wide) & (wide < 0)
        if negative.any():  # by reflection: SciPy loses digits near the poles (2e-12 beside -1)
            x = wide[negative]
            nearest = x - np.round(x)  # exact; tan has period pi, so tan(pi x) = tan(pi nearest), with no cancellation
            result[negative] = psi(1.0 - x) - np.pi / np.tan(np.pi * nearest)
        result[(wide <= 0) & (wide == np.floor(wide))] = np.nan
    return result.astype(operand.dtype)


def bessel_i1e(operand: np.ndarray) -> np.ndarray:
    """The exponentially scaled modified Bessel function of the first kind of order 1, exp(-|x|) I1(x): odd
    (its sign, zeros' included, is x's), 0 at +-inf, NaN for NaN."""
    from scipy.special import i1e

    wide = operand.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        result = np.asarray(i1e(wide))
    result = np.where(wide == 0, wide, result)  # i1e(-0.0) is -0.0 (SciPy gives +0.0)
    return result.astype(operand.dtype)


def zeta(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The Hurwitz zeta function, the sum over k >= 0 of (k + q)^-x, at its edges as XLA has it: +inf at x = 1;
    where q is a pole (0 or a negative integer) +inf for an even integer x and NaN otherwise; NaN for x < 1,
    for a q <= 0 with a non-integer x, for q or x infinite and for NaN (SciPy gives +inf at every pole,
    zeta(x, inf) = 0 and zeta(inf, q) = 1 or 0)."""
    from scipy.special import zeta as hurwitz

    a, b = np.broadcast_arrays(x.astype(np.float64), q.astype(np.float64))
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        result = np.asarray(hurwitz(a, b), dtype=np.float64)
    # A pole of q (0 or a negative integer): +inf where x is an even integer, NaN otherwise, as XLA decides
    # (an odd power's term has no sign there; SciPy gives +inf)
    # The order XLA decides in: a q <= 0 needs an integer x; a pole of q (0 or a negative integer) gives +inf
    # for an even integer x and NaN otherwise (an odd power's term has no sign there; SciPy gives +inf); x = 1
    # is the harmonic series (+inf) whatever q.
    with np.errstate(invalid="ignore"):
        result = np.where(np.isinf(a) | np.isinf(b), np.nan, result)
        result = np.where((b <= 0) & (a != np.floor(a)), np.nan, result)
        pole = (b <= 0) & (b == np.floor(b))  # -inf among them
        even = np.isfinite(a) & (np.mod(a, 2) == 0)
        result = np.where(pole, np.where(even, np.inf, np.nan), result)
        result = np.where(a == 1, np.inf, result)
    return result.astype(np.result_type(x, q))


def polygamma(n: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The n-th derivative of digamma, for n a non-negative integer (stored as a float): digamma itself at
    n = 0 (ChloDigamma's kernel), (-1)^(n+1) n! zeta(n + 1, x) above; at the poles (0 and the negative
    integers, and -inf) +inf for an odd n and NaN for an even one (zeta's rule); NaN for any other n, at
    +inf and for NaN (as XLA; SciPy gives 0 at +inf)."""
    from scipy.special import polygamma as scipy_polygamma

    order, wide = np.broadcast_arrays(n.astype(np.float64), x.astype(np.float64))
    result = np.full(order.shape, np.nan)
    integral = np.isfinite(order) & (order >= 0) & (order == np.floor(order))
    first = integral & (order == 0)
    if first.any():
        result[first] = digamma(wide[first])
    higher = integral & (order > 0) & ~np.isinf(wide)
    if higher.any():
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            result[higher] = scipy_polygamma(order[higher].astype(np.int64), wide[higher])
    poles = integral & (order > 0) & (wide <= 0) & (wide == np.floor(wide))  # zeta's poles (-inf among them)
    result[poles] = np.where(np.mod(order[poles], 2) == 1, np.inf, np.nan)  # (-1)^(n+1) n! zeta(n + 1, x)
    return result.astype(np.result_type(n, x))
