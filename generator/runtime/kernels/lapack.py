"""The LAPACK and BLAS routines jax on CPU calls through stablehlo.custom_call (hlir LapackPotrf,
LapackTrsm, LapackGetrf, LapackGeqrf and LapackOrgqr): jnp.linalg.cholesky, solve, inv, det, slogdet
and qr, jax.nn.initializers.orthogonal, and jax.scipy.linalg.solve_triangular, cho_solve and lu write
them as `lapack_?potrf_ffi`, `lapack_?trsm_ffi`, `lapack_?getrf_ffi`, `lapack_?geqrf_ffi` and
`lapack_?orgqr_ffi` calls on float and double matrices. The decompositions whose results LAPACK chooses
(signs of vectors, order of eigenvalues: syevd, gesdd, geev, gees) call SciPy's LAPACK itself.

Each works on every matrix of the last two dimensions, the leading ones being batch dimensions (jax's
num_batch_dims), and computes what the routine computes, in NumPy: the tests compare the results with
jax's, which come from LAPACK itself. Where LAPACK leaves values unspecified the ops' notes say what
is written instead.
"""
from __future__ import annotations

from typing import Any, Callable, cast

import numpy as np

from .linalg import cholesky_with_info


def potrf(a: np.ndarray, *, uplo: str) -> tuple[np.ndarray, np.ndarray]:
    """The Cholesky factor in the `uplo` triangle ("L": a = L L^T; "U": a = U^T U), only that triangle of
    `a` read, the other triangle keeping a's values (LAPACK does not touch it), and info per matrix: 0,
    or the order k of the first leading minor that is not positive definite. The factor triangle of such
    a matrix is NaN (LAPACK leaves partial work there; jax replaces the whole matrix with NaN)."""
    lower = uplo == "L"
    factor, info = cholesky_with_info(a, lower=lower)
    n = a.shape[-1]
    triangle = np.tril(np.ones((n, n), bool)) if lower else np.triu(np.ones((n, n), bool))
    return np.where(triangle, factor, a), info


def trsm(a: np.ndarray, b: np.ndarray, *, side: str, uplo: str, trans_x: str, diag: str) -> np.ndarray:
    """x with op(A) x = b (side "L") or x op(A) = b (side "R"), where A is the `uplo` triangle of a
    ("L" lower, "U" upper; the other triangle is not read), with ones on its diagonal when diag is "U"
    (the diagonal is not read), and op(A) is A (trans_x "N") or its transpose ("T", and "C", which is
    the same for real matrices). A zero on the diagonal gives infinities and NaNs, as BLAS's division does."""
    n = a.shape[-1]
    lower = uplo == "L"
    keep = np.tril(np.ones((n, n), bool)) if lower else np.triu(np.ones((n, n), bool))
    t = np.where(keep, a, np.zeros((), a.dtype))
    if diag == "U":
        t = np.where(np.eye(n, dtype=bool), np.ones((), a.dtype), t)
    if trans_x != "N":
        t, lower = np.swapaxes(t, -1, -2), not lower
    rhs = b
    if side == "R":  # x T = b  <=>  T^T x^T = b^T
        t, lower, rhs = np.swapaxes(t, -1, -2), not lower, np.swapaxes(b, -1, -2)
    x = np.zeros(np.broadcast_shapes(t.shape[:-2], rhs.shape[:-2]) + rhs.shape[-2:], a.dtype)
    order = range(n) if lower else range(n - 1, -1, -1)
    with np.errstate(all="ignore"):
        for i in order:  # substitution, one row of x at a time, every column and matrix at once
            done = slice(0, i) if lower else slice(i + 1, n)
            known = np.sum(t[..., i, done, None] * x[..., done, :], axis=-2)
            x[..., i, :] = (rhs[..., i, :] - known) / t[..., i, i, None]
    return np.swapaxes(x, -1, -2) if side == "R" else x


def getrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The LU factorization with partial pivoting of each m x n matrix, P a = L U, as LAPACK getrf gives it:
    lu holds U and below its diagonal the multipliers of L (whose diagonal is ones); ipiv[k] (from 1) is
    the row swapped with row k+1 at step k, the first of largest magnitude in the column; info is 0, or
    the first k with U[k-1, k-1] exactly 0 (the factorization is completed all the same)."""
    lu = np.array(a, copy=True)
    m, n = lu.shape[-2:]
    steps = min(m, n)
    batch = lu.shape[:-2]
    ipiv = np.zeros(batch + (steps,), np.int32)
    info = np.zeros(batch, np.int32)
    with np.errstate(all="ignore"):
        for k in range(steps):
            p = k + np.argmax(np.abs(lu[..., k:, k]), axis=-1)  # the first of the largest
            ipiv[..., k] = p + 1
            row_k = lu[..., k, :].copy()
            row_p = np.take_along_axis(lu, p[..., None, None], axis=-2)[..., 0, :]
            lu[..., k, :] = row_p
            np.put_along_axis(lu, p[..., None, None], row_k[..., None, :], axis=-2)
            pivot = lu[..., k, k]
            zero = pivot == 0
            info[(info == 0) & zero] = k + 1
            scale = np.where(zero, np.ones((), lu.dtype), pivot)  # a zero pivot leaves its (zero) column as it is
            lu[..., k + 1:, k] /= scale[..., None]
            lu[..., k + 1:, k + 1:] -= lu[..., k + 1:, k, None] * lu[..., k, None, k + 1:]
    return lu, ipiv, info


def _reflector(column: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LAPACK larfg for each column vector (alpha, x) of a batch: beta = -sign(alpha) |(alpha, x)|, tau =
    (beta - alpha) / beta and v = x / (alpha - beta), so that (I - tau (1, v)(1, v)^T) (alpha, x) = (beta, 0).
    A column whose x is zero is left alone: tau 0, beta alpha (sign(0) is +, as Fortran's SIGN gives it)."""
    alpha, rest = column[..., 0], column[..., 1:]
    norm = np.sqrt(np.sum(rest * rest, axis=-1))
    still = norm == 0
    beta = np.where(still, alpha, -np.copysign(np.hypot(alpha, norm), np.where(alpha == 0, 1.0, alpha)))
    safe = np.where(still, np.ones((), column.dtype), beta)
    tau = np.where(still, np.zeros((), column.dtype), (beta - alpha) / safe)
    scale = np.where(still, np.zeros((), column.dtype), 1 / np.where(still, np.ones((), column.dtype), alpha - beta))
    return beta.astype(column.dtype), tau.astype(column.dtype), (rest * scale[..., None]).astype(column.dtype)


def geqrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The QR factorization of each m x n matrix by Householder reflections, as LAPACK geqrf gives it: R on and
    above the diagonal, below it the vector v of each reflector H_i = I - tau_i (1, v)(1, v)^T (its leading 1
    implied), and tau; a = H_1 ... H_k R with k = min(m, n)."""
    out = np.array(a, copy=True)
    m, n = out.shape[-2:]
    k = min(m, n)
    tau = np.zeros(out.shape[:-2] + (k,), out.dtype)
    with np.errstate(all="ignore"):
        for i in range(k):
            beta, tau[..., i], v = _reflector(out[..., i:, i])
            out[..., i, i] = beta
            out[..., i + 1:, i] = v
            if i + 1 < n:  # the reflector applied to the columns on its right
                full = np.concatenate([np.ones(v.shape[:-1] + (1,), out.dtype), v], axis=-1)
                w = np.einsum("...r,...rc->...c", full, out[..., i:, i + 1:])
                out[..., i:, i + 1:] -= tau[..., i, None, None] * full[..., :, None] * w[..., None, :]
    return out, tau


def orgqr(a: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """The m x n matrix Q of orthonormal columns, the first n columns of H_1 ... H_k, from the reflectors
    geqrf leaves below the diagonal of a (their k = len(tau) first columns) and tau, as LAPACK orgqr gives it."""
    m, n = a.shape[-2:]
    k = tau.shape[-1]
    q = np.broadcast_to(np.eye(m, n, dtype=a.dtype), a.shape).copy()
    with np.errstate(all="ignore"):
        for i in range(k - 1, -1, -1):  # Q = H_1 (H_2 (... (H_k I)))
            full = np.concatenate([np.ones(a.shape[:-2] + (1,), a.dtype), a[..., i + 1:, i]], axis=-1)
            w = np.einsum("...r,...rc->...c", full, q[..., i:, :])
            q[..., i:, :] -= tau[..., i, None, None] * full[..., :, None] * w[..., None, :]
    return q


def _lapack_routine(dtype: np.dtype[Any], name: str) -> Callable[..., Any]:
    """SciPy's wrapper of the LAPACK routine `name` for float (s), double (d), complex64 (c) or complex128 (z)
    matrices: the routine jax
    on CPU calls (jaxlib takes its LAPACK from SciPy), so eigenvector and singular vector signs, which
    LAPACK chooses, are the ones jax gives."""
    from scipy.linalg import lapack  # imported when called: SciPy costs a tenth of a second to load

    prefix = {np.dtype(np.float32): "s", np.dtype(np.float64): "d", np.dtype(np.complex64): "c",
              np.dtype(np.complex128): "z"}[np.dtype(dtype)]
    return cast(Callable[..., Any], getattr(lapack, prefix + name))


def syevd(a: np.ndarray, *, mode: str, uplo: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The eigenvalues (ascending) and, with mode "V", the orthonormal eigenvectors (as columns) of each
    symmetric matrix, read from its `uplo` triangle alone, as LAPACK syevd gives them, and info per matrix
    (0, or i > 0 when the algorithm did not converge). With mode "N" the vectors are zeros (LAPACK leaves
    the matrix's storage destroyed)."""
    n = a.shape[-1]
    batch = a.shape[:-2]
    vectors = np.zeros(a.shape, a.dtype)
    values = np.zeros(batch + (n,), a.dtype)
    info = np.zeros(batch, np.int32)
    if n == 0:
        return vectors, values, info
    routine = _lapack_routine(a.dtype, "syevd")
    for index in np.ndindex(*batch):
        w, v, status = routine(a[index], compute_v=int(mode == "V"), lower=int(uplo == "L"))
        values[index], info[index] = w, status
        if mode == "V":
            vectors[index] = v
    return vectors, values, info


def gesdd(a: np.ndarray, *, compute_uv: bool,
          full_matrices: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The singular value decomposition a = U diag(s) Vᵀ of each m x n matrix as LAPACK gesdd gives it: s
    descending (k = min(m, n) values), U m x m and Vᵀ n x n with full_matrices, m x k and k x n without,
    and info per matrix (0; -4 for a matrix holding NaN, > 0 when it did not converge). The first output is
    a itself (LAPACK leaves its storage destroyed); U and Vᵀ are zeros without compute_uv. A matrix with no
    rows or no columns has no singular values, and U and Vᵀ are identities."""
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    u_cols, vt_rows = (m, n) if full_matrices else (k, k)
    s = np.zeros(batch + (k,), a.dtype)
    u = np.zeros(batch + (m, u_cols), a.dtype)
    vt = np.zeros(batch + (vt_rows, n), a.dtype)
    info = np.zeros(batch, np.int32)
    if k == 0:
        if compute_uv:
            u[...] = np.eye(m, u_cols, dtype=a.dtype)
            vt[...] = np.eye(vt_rows, n, dtype=a.dtype)
        return a.copy(), s, u, vt, info
    routine = _lapack_routine(a.dtype, "gesdd")
    for index in np.ndindex(*batch):
        u_one, s_one, vt_one, status = routine(a[index], compute_uv=int(compute_uv),
                                               full_matrices=int(full_matrices))
        s[index], info[index] = s_one, status
        if compute_uv and status == 0:
            u[index], vt[index] = u_one, vt_one
    return a.copy(), s, u, vt, info


_COMPLEX_OF: dict[np.dtype[Any], np.dtype[Any]] = {np.dtype(np.float32): np.dtype(np.complex64),
                                                   np.dtype(np.float64): np.dtype(np.complex128)}


def _unpacked(vectors: np.ndarray, wi: np.ndarray, dtype: np.dtype[Any]) -> np.ndarray:
    """LAPACK geev's real eigenvectors as complex columns: where wi[j] > 0, columns j and j+1 hold the real and
    imaginary parts of the vector of eigenvalue j, and the vector of j+1 (its conjugate) is their conjugate."""
    out = vectors.astype(dtype)
    j = 0
    while j < len(wi):
        if wi[j] > 0 and j + 1 < len(wi):
            pair = vectors[:, j] + 1j * vectors[:, j + 1]
            out[:, j], out[:, j + 1] = pair, np.conj(pair)
            j += 2
        else:
            j += 1
    return out


def geev(a: np.ndarray, *, compute_left: str, compute_right: str, vl_dtype: np.dtype[Any] | None = None,
         vr_dtype: np.dtype[Any] | None = None) -> tuple[np.ndarray, ...]:
    """The eigenvalues of each general square matrix, by real and imaginary parts (wr, wi; a complex pair
    adjacent, the one of positive imaginary part first), and with compute_left / compute_right "V" its left
    and right eigenvectors as complex columns (each of unit 2-norm, its largest component real), as LAPACK
    geev gives them, and info per matrix (0, or i > 0 when the QR algorithm failed). Vectors not computed
    ("N") are zeros. `vl_dtype` and `vr_dtype`, when given, must be the complex type of a's (complex64 for float)."""
    n = a.shape[-1]
    batch = a.shape[:-2]
    cdtype = _COMPLEX_OF[np.dtype(a.dtype)]
    for asked in (vl_dtype, vr_dtype):
        if asked is not None and np.dtype(asked) != cdtype:
            raise ValueError(f"LapackGeev: the eigenvectors of a {a.dtype} matrix are {cdtype}, not {np.dtype(asked)}")
    wr, wi = np.zeros(batch + (n,), a.dtype), np.zeros(batch + (n,), a.dtype)
    vl, vr = np.zeros(a.shape, cdtype), np.zeros(a.shape, cdtype)
    info = np.zeros(batch, np.int32)
    if n == 0:
        return wr, wi, vl, vr, info
    routine = _lapack_routine(a.dtype, "geev")
    flags = {"compute_vl": int(compute_left == "V"), "compute_vr": int(compute_right == "V")}
    # the workspace LAPACK asks for, as jaxlib allocates it: SciPy's smaller default takes the unblocked
    # path, whose vectors differ from jax's in the last bits
    work, _ = _lapack_routine(a.dtype, "geev_lwork")(n, **flags)
    lwork = int(np.ravel(work)[0].real)
    for index in np.ndindex(*batch):
        w_real, w_imag, left, right, status = routine(a[index], lwork=lwork, **flags)
        wr[index], wi[index], info[index] = w_real, w_imag, status
        if status == 0 and compute_left == "V":
            vl[index] = _unpacked(left, w_imag, cdtype)
        if status == 0 and compute_right == "V":
            vr[index] = _unpacked(right, w_imag, cdtype)
    return wr, wi, vl, vr, info


def _schur(a: np.ndarray, mode: str, sort: str) -> tuple[list[Any], np.ndarray, np.ndarray, np.ndarray]:
    """gees on each matrix of the batch: the results of each call, and t, z and info of the batch."""
    if sort != "N":
        raise ValueError(f"gees: sort {sort!r} is not supported (jax writes N: the eigenvalues unordered)")
    batch = a.shape[:-2]
    t, z, info = a.copy(), np.zeros(a.shape, a.dtype), np.zeros(batch, np.int32)
    calls: list[Any] = []
    if a.size == 0:  # no matrix, or empty ones: nothing to decompose (and no matrix to ask the workspace for)
        return calls, t, z, info
    routine = _lapack_routine(a.dtype, "gees")
    flags = {"compute_v": int(mode == "V"), "sort_t": 0}
    # the workspace LAPACK asks for, as jaxlib allocates it
    lwork = max(int(np.ravel(routine(_no_selection, a[(0,) * len(batch)], lwork=-1, **flags)[-2])[0].real), 1)
    for index in np.ndindex(*batch):
        result = routine(_no_selection, a[index], lwork=lwork, **flags)
        calls.append(result)
        t[index], info[index] = result[0], result[-1]
        if mode == "V":
            z[index] = result[-3]
    return calls, t, z, info


def _no_selection(*values: Any) -> int:
    """gees's eigenvalue selection, which an unsorted Schur form never calls."""
    return 0


def gees(a: np.ndarray, *, mode: str, sort: str) -> tuple[np.ndarray, ...]:
    """The real Schur form a = Z T Zᵀ of each square matrix as LAPACK gees gives it: T quasi-upper triangular
    (2 x 2 blocks on its diagonal for complex conjugate eigenvalues), Z orthogonal (with mode "V"; zeros with
    "N"), the eigenvalues' real and imaginary parts wr and wi in the order of T's diagonal, sdim 0 (nothing is
    sorted: sort "N", as jax writes it) and info per matrix (0, or i > 0 when the QR algorithm failed)."""
    calls, t, z, info = _schur(a, mode, sort)
    wr, wi = np.zeros(a.shape[:-1], a.dtype), np.zeros(a.shape[:-1], a.dtype)
    for index, result in zip(np.ndindex(*a.shape[:-2]), calls):
        wr[index], wi[index] = result[2], result[3]
    return t, z, wr, wi, np.zeros(a.shape[:-2], np.int32), info


def gees_complex(a: np.ndarray, *, mode: str, sort: str) -> tuple[np.ndarray, ...]:
    """The complex Schur form a = Z T Zᴴ of each square complex matrix as LAPACK gees gives it: T upper
    triangular with the eigenvalues w on its diagonal, Z unitary (with mode "V"; zeros with "N"), sdim 0
    (sort "N") and info per matrix."""
    calls, t, z, info = _schur(a, mode, sort)
    w = np.zeros(a.shape[:-1], a.dtype)
    for index, result in zip(np.ndindex(*a.shape[:-2]), calls):
        w[index] = result[2]
    return t, z, w, np.zeros(a.shape[:-2], np.int32), info
