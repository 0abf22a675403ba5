"""hlir element-wise binary and ternary operators against independent references.

XLA-defined ops (Add, Sub, Div, Rem, Max, Min, Atan2, And, Or, Xor, Compare, Complex, the shifts,
Clamp, Select) are compared with jax.lax (x64, CPU); Pow, typed like ONNX Pow, with onnx.reference and
onnxruntime. Inputs: random values of several shapes (rank 0 and empty included) for every dtype the
spec allows, and every pairing of the edge values (signed zeros, infinities, NaN, denormals, integer
limits). Where a reference disagrees by design the spec's behaviour is asserted and its note named.

Two properties of the references shape the comparisons:
- XLA on CPU runs with subnormals flushed to zero (a mode JAX sets; StableHLO's semantics are IEEE).
  Where an operand is subnormal, the reference for that element is NumPy's IEEE operation instead.
- jax has every integer type for the shifts, unsigned included; ShiftLeft's int64 shift amount (a type
  jax would not pair with an unsigned lhs) is compared in uint64 and the result cast back.
The generated C kernels are compared with the NumPy kernels bit for bit on the edge pairs here (the
generic tests/kernels/test_c_elementwise.py compares them within tolerance on random values).
"""
from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import helper

import opgen_ops
from c_harness import OPGEN_ERR_SHAPE, OPGEN_OK, call_c
from conftest import project_specs
from kernel_refs import SHAPES, assert_matches, edge_values, jnp, kernel, lax, np_dtype, random_array
from onnx_refs import run_onnxruntime, run_reference
from opgen.dtypes import ELEM_TYPES
from opgen.render.c_code import kernel_views
from opgen.runtime import elementwise as _ew
from opgen.runtime import xla_arithmetic
from opgen.runtime.validation import ValidationError

HLIR = project_specs().domain("hlir")


def types(op: str, var: str = "T") -> tuple[str, ...]:
    return opgen_ops.get_signature("hlir", op, 1).type_constraints[var]


def version(op: str):
    return next(o for o in HLIR.ops if o.name == op).versions[0]


# ---- inputs ------------------------------------------------------------------------------------

def edge_product(elems: list[str]) -> list[np.ndarray]:
    """Every combination of the edge values of each operand (1-D arrays of equal length)."""
    edges = [edge_values(e) for e in elems]
    index = np.array(list(itertools.product(*(range(len(v)) for v in edges)))).T
    return [v[index[k]] for k, v in enumerate(edges)]


def operand_sets(op: str, elems: list[str], low: float = -4.0, high: float = 4.0):
    """(label, arrays) cases: random values per shape, full-range integers, and the edge product."""
    rng = np.random.default_rng(sum(map(ord, op + "".join(elems))))
    for shape in SHAPES:
        yield f"random{shape}", [random_array(rng, shape, e, low, high) for e in elems]
    if all(ELEM_TYPES[e].kind in ("int", "uint") for e in elems):
        arrays = []
        for e in elems:
            info = np.iinfo(np_dtype(e))
            arrays.append(rng.integers(info.min, info.max, size=(64,), endpoint=True, dtype=np_dtype(e)))
        yield "full-range", arrays
    yield "edges", edge_product(elems)


def subnormal(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype.kind == "c":
        return subnormal(x.real) | subnormal(x.imag)
    if x.dtype.kind != "f" and x.dtype != ml_dtypes.bfloat16:
        return np.zeros(x.shape, bool)
    wide = x.astype(np.float64)
    return (wide != 0) & (np.abs(wide) < float(ml_dtypes.finfo(x.dtype).tiny))


def any_subnormal(*arrays) -> np.ndarray:
    shape = np.broadcast_shapes(*(np.shape(a) for a in arrays))
    out = np.zeros(shape, bool)
    for a in arrays:
        if np.asarray(a).dtype.kind in "fc" or np.asarray(a).dtype == ml_dtypes.bfloat16:
            out |= np.broadcast_to(subnormal(a), shape)
    return out


def xla_reference(jax_fn, numpy_fn, *arrays) -> tuple[np.ndarray, np.ndarray]:
    """jax's result, with NumPy's IEEE result where an operand is subnormal (see the module doc)."""
    want = np.asarray(jax_fn(*arrays))
    flushed = any_subnormal(*arrays)
    if flushed.any():
        assert numpy_fn is not None, "a subnormal operand needs an IEEE reference"
        with np.errstate(all="ignore"):
            alt = np.asarray(numpy_fn(*arrays)).astype(want.dtype)
        want = np.where(flushed, alt, want)
    return want, flushed


def assert_same(got: np.ndarray, want: np.ndarray, elem: str, label: str, sign_mask=None) -> None:
    """assert_matches, and for floats the sign of every zero result (where sign_mask allows)."""
    assert got.dtype == np.asarray(want).dtype, f"{label}: dtype {got.dtype} != {np.asarray(want).dtype}"
    assert_matches(got, want, elem, label)
    if got.dtype.kind == "f" or got.dtype == ml_dtypes.bfloat16:
        g, w = got.astype(np.float64), np.asarray(want).astype(np.float64)
        zero = (g == 0) & (w == 0)
        if sign_mask is not None:
            zero &= np.broadcast_to(sign_mask, zero.shape)
        np.testing.assert_array_equal(np.signbit(g[zero]), np.signbit(w[zero]), err_msg=f"{label}: sign of zero")


# ---- same-type binary ops against jax.lax ------------------------------------------------------------

SAME_TYPE = {
    "Add": (lax.add, np.add),
    "Sub": (lax.sub, np.subtract),
    "Div": (lax.div, np.true_divide),
    "Rem": (lax.rem, np.fmod),
    "Max": (lax.max, np.maximum),  # NumPy only where an operand is subnormal: no pair of zeros there
    "Min": (lax.min, np.minimum),
    "Atan2": (lax.atan2, np.arctan2),
    "And": (lax.bitwise_and, None),
    "Or": (lax.bitwise_or, None),
    "Xor": (lax.bitwise_xor, None),
    "ShiftRightArithmetic": (lax.shift_right_arithmetic, None),
    "ShiftRightLogical": (lax.shift_right_logical, None),
}
SAME_TYPE_CASES = [pytest.param(op, elem, id=f"{op}-{elem}") for op in SAME_TYPE for elem in types(op)]


@pytest.mark.parametrize("op,elem", SAME_TYPE_CASES)
def test_same_type_binary_matches_jax(op, elem):
    jax_fn, numpy_fn = SAME_TYPE[op]
    shifts = op.startswith("Shift")
    bits = ELEM_TYPES[elem].bits
    for label, (lhs, rhs) in operand_sets(op, [elem, elem]):
        if shifts and label.startswith("random"):  # amounts around the bit width
            low = -2 if ELEM_TYPES[elem].kind == "int" else 0
            rhs = random_array(np.random.default_rng(bits), lhs.shape, elem, low, bits + 2)
        (got,) = kernel(op)(lhs, rhs)
        want, flushed = xla_reference(jax_fn, numpy_fn, lhs, rhs)
        assert_same(got, want, elem, f"{op} {elem} {label}", sign_mask=~flushed)


@pytest.mark.parametrize("op", ["Sub", "Rem", "Max", "Min", "Atan2", "Compare", "ShiftRightArithmetic",
                                "ShiftRightLogical"])
def test_operands_must_have_the_same_shape(op):
    """These sections have no broadcast_dimensions: lhs and rhs have one shape (Max/Min: "所有输入和输出
    必须具有相同的数据类型和形状")."""
    elem = "int32" if op.startswith("Shift") else "float"
    attrs = {"comparison_direction": "EQ"} if op == "Compare" else {}
    a, b = np.zeros((2, 3), np_dtype(elem)), np.zeros((3,), np_dtype(elem))
    with pytest.raises(ValidationError, match="shapes differ"):
        kernel(op)(a, b, **attrs)
    with pytest.raises(ValidationError, match="shapes differ"):
        kernel(op)(a, np.zeros((), np_dtype(elem)), **attrs)


# ---- Div and Rem: integer semantics --------------------------------------------------------------------

@pytest.mark.parametrize("elem", ["int8", "int16", "int32", "int64"])
def test_div_rem_signed_integers(elem):
    """Note integer_division / remainder_sign: truncation toward zero, x/0 = -1, x rem 0 = x,
    INT_MIN / -1 = INT_MIN, INT_MIN rem -1 = 0 -- the values jax.lax gives on CPU."""
    lo = np.iinfo(np_dtype(elem)).min
    a = np.array([-7, 7, -7, 7, lo, lo, 5, -5, 0], np_dtype(elem))
    b = np.array([2, 2, -2, -2, -1, 0, 0, 0, 0], np_dtype(elem))
    (q,) = kernel("Div")(a, b)
    (r,) = kernel("Rem")(a, b)
    np.testing.assert_array_equal(q, np.array([-3, 3, 3, -3, lo, -1, -1, -1, -1], np_dtype(elem)))
    np.testing.assert_array_equal(r, np.array([-1, 1, -1, 1, 0, lo, 5, -5, 0], np_dtype(elem)))
    np.testing.assert_array_equal(q, np.asarray(lax.div(a, b)))
    np.testing.assert_array_equal(r, np.asarray(lax.rem(a, b)))


@pytest.mark.parametrize("elem", ["uint8", "uint16", "uint32", "uint64"])
def test_div_rem_unsigned_by_zero(elem):
    """Note integer_division: x / 0 is all bits set (the type's maximum); x rem 0 = x."""
    top = np.iinfo(np_dtype(elem)).max
    a = np.array([7, 0, top], np_dtype(elem))
    b = np.zeros(3, np_dtype(elem))
    np.testing.assert_array_equal(kernel("Div")(a, b)[0], np.full(3, top, np_dtype(elem)))
    np.testing.assert_array_equal(kernel("Rem")(a, b)[0], a)
    np.testing.assert_array_equal(kernel("Div")(a, b)[0], np.asarray(lax.div(a, b)))


def test_rem_float_sign_of_dividend():
    """Note remainder_sign: rem(5.5, -2) = 1.5, rem(-5.5, 2) = -1.5, rem(-0.0, 3) = -0.0."""
    a = np.array([5.5, -5.5, -0.0, 1.0, np.inf], np.float32)
    b = np.array([-2.0, 2.0, 3.0, 0.0, 1.0], np.float32)
    (r,) = kernel("Rem")(a, b)
    np.testing.assert_array_equal(r[:3], np.array([1.5, -1.5, -0.0], np.float32))
    assert np.signbit(r[2]) and np.isnan(r[3:]).all()


def test_rem_takes_input_and_divisor():
    """Erratum missing_divisor: the document lists one input; the spec adds the divisor."""
    sig = opgen_ops.get_signature("hlir", "Rem", 1)
    assert [p.name for p in sig.inputs] == ["input", "divisor"]
    np.testing.assert_array_equal(kernel("Rem")(np.array([7, -7]), np.array([3, 3]))[0], [1, -1])


# ---- Max, Min: NaN and signed zeros ---------------------------------------------------------------

@pytest.mark.parametrize("elem", ["float16", "float", "double"])
def test_max_min_nan_and_signed_zero(elem):
    """Note nan_and_signed_zero: IEEE 754-2019 maximum/minimum, as jax.lax.max/min."""
    dt = np_dtype(elem)
    a = np.array([-0.0, 0.0, np.nan, 1.0, -0.0], dt)
    b = np.array([0.0, -0.0, 1.0, np.nan, -0.0], dt)
    (mx,) = kernel("Max")(a, b)
    (mn,) = kernel("Min")(a, b)
    np.testing.assert_array_equal(np.signbit(mx[:2]), [False, False])
    np.testing.assert_array_equal(np.signbit(mn[:2]), [True, True])
    assert np.signbit(mx[4]) and np.signbit(mn[4])
    assert np.isnan(mx[2:4]).all() and np.isnan(mn[2:4]).all()
    np.testing.assert_array_equal(np.signbit(mx), np.signbit(np.asarray(lax.max(a, b))))
    np.testing.assert_array_equal(np.signbit(mn), np.signbit(np.asarray(lax.min(a, b))))


# ---- Atan2 -----------------------------------------------------------------------------------------

def test_atan2_quadrants():
    """Erratum atan2_two_arguments: atan2(lhs, rhs) with the quadrant of both signs, range [-pi, pi]."""
    lhs = np.array([1.0, 1.0, -1.0, -1.0, 0.0, -0.0, 0.0, -0.0])
    rhs = np.array([1.0, -1.0, -1.0, 1.0, -1.0, -1.0, -0.0, 0.0])
    (got,) = kernel("Atan2")(lhs, rhs)
    p = np.pi
    np.testing.assert_allclose(got, [p / 4, 3 * p / 4, -3 * p / 4, -p / 4, p, -p, p, -0.0], rtol=1e-15)
    assert np.signbit(got[7])


# ---- And, Or, Xor, Add, Div: XLA broadcast_dimensions -------------------------------------------

# (lhs shape, rhs shape, broadcast_dimensions, result shape)
XLA_SHAPES = [
    ((2, 3, 4), (3,), [1], (2, 3, 4)),
    ((2, 3, 4), (4,), [2], (2, 3, 4)),
    ((2, 3, 4), (2, 4), [0, 2], (2, 3, 4)),
    ((2, 1, 4), (2, 3), [0, 1], (2, 3, 4)),  # the higher-rank operand's size-1 dimension stretches
    ((2, 3, 4), (2, 1), [0, 2], (2, 3, 4)),  # and the lower-rank one's
    ((4,), (4, 5), [0], (4, 5)),
    ((1, 5), (4,), [0], (4, 5)),
    ((0, 3), (3,), [1], (0, 3)),
    ((2, 3), (2, 3), None, (2, 3)),
    ((2, 3), (2, 3), [0, 1], (2, 3)),  # the identity is allowed for equal ranks
    ((2, 1), (1, 3), None, (2, 3)),  # degenerate dimensions, no broadcast_dimensions
    ((), (2, 3), None, (2, 3)),
    ((2, 3), (), [], (2, 3)),
    ((), (), None, ()),
]
XLA_OPS = {"Add": lax.add, "Div": lax.div, "And": lax.bitwise_and, "Or": lax.bitwise_or, "Xor": lax.bitwise_xor}


def xla_broadcast_reference(fn, lhs, rhs, dims, out_shape):
    """jax.lax: broadcast each operand to the result shape with broadcast_in_dim, then apply fn."""
    def expand(x):
        if x.ndim == len(out_shape):
            mapping = tuple(range(x.ndim))
        elif x.ndim == 0:
            mapping = ()
        else:
            mapping = tuple(dims)
        return lax.broadcast_in_dim(x, out_shape, mapping)

    return np.asarray(fn(expand(lhs), expand(rhs)))


@pytest.mark.parametrize("op", list(XLA_OPS))
@pytest.mark.parametrize("case", XLA_SHAPES, ids=[f"{a}-{b}-{d}" for a, b, d, _ in XLA_SHAPES])
def test_xla_broadcast_dimensions(op, case):
    """Note xla_broadcasting: XLA's element-wise broadcasting, in both operand orders."""
    a_shape, b_shape, dims, out_shape = case
    elems = [e for e in types(op) if e in ("float", "int32", "bool")]
    rng = np.random.default_rng(len(a_shape) * 7 + len(b_shape))
    for elem in elems:
        for s1, s2 in ((a_shape, b_shape), (b_shape, a_shape)):
            lhs, rhs = random_array(rng, s1, elem), random_array(rng, s2, elem)
            if op == "Div" and elem == "float":
                rhs = rhs + np.float32(10)  # keep clear of 0 (XLA's flushing of subnormals aside)
            attrs = {} if dims is None else {"broadcast_dimensions": dims}
            (got,) = kernel(op)(lhs, rhs, **attrs)
            want = xla_broadcast_reference(XLA_OPS[op], lhs, rhs, dims, out_shape)
            assert got.shape == out_shape
            assert_matches(got, want, elem, f"{op} {elem} {s1} {s2} {dims}")


XLA_BAD = [
    ((2, 3), (3, 2), None, "no broadcast_dimensions is given"),
    ((2, 3, 4), (3,), None, "differ in rank and no broadcast_dimensions"),
    ((2, 3, 4), (3,), [2], "does not match"),
    ((2, 3, 4), (3,), [3], "must be distinct dimensions"),
    ((2, 3, 4), (3, 2), [1, 0], "strictly increasing"),  # XLA: "Broadcast dimensions order is wrong"
    ((2, 3, 4), (2, 3), [0, 0], "must be distinct dimensions"),
    ((2, 3, 4), (2, 3), [0], "one entry per dimension"),
    ((2, 3), (3, 2), [1, 0], "absent or the identity"),
    ((2, 3), (2, 4), [0, 1], "neither size is 1"),
]


@pytest.mark.parametrize("case", XLA_BAD, ids=[m for *_, m in XLA_BAD])
def test_xla_broadcast_dimensions_rejected(case):
    a_shape, b_shape, dims, message = case
    attrs = {} if dims is None else {"broadcast_dimensions": dims}
    for op in XLA_OPS:
        elem = "bool" if op in ("And", "Or", "Xor") else "float"
        problems = opgen_ops.get_validator("hlir", op, 1)(
            [np.zeros(a_shape, np_dtype(elem)), np.zeros(b_shape, np_dtype(elem))], attrs)
        assert any(message in str(p) for p in problems), (op, [str(p) for p in problems])


def test_logical_ops_truth_tables():
    a = np.array([False, False, True, True])
    b = np.array([False, True, False, True])
    np.testing.assert_array_equal(kernel("And")(a, b)[0], [False, False, False, True])
    np.testing.assert_array_equal(kernel("Or")(a, b)[0], [False, True, True, True])
    np.testing.assert_array_equal(kernel("Xor")(a, b)[0], [False, True, True, False])


# ---- Compare ------------------------------------------------------------------------------------------

DIRECTIONS = {"EQ": lax.eq, "NE": lax.ne, "GE": lax.ge, "GT": lax.gt, "LE": lax.le, "LT": lax.lt}
NUMPY_COMPARE = {"EQ": np.equal, "NE": np.not_equal, "GE": np.greater_equal, "GT": np.greater,
                 "LE": np.less_equal, "LT": np.less}


@pytest.mark.parametrize("elem", types("Compare"))
@pytest.mark.parametrize("direction", list(DIRECTIONS))
def test_compare_matches_reference(elem, direction):
    """jax.lax for every type it orders; complex GE/GT/LE/LT against NumPy's lexicographic complex
    comparisons (note complex_ordering), which agree with the spec unless an imaginary part is NaN."""
    for label, (lhs, rhs) in operand_sets("Compare", [elem, elem]):
        (got,) = kernel("Compare")(lhs, rhs, comparison_direction=direction)
        assert got.dtype == np.bool_
        if ELEM_TYPES[elem].kind == "complex" and direction not in ("EQ", "NE"):
            with np.errstate(invalid="ignore"):
                want = NUMPY_COMPARE[direction](lhs, rhs)
            assert not (np.isnan(lhs.imag) | np.isnan(rhs.imag)).any()
        else:
            want, _ = xla_reference(DIRECTIONS[direction], NUMPY_COMPARE[direction], lhs, rhs)
        np.testing.assert_array_equal(got, want, err_msg=f"Compare {direction} {elem} {label}")


def test_compare_floats_ieee():
    """Note comparison_semantics: NaN is unordered (only NE true), -0.0 == +0.0; bool: false < true."""
    cmp = kernel("Compare")
    a = np.array([np.nan, -0.0, 1.0], np.float32)
    b = np.array([np.nan, 0.0, np.nan], np.float32)
    results = {d: cmp(a, b, comparison_direction=d)[0].tolist() for d in DIRECTIONS}
    assert results == {"EQ": [False, True, False], "NE": [True, False, True], "GE": [False, True, False],
                       "GT": [False, False, False], "LE": [False, True, False], "LT": [False, False, False]}
    assert cmp(np.array([False, True]), np.array([True, True]), comparison_direction="LT")[0].tolist() == [True, False]


def test_compare_complex_lexicographic():
    """Note complex_ordering: (real, imag) pairs compare lexicographically, the real part first --
    also when an imaginary part is NaN (NumPy's complex comparison would answer False there)."""
    cmp = kernel("Compare")
    a = np.array([1 + 5j, 1 + 1j, 1 + 1j, complex(1, np.nan), complex(1, np.nan), 2 + 0j], np.complex64)
    b = np.array([2 + 0j, 1 + 2j, 1 + 1j, 2 + 0j, complex(1, 0), complex(np.nan, 0)], np.complex64)
    assert cmp(a, b, comparison_direction="LT")[0].tolist() == [True, True, False, True, False, False]
    assert cmp(a, b, comparison_direction="LE")[0].tolist() == [True, True, True, True, False, False]
    assert cmp(a, b, comparison_direction="GT")[0].tolist() == [False, False, False, False, False, False]
    assert cmp(a, b, comparison_direction="EQ")[0].tolist() == [False, False, True, False, False, False]
    assert cmp(a, b, comparison_direction="NE")[0].tolist() == [True, True, False, True, True, True]


def test_compare_rejects_unknown_direction():
    with pytest.raises(ValidationError):
        kernel("Compare")(np.zeros(2), np.zeros(2), comparison_direction="XX")


# ---- Complex ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("elem", types("Complex"))
def test_complex_matches_jax(elem):
    """lax.complex (float16 parts widened to float, exactly); the result is complex64 (note
    complex_type), so jax's complex128 for double parts is rounded to complex64 (each part once)."""
    for label, (lhs, rhs) in operand_sets("Complex", [elem, elem]):
        (got,) = kernel("Complex")(lhs, rhs)
        assert got.dtype == np.complex64 and got.shape == lhs.shape
        wide = np.float32 if elem == "float16" else np_dtype(elem)
        with np.errstate(over="ignore"):
            want = np.asarray(lax.complex(lhs.astype(wide), rhs.astype(wide))).astype(np.complex64)
        for part in ("real", "imag"):  # parts as given (note parts_as_given): exact, NaN where NaN
            g, w = getattr(got, part), getattr(want, part)
            np.testing.assert_array_equal(np.isnan(g), np.isnan(w), err_msg=f"{elem} {label} {part}")
            np.testing.assert_array_equal(g[~np.isnan(g)], w[~np.isnan(w)], err_msg=f"{elem} {label} {part}")
            np.testing.assert_array_equal(np.signbit(g[~np.isnan(g)]), np.signbit(w[~np.isnan(w)]))


def test_complex_infinite_imaginary_part_stays():
    (got,) = kernel("Complex")(np.array([0.0, np.inf], np.float32), np.array([np.inf, 0.0], np.float32))
    assert got[0].real == 0 and np.isposinf(got[0].imag) and np.isposinf(got[1].real) and got[1].imag == 0


# ---- Shifts ---------------------------------------------------------------------------------------------

def test_shift_left_seed_example():
    """Seed 3.113: lhs=[1, 2], rhs=[1, 2] -> [2, 8]."""
    (got,) = kernel("ShiftLeft")(np.array([1, 2], np.uint8), np.array([1, 2], np.int64))
    np.testing.assert_array_equal(got, np.array([2, 8], np.uint8))


@pytest.mark.parametrize("elem", types("ShiftLeft"))
def test_shift_left_matches_jax_in_uint64(elem):
    """Note shift_amount: jax pairs lhs with an amount of its own type, so both go to uint64 (where
    every int64 amount keeps its meaning: negative ones become huge), and the result is cast back."""
    bits = ELEM_TYPES[elem].bits
    rng = np.random.default_rng(bits)
    amounts = np.concatenate([np.arange(-3, 70), [256 + 1, bits + 256, -(2 ** 63), 2 ** 63 - 1]]).astype(np.int64)
    cases = [("edges", *np.meshgrid(edge_values(elem), amounts))]
    for shape in SHAPES:
        cases.append((f"random{shape}", random_array(rng, shape, elem, 0, 255),
                      rng.integers(-2, bits + 3, size=shape).astype(np.int64)))
    for label, lhs, rhs in cases:
        lhs, rhs = np.array(lhs), np.array(rhs)
        (got,) = kernel("ShiftLeft")(lhs, rhs)
        wide = np.asarray(lax.shift_left(lhs.astype(np.uint64), rhs.astype(np.uint64)))
        np.testing.assert_array_equal(got, wide.astype(np_dtype(elem)), err_msg=f"{elem} {label}")


def test_shift_left_amount_out_of_range():
    """Note shift_amount: the int64 amount is a number: 257 on uint8 gives 0, not 1 << (257 % 256)."""
    (got,) = kernel("ShiftLeft")(np.array([1, 1, 200, 1], np.uint8), np.array([257, -1, 1, 8], np.int64))
    np.testing.assert_array_equal(got, np.array([0, 0, 144, 0], np.uint8))


def test_shift_right_examples():
    """The spec's examples: arithmetic [-8, 8] >> [1, 2] = [-4, 2]; logical [8, 8] >> [1, 2] = [4, 2]."""
    (sra,) = kernel("ShiftRightArithmetic")(np.array([-8, 8], np.int32), np.array([1, 2], np.int32))
    (srl,) = kernel("ShiftRightLogical")(np.array([8, 8], np.int32), np.array([1, 2], np.int32))
    np.testing.assert_array_equal(sra, [-4, 2])
    np.testing.assert_array_equal(srl, [4, 2])


def test_shift_right_out_of_range_and_unsigned_sign():
    """Note shift_amount: amounts >= width (or negative) give the sign fill / 0; arithmetic shifts read
    an unsigned lhs's top bit as the sign (uint8 200 >> 1 = 228), as jax.lax does."""
    sra, srl = kernel("ShiftRightArithmetic"), kernel("ShiftRightLogical")
    np.testing.assert_array_equal(sra(np.array([-8, 8, -8], np.int8), np.array([8, 9, -1], np.int8))[0], [-1, 0, -1])
    np.testing.assert_array_equal(srl(np.array([-8, -8, -8], np.int8), np.array([1, 8, -1], np.int8))[0], [124, 0, 0])
    np.testing.assert_array_equal(sra(np.array([200, 200], np.uint8), np.array([1, 8], np.uint8))[0], [228, 255])


# ---- Clamp --------------------------------------------------------------------------------------------

def _clamp_numpy(lo, x, hi):
    return np.minimum(np.maximum(x, lo), hi)


@pytest.mark.parametrize("elem", types("Clamp"))
def test_clamp_matches_jax(elem):
    """lax.clamp(min, x, max), with full-shape and scalar bounds."""
    rng = np.random.default_rng(len(elem))
    sets = list(operand_sets("Clamp", [elem, elem, elem]))
    for shape in SHAPES:  # scalar bounds
        sets.append((f"scalar-bounds{shape}", [random_array(rng, (), elem, -2, 0), random_array(rng, shape, elem),
                                               random_array(rng, (), elem, 0, 2)]))
    for label, (lo, x, hi) in sets:
        (got,) = kernel("Clamp")(lo, x, hi)
        want, flushed = xla_reference(lambda a, b, c: lax.clamp(a, b, c), _clamp_numpy, lo, x, hi)
        assert got.shape == x.shape
        assert_same(got, want, elem, f"Clamp {elem} {label}", sign_mask=~flushed)


def test_clamp_nan_and_inverted_bounds():
    """Note nan_and_bounds: NaN anywhere gives NaN; min > max gives max; -0.0 < +0.0."""
    lo = np.array([0.0, np.nan, 0.0, 3.0, -0.0, 0.0], np.float32)
    x = np.array([np.nan, 5.0, -5.0, 1.0, 0.0, -0.0], np.float32)
    hi = np.array([1.0, 1.0, np.nan, 2.0, 0.0, -0.0], np.float32)
    (got,) = kernel("Clamp")(lo, x, hi)
    assert np.isnan(got[:3]).all() and got[3] == 2.0
    assert not np.signbit(got[4]) and np.signbit(got[5])
    # the same rules with scalar bounds (a faster path in the kernel)
    f = np.float32
    x = np.array([np.nan, 5.0, -5.0, 0.5, 0.0, -0.0], f)
    (got,) = kernel("Clamp")(f(-1), x, f(1))
    assert np.isnan(got[0]) and got[1:4].tolist() == [1.0, -1.0, 0.5]
    assert not np.signbit(got[4]) and np.signbit(got[5])
    assert np.isnan(kernel("Clamp")(f(np.nan), x[1:], f(1))[0]).all()
    assert np.isnan(kernel("Clamp")(f(-1), x[1:], f(np.nan))[0]).all()
    (got,) = kernel("Clamp")(f(0.0), np.array([-0.0, -1.0], f), f(1))  # max(-0.0, +0.0) = +0.0
    assert got.tolist() == [0.0, 0.0] and not np.signbit(got).any()
    (got,) = kernel("Clamp")(f(-1), np.array([0.0, 1.0], f), f(-0.0))  # min(+0.0, -0.0) = -0.0
    assert np.signbit(got).all()


def test_clamp_bounds_are_scalars_or_input_shaped():
    validate = opgen_ops.get_validator("hlir", "Clamp", 1)
    f = np.float32
    assert validate([np.zeros((), f), np.zeros((2, 3), f), np.zeros((2, 3), f)], {}) == []
    problems = validate([np.zeros((3,), f), np.zeros((2, 3), f), np.zeros((), f)], {})
    assert [p.where for p in problems] == ["constraint C1"]


# ---- Select -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("elem", types("Select"))
def test_select_matches_jax(elem):
    rng = np.random.default_rng(len(elem) + 1)
    for label, (on_true, on_false) in operand_sets("Select", [elem, elem]):
        for pred in (rng.random(on_true.shape) < 0.5, np.array(True), np.array(False)):
            (got,) = kernel("Select")(pred, on_true, on_false)
            want = np.asarray(lax.select(jnp.broadcast_to(pred, on_true.shape), on_true, on_false))
            assert got.dtype == on_true.dtype
            np.testing.assert_array_equal(got.view(f"u{got.dtype.itemsize}"), want.view(f"u{want.dtype.itemsize}"),
                                          err_msg=f"Select {elem} {label} pred {pred.shape}")


@pytest.mark.parametrize("blend", [False, True], ids=["small", "blend"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64, np.bool_])
def test_select_blend_paths_match_numpy_where(dtype, blend, monkeypatch):
    """The bit blends of the formula helper behind where() (Relu's 0 branch, a 0 on_false, two arrays, a
    condition smaller than the result, a condition true or false everywhere) give np.where's bits, with
    the edge values in both branches, in a new array. `blend` takes the blend below the size where small
    operands go to np.where."""
    if blend:
        monkeypatch.setattr(xla_arithmetic, "_SMALL_SELECT", -1)
    rng = np.random.default_rng(7)
    edges = np.array([0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1.5, -2.5], np.float64)

    def sample(shape):
        if dtype is np.bool_:
            return rng.random(shape) < 0.5
        if dtype is np.int64:
            return rng.integers(-5, 5, shape).astype(dtype)
        return rng.choice(edges, shape).astype(dtype)
    for cond_shape, a_shape, b_shape in [((3, 4), (3, 4), (3, 4)), ((3, 4), (), (3, 4)), ((3, 4), (3, 4), ()),
                                         ((3, 4), (1, 4), (3, 1)), ((4,), (3, 4), (3, 4)), ((), (3, 4), ())]:
        random = rng.random(cond_shape) < 0.5
        for condition, (a, b) in itertools.product(
                [random, np.ones(cond_shape, bool), np.zeros(cond_shape, bool)],
                [(sample(a_shape), sample(b_shape)), (np.zeros(a_shape, dtype), sample(b_shape)),
                 (sample(a_shape), np.zeros(b_shape, dtype))]):
            got, want = _ew.select(condition, a, b), np.where(condition, a, b)
            assert got.dtype == want.dtype and got.shape == want.shape
            assert np.ascontiguousarray(got).tobytes() == want.tobytes(), (cond_shape, a, b)
            assert not np.shares_memory(got, a) and not np.shares_memory(got, b)


def test_max_min_against_a_single_value_match_jax():
    """The formula helpers ieee_maximum/ieee_minimum with one operand a single value (Clamp's scalar bounds,
    which skip the signed-zero check when that value is not a zero): every pairing of the edge values,
    against jax.lax.max/min."""
    f = np.float32
    x = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1.0, -1.0, 2.0], f)
    for value in x:
        for helper_, reference in ((_ew.ieee_maximum, lax.max), (_ew.ieee_minimum, lax.min)):
            for operands in ((x, np.asarray(value)), (np.asarray(value), x)):
                got = helper_(*operands)
                want = np.asarray(reference(*(jnp.broadcast_to(v, x.shape) for v in operands)))
                assert np.array_equal(np.isnan(got), np.isnan(want)), (helper_, value)
                assert got[~np.isnan(got)].tobytes() == want[~np.isnan(want)].tobytes(), (helper_, value)


def test_select_shapes():
    validate = opgen_ops.get_validator("hlir", "Select", 1)
    f = np.float32
    assert validate([np.zeros((2, 3), bool), np.zeros((2, 3), f), np.zeros((2, 3), f)], {}) == []
    assert validate([np.zeros((3,), bool), np.zeros((2, 3), f), np.zeros((2, 3), f)], {}) != []
    assert validate([np.zeros((), bool), np.zeros((2, 3), f), np.zeros((3,), f)], {}) != []


# ---- Pow ----------------------------------------------------------------------------------------------

def pow_model(t: str, t1: str) -> onnx.ModelProto:
    def info(name, elem):
        return helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(np_dtype(elem)), None)

    node = helper.make_node("Pow", ["X", "Y"], ["Z"])
    graph = helper.make_graph([node], "g", [info("X", t), info("Y", t1)], [info("Z", t)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)], ir_version=10)


def pow_operands(t: str, t1: str):
    rng = np.random.default_rng(sum(map(ord, t + t1)))
    for a_shape, b_shape in [((), ()), ((0,), (0,)), ((7,), (7,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3))]:
        yield f"random{a_shape}{b_shape}", random_array(rng, a_shape, t), random_array(rng, b_shape, t1, -3, 3)
    base, exponent = edge_product([t, t1])
    yield "edges", base, exponent


POW_CASES = [pytest.param(t, t1, id=f"{t}-{t1}") for t in types("Pow") for t1 in types("Pow", "T1")]
EXACT_LIMIT = 2.0 ** 53  # integer exponents beyond this lose their parity when converted to double


@pytest.mark.parametrize("t,t1", POW_CASES)
def test_pow_matches_onnx(t, t1):
    """onnx.reference and onnxruntime where their result is defined; the rest is asserted in the
    tests below (notes pow_float, pow_integer, onnx_references)."""
    int_base, int_exp = ELEM_TYPES[t].kind == "int", ELEM_TYPES[t1].kind in ("int", "uint")
    model = pow_model(t, t1)
    for label, base, exponent in pow_operands(t, t1):
        (got,) = kernel("Pow")(base, exponent)
        b, e = np.broadcast_arrays(base, exponent)
        assert got.shape == b.shape and got.dtype == base.dtype
        with np.errstate(all="ignore"):
            exact = np.power(b.astype(np.float64), e.astype(np.float64))
        if int_base and int_exp:
            valid = e >= 0 if ELEM_TYPES[t1].kind == "int" else np.ones(e.shape, bool)
            if np.result_type(b.dtype, e.dtype).kind == "f":  # NumPy takes int64 ** uint64 in double
                valid &= (np.abs(exact) <= EXACT_LIMIT) & (e.astype(np.float64) <= EXACT_LIMIT)
        elif int_base:  # float exponent: the references' float -> int cast is defined in range only
            info = np.iinfo(np_dtype(t))
            valid = np.isfinite(exact) & (exact > info.min - 1.0) & (exact < info.max + 1.0)
        else:
            valid = (np.abs(e.astype(np.float64)) <= EXACT_LIMIT) if int_exp else np.ones(e.shape, bool)
        feeds = {"X": np.array(np.where(valid, b, np.ones_like(b))),
                 "Y": np.array(np.where(valid, e, np.zeros_like(e)))}
        want = run_reference(model, feeds)
        assert_matches(got[valid], want[valid], t, f"Pow {t} {t1} {label} vs onnx.reference")
        ort = run_onnxruntime(model, feeds)
        if ort is not None:
            ok = valid
            if int_base and int_exp:  # onnxruntime goes through double: exact up to 2^53, no wrapping
                ok = valid & (np.abs(exact) <= EXACT_LIMIT) & (np.abs(b.astype(np.float64)) <= EXACT_LIMIT)
                ok &= np.abs(e.astype(np.float64)) <= EXACT_LIMIT
            assert_matches(got[ok], ort[ok], t, f"Pow {t} {t1} {label} vs onnxruntime")


@pytest.mark.parametrize("t", ["int32", "int64"])
def test_pow_integer_negative_exponents(t):
    """Note pow_integer: 1/lhs^-rhs truncated -- as onnxruntime (exponent widened to int64, same
    values), except 0 to a negative power, which is 0 here (onnxruntime: INT_MIN, note onnx_references)."""
    dt = np_dtype(t)
    base = np.array([1, -1, -1, 2, -2, 5, 0, 0], dt)
    exponent = np.array([-5, -3, -4, -1, -1, -2, -1, -2], np.int8)
    (got,) = kernel("Pow")(base, exponent)
    np.testing.assert_array_equal(got, np.array([1, -1, 1, 0, 0, 0, 0, 0], dt))
    ort = run_onnxruntime(pow_model(t, "int64"), {"X": base, "Y": exponent.astype(np.int64)})
    np.testing.assert_array_equal(got[:6], ort[:6])
    assert (ort[6:] == np.iinfo(dt).min).all()


@pytest.mark.parametrize("t", ["int32", "int64"])
def test_pow_integer_wraps(t):
    """Note pow_integer: exact power modulo 2^bits (onnx.reference agrees; onnxruntime gives INT_MIN)."""
    dt = np_dtype(t)
    base = np.array([3, 3, 2, -3, 7], dt)
    exponent = np.array([21, 100, 70, 41, 2 ** 62 + 1], np.int64)
    (got,) = kernel("Pow")(base, exponent)
    bits = np.iinfo(dt).bits
    expected = [pow(int(b), int(e), 2 ** bits) for b, e in zip(base, exponent)]
    expected = [v - 2 ** bits if v >= 2 ** (bits - 1) else v for v in expected]
    np.testing.assert_array_equal(got, np.array(expected, dt))
    if t == "int32":
        assert got[0] == 1870418611


@pytest.mark.parametrize("t", ["int32", "int64"])
@pytest.mark.parametrize("t1", ["float16", "float", "double"])
def test_pow_integer_base_float_exponent_saturates(t, t1):
    """Note pow_integer: pow in double, then XLA's float -> integer conversion (toward zero,
    saturating, NaN -> 0): jax.lax.pow in double followed by lax.convert_element_type."""
    dt = np_dtype(t)
    base = np.array([2, 0, 0, -8, 10, -10, 4, 3, 1], dt)
    exponent = np.array([0.5, -1.0, -2.0, 1 / 3, 30, 31, np.nan, np.inf, np.inf]).astype(np_dtype(t1))
    (got,) = kernel("Pow")(base, exponent)
    want = np.asarray(lax.convert_element_type(lax.pow(base.astype(np.float64), exponent.astype(np.float64)), dt))
    np.testing.assert_array_equal(got, want)
    assert got[0] == 1 and got[1] == np.iinfo(dt).max and got[3] == 0


@pytest.mark.parametrize("t", ["float16", "float", "double"])
@pytest.mark.parametrize("t1", ["int64", "uint64"])
def test_pow_float_base_keeps_exponent_parity(t, t1):
    """Note pow_float: an integer exponent keeps its parity beyond 2^53, where the references convert
    it to an even double (note onnx_references)."""
    dt = np_dtype(t)
    odd = np.iinfo(np_dtype(t1)).max  # 2^63 - 1 or 2^64 - 1: odd
    base = np.array([-1.0, -np.inf, -0.0, -1.0], dt)
    exponent = np.array([odd, odd, odd, odd - 1], np_dtype(t1))
    (got,) = kernel("Pow")(base, exponent)
    assert got[0] == -1 and np.isneginf(got[1]) and got[2] == 0 and np.signbit(got[2]) and got[3] == 1
    want = run_reference(pow_model(t, t1), {"X": base, "Y": exponent})
    assert want[0] == 1  # the reference's double exponent 2^63 (2^64) is even


def test_pow_special_values():
    """Note pow_float: C pow(): pow(NaN, 0) = 1, pow(-8, 1/3) = NaN, pow(-0, -1) = -inf, pow(1, NaN) = 1."""
    (got,) = kernel("Pow")(np.array([np.nan, -8.0, -0.0, 1.0, 0.0], np.float32),
                           np.array([0.0, 1 / 3, -1.0, np.nan, -2.0], np.float32))
    assert got[0] == 1 and np.isnan(got[1]) and np.isneginf(got[2]) and got[3] == 1 and np.isposinf(got[4])
    (got,) = kernel("Pow")(np.array([-0.0, -2.0], np.float16), np.array([-1, 3], np.int8))
    assert np.isneginf(got[0]) and got[1] == -8


def test_pow_broadcasts_multidirectionally():
    (got,) = kernel("Pow")(np.array([[2.0], [3.0]]), np.array([1, 2, 3], np.int32))
    np.testing.assert_array_equal(got, [[2, 4, 8], [3, 9, 27]])
    with pytest.raises(ValidationError):
        kernel("Pow")(np.zeros((2, 3)), np.zeros((2,), np.int32))


# ---- generated C: bit-exact against the NumPy kernels, XLA shapes, scalar bounds -----------------

EXACT_C_OPS = ["Add", "Sub", "Div", "Rem", "Max", "Min", "Clamp", "And", "Or", "Xor",
               "ShiftRightArithmetic", "ShiftRightLogical", "Atan2"]
C_CASES = [pytest.param(op, view["elem"], id=f"{op}-{view['elem']}")
           for op in EXACT_C_OPS for view in kernel_views(version(op))]


def storage_bits(x: np.ndarray) -> np.ndarray:
    return x.view(f"u{x.dtype.itemsize}") if x.dtype.kind != "b" else x


def test_every_formula_op_has_c_kernels():
    """Each element-wise op of this family gets C kernels for every type its spec allows."""
    for op in EXACT_C_OPS:
        assert sorted(view["elem"] for view in kernel_views(version(op))) == sorted(types(op)), op


@pytest.mark.parametrize("op,elem", C_CASES)
def test_c_matches_numpy_on_edges(c_library, op, elem):
    """Bit for bit (any NaN matches any NaN), so signed zeros and integer wrap-around are checked too;
    Atan2 (libm) within tolerance, with the sign of zeros exact."""
    v = version(op)
    n = len(v.inputs)
    sets = [("edges", edge_product([elem] * n))]
    if op == "Clamp":
        rng = np.random.default_rng(5)
        x = random_array(rng, (2, 3), elem)
        sets.append(("scalar bounds", [random_array(rng, (), elem, -2, 0), x, random_array(rng, (), elem, 0, 2)]))
    for label, inputs in sets:
        (want,) = kernel(op)(*inputs)
        status, got = call_c(c_library, v, elem, inputs, {}, want.shape)
        assert status == OPGEN_OK, f"{op} {elem} {label}: status {status}"
        if op == "Atan2":
            assert_same(got, want, elem, f"C {op} {elem} {label}")
            continue
        nan = np.isnan(want.astype(np.float64)) if ELEM_TYPES[elem].kind == "float" else np.zeros(want.shape, bool)
        if nan.any():
            np.testing.assert_array_equal(np.isnan(got.astype(np.float64)), nan, err_msg=f"{op} {elem} {label}")
        np.testing.assert_array_equal(storage_bits(got)[~nan], storage_bits(want)[~nan], err_msg=f"C {op} {elem} {label}")


@pytest.mark.parametrize("op,elem", [("Add", "float"), ("Add", "int8"), ("Div", "int32"), ("Div", "uint16"),
                                     ("And", "bool"), ("Xor", "bool")])
def test_c_xla_broadcast_dimensions(c_library, op, elem):
    v = version(op)
    rng = np.random.default_rng(3)
    for a_shape, b_shape, dims, out_shape in XLA_SHAPES:
        for s1, s2 in ((a_shape, b_shape), (b_shape, a_shape)):
            lhs, rhs = random_array(rng, s1, elem), random_array(rng, s2, elem)
            attrs = {} if dims is None else {"broadcast_dimensions": dims}
            (want,) = kernel(op)(lhs, rhs, **attrs)
            status, got = call_c(c_library, v, elem, [lhs, rhs], attrs, out_shape)
            assert status == OPGEN_OK, f"{op} {elem} {s1} {s2} {dims}"
            np.testing.assert_array_equal(storage_bits(got), storage_bits(want))
    # XLA's order rule: broadcast_dimensions strictly increasing (the identity for equal ranks)
    lhs, rhs = np.zeros((3, 3, 4), np_dtype(elem)), np.zeros((3, 3), np_dtype(elem))
    status, _ = call_c(c_library, v, elem, [lhs, rhs], {"broadcast_dimensions": [1, 0]}, (3, 3, 4))
    assert status == OPGEN_ERR_SHAPE
    square = np.zeros((3, 3), np_dtype(elem))
    status, _ = call_c(c_library, v, elem, [square, square], {"broadcast_dimensions": [1, 0]}, (3, 3))
    assert status == OPGEN_ERR_SHAPE
