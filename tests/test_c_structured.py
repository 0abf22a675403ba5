"""The structured C kernels (reductions, ArgMax/ArgMin, Softmax, data movement, ONNX Pad, DotGeneral, Gemm) agree
with the NumPy kernels on random shapes and dimension numbers, called through ctypes from the shared test library.

Exact where the C kernel computes what the NumPy kernel computes in the same order: Reduce (a left fold in the
input's row-major order, as the NumPy kernel folds; so ADD and MUL agree bit for bit too), ArgMax/ArgMin and the
data movement ops. Softmax sums in another order (eight interleaved partial sums along the last dimension, axis
order along another; NumPy sums pairwise) and DotGeneral's NumPy kernel
sums through BLAS in an order of its own: both within opgen.testing.TOLERANCES of the element type."""
from __future__ import annotations

import numpy as np
import pytest
from c_harness import OPGEN_ERR_ARGUMENT, OPGEN_ERR_NOT_IMPLEMENTED, OPGEN_ERR_SHAPE, OPGEN_OK, call_c
from conftest import project_specs
from onnx_refs import random_input

import opgen_ops
from opgen.dtypes import ELEM_TYPES
from opgen.render.c_structured import structured_views
from opgen.testing import TOLERANCES

SPECS = project_specs()


def version(domain: str, op: str, since: int = 1):
    return SPECS.find(domain, op).resolve(since)


def numpy_kernel(v):
    return opgen_ops.get_kernel(v.domain, v.op, v.since_version)


def assert_same(got: np.ndarray, want: np.ndarray, label: str) -> None:
    """Equal values, NaN where NaN, and the same sign of every zero."""
    assert got.shape == want.shape, label
    if want.dtype.kind == "f" or want.dtype == np.float16:
        g, w = got.astype(np.float64), want.astype(np.float64)
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w), err_msg=f"{label}: NaN positions")
        np.testing.assert_array_equal(np.signbit(g[g == 0]), np.signbit(w[g == 0]), err_msg=f"{label}: zero signs")
    np.testing.assert_array_equal(got, want, err_msg=label)


def random_shape(rng: np.random.Generator, rank: int, largest: int = 5) -> tuple[int, ...]:
    return tuple(int(n) for n in rng.integers(1, largest + 1, size=rank))


def test_structured_kernels_cover_the_first_families():
    typed = {(view["key"], view["elem"]) for op in SPECS.domain("hlir").ops for v in op.versions
             for view in structured_views(v)}
    for key in ("hlir.Reduce@1", "hlir.ArgMax@1", "hlir.ArgMin@1", "hlir.Softmax@1", "hlir.Transpose@1",
                "hlir.Concatenate@1", "hlir.Slice@1", "hlir.Pad@1", "hlir.BroadcastInDim@1", "hlir.DotGeneral@1"):
        assert (key, "float") in typed, key
    assert ("hlir.Reduce@1", "float16") in typed and ("hlir.Reduce@1", "int8") in typed
    assert ("hlir.Transpose@1", "bool") in typed and ("hlir.Transpose@1", "bfloat16") in typed
    onnx = {view["key"] for v in (version("onnx", "Softmax", 13), version("onnx", "LogSoftmax", 13))
            for view in structured_views(v)}
    assert onnx == {"onnx.Softmax@13", "onnx.LogSoftmax@13"}


# ---- Reduce ---------------------------------------------------------------------------------------

REDUCE_ELEMS = ["float", "double", "float16", "int8", "int32", "uint64"]
# Fixed cases beside the random ones: nothing reduced, everything, an empty reduced dimension, an empty output,
# a scalar, and outputs over more than one block (OPGEN_REDUCE_BLOCK, 1024) both dense and strided.
REDUCE_CASES = [((3, 4, 5), []), ((3, 4, 5), [0, 1, 2]), ((2, 0, 3), [1]), ((0, 3), [1]), ((), []),
                ((700, 3), [0]), ((3, 600), [1]), ((2, 1100), [0]), ((550, 2, 2), [1])]


# StablehloReduce (StableHLO's reduce: bool and bfloat16 too) shares Reduce's kernels, NumPy and C.
@pytest.mark.parametrize("op,elem", [("Reduce", e) for e in REDUCE_ELEMS] +
                         [("StablehloReduce", "bfloat16"), ("StablehloReduce", "int32")])
def test_reduce_matches_numpy(c_library, op, elem):
    v = version("hlir", op)
    kernel = numpy_kernel(v)
    rng = np.random.default_rng(11)
    cases = list(REDUCE_CASES)
    for _ in range(12):  # random ranks, shapes and sets of dimensions (in any order)
        shape = random_shape(rng, int(rng.integers(1, 5)))
        dims = [int(d) for d in rng.permutation(len(shape))[: int(rng.integers(0, len(shape) + 1))]]
        cases.append((shape, dims))
    for shape, dims in cases:
        for computation in ("ADD", "MUL", "MAX", "MIN"):
            x = random_input(rng, shape, elem)
            if computation == "MUL" and ELEM_TYPES[elem].kind == "float":
                x = (1 + x / 8).astype(x.dtype)  # products of many factors near 1 stay finite
            init = random_input(rng, (), elem).reshape(())
            attrs = {"computation": computation, "dimensions": dims}
            (want,) = kernel(x, init, **attrs)
            status, got = call_c(c_library, v, elem, [x, init], attrs, want.shape)
            assert status == OPGEN_OK, (shape, dims, computation)
            assert_same(got, want, f"{elem} {shape} {dims} {computation}")


@pytest.mark.parametrize("elem", ["float", "float16", "double"])
def test_reduce_max_min_nan_and_signed_zeros(c_library, elem):
    """MAX/MIN propagate NaN and order -0.0 below +0.0, whichever element or the initial value holds them."""
    v = version("hlir", "Reduce")
    kernel = numpy_kernel(v)
    dtype = ELEM_TYPES[elem].numpy
    values = np.array([0.0, -0.0, np.nan, 1.0, -1.0, np.inf, -np.inf], dtype)
    rows = np.array(np.meshgrid(values, values, values, indexing="ij")).reshape(3, -1).T.copy()  # (343, 3)
    for init in values:
        for computation in ("MAX", "MIN"):
            for dims in ([1], [0, 1]):
                attrs = {"computation": computation, "dimensions": dims}
                (want,) = kernel(rows, np.array(init, dtype), **attrs)
                status, got = call_c(c_library, v, elem, [rows, np.array(init, dtype)], attrs, want.shape)
                assert status == OPGEN_OK
                assert_same(got, want, f"{elem} init {init} {computation} {dims}")
    # Rows longer than the vector lanes (four groups of 32 bytes, the last ones partly filled): a NaN late in
    # the row, one in the tail after the last full round of groups, none (the zero signs of a row of zeros),
    # a NaN first, and a NaN in each lane group in turn (at 4-element steps: every group of 8 float or 4
    # double lanes).
    long_rows = np.zeros((12, 2051), dtype)
    long_rows[0, 1500] = long_rows[1, 2050] = long_rows[3, 0] = np.nan
    long_rows[2, ::3] = -0.0
    long_rows[3, 7] = 5.0
    for j in range(8):
        long_rows[4 + j, 1024 + 4 * j] = np.nan
    for init in (np.array(-np.inf, dtype), np.array(-0.0, dtype), np.array(0.0, dtype)):
        for computation in ("MAX", "MIN"):
            attrs = {"computation": computation, "dimensions": [1]}
            (want,) = kernel(long_rows, init, **attrs)
            status, got = call_c(c_library, v, elem, [long_rows, init], attrs, want.shape)
            assert status == OPGEN_OK
            assert_same(got, want, f"{elem} long rows init {init} {computation}")


def test_reduce_reports_what_it_does_not_compute(c_library):
    v = version("hlir", "Reduce")
    x, init = np.ones((2, 3), np.float32), np.array(0, np.float32)
    for attrs, expected in (({"computation": "L2", "dimensions": [1]}, OPGEN_ERR_NOT_IMPLEMENTED),
                            ({"computation": "SUM", "dimensions": [1]}, OPGEN_ERR_ARGUMENT),
                            ({"computation": "ADD", "dimensions": [2]}, OPGEN_ERR_ARGUMENT),
                            ({"computation": "ADD", "dimensions": [1, 1]}, OPGEN_ERR_ARGUMENT)):
        status, _ = call_c(c_library, v, "float", [x, init], attrs, (2,))
        assert status == expected, attrs
    status, _ = call_c(c_library, v, "float", [x, np.zeros((1,), np.float32)], {"computation": "ADD",
                                                                                "dimensions": [1]}, (2,))
    assert status == OPGEN_ERR_SHAPE  # the initial value is a scalar


# ---- ArgMax / ArgMin ------------------------------------------------------------------------------


@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
@pytest.mark.parametrize("elem", ["float", "float16", "int16", "uint8"])
def test_argmax_argmin_match_numpy(c_library, op, elem):
    """Random shapes and axes, ties (small integers, repeated values), NaN (the first or last one wins) and
    rows longer than the eight lanes."""
    v = version("hlir", op)
    kernel = numpy_kernel(v)
    rng = np.random.default_rng(5)
    cases = [((3, 21), 1), ((21, 3), 0), ((2, 3, 17), 2), ((1,), 0), ((4, 1, 2), 1), ((3, 1030), 0)]
    cases += [(random_shape(rng, r, 9), int(rng.integers(0, r))) for r in rng.integers(1, 4, size=8)]
    cases.append(((6, 301), 1))  # rows longer than the position search's chunks, NaNs placed below
    cases.append(((9, 301), 1))  # a single NaN in each lane group of the first pass in turn, then in its tail
    for shape, axis in cases:
        x = np.asarray(rng.integers(-3, 4, size=shape)).astype(ELEM_TYPES[elem].numpy) if elem != "uint8" \
            else rng.integers(0, 4, size=shape).astype(np.uint8)
        if ELEM_TYPES[elem].kind == "float" and shape == (6, 301):
            x[1, 5] = x[2, 250] = x[3, 0] = x[5, 100] = x[5, 200] = np.nan  # before or after the extremes
            x[4] = np.nan
            x[0, ::5] = -0.0
        elif ELEM_TYPES[elem].kind == "float" and shape == (9, 301):
            for j in range(8):  # 4-element steps: every group of 8 lanes (four groups of 32 elements a round)
                x[j, 64 + 4 * j] = np.nan
            x[8, 295] = np.nan  # after the last full round (288 elements)
        elif ELEM_TYPES[elem].kind == "float":
            x.flat[rng.integers(0, x.size, size=x.size // 7)] = np.nan
            x.flat[rng.integers(0, x.size, size=x.size // 7)] = -0.0
        for keepdims in (False, True):
            for last in (False, True):
                attrs = {"axis": axis, "keepdims": keepdims, "select_last_index": last}
                (want,) = kernel(x, **attrs)
                status, got = call_c(c_library, v, elem, [x], attrs, want.shape, "int64")
                assert status == OPGEN_OK
                np.testing.assert_array_equal(got, want, err_msg=f"{op} {elem} {shape} {attrs}")
    status, _ = call_c(c_library, v, elem, [np.zeros((2, 0), ELEM_TYPES[elem].numpy)], {"axis": 1}, (2,), "int64")
    assert status == OPGEN_ERR_SHAPE  # no elements: no index
    status, _ = call_c(c_library, v, elem, [x], {"axis": -1}, (2,), "int64")
    assert status == OPGEN_ERR_ARGUMENT  # hlir's axis does not count from the back (C1)


# ---- Softmax --------------------------------------------------------------------------------------


@pytest.mark.parametrize("elem", ["float", "double", "float16"])
def test_softmax_matches_numpy(c_library, elem):
    v = version("hlir", "Softmax")
    kernel = numpy_kernel(v)
    rng = np.random.default_rng(3)
    rtol, atol = TOLERANCES[elem]
    cases = [((4, 37), -1), ((5, 6, 7), 1), ((3, 2), 0), ((1000,), 0), ((2, 0, 3), 2), ((3, 1030), 0)]
    cases += [(random_shape(rng, r, 12), int(rng.integers(-r, r))) for r in rng.integers(1, 4, size=4)]
    flags = [{"accurate": True}, {"accurate": True, "logarithmic": True}, {"accurate": False},
             {"accurate": True, "epsilon": 0.5}, {"accurate": False, "logarithmic": True, "epsilon": 1e-3}]
    for shape, axis in cases:
        x = random_input(rng, shape, elem)
        for given in flags:
            attrs = {"axis": axis, **given}
            (want,) = kernel(x, **attrs)
            status, got = call_c(c_library, v, elem, [x], attrs, want.shape)
            assert status == OPGEN_OK
            np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol,
                                       err_msg=f"{elem} {shape} {attrs}")
    x = np.array([[1.0, np.nan, 2.0], [np.inf, 1.0, 0.0], [-np.inf, 0.0, 1.0]], ELEM_TYPES[elem].numpy)
    (want,) = kernel(x, axis=1, accurate=True)
    status, got = call_c(c_library, v, elem, [x], {"axis": 1, "accurate": True}, x.shape)
    np.testing.assert_array_equal(np.isnan(got.astype(np.float64)), np.isnan(want.astype(np.float64)))
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol)


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
def test_onnx_softmax13_matches_numpy(c_library, op):
    """ONNX Softmax-13 / LogSoftmax-13 (one axis, max-subtracted): the same C family."""
    v = version("onnx", op, 13)
    kernel = numpy_kernel(v)
    rng = np.random.default_rng(4)
    for elem in ("float", "bfloat16"):
        rtol, atol = TOLERANCES[elem]
        for shape, axis in (((3, 50), -1), ((4, 5, 6), 1), ((7,), 0)):
            x = random_input(rng, shape, elem)
            (want,) = kernel(x, axis=axis)
            status, got = call_c(c_library, v, elem, [x], {"axis": axis}, want.shape)
            assert status == OPGEN_OK
            np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol)


# ---- data movement --------------------------------------------------------------------------------

MOVEMENT_ELEMS = ["float", "bool", "float16", "int64", "uint8"]


def movement_input(rng: np.random.Generator, shape, elem: str) -> np.ndarray:
    return rng.random(shape) < 0.5 if elem == "bool" else random_input(rng, shape, elem)


def check_movement(lib, v, elem, inputs, attrs, **call) -> None:
    (want,) = numpy_kernel(v)(*inputs, **attrs, **({"output_shape": call["output_shape"]}
                                                   if "output_shape" in call else {}))
    status, got = call_c(lib, v, elem, inputs, attrs, want.shape, variadic=call.get("variadic", False),
                         shape_parameter="output_shape" in call)
    assert status == OPGEN_OK, (v.key, elem, [x.shape for x in inputs], attrs)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want, err_msg=f"{v.key} {elem} {attrs}")
    assert got.tobytes() == np.ascontiguousarray(want).tobytes(), f"{v.key} {elem} {attrs}: bits differ"


@pytest.mark.parametrize("elem", MOVEMENT_ELEMS)
def test_transpose_slice_broadcast_concatenate_match_numpy(c_library, elem):
    """Bit for bit, on random shapes, permutations, boxes, broadcast dimensions and concatenations; the 2-D
    transposes are larger than one copy tile (64), a slice takes every second element of rows (the stride-2 row
    copy)."""
    rng = np.random.default_rng(9)
    transpose, slice_ = version("hlir", "Transpose"), version("hlir", "Slice")
    broadcast, concatenate = version("hlir", "BroadcastInDim"), version("hlir", "Concatenate")
    for shape, perm in (((140, 75), [1, 0]), ((3, 40, 33), [0, 2, 1]), ((2, 3, 4), [2, 0, 1]), ((), []),
                        ((0, 3), [1, 0])):
        check_movement(c_library, transpose, elem, [movement_input(rng, shape, elem)], {"permutation": perm})
    check_movement(c_library, slice_, elem, [movement_input(rng, (5, 41), elem)],
                   {"start_indices": [1, 1], "limit_indices": [5, 40], "strides": [1, 2]})
    for _ in range(10):
        shape = random_shape(rng, int(rng.integers(1, 5)), 6)
        x = movement_input(rng, shape, elem)
        check_movement(c_library, transpose, elem, [x], {"permutation": [int(p) for p in rng.permutation(len(shape))]})
        starts = [int(rng.integers(0, n + 1)) for n in shape]
        limits = [int(rng.integers(s, n + 1)) for s, n in zip(starts, shape)]
        check_movement(c_library, slice_, elem, [x], {"start_indices": starts, "limit_indices": limits,
                                                      "strides": [int(s) for s in rng.integers(1, 4, len(shape))]})
        out_rank = len(shape) + int(rng.integers(0, 3))
        dims = sorted(int(d) for d in rng.permutation(out_rank)[: len(shape)])
        dims = [int(d) for d in rng.permutation(dims)] if rng.random() < 0.3 else dims  # any distinct order
        out_shape = [int(rng.integers(1, 4)) for _ in range(out_rank)]
        source = list(shape)
        for k, d in enumerate(dims):
            source[k] = 1 if rng.random() < 0.4 else out_shape[d]
        check_movement(c_library, broadcast, elem, [movement_input(rng, tuple(source), elem)],
                       {"broadcast_dimensions": dims}, output_shape=out_shape)
        axis = int(rng.integers(0, len(shape)))
        parts = []
        for _ in range(int(rng.integers(1, 4))):
            part = list(shape)
            part[axis] = int(rng.integers(0, 4))
            parts.append(movement_input(rng, tuple(part), elem))
        check_movement(c_library, concatenate, elem, parts, {"dimension": axis}, variadic=True)
    status, _ = call_c(c_library, slice_, elem, [movement_input(rng, (4,), elem)],
                       {"start_indices": [3], "limit_indices": [2], "strides": [1]}, (0,))
    assert status == OPGEN_ERR_ARGUMENT  # start beyond limit
    status, _ = call_c(c_library, concatenate, elem, [movement_input(rng, (2, 3), elem),
                                                      movement_input(rng, (2, 4), elem)], {"dimension": 0},
                       (4, 3), variadic=True)
    assert status == OPGEN_ERR_SHAPE


@pytest.mark.parametrize("elem", ["float", "int16", "float16"])
def test_pad_matches_numpy(c_library, elem):
    """PAD_VALUE with low, high and interior padding, negative amounts included (they remove elements of the
    interior-padded data)."""
    v = version("hlir", "Pad")
    rng = np.random.default_rng(2)
    cases = [((3, 4), [1, 2], [2, 0], [0, 1]), ((5,), [-2], [-1], [2]), ((4, 3), [-3, 1], [2, -2], [1, 0]),
             ((0, 2), [1, 1], [1, 0], [3, 1]), ((2, 2), [-5, 0], [3, 0], [1, 0]), ((), [], [], [])]
    for _ in range(10):
        shape = random_shape(rng, int(rng.integers(1, 4)), 5)
        interior = [int(i) for i in rng.integers(0, 3, len(shape))]
        padded = [n + max(n - 1, 0) * i for n, i in zip(shape, interior)]
        low = [int(rng.integers(-p // 2, 3)) for p in padded]
        high = [int(rng.integers(-(p + min(lo, 0)) // 2, 3)) for p, lo in zip(padded, low)]
        cases.append((shape, low, high, interior))
    for shape, low, high, interior in cases:
        x = random_input(rng, shape, elem)
        value = random_input(rng, (), elem).reshape(())
        attrs = {"mode": "PAD_VALUE", "edge_padding_low": low, "edge_padding_high": high, "interior_padding": interior}
        check_movement(c_library, v, elem, [x, value], attrs)
    status, _ = call_c(c_library, v, elem, [random_input(rng, (3,), elem), value],
                       {"mode": "PAD_VALUE", "edge_padding_low": [-2], "edge_padding_high": [-2],
                        "interior_padding": [0]}, (0,))
    assert status == OPGEN_ERR_SHAPE  # removes more than there is


@pytest.mark.parametrize("mode", ["PAD_EDGE", "PAD_REFLECT", "PAD_SYMMETRIC"])
def test_pad_modes_match_numpy(c_library, mode):
    """The modes that read the input everywhere: random shapes and amounts up to what the mode allows on the
    elements a negative amount leaves, a rank-0 input, an empty dimension; too wide padding and interior padding
    are errors."""
    v = version("hlir", "Pad")
    rng = np.random.default_rng(3)
    wide = {"PAD_EDGE": 6, "PAD_REFLECT": -1, "PAD_SYMMETRIC": 0}[mode]  # the most one end may add, beyond kept
    cases = [((), [], []), ((0, 3), [0, 1], [0, 2] if mode == "PAD_SYMMETRIC" else [0, 1]), ((1, 300), [0, 3], [0, 2])]
    for _ in range(10):
        shape = random_shape(rng, int(rng.integers(1, 4)), 6)
        low, high = [], []
        for n in shape:  # each end removes up to a third of the elements or adds up to what the mode allows
            cuts = [int(x) for x in rng.integers(0, n // 3 + 1, 2)]
            kept = n - sum(cuts)
            most = kept + wide if kept else 0
            adds = [int(x) for x in rng.integers(0, most + 1, 2)]
            ends = [-cut if rng.random() < 0.4 else add for cut, add in zip(cuts, adds)]
            low.append(ends[0])
            high.append(ends[1])
        cases.append((shape, low, high))
    for elem in ("float", "int16"):
        for shape, low, high in cases:
            x = random_input(rng, shape, elem)
            value = random_input(rng, (), elem).reshape(())
            attrs = {"mode": mode, "edge_padding_low": low, "edge_padding_high": high,
                     "interior_padding": [0] * len(shape)}
            check_movement(c_library, v, elem, [x, value], attrs)
    x, value = random_input(rng, (3,), "float"), np.zeros((), np.float32)
    errors = [([-3], [1], [0], OPGEN_ERR_SHAPE),  # adds next to no element
              ([1], [0], [1], OPGEN_ERR_ARGUMENT)]  # interior padding
    if mode != "PAD_EDGE":
        errors.append(([4], [0], [0], OPGEN_ERR_SHAPE))  # mirrors more than three elements give
    for low, high, interior, error in errors:
        attrs = {"mode": mode, "edge_padding_low": low, "edge_padding_high": high, "interior_padding": interior}
        status, _ = call_c(c_library, v, "float", [x, value], attrs, (7,))
        assert status == error, attrs


# ---- DotGeneral -----------------------------------------------------------------------------------


def random_dot(rng: np.random.Generator, largest: int) -> tuple[list[int], list[int], dict]:
    """Operand shapes and dimension numbers: batch, contracting and free dimensions in a random order."""
    nb, nc, nl, nr = (int(n) for n in rng.integers(0, 3, 4))
    b = [int(n) for n in rng.integers(1, largest, nb)]
    c = [int(n) for n in rng.integers(1, largest, nc)]
    lhs_kinds = [("b", k) for k in range(nb)] + [("c", k) for k in range(nc)] + [("f", k) for k in range(nl)]
    rhs_kinds = [("b", k) for k in range(nb)] + [("c", k) for k in range(nc)] + [("f", k) for k in range(nr)]
    # the batching dimensions at the same positions in both operands (the spec's C3), the others anywhere
    lhs_kinds = lhs_kinds[:nb] + [lhs_kinds[nb + i] for i in rng.permutation(len(lhs_kinds) - nb)]
    rhs_kinds = rhs_kinds[:nb] + [rhs_kinds[nb + i] for i in rng.permutation(len(rhs_kinds) - nb)]

    def shape(kinds):
        return [b[k] if kind == "b" else c[k] if kind == "c" else int(rng.integers(1, largest)) for kind, k in kinds]

    def where(kinds, kind):
        return [kinds.index((kind, k)) for k in range(nb if kind == "b" else nc)]

    attrs = {"lhs_batching_dimensions": where(lhs_kinds, "b"), "rhs_batching_dimensions": where(rhs_kinds, "b"),
             "lhs_contracting_dimensions": where(lhs_kinds, "c"), "rhs_contracting_dimensions": where(rhs_kinds, "c")}
    return shape(lhs_kinds), shape(rhs_kinds), attrs


@pytest.mark.parametrize("elem", ["float", "double", "float16", "int32", "uint8"])
def test_dot_general_matches_numpy(c_library, elem):
    """Random dimension numbers (batching and contracting dimensions anywhere), and a matrix product wider than
    one tile (8 x 256). Integers exactly (they wrap around); floats within TOLERANCES (NumPy sums in BLAS's
    order)."""
    v = version("hlir", "DotGeneral")
    kernel = numpy_kernel(v)
    rng = np.random.default_rng(8)
    rtol, atol = TOLERANCES.get(elem, (0, 0))
    plain = {"lhs_batching_dimensions": [], "rhs_batching_dimensions": [], "lhs_contracting_dimensions": [1],
             "rhs_contracting_dimensions": [0]}
    cases = [([19, 40], [40, 300], plain), ([3, 0], [0, 4], plain), ([2, 0], [0, 3], plain)]
    cases += [random_dot(rng, 6) for _ in range(14)]
    for lhs_shape, rhs_shape, attrs in cases:
        lhs, rhs = random_input(rng, tuple(lhs_shape), elem), random_input(rng, tuple(rhs_shape), elem)
        (want,) = kernel(lhs, rhs, **attrs)
        status, got = call_c(c_library, v, elem, [lhs, rhs], attrs, want.shape)
        assert status == OPGEN_OK, (lhs_shape, rhs_shape, attrs)
        if ELEM_TYPES[elem].kind == "float":
            scale = np.abs(lhs.astype(np.float64)).max(initial=1) * np.abs(rhs.astype(np.float64)).max(initial=1)
            np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol,
                                       atol=atol * scale * max(lhs.size, 1) ** 0.5, err_msg=f"{elem} {attrs}")
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"{elem} {lhs_shape} {rhs_shape} {attrs}")
    status, _ = call_c(c_library, v, elem, [random_input(rng, (2, 3), elem), random_input(rng, (4, 2), elem)],
                       plain, (2, 2))
    assert status == OPGEN_ERR_SHAPE  # contracting sizes differ


# ---- Gemm -----------------------------------------------------------------------------------------


def gemm_cases(rng: np.random.Generator) -> list[tuple[tuple[int, int, int], dict, tuple[int, ...] | None]]:
    """((M, K, N), attributes, C's shape or None for no C): every transA/transB, each way C broadcasts, beta 0,
    a product wider than one tile (8 x 256), a transposed B wider than one of its tiles (32 x 64, partial tiles at
    both ends), an empty K."""
    cases: list[tuple[tuple[int, int, int], dict, tuple[int, ...] | None]] = [
        ((19, 40, 300), {"alpha": 0.75, "beta": -1.5, "transA": 0, "transB": 0}, (19, 300)),
        ((70, 33, 150), {"alpha": 0.5, "beta": 2.0, "transA": 1, "transB": 1}, (150,)),
        ((3, 0, 4), {"alpha": 1.0, "beta": 1.0, "transA": 1, "transB": 0}, (3, 4))]
    # C's shape from (M, N): absent, a scalar, (1,), (N,), (1, N), (M, 1), (M, N)
    c_shapes = [lambda m, n: None, lambda m, n: (), lambda m, n: (1,), lambda m, n: (n,), lambda m, n: (1, n),
                lambda m, n: (m, 1), lambda m, n: (m, n)]
    for k, c_shape in enumerate(c_shapes):
        m, kk, n = (int(x) for x in rng.integers(1, 7, 3))
        attrs = {"alpha": [1.0, -0.5, 2.0][k % 3], "beta": [1.0, 0.25, 0.0][k % 3], "transA": k % 2,
                 "transB": (k // 2) % 2}
        cases.append(((m, kk, n), attrs, c_shape(m, n)))
    return cases


@pytest.mark.parametrize("domain,since,elem", [("hlir", 1, "float"), ("onnx", 13, "float16"), ("onnx", 13, "bfloat16"),
                                               ("onnx", 11, "double"), ("onnx", 7, "float"), ("onnx", 6, "float")])
def test_gemm_matches_numpy(c_library, domain, since, elem):
    """Y = alpha A' B' + beta C against the NumPy kernel, within TOLERANCES scaled by the sums' sizes (the NumPy
    kernel sums through BLAS in its own order). beta == 0 does not read C: its infinities stay out of Y."""
    v = version(domain, "Gemm", since)
    kernel = numpy_kernel(v)
    rng = np.random.default_rng(18)
    rtol, atol = TOLERANCES[elem]
    legacy = domain == "onnx" and since < 7
    c_optional = v.inputs[2].option == "optional"
    for (m, k, n), attrs, c_shape in gemm_cases(rng):
        if legacy:
            attrs = dict(attrs, broadcast=1)
        if c_shape is None and not c_optional:  # Gemm before 11 takes C
            c_shape = (1,)
        a = random_input(rng, (k, m) if attrs["transA"] else (m, k), elem)
        b = random_input(rng, (n, k) if attrs["transB"] else (k, n), elem)
        c = None if c_shape is None else random_input(rng, c_shape, elem)
        if c is not None and attrs["beta"] == 0:
            c = np.full(c_shape, np.inf, c.dtype)  # not read
        (want,) = kernel(a, b, c, **attrs)
        status, got = call_c(c_library, v, elem, [a, b, c], attrs, want.shape)
        assert status == OPGEN_OK, (m, k, n, attrs, c_shape)
        scale = np.abs(a.astype(np.float64)).max(initial=1) * np.abs(b.astype(np.float64)).max(initial=1)
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol,
                                   atol=atol * (scale * max(k, 1) ** 0.5 + 4), err_msg=f"{elem} {attrs} {c_shape}")
    a, b = random_input(rng, (2, 3), elem), random_input(rng, (4, 2), elem)
    attrs = {"alpha": 1.0, "beta": 1.0, "transA": 0, "transB": 0, **({"broadcast": 1} if legacy else {})}
    status, _ = call_c(c_library, v, elem, [a, b, random_input(rng, (2, 2), elem)], attrs, (2, 2))
    assert status == OPGEN_ERR_SHAPE  # K differs
    b = random_input(rng, (3, 4), elem)
    status, _ = call_c(c_library, v, elem, [a, b, random_input(rng, (3, 4), elem)], attrs, (2, 4))
    assert status == OPGEN_ERR_SHAPE  # C does not broadcast to (M, N)
    if legacy:
        status, _ = call_c(c_library, v, elem, [a, b, random_input(rng, (4,), elem)], dict(attrs, broadcast=0), (2, 4))
        assert status == OPGEN_ERR_SHAPE  # Gemm-6 without broadcast needs C of shape (M, N)


@pytest.mark.parametrize("domain,since,elem", [("hlir", 1, "int32"), ("onnx", 13, "uint64"), ("onnx", 9, "int64"),
                                               ("onnx", 11, "uint32")])
def test_integer_gemm_matches_numpy(c_library, domain, since, elem):
    """Integer Gemm bit for bit against the NumPy kernel: products that wrap around in the element type (values
    over the whole range), alpha and beta scaling in double, results beyond the type saturated, a NaN alpha
    giving 0 (Convert's rules)."""
    v = version(domain, "Gemm", since)
    kernel = numpy_kernel(v)
    rng = np.random.default_rng(19)
    info = np.iinfo(ELEM_TYPES[elem].numpy)
    cases = gemm_cases(rng) + [((4, 5, 3), {"alpha": float("nan"), "beta": 1.0, "transA": 0, "transB": 1}, (3,)),
                               ((2, 3, 4), {"alpha": 1e30, "beta": -1e30, "transA": 1, "transB": 1}, (2, 4))]
    for (m, k, n), attrs, c_shape in cases:
        if c_shape is None and v.inputs[2].option != "optional":  # Gemm before 11 takes C
            c_shape = (1,)
        draw = lambda shape: rng.integers(info.min, info.max, size=shape, dtype=ELEM_TYPES[elem].numpy,  # noqa: E731
                                          endpoint=True)
        a, b = draw((k, m) if attrs["transA"] else (m, k)), draw((n, k) if attrs["transB"] else (k, n))
        c = None if c_shape is None else draw(c_shape)
        (want,) = kernel(a, b, c, **attrs)
        status, got = call_c(c_library, v, elem, [a, b, c], attrs, want.shape)
        assert status == OPGEN_OK, (m, k, n, attrs, c_shape)
        np.testing.assert_array_equal(got, want, err_msg=f"{elem} {(m, k, n)} {attrs} {c_shape}")


# ---- ONNX Pad -------------------------------------------------------------------------------------


@pytest.mark.parametrize("since,elem", [(1, "float"), (2, "double"), (11, "int32"), (13, "bool"), (18, "float16"),
                                        (19, "float"), (25, "uint8")])
def test_onnx_pad_matches_numpy(c_library, since, elem):
    """ONNX Pad bit for bit against the NumPy kernel (itself tested against onnx.reference): every mode of the
    version, amounts that remove and add (reflect and wrap wider than the rest), axes (negative, a subset) from
    Pad-18, constant_value given, absent or empty; Pad-1/2's float attribute value (0.1, rounded through float)."""
    v = version("onnx", "Pad", since)
    kernel = numpy_kernel(v)
    modes = next(a.values for a in v.attributes if a.name == "mode")
    rng = np.random.default_rng(20 + since)
    for trial in range(14):
        shape = random_shape(rng, int(rng.integers(1, 4)), 5)
        mode = modes[trial % len(modes)]
        named = list(range(len(shape)))
        axes = None
        if since >= 18 and trial % 3:
            named = [int(a) for a in rng.permutation(len(shape))[: int(rng.integers(1, len(shape) + 1))]]
            axes = np.array([a - len(shape) if rng.random() < 0.5 else a for a in named], np.int64)
        begins, ends = [], []
        for a in named:
            b, e = (int(t) for t in rng.integers(-2, 7, 2))
            left = shape[a] + min(b, 0) + min(e, 0)
            if left < 0 or (mode != "constant" and left == 0):
                b, e = abs(b), abs(e)  # remove no more than there is; other modes need elements to read
            begins.append(b)
            ends.append(e)
        x = movement_input(rng, shape, elem)
        if since <= 2:
            inputs = [x]
            attrs = {"mode": mode, "paddings" if since == 1 else "pads": begins + ends, "value": 0.1}
        else:
            value = [None, movement_input(rng, (), elem), np.zeros((0,), x.dtype)][trial % 3]
            inputs = [x, np.array(begins + ends, np.int64), value] + ([axes] if since >= 18 else [])
            attrs = {"mode": mode}
        (want,) = kernel(*inputs, **attrs)
        status, got = call_c(c_library, v, elem, inputs, attrs, want.shape)
        assert status == OPGEN_OK, (shape, attrs, axes)
        assert got.tobytes() == want.tobytes(), f"Pad-{since} {elem} {shape} {attrs} {begins + ends} axes {axes}"
    x = movement_input(rng, (2, 3), elem)
    pads = [0, 1, 0, 0]
    inputs = [x] if since <= 2 else [x, np.array(pads, np.int64), None] + ([None] if since >= 18 else [])
    attrs = {"paddings" if since == 1 else "pads": pads} if since <= 2 else {}
    status, _ = call_c(c_library, v, elem, inputs, dict(attrs, mode="wrap" if since < 19 else "mirror"), (2, 4))
    assert status == OPGEN_ERR_ARGUMENT  # a mode the version lacks
    pads = [0, -3, 0, 1]
    inputs = [x] if since <= 2 else [x, np.array(pads, np.int64), None] + ([None] if since >= 18 else [])
    attrs = {"paddings" if since == 1 else "pads": pads} if since <= 2 else {}
    status, _ = call_c(c_library, v, elem, inputs, dict(attrs, mode="edge"), (2, 1))
    assert status == OPGEN_ERR_SHAPE  # edge padding of an axis left empty
