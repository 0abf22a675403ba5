"""Activations that are not a single element-wise formula: the gated units Glu/GeGlu/Gtu (the input
is split in two along `dim`), Softmax, and Dropout.

Floating inputs are computed in their own precision, float16/bfloat16 in float32, and rounded once
to the input's dtype at the end (as the generated element-wise kernels do).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import elementwise as _ew

_SQRT1_2 = 0.7071067811865476  # 1/sqrt(2)
_SQRT_2_OVER_PI = 0.7978845608028654  # sqrt(2/pi)


# ---- gated linear units -------------------------------------------------------------------------

def _halves(x: np.ndarray, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """a = the first half of x along dim, b = the second half, in the compute precision."""
    x = x.astype(_ew.compute_dtype(x.dtype), copy=False)
    a, b = np.split(x, 2, axis=dim)
    return a, b


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def gelu(x: np.ndarray, approximate: bool) -> np.ndarray:
    """Gelu in x's precision, the same evaluation as the hlir.Gelu formula:
    exact   0.5*x*(1+erf(x/sqrt(2))) = 0.5*x*erfc(-x/sqrt(2))   (no cancellation for negative x);
    tanh    0.5*x*(1+tanh(u)) = x / (1 + exp(-2u)), u = sqrt(2/pi)*(x+0.044715*x^3)."""
    with np.errstate(all="ignore"):
        if approximate:
            return x / (1 + np.exp(-2 * _SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)))
        return 0.5 * x * _ew.erfc(-_SQRT1_2 * x)


def glu(input: np.ndarray, *, dim: int) -> np.ndarray:
    """GLU(a, b) = a * sigmoid(b)."""
    x = np.asarray(input)
    a, b = _halves(x, dim)
    with np.errstate(all="ignore"):
        return _ew.finish(a * _sigmoid(b), x.dtype)


def geglu(input: np.ndarray, *, approximate: str, dim: int) -> np.ndarray:
    """GEGLU(a, b) = a * gelu(b)."""
    x = np.asarray(input)
    a, b = _halves(x, dim)
    with np.errstate(all="ignore"):
        return _ew.finish(a * gelu(b, bool(approximate)), x.dtype)


def gtu(input: np.ndarray, *, dim: int) -> np.ndarray:
    """Gtu(a, b) = tanh(a) * sigmoid(b) (Dauphin et al. 2016, the gated tanh unit)."""
    x = np.asarray(input)
    a, b = _halves(x, dim)
    with np.errstate(all="ignore"):
        return _ew.finish(np.tanh(a) * _sigmoid(b), x.dtype)


# ---- softmax ------------------------------------------------------------------------------------

def softmax(input: np.ndarray, *, axis: int, accurate: bool, logarithmic: bool, epsilon: float) -> np.ndarray:
    """e = exp(x - m) with m = max(x) along axis when accurate, else m = 0 (exp may overflow, as the
    text implies); D = max(sum(e), epsilon) (NaN propagates); output e / D, or, when logarithmic,
    log(e / D) evaluated as (x - m) - log(D) (see the spec's notes)."""
    x = np.asarray(input)
    if x.size == 0:
        return np.empty(x.shape, x.dtype)
    c = x.astype(_ew.compute_dtype(x.dtype), copy=False)
    eps = c.dtype.type(epsilon)
    with np.errstate(all="ignore"):
        shifted = c - np.max(c, axis=axis, keepdims=True) if accurate else c
        # computed once, the quotient dividing them in place; into `shifted` itself when it is this
        # kernel's own temporary (not the input) and the logarithm does not read it again
        exponentials = np.exp(shifted, out=shifted) if accurate and not logarithmic else np.exp(shifted)
        denominator = np.maximum(np.sum(exponentials, axis=axis, keepdims=True), eps)
        result = shifted - np.log(denominator) if logarithmic else np.divide(exponentials, denominator,
                                                                             out=exponentials)
    return _ew.finish(result, x.dtype)


# ---- dropout ------------------------------------------------------------------------------------

def dropout(data: np.ndarray, ratio: Any = None, training_mode: Any = None, *,
            seed: int | None) -> tuple[np.ndarray, ...]:
    """ONNX Dropout-13. Inference (training_mode absent or false): output = data, mask all true.
    Training: mask = U >= ratio with U uniform in [0, 1) drawn as onnx.reference draws it
    (numpy.random.RandomState(seed).uniform(0, 1, shape)); output = scale * data * mask with
    scale = 1 / (1 - ratio), so a dropped inf/NaN gives NaN (IEEE 0 * inf). ratio defaults to 0.5 and
    must lie in [0, 1) in training mode; ratio 0 returns data unchanged."""
    x = np.asarray(data)
    training = bool(np.asarray(training_mode)) if training_mode is not None else False
    r = 0.5 if ratio is None else float(np.asarray(ratio))
    if not training or r == 0.0:
        return x.copy(), np.ones(x.shape, dtype=bool)
    if not 0.0 <= r < 1.0:
        raise ValueError(f"hlir.Dropout: ratio must lie in [0, 1) in training mode, got {r}")
    state = np.random.RandomState(None if seed is None else int(seed) % 2**32)
    mask = state.uniform(0.0, 1.0, x.shape) >= r
    compute = _ew.compute_dtype(x.dtype)
    scale = compute.type(1.0 / (1.0 - r))
    with np.errstate(all="ignore"):
        output = mask.astype(compute) * x.astype(compute, copy=False) * scale
    return _ew.finish(output, x.dtype), mask
