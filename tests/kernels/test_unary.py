"""hlir element-wise unary operators against independent references, for every dtype their specs allow.

References: jax.lax / jax.numpy (x64, CPU) for the XLA-style operators (results computed in float64 and
rounded to the tested dtype), onnx.reference and onnxruntime for the ONNX-sourced ones (Log, Neg, Sign,
Sqrt), torch for the PyTorch-sourced ones (IsFinite, Log1p). Inputs: random values over each operator's
interesting range, for every shape of kernel_refs.SHAPES (rank 0 and empty included), and the edge
values (signed zeros, infinities, NaN, denormals, integer limits). Where the spec departs from a
reference by design, the test asserts the spec and names the note.

The generated C kernels of these operators are compared with these NumPy kernels in
test_c_elementwise.py.
"""
from __future__ import annotations

import warnings
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
import torch
from onnx import helper
from scipy import special as scipy_special

from kernel_refs import SHAPES, assert_matches, edge_values, jnp, kernel, lax, np_dtype, random_array
from onnx_refs import run_onnxruntime, run_reference
from opgen.dtypes import ELEM_TYPES
from opgen.runtime.validation import ValidationError

FLOAT3 = ("float16", "float", "double")
NUMERIC = ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float16", "float", "double")
ALL = ("bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float16", "bfloat16",
       "float", "double", "complex64", "complex128")
BF16 = np.dtype(ml_dtypes.bfloat16)


def cases(op: str, dtype: str, low: float, high: float, extra=()) -> list[np.ndarray]:
    """Random arrays of every shape over [low, high], the edge values, and any extra values."""
    rng = np.random.default_rng(sum(map(ord, op + dtype)))
    arrays = [random_array(rng, shape, dtype, low, high) for shape in SHAPES]
    arrays.append(edge_values(dtype))
    if len(extra):
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            arrays.append(np.asarray(extra, np.float64).astype(np_dtype(dtype)))
    return arrays


def check(got: np.ndarray, want, dtype: str, label: str, exact: bool = False) -> None:
    """dtype, shape, NaN positions and values (within the dtype's tolerance unless exact)."""
    want = np.asarray(want)
    assert got.dtype == np_dtype(dtype), f"{label}: dtype {got.dtype}, expected {dtype}"
    assert_matches(got, want, dtype, label, exact=exact)


def same_bits(got: np.ndarray, want: np.ndarray, label: str) -> None:
    """Bit-for-bit equality (dtype, shape and every byte)."""
    assert got.dtype == want.dtype, f"{label}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{label}: shape {got.shape} != {want.shape}"
    if got.dtype == np.bool_:
        np.testing.assert_array_equal(got, want, err_msg=label)
    else:
        np.testing.assert_array_equal(np.array(got).reshape(-1).view(np.uint8),
                                      np.array(want).reshape(-1).view(np.uint8), err_msg=label)


def same_values(got: np.ndarray, want: np.ndarray, label: str) -> None:
    """Equal values with NaN in the same places and the same sign on zeros (any NaN payload)."""
    assert got.dtype == want.dtype, f"{label}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{label}: shape {got.shape} != {want.shape}"
    if got.dtype.kind == "c":
        same_values(np.array(got.real), np.array(want.real), label + " (real)")
        same_values(np.array(got.imag), np.array(want.imag), label + " (imag)")
        return
    if got.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want, err_msg=label)
        return
    g, w = got.astype(np.float64), want.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(g), np.isnan(w), err_msg=f"{label}: NaN positions")
    np.testing.assert_array_equal(g, w, err_msg=label)
    np.testing.assert_array_equal(np.signbit(g[~np.isnan(g)]), np.signbit(w[~np.isnan(w)]),
                                  err_msg=f"{label}: signs of zeros")


def subnormal64(x64: np.ndarray) -> np.ndarray:
    return (x64 != 0) & (np.abs(x64) < np.finfo(np.float64).tiny)


def torch64(fn):
    """A torch function as a NumPy float64 -> float64 function."""
    return lambda v: fn(torch.from_numpy(np.array(v, np.float64))).numpy()


def jax64(fn, x: np.ndarray, dtype: str, fallback=None) -> np.ndarray:
    """fn evaluated by XLA in float64, rounded to `dtype`.

    XLA on CPU flushes subnormal float64 operands to zero (jnp.ceil(5e-324) = 0, lax.rsqrt(5e-324) =
    inf): elements whose value is a float64 subnormal take `fallback` (torch or scipy in float64)."""
    x64 = x.astype(np.float64)
    want = np.array(fn(jnp.asarray(x64)), np.float64)
    sub = subnormal64(x64)
    if sub.any():
        assert fallback is not None, "a subnormal float64 input needs a non-XLA reference"
        want[sub] = fallback(x64[sub])
    with np.errstate(over="ignore"):
        return want.astype(np_dtype(dtype))


# ---- floating-point functions with an XLA definition -------------------------------------------

XLA_FLOAT = {  # op: (reference, its torch twin for subnormal float64 inputs, random range)
    "Acos": (lax.acos, torch.acos, (-1.1, 1.1)),
    "Asin": (lax.asin, torch.asin, (-1.1, 1.1)),
    "Asinh": (lax.asinh, torch.asinh, (-50.0, 50.0)),
    "Atan": (lax.atan, torch.atan, (-50.0, 50.0)),
    "Atanh": (lax.atanh, torch.atanh, (-1.1, 1.1)),
    "Cos": (lax.cos, torch.cos, (-10.0, 10.0)),
    "Erf": (lax.erf, torch.erf, (-4.0, 4.0)),
    "Exp": (lax.exp, torch.exp, (-20.0, 20.0)),
    "Sin": (lax.sin, torch.sin, (-10.0, 10.0)),
    "Sinh": (lax.sinh, torch.sinh, (-12.0, 12.0)),
    "Tan": (lax.tan, torch.tan, (-3.0, 3.0)),
    "Tanh": (lax.tanh, torch.tanh, (-10.0, 10.0)),
}


@pytest.mark.parametrize("dtype", FLOAT3)
@pytest.mark.parametrize("op", sorted(XLA_FLOAT))
def test_float_functions_match_xla(op, dtype):
    reference, twin, (low, high) = XLA_FLOAT[op]
    for x in cases(op, dtype, low, high):
        (got,) = kernel(op)(x)
        check(got, jax64(reference, x, dtype, torch64(twin)), dtype, f"{op} {dtype} {x.shape}")


ROUNDING = {"Ceil": jnp.ceil, "Floor": jnp.floor,
            "Round": lambda x: lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO),
            "RoundNearestEven": lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)}
# Values where adding 0.5 before flooring rounds wrongly, and halves of both parities and signs.
HARD_HALVES = [0.49999999999999994, -0.49999999999999994, 2.0 ** 52 + 1, -(2.0 ** 52 + 1), 0.49999997,
               8388609.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, -3.5, 1e-30, -1e-30, 4503599627370495.5]


# For subnormal float64 inputs (flushed by XLA, see jax64) torch is the reference; |x| < 0.5 there, where
# both roundings of Round agree with torch.round.
TORCH_ROUNDING = {"Ceil": torch.ceil, "Floor": torch.floor, "Round": torch.round, "RoundNearestEven": torch.round}


@pytest.mark.parametrize("dtype", FLOAT3)
@pytest.mark.parametrize("op", sorted(ROUNDING))
def test_rounding_matches_xla_exactly(op, dtype):
    rng = np.random.default_rng(7)
    for x in cases(op, dtype, -10.0, 10.0, HARD_HALVES + list(rng.integers(-40, 40, 30) / 2)):
        (got,) = kernel(op)(x)
        want = jax64(ROUNDING[op], x, dtype, torch64(TORCH_ROUNDING[op]))  # exact: representable in x's type
        same_values(got, want, f"{op} {dtype} {x.tolist() if x.size < 40 else x.shape}")


@pytest.mark.parametrize("dtype", FLOAT3)
def test_round_examples_of_the_document(dtype):
    """3.105: Round(0.5) = 1; Round(1.5) = 2; Round(2.3) = 2; Round(2.5) = 3 (halves away from zero,
    note negative_halves: Round(-0.5) = -1, Round(-2.5) = -3)."""
    x = np.array([0.5, 1.5, 2.3, 2.5, -0.5, -2.5], np_dtype(dtype))
    (got,) = kernel("Round")(x)
    same_values(got, np.array([1, 2, 2, 3, -1, -3], np_dtype(dtype)), "Round examples")


@pytest.mark.parametrize("dtype", FLOAT3)
def test_round_nearest_even_examples_of_the_document(dtype):
    """3.106: RoundNearestEven(0.5) = 0; RoundNearestEven(1.5) = 2; RoundNearestEven(2.5) = 2."""
    x = np.array([0.5, 1.5, 2.5, -0.5, -2.5], np_dtype(dtype))
    (got,) = kernel("RoundNearestEven")(x)
    same_values(got, np.array([0, 2, 2, -0.0, -2], np_dtype(dtype)), "RoundNearestEven examples")


# ---- Abs, Cbrt, Expm1: numeric inputs ----------------------------------------------------------

@pytest.mark.parametrize("dtype", NUMERIC)
def test_abs_matches_xla_exactly(dtype):
    """Integers: Abs of the minimum wraps to itself, as XLA's abs (note integer_minimum)."""
    for x in cases("Abs", dtype, -100, 100):
        (got,) = kernel("Abs")(x)
        same_values(got, np.asarray(jnp.abs(jnp.asarray(x))), f"Abs {dtype} {x.shape}")  # lax.abs: no unsigned


def test_abs_of_the_integer_minimum_wraps():
    (got,) = kernel("Abs")(np.array([-128, -127, 127], np.int8))
    np.testing.assert_array_equal(got, np.array([-128, 127, 127], np.int8))


@pytest.mark.parametrize("out", FLOAT3)
@pytest.mark.parametrize("dtype", NUMERIC)
def test_cbrt_matches_xla(dtype, out):
    """Every input type with every output type; the output type is the explicit output_dtype."""
    for x in cases("Cbrt", dtype, -100, 100, [27, -8, 1e-300, 3e38]):
        (got,) = kernel("Cbrt")(x, output_dtype=out)
        check(got, jax64(lax.cbrt, x, out, scipy_special.cbrt), out, f"Cbrt {dtype}->{out} {x.shape}")


def test_cbrt_of_negative_values_is_negative():
    (got,) = kernel("Cbrt")(np.array([-27.0, -8.0, 64.0]))
    np.testing.assert_allclose(got, [-3.0, -2.0, 4.0], rtol=1e-15)


@pytest.mark.parametrize("dtype", ["uint8", "int8"])
def test_cbrt_of_integers_needs_the_output_dtype(dtype):
    with pytest.raises(ValueError, match="output_dtype is required"):
        kernel("Cbrt")(np.array([1, 8], np_dtype(dtype)))


EXPM1_INPUTS = ("uint8", "uint32", "int8", "int32", "float16", "float", "double")


@pytest.mark.parametrize("out", FLOAT3)
@pytest.mark.parametrize("dtype", EXPM1_INPUTS)
def test_expm1_matches_xla(dtype, out):
    for x in cases("Expm1", dtype, -20, 20, [1e-10, -1e-10, 1e-300, 700.0]):
        (got,) = kernel("Expm1")(x, output_dtype=out)
        check(got, jax64(lax.expm1, x, out, torch64(torch.expm1)), out, f"Expm1 {dtype}->{out} {x.shape}")


def test_expm1_is_accurate_near_zero():
    """y = exp(x) - 1 computed without cancellation: expm1(1e-10) = 1.00000000005e-10."""
    (got,) = kernel("Expm1")(np.array([1e-10, -1e-12]))
    np.testing.assert_allclose(got, [1.00000000005e-10, -9.999999999995e-13], rtol=1e-14)


# ---- ONNX-sourced: Log, Neg, Sign, Sqrt ---------------------------------------------------------

def onnx_results(op: str, x: np.ndarray, opset: int = 13) -> list[tuple[str, np.ndarray]]:
    """The node's result from onnx.reference and (when it has a kernel) onnxruntime."""
    elem = helper.np_dtype_to_tensor_dtype(x.dtype)
    node = helper.make_node(op, ["X"], ["Y"])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", elem, None)],
                              [helper.make_tensor_value_info("Y", elem, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)
    out = [("onnx.reference", np.asarray(run_reference(model, {"X": x})))]
    ort = run_onnxruntime(model, {"X": x})
    if ort is not None:
        out.append(("onnxruntime", np.asarray(ort)))
    return out


ONNX_OPS = {"Log": ((-1.0, 50.0), FLOAT3), "Sqrt": ((-1.0, 50.0), FLOAT3),
            "Neg": ((-100, 100), ("float", "int32", "int8", "int16", "int64", "float16", "double")),
            "Sign": ((-100, 100), NUMERIC)}


@pytest.mark.parametrize("op,dtype", [(op, t) for op, (_, types) in sorted(ONNX_OPS.items()) for t in types])
def test_onnx_sourced_ops_match_onnx(op, dtype):
    (low, high), _ = ONNX_OPS[op]
    runs = 0
    for x in cases(op, dtype, low, high):
        (got,) = kernel(op)(x)
        for name, want in onnx_results(op, x):
            assert want.shape == x.shape or x.ndim == 0, (name, want.shape)
            want = want.reshape(x.shape)
            nan = np.isnan(x.astype(np.float64))
            if op == "Sign" and name == "onnxruntime" and nan.any() and not np.isnan(want[nan].astype(float)).all():
                # onnxruntime's float16 Sign gives 0 for NaN; the spec gives NaN (note nan_and_zero)
                assert dtype == "float16" and (want[nan] == 0).all()
                assert np.isnan(got[nan].astype(np.float64)).all()
                want = np.where(nan, got, want)
            check(got, want, dtype, f"{op} {dtype} {x.shape} vs {name}")
            runs += 1
    assert runs >= len(SHAPES) + 1


def test_neg_of_signed_zeros_and_integer_minimum():
    """Neg(+0.0) = -0.0, Neg(-0.0) = +0.0; the integer minimum wraps (note integer_minimum)."""
    (got,) = kernel("Neg")(np.array([0.0, -0.0, np.inf], np.float32))
    same_values(got, np.array([-0.0, 0.0, -np.inf], np.float32), "Neg zeros")
    for dtype in ("int8", "int16", "int32", "int64"):
        info = np.iinfo(np_dtype(dtype))
        (got,) = kernel("Neg")(np.array([info.min, info.max, -1], np_dtype(dtype)))
        np.testing.assert_array_equal(got, np.array([info.min, info.min + 1, 1], np_dtype(dtype)))


@pytest.mark.parametrize("dtype", NUMERIC)
def test_sign_cases_of_the_document(dtype):
    """3.117: y = 1 if x > 0, -1 if x < 0, 0 if x = 0; NaN gives NaN (note nan_and_zero)."""
    values = [5, 0, 1] if ELEM_TYPES[dtype].kind == "uint" else [5, -3, 0, -1, 1]
    (got,) = kernel("Sign")(np.array(values, np_dtype(dtype)))
    np.testing.assert_array_equal(got, np.sign(np.array(values)).astype(np_dtype(dtype)))
    if ELEM_TYPES[dtype].kind == "float":
        (got,) = kernel("Sign")(np.array([-0.0, np.nan, -np.inf], np_dtype(dtype)))
        same_values(got, np.array([0.0, np.nan, -1.0], np_dtype(dtype)), "Sign of -0, NaN, -inf")


# ---- Log1p and IsFinite: PyTorch-sourced --------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOAT3)
def test_log1p_matches_torch(dtype):
    for x in cases("Log1p", dtype, -1.5, 50.0, [1e-10, -1e-10, -1.0, 1e-300]):
        (got,) = kernel("Log1p")(x)
        want = torch.log1p(torch.from_numpy(x.copy())).numpy()
        check(got, want, dtype, f"Log1p {dtype} {x.shape}")


ISFINITE_OUT = ("float16", "float", "double", "int8", "int32", "bool")


@pytest.mark.parametrize("out", ISFINITE_OUT)
@pytest.mark.parametrize("dtype", FLOAT3)
def test_isfinite_matches_torch(dtype, out):
    """true -> 1 and false -> 0 in numeric outputs (note numeric_output)."""
    for x in cases("IsFinite", dtype, -1e4, 1e4, [1e300, -1e300, 1e38, 7e4]):
        (got,) = kernel("IsFinite")(x, output_dtype=out)
        want = torch.isfinite(torch.from_numpy(x.copy())).numpy()
        assert want.dtype == np.bool_
        check(got, want.astype(np_dtype(out)), out, f"IsFinite {dtype}->{out} {x.shape}", exact=True)


def test_isfinite_looks_at_the_input_in_its_own_precision():
    """A double 1e300 is finite even when the output is float16 or float (note numeric_output)."""
    x = np.array([1e300, -1e300, np.inf, np.nan, 1.0])
    for out in ("float16", "float", "double"):
        (got,) = kernel("IsFinite")(x, output_dtype=out)
        np.testing.assert_array_equal(got, np.array([1, 1, 0, 0, 1], np_dtype(out)))
    (got,) = kernel("IsFinite")(x)  # no output_dtype: the input's type
    assert got.dtype == np.float64


# ---- Rsqrt: the document's NaN rule -------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOAT3)
def test_rsqrt_matches_xla_on_positive_inputs_and_is_nan_elsewhere(dtype):
    for x in cases("Rsqrt", dtype, -4.0, 50.0, [1e-300, 1e300, 4.0, 0.25]):
        (got,) = kernel("Rsqrt")(x)
        want = jax64(lax.rsqrt, x, dtype, torch64(torch.rsqrt))
        positive = x.astype(np.float64) > 0
        check(got[positive], want[positive], dtype, f"Rsqrt {dtype} {x.shape}")
        assert np.isnan(got[~positive].astype(np.float64)).all(), f"Rsqrt {dtype}: {got[~positive]} (note nonpositive_nan)"


@pytest.mark.parametrize("dtype", FLOAT3)
def test_rsqrt_of_zero_is_nan_unlike_xla(dtype):
    """3.107: '如果input为负数或者0, 则返回NAN' — XLA gives +-inf for +-0 (note nonpositive_nan)."""
    x = np.array([0.0, -0.0, -1.0, 4.0, np.inf], np_dtype(dtype))
    (got,) = kernel("Rsqrt")(x)
    assert np.isnan(got[:3].astype(np.float64)).all()
    np.testing.assert_array_equal(got[3:].astype(np.float64), [0.5, 0.0])
    xla = np.asarray(lax.rsqrt(jnp.asarray(x[:2].astype(np.float64))))
    np.testing.assert_array_equal(xla, [np.inf, -np.inf])  # the reference differs by design


@pytest.mark.parametrize("dtype", [t for t in NUMERIC if ELEM_TYPES[t].kind != "float"])
def test_rsqrt_of_integers_converts_the_float_result(dtype):
    """Integer Rsqrt: the float result converted toward zero with NaN -> 0 (note integer_results);
    reference: XLA's rsqrt in float64, NaN for x <= 0, converted by XLA's float -> integer conversion."""
    for x in cases("Rsqrt", dtype, -5, 50):
        (got,) = kernel("Rsqrt")(x)
        f = np.asarray(lax.rsqrt(jnp.asarray(x.astype(np.float64))))
        f = np.where(x.astype(np.float64) > 0, f, np.nan)
        want = np.asarray(lax.convert_element_type(jnp.asarray(f), np_dtype(dtype)))
        check(got, want, dtype, f"Rsqrt {dtype} {x.shape}", exact=True)
    (got,) = kernel("Rsqrt")(np.array([1, 4, 0], np_dtype(dtype)))
    np.testing.assert_array_equal(got, [1, 0, 0])


# ---- Not, PopulationCount, Copy ----------------------------------------------------------------

def test_not_matches_xla():
    for x in cases("Not", "bool", 0, 1):
        (got,) = kernel("Not")(x)
        check(got, np.asarray(lax.bitwise_not(jnp.asarray(x))), "bool", f"Not {x.shape}", exact=True)


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "uint32", "uint64"])
def test_population_count_matches_xla(dtype):
    """The output is int64 (note output_type); XLA's population_count keeps the input type."""
    info = np.iinfo(np_dtype(dtype))
    for x in cases("PopulationCount", dtype, 0, min(info.max, 2 ** 62)):  # edge values add the maximum
        (got,) = kernel("PopulationCount")(x)
        want = np.asarray(lax.population_count(jnp.asarray(x))).astype(np.int64)
        check(got, want, "int64", f"PopulationCount {dtype} {x.shape}", exact=True)
    (got,) = kernel("PopulationCount")(np.array([info.max, 0, 0b1011], np_dtype(dtype)))
    np.testing.assert_array_equal(got, [info.bits, 0, 3])


@pytest.mark.parametrize("dtype", ALL)
def test_copy_is_a_new_equal_tensor(dtype):
    """Bits kept except NaN payloads of float16/bfloat16 (note copied_bits); never the input itself."""
    for x in cases("Copy", dtype, -100, 100):
        (got,) = kernel("Copy")(x)
        want = np.asarray(jnp.array(x, copy=True))
        assert not np.shares_memory(got, x)
        if dtype in ("float16", "bfloat16"):
            same_values(got, want, f"Copy {dtype} {x.shape}")
        else:
            same_bits(got, want, f"Copy {dtype} {x.shape}")
    x = np.arange(3.0)
    (got,) = kernel("Copy")(x)
    got[0] = 7.0
    assert x[0] == 0.0


# ---- Real and Imag ------------------------------------------------------------------------------

COMPONENT = {"complex64": "float", "complex128": "double"}


@pytest.mark.parametrize("dtype", ["complex64", "complex128", "float16", "float", "double"])
def test_real_matches_jax(dtype):
    out = COMPONENT.get(dtype, dtype)
    for x in cases("Real", dtype, -10, 10):
        (got,) = kernel("Real")(x, output_dtype=out)
        same_bits(got, np.asarray(jnp.real(jnp.asarray(x))), f"Real {dtype} {x.shape}")


@pytest.mark.parametrize("dtype", ["complex64", "float16", "float", "double"])
def test_imag_matches_jax(dtype):
    """A complex64 input gives float parts (note output_shares_t); a real input gives zeros."""
    for x in cases("Imag", dtype, -10, 10):
        (got,) = kernel("Imag")(x)
        same_bits(got, np.asarray(jnp.imag(jnp.asarray(x))), f"Imag {dtype} {x.shape}")


def test_real_rejects_an_output_type_other_than_the_component_type():
    """Note output_dtype_argument: complex64 -> float only; a complex input must name it."""
    with pytest.raises(ValueError, match="float32"):
        kernel("Real")(np.array([1 + 2j], np.complex64), output_dtype="double")
    with pytest.raises(ValueError, match="output_dtype is required"):
        kernel("Real")(np.array([1 + 2j], np.complex64))
    (got,) = kernel("Real")(np.array([1.5], np.float16))
    assert got.dtype == np.float16


# ---- Convert ------------------------------------------------------------------------------------

def _exact(v) -> Fraction:
    return Fraction(int(v)) if isinstance(v, (int, np.integer)) else Fraction(float(v))


def nearest_even(x: np.ndarray, dst: str, near: np.ndarray) -> np.ndarray:
    """The correctly rounded (nearest, ties to even) float16/bfloat16 value of every element of x,
    found among the neighbours of an approximation `near`, by exact rational arithmetic."""
    dtype = np_dtype(dst)
    inf_bits = 0x7C00 if dst == "float16" else 0x7F80
    beyond_max = Fraction(2) ** (16 if dst == "float16" else 128)  # where the next finite value would be
    flat, approx = x.reshape(-1), near.reshape(-1).view(np.uint16)
    out = np.empty(flat.shape, np.uint16)
    for k, v in enumerate(flat.tolist()):
        f = float(v) if not isinstance(v, int) else None
        if f is not None and (np.isnan(f) or np.isinf(f) or f == 0):
            out[k] = np.array(f, np.float64).astype(np.float32).astype(dtype).view(np.uint16)
            continue
        target = abs(_exact(v))
        best = None
        for mag in {(int(approx[k]) & 0x7FFF) + d for d in (-1, 0, 1)}:
            if not 0 <= mag <= inf_bits:
                continue
            value = beyond_max if mag == inf_bits else _exact(np.uint16(mag).view(dtype).astype(np.float64))
            key = (abs(value - target), mag & 1)
            if best is None or key < best[0]:
                best = (key, mag)
        out[k] = best[1] | (0x8000 if _exact(v) < 0 else 0)
    return out.view(dtype).reshape(x.shape)


TORCH_DTYPES = {"bool": torch.bool, "uint8": torch.uint8, "uint16": torch.uint16, "uint32": torch.uint32,
                "uint64": torch.uint64, "int8": torch.int8, "int16": torch.int16, "int32": torch.int32,
                "int64": torch.int64, "float16": torch.float16, "bfloat16": torch.bfloat16, "float": torch.float32,
                "double": torch.float64, "complex64": torch.complex64, "complex128": torch.complex128}


def torch_convert(x: np.ndarray, dst: str) -> np.ndarray:
    t = (torch.from_numpy(np.array(x).view(np.int16)).view(torch.bfloat16) if x.dtype == BF16
         else torch.from_numpy(np.array(x)))
    out = t.to(TORCH_DTYPES[dst])
    return out.view(torch.int16).numpy().view(BF16) if dst == "bfloat16" else out.numpy()


def _tiny(dtype: np.dtype) -> float:
    if dtype.kind == "c":
        dtype = np.real(np.zeros(1, dtype)).dtype
    return float(ml_dtypes.finfo(dtype).tiny) if dtype.kind == "f" or dtype == BF16 else 0.0


def convert_reference(x: np.ndarray, dst: str) -> np.ndarray:
    """XLA's ConvertElementType, with the spec's deliberate differences applied (named per note).

    XLA on CPU flushes subnormals (a float subnormal converts to 0, and to false): elements whose
    source or result is subnormal take torch's conversion instead."""
    src = x.dtype
    want = np.array(lax.convert_element_type(jnp.asarray(x), np_dtype(dst)))
    if src.kind in "fc" or src == BF16:
        v = np.abs(np.real(x).astype(np.float64))
        tiny = (v > 0) & (v < max(_tiny(src), _tiny(np_dtype(dst))))
        if tiny.any():
            want[tiny] = torch_convert(x[tiny], dst)
    bits_src, bits_dst = src.itemsize * 8, np_dtype(dst).itemsize * 8
    if src.kind == "i" and ELEM_TYPES[dst].kind == "int" and bits_dst < bits_src:
        # note signed_narrowing_rule: XLA keeps the low bits; the spec puts the sign bit on top of them
        low = want.astype(np.int64).view(np.uint64) & np.uint64((1 << (bits_dst - 1)) - 1)
        want = (low | ((x < 0).astype(np.uint64) << np.uint64(bits_dst - 1))).astype(f"u{bits_dst // 8}").view(want.dtype)
    if dst in ("float16", "bfloat16") and (src in (np.float64, np.complex128) or (src.kind in "iu" and bits_src >= 32)):
        # note rounding_to_float: XLA rounds these through float32 (twice); the spec rounds once
        real = np.real(x) if src.kind == "c" else x
        want = nearest_even(real, dst, want)
    return want


CONVERT_EXTRA = [2.0 ** 31, 2.0 ** 31 - 1, -(2.0 ** 31), -(2.0 ** 31) - 1, 2.0 ** 63, -(2.0 ** 63), 2.0 ** 64,
                 255.9, 256.0, -0.9, -1.0, 1e10, -1e10, 65519.99, 65520.0, 3.4e38, 16842753.0,
                 1 + 2.0 ** -8 + 2.0 ** -30, 1 + 2.0 ** -11 + 2.0 ** -40, 1e-40, 1e-320]


def convert_inputs(src: str) -> list[np.ndarray]:
    arrays = cases("Convert", src, -300, 300)
    kind = ELEM_TYPES[src].kind
    if kind in ("float", "complex"):
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            arrays.append(np.array(CONVERT_EXTRA + [-v for v in CONVERT_EXTRA]).astype(np_dtype(src)))
    elif kind in ("int", "uint"):
        info = np.iinfo(np_dtype(src))
        more = [16842753, 2 ** 24 + 1, 2 ** 31 - 1, 2 ** 53 + 1, 2 ** 63 - 2 ** 39, 0x8FFFFFFF1FFFFFFF - 2 ** 64,
                385, -255, -129, 128, 65535, 65536, 2 ** 40 + 2 ** 32 + 1, 2 ** 63 + 2 ** 55 + 1]
        arrays.append(np.array([v for v in more if info.min <= v <= info.max], dtype=np_dtype(src)))
    return arrays


@pytest.mark.parametrize("dst", ALL)
@pytest.mark.parametrize("src", ALL)
def test_convert_matches_xla(src, dst):
    for x in convert_inputs(src):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # jax: "Casting complex values to real discards the imaginary part"
            want = convert_reference(x, dst)
        (got,) = kernel("Convert")(x, output_dtype=dst)
        same_values(got, want, f"Convert {src}->{dst} {x.tolist() if x.size < 40 else x.shape}")


def test_convert_int64_to_int32_keeps_the_sign_bit():
    """3.30: convert<int64_t,int32_t>(0x8FFFFFFF1FFFFFFF) = 0x9FFFFFFF (note sign_preserving_narrowing);
    XLA keeps the low bits, 0x1FFFFFFF."""
    x = np.array([0x8FFFFFFF1FFFFFFF], np.uint64).view(np.int64)
    (got,) = kernel("Convert")(x, output_dtype="int32")
    assert got.dtype == np.int32 and got.view(np.uint32)[0] == 0x9FFFFFFF
    xla = np.asarray(lax.convert_element_type(jnp.asarray(x), jnp.int32))
    assert xla.view(np.uint32)[0] == 0x1FFFFFFF


def test_convert_keeps_the_sign_bit_in_every_signed_narrowing():
    """Note signed_narrowing_rule: int32 -> int8 385 -> 1, -255 -> -127; unsigned targets wrap."""
    (got,) = kernel("Convert")(np.array([385, -255, -1, 127], np.int32), output_dtype="int8")
    np.testing.assert_array_equal(got, np.array([1, -127, -1, 127], np.int8))
    (got,) = kernel("Convert")(np.array([385, -255, -1], np.int32), output_dtype="uint8")
    np.testing.assert_array_equal(got, np.array([129, 1, 255], np.uint8))
    (got,) = kernel("Convert")(np.array([-1, 2 ** 31 - 1], np.int64), output_dtype="int16")
    np.testing.assert_array_equal(got, np.array([-1, 32767], np.int16))


def test_convert_float_to_integer_saturates():
    """Note float_to_integer: toward zero, NaN -> 0, saturation at both ends."""
    x = np.array([np.nan, np.inf, -np.inf, 1e10, -1e10, -1.9, 2.9, 127.9, -128.9, 200.0])
    (got,) = kernel("Convert")(x, output_dtype="int8")
    np.testing.assert_array_equal(got, np.array([0, 127, -128, 127, -128, -1, 2, 127, -128, 127], np.int8))
    (got,) = kernel("Convert")(x, output_dtype="uint8")
    np.testing.assert_array_equal(got, np.array([0, 255, 0, 255, 0, 0, 2, 127, 0, 200], np.uint8))
    (got,) = kernel("Convert")(np.array([2.0 ** 63, -(2.0 ** 63), 2.0 ** 64]), output_dtype="int64")
    np.testing.assert_array_equal(got, [2 ** 63 - 1, -(2 ** 63), 2 ** 63 - 1])


def test_convert_to_narrow_floats_rounds_once():
    """Note rounding_to_float: XLA rounds twice on these; the spec gives the correctly rounded value."""
    pairs = [(np.array([16842753], np.int32), "bfloat16", 16908288.0, 16777216.0),
             (np.array([1 + 2.0 ** -8 + 2.0 ** -30]), "bfloat16", 1.0078125, 1.0),
             (np.array([1 + 2.0 ** -11 + 2.0 ** -40]), "float16", 1.0009765625, 1.0)]
    for x, dst, spec, xla in pairs:
        (got,) = kernel("Convert")(x, output_dtype=dst)
        assert got.astype(np.float64)[0] == spec
        assert np.asarray(lax.convert_element_type(jnp.asarray(x), np_dtype(dst))).astype(np.float64)[0] == xla


def test_convert_complex_and_bool():
    """Note bool_and_complex."""
    c = np.array([1.5 - 2j, complex(np.nan, 1), 0j, 1j], np.complex64)
    (got,) = kernel("Convert")(c, output_dtype="bool")
    np.testing.assert_array_equal(got, [True, True, False, True])
    (got,) = kernel("Convert")(c, output_dtype="int32")
    np.testing.assert_array_equal(got, [1, 0, 0, 0])
    (got,) = kernel("Convert")(np.array([True, False]), output_dtype="complex128")
    np.testing.assert_array_equal(got, [1 + 0j, 0j])


def test_convert_without_output_dtype_copies():
    x = np.array([1.5, -2.0], np.float32)
    (got,) = kernel("Convert")(x)
    same_bits(got, x, "Convert identity")
    assert not np.shares_memory(got, x)


# ---- BitcastConvert -----------------------------------------------------------------------------

_COMPONENT_NP = {np.dtype(np.complex64): np.dtype(np.float32), np.dtype(np.complex128): np.dtype(np.float64)}


def to_bytes(x: np.ndarray) -> np.ndarray:
    """The bytes of every element, through XLA (x.shape + (itemsize,)); bool via its 0/1 conversion and
    complex via its (real, imaginary) parts (XLA bitcasts neither: note bool_and_complex)."""
    if x.dtype == np.bool_:
        return np.asarray(lax.convert_element_type(jnp.asarray(x), jnp.uint8))[..., None]
    if x.dtype.kind == "c":
        parts = np.stack([np.real(x), np.imag(x)], axis=-1).astype(_COMPONENT_NP[x.dtype])
        return to_bytes(parts).reshape(x.shape + (x.dtype.itemsize,))
    if x.dtype.itemsize == 1:
        return np.asarray(lax.bitcast_convert_type(jnp.asarray(x), jnp.uint8))[..., None]
    return np.asarray(lax.bitcast_convert_type(jnp.asarray(x), jnp.uint8))


def from_bytes(b: np.ndarray, dst: np.dtype) -> np.ndarray:
    """Elements of dst from their bytes (last axis), through XLA."""
    if dst == np.bool_:
        return b[..., 0] != 0
    if dst.kind == "c":
        part = _COMPONENT_NP[dst]
        parts = from_bytes(b.reshape(b.shape[:-1] + (2, part.itemsize)), part)
        out = np.empty(b.shape[:-1], dst)
        out.real, out.imag = parts[..., 0], parts[..., 1]
        return out
    if dst.itemsize == 1:
        return np.asarray(lax.bitcast_convert_type(jnp.asarray(b[..., 0]), dst))
    return np.asarray(lax.bitcast_convert_type(jnp.asarray(b), dst))


def bitcast_reference(x: np.ndarray, dst: np.dtype) -> np.ndarray:
    b = to_bytes(x)
    n_in, n_out = x.dtype.itemsize, dst.itemsize
    if n_in == n_out:
        return from_bytes(b, dst)
    if n_in > n_out:
        return from_bytes(b.reshape(x.shape + (n_in // n_out, n_out)), dst)
    return from_bytes(b.reshape(x.shape[:-1] + (n_out,)), dst)


def bitcast_inputs(src: str, dst: str) -> list[np.ndarray]:
    n_in, n_out = np_dtype(src).itemsize, np_dtype(dst).itemsize
    rng = np.random.default_rng(sum(map(ord, src + dst)))
    arrays = []
    for shape in SHAPES:
        shape = shape + (n_out // n_in,) if n_out > n_in else shape
        arrays.append(random_array(rng, shape, src, -300, 300))
    edges = edge_values(src)
    if n_out > n_in:
        ratio = n_out // n_in
        edges = np.resize(edges, (-(-edges.size // ratio)) * ratio).reshape(-1, ratio)
    arrays.append(edges)
    return arrays


@pytest.mark.parametrize("dst", ALL)
@pytest.mark.parametrize("src", ALL)
def test_bitcast_convert_matches_xla(src, dst):
    """Bit-exact; pieces least significant first (note piece_order)."""
    for x in bitcast_inputs(src, dst):
        (got,) = kernel("BitcastConvert")(x, output_dtype=dst)
        same_bits(got, bitcast_reference(x, np_dtype(dst)), f"BitcastConvert {src}->{dst} {x.shape}")


def test_bitcast_convert_piece_order():
    """Note piece_order: float 1.0 = 0x3F800000 -> uint8 [0, 0, 128, 63]; and back."""
    (got,) = kernel("BitcastConvert")(np.array(1.0, np.float32), output_dtype="uint8")
    np.testing.assert_array_equal(got, np.array([0, 0, 128, 63], np.uint8))
    (back,) = kernel("BitcastConvert")(got, output_dtype="float")
    assert back.shape == () and back == np.float32(1.0)


def test_bitcast_convert_bool_and_complex():
    """Note bool_and_complex: a nonzero byte reads as true; complex is its (real, imaginary) pair."""
    (got,) = kernel("BitcastConvert")(np.array([0, 1, 2, 255], np.uint8), output_dtype="bool")
    np.testing.assert_array_equal(got, [False, True, True, True])
    (got,) = kernel("BitcastConvert")(np.array([1.0 + 2.0j], np.complex64), output_dtype="float")
    np.testing.assert_array_equal(got, np.array([[1.0, 2.0]], np.float32))


def test_bitcast_convert_widening_needs_the_ratio_as_last_dimension():
    with pytest.raises(ValueError, match="last dimension"):
        kernel("BitcastConvert")(np.zeros((2, 3), np.uint8), output_dtype="uint16")
    with pytest.raises(ValueError, match="last dimension"):
        kernel("BitcastConvert")(np.zeros((), np.uint8), output_dtype="uint16")


# ---- every kernel rejects a dtype its spec does not allow ---------------------------------------

@pytest.mark.parametrize("op,dtype", [("Acos", "int32"), ("Log", "int8"), ("Neg", "uint8"), ("Not", "int8"),
                                      ("PopulationCount", "int32"), ("Imag", "complex128"), ("Sign", "bool"),
                                      ("IsFinite", "int32"), ("Expm1", "int16"), ("Round", "bfloat16")])
def test_kernels_reject_dtypes_outside_the_spec(op, dtype):
    x = np.zeros(3, np_dtype(dtype))
    kwargs = {"output_dtype": "double"} if op in ("IsFinite", "Expm1") else {}
    with pytest.raises(ValidationError):
        kernel(op)(x, **kwargs)
