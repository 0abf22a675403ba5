"""Special functions of the hlir extension ops: ErfInv (CHLO erf_inv, which jax.random.normal emits
to turn uniform samples into normal ones), ChloLgamma and ChloDigamma (CHLO lgamma and digamma, which
jax.scipy.special.gammaln and digamma, the log-densities of jax.scipy.stats and jax.random.gamma emit).

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
