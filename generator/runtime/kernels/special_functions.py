"""Special functions of the hlir extension ops: ErfInv (CHLO erf_inv, which jax.random.normal emits
to turn uniform samples into normal ones)."""
from __future__ import annotations

import numpy as np


def erf_inv(operand: np.ndarray) -> np.ndarray:
    """The inverse error function, computed in double and rounded once to the operand's type:
    erf_inv(erf(y)) = y on (-1, 1), -inf at -1, +inf at 1, NaN outside [-1, 1] and for NaN."""
    from scipy.special import erfinv  # imported when called: SciPy costs a tenth of a second to load

    with np.errstate(invalid="ignore", over="ignore"):
        return np.asarray(erfinv(operand.astype(np.float64))).astype(operand.dtype)
