"""hlir RngNormal and RngUniform through the generated kernels: repeatable for a seed, the documented
generator (NumPy's PCG64 stream, spec note generator), and the right distribution (scipy.stats tests)."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

from kernel_refs import assert_matches, kernel, np_dtype

NUMERIC = ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float16", "float", "double")
INTS = ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64")
FLOATS = ("float16", "float", "double")


def assert_exact(got: np.ndarray, want) -> None:
    """Same dtype, shape and bits."""
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == np.ascontiguousarray(want).tobytes(), f"{got} != {want}"


# ---- RngNormal, RngUniform -----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape_type", [np.int32, np.int64])
def test_rng_normal_is_the_documented_generator_and_normal(dtype, shape_type):
    t = np_dtype(dtype)
    shape = np.array([40, 50], shape_type)
    (got,) = kernel("RngNormal")(t.type(2), t.type(3), shape, seed=11)
    assert got.dtype == t and got.shape == (40, 50)
    z = np.random.Generator(np.random.PCG64(11)).standard_normal((40, 50))  # spec note generator
    assert_matches(got, (2 + 3 * z).astype(t), dtype)
    assert scipy.stats.kstest(got.astype(np.float64).reshape(-1), "norm", args=(2, 3)).pvalue > 1e-3
    again = kernel("RngNormal")(t.type(2), t.type(3), shape, seed=11)[0]
    assert again.tobytes() == got.tobytes()
    other = kernel("RngNormal")(t.type(2), t.type(3), shape, seed=12)[0]
    assert other.tobytes() != got.tobytes()
    default = kernel("RngNormal")(t.type(2), t.type(3), shape)[0]
    assert default.tobytes() == kernel("RngNormal")(t.type(2), t.type(3), shape, seed=1)[0].tobytes()


@pytest.mark.parametrize("dtype", NUMERIC)
def test_rng_uniform_stays_in_the_interval_and_is_uniform(dtype):
    t = np_dtype(dtype)
    a, b = (t.type(-3), t.type(5)) if dtype not in INTS or dtype.startswith("int") else (t.type(2), t.type(9))
    (got,) = kernel("RngUniform")(a, b, np.array([4000], np.int64), seed=5)
    assert got.dtype == t and got.shape == (4000,)
    assert np.all(got >= a) and np.all(got < b)
    if dtype in INTS:
        assert set(got.tolist()) == set(range(int(a), int(b)))
        counts = np.bincount((got.astype(np.int64) - int(a)), minlength=int(b) - int(a))
        assert scipy.stats.chisquare(counts).pvalue > 1e-3
        want = np.random.Generator(np.random.PCG64(5)).integers(int(a), int(b), size=4000, dtype=t)
        assert_exact(got, want)
    else:
        u = (got.astype(np.float64) - float(a)) / (float(b) - float(a))
        assert scipy.stats.kstest(u, "uniform").pvalue > 1e-3
    again = kernel("RngUniform")(a, b, np.array([4000], np.int64), seed=5)[0]
    assert again.tobytes() == got.tobytes()


def test_rng_edge_cases():
    # rounding onto b stays below b; full integer ranges; empty and rank-0 shapes; a >= b is rejected
    (h,) = kernel("RngUniform")(np.float16(0), np.float16(2048), np.array([5000]), seed=2)
    assert np.all(h < np.float16(2048))
    (u,) = kernel("RngUniform")(np.uint64(0), np.uint64(2**64 - 1), np.array([1000]), seed=3)
    assert u.dtype == np.uint64 and u.max() > 2**63
    (i,) = kernel("RngUniform")(np.int64(-2**63), np.int64(2**63 - 1), np.array([1000]), seed=3)
    assert i.min() < -2**62
    assert kernel("RngNormal")(np.float32(0), np.float32(1), np.array([], np.int64))[0].shape == ()
    assert kernel("RngNormal")(np.float32(0), np.float32(1), np.array([3, 0], np.int32))[0].shape == (3, 0)
    negative = kernel("RngNormal")(np.float64(0), np.float64(1), np.array([4]), seed=-1)[0]
    assert negative.tolist() == np.random.Generator(np.random.PCG64(2**64 - 1)).standard_normal(4).tolist()
    with pytest.raises(ValueError, match="empty"):
        kernel("RngUniform")(np.int32(3), np.int32(3), np.array([2]))
    with pytest.raises(ValueError, match="negative"):
        kernel("RngUniform")(np.int32(0), np.int32(3), np.array([-2]))
