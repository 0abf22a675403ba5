"""hlir Dot, DotGeneral, DotGeneralBias, Gemm and Cholesky against independent implementations.

- Dot/DotGeneral/DotGeneralBias: jax.lax.dot_general with precision=HIGHEST (XLA on the CPU, x64),
  over randomised dimension numbers; float16 is computed by jax in float32 and rounded once, the
  specs' semantics.
- Gemm: onnx.reference, onnxruntime and the onnx package's node test cases.
- Cholesky: scipy.linalg.cholesky (LAPACK, reading one triangle only) and jax.lax.linalg.cholesky
  (matrices that are not positive definite).

Floating inputs are mostly small dyadic numbers (multiples of 1/4): their products and sums are
exact in every type, so the result does not depend on the summation order and the comparison is
exact; separate cases use continuous values within the tolerance table, and edge values (inf, NaN,
signed zeros, limits) with at most two products per sum, where the order cannot matter either.
"""
from __future__ import annotations


import numpy as np
import pytest
import scipy.linalg

from kernel_refs import assert_matches, edge_values, jnp, kernel, lax, np_dtype
from jax.lax import linalg as lax_linalg
from onnx_refs import node_model, run_onnxruntime, run_reference
from opgen.dtypes import ELEM_TYPES
from opgen.runtime.validation import ValidationError
from onnx_refs import node_test_cases

DOT_TYPES = ["uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float16", "float", "double"]
GEMM_TYPES = ["bfloat16", "double", "float", "float16", "int32", "int64", "uint32", "uint64"]
LOW = ("float16", "bfloat16")


def operand(rng, shape, dtype: str, kind: str = "dyadic") -> np.ndarray:
    """dyadic: multiples of 1/4 in [-2, 2] (integers: small values); wide: integers over the whole
    range of the type (sums wrap around); continuous: uniform floats."""
    shape = tuple(shape)
    np_type = np_dtype(dtype)
    if ELEM_TYPES[dtype].kind in ("int", "uint"):
        if kind == "wide":
            info = np.iinfo(np_type)
            return np.asarray(rng.integers(info.min, info.max, size=shape, dtype=np_type, endpoint=True))
        low = 0 if ELEM_TYPES[dtype].kind == "uint" else -6
        return np.asarray(rng.integers(low, 7, size=shape)).astype(np_type)
    if kind == "continuous":
        return np.asarray(rng.uniform(-2, 2, size=shape)).astype(np_type)
    return np.asarray(rng.integers(-8, 9, size=shape) / 4).astype(np_type)


def xla_edge_values(dtype: str) -> np.ndarray:
    """edge_values without the smallest normals and the subnormals: XLA's CPU code flushes subnormal
    inputs and results to zero, the kernels keep IEEE's gradual underflow (see the denormal test)."""
    edges = edge_values(dtype)
    if ELEM_TYPES[dtype].kind != "float":
        return edges
    import ml_dtypes

    tiny = float(ml_dtypes.finfo(np_dtype(dtype)).tiny)
    magnitude = np.abs(edges.astype(np.float64))
    return edges[~((magnitude > 0) & (magnitude <= tiny))]


def with_edges(rng, array: np.ndarray, dtype: str) -> np.ndarray:
    if array.size:
        flat = array.reshape(-1)
        picks = rng.random(flat.size) < 0.5
        flat[picks] = rng.choice(xla_edge_values(dtype), size=int(picks.sum()))
    return array


def work_dtype(dtype: str):
    return np.float32 if dtype in LOW else np_dtype(dtype)


def jax_dot_general(a, b, lhs_batch, rhs_batch, lhs_contract, rhs_contract, dtype: str) -> np.ndarray:
    """XLA DotGeneral at the highest precision, in float32 for float16 (unrounded: callers round)."""
    work = work_dtype(dtype)
    out = lax.dot_general(jnp.asarray(a.astype(work)), jnp.asarray(b.astype(work)),
                          ((tuple(lhs_contract), tuple(rhs_contract)), (tuple(lhs_batch), tuple(rhs_batch))),
                          precision=lax.Precision.HIGHEST)
    return np.asarray(out)


def check(got: np.ndarray, want: np.ndarray, dtype: str, exact: bool, label: str) -> None:
    assert got.dtype == np_dtype(dtype), f"{label}: dtype {got.dtype}"
    with np.errstate(over="ignore"):  # float16 results past the largest value round to inf
        want = want.astype(np_dtype(dtype))
    assert_matches(got, want, dtype, label, exact=exact)


# ---- Dot -----------------------------------------------------------------------------------------

DOT_SHAPES = [((5,), (5,)), ((3, 5), (5,)), ((5,), (5, 4)), ((3, 5), (5, 4)), ((0,), (0,)), ((3, 0), (0, 4)),
              ((0, 5), (5, 2)), ((3, 5), (5, 0)), ((1, 1), (1,))]


@pytest.mark.parametrize("dtype", DOT_TYPES)
def test_dot_matches_xla(dtype):
    rng = np.random.default_rng(sum(map(ord, "dot" + dtype)))
    dot = kernel("Dot")
    kinds = ["dyadic", "wide"] if ELEM_TYPES[dtype].kind in ("int", "uint") else ["dyadic"]
    kinds += ["continuous"] if dtype == "double" else []
    for kind in kinds:
        for lhs_shape, rhs_shape in DOT_SHAPES:
            a, b = operand(rng, lhs_shape, dtype, kind), operand(rng, rhs_shape, dtype, kind)
            (got,) = dot(a, b)
            want = jax_dot_general(a, b, [], [], [a.ndim - 1], [0], dtype)
            check(got, want, dtype, exact=kind != "continuous", label=f"{kind} {lhs_shape} x {rhs_shape}")


@pytest.mark.parametrize("dtype", ["float16", "float", "double"])
def test_dot_edge_values(dtype):
    """inf, NaN, signed zeros, denormals and the limits, two products per sum: IEEE results (0 * inf is
    NaN, inf - inf is NaN, overflow to inf, float16 overflowing only when rounded from float32)."""
    rng = np.random.default_rng(sum(map(ord, "dot-edges" + dtype)))
    for _ in range(20):
        a = with_edges(rng, operand(rng, (6, 2), dtype), dtype)
        b = with_edges(rng, operand(rng, (2, 7), dtype), dtype)
        (got,) = kernel("Dot")(a, b)
        check(got, jax_dot_general(a, b, [], [], [1], [0], dtype), dtype, exact=True, label="edges")


@pytest.mark.parametrize("dtype", ["float16", "float", "double"])
def test_dot_keeps_subnormals(dtype):
    """IEEE gradual underflow: subnormal operands and results are not flushed to zero (XLA's CPU code
    flushes them, so jax is no reference here; the values are exact powers of two)."""
    import ml_dtypes

    info = ml_dtypes.finfo(np_dtype(dtype))
    tiny, subnormal = float(info.tiny), float(info.smallest_subnormal)
    a = np.array([[subnormal, 0.0], [tiny, tiny]], np_dtype(dtype))
    b = np.array([[4.0], [0.25]], np_dtype(dtype))
    (got,) = kernel("Dot")(a, b)
    np.testing.assert_array_equal(got, np.array([[4 * subnormal], [4.25 * tiny]]).astype(np_dtype(dtype)))
    assert got[0, 0] > 0 and got[1, 0] > 4 * tiny


def test_dot_integer_wraps_around():
    a = np.array([[100, 100]], np.int8)
    b = np.array([[2], [1]], np.int8)
    (got,) = kernel("Dot")(a, b)
    np.testing.assert_array_equal(got, [[44]])  # 300 mod 256
    (got,) = kernel("Dot")(np.array([2**63 - 1, 2], np.uint64), np.array([2, 1], np.uint64))
    assert got.shape == () and got == 0  # 2^64 - 2 + 2 mod 2^64


def test_dot_rejects_rank_three():
    with pytest.raises(ValidationError, match="C1"):
        kernel("Dot")(np.zeros((2, 2, 2), np.float32), np.zeros((2,), np.float32))


# ---- DotGeneral ----------------------------------------------------------------------------------


def random_dot_general_case(rng):
    """Random batch/contracting/free counts and positions; batch numbers equal on both sides (C3)."""
    n_batch, n_contract = int(rng.integers(0, 3)), int(rng.integers(0, 3))
    n_lhs_free, n_rhs_free = int(rng.integers(0, 3)), int(rng.integers(0, 3))
    lhs_rank, rhs_rank = n_batch + n_contract + n_lhs_free, n_batch + n_contract + n_rhs_free
    batch = [int(d) for d in rng.permutation(min(lhs_rank, rhs_rank))[:n_batch]]
    lhs_contract = [int(d) for d in rng.permutation([d for d in range(lhs_rank) if d not in batch])[:n_contract]]
    rhs_contract = [int(d) for d in rng.permutation([d for d in range(rhs_rank) if d not in batch])[:n_contract]]
    zero = rng.random() < 0.15

    def size():
        return int(rng.integers(0 if zero and rng.random() < 0.3 else 1, 4))

    lhs_shape, rhs_shape = [size() for _ in range(lhs_rank)], [size() for _ in range(rhs_rank)]
    for d in batch:
        rhs_shape[d] = lhs_shape[d]
    for dl, dr in zip(lhs_contract, rhs_contract):
        rhs_shape[dr] = lhs_shape[dl]
    attrs = dict(lhs_batching_dimensions=batch, rhs_batching_dimensions=list(batch),
                 lhs_contracting_dimensions=lhs_contract, rhs_contracting_dimensions=rhs_contract)
    return tuple(lhs_shape), tuple(rhs_shape), attrs


def jax_for(a, b, attrs, dtype):
    return jax_dot_general(a, b, attrs["lhs_batching_dimensions"], attrs["rhs_batching_dimensions"],
                           attrs["lhs_contracting_dimensions"], attrs["rhs_contracting_dimensions"], dtype)


@pytest.mark.parametrize("dtype", DOT_TYPES)
def test_dot_general_matches_xla_over_random_dimension_numbers(dtype):
    rng = np.random.default_rng(sum(map(ord, "dot_general" + dtype)))
    dot_general = kernel("DotGeneral")
    integer = ELEM_TYPES[dtype].kind in ("int", "uint")
    # each case compiles a jax computation: the variety of dimension numbers is met in full by a float, an
    # integer and the double (continuous operands) type; the other types take a shorter run of the same draw
    for case in range(30 if dtype in ("float", "int32", "double") else 12):
        lhs_shape, rhs_shape, attrs = random_dot_general_case(rng)
        kind = "wide" if integer and case % 2 else ("continuous" if dtype == "double" and case % 2 else "dyadic")
        a, b = operand(rng, lhs_shape, dtype, kind), operand(rng, rhs_shape, dtype, kind)
        (got,) = dot_general(a, b, **attrs)
        check(got, jax_for(a, b, attrs, dtype), dtype, exact=kind != "continuous",
              label=f"case {case}: {lhs_shape} x {rhs_shape} {attrs}")


def test_dot_general_document_example():
    """[b0, m, k] dot [b0, k, n] => [b0, m, n] with LBD = RBD = 0, LCD = 2, RCD = 1."""
    rng = np.random.default_rng(1)
    a, b = operand(rng, (2, 3, 4), "float"), operand(rng, (2, 4, 5), "float")
    (got,) = kernel("DotGeneral")(a, b, lhs_batching_dimensions=[0], rhs_batching_dimensions=[0],
                                  lhs_contracting_dimensions=[2], rhs_contracting_dimensions=[1])
    np.testing.assert_array_equal(got, np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(np.float32))


def test_dot_general_requires_equal_batch_numbers():
    """C3: the document requires the same batch dimension numbers on both sides."""
    a, b = np.zeros((2, 3, 4), np.float32), np.zeros((3, 2, 4), np.float32)
    with pytest.raises(ValidationError, match="C3"):
        kernel("DotGeneral")(a, b, lhs_batching_dimensions=[0], rhs_batching_dimensions=[1],
                             lhs_contracting_dimensions=[2], rhs_contracting_dimensions=[2])


# ---- DotGeneralBias ------------------------------------------------------------------------------


def bias_values(rng, length: int, bias_dtype: str, kind: str) -> np.ndarray:
    if ELEM_TYPES[bias_dtype].kind == "float":  # fractions, truncated toward zero for integer outputs
        return (rng.integers(-10, 11, size=length) / 4).astype(np_dtype(bias_dtype))
    return operand(rng, (length,), bias_dtype, kind)


@pytest.mark.parametrize("dtype", DOT_TYPES)
def test_dot_general_bias_matches_xla(dtype):
    """jax: DotGeneral in the computation type plus the bias converted to it (convert_element_type:
    toward zero for integers), rounded once."""
    rng = np.random.default_rng(sum(map(ord, "dot_general_bias" + dtype)))
    integer = ELEM_TYPES[dtype].kind in ("int", "uint")
    for case in range(len(DOT_TYPES)):  # every bias dtype once (each case compiles a jax computation)
        lhs_shape, rhs_shape, attrs = random_dot_general_case(rng)
        bias_dtype = DOT_TYPES[case]
        kind = "wide" if integer and case % 2 else "dyadic"
        a, b = operand(rng, lhs_shape, dtype, kind), operand(rng, rhs_shape, dtype, kind)
        product = jax_for(a, b, attrs, dtype)
        # integer biases over their whole range, except where Convert narrows a signed type with its
        # own rule (the sign bit kept; Convert's tests cover it), which jax's modular conversion is not
        signed_narrowing = ELEM_TYPES[bias_dtype].kind == ELEM_TYPES[dtype].kind == "int" and \
            np_dtype(bias_dtype).itemsize > np_dtype(dtype).itemsize
        wide_bias = ELEM_TYPES[bias_dtype].kind != "float" and case % 3 == 0 and not signed_narrowing
        bias = bias_values(rng, product.shape[-1] if product.ndim else 1, bias_dtype,
                           "wide" if wide_bias else "dyadic")
        want = np.asarray(jnp.asarray(product) + lax.convert_element_type(jnp.asarray(bias), work_dtype(dtype))
                          .reshape(bias.shape if product.ndim else ()))
        (got,) = kernel("DotGeneralBias")(a, b, bias, **attrs)
        check(got, want, dtype, exact=True, label=f"case {case}: {lhs_shape} x {rhs_shape} bias {bias_dtype} {attrs}")


def test_dot_general_bias_converts_a_floating_bias_like_convert():
    """An integer output takes a floating bias toward zero, saturated, NaN as 0 (Convert's rules)."""
    a, b = np.zeros((1, 2), np.int32), np.zeros((2, 6), np.int32)
    bias = np.array([np.nan, np.inf, -np.inf, 2.75, -2.75, 1e10], np.float64)
    (got,) = kernel("DotGeneralBias")(a, b, bias, lhs_batching_dimensions=[], rhs_batching_dimensions=[],
                                      lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0])
    np.testing.assert_array_equal(got, [[0, 2**31 - 1, -2**31, 2, -2, 2**31 - 1]])


def test_dot_general_bias_float16_rounds_once():
    """float16: the product and the bias are added in float32 and rounded once."""
    a = np.array([[1.0, 2.0**-11]], np.float16)  # 1 + 2^-11 is a tie in float16, rounded to even: 1
    b = np.array([[1.0], [1.0]], np.float16)
    (got,) = kernel("DotGeneralBias")(a, b, np.array([2.0**-11], np.float32), lhs_batching_dimensions=[],
                                      rhs_batching_dimensions=[], lhs_contracting_dimensions=[1],
                                      rhs_contracting_dimensions=[0])
    assert got[0, 0] == np.float16(1.0 + 2.0**-10)  # rounding the product first would give 1


def test_dot_general_bias_length_must_match_the_feature_dimension():
    a, b = np.zeros((2, 3), np.float32), np.zeros((3, 4), np.float32)
    dims = dict(lhs_batching_dimensions=[], rhs_batching_dimensions=[], lhs_contracting_dimensions=[1],
                rhs_contracting_dimensions=[0])
    with pytest.raises(ValueError, match="bias"):
        kernel("DotGeneralBias")(a, b, np.zeros(3, np.float32), **dims)
    with pytest.raises(ValidationError, match="C7"):
        kernel("DotGeneralBias")(a, b, np.zeros((1, 4), np.float32), **dims)


# ---- Gemm ----------------------------------------------------------------------------------------

C_SHAPES = [None, (), (1,), "N", ("M", 1), (1, "N"), ("M", "N"), (1, 1)]


def random_gemm_case(rng, dtype: str, case: int):
    m, k, n = (int(v) for v in rng.integers(1, 5, size=3))
    if case % 9 == 8:
        m, k, n = [(0, 3, 2), (2, 0, 3), (3, 2, 0)][case % 3]
    trans_a, trans_b = int(rng.integers(0, 2)), int(rng.integers(0, 2))
    a = operand(rng, (k, m) if trans_a else (m, k), dtype)
    b = operand(rng, (n, k) if trans_b else (k, n), dtype)
    c_shape = C_SHAPES[case % len(C_SHAPES)]
    c = None
    if c_shape is not None:
        c_shape = c_shape if isinstance(c_shape, tuple) else (c_shape,)
        c = operand(rng, tuple({"M": m, "N": n}.get(s, s) for s in c_shape), dtype)
    # unsigned results stay in range (onnx.reference's cast of a negative float to an unsigned type is
    # undefined; the kernel saturates, see test_gemm_integer_alpha_beta_truncate_toward_zero)
    unsigned = ELEM_TYPES[dtype].kind == "uint"
    attrs = dict(alpha=float(rng.choice([1.0, 0.5, 2.0, 0.0] + ([] if unsigned else [-1.25]))),
                 beta=float(rng.choice([1.0, 0.75, 0.0] + ([] if unsigned else [-2.0]))), transA=trans_a, transB=trans_b)
    return a, b, c, attrs


def onnx_gemm(a, b, c, attrs, dtype: str, runtime: str):
    names = ["A", "B"] + (["C"] if c is not None else [])
    model = node_model("Gemm", 13, dtype, names, attrs)
    feeds = dict(zip(names, [a, b] + ([c] if c is not None else [])))
    return run_reference(model, feeds) if runtime == "reference" else run_onnxruntime(model, feeds)


@pytest.mark.parametrize("dtype", GEMM_TYPES)
def test_gemm_matches_onnx_reference(dtype):
    rng = np.random.default_rng(sum(map(ord, "gemm" + dtype)))
    gemm = kernel("Gemm")
    for case in range(45):
        a, b, c, attrs = random_gemm_case(rng, dtype, case)
        (got,) = gemm(a, b, c, **attrs) if c is not None else gemm(a, b, **attrs)
        want = onnx_gemm(a, b, c, attrs, dtype, "reference")
        label = f"case {case}: A {a.shape} B {b.shape} C {None if c is None else c.shape} {attrs}"
        check(got, np.asarray(want), dtype, exact=True, label=label)


@pytest.mark.parametrize("dtype", ["float", "double", "float16"])
def test_gemm_matches_onnxruntime(dtype):
    rng = np.random.default_rng(sum(map(ord, "gemm-ort" + dtype)))
    gemm = kernel("Gemm")
    for case in range(30):
        a, b, c, attrs = random_gemm_case(rng, dtype, case)
        (got,) = gemm(a, b, c, **attrs)
        want = onnx_gemm(a, b, c, attrs, dtype, "onnxruntime")
        assert want is not None, f"onnxruntime has Gemm for {dtype}"
        check(got, want, dtype, exact=True, label=f"case {case}: {attrs}")


def test_gemm_integer_alpha_beta_truncate_toward_zero():
    """Integers: alpha * A'B' + beta * C in float64, toward zero (onnx.reference), saturating."""
    a, b = np.array([[3, 1], [2, 5]], np.int32), np.array([[1, 1], [1, 3]], np.int32)
    c = np.array([1, -3], np.int32)
    (got,) = kernel("Gemm")(a, b, c, alpha=0.5, beta=1.5)
    np.testing.assert_array_equal(got, [[3, -1], [5, 4]])  # 2+1.5, 3-4.5, 3.5+1.5, 8.5-4.5
    (got,) = kernel("Gemm")(np.array([[2**30]], np.int32), np.array([[4]], np.int32), alpha=0.25)
    np.testing.assert_array_equal(got, [[0]])  # the product wraps to 0 in int32 before alpha
    (got,) = kernel("Gemm")(np.array([[2**20]], np.int32), np.array([[1]], np.int32), alpha=4096.0)
    np.testing.assert_array_equal(got, [[2**31 - 1]])  # 2^32 saturates
    (got,) = kernel("Gemm")(np.array([[3]], np.uint32), np.array([[5]], np.uint32), alpha=-1.0)
    np.testing.assert_array_equal(got, [[0]])  # -15 saturates at the unsigned minimum


def test_gemm_beta_zero_ignores_c():
    a, b = np.eye(2, dtype=np.float32), np.ones((2, 2), np.float32)
    c = np.array([[np.nan, np.inf], [-np.inf, 1.0]], np.float32)
    (got,) = kernel("Gemm")(a, b, c, beta=0.0)
    np.testing.assert_array_equal(got, np.ones((2, 2)))
    np.testing.assert_array_equal(onnx_gemm(a, b, c, dict(beta=0.0), "float", "reference"), got)
    (got,) = kernel("Gemm")(np.array([[np.inf]], np.float32), np.array([[1.0]], np.float32), alpha=0.0)
    assert np.isnan(got[0, 0])  # alpha = 0 has no exception: 0 * inf


def test_gemm_onnx_node_test_cases():
    import onnx

    cases = [c for c in node_test_cases() if c.model.graph.node[0].op_type == "Gemm" and c.data_sets]
    assert len(cases) >= 10
    gemm = kernel("Gemm")
    for case in cases:
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in case.model.graph.node[0].attribute}
        inputs, (want,) = case.data_sets[0]
        (got,) = gemm(*inputs, **attrs)
        check(got, want, "float", exact=False, label=case.name)


# ---- Cholesky ------------------------------------------------------------------------------------


def exact_factor(rng, n: int) -> np.ndarray:
    """A lower-triangular factor with small integer entries and powers of two on the diagonal: every
    step of the factorization of L L^T is exact in every floating type."""
    low = np.tril(rng.integers(-3, 4, size=(n, n)), -1).astype(np.float64)
    return low + np.diag(rng.choice([1.0, 2.0, 4.0], size=n))


def with_garbage(matrix: np.ndarray, lower: bool, rng) -> np.ndarray:
    """The triangle Cholesky does not read filled with other values."""
    garbage = rng.integers(-50, 50, size=matrix.shape).astype(matrix.dtype)
    keep = np.tril(np.ones(matrix.shape[-2:], bool)) if lower else np.triu(np.ones(matrix.shape[-2:], bool))
    return np.where(keep, matrix, garbage)


def scipy_cholesky(a: np.ndarray, lower: bool) -> np.ndarray:
    n = a.shape[-1]
    out = np.zeros(a.shape, np.float64)
    for index in np.ndindex(a.shape[:-2]):
        if n:
            out[index] = scipy.linalg.cholesky(a[index].astype(np.float64), lower=lower)
    return out


@pytest.mark.parametrize("dtype", ["float16", "float", "double"])
@pytest.mark.parametrize("lower", [True, False])
def test_cholesky_matches_scipy_on_exact_factors(dtype, lower):
    rng = np.random.default_rng(sum(map(ord, f"cholesky{dtype}{lower}")))
    for batch in [(), (3,), (2, 2), (0,), (1, 0)]:
        for n in [0, 1, 2, 3, 5]:
            factors = np.zeros(batch + (n, n))
            for index in np.ndindex(batch):
                factors[index] = exact_factor(rng, n)
            a = factors @ np.swapaxes(factors, -1, -2)
            x = with_garbage(a, lower, rng).astype(np_dtype(dtype))
            (got,) = kernel("Cholesky")(x, lower=lower)
            want = scipy_cholesky(x, lower)
            np.testing.assert_array_equal(want, factors if lower else np.swapaxes(factors, -1, -2))
            check(got, want, dtype, exact=True, label=f"{batch} n={n}")


@pytest.mark.parametrize("dtype", ["float16", "float", "double"])
@pytest.mark.parametrize("lower", [True, False])
def test_cholesky_matches_scipy_on_random_matrices(dtype, lower):
    """Well-conditioned random matrices (B B^T + n I); the reference in float64, rounded to the type."""
    rng = np.random.default_rng(sum(map(ord, f"cholesky-random{dtype}{lower}")))
    for n in [1, 2, 3, 4]:
        b = rng.uniform(-1, 1, size=(3, n, n))
        a = b @ np.swapaxes(b, -1, -2) + n * np.eye(n)
        x = with_garbage(a, lower, rng).astype(np_dtype(dtype))
        (got,) = kernel("Cholesky")(x, lower=lower)
        check(got, scipy_cholesky(x, lower), dtype, exact=False, label=f"n={n}")


@pytest.mark.parametrize("lower", [True, False])
def test_cholesky_not_positive_definite_gives_nan_like_jax(lower):
    """Each matrix on its own: a pivot <= 0 fills its result triangle with NaN, a NaN input propagates
    from its row on, as jax.lax.linalg.cholesky does; the upper factor of a is the transposed lower
    factor of a^T."""
    matrices = np.array([
        [[4.0, 2.0, 0.0], [2.0, 5.0, 1.0], [0.0, 1.0, 3.0]],   # positive definite
        [[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]],   # indefinite (second pivot -3)
        [[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]],   # singular (second pivot 0)
        [[-1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],  # first pivot negative
        [[1.0, 0.0, 0.0], [0.0, np.nan, 0.0], [0.0, 0.0, 1.0]],  # NaN pivot: rows 1 and 2 NaN
        [[4.0, 2.0, np.nan], [2.0, 5.0, 1.0], [np.nan, 1.0, 3.0]],  # NaN off the diagonal: row 2 NaN
        [[9.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 0.0]],   # last pivot 0
    ])
    for dtype in ["float", "double"]:
        x = matrices.astype(np_dtype(dtype))
        (got,) = kernel("Cholesky")(x, lower=lower)
        source = x if lower else np.swapaxes(x, -1, -2)
        want = np.asarray(lax_linalg.cholesky(jnp.asarray(source), symmetrize_input=False))
        want = want if lower else np.swapaxes(want, -1, -2)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        # failures: the whole triangle (6 elements); NaN inputs: from their row on (3 elements)
        assert np.isnan(got).sum(axis=(-1, -2)).tolist() == [0, 6, 6, 6, 3, 3, 6]
        assert_matches(got, want, dtype, f"{dtype} lower={lower}")


def test_cholesky_rejects_non_square():
    with pytest.raises(ValidationError, match="C2"):
        kernel("Cholesky")(np.zeros((2, 3), np.float32), lower=True)

