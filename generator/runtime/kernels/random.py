"""Random number generation: hlir RngNormal and RngUniform.

The generator is documented and deterministic (spec note generator): NumPy's
numpy.random.Generator(numpy.random.PCG64(seed)), created afresh for every call, so the same seed,
parameters, shape and element type always give the same tensor. The seed attribute's text says that
an unspecified seed is taken from a timestamp, while its entry gives the default 1; the reference
kernel never reads the clock: an unspecified seed is 1 (the spec's default), and a caller who wants a
time-based seed passes one (e.g. seed=time.time_ns()). A negative seed is used modulo 2**64 (its
two's-complement bits as an int64 attribute).

- RngNormal: z = standard_normal(shape) drawn in float64, then mu + sigma * z computed in float64 and
  rounded once to the output type (float16, float or double): one seed gives the same z for every type.
- RngUniform: floating types: a + (b - a) * u with u = random(shape) in [0, 1), in float64, rounded once;
  a result that rounding moves onto b (or beyond) becomes the largest value of the type below b, so the
  result always lies in [a, b). Integer types: Generator.integers(a, b, endpoint=False, dtype=T), exact
  for every integer type, uniform over a, a + 1, ..., b - 1. a < b is required (XLA leaves b <= a
  implementation-defined; the reference rejects it).
"""
from __future__ import annotations

from typing import Any

import numpy as np


def generator(seed: int) -> np.random.Generator:
    """The documented generator of these kernels: numpy.random.Generator(PCG64(seed mod 2**64))."""
    return np.random.Generator(np.random.PCG64(int(seed) % 2**64))


def _shape(shape: Any) -> tuple[int, ...]:
    dims = np.asarray(shape)
    if dims.ndim != 1:
        raise ValueError(f"shape must be a 1-D tensor, found rank {dims.ndim}")
    sizes = tuple(int(d) for d in dims)
    if any(d < 0 for d in sizes):
        raise ValueError(f"shape {list(sizes)} has a negative dimension")
    return sizes


def _scalar(value: Any, name: str) -> np.ndarray:
    value = np.asarray(value)
    if value.ndim != 0:
        raise ValueError(f"{name} must be a scalar, found shape {value.shape}")
    return value


def rng_normal(mu: np.ndarray, sigma: np.ndarray, shape: Any, *, seed: int = 1) -> np.ndarray:
    """N(mu, sigma) samples of the given shape, in the type of mu (spec note generator)."""
    mu, sigma = _scalar(mu, "mu"), _scalar(sigma, "sigma")
    z = generator(seed).standard_normal(_shape(shape), dtype=np.float64)
    with np.errstate(all="ignore"):  # an infinite or NaN parameter gives inf/NaN, not a warning
        value = np.float64(mu) + np.float64(sigma) * z
        return value.astype(mu.dtype)


def rng_uniform(a: np.ndarray, b: np.ndarray, shape: Any, *, seed: int = 1) -> np.ndarray:
    """Uniform samples over [a, b) of the given shape, in the type of a (spec note generator)."""
    a, b = _scalar(a, "a"), _scalar(b, "b")
    dtype = a.dtype
    if not a < b:
        raise ValueError(f"the interval [a, b) = [{a}, {b}) is empty: RngUniform needs a < b")
    sizes = _shape(shape)
    rng = generator(seed)
    if dtype.kind in "iu":
        return rng.integers(a.item(), b.item(), size=sizes, dtype=dtype, endpoint=False)
    lo, hi = np.float64(a), np.float64(b)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise ValueError(f"the interval [{a}, {b}) must be finite")
    with np.errstate(over="ignore"):  # b - a may overflow float64 only if a, b are near its limits
        value = (lo + (hi - lo) * rng.random(sizes, dtype=np.float64)).astype(dtype)
    below_b = np.nextafter(b, np.array(-np.inf, dtype))  # the largest value of the type below b
    return np.where(value >= b, below_b, np.maximum(value, a)).astype(dtype)
