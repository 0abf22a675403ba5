"""What kernel tests share: JAX (x64, CPU) and torch as references, input generators with edge values,
and one comparison that treats NaN positions and tolerances the same way everywhere.

Tolerances live in one place, opgen.testing.TOLERANCES."""
from __future__ import annotations

import math
import os

import ml_dtypes
import numpy as np

from opgen.dtypes import ELEM_TYPES
from opgen.testing import TOLERANCES

from conftest import get_kernel

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402,F401  (re-exported for the tests)
from jax import lax  # noqa: E402,F401

SHAPES = [(), (0,), (7,), (2, 3), (2, 3, 4)]


def kernel(op: str, version: int = 1):
    """The generated hlir kernel of an op (the one place the hlir kernel tests look it up)."""
    return get_kernel("hlir", op, version)


def np_dtype(elem: str) -> np.dtype:
    """The NumPy dtype of a spec element type."""
    return ELEM_TYPES[elem].numpy
FLOATS = ("float16", "bfloat16", "float", "double")


def edge_values(dtype: str) -> np.ndarray:
    """Values that break careless kernels: signed zeros, infinities, NaN, denormals, integer limits."""
    elem = ELEM_TYPES[dtype]
    np_dtype = elem.numpy
    if elem.kind == "float":
        info = ml_dtypes.finfo(np_dtype)  # knows bfloat16 as well as the NumPy types
        values = [0.0, -0.0, np.inf, -np.inf, np.nan, float(info.tiny), -float(info.tiny),
                  float(info.smallest_subnormal), float(info.max), float(info.min), 0.5, -0.5, 1.5, -2.5, 1.0, -1.0]
        return np.array(values, dtype=np.float64).astype(np_dtype)
    if elem.kind in ("int", "uint"):
        info = np.iinfo(np_dtype)
        values = [0, 1, info.max, info.min, info.max - 1, info.min + 1] + ([-1, -7] if elem.kind == "int" else [7])
        return np.array(values, dtype=np_dtype)
    if elem.kind == "bool":
        return np.array([True, False])
    return np.array([0, 1 + 1j, -2.5 - 0.5j, complex(np.inf, 0), complex(np.nan, 1)], dtype=np_dtype)


def random_array(rng: np.random.Generator, shape, dtype: str, low: float = -4.0, high: float = 4.0) -> np.ndarray:
    elem = ELEM_TYPES[dtype]
    if elem.kind == "bool":
        return rng.random(shape) < 0.5
    if elem.kind in ("int", "uint"):
        info = np.iinfo(elem.numpy)
        lo, hi = max(int(low), info.min), min(int(high), info.max)
        return np.asarray(rng.integers(lo, hi, size=shape, endpoint=True), dtype=elem.numpy)
    if elem.kind == "complex":
        return (rng.uniform(low, high, shape) + 1j * rng.uniform(low, high, shape)).astype(elem.numpy)
    return np.asarray(rng.uniform(low, high, size=shape)).astype(elem.numpy)


def assert_matches(got: np.ndarray, want, dtype: str, label: str = "", exact: bool = False) -> None:
    """Same dtype and shape, NaN in the same places, values within the dtype's tolerance."""
    want = np.asarray(want)
    assert got.shape == want.shape, f"{label}: shape {got.shape} != {want.shape}"
    if got.dtype.kind in "biu" or exact:
        np.testing.assert_array_equal(got, want.astype(got.dtype), err_msg=label)
        return
    rtol, atol = TOLERANCES.get(dtype, (0.0, 0.0))
    g, w = got.astype(np.complex128 if got.dtype.kind == "c" else np.float64), \
        want.astype(np.complex128 if want.dtype.kind == "c" else np.float64)
    np.testing.assert_array_equal(np.isnan(g), np.isnan(w), err_msg=f"{label}: NaN positions differ")
    np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True, err_msg=label)


def jax_padding(auto_pad, ceil_mode, sizes, window, strides, base, wdil):
    """Explicit XLA padding for the hlir document's auto_pad / ceil_mode (ReduceWindow note
    auto_pad_and_ceil_mode), computed with jax's own SAME rules on the dilated sizes."""
    dilated = [(n - 1) * b + 1 if n else 0 for n, b in zip(sizes, base)]
    spans = [(w - 1) * d + 1 for w, d in zip(window, wdil)]
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        return lax.padtype_to_pads(dilated, spans, strides, "SAME" if auto_pad == "SAME_UPPER" else "SAME_LOWER")
    pads = []
    for n, w, s in zip(dilated, spans, strides):
        out = math.ceil((n - w) / s) + 1
        if auto_pad == "NOTSET" and ceil_mode and out > 0:
            out -= (out - 1) * s >= n
            pads.append((0, max((out - 1) * s + w - n, 0)))
        else:
            pads.append((0, 0))
    return pads


def xla_log2_reduction(n, rank, k, recall):
    """log2_reduction as ApproxTopKReductionOutputSize chooses it (top_k > 1, recall < 1)."""
    tiling = 1024 if rank == 1 else 128
    if n <= tiling:
        return 0
    m = min(max(int((1.0 - k) / np.log(recall)), tiling), n)
    r = int(np.floor(np.log2(n // m))) if n // m else 0
    return min(r, int(np.ceil(np.log2(n / tiling)))) if r else 0
