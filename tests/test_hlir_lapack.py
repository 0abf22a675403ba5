"""The hlir extension ops for the LAPACK and BLAS routines jax on CPU calls through custom calls
(lapack_?potrf_ffi, ?trsm, ?getrf, ?geqrf, ?orgqr), against SciPy's own wrappers of those routines
(LAPACK itself), matrix by matrix, and against jax.lax.linalg."""
from __future__ import annotations

import numpy as np
import pytest
from kernel_refs import kernel, np_dtype

# ---- the LAPACK and BLAS routines jax calls (custom_call lapack_?potrf_ffi, ...), against SciPy's own
# wrappers of LAPACK and BLAS (the routines themselves), matrix by matrix

LAPACK_TYPES = {"float": "s", "double": "d"}


def _batch(rng: np.random.Generator, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    return rng.standard_normal(shape).astype(np_dtype(dtype))


def _close(dtype: str) -> dict[str, float]:
    return {"rtol": 1e-4, "atol": 1e-5} if dtype == "float" else {"rtol": 1e-10, "atol": 1e-12}


@pytest.mark.parametrize("dtype", sorted(LAPACK_TYPES))
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_lapack_potrf_matches_lapack(dtype, uplo):
    """The factor in the uplo triangle, the other triangle as given (LAPACK does not touch it), and info: 0 for
    positive definite matrices, the order of the first leading minor that is not for the others."""
    from scipy.linalg import lapack

    rng = np.random.default_rng(20)
    a = _batch(rng, dtype, (5, 4, 4))
    spd = a @ np.swapaxes(a, -1, -2) + 4 * np.eye(4, dtype=a.dtype)
    spd[3, 2, 2] = spd[4, 0, 0] = -1.0  # leading minors of order 3 and 1 that are not positive definite
    factor, info = kernel("LapackPotrf")(spd, uplo=uplo)
    routine = getattr(lapack, LAPACK_TYPES[dtype] + "potrf")
    triangle = np.tril(np.ones((4, 4), bool)) if uplo == "L" else np.triu(np.ones((4, 4), bool))
    assert factor.dtype == spd.dtype and info.dtype == np.int32
    for k in range(5):
        want, want_info = routine(spd[k], lower=uplo == "L", clean=0)
        assert info[k] == want_info
        np.testing.assert_array_equal(factor[k][~triangle], spd[k][~triangle])
        if want_info == 0:
            np.testing.assert_allclose(factor[k], want, **_close(dtype))
        else:  # note failed_factor: NaN where LAPACK leaves partial work
            assert np.isnan(factor[k][triangle]).all()
    assert info.tolist() == [0, 0, 0, 3, 1]


@pytest.mark.parametrize("dtype", sorted(LAPACK_TYPES))
def test_lapack_trsm_matches_blas_for_every_flag(dtype):
    from scipy.linalg import blas

    rng = np.random.default_rng(21)
    a = _batch(rng, dtype, (2, 4, 4)) + 4 * np.eye(4, dtype=np_dtype(dtype))
    routine = getattr(blas, LAPACK_TYPES[dtype] + "trsm")
    for side in ("L", "R"):
        b = _batch(rng, dtype, (2, 4, 3) if side == "L" else (2, 3, 4))
        for uplo in ("L", "U"):
            for trans in ("N", "T", "C"):
                for diag in ("N", "U"):
                    (x,) = kernel("LapackTrsm")(a, b, side=side, uplo=uplo, trans_x=trans, diag=diag)
                    assert x.dtype == b.dtype and x.shape == b.shape
                    for k in range(2):
                        want = routine(1.0, a[k], b[k], side=int(side == "R"), lower=int(uplo == "L"),
                                       trans_a="NTC".index(trans), diag=int(diag == "U"))
                        np.testing.assert_allclose(x[k], want, **_close(dtype), err_msg=f"{side}{uplo}{trans}{diag}")


@pytest.mark.parametrize("dtype", sorted(LAPACK_TYPES))
@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3)])
def test_lapack_getrf_matches_lapack_and_jax(dtype, shape):
    """lu, the pivots from 1 and info (the first exactly zero pivot) of square and rectangular matrices, one of
    them singular: against LAPACK (SciPy's getrf gives its pivots from 0) and jax.lax.linalg.lu."""
    from scipy.linalg import lapack

    rng = np.random.default_rng(22)
    a = _batch(rng, dtype, (3,) + shape)
    a[2, :, 1] = 2 * a[2, :, 0]  # a singular matrix: U's second pivot is exactly 0
    a[2, :, 0] = [2.0 ** -k for k in range(shape[0])]  # exact multiples, so that the zero is exact
    a[2, :, 1] = 2 * a[2, :, 0]
    lu, ipiv, info = kernel("LapackGetrf")(a)
    routine = getattr(lapack, LAPACK_TYPES[dtype] + "getrf")
    assert lu.dtype == a.dtype and ipiv.dtype == info.dtype == np.int32
    for k in range(3):
        want, pivots, want_info = routine(a[k])
        np.testing.assert_allclose(lu[k], want, **_close(dtype))
        assert ipiv[k].tolist() == (pivots + 1).tolist() and info[k] == want_info
    assert info[2] == 2
    jax_lu, jax_pivots, _ = jax_linalg_lu(a)
    np.testing.assert_allclose(lu, np.asarray(jax_lu), **_close(dtype))
    assert ipiv.tolist() == (np.asarray(jax_pivots) + 1).tolist()


@pytest.mark.parametrize("dtype", sorted(LAPACK_TYPES))
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
def test_lapack_geqrf_and_orgqr_match_lapack_and_jax(dtype, shape):
    """R with the reflectors below it and tau, and Q from them, of tall, wide and square matrices, one with a
    zero column (a reflection left out: tau 0): against LAPACK (SciPy's geqrf and orgqr) and jax."""
    from jax._src.lax import linalg
    from scipy.linalg import lapack

    rng = np.random.default_rng(23)
    a = _batch(rng, dtype, (2,) + shape)
    a[1, 1:, 0] = 0.0  # nothing below the first pivot: no reflection there
    out, tau = kernel("LapackGeqrf")(a)
    k = min(shape)
    (q,) = kernel("LapackOrgqr")(out[..., :k], tau)
    assert out.dtype == tau.dtype == q.dtype == a.dtype and q.shape == (2, shape[0], k)
    geqrf, orgqr = (getattr(lapack, LAPACK_TYPES[dtype] + name) for name in ("geqrf", "orgqr"))
    for b in range(2):
        want, want_tau, _, info = geqrf(a[b])
        assert info == 0
        np.testing.assert_allclose(out[b], want, **_close(dtype))
        np.testing.assert_allclose(tau[b], want_tau, **_close(dtype))
        want_q, _, info = orgqr(want[:, :k], want_tau)
        np.testing.assert_allclose(q[b], want_q, **_close(dtype))
    assert tau[1, 0] == 0
    jax_out, jax_tau = linalg.geqrf(a)
    np.testing.assert_allclose(out, np.asarray(jax_out), **_close(dtype))
    np.testing.assert_allclose(q, np.asarray(linalg.householder_product(jax_out[..., :k], jax_tau)), **_close(dtype))
    np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q, np.broadcast_to(np.eye(k), (2, k, k)), **_close(dtype))


def jax_linalg_lu(a: np.ndarray):
    from jax.lax import linalg

    return linalg.lu(a)
