"""Random number generation: hlir RngNormal and RngUniform; ONNX RandomNormal, RandomNormalLike,
RandomUniform, RandomUniformLike, Bernoulli and Multinomial.

hlir: the generator is documented and deterministic (spec note generator): NumPy's
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

The ONNX ops use the same generator (spec note generator of each). Their seed is a float attribute: the
generator is seeded with the 32 bits of the seed as a float32 (how the model stores it), so every seed value
gives its own stream; an unspecified seed is 0.0, never the clock (the texts let the implementation choose
one). Each node call starts a fresh generator: two nodes with the same seed draw the same numbers.
- RandomNormal(Like): mean + scale * z with z = standard_normal(shape) in float64, rounded once.
- RandomUniform(Like): low + (high - low) * u with u = random(shape) in [0, 1), in float64, rounded once
  (rounding may reach high; the texts do not say whether high is excluded).
- Bernoulli: 1 where u < p, u = random(shape): 1 with probability p. p must lie in [0, 1].
- Multinomial: per batch row, probabilities softmax(input row); each of sample_size draws takes the class
  where u * total falls in the cumulative sums (a class of probability 0 is never drawn).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .onnx_dtypes import dtype_of_code, round_float64


def generator(seed: int) -> np.random.Generator:
    """The documented generator of these kernels: numpy.random.Generator(PCG64(seed mod 2**64))."""
    return np.random.Generator(np.random.PCG64(int(seed) % 2**64))


def requested_shape(shape: Any) -> tuple[int, ...]:
    """A shape given as a 1-D tensor of sizes (RngNormal's shape, ONNX ConstantOfShape's input)."""
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
    z = generator(seed).standard_normal(requested_shape(shape), dtype=np.float64)
    with np.errstate(all="ignore"):  # an infinite or NaN parameter gives inf/NaN, not a warning
        value = np.float64(mu) + np.float64(sigma) * z
        return value.astype(mu.dtype)


def rng_uniform(a: np.ndarray, b: np.ndarray, shape: Any, *, seed: int = 1) -> np.ndarray:
    """Uniform samples over [a, b) of the given shape, in the type of a (spec note generator)."""
    a, b = _scalar(a, "a"), _scalar(b, "b")
    dtype = a.dtype
    if not a < b:
        raise ValueError(f"the interval [a, b) = [{a}, {b}) is empty: RngUniform needs a < b")
    sizes = requested_shape(shape)
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


# ---- ONNX ---------------------------------------------------------------------------------------

def onnx_generator(seed: float | None) -> np.random.Generator:
    """The generator of an ONNX node: PCG64 seeded with the float32 bits of its seed (0.0 when absent)."""
    bits = np.asarray(0.0 if seed is None else seed, np.float32).view(np.uint32)
    return generator(int(bits))


def _onnx_type(dtype: int | None, like: np.ndarray | None) -> np.dtype[Any]:
    """The output type: the one the dtype attribute names, else the input's (the *Like ops, Bernoulli)."""
    if dtype is not None:
        return dtype_of_code(dtype)
    if like is None:
        raise ValueError("dtype is required without an input to copy the type from")
    return like.dtype


def _onnx_shape(shape: Any) -> tuple[int, ...]:
    return requested_shape(np.asarray(list(shape), np.int64))


def _normal(shape: tuple[int, ...], dtype: np.dtype[Any], mean: float, scale: float, seed: float | None) -> np.ndarray:
    z = onnx_generator(seed).standard_normal(shape, dtype=np.float64)
    with np.errstate(all="ignore"):  # an infinite mean or scale gives inf/NaN, not a warning
        return round_float64(np.float64(mean) + np.float64(scale) * z, dtype)


def _uniform(shape: tuple[int, ...], dtype: np.dtype[Any], low: float, high: float, seed: float | None) -> np.ndarray:
    u = onnx_generator(seed).random(shape, dtype=np.float64)
    with np.errstate(all="ignore"):
        return round_float64(np.float64(low) + (np.float64(high) - np.float64(low)) * u, dtype)


def random_normal(*, dtype: int = 1, mean: float = 0.0, scale: float = 1.0, seed: float | None = None,
                  shape: Any = (), output_dtype: Any = None) -> np.ndarray:
    """ONNX RandomNormal: N(mean, scale) samples of the given shape, of the type dtype names (module doc;
    output_dtype, the type the node declares, is checked against dtype by the spec's constraint)."""
    return _normal(_onnx_shape(shape), _onnx_type(dtype, None), mean, scale, seed)


def random_normal_like(input: Any, *, dtype: int | None = None, mean: float = 0.0, scale: float = 1.0,
                       seed: float | None = None, output_dtype: Any = None) -> np.ndarray:
    """ONNX RandomNormalLike: RandomNormal with the shape of input, and its type unless dtype is given."""
    x = np.asarray(input)
    return _normal(x.shape, _onnx_type(dtype, x), mean, scale, seed)


def random_uniform(*, dtype: int = 1, high: float = 1.0, low: float = 0.0, seed: float | None = None,
                   shape: Any = (), output_dtype: Any = None) -> np.ndarray:
    """ONNX RandomUniform: low + (high - low) * U[0, 1) samples of the given shape, of the type dtype names."""
    return _uniform(_onnx_shape(shape), _onnx_type(dtype, None), low, high, seed)


def random_uniform_like(input: Any, *, dtype: int | None = None, high: float = 1.0, low: float = 0.0,
                        seed: float | None = None, output_dtype: Any = None) -> np.ndarray:
    """ONNX RandomUniformLike: RandomUniform with the shape of input, and its type unless dtype is given."""
    x = np.asarray(input)
    return _uniform(x.shape, _onnx_type(dtype, x), low, high, seed)


def bernoulli(input: np.ndarray, *, dtype: int | None = None, seed: float | None = None,
              output_dtype: Any = None) -> np.ndarray:
    """ONNX Bernoulli: 1 with probability input (u < p for u = random(shape)), else 0, in the type dtype names
    or the input's. A probability outside [0, 1] (or NaN) is rejected: the text requires one in [0, 1]."""
    p = np.asarray(input)
    target = _onnx_type(dtype, p)
    p64 = p.astype(np.float64)
    if not np.all((p64 >= 0) & (p64 <= 1)):
        raise ValueError("every element of input must be a probability in [0, 1]")
    u = onnx_generator(seed).random(p.shape, dtype=np.float64)
    return (u < p64).astype(target)


def multinomial(input: np.ndarray, *, dtype: int = 6, sample_size: int = 1, seed: float | None = None,
                output_dtype: Any = None) -> np.ndarray:
    """ONNX Multinomial: sample_size class indices per row of input [batch, classes] (unnormalized
    log-probabilities), drawn with replacement (module doc). A row must have a finite largest value (-inf
    entries are classes of probability 0); NaN or +inf is rejected."""
    logits = np.asarray(input).astype(np.float64)
    batch, classes = logits.shape
    target = _onnx_type(dtype, None)
    if batch == 0 or sample_size == 0:
        return np.zeros((batch, sample_size), target)
    if classes == 0:
        raise ValueError("Multinomial needs at least one class")
    largest = np.max(logits, axis=1, keepdims=True)
    if np.any(np.isnan(logits)) or not np.all(np.isfinite(largest)):
        raise ValueError("each row of input needs a finite largest value and no NaN (-inf is probability 0)")
    weights = np.exp(logits - largest)  # the largest class has weight 1: the total is at least 1
    cumulative = np.cumsum(weights, axis=1)
    u = onnx_generator(seed).random((batch, sample_size), dtype=np.float64)
    out = np.empty((batch, sample_size), np.int64)
    for row in range(batch):
        drawn = np.searchsorted(cumulative[row], u[row] * cumulative[row, -1], side="right")
        last = int(np.flatnonzero(weights[row] > 0)[-1])  # u * total may round up to total itself
        out[row] = np.minimum(drawn, last)
    return out.astype(target)
