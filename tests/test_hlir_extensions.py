"""The hlir extension ops: StableHLO operations that jax emits for ordinary programs and document 004
lacks (measured by lowering MLPs, their gradients, CNNs, attention, layer norm, sorts, scatters,
cumulative sums, integer arithmetic, cond/switch and loops with jax.jit(f).lower(...).as_text()).

They are marked `extension: stablehlo`, cite the StableHLO spec instead of the document, stay out of
the fidelity tests, and their kernels are compared with jax.lax (x64, CPU) on random and edge values.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import math
import warnings

import ml_dtypes
import numpy as np
import pytest

import opgen_ops
from conftest import ROOT, project_specs, write
from kernel_refs import FLOATS, edge_values, jnp, kernel, lax, np_dtype, random_array
from opgen.parse import load_specs
from opgen.testing import TOLERANCES

HLIR = project_specs().domain("hlir")
# op -> the StableHLO (or CHLO) operations it stands for
EXTENSIONS = {"Multiply": ["stablehlo.multiply"], "CountLeadingZeros": ["stablehlo.count_leading_zeros"],
              "ReducePrecision": ["stablehlo.reduce_precision"],
              "OptimizationBarrier": ["stablehlo.optimization_barrier"], "ErfInv": ["chlo.erf_inv"],
              "StablehloShiftLeft": ["stablehlo.shift_left"], "StablehloSign": ["stablehlo.sign"],
              "StablehloRsqrt": ["stablehlo.rsqrt"], "ChloTopK": ["chlo.top_k"],
              "Case": ["stablehlo.case"], "StablehloAnd": ["stablehlo.and"], "StablehloOr": ["stablehlo.or"],
              "StablehloXor": ["stablehlo.xor"], "StablehloNot": ["stablehlo.not"], "ChloSquare": ["chlo.square"],
              "ChloErfc": ["chlo.erfc"], "StablehloReduce": ["stablehlo.reduce"],
              "StablehloPopcnt": ["stablehlo.popcnt"], "ChloLgamma": ["chlo.lgamma"], "ChloDigamma": ["chlo.digamma"],
              "ChloNextAfter": ["chlo.next_after"], "ChloBesselI1e": ["chlo.bessel_i1e"], "ChloZeta": ["chlo.zeta"],
              "ChloPolygamma": ["chlo.polygamma"],
              "LapackPotrf": ["stablehlo.custom_call@lapack_spotrf_ffi", "stablehlo.custom_call@lapack_dpotrf_ffi"],
              "LapackTrsm": ["stablehlo.custom_call@lapack_strsm_ffi", "stablehlo.custom_call@lapack_dtrsm_ffi"],
              "LapackGetrf": ["stablehlo.custom_call@lapack_sgetrf_ffi", "stablehlo.custom_call@lapack_dgetrf_ffi"],
              "LapackGeqrf": ["stablehlo.custom_call@lapack_sgeqrf_ffi", "stablehlo.custom_call@lapack_dgeqrf_ffi"],
              "LapackOrgqr": ["stablehlo.custom_call@lapack_sorgqr_ffi", "stablehlo.custom_call@lapack_dorgqr_ffi"],
              "LapackSyevd": ["stablehlo.custom_call@lapack_ssyevd_ffi", "stablehlo.custom_call@lapack_dsyevd_ffi"],
              "LapackGesdd": ["stablehlo.custom_call@lapack_sgesdd_ffi", "stablehlo.custom_call@lapack_dgesdd_ffi"],
              "LapackGeev": ["stablehlo.custom_call@lapack_sgeev_ffi", "stablehlo.custom_call@lapack_dgeev_ffi"],
              "LapackGees": ["stablehlo.custom_call@lapack_sgees_ffi", "stablehlo.custom_call@lapack_dgees_ffi"],
              "LapackGeesComplex": ["stablehlo.custom_call@lapack_cgees_ffi", "stablehlo.custom_call@lapack_zgees_ffi"],
              "StablehloFft": ["stablehlo.fft"], "StablehloComplex": ["stablehlo.complex"],
              "StablehloImag": ["stablehlo.imag"], "StablehloComplexAbs": [],
              "StablehloComplexExp": [], "StablehloComplexLog": [], "StablehloComplexSqrt": [],
              "StablehloComplexDivide": [], "StablehloComplexDotGeneral": [],
              "StablehloConvertFloat8": [], "ChloCosh": ["chlo.cosh"], "ChloAcosh": ["chlo.acosh"],
              **{f"StablehloComplex{name}": [] for name in ("Tanh", "Tan", "Log1p", "Expm1", "Power", "Rsqrt",
                                                            "Sign")},
              **{f"ChloComplex{name}": [] for name in ("Square", "Sinh", "Cosh", "Asin", "Acos", "Atan", "Asinh",
                                                       "Acosh", "Atanh")}}  # []: read from ... of complex operands


def types(op: str) -> tuple[str, ...]:
    return opgen_ops.get_signature("hlir", op, 1).type_constraints["T"]


def test_extension_ops_are_marked_and_cite_the_stablehlo_spec():
    marked = {op.name for op in HLIR.ops if op.extension}
    assert set(EXTENSIONS) <= marked
    assert sum(1 for op in HLIR.ops if op.extension is None) == 141  # the transcription is unchanged
    for name in marked:
        op = HLIR.op(name)
        assert op.extension == "stablehlo"
        for source in op.sources:
            assert source.document is None and source.section
            if source.section.startswith("chlo."):  # a CHLO operation: its reference page, by the op's anchor
                assert source.url.startswith("https://openxla.org/stablehlo/generated/chlo#chlo")
            else:
                assert source.url == f"https://openxla.org/stablehlo/spec#{source.section}"


def test_the_extensions_page_lists_every_extension_op():
    for lang in ("en", "zh"):
        page = (ROOT / "generated" / "docs" / lang / "hlir" / "extensions.md").read_text(encoding="utf-8")
        for name in (op.name for op in HLIR.ops if op.extension):
            assert f"[{name}]({name}.md)" in page


DOMAIN = """\
name: demo
description: {en: Demo domain., zh: 演示域。}
opset_versions: [1]
type_groups: {}
"""
OP = """\
name: Twice
domain: demo
category: elementwise_math
{extension}sources: [{source}]
versions:
  - since_version: 1
    summary: {{en: Doubles X., zh: 加倍 X。}}
    inputs: [{{name: X, type: T, description: {{en: Input., zh: 输入。}}}}]
    outputs: [{{name: Y, type: T, description: {{en: Output., zh: 输出。}}}}]
    type_constraints: [{{name: T, types: [tensor(float)], description: {{en: Float., zh: 浮点。}}}}]
    elementwise: {{formula: X + X}}
"""


@pytest.mark.parametrize("extension,source,message", [
    ("extension: stablehlo\n", "{document: demo.txt}",
     "an extension op (stablehlo) is not in a source document; cite https://openxla.org/stablehlo/spec"),
    ("extension: stablehlo\n", "{url: 'https://example.org/spec#add', section: add}",
     "an extension op (stablehlo) cites https://openxla.org/stablehlo/spec or "
     "https://openxla.org/stablehlo/generated/chlo"),
    ("", "{url: 'https://openxla.org/stablehlo/spec#add', section: add}",
     "a source without a document is allowed only on an extension op"),
])
def test_citations_of_extension_and_transcribed_ops_do_not_mix(spec_tree, extension, source, message):
    write(spec_tree / "demo" / "domain.yaml", DOMAIN)
    write(spec_tree / "demo" / "Twice.yaml", OP.format(extension=extension, source=source))
    _, errors = load_specs(spec_tree)
    texts = [str(e) for e in errors if e.severity == "error"]
    assert any(message in t and "Twice.yaml:" in t for t in texts), texts


def _no_subnormal(x: np.ndarray) -> np.ndarray:
    """XLA on CPU flushes subnormals to zero (a mode jax sets); keep the comparison to normal values."""
    tiny = float(ml_dtypes.finfo(x.dtype).tiny)
    return np.where((np.abs(x.astype(np.float64)) < tiny) & (x != 0), np.zeros_like(x), x)


@pytest.mark.parametrize("dtype", types("Multiply"))
def test_multiply_matches_jax(dtype):
    rng = np.random.default_rng(1)
    edges = edge_values(dtype)
    if dtype in FLOATS:
        edges = _no_subnormal(edges)
    lhs, rhs = (np.concatenate([a.ravel(), b]) for a, b in
                ((random_array(rng, (40,), dtype, -100, 100), np.repeat(edges, len(edges))),
                 (random_array(rng, (40,), dtype, -100, 100), np.tile(edges, len(edges)))))
    (got,) = kernel("Multiply")(lhs, rhs)
    assert got.dtype == np_dtype(dtype)
    want = np.asarray(lax.mul(lhs, rhs))
    if dtype in FLOATS:  # jax flushes subnormal results to zero (float16, computed in float, keeps them)
        got = got if dtype == "float16" else _no_subnormal(got)
        got, want = got.astype(np.float64), want.astype(np.float64)
    else:
        assert got.dtype == np_dtype(dtype)
    if dtype.startswith("complex"):  # note complex_products: XLA may fuse a part's products (one ulp)
        ulp = float(np.finfo(got.dtype).eps)
        np.testing.assert_allclose(got, want, rtol=2 * ulp, atol=0, equal_nan=True)
        return
    np.testing.assert_array_equal(got, want)


def test_multiply_broadcasts_like_broadcast_in_dim_then_multiply():
    lhs = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    rhs = np.array([1.5, -2.0, 0.25], np.float32)
    (got,) = kernel("Multiply")(lhs, rhs, broadcast_dimensions=[1])
    np.testing.assert_array_equal(got, lax.mul(lhs, lax.broadcast_in_dim(rhs, (2, 3, 4), (1,))))


@pytest.mark.parametrize("dtype", types("CountLeadingZeros"))
def test_count_leading_zeros_matches_jax(dtype):
    rng = np.random.default_rng(2)
    info = np.iinfo(np_dtype(dtype))
    x = np.concatenate([rng.integers(info.min, info.max, 200, dtype=np_dtype(dtype), endpoint=True),
                        edge_values(dtype), (np.array([1], np_dtype(dtype)) << np.arange(info.bits - 1)
                                             .astype(np_dtype(dtype)))])
    (got,) = kernel("CountLeadingZeros")(x)
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(got, lax.clz(x))


@pytest.mark.parametrize("dtype", types("ReducePrecision"))
def test_reduce_precision_matches_jax(dtype):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(300) * 10.0 ** rng.integers(-10, 10, 300)).astype(np_dtype(dtype))
    x = np.concatenate([x, _no_subnormal(edge_values(dtype))])
    for exponent_bits, mantissa_bits in [(5, 10), (8, 7), (5, 0), (2, 2), (8, 23), (11, 52), (4, 3)]:
        (got,) = kernel("ReducePrecision")(x, exponent_bits=exponent_bits, mantissa_bits=mantissa_bits)
        want = np.asarray(lax.reduce_precision(x, exponent_bits=exponent_bits, mantissa_bits=mantissa_bits))
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(got.astype(np.float64), want.astype(np.float64),
                                      err_msg=f"{exponent_bits}, {mantissa_bits}")


def test_reduce_precision_rejects_a_format_without_exponent_bits():
    problems = opgen_ops.get_validator("hlir", "ReducePrecision", 1)(
        [("float", (3,))], {"exponent_bits": 0, "mantissa_bits": 2})
    assert any("C2" in str(p) and "exponent_bits >= 1" in str(p) for p in problems), problems


def test_optimization_barrier_returns_its_operands():
    a, b = np.arange(6.0).reshape(2, 3), np.array([1, 2], np.int32)
    got = kernel("OptimizationBarrier")(a, b)
    want = lax.optimization_barrier((jnp.asarray(a), jnp.asarray(b)))
    assert len(got) == len(want) == 2
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)
    assert got[0] is not a  # a fresh array, as every kernel returns


@pytest.mark.parametrize("dtype", types("ErfInv"))
def test_erf_inv_matches_jax_in_double(dtype):
    """Against jax.lax.erf_inv of the same values in double, rounded to the type (note precision:
    XLA's float polynomial is up to ~5e-6 off the correctly rounded value)."""
    rng = np.random.default_rng(4)
    x = np.concatenate([rng.uniform(-1, 1, 300), [-1.0, 1.0, 0.0, -0.0, 0.999, -0.9999, 1.5, -2.0, np.nan]])
    x = x.astype(np_dtype(dtype))
    (got,) = kernel("ErfInv")(x)
    want = np.asarray(lax.erf_inv(x.astype(np.float64))).astype(x.dtype)
    assert got.dtype == x.dtype
    rtol, atol = TOLERANCES[dtype]
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)


def test_extension_ops_name_their_stablehlo_ops():
    for name, stablehlo_ops in EXTENSIONS.items():
        assert list(HLIR.op(name).stablehlo) == stablehlo_ops


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint16", "uint64"])
def test_stablehlo_shift_left_matches_jax_for_signed_and_unsigned_amounts(dtype):
    """One integer type for both operands (hlir.ShiftLeft: unsigned lhs, int64 amount); amounts at,
    past and below the width, and negative values of lhs."""
    rng = np.random.default_rng(5)
    info = np.iinfo(np_dtype(dtype))
    lhs = rng.integers(info.min, info.max, 64, dtype=np_dtype(dtype), endpoint=True)
    amounts = np.concatenate([rng.integers(0, info.bits, 56), [info.bits - 1, info.bits, info.bits + 1, 0],
                              [-1, -info.bits, 2 * info.bits, 3] if info.min < 0 else [255, 1, 2, 3]])
    rhs = amounts.astype(np_dtype(dtype))
    (got,) = kernel("StablehloShiftLeft")(lhs, rhs)
    assert got.dtype == lhs.dtype
    np.testing.assert_array_equal(got, lax.shift_left(lhs, rhs))


@pytest.mark.parametrize("dtype", ["int8", "int64", "float16", "float", "double"])
def test_stablehlo_sign_keeps_the_sign_of_zero_as_jax(dtype):
    rng = np.random.default_rng(6)
    x = np.concatenate([random_array(rng, (40,), dtype, -50, 50).ravel(), edge_values(dtype)])
    if dtype in FLOATS:  # jax flushes subnormals (their sign would be 0 there)
        x = _no_subnormal(np.concatenate([x, np.array([-0.0, 0.0, np.nan, -np.inf], np_dtype(dtype))]))
    (got,) = kernel("StablehloSign")(x)
    want = np.asarray(lax.sign(x))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    if dtype in FLOATS:
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))  # -0.0 stays -0.0


@pytest.mark.parametrize("dtype", types("StablehloRsqrt"))
def test_stablehlo_rsqrt_gives_infinities_at_zeros_as_jax(dtype):
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.uniform(0.001, 1000, 60), [0.0, -0.0, -1.0, -np.inf, np.inf, np.nan, 1.0, 4.0]])
    x = x.astype(np_dtype(dtype))
    (got,) = kernel("StablehloRsqrt")(x)
    want = np.asarray(lax.rsqrt(x))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got[-8:-2], want[-8:-2])  # +inf, -inf, NaN, NaN, +0 exactly
    np.testing.assert_array_equal(np.signbit(got[-8:-2]), np.signbit(want[-8:-2]))
    rtol, atol = TOLERANCES[dtype]
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", ["double", "float16", "bfloat16", "int32", "uint8"])
def test_chlo_top_k_matches_jax_in_its_total_order(dtype):
    """Ties (lower index first), both zeros and NaNs of both signs (the total order), int32 indices."""
    rng = np.random.default_rng(9)
    x = random_array(rng, (4, 9), dtype, -5, 5)
    x[:, :3] = x[:, 3:6]  # ties
    if dtype in FLOATS:
        x[0, :4] = np.array([-0.0, 0.0, -0.0, 0.0]).astype(x.dtype)
        x[1, :4] = np.array([np.nan, -np.nan, np.inf, -np.inf]).astype(x.dtype)
    for k in (0, 3, 9):
        values, indices = kernel("ChloTopK")(x, k=k)
        want_values, want_indices = (np.asarray(a) for a in lax.top_k(x, k))
        assert values.dtype == x.dtype and indices.dtype == np.int32
        np.testing.assert_array_equal(indices, want_indices)
        np.testing.assert_array_equal(values.view(f"u{x.dtype.itemsize}"), want_values.view(f"u{x.dtype.itemsize}"))


def test_case_runs_the_branch_jax_switch_runs():
    """Case's branches as hlir graphs reading a constant (the reader's branches capture outer values
    instead: tests/test_stablehlo.py, program conditionals); index in range as jax.lax.switch."""
    c = np.array([1.5, -2.0, 0.5])
    constant = [{"name": "c", "dtype": "double", "shape": [3], "value": c.tolist()}]
    branches = [{"inputs": [], "outputs": [{"name": "r"}], "constants": constant,
                 "nodes": [{"name": "n", "op": op, "inputs": ["c"], "outputs": ["r"]}]}
                for op in ("Copy", "Neg", "Exp")]
    for index in range(3):
        (got,) = kernel("Case")(np.int32(index), branches=branches)
        np.testing.assert_array_equal(got, lax.switch(index, [lambda: c, lambda: -c, lambda: jnp.exp(c)]))
    validate = opgen_ops.get_validator("hlir", "Case", 1)
    assert validate([("int32", ())], {"branches": branches}) == []
    problems = validate([("int64", (1,))], {"branches": []})
    assert {p.where for p in problems} >= {"input 'index'", "constraint C1", "constraint C2"}, problems


# ---- decisions that widen a transcribed op where document 004 is not explicit -----------------------

@pytest.mark.parametrize("computation,padding,strides,dtype", [
    ("ADD", [(0, 0), (3, 0)], (1, 1), "double"),  # jax.numpy.cumsum along dimension 1
    ("MAX", [(1, 2), (0, 1)], (2, 1), "float"),
    ("MIN", [(2, 0), (1, 1)], (1, 2), "int32"),
])
def test_reduce_window_explicit_padding_matches_jax(computation, padding, strides, dtype):
    """ReduceWindow's optional padding (note explicit_padding), with the identity of the computation as
    initial value (XLA pads with it; hlir skips padded positions: the same result)."""
    rng = np.random.default_rng(8)
    x = random_array(rng, (5, 4), dtype, -50, 50)
    jax_op, identity = {"ADD": (lax.add, 0), "MAX": (lax.max, -np.inf), "MIN": (lax.min, np.iinfo(np.int32).max)}[
        computation]
    init = np.array(identity, np_dtype(dtype))
    window = (2, 4) if computation == "ADD" else (3, 2)
    low_then_high = [p[0] for p in padding] + [p[1] for p in padding]
    (got,) = kernel("ReduceWindow")(x, init, computation=computation, window_dimensions=list(window),
                                    window_strides=list(strides), padding=low_then_high)
    want = np.asarray(lax.reduce_window(x, init, jax_op, window, strides, padding))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12)
    attributes = {"computation": computation, "window_dimensions": list(window), "window_strides": list(strides),
                  "padding": [p[0] for p in padding] + [p[1] for p in padding]}
    validate = opgen_ops.get_validator("hlir", "ReduceWindow", 1)
    assert validate([(dtype, x.shape), (dtype, ())], attributes, outputs=[(dtype, want.shape)]) == []
    wrong = validate([(dtype, x.shape), (dtype, ())], attributes, outputs=[(dtype, (9, 9))])
    assert any("shape" in str(p) for p in wrong), wrong  # the output shape counts the padding
    problems = validate(
        [(dtype, x.shape), (dtype, ())],
        {"computation": computation, "window_dimensions": list(window), "padding": [1, 1],
         "auto_pad": "VALID"})
    assert any("C9" in str(p) for p in problems), problems


BITWISE = {"StablehloAnd": "bitwise_and", "StablehloOr": "bitwise_or", "StablehloXor": "bitwise_xor"}


def _integer_sweep(rng: np.random.Generator, dtype: str) -> np.ndarray:
    """Random values over the whole range of an integer type (both halves for booleans), and its edges."""
    if dtype == "bool":
        return np.array([True, False] * 20)
    info = np.iinfo(np_dtype(dtype))
    return np.concatenate([rng.integers(info.min, info.max, 40, dtype=np_dtype(dtype), endpoint=True),
                           edge_values(dtype)])


@pytest.mark.parametrize("op", sorted(BITWISE))
@pytest.mark.parametrize("dtype", types("StablehloAnd"))
def test_bitwise_extensions_match_jax_on_booleans_and_integers(op, dtype):
    """Every pair of values of a random and edge sweep (the seed's And, Or and Xor take booleans only)."""
    x = _integer_sweep(np.random.default_rng(6), dtype)
    lhs, rhs = np.repeat(x, len(x)), np.tile(x, len(x))
    (got,) = kernel(op)(lhs, rhs)
    want = np.asarray(getattr(lax, BITWISE[op])(lhs, rhs))
    assert got.dtype == want.dtype == lhs.dtype
    np.testing.assert_array_equal(got, want)


# one-operand bit operations -> jax's function; StablehloPopcnt counts a signed value's two's complement bits
# (NumPy's bitwise_count counts those of |x|)
BIT_UNARY = {"StablehloNot": lax.bitwise_not, "StablehloPopcnt": lax.population_count}


@pytest.mark.parametrize(("op", "dtype"), [(op, dtype) for op in sorted(BIT_UNARY) for dtype in types(op)])
def test_one_operand_bit_extensions_match_jax_on_booleans_and_integers(op, dtype):
    x = _integer_sweep(np.random.default_rng(7), dtype)
    (got,) = kernel(op)(x)
    want = np.asarray(BIT_UNARY[op](x))
    assert got.dtype == want.dtype == x.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", types("ChloSquare"))
def test_chlo_square_matches_jax(dtype):
    rng = np.random.default_rng(8)
    with np.errstate(over="ignore"):  # magnitudes beyond float16's range become infinities
        x = np.concatenate([(rng.standard_normal(300) * 10.0 ** rng.integers(-20, 20, 300)).astype(np_dtype(dtype)),
                            _no_subnormal(edge_values(dtype))])
    (got,) = kernel("ChloSquare")(x)
    want = np.asarray(lax.square(x))
    assert got.dtype == x.dtype
    # jax flushes subnormal results to zero on CPU (float16, computed in float, keeps them)
    got = got if dtype == "float16" else _no_subnormal(got)
    np.testing.assert_array_equal(got.astype(np.float64), want.astype(np.float64))


@pytest.mark.parametrize("dtype", types("ChloErfc"))
def test_chlo_erfc_matches_jax_in_double(dtype):
    """Against jax.lax.erfc of the same values in double, rounded to the type (note precision)."""
    rng = np.random.default_rng(9)
    x = np.concatenate([rng.uniform(-6, 30, 400), [0.0, -0.0, np.inf, -np.inf, np.nan, 26.5, 1e-30, -40.0]])
    x = x.astype(np_dtype(dtype))
    (got,) = kernel("ChloErfc")(x)
    want = np.asarray(lax.erfc(x.astype(np.float64))).astype(x.dtype)
    assert got.dtype == x.dtype
    rtol, atol = TOLERANCES[dtype]
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)


# log|Gamma| and its derivative -> jax's function, compared in double (their notes: XLA approximates float)
GAMMA_FUNCTIONS = {"ChloLgamma": lax.lgamma, "ChloDigamma": lax.digamma, "ChloBesselI1e": lax.bessel_i1e}


@pytest.mark.parametrize(("op", "dtype"), [(op, dtype) for op in sorted(GAMMA_FUNCTIONS) for dtype in types(op)])
def test_gamma_functions_match_jax_in_double(op, dtype):
    """Random values and the edges: the poles (0, -0.0, negative integers), just beside them, +-inf, NaN, values
    whose log-gamma overflows float16 and float, and tiny ones."""
    rng = np.random.default_rng(12)
    edges = [0.0, -0.0, -1.0, -2.0, -7.0, -1.0 + 2.0 ** -20, -3.5, np.inf, -np.inf, np.nan, 1.0, 2.0, 1e-30, 1e-300,
             0.5, 171.6, 1e30, 1e300, 1.4616321449683622]
    x = np.concatenate([rng.uniform(-10, 40, 400), edges]).astype(np_dtype(dtype))
    with np.errstate(over="ignore"):
        (got,) = kernel(op)(x)
        want = np.asarray(GAMMA_FUNCTIONS[op](x.astype(np.float64))).astype(x.dtype)
    assert got.dtype == x.dtype
    rtol, atol = TOLERANCES[dtype]
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)


def _nextafter_without_jax(a: float, b: float, dtype: np.dtype) -> float:
    """C's nextafter (Python's math.nextafter), C's nextafterf through ctypes, and for the 16-bit types the
    neighbour of a towards b in the sorted table of all their values (signed zeros told apart)."""
    if dtype == np.float64:
        return math.nextafter(a, b)
    if dtype == np.float32:
        libm = ctypes.CDLL(ctypes.util.find_library("m"))
        libm.nextafterf.restype, libm.nextafterf.argtypes = ctypes.c_float, [ctypes.c_float, ctypes.c_float]
        return float(libm.nextafterf(a, b))
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b:
        return b
    with np.errstate(invalid="ignore"):  # the NaN bit patterns
        every = np.arange(2 ** 16, dtype=np.uint16).view(dtype).astype(np.float64)
    every = np.unique(every[~np.isnan(every)])  # one zero, of either sign
    k = int(np.searchsorted(every, a))
    if a == 0:  # from a zero to the smallest subnormal of b's sign
        return math.copysign(float(every[k + 1]), b)
    step = float(every[k + 1] if b > a else every[k - 1])
    return step if step != 0 else math.copysign(0.0, a)  # a step to zero keeps a's sign


@pytest.mark.parametrize("dtype", types("ChloNextAfter"))
def test_next_after_matches_jax_exactly_in_each_type(dtype):
    """Every pair of edge values (signed zeros, infinities, NaN, the smallest normal and subnormal numbers, the
    largest) and random pairs: the same bits as jax, float16 and bfloat16 stepping in their own precision.

    Except pairs with a subnormal operand: XLA on CPU reads subnormal operands as zero (the smallest
    subnormal towards -0.0 gives -0.0, its x == y test holding). Those pairs are checked against C's
    nextafter and nextafterf, and for float16 and bfloat16 against the neighbour in the table of all values."""
    rng = np.random.default_rng(13)
    edges = edge_values(dtype)
    edges = np.append(edges, -edges[7])  # the smallest subnormal's negative too
    assert 0 < edges[7] < ml_dtypes.finfo(edges.dtype).tiny
    x = np.concatenate([np.repeat(edges, len(edges)), random_array(rng, (200,), dtype)])
    y = np.concatenate([np.tile(edges, len(edges)), random_array(rng, (200,), dtype)])
    (got,) = kernel("ChloNextAfter")(x, y)
    want = np.asarray(lax.nextafter(x, y))
    assert got.dtype == want.dtype == x.dtype
    tiny = float(ml_dtypes.finfo(x.dtype).tiny)
    subnormal = [(0 < abs(float(a)) < tiny) or (0 < abs(float(b)) < tiny) for a, b in zip(x, y)]
    for a, b, c in [(a, b, c) for a, b, c, flushed in zip(x, y, got, subnormal) if flushed]:
        step, c = _nextafter_without_jax(float(a), float(b), x.dtype), float(c)
        assert math.isnan(c) == math.isnan(step), (a, b)
        assert math.isnan(c) or (c, math.copysign(1, c)) == (step, math.copysign(1, step)), (a, b)
    kept = ~np.array(subnormal)
    got, want = got[kept], want[kept]
    nan = np.isnan(want.astype(np.float64))
    assert np.array_equal(np.isnan(got.astype(np.float64)), nan)
    bits = np.dtype(f"u{x.dtype.itemsize}")
    np.testing.assert_array_equal(got[~nan].view(bits), want[~nan].view(bits))


@pytest.mark.parametrize("computation,reducer,init", [("AND", "bitwise_and", True), ("OR", "bitwise_or", False),
                                                      ("XOR", "bitwise_xor", False), ("MAX", "max", False),
                                                      ("MIN", "min", True)])
def test_stablehlo_reduce_of_booleans_matches_jax(computation, reducer, init):
    """jnp.all and jnp.any reduce booleans with and/or (document 004's Reduce takes no bool)."""
    rng = np.random.default_rng(10)
    x = rng.random((4, 5, 6)) < 0.7
    x[1] = True
    x[2] = False  # whole slices of one value, where all() and any() decide differently
    for dims in ([0], [2], [0, 2], [0, 1, 2], []):
        (got,) = kernel("StablehloReduce")(x, np.array(init), computation=computation, dimensions=dims)
        want = np.asarray(lax.reduce(x, np.array(init), getattr(lax, reducer), tuple(dims)))
        assert got.dtype == np.bool_
        np.testing.assert_array_equal(got, want, err_msg=f"{computation} {dims}")


@pytest.mark.parametrize("computation,reducer,init", [("MAX", "max", -np.inf), ("MIN", "min", np.inf),
                                                      ("ADD", "add", 0.0)])
def test_stablehlo_reduce_of_bfloat16_matches_jax(computation, reducer, init):
    """bfloat16 max and min (a bfloat16 softmax's), NaN and signed zeros included; ADD over few elements, whose
    bfloat16 sums round alike in any order of addition."""
    rng = np.random.default_rng(11)
    x = (rng.standard_normal((6, 4)) * 8).astype(ml_dtypes.bfloat16)
    x[0, 1], x[2, 2], x[3] = np.nan, -0.0, 0.0
    x[4] = [-0.0, 0.0, -0.0, -0.0]
    if computation == "ADD":
        x = np.round(x.astype(np.float32)).astype(ml_dtypes.bfloat16)  # small integers: exact sums
    start = np.array(init, ml_dtypes.bfloat16)
    for dims in ([0], [1], [0, 1]):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a NaN is a result, not a RuntimeWarning (ml_dtypes flags it)
            (got,) = kernel("StablehloReduce")(x, start, computation=computation, dimensions=dims)
        want = np.asarray(lax.reduce(x, start, getattr(lax, reducer), tuple(dims)))
        assert got.dtype == want.dtype == x.dtype
        np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16), err_msg=f"{computation} {dims}")


# ---- Fourier transforms and complex parts, against jax

FFT_CASES = [("FFT", [8]), ("IFFT", [8]), ("FFT", [3, 8]), ("IFFT", [2, 3, 8]), ("RFFT", [8]), ("RFFT", [3, 7]),
             ("IRFFT", [8]), ("IRFFT", [3, 7]), ("IRFFT", [2, 3, 9])]


@pytest.mark.parametrize("precision", ["single", "double"])
@pytest.mark.parametrize(("fft_type", "fft_length"), FFT_CASES)
def test_stablehlo_fft_matches_jax(precision, fft_type, fft_length):
    """Each kind over one to three trailing dimensions, even and odd lengths, single and double precision; an
    IRFFT's input includes nonzero imaginary parts at the zero and Nyquist frequencies, which it ignores."""
    rng = np.random.default_rng(24)
    real, cplx = (np.float32, np.complex64) if precision == "single" else (np.float64, np.complex128)
    shape = [2] + list(fft_length)
    if fft_type == "IRFFT":
        shape[-1] = fft_length[-1] // 2 + 1
    if fft_type == "RFFT":
        x = rng.standard_normal(shape).astype(real)
    else:
        x = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(cplx)
    want = np.asarray(lax.fft(x, fft_type, tuple(fft_length)))
    (got,) = kernel("StablehloFft")(x, fft_type=fft_type, fft_length=fft_length, output_dtype=want.dtype)
    assert got.dtype == want.dtype and got.shape == want.shape
    scale = np.abs(want).max()
    tolerance = 1e-5 if precision == "single" else 1e-12
    np.testing.assert_allclose(got, want, rtol=0, atol=tolerance * scale)


@pytest.mark.parametrize("dtype", ["float", "double"])
def test_stablehlo_complex_and_imag_match_jax(dtype):
    """Parts to complex numbers and back, infinities and NaN kept in their places; imag of a real value is 0."""
    rng = np.random.default_rng(25)
    parts = np.concatenate([rng.standard_normal(20), [np.inf, -np.inf, np.nan, -0.0]]).astype(np_dtype(dtype))
    other = np.roll(parts, 3)
    want = np.asarray(lax.complex(parts, other))
    (made,) = kernel("StablehloComplex")(parts, other, output_dtype=want.dtype)
    assert made.dtype == want.dtype
    np.testing.assert_array_equal(made.view(parts.dtype), want.view(parts.dtype))
    for x in (made, parts):
        expected = np.asarray(lax.imag(x)) if x.dtype.kind == "c" else np.zeros_like(x)
        (imag,) = kernel("StablehloImag")(x, output_dtype=expected.dtype)
        assert imag.dtype == expected.dtype == parts.dtype
        np.testing.assert_array_equal(imag, expected)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_modulus_matches_jax_and_hypot(dtype):
    """Random moduli and ones beyond the square root of the largest value against jax; a part that is infinite
    beside a NaN (jax: NaN) and subnormal parts (jax on CPU reads them as zero) against math.hypot (note
    infinite_part)."""
    rng = np.random.default_rng(26)
    big = float(np.finfo(np_dtype(dtype)).max) / 4
    z = (rng.standard_normal(50) * 10.0 ** rng.integers(-5, 5, 50)
         + 1j * rng.standard_normal(50) * 10.0 ** rng.integers(-5, 5, 50))
    z = np.concatenate([z, [complex(big, big), complex(-3, 4), complex(0, -0.0), complex(np.nan, 1)]]).astype(dtype)
    want = np.asarray(lax.abs(z))
    (got,) = kernel("StablehloComplexAbs")(z, output_dtype=want.dtype)
    assert got.dtype == want.dtype == np.dtype(dtype).type(0).real.dtype
    rtol = 1e-6 if dtype == "complex64" else 1e-15
    np.testing.assert_allclose(got, want, rtol=rtol, atol=0, equal_nan=True)
    tiny = float(np.finfo(got.dtype).smallest_subnormal)
    edges = np.array([complex(np.inf, np.nan), complex(np.nan, -np.inf), complex(-np.inf, 0), complex(tiny, tiny),
                      complex(3 * tiny, 4 * tiny)], dtype)
    (got,) = kernel("StablehloComplexAbs")(edges, output_dtype=got.dtype)
    assert got.tolist() == [math.hypot(e.real, e.imag) if np.dtype(dtype) == np.complex128 else
                            float(np.float32(math.hypot(float(e.real), float(e.imag)))) for e in edges]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_exponential_matches_jax_and_cexp(dtype):
    """Random exponents against jax within a few units in the last place; the special values where XLA gives
    NaN or drops a zero's sign against cmath.exp (C99 Annex G; note annex_g), overflow included."""
    import cmath

    rng = np.random.default_rng(27)
    z = (rng.uniform(-50, 50, 300) + 1j * rng.uniform(-100, 100, 300)).astype(dtype)
    (got,) = kernel("StablehloComplexExp")(z)
    want = np.asarray(lax.exp(z))
    assert got.dtype == want.dtype == np.dtype(dtype)
    np.testing.assert_allclose(got, want, rtol=4 * float(np.finfo(got.dtype).eps), atol=0)
    edges = [complex(np.inf, 0), complex(-np.inf, 1), complex(np.nan, 0), complex(np.inf, np.nan),
             complex(-np.inf, np.nan), complex(-0.0, -0.0), complex(1, -0.0)]
    (got,) = kernel("StablehloComplexExp")(np.array(edges, dtype))
    for z_edge, value in zip(edges, got.tolist()):
        expected = np.array(cmath.exp(z_edge), dtype).item()  # rounded to the type
        for part, want_part in ((value.real, expected.real), (value.imag, expected.imag)):
            assert (math.isnan(part) and math.isnan(want_part)) or \
                (part == want_part and math.copysign(1, part) == math.copysign(1, want_part)), (z_edge, value)


def _interpreted(operation: str, operands: list[list[complex]], dtype: str) -> list[complex]:
    """`stablehlo.<operation>` of complex constants in StableHLO's reference interpreter (C++ std::complex,
    C99 Annex G), its result returned by parts: complex values cross the interpreter's Python binding neither
    way. The constants are written bit for bit (hexadecimal), so signed zeros, infinities and NaN stay."""
    import struct

    from test_stablehlo import stablehlo_interpreter

    part, fmt, width = ("f64", "<d", 16) if dtype == "complex128" else ("f32", "<f", 8)

    def bits(x: float) -> str:
        return f"0x{struct.unpack('<Q' if width == 16 else '<I', struct.pack(fmt, x))[0]:0{width}X}"

    n = len(operands[0])
    complex_type, part_type = f"tensor<{n}xcomplex<{part}>>", f"tensor<{n}x{part}>"
    lines = [f"  %c{k} = stablehlo.constant dense<[" + ", ".join(f"({bits(z.real)}, {bits(z.imag)})" for z in values)
             + f"]> : {complex_type}" for k, values in enumerate(operands)]
    args = ", ".join(f"%c{k}" for k in range(len(operands)))
    text = "\n".join([f"func.func @main() -> ({part_type}, {part_type}) {{", *lines,
                      f"  %r = stablehlo.{operation} {args} : {complex_type}",
                      f"  %re = stablehlo.real %r : ({complex_type}) -> {part_type}",
                      f"  %im = stablehlo.imag %r : ({complex_type}) -> {part_type}",
                      f"  return %re, %im : {part_type}, {part_type}", "}"])
    real, imag = stablehlo_interpreter(text, [])
    return [complex(r, i) for r, i in zip(real.tolist(), imag.tolist())]


def _same_parts(got: complex, want: complex) -> bool:
    return all((math.isnan(g) and math.isnan(w)) or (g == w and math.copysign(1, g) == math.copysign(1, w))
               for g, w in ((got.real, want.real), (got.imag, want.imag)))


_SPECIALS = [complex(np.inf, np.nan), complex(-0.0, -0.0), complex(0.0, -0.0), complex(-1, -0.0), complex(-1, 0.0),
             complex(np.inf, 0), complex(-np.inf, 1), complex(0, np.inf), complex(np.nan, 0), complex(-np.inf, -np.inf),
             complex(1e-40, 0), complex(3, -4)]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("op, operation, jax_fn", [("StablehloComplexLog", "log", lax.log),
                                                   ("StablehloComplexSqrt", "sqrt", lax.sqrt)])
def test_complex_log_and_sqrt_match_jax_and_the_reference_interpreter(dtype, op, operation, jax_fn):
    """Random values against jax within a few units in the last place (XLA computes in another order:
    absolute error on a small real part of the log); zeros' signs, infinities, NaN and a subnormal (where
    XLA on CPU reads zero; note annex_g) against StableHLO's reference interpreter, bit for bit."""
    rng = np.random.default_rng(41)
    z = (rng.uniform(-50, 50, 300) * 10.0 ** rng.uniform(-3, 3, 300) + 1j * rng.uniform(-100, 100, 300)).astype(dtype)
    (got,) = kernel(op)(z)
    want = np.asarray(jax_fn(z))
    assert got.dtype == want.dtype == np.dtype(dtype)
    eps = float(np.finfo(got.dtype).eps)
    np.testing.assert_allclose(got, want, rtol=8 * eps, atol=8 * eps)
    (got,) = kernel(op)(np.array(_SPECIALS, dtype))
    for value, z_special, expected in zip(got.tolist(), _SPECIALS, _interpreted(operation, [_SPECIALS], dtype)):
        assert _same_parts(value, expected), (z_special, value, expected)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_division_matches_jax_and_recovers_as_annex_g(dtype):
    """Random quotients against jax within a few units in the last place; infinities and zeros over and under
    each other, where NumPy's Smith division gives NaN + NaN i, against StableHLO's reference interpreter
    (C++ std::complex: C99 Annex G's recovery), signs included."""
    rng = np.random.default_rng(43)
    a = (rng.normal(size=300) * 10.0 ** rng.uniform(-3, 3, 300) + 1j * rng.normal(size=300)).astype(dtype)
    b = (rng.normal(size=300) + 1j * rng.normal(size=300) * 10.0 ** rng.uniform(-3, 3, 300)).astype(dtype)
    (got,) = kernel("StablehloComplexDivide")(a, b)
    want = np.asarray(lax.div(a, b))
    assert got.dtype == want.dtype == np.dtype(dtype)
    np.testing.assert_allclose(got, want, rtol=4 * float(np.finfo(got.dtype).eps), atol=0)
    numerators = [complex(np.inf, np.nan), complex(-0.0, -0.0), complex(1, 1), complex(-np.inf, 2), complex(3, -4),
                  complex(0, 0), complex(np.nan, 1), complex(2, -np.inf), complex(-5, 0.5)]
    divisors = [complex(1, 1), complex(np.inf, np.inf), complex(0, 0), complex(0.5, -2), complex(-np.inf, 0),
                complex(0, -0.0), complex(1, 0), complex(-0.0, 3), complex(0, np.inf)]
    (got,) = kernel("StablehloComplexDivide")(np.array(numerators, dtype), np.array(divisors, dtype))
    for value, pair, expected in zip(got.tolist(), zip(numerators, divisors),
                                     _interpreted("divide", [numerators, divisors], dtype)):
        assert _same_parts(value, expected), (pair, value, expected)


@pytest.mark.parametrize("dtype", types("ChloBesselI1e"))
def test_bessel_i1e_is_odd_down_to_the_sign_of_zero(dtype):
    (got,) = kernel("ChloBesselI1e")(np.array([-0.0, 0.0, -np.inf, np.inf], np_dtype(dtype)))
    assert np.signbit(got).tolist() == [True, False, True, False] and not got.any()


# the two-operand series, compared with jax in double over every pair of edge values and random ones
SERIES = {"ChloZeta": lax.zeta, "ChloPolygamma": lax.polygamma}
_SERIES_EDGES = [-np.inf, -3.0, -2.5, -2.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 7.0, 1e10, np.inf,
                 np.nan]


@pytest.mark.parametrize(("op", "dtype"), [(op, dtype) for op in sorted(SERIES) for dtype in types(op)])
def test_zeta_and_polygamma_match_jax_in_double_at_every_edge(op, dtype):
    """Every pair of edge values (the poles of q and of x, zeros of both signs, infinities, NaN, x = 1) and
    random pairs, against jax in double rounded to the type (their notes: XLA's rules at the edges, which
    SciPy does not share). polygamma's orders stay small (n! overflows double beyond 170)."""
    import itertools

    rng = np.random.default_rng(47)
    pairs = np.array(list(itertools.product(_SERIES_EDGES, _SERIES_EDGES)))
    if op == "ChloPolygamma":
        pairs = pairs[~(pairs[:, 0] > 100)]
        randoms = np.stack([np.round(rng.uniform(0, 6, 300)), rng.uniform(-6, 12, 300)], axis=1)
    else:
        randoms = np.stack([rng.uniform(1, 9, 300), rng.uniform(-5, 12, 300)], axis=1)
    first, second = (np.concatenate([pairs[:, k], randoms[:, k]]).astype(np_dtype(dtype)) for k in (0, 1))
    with np.errstate(all="ignore"):
        (got,) = kernel(op)(first, second)
        want = np.asarray(SERIES[op](first.astype(np.float64), second.astype(np.float64))).astype(first.dtype)
    assert got.dtype == first.dtype
    rtol, atol = TOLERANCES[dtype]
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=max(rtol, 1e-11), atol=atol,
                               equal_nan=True)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_dot_general_matches_jax_with_batching_dimensions_numbered_apart(dtype):
    """DotGeneral's kernel on complex operands (no conjugation), its batching dimensions numbered differently
    on the two sides as StableHLO allows: against jax.lax.dot_general within a few ulps of the terms' sum."""
    rng = np.random.default_rng(59)

    def complex_array(*shape: int) -> np.ndarray:
        return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)

    lhs, rhs = complex_array(3, 2, 4), complex_array(4, 5, 3)
    numbers = {"lhs_batching_dimensions": [0], "rhs_batching_dimensions": [2], "lhs_contracting_dimensions": [2],
               "rhs_contracting_dimensions": [0]}
    (got,) = kernel("StablehloComplexDotGeneral")(lhs, rhs, **numbers)
    want = np.asarray(lax.dot_general(lhs, rhs, (([2], [0]), ([0], [2])), precision=lax.Precision.HIGHEST))
    assert got.dtype == want.dtype == np.dtype(dtype) and got.shape == want.shape == (3, 2, 5)
    scale = np.abs(lhs).max() * np.abs(rhs).max() * 4
    np.testing.assert_allclose(got, want, rtol=0, atol=8 * float(np.finfo(got.dtype).eps) * scale)
    validate = opgen_ops.get_validator("hlir", "StablehloComplexDotGeneral", 1)
    assert validate([(dtype, lhs.shape), (dtype, rhs.shape)], numbers, outputs=[(dtype, (3, 2, 5))]) == []


_FLOAT8 = ["float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz"]


@pytest.mark.parametrize("float8", _FLOAT8)
def test_float8_conversions_match_jax_bit_for_bit(float8):
    """To the 8-bit float type from double, float, float16 and bfloat16 (random magnitudes over the whole range,
    the largest finite values, midpoints beyond them, subnormals, infinities, NaN, signed zeros), back again,
    and to the other 8-bit types: the bits jax's convert gives (NaN compared as NaN)."""
    rng = np.random.default_rng(61)
    base = np.concatenate([rng.normal(size=2000) * 10.0 ** rng.uniform(-12, 6, 2000),
                           [0.0, -0.0, np.inf, -np.inf, np.nan, 240, 248, 448, 449, 464, 465, 57344, 61440,
                            2.0 ** -9, 2.0 ** -10, 2.0 ** -17, -2.0 ** -16]])
    convert = kernel("StablehloConvertFloat8")
    narrow = np_dtype(float8)

    def same(got: np.ndarray, want: np.ndarray) -> bool:
        wide_got, wide_want = got.astype(np.float64), want.astype(np.float64)
        numbers = ~np.isnan(wide_want)  # a NaN's sign is not compared
        return got.dtype == want.dtype and np.array_equal(wide_got, wide_want, equal_nan=True) and \
            np.array_equal(np.signbit(wide_got[numbers]), np.signbit(wide_want[numbers]))

    for wide in ("double", "float", "float16", "bfloat16"):
        with np.errstate(over="ignore"):
            x = base.astype(np_dtype(wide))
        (got,) = convert(x, output_dtype=narrow)
        want = np.asarray(lax.convert_element_type(x, narrow))
        assert same(got, want), wide
        (back,) = convert(want, output_dtype=np_dtype(wide))
        assert same(back, np.asarray(lax.convert_element_type(want, np_dtype(wide)))), wide
    for other in _FLOAT8:
        if other != float8:
            y = np.asarray(lax.convert_element_type(base.astype(np.float32), narrow))
            (got,) = convert(y, output_dtype=np_dtype(other))
            assert same(got, np.asarray(lax.convert_element_type(y, np_dtype(other)))), other
