"""The hlir extension ops for the LAPACK and BLAS routines jax on CPU calls through custom calls
(lapack_?potrf_ffi, ?trsm, ?getrf, ?geqrf, ?orgqr, ?syevd, ?gesdd, ?geev, ?gees), against SciPy's own wrappers
of those routines (LAPACK itself), matrix by matrix, and against jax.lax.linalg."""
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


# ---- syevd and gesdd: the kernels call SciPy's LAPACK (the routine jax calls), so beside jax the tests check
# what the decompositions are on their own: a v = λ v, U diag(s) Vᵀ = a, orthonormal vectors, sorted values.


@pytest.mark.parametrize("dtype", sorted(LAPACK_TYPES))
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_lapack_syevd_is_an_eigendecomposition_of_the_triangle_read_and_matches_jax(dtype, uplo):
    from jax._src.lax import linalg

    rng = np.random.default_rng(31)
    a = _batch(rng, dtype, (3, 5, 5))
    symmetric = np.tril(a) + np.swapaxes(np.tril(a, -1), -1, -2) if uplo == "L" else \
        np.triu(a) + np.swapaxes(np.triu(a, 1), -1, -2)
    vectors, values, info = kernel("LapackSyevd")(a, mode="V", uplo=uplo)  # the other triangle is not read
    assert vectors.dtype == values.dtype == a.dtype and info.dtype == np.int32 and not info.any()
    assert np.all(np.diff(values, axis=-1) >= 0)
    eye = np.broadcast_to(np.eye(5), (3, 5, 5))
    np.testing.assert_allclose(np.swapaxes(vectors, -1, -2) @ vectors, eye, **_close(dtype))
    np.testing.assert_allclose(symmetric @ vectors, vectors * values[..., None, :], **_close(dtype))
    jax_vectors, jax_values = linalg.eigh(symmetric, lower=uplo == "L", symmetrize_input=False)
    np.testing.assert_allclose(values, np.asarray(jax_values), **_close(dtype))
    np.testing.assert_allclose(vectors, np.asarray(jax_vectors), **_close(dtype))  # LAPACK's signs, as jax's
    no_vectors, same_values, _ = kernel("LapackSyevd")(a, mode="N", uplo=uplo)
    assert not no_vectors.any()
    np.testing.assert_allclose(same_values, values, **_close(dtype))


@pytest.mark.parametrize("dtype", sorted(LAPACK_TYPES))
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
@pytest.mark.parametrize("full_matrices", [True, False])
def test_lapack_gesdd_is_a_singular_value_decomposition_and_matches_jax(dtype, shape, full_matrices):
    import jax.numpy as jnp

    rng = np.random.default_rng(37)
    a = _batch(rng, dtype, (2,) + shape)
    m, n = shape
    k = min(shape)
    output, s, u, vt, info = kernel("LapackGesdd")(a, compute_uv=True, full_matrices=full_matrices)
    assert u.shape == (2, m, m if full_matrices else k) and vt.shape == (2, n if full_matrices else k, n)
    assert s.dtype == u.dtype == vt.dtype == a.dtype and not info.any()
    np.testing.assert_array_equal(output, a)
    assert np.all(np.diff(s, axis=-1) <= 0) and np.all(s >= 0)
    np.testing.assert_allclose((u[..., :, :k] * s[..., None, :]) @ vt[..., :k, :], a, **_close(dtype))
    for q in (u, np.swapaxes(vt, -1, -2)):
        eye = np.broadcast_to(np.eye(q.shape[-1]), (2,) + q.shape[-1:] * 2)
        np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q, eye, **_close(dtype))
    jax_u, jax_s, jax_vt = (np.asarray(x) for x in jnp.linalg.svd(a, full_matrices=full_matrices))
    for got, want in ((s, jax_s), (u, jax_u), (vt, jax_vt)):  # LAPACK's signs, as jax's
        np.testing.assert_allclose(got, want, **_close(dtype))
    _, values_only, zero_u, zero_vt, _ = kernel("LapackGesdd")(a, compute_uv=False, full_matrices=full_matrices)
    np.testing.assert_allclose(values_only, s, **_close(dtype))
    assert zero_u.shape == u.shape and zero_vt.shape == vt.shape and not zero_u.any() and not zero_vt.any()


def test_lapack_gesdd_reports_nan_and_takes_empty_matrices():
    """LAPACK's info -4 for a matrix holding NaN (jax's program turns the results into NaN on it), and a
    matrix with no rows: no singular values, identities for U and Vᵀ, as jnp.linalg.svd gives them."""
    import jax.numpy as jnp

    a = np.array([[[1.0, np.nan], [0.0, 2.0]], [[3.0, 0.0], [0.0, 2.0]]])
    _, s, _, _, info = kernel("LapackGesdd")(a, compute_uv=True, full_matrices=True)
    assert info.tolist() == [-4, 0] and s[1].tolist() == [3.0, 2.0]
    empty = np.zeros((0, 3))
    _, s, u, vt, info = kernel("LapackGesdd")(empty, compute_uv=True, full_matrices=True)
    jax_u, jax_s, jax_vt = jnp.linalg.svd(empty)
    assert s.shape == (0,) and u.shape == (0, 0) and info.shape == ()
    np.testing.assert_array_equal(vt, np.asarray(jax_vt))


@pytest.mark.parametrize("dtype", sorted(LAPACK_TYPES))
def test_lapack_geev_is_an_eigendecomposition_and_matches_jax(dtype):
    """Eigenvalues (conjugate pairs adjacent, the positive imaginary part first) and left and right eigenvectors
    of general matrices: a v = λ v, vᴴ a = λ vᴴ, unit norms with the largest component real, and jax's
    lax.linalg.eig (the same LAPACK with the same workspace: equal to the bit)."""
    from jax.lax import linalg

    rng = np.random.default_rng(53)
    a = _batch(rng, dtype, (3, 5, 5))
    complex_type = np.complex64 if dtype == "float" else np.complex128
    types = {"vl_dtype": np.dtype(complex_type), "vr_dtype": np.dtype(complex_type)}
    wr, wi, vl, vr, info = kernel("LapackGeev")(a, compute_left="V", compute_right="V", **types)
    assert wr.dtype == wi.dtype == a.dtype and vl.dtype == vr.dtype == complex_type and not info.any()
    w = wr + 1j * wi
    close = {"rtol": 1e-4, "atol": 1e-4} if dtype == "float" else {"rtol": 1e-10, "atol": 1e-10}
    np.testing.assert_allclose(a @ vr, vr * w[..., None, :], **close)
    np.testing.assert_allclose(np.conj(np.swapaxes(vl, -1, -2)) @ a, w[..., :, None] * np.conj(np.swapaxes(vl, -1, -2)),
                               **close)
    for vectors in (vl, vr):
        np.testing.assert_allclose(np.linalg.norm(vectors, axis=-2), 1.0, **close)
        largest = np.take_along_axis(vectors, np.argmax(np.abs(vectors), axis=-2)[..., None, :], axis=-2)
        np.testing.assert_array_equal(largest.imag, 0)
    paired = wi != 0
    assert paired.any()  # random 5 x 5 matrices have complex pairs
    jax_w, jax_vl, jax_vr = linalg.eig(a, compute_left_eigenvectors=True, compute_right_eigenvectors=True)
    np.testing.assert_array_equal(w.astype(complex_type), np.asarray(jax_w))
    np.testing.assert_array_equal(vr, np.asarray(jax_vr))
    np.testing.assert_array_equal(vl, np.asarray(jax_vl))
    _, _, no_left, no_right, _ = kernel("LapackGeev")(a, compute_left="N", compute_right="N", **types)
    assert not no_left.any() and not no_right.any()


@pytest.mark.parametrize("dtype", ["float", "double", "complex64", "complex128"])
@pytest.mark.parametrize("n", [1, 5, 40])
def test_lapack_gees_is_a_schur_decomposition_and_matches_jax(dtype, n):
    """Real Schur forms (T quasi-upper triangular: 2 x 2 blocks for conjugate pairs) and complex ones (T upper
    triangular): Z T Zᴴ = a with Z orthogonal or unitary, the eigenvalues on T's diagonal, and jax's
    lax.linalg.schur (the same LAPACK with the same workspace: equal to the bit; 40 x 40 takes LAPACK's blocked
    path). Without Schur vectors (mode N) Z is zeros and T is unchanged."""
    from jax.lax import linalg

    rng = np.random.default_rng(59 + n)
    complex_ = dtype.startswith("complex")
    shape = (2, n, n)
    a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape) if complex_ else
         rng.standard_normal(shape)).astype(np_dtype(dtype))
    op = "LapackGeesComplex" if complex_ else "LapackGees"
    t, z, *eigenvalues, sdim, info = kernel(op)(a, mode="V", sort="N")
    assert t.dtype == z.dtype == a.dtype and sdim.dtype == info.dtype == np.int32
    assert not info.any() and not sdim.any()
    single = dtype in ("float", "complex64")
    close = {"rtol": 1e-3, "atol": 1e-3} if single else {"rtol": 1e-10, "atol": 1e-10}
    zh = np.conj(np.swapaxes(z, -1, -2))
    np.testing.assert_allclose(z @ t @ zh, a, **close)
    np.testing.assert_allclose(zh @ z, np.broadcast_to(np.eye(n), a.shape), **close)
    below = np.tril(np.ones((n, n), bool), -1 if complex_ else -2)
    assert not t[..., below].any()
    if complex_:
        (w,) = eigenvalues
        np.testing.assert_array_equal(w, np.diagonal(t, axis1=-2, axis2=-1))
    else:
        wr, wi = eigenvalues
        np.testing.assert_array_equal(wr[wi == 0], np.diagonal(t, axis1=-2, axis2=-1)[wi == 0])
        subdiagonal = np.diagonal(t, offset=-1, axis1=-2, axis2=-1)
        assert not (subdiagonal[..., 1:] != 0)[subdiagonal[..., :-1] != 0].any()  # blocks of at most 2 x 2
        assert n < 5 or (wi != 0).any()  # random matrices have conjugate pairs
    jax_t, jax_z = linalg.schur(a)
    np.testing.assert_array_equal(t, np.asarray(jax_t))
    np.testing.assert_array_equal(z, np.asarray(jax_z))
    no_vectors = kernel(op)(a, mode="N", sort="N")
    assert not no_vectors[1].any()
    np.testing.assert_array_equal(no_vectors[0], np.asarray(linalg.schur(a, compute_schur_vectors=False)[0]))


@pytest.mark.parametrize("op, shape", [("LapackGees", (0, 3, 3)), ("LapackGees", (2, 0, 0)),
                                       ("LapackGeesComplex", (0, 2, 2))])
def test_lapack_gees_of_no_matrices_or_empty_ones_is_empty(op, shape):
    """A batch of no matrices, or of 0 x 0 ones: results of the batch's shapes, nothing asked of LAPACK."""
    a = np.zeros(shape, np.complex128 if op == "LapackGeesComplex" else np.float64)
    t, z, *rest = kernel(op)(a, mode="V", sort="N")
    assert t.shape == z.shape == shape and all(r.shape[:len(shape) - 2] == shape[:-2] for r in rest)
    assert rest[-1].dtype == np.int32 and not rest[-1].any()
