"""The NumPy kernels' fused helpers (opgen.formula_fusions) give the bits of the formula they replace.

A fusion computes a formula subtree with one runtime helper in fewer passes over the data; it must not
change a single bit of any result. Each helper is compared here with the subtree as the unfused kernel
computes it (np.minimum/np.maximum, np.exp/np.log1p and _ew.select, the functions the formula's names are
emitted as), byte for byte, NaN payloads and zero signs included, on every pairing of edge values (signed
zeros, infinities, NaNs of both signs, subnormals, limits) and on random data. The kernels that use them
are compared with onnx.reference and onnxruntime elsewhere (test_onnx_kernels, the node tests).
"""
from __future__ import annotations

import ast
import itertools

import numpy as np
import pytest

import opgen_ops
from kernel_refs import edge_values, random_array
from opgen.formula_fusions import numpy_fusion
from opgen.runtime import elementwise as _ew

FLOATS = ("float16", "float", "double")
INTS = ("int8", "uint8", "int32", "int64")
NP = {"float16": np.float16, "float": np.float32, "double": np.float64, "int8": np.int8, "uint8": np.uint8,
      "int32": np.int32, "int64": np.int64}


def with_nans(dtype: str) -> np.ndarray:
    """edge_values plus a negative NaN and a NaN with a payload (the bits a helper could swap)."""
    values = edge_values(dtype)
    if values.dtype.kind != "f":
        return values
    bits = {2: np.uint16, 4: np.uint32, 8: np.uint64}[values.dtype.itemsize]
    negative_nan = -np.array([np.nan], values.dtype)
    payload = np.array([np.nan], values.dtype).view(bits) | bits(1)
    return np.concatenate([values, negative_nan, payload.view(values.dtype)])


def same_bits(got: np.ndarray, want: np.ndarray) -> bool:
    return got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()


def clamp_formula(x: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    return np.minimum(np.maximum(x, low), high)


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_clamp_gives_the_formulas_bits(dtype):
    """_ew.clamp == np.minimum(np.maximum(x, low), high) for every pair of edge bounds (zeros of both signs,
    NaNs, infinities, low > high), as 0-d bounds (np.clip's path and the zero checks) and as arrays (the
    formula's path), over inputs holding every edge value at several lengths and positions."""
    rng = np.random.default_rng(1)
    edges = with_nans(dtype)
    inputs = [edges, np.resize(edges, 1000), rng.permutation(np.resize(edges, 257)),
              random_array(rng, (40, 25), dtype, -3, 3), edges[:1]]
    with np.errstate(all="ignore"):
        for low, high in itertools.product(edges, edges):
            low0, high0 = np.array(low, edges.dtype), np.array(high, edges.dtype)
            for x in inputs:
                want = clamp_formula(x, low0, high0)
                assert same_bits(_ew.clamp(x, low0, high0), want), (dtype, low, high, x.size)
                full = np.full(x.shape, low, edges.dtype), np.full(x.shape, high, edges.dtype)
                assert same_bits(_ew.clamp(x, *full), clamp_formula(x, *full)), (dtype, low, high)


def test_clamp_finds_every_zero_tie_np_clip_decides_otherwise():
    """The cases np.clip alone gets wrong (it keeps x's zero where np.maximum/np.minimum return the bound's,
    measured on NumPy 2.4 for float32 and float64) go through the formula: without the zero checks these
    would fail. A zero of the bound's own sign and non-zero bounds keep the one-pass result."""
    for dtype in (np.float32, np.float64):
        x = np.array([-0.0, 0.0, 2.0, -2.0], dtype)
        for low, high in ((0.0, 6.0), (-0.0, 6.0), (-6.0, 0.0), (-6.0, -0.0), (0.0, -0.0), (-0.0, 0.0)):
            low0, high0 = np.array(low, dtype), np.array(high, dtype)
            assert same_bits(_ew.clamp(x, low0, high0), clamp_formula(x, low0, high0)), (low, high)
        relu6 = np.clip(x, np.array(0.0, dtype), np.array(6.0, dtype))
        assert not same_bits(relu6, clamp_formula(x, np.array(0.0, dtype), np.array(6.0, dtype))), \
            "np.clip now decides zero ties as np.maximum does: the zero checks could go"


@pytest.mark.parametrize("dtype", ("float", "double"))
def test_softplus_gives_the_formulas_bits(dtype):
    """_ew.softplus == where(x > 0, x + log1p(exp(-x)), log1p(exp(x))) as the unfused kernel computes it
    (_ew.select of both branches), on edge values and on random data across the range where exp and log1p
    round differently (ONNX Softplus computes float16 in float32, so these are the types it sees)."""
    rng = np.random.default_rng(2)
    x = np.concatenate([with_nans(dtype), random_array(rng, (5000,), dtype, -40, 40),
                        random_array(rng, (3000,), dtype, -1e-3, 1e-3)])
    with np.errstate(all="ignore"):
        want = _ew.select(x > 0, x + np.log1p(np.exp(-x)), np.log1p(np.exp(x)))
        assert same_bits(_ew.softplus(x), want)


@pytest.mark.parametrize("dtype", FLOATS)
def test_softsign_gives_the_formulas_bits(dtype):
    """_ew.softsign == x / (1 + abs(x)) as the unfused kernel computes it, 0-d and empty inputs included."""
    rng = np.random.default_rng(3)
    for x in (with_nans(dtype), random_array(rng, (50, 40), dtype, -1e4, 1e4), np.array(-2.5, NP[dtype]),
              np.zeros((0, 3), NP[dtype])):
        with np.errstate(all="ignore"):
            assert same_bits(_ew.softsign(x), x / (1 + np.abs(x))), (dtype, x.shape)


@pytest.mark.parametrize("dtype", ("int8", "uint8", "int32", "int64", "float16", "float", "double"))
def test_either_gives_the_selects_bits(dtype):
    """_ew.either(c, f, g) == _ew.select(c, f(), g()) for the pairs the fusion accepts (ONNX Mod's rem and mod,
    BitShift's shifts): a truth value computes one branch, an array condition both; operands broadcast
    ((3, 1) with (4,), 0-d), divisors and shift amounts include 0 and the edge values."""
    rng = np.random.default_rng(4)
    edges = with_nans(dtype)
    pairs = [(edges[:, None], edges[None, :]), (random_array(rng, (3, 1), dtype, -9, 9),
                                                random_array(rng, (4,), dtype, -9, 9)), (edges[3], edges)]
    families = [(_ew.xla_rem, _ew.floor_mod)]
    if NP[dtype] in (np.uint8, np.int32, np.int64, np.int8):
        families.append((_ew.shift_left, _ew.shift_right))
    with np.errstate(all="ignore"):
        for first, second in families:
            for a, b in pairs:
                if first is _ew.shift_left:
                    b = np.abs(b.astype(np.int64)).astype(NP[dtype]) % 11  # amounts 0..10
                want_true, want_false = first(a, b), second(a, b)
                for flag in (True, False, np.bool_(True), np.bool_(False)):
                    want = _ew.select(flag, want_true, want_false)
                    assert same_bits(_ew.either(flag, lambda: first(a, b), lambda: second(a, b)), want), \
                        (first.__name__, flag)
                condition = rng.random(np.broadcast_shapes(np.shape(a), np.shape(b))) < 0.5
                assert same_bits(_ew.either(condition, lambda: first(a, b), lambda: second(a, b)),
                                 _ew.select(condition, want_true, want_false))


@pytest.mark.parametrize("dtype", FLOATS)
def test_inf_flags_gives_the_formulas_values(dtype):
    """_ew.inf_flags(x, p, n) holds the values of where(isfinite(x), 0, where(x > 0, p, where(x < 0, n, 0))):
    with flags 0 or 1 as booleans (IsInf's output type; the kernel's result is then bit-identical, and
    equal in every numeric type the values could be rounded to), other flags in the formula's own type."""
    x = np.concatenate([with_nans(dtype), random_array(np.random.default_rng(6), (300,), dtype)])
    for p, n in itertools.product((0, 1, 2, -3), repeat=2):
        want = _ew.select(np.isfinite(x), 0, _ew.select(x > 0, p, _ew.select(x < 0, n, 0)))
        got = _ew.inf_flags(x, p, n)
        if p in (0, 1) and n in (0, 1):
            assert got.dtype == np.bool_ and same_bits(got, want.astype(np.bool_)), (p, n)
            assert same_bits(got.astype(want.dtype), want), (p, n)
        else:
            assert same_bits(got, want), (p, n)
    (flags,) = opgen_ops.get_kernel("onnx", "IsInf", 20)(x, detect_negative=0)
    assert same_bits(flags, np.isposinf(x))


def test_fold_never_returns_or_aliases_its_input():
    """_ew.fold no longer copies the first array when others follow; the result still never is (or views)
    an input: a single array is copied, and so is a step's result that hands back an operand."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.full((2, 3), 2.5, np.float32)
    (single,) = opgen_ops.get_kernel("onnx", "Max", 13)(x)
    assert np.array_equal(single, x) and not np.may_share_memory(single, x)
    (pair,) = opgen_ops.get_kernel("onnx", "Max", 13)(x, y)
    assert np.array_equal(pair, np.maximum(x, y)) and not np.may_share_memory(pair, x)
    handed_back = _ew.fold([x, y], np.dtype(np.float32), lambda acc, item: acc)
    assert np.array_equal(handed_back, x) and not np.may_share_memory(handed_back, x)
    widened = _ew.fold([x, y], np.dtype(np.float64), lambda acc, item: acc + item)
    assert widened.dtype == np.float64 and np.array_equal(widened, x.astype(np.float64) + 2.5)


@pytest.mark.parametrize("text, helper", [
    ("minimum(maximum(input, min), max)", "_ew.clamp"),
    ("ieee_minimum(ieee_maximum(x, low), high)", "_ew.ieee_clamp"),
    ("where(X > 0, X + log1p(exp(-X)), log1p(exp(X)))", "_ew.softplus"),
    ("where(a * b > 0, a * b + log1p(exp(-(a * b))), log1p(exp(a * b)))", "_ew.softplus"),
    ("where(fmod == 1, rem(A, B), mod(A, B))", "_ew.either"),
    ("where(direction == 'LEFT', shift_left(X, Y), shift_right(X, Y))", "_ew.either"),
    ("input / (1 + abs(input))", "_ew.softsign"),
    ("where(isfinite(X), 0, where(X > 0, detect_positive, where(X < 0, detect_negative, 0)))", "_ew.inf_flags"),
    ("where(isfinite(X), 0, where(X > 0, p, where(Y < 0, n, 0)))", None),  # another operand
    ("where(isfinite(X), 1, where(X > 0, p, where(X < 0, n, 0)))", None),
    ("input / (1 + abs(other))", None),
    ("input / (2 + abs(input))", None),
    ("where(fmod == 1, rem(A, B), mod(B, A))", None),  # other operands: other shapes and types possible
    ("where(fmod == 1, rem(A, B), A / B)", None),
    ("where(flag, shift_left(X, Y), rem(X, Y))", None),  # not one family
    ("maximum(minimum(input, max), min)", None),  # the other order: not the clamp the helper computes
    ("minimum(ieee_maximum(x, low), high)", None),  # mixed semantics
    ("where(X > 0, X + log1p(exp(-Y)), log1p(exp(X)))", None),  # another operand
    ("where(X >= 0, X + log1p(exp(-X)), log1p(exp(X)))", None),
    ("where(X > 0, X + log1p(exp(-X)), log(exp(X)))", None),
])
def test_fusions_match_exactly_their_subtree(text, helper):
    fused = numpy_fusion(ast.parse(text, mode="eval").body)
    assert (fused[0] if fused else None) == helper


def test_the_generated_kernels_use_the_fused_helpers():
    """ONNX Clip, Softplus, Mod, BitShift, Softsign and IsInf (every version) and oneDNN Clamp are emitted
    through the helpers."""
    import inspect

    from opgen_ops.onednn import clamp as onednn_clamp
    from opgen_ops.onnx import bitshift, clip, isinf, mod, softplus, softsign

    for module, helper in ((clip, "_ew.clamp("), (softplus, "_ew.softplus("), (onednn_clamp, "_ew.clamp("),
                           (mod, "_ew.either("), (bitshift, "_ew.either("), (softsign, "_ew.softsign("),
                           (isinf, "_ew.inf_flags(")):
        for version, kernel in module.KERNELS.items():
            assert helper in inspect.getsource(kernel), (module.__name__, version)
