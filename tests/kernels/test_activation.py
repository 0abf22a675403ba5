"""hlir activations against independent references.

- PyTorch-defined (CPU, float64): Gelu (both forms), Softplus, Silu, Sigmoid, Relu, Relu6, Glu, and GeGlu as
  torch.chunk + gelu; Gtu as the paper's tanh(a) * sigmoid(b) composed in torch.
- ONNX-defined (onnx.reference, onnxruntime where it has a kernel): Elu, HardSigmoid, HardSwish, LeakyRelu,
  Mish, PRelu, Softmax/LogSoftmax, Dropout (same seed, same mask).
- Swish against jax.nn.swish; Softmax's modes the ONNX op lacks (accurate=false, epsilon) against a jax
  composition of the text's definition, in the kernel's compute precision.

Floating references run in float64 on the same input values and are rounded once to the tested dtype.
Behaviour the spec decides (notes) is asserted explicitly and names its note; `spec_note` fails if the note
disappears from the spec.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from c_harness import OPGEN_OK, call_c
from conftest import project_specs
from kernel_refs import SHAPES, assert_matches, edge_values, jax, jnp, kernel, random_array
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator
from onnx_refs import node_model, run_onnxruntime, run_reference
from opgen.dtypes import ELEM_TYPES
from opgen.runtime.validation import ValidationError

HLIR = project_specs().domain("hlir")
FLOAT3 = ("float16", "float", "double")
NP = {name: ELEM_TYPES[name].numpy for name in ELEM_TYPES}


def spec_note(op: str, note_id: str):
    """The note the behaviour under test is decided by (the test fails if the spec drops it)."""
    notes = {n.id: n for n in HLIR.op(op).all_notes()}
    assert note_id in notes, f"hlir.{op} has no note {note_id!r}"
    return notes[note_id]


def float_inputs(seed: str, dtype: str, shapes=SHAPES, low=-4.0, high=4.0) -> list[np.ndarray]:
    """Random arrays of every shape (rank 0 and empty included) plus one array of the edge values."""
    rng = np.random.default_rng(sum(map(ord, seed + dtype)))
    arrays = [random_array(rng, shape, dtype, low, high) for shape in shapes]
    return arrays + [edge_values(dtype)]


def torch64(fn, x: np.ndarray, *args, **kwargs) -> np.ndarray:
    return fn(torch.from_numpy(np.asarray(x, np.float64)), *args, **kwargs).numpy()


def onnx64(op: str, opset: int, x: np.ndarray, attrs: dict | None = None) -> np.ndarray:
    return run_reference(node_model(op, opset, "double", ["X"], attrs or {}), {"X": np.asarray(x, np.float64)})


def check(got: tuple, want64: np.ndarray, dtype: str, label: str) -> None:
    (y,) = got
    assert y.dtype == NP[dtype], f"{label}: dtype {y.dtype}"
    with np.errstate(all="ignore"):
        want = np.asarray(want64).astype(NP[dtype])
    assert_matches(y, want, dtype, label)


# ---- element-wise, float-only ---------------------------------------------------------------------

def _gelu(approximate):
    return lambda x, **_: torch64(F.gelu, x, approximate="tanh" if approximate else "none")


def f32(value: float) -> float:
    """ONNX stores float attributes as float32; hlir's are double. Values given to both are float32-exact."""
    return float(np.float32(value))


# op -> list of (attributes, reference on float64 values)
FLOAT_UNARY = {
    "Elu": [({"alpha": f32(a)}, lambda x, alpha: onnx64("Elu", 22, x, {"alpha": alpha})) for a in (1.0, 0.3, 2.5)],
    "Gelu": [({"approximate": False}, _gelu(False)), ({"approximate": True}, _gelu(True))],
    "HardSigmoid": [({"slope": f32(s), "offset": f32(o)}, lambda x, slope, offset: onnx64(
        "HardSigmoid", 22, x, {"alpha": slope, "beta": offset})) for s, o in ((0.2, 0.5), (1 / 6, 0.5), (-0.7, 0.1))],
    # PyTorch's x * relu6(x + 3) / 6 (its documented value x for x >= 3 where x + 3 overflows in double): ONNX's
    # HardSwish body holds alpha as float32(1/6), 1e-8 off in double (note HardSwish.alpha_division);
    # onnx.reference / onnxruntime are compared in float32 below.
    "HardSwish": [({}, lambda x: np.where(x >= 3, x, torch64(F.hardswish, x)))],
    "LeakyRelu": [({"alpha": f32(a)}, lambda x, alpha: onnx64("LeakyRelu", 16, x, {"alpha": alpha}))
                  for a in (0.01, 0.5, -1.5)],
    "Mish": [({}, lambda x: onnx64("Mish", 22, x)), ({}, lambda x: torch64(F.mish, x))],
    "Sigmoid": [({}, lambda x: torch64(torch.sigmoid, x))],
    "Silu": [({}, lambda x: torch64(F.silu, x))],
    "Swish": [({}, lambda x: np.asarray(jax.nn.swish(jnp.asarray(x, jnp.float64))))],
    "Softplus": [({}, lambda x: torch64(F.softplus, x))] + [
        ({"beta": b, "threshold": t}, lambda x, beta, threshold: torch64(F.softplus, x, beta, threshold))
        for b, t in ((2.0, 5.0), (0.5, 1.0), (-1.0, 20.0), (3.0, -2.0))],
}
FLOAT_CASES = [pytest.param(op, k, dtype, id=f"{op}-{k}-{dtype}")
               for op, variants in FLOAT_UNARY.items() for k in range(len(variants)) for dtype in FLOAT3]


@pytest.mark.parametrize("op,variant,dtype", FLOAT_CASES)
def test_float_activation_matches_reference(op, variant, dtype):
    attrs, reference = FLOAT_UNARY[op][variant]
    for x in float_inputs(op, dtype, low=-8.0, high=8.0):
        check(kernel(op)(x, **attrs), reference(x, **attrs), dtype, f"{op} {attrs} {dtype} {x.shape}")


def test_onnxruntime_agrees_on_float():
    """onnxruntime (float32 kernels) as a second ONNX reference for the ONNX-defined ones."""
    x = float_inputs("ort", "float")[-2]
    for op, opset, onnx_attrs, attrs in [
        ("Elu", 22, {"alpha": 0.3}, {"alpha": 0.3}),
        ("HardSigmoid", 22, {"alpha": 0.25, "beta": 0.4}, {"slope": 0.25, "offset": 0.4}),
        ("HardSwish", 22, {}, {}), ("LeakyRelu", 16, {"alpha": 0.1}, {"alpha": 0.1}), ("Mish", 22, {}, {}),
        ("Sigmoid", 13, {}, {}),
    ]:
        want = run_onnxruntime(node_model(op, opset, "float", ["X"], onnx_attrs), {"X": x})
        assert want is not None, f"onnxruntime has no float {op}"
        check(kernel(op)(x, **attrs), want, "float", f"{op} vs onnxruntime")


@pytest.mark.parametrize("op", ["Gelu", "HardSwish", "Mish", "Silu", "Swish"])
def test_negative_infinity_gives_nan(op):
    spec_note(op, "negative_infinity")
    attrs = {"approximate": False} if op == "Gelu" else {}
    for dtype in FLOAT3:
        x = np.array([-np.inf, np.inf, -1e4 if dtype != "float16" else -6e4], NP[dtype])
        (y,) = kernel(op)(x, **attrs)
        assert np.isnan(y[0]), f"{op}({dtype}) at -inf: {y[0]}"
        assert y[1] == np.inf and y[2] == 0, f"{op}({dtype}): {y}"
    if op == "Gelu":
        (y,) = kernel(op)(np.array([-np.inf], np.float32), approximate=True)
        assert np.isnan(y[0])


def test_gelu_has_no_cancellation():
    """note Gelu.evaluation: the erfc / sigmoid forms keep relative accuracy for negative x, where
    1 + erf(x) and 1 + tanh(u) cancel (PyTorch's float32 result is off by a large relative error).
    Reference: mpmath at 50 digits."""
    import mpmath

    spec_note("Gelu", "evaluation")
    mpmath.mp.dps = 50
    x = np.array([-5.0, -6.0, -7.5, -3.0], np.float32)
    for approximate in (False, True):
        (y,) = kernel("Gelu")(x, approximate=approximate)
        (y64,) = kernel("Gelu")(x.astype(np.float64), approximate=approximate)
        if approximate:
            exact = [v * (1 + mpmath.tanh(mpmath.sqrt(2 / mpmath.pi) * (v + mpmath.mpf("0.044715") * v**3))) / 2
                     for v in map(mpmath.mpf, x.tolist())]
        else:
            exact = [v * mpmath.erfc(-v / mpmath.sqrt(2)) / 2 for v in map(mpmath.mpf, x.tolist())]
        want = np.array([float(e) for e in exact])
        # float32: exp(-2u) amplifies u's rounding by |2u| (~42 at x = -7.5), hence 1e-5, not 1 ulp
        np.testing.assert_allclose(y.astype(np.float64), want, rtol=1e-5, atol=0)
        np.testing.assert_allclose(y64, want, rtol=1e-14, atol=0)
        naive = F.gelu(torch.from_numpy(x), approximate="tanh" if approximate else "none").numpy()
        assert np.max(np.abs(naive / want - 1)) > 1e-3  # the naive float32 evaluation really does cancel


def test_hardswish_and_hardsigmoid_pieces():
    """The seed's formulas, piece by piece: HardSwish with alpha = 1/6, beta = 0.5."""
    spec_note("HardSwish", "alpha_division")
    x = np.array([-3.0, -1.5, 0.0, 1.5, 3.0, 6.0, np.nan], np.float64)
    (y,) = kernel("HardSwish")(x)
    np.testing.assert_array_equal(y, [0.0, -0.375, 0.0, 1.125, 3.0, 6.0, np.nan])
    # note HardSwish.onnx_alpha_float32: exactly 1/6 in double, where ONNX's body uses float32(1/6)
    spec_note("HardSwish", "onnx_alpha_float32")
    x2 = np.array([1.0, -2.0, 2.5], np.float64)
    (y2,) = kernel("HardSwish")(x2)
    np.testing.assert_allclose(y2, x2 * (x2 + 3) / 6, rtol=1e-15)
    assert np.max(np.abs(onnx64("HardSwish", 22, x2) / y2 - 1)) > 1e-9
    (y,) = kernel("HardSigmoid")(x, slope=0.5, offset=-0.25)
    np.testing.assert_array_equal(y, [0.0, 0.0, 0.0, 0.5, 1.0, 1.0, np.nan])


def test_softplus_pytorch_threshold():
    """note Softplus.pytorch_evaluation / threshold_default: x where beta * x > threshold (default 20)."""
    spec_note("Softplus", "pytorch_evaluation")
    spec_note("Softplus", "threshold_default")
    x = np.array([20.0, 20.5, 10.0, 10.5, -np.inf, np.inf, np.nan], np.float64)
    (y,) = kernel("Softplus")(x)
    assert y[1] == 20.5 and y[0] == np.log1p(np.exp(20.0)) and y[0] != 20.0
    (y,) = kernel("Softplus")(x, beta=2.0)
    assert y[3] == 10.5 and y[2] == np.log1p(np.exp(20.0)) / 2
    np.testing.assert_array_equal(y[4:], [0.0, np.inf, np.nan])
    (y,) = kernel("Softplus")(x, beta=1.0, threshold=15.0)
    assert y[2] == np.log1p(np.exp(10.0)) and y[3] == np.log1p(np.exp(10.5))


def test_elu_formula_edges():
    spec_note("Elu", "expm1")
    x = np.array([-1e-10, -0.0, 0.0, -np.inf, np.nan, 3.0], np.float32)
    (y,) = kernel("Elu")(x, alpha=2.0)
    assert y[0] == np.float32(-2e-10)  # expm1: exp(x) - 1 in float32 would give 0
    assert np.signbit(y[1]) and not np.signbit(y[2])
    np.testing.assert_array_equal(y[3:], [-2.0, np.nan, 3.0])


def test_elu_requires_alpha():
    spec_note("Elu", "alpha_no_default")
    with pytest.raises(TypeError):
        kernel("Elu")(np.zeros(2, np.float32))


# ---- Relu / Relu6 (signed integers and floats) ----------------------------------------------------

RELU_TYPES = ("int8", "int16", "int32", "int64", "float16", "float", "double")


@pytest.mark.parametrize("dtype", RELU_TYPES)
@pytest.mark.parametrize("op", ["Relu", "Relu6"])
def test_relu_matches_torch(op, dtype):
    ref = torch.relu if op == "Relu" else (lambda t: torch.clamp(t, 0, 6))
    rng = np.random.default_rng(7)
    inputs = [random_array(rng, s, dtype, -10, 10) for s in SHAPES] + [edge_values(dtype)]
    for x in inputs:
        (y,) = kernel(op)(x)
        if ELEM_TYPES[dtype].kind == "int":
            want = ref(torch.from_numpy(x)).numpy()
            assert y.dtype == x.dtype
            np.testing.assert_array_equal(y, want, err_msg=f"{op} {dtype}")
        else:
            check((y,), torch64(ref, x), dtype, f"{op} {dtype}")


@pytest.mark.parametrize("op", ["Relu", "Relu6"])
def test_relu_nan_and_signed_zero(op):
    spec_note(op, "nan_and_signed_zero")
    for dtype in ("float16", "float", "double"):
        (y,) = kernel(op)(np.array([np.nan, -0.0, 0.0, -3.0, 7.0], NP[dtype]))
        assert np.isnan(y[0]) and np.signbit(y[1]) and y[1] == 0 and not np.signbit(y[2])
        assert y[3] == 0 and not np.signbit(y[3]) and y[4] == (7 if op == "Relu" else 6)


def test_relu_rejects_unsigned():
    for op in ("Relu", "Relu6"):
        with pytest.raises(ValidationError):
            kernel(op)(np.zeros(3, np.uint8))


# ---- LeakyRelu on floats, bit for bit ----------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOAT3)
def test_leaky_relu_float_bits_match_torch(dtype):
    """LeakyRelu's formula where(x < 0, alpha * x, x), which the kernel computes as max(x, alpha * x) (min
    for alpha > 1) when alpha is positive and finite in the compute type, else as written: every bit of
    torch's leaky_relu (x > 0 ? x : x * slope, slope in the tensor's type; float16 in float32 like the
    kernel), zeros' signs included, over edge values (+-0, +-inf, NaN, subnormals, +-max) and random data.
    For negative slopes the two conventions differ at zero (torch: +0 * slope = -0.0; the formula keeps x),
    so those compare away from zero; NaN positions compare as NaN."""
    rng = np.random.default_rng(5)
    work = np.float32 if dtype == "float16" else NP[dtype]
    x = np.concatenate([edge_values(dtype), random_array(rng, (3000,), dtype, -8.0, 8.0)])
    for alpha in (0.01, 0.5, 1.0, 2.5, 1e-30, 1e30, 0.0, -1.5):
        (y,) = kernel("LeakyRelu")(x, alpha=alpha)
        with torch.no_grad():
            want = F.leaky_relu(torch.from_numpy(x.astype(work)), alpha).numpy()
        with np.errstate(over="ignore"):  # float16: products beyond its range round to inf
            want = want.astype(NP[dtype])
        compared = (x != 0) if alpha <= 0 else np.ones(x.shape, bool)
        nan = np.isnan(want)
        assert np.array_equal(np.isnan(y), nan), f"alpha={alpha} {dtype}"
        keep = compared & ~nan
        assert y[keep].tobytes() == want[keep].tobytes(), f"alpha={alpha} {dtype}"


# ---- LeakyRelu on integers -------------------------------------------------------------------------

INT_TYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


@pytest.mark.parametrize("dtype", INT_TYPES)
def test_leaky_relu_integers(dtype):
    """note LeakyRelu.integer_inputs: alpha * x in double (onnx.reference LeakyRelu on the values), toward
    zero; unsigned inputs are returned unchanged."""
    spec_note("LeakyRelu", "integer_inputs")
    rng = np.random.default_rng(3)
    inputs = [random_array(rng, s, dtype, -100, 100) for s in SHAPES] + [edge_values(dtype)]
    for alpha in map(f32, (0.01, 0.5, 0.9)):
        for x in inputs:
            (y,) = kernel("LeakyRelu")(x, alpha=alpha)
            assert y.dtype == x.dtype
            scaled = np.trunc(onnx64("LeakyRelu", 16, x, {"alpha": alpha}))
            want = np.where(x < 0, scaled, 0).astype(x.dtype)  # in range: |alpha| < 1
            want = np.where(x < 0, want, x)  # x >= 0 exactly, without a trip through double
            np.testing.assert_array_equal(y, want, err_msg=f"alpha={alpha} {dtype} {x.shape}")


def test_leaky_relu_integer_saturation_and_truncation():
    spec_note("LeakyRelu", "integer_inputs")
    x = np.array([-100, -7, -3, -1, 0, 5, 127, -128], np.int8)
    (y,) = kernel("LeakyRelu")(x, alpha=2.5)
    np.testing.assert_array_equal(y, [-128, -17, -7, -2, 0, 5, 127, -128])
    (y,) = kernel("LeakyRelu")(x, alpha=-3.0)
    np.testing.assert_array_equal(y, [127, 21, 9, 3, 0, 5, 127, 127])
    (y,) = kernel("LeakyRelu")(x, alpha=0.5)
    np.testing.assert_array_equal(y, [-50, -3, -1, 0, 0, 5, 127, -64])  # -3.5 -> -3: toward zero
    (y,) = kernel("LeakyRelu")(x, alpha=float("nan"))
    np.testing.assert_array_equal(y, [0, 0, 0, 0, 0, 5, 127, 0])
    big = np.array([np.iinfo(np.int64).min, -(2**62), 2**62], np.int64)
    (y,) = kernel("LeakyRelu")(big, alpha=4.0)
    np.testing.assert_array_equal(y, [np.iinfo(np.int64).min, np.iinfo(np.int64).min, 2**62])
    (y,) = kernel("LeakyRelu")(np.array([0, 7, 2**64 - 1], np.uint64), alpha=-2.0)
    np.testing.assert_array_equal(y, [0, 7, 2**64 - 1])


def test_leaky_relu_c_kernels_are_floating_only():
    """note LeakyRelu.integer_c_kernels: no integer C kernel, rather than one with alpha cut to an integer."""
    from opgen.render.c_code import kernel_views

    spec_note("LeakyRelu", "integer_c_kernels")
    elems = {view["elem"] for view in kernel_views(HLIR.op("LeakyRelu").versions[0])}
    assert elems == {"float16", "float", "double"}


# ---- PRelu -------------------------------------------------------------------------------------------

PRELU_TYPES = ("float16", "float", "double", "uint32", "uint64", "int32", "int64")


@pytest.mark.parametrize("dtype", PRELU_TYPES)
def test_prelu_matches_onnx(dtype):
    rng = np.random.default_rng(11)
    pairs = [(random_array(rng, xs, dtype, -50, 50), random_array(rng, ss, dtype, -3, 3))
             for xs, ss in [((2, 3, 4), (2, 3, 4)), ((2, 3, 4), (4,)), ((2, 3, 4), (3, 1)), ((2, 3, 4), ()),
                            ((), ()), ((0, 3), (3,)), ((5,), (1,))]]
    edges = edge_values(dtype)  # against random slopes, then against each other
    pairs += [(edges, random_array(rng, edges.shape, dtype, -3, 3)), (edges, np.roll(edges, 3))]
    for x, slope in pairs:
        label = f"PRelu {dtype} {x.shape} {slope.shape}"
        (y,) = kernel("PRelu")(x, slope)
        if ELEM_TYPES[dtype].kind == "float":
            want = run_reference(node_model("PRelu", 16, "double", ["X", "slope"], {}),
                                 {"X": x.astype(np.float64), "slope": slope.astype(np.float64)})
            check((y,), want, dtype, label)
        else:
            with np.errstate(all="ignore"):
                want = run_reference(node_model("PRelu", 16, dtype, ["X", "slope"], {}), {"X": x, "slope": slope})
            assert y.dtype == x.dtype
            np.testing.assert_array_equal(y, want, err_msg=label)


def test_prelu_integer_wraps_and_zero_sign():
    spec_note("PRelu", "integer_overflow")
    x = np.array([np.iinfo(np.int32).min, -3, 4], np.int32)
    (y,) = kernel("PRelu")(x, np.array([-1], np.int32))
    np.testing.assert_array_equal(y, [np.iinfo(np.int32).min, 3, 4])
    (y,) = kernel("PRelu")(np.array([-0.0, np.nan, -2.0], np.float32), np.array(0.5, np.float32))
    assert np.signbit(y[0]) and np.isnan(y[1]) and y[2] == -1.0


def test_prelu_slope_must_broadcast_to_input():
    with pytest.raises(ValidationError):
        kernel("PRelu")(np.zeros((2, 3), np.float32), np.zeros((2, 3, 1), np.float32))
    with pytest.raises(ValidationError):
        kernel("PRelu")(np.zeros((2, 3), np.float32), np.zeros((2,), np.float32))


# ---- generated C for attribute values the generic C test does not try -------------------------------

C_ATTRIBUTES = [
    ("Gelu", {"approximate": False}), ("Gelu", {"approximate": True}),
    ("Softplus", {"beta": 2.0, "threshold": 5.0}), ("Softplus", {"beta": -0.5, "threshold": 1.0}),
    ("Elu", {"alpha": 1.7}), ("HardSigmoid", {"slope": -0.3, "offset": 0.6}), ("LeakyRelu", {"alpha": -0.2}),
]


@pytest.mark.parametrize("op,attrs", C_ATTRIBUTES, ids=[f"{o}-{a}" for o, a in C_ATTRIBUTES])
def test_c_kernel_matches_numpy_for_attributes(c_library, op, attrs):
    v = HLIR.op(op).versions[0]
    for dtype in FLOAT3:
        for x in float_inputs("c" + op, dtype, shapes=[(2, 3, 4), (), (0, 3)], low=-10, high=10):
            (want,) = kernel(op)(x, **attrs)
            status, got = call_c(c_library, v, dtype, [x], attrs, want.shape)
            assert status == OPGEN_OK
            assert_matches(got, want, dtype, f"C {op} {attrs} {dtype} {x.shape}")


# ---- gated units: Glu, GeGlu, Gtu ---------------------------------------------------------------------

GATED_SHAPES = [((2, 4), [0, 1, -1, -2]), ((3, 6, 2), [1, -2, 2, -1]), ((8,), [0, -1]), ((0, 4), [1, 0]),
                ((4, 0, 2), [0, 2]), ((16,), [0])]


def _gated_reference(op: str, x: np.ndarray, dim: int, **attrs) -> np.ndarray:
    t = torch.from_numpy(np.asarray(x, np.float64))
    if op == "Glu":
        return F.glu(t, dim).numpy()
    a, b = torch.chunk(t, 2, dim)  # the paper's / the seed's a (first half) and b (second half)
    if op == "GeGlu":
        return (a * F.gelu(b, approximate="tanh" if attrs["approximate"] else "none")).numpy()
    return (torch.tanh(a) * torch.sigmoid(b)).numpy()


GATED = [("Glu", {}), ("GeGlu", {"approximate": False}), ("GeGlu", {"approximate": True}), ("Gtu", {})]


@pytest.mark.parametrize("dtype", FLOAT3)
@pytest.mark.parametrize("op,attrs", GATED, ids=[f"{o}-{a}" for o, a in GATED])
def test_gated_units_match_torch(op, attrs, dtype):
    rng = np.random.default_rng(sum(map(ord, op + dtype)))
    for shape, dims in GATED_SHAPES:
        x = random_array(rng, shape, dtype, -6, 6)
        if shape == (16,):
            x = edge_values(dtype)  # the edges meet each other as a and b
        for dim in dims:
            (y,) = kernel(op)(x, dim=dim, **attrs)
            want = _gated_reference(op, x, dim, **attrs)
            assert y.shape == want.shape
            check((y,), want, dtype, f"{op} {attrs} {dtype} {shape} dim={dim}")


@pytest.mark.parametrize("op,attrs", GATED, ids=[f"{o}-{a}" for o, a in GATED])
def test_gated_units_halves_and_constraints(op, attrs):
    spec_note(op, "evaluation")
    x = np.array([[1.0, 2.0, 0.0, 100.0]], np.float64)
    (y,) = kernel(op)(x, dim=1, **attrs)
    a = np.array([1.0, 2.0])  # the first half; the second, [0, 100], gates it
    if op == "Glu":
        want = a * np.array([0.5, 1.0])
    elif op == "GeGlu":
        want = a * np.array([0.0, 100.0])
    else:
        want = np.tanh(a) * np.array([0.5, 1.0])
    np.testing.assert_allclose(y[0], want, rtol=1e-15)
    with pytest.raises(ValidationError, match="C2"):
        kernel(op)(np.zeros((2, 3), np.float32), dim=1, **attrs)
    with pytest.raises(ValidationError, match="C1"):
        kernel(op)(np.zeros((2, 4), np.float32), dim=2, **attrs)
    with pytest.raises(ValidationError):
        kernel(op)(np.float32(1.0), dim=0, **attrs)  # rank 0: there is no dimension to split
    with pytest.raises(ValidationError):
        kernel(op)(np.zeros((2, 4), np.int32), dim=1, **attrs)


def test_gated_units_round_float16_once():
    """float16 is computed in float32 and rounded once: equal to the float32 result rounded."""
    x = float_inputs("f16", "float16", shapes=[(64, 8)])[0]
    for op, attrs in GATED:
        (y16,) = kernel(op)(x, dim=1, **attrs)
        (y32,) = kernel(op)(x.astype(np.float32), dim=1, **attrs)
        np.testing.assert_array_equal(y16, y32.astype(np.float16))


# ---- Softmax ---------------------------------------------------------------------------------------

SOFTMAX_SHAPES = [(7,), (2, 3), (2, 3, 4), (0,), (0, 3), (3, 0), (16,), (4, 4)]


def _softmax_inputs(dtype: str):
    rng = np.random.default_rng(sum(map(ord, "softmax" + dtype)))
    for shape in SOFTMAX_SHAPES:
        x = random_array(rng, shape, dtype, -6, 6)
        if shape == (16,):
            x = edge_values(dtype)
        if shape == (4, 4):  # one row of edge values per row, the rest random
            x = x.copy()
            x.reshape(-1)[::5] = edge_values(dtype)[[2, 4, 8, 9]]
        for axis in range(-x.ndim, x.ndim):
            yield x, axis


@pytest.mark.parametrize("dtype", FLOAT3)
def test_softmax_accurate_matches_onnx(dtype):
    for x, axis in _softmax_inputs(dtype):
        got = kernel("Softmax")(x, axis=axis, accurate=True)
        check(got, onnx64("Softmax", 13, x, {"axis": axis}), dtype, f"Softmax {dtype} {x.shape} axis={axis}")


@pytest.mark.parametrize("dtype", FLOAT3)
def test_log_softmax_matches_torch(dtype):
    """logarithmic=true (accurate) against torch.log_softmax, and onnxruntime's LogSoftmax where it has one."""
    for x, axis in _softmax_inputs(dtype):
        got = kernel("Softmax")(x, axis=axis, accurate=True, logarithmic=True)
        check(got, torch64(torch.log_softmax, x, axis), dtype, f"LogSoftmax {dtype} {x.shape} axis={axis}")
        if dtype != "float16" and x.size and np.isfinite(x).all():
            want = run_onnxruntime(node_model("LogSoftmax", 13, dtype, ["X"], {"axis": axis}), {"X": x})
            assert want is not None
            check(got, want, dtype, f"LogSoftmax vs onnxruntime {dtype} {x.shape} axis={axis}")


@pytest.mark.parametrize("dtype", FLOAT3)
def test_softmax_modes_match_definition(dtype):
    """accurate=false and epsilon exist only in the text: against a jax composition of the text's steps
    in the kernel's compute precision (float16 computes in float32)."""
    jdt = jnp.float64 if dtype == "double" else jnp.float32

    def reference(x, axis, accurate, logarithmic, epsilon):
        c = jnp.asarray(x.astype(np.float64), jdt)
        e = jnp.exp(c - jnp.max(c, axis=axis, keepdims=True)) if accurate else jnp.exp(c)
        d = jnp.maximum(jnp.sum(e, axis=axis, keepdims=True), jnp.asarray(epsilon, jdt))
        return np.asarray(jnp.log(e / d) if logarithmic else e / d, np.float64)

    for x, axis in _softmax_inputs(dtype):
        if not x.size or not np.isfinite(x).all():
            continue
        for accurate in (False, True):
            for epsilon in (0.0, 1e-3, 3.0):
                for logarithmic in (False, True):
                    attrs = dict(axis=axis, accurate=accurate, logarithmic=logarithmic, epsilon=epsilon)
                    got = kernel("Softmax")(x, **attrs)
                    check(got, reference(x, **attrs), dtype, f"Softmax {dtype} {x.shape} {attrs}")


def test_softmax_without_accurate_overflows():
    """note Softmax.accurate_false: without the max subtraction exp(x) overflows (float16 in float32)."""
    spec_note("Softmax", "accurate_false")
    for dtype, big in (("float", 100.0), ("float16", 100.0), ("double", 800.0)):
        x = np.array([big, 0.0], NP[dtype])
        (y,) = kernel("Softmax")(x, accurate=False)
        assert np.isnan(y[0]) and y[1] == 0, f"{dtype}: {y}"
        (y,) = kernel("Softmax")(x, accurate=True)
        assert y[0] == 1 and y[1] == np.exp(np.float64(-big)).astype(NP[dtype]), f"{dtype}: {y}"
        (y,) = kernel("Softmax")(x)  # accurate defaults to false
        assert np.isnan(y[0])
    (y,) = kernel("Softmax")(np.array([50.0, 0.0], np.float32), accurate=False)  # no overflow: same value
    np.testing.assert_allclose(y, [1.0, np.exp(-50.0)], rtol=1e-6)


def test_softmax_epsilon_floors_the_denominator():
    spec_note("Softmax", "epsilon_denominator")
    x = np.array([-30.0, -30.0], np.float32)
    (y,) = kernel("Softmax")(x, accurate=False, epsilon=1e-6)
    np.testing.assert_allclose(y, np.exp(-30.0) / 1e-6, rtol=1e-6)
    (y,) = kernel("Softmax")(x, accurate=False)
    np.testing.assert_allclose(y, [0.5, 0.5], rtol=1e-6)
    (y,) = kernel("Softmax")(np.array([0.0, 0.0], np.float64), accurate=True, epsilon=4.0)
    np.testing.assert_array_equal(y, [0.25, 0.25])
    (y,) = kernel("Softmax")(np.array([0.0, 0.0], np.float64), accurate=True, epsilon=1.5)  # sum 2 > 1.5
    np.testing.assert_array_equal(y, [0.5, 0.5])
    (y,) = kernel("Softmax")(np.array([np.nan, 0.0], np.float64), accurate=False, epsilon=1.0)
    assert np.isnan(y).all()  # a NaN sum is not replaced by epsilon
    (y,) = kernel("Softmax")(np.array([-800.0, -800.0], np.float64), accurate=False)
    assert np.isnan(y).all()  # 0 / max(0, 0): epsilon 0 does not guard
    (y,) = kernel("Softmax")(np.array([-800.0, -800.0], np.float64), accurate=False, epsilon=1e-300)
    np.testing.assert_array_equal(y, [0.0, 0.0])


def test_log_softmax_does_not_underflow():
    """note Softmax.logarithmic_evaluation: (x - m) - log(D), finite where log(softmax) underflows;
    onnx.reference's LogSoftmax (log of the softmax) gives -inf there, torch and onnxruntime agree with us."""
    spec_note("Softmax", "logarithmic_evaluation")
    x = np.array([0.0, -200.0], np.float32)
    (y,) = kernel("Softmax")(x, accurate=True, logarithmic=True)
    np.testing.assert_allclose(y, [0.0, -200.0], rtol=1e-6)
    with np.errstate(divide="ignore"):
        literal = run_reference(node_model("LogSoftmax", 13, "float", ["X"], {}), {"X": x})
    assert literal[1] == -np.inf
    np.testing.assert_allclose(run_onnxruntime(node_model("LogSoftmax", 13, "float", ["X"], {}), {"X": x}), y)
    (y,) = kernel("Softmax")(np.array([-200.0, -200.0], np.float32), accurate=False, logarithmic=True, epsilon=1e-3)
    np.testing.assert_allclose(y, [-200.0 - np.log(1e-3)] * 2, rtol=1e-6)


def test_softmax_axis_and_rank():
    spec_note("Softmax", "single_axis")
    spec_note("Softmax", "input_rank_axis")
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4) / 7
    (y,) = kernel("Softmax")(x, axis=1, accurate=True)
    np.testing.assert_allclose(y.sum(axis=1), 1.0, rtol=1e-15)
    (y,) = kernel("Softmax")(x)  # axis defaults to -1
    np.testing.assert_allclose(y.sum(axis=-1), 1.0, rtol=1e-15)
    for bad in (3, -4):
        with pytest.raises(ValidationError, match="C1"):
            kernel("Softmax")(x, axis=bad)
    with pytest.raises(ValidationError, match="C1"):
        kernel("Softmax")(np.float32(1.0))
    with pytest.raises(ValidationError):
        kernel("Softmax")(np.zeros(3, np.int32))


# ---- Dropout ----------------------------------------------------------------------------------------

DROPOUT_TYPES = ("float16", "float", "double", "bfloat16")


def _onnx_dropout(x, ratio, training, seed):
    """onnx.reference Dropout-13 with both outputs (bfloat16 data run as float32)."""
    dtype = "float" if x.dtype == ml_dtypes.bfloat16 else {np.dtype(np.float16): "float16",
                                                             np.dtype(np.float32): "float",
                                                             np.dtype(np.float64): "double"}[x.dtype]
    elem = {"float16": TensorProto.FLOAT16, "float": TensorProto.FLOAT, "double": TensorProto.DOUBLE}[dtype]
    names = ["X", "ratio" if ratio is not None else "", "training_mode" if training is not None else ""]
    while names[-1] == "":
        names.pop()
    node = helper.make_node("Dropout", names, ["Y", "M"], **({} if seed is None else {"seed": seed}))
    inputs = [helper.make_tensor_value_info("X", elem, None)]
    feeds = {"X": x.astype(np.float32) if dtype == "float" else x}
    if ratio is not None:
        inputs.append(helper.make_tensor_value_info("ratio", {np.dtype(np.float16): TensorProto.FLOAT16,
                                                              np.dtype(np.float32): TensorProto.FLOAT,
                                                              np.dtype(np.float64): TensorProto.DOUBLE}[ratio.dtype],
                                                    None))
        feeds["ratio"] = ratio
    if training is not None:
        inputs.append(helper.make_tensor_value_info("training_mode", TensorProto.BOOL, None))
        feeds["training_mode"] = training
    graph = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info("Y", elem, None),
                                                    helper.make_tensor_value_info("M", TensorProto.BOOL, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=10)
    with np.errstate(all="ignore"):
        return ReferenceEvaluator(model).run(None, feeds)


@pytest.mark.parametrize("dtype", DROPOUT_TYPES)
def test_dropout_training_matches_onnx_reference(dtype):
    """note Dropout.random_stream: with a seed the mask is onnx.reference's, element for element."""
    spec_note("Dropout", "random_stream")
    rng = np.random.default_rng(5)
    for shape in [(1000,), (2, 3, 4), (), (0, 3)]:
        x = random_array(rng, shape, dtype)
        for ratio in (np.float32(0.5), np.float64(0.1), np.float16(0.75), None):
            r = None if ratio is None else np.array(ratio)
            for seed in (0, 1, 12345):
                y, mask = kernel("Dropout")(x, r, np.array(True), seed=seed)
                want_y, want_mask = _onnx_dropout(x, r if r is not None else np.array(0.5, np.float32),
                                                  np.array(True), seed)
                assert mask.dtype == np.bool_ and mask.shape == x.shape
                np.testing.assert_array_equal(mask, want_mask, err_msg=f"{dtype} {shape} {ratio} {seed}")
                assert y.dtype == x.dtype and y.shape == x.shape
                assert_matches(y, np.asarray(want_y).astype(x.dtype), dtype, f"{dtype} {shape} {ratio} {seed}")
                scale = 1 / (1 - (0.5 if ratio is None else float(ratio)))
                assert_matches(y, np.where(mask, x.astype(np.float64) * scale, 0).astype(x.dtype), dtype)
        if x.size >= 1000:
            kept = mask.mean()
            assert 0.4 < kept < 0.6  # ratio 0.5 by default


@pytest.mark.parametrize("dtype", DROPOUT_TYPES)
def test_dropout_inference_is_identity(dtype):
    rng = np.random.default_rng(6)
    for x in [random_array(rng, s, dtype) for s in SHAPES] + [edge_values(dtype)]:
        for ratio, training in [(None, None), (np.array(0.3, np.float32), None),
                                (np.array(0.9, np.float64), np.array(False)), (None, np.array(False)),
                                (np.array(1.5, np.float32), np.array(False))]:  # ratio ignored in inference
            y, mask = kernel("Dropout")(x, ratio, training, seed=3)
            assert y.dtype == x.dtype
            np.testing.assert_array_equal(y.reshape(-1).view(np.uint8), x.reshape(-1).view(np.uint8))  # NaN too
            assert mask.dtype == np.bool_ and mask.shape == x.shape and mask.all()
            if dtype != "bfloat16":
                want_y, want_mask = _onnx_dropout(x, ratio, training, 3)
                np.testing.assert_array_equal(y, want_y)
                np.testing.assert_array_equal(mask, want_mask)


def test_dropout_ratio_zero_and_range():
    spec_note("Dropout", "ratio_range")
    x = edge_values("float")
    y, mask = kernel("Dropout")(x, np.array(0.0, np.float32), np.array(True), seed=1)
    np.testing.assert_array_equal(y.view(np.uint32), x.view(np.uint32))
    assert mask.all()
    for bad in (1.0, -0.25, 2.0, np.nan):
        with pytest.raises(ValueError, match="ratio"):
            kernel("Dropout")(x, np.array(bad, np.float32), np.array(True), seed=1)


def test_dropout_dropped_infinity_is_nan():
    spec_note("Dropout", "dropped_non_finite")
    x = np.full(200, np.inf, np.float32)
    y, mask = kernel("Dropout")(x, np.array(0.5, np.float32), np.array(True), seed=2)
    assert not mask.all() and mask.any()
    assert np.isnan(y[~mask]).all() and (y[mask] == np.inf).all()
    want_y, _ = _onnx_dropout(x, np.array(0.5, np.float32), np.array(True), 2)
    np.testing.assert_array_equal(np.isnan(y), np.isnan(want_y))


def test_dropout_seed_determinism():
    x = np.ones(4096, np.float32)
    r, t = np.array(0.5, np.float32), np.array(True)
    _, m1 = kernel("Dropout")(x, r, t, seed=42)
    _, m2 = kernel("Dropout")(x, r, t, seed=42)
    _, m3 = kernel("Dropout")(x, r, t, seed=43)
    np.testing.assert_array_equal(m1, m2)
    assert (m1 != m3).any()
    _, m4 = kernel("Dropout")(x, r, t, seed=-1)  # seed mod 2**32
    _, m5 = kernel("Dropout")(x, r, t, seed=2**32 - 1)
    np.testing.assert_array_equal(m4, m5)
    _, n1 = kernel("Dropout")(x, r, t)  # no seed: a fresh one each time
    _, n2 = kernel("Dropout")(x, r, t)
    assert (n1 != n2).any()


def test_dropout_constraints():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ValidationError, match="C1"):
        kernel("Dropout")(x, np.array([0.5], np.float32), np.array(True))
    with pytest.raises(ValidationError, match="C2"):
        kernel("Dropout")(x, np.array(0.5, np.float32), np.array([True]))
    with pytest.raises(ValidationError):
        kernel("Dropout")(x, np.array(0.5, ml_dtypes.bfloat16), np.array(True))  # T1 has no bfloat16
    with pytest.raises(ValidationError):
        kernel("Dropout")(np.zeros(3, np.int32))
