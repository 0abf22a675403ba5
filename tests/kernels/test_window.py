"""hlir.AveragePool, hlir.MaxPool, hlir.ReduceWindow and hlir.SelectAndScatter against independent
implementations.

References: onnxruntime and onnx.reference (and the onnx package's AveragePool/MaxPool node test cases,
mapped to this op set's attribute names) for the ONNX-defined pools; jax.lax.reduce_window (XLA, x64,
CPU) with the computation written as a jax function for ReduceWindow, non-identity initial values
included; jax's general _select_and_scatter (XLA's SelectAndScatter with select and scatter
computations; jax.lax itself exposes only select_and_scatter_add, the gradient of a max pool, which
is checked too) for SelectAndScatter. Where the references disagree with each other or with the
document, the test names the spec note that decides.
"""
from __future__ import annotations

import importlib
import math

import numpy as np
import onnx.backend.test.case.node as onnx_node_cases
import pytest
from jax._src.lax.windowed_reductions import _select_and_scatter
from onnx import helper
from onnx.reference import ReferenceEvaluator

import jax
import opgen_ops
from kernel_refs import assert_matches, jax_padding, jnp, kernel, lax, np_dtype, random_array
from opgen.runtime import kernels as runtime_kernels
from opgen.runtime.validation import ValidationError
from onnx_refs import ort_session

INTS = ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64")
NUMERIC = INTS + ("float16", "float", "double")
average_pool = opgen_ops.get_kernel("hlir", "AveragePool", 1)
max_pool = opgen_ops.get_kernel("hlir", "MaxPool", 1)
reduce_window = opgen_ops.get_kernel("hlir", "ReduceWindow", 1)
select_and_scatter = opgen_ops.get_kernel("hlir", "SelectAndScatter", 1)
ONNX_TYPES = {"float": 1, "uint8": 2, "int8": 3, "float16": 10, "double": 11, "int64": 7}


def onnx_pool(op: str, x: np.ndarray, dtype: str, with_indices: bool = False, ort_too: bool = True,
              ort_only: bool = False, **attrs):
    """(onnxruntime result, onnx.reference result) of one ONNX pooling node (opset 22); (None, reference)
    with ort_too=False (onnxruntime has no double AveragePool), (onnxruntime, None) with ort_only=True."""
    outputs = ["Y", "I"] if with_indices else ["Y"]
    node = helper.make_node(op, ["X"], outputs, **attrs)
    infos = [helper.make_tensor_value_info("Y", ONNX_TYPES[dtype], None)]
    if with_indices:
        infos.append(helper.make_tensor_value_info("I", 7, None))
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", ONNX_TYPES[dtype], None)], infos)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)], ir_version=10)
    if not ort_too:
        return None, ReferenceEvaluator(model).run(None, {"X": x})
    session = ort_session(model)
    if ort_only:
        return session.run(None, {"X": x}), None
    return session.run(None, {"X": x}), ReferenceEvaluator(model).run(None, {"X": x})


def random_pool(rng, n: int, dilations: bool):
    """Random kernel, strides, pads (smaller than the kernel, as onnxruntime requires), ceil_mode."""
    kernel = [int(rng.integers(1, 4)) for _ in range(n)]
    strides = [int(rng.integers(1, 4)) for _ in range(n)]
    pads = [int(rng.integers(0, k)) for k in kernel] + [int(rng.integers(0, k)) for k in kernel]
    dil = [int(rng.integers(1, 3)) for _ in range(n)] if dilations else [1] * n
    sizes = [int(rng.integers((kernel[i] - 1) * dil[i] + 1, 9)) for i in range(n)]  # every window fits
    return kernel, strides, pads, dil, sizes, bool(rng.integers(0, 2))


# ---- MaxPool -------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(30))
def test_max_pool_random_against_onnxruntime(seed):
    """Values and storage_order-0 Indices; explicit pads, dilations, strides, ceil_mode (note
    padding_and_ceil_mode). Inputs without NaN (note nan_and_signed_zero)."""
    rng = np.random.default_rng(seed)
    n = int(rng.choice([1, 2, 2, 3]))
    kernel, strides, pads, dil, sizes, ceil = random_pool(rng, n, True)
    x = rng.standard_normal([int(rng.integers(1, 3)), int(rng.integers(1, 3))] + sizes).astype(np.float32)
    (want, want_i), _ = onnx_pool("MaxPool", x, "float", True, ort_only=True, kernel_shape=kernel, strides=strides,
                                  pads=pads, dilations=dil, ceil_mode=int(ceil))
    got, got_i = max_pool(x, kernel_shape=kernel, strides=strides, padding=pads, dilations=dil, ceil_mode=ceil,
                          return_indices=True)
    label = f"{kernel} {strides} {pads} {dil} {sizes} {ceil}"
    assert_matches(got, want, "float", label=label, exact=True)
    np.testing.assert_array_equal(got_i, want_i, err_msg=label)


@pytest.mark.parametrize("auto_pad", ["SAME_UPPER", "SAME_LOWER", "VALID"])
def test_max_pool_auto_pad_against_onnxruntime(auto_pad):
    rng = np.random.default_rng(1)
    for _ in range(8):
        kernel, strides, _, _, sizes, _ = random_pool(rng, 2, False)
        strides = [min(st, k) for st, k in zip(strides, kernel)]  # onnxruntime: SAME needs stride <= kernel
        x = rng.standard_normal([2, 3] + sizes)
        (want,), _ = onnx_pool("MaxPool", x, "double", ort_only=True, kernel_shape=kernel, strides=strides,
                               auto_pad=auto_pad)
        (got,) = max_pool(x, kernel_shape=kernel, strides=strides, auto_pad=auto_pad)
        assert_matches(got, want, "double", label=f"{kernel} {strides} {sizes}", exact=True)


def onnx_reference_pool_path_is_broken(strides, dilations) -> bool:
    """onnx.reference (1.23) runs a MaxPool whose strides and dilations are all 1 through its shared
    pooling code (reference/ops/_op_common_pool.py), which unpacks a 4-value pads as [top, bottom, left,
    right] instead of ONNX's [x1_begin, x2_begin, x1_end, x2_end], leaves the input unpadded for other pads
    lengths, and pads with NaN (int8 raises, uint8 pads with 0). Its own MaxPool code (any stride or dilation > 1) reads
    pads correctly; onnxruntime is right on both."""
    return all(s == 1 for s in strides) and all(d == 1 for d in dilations)


@pytest.mark.parametrize("dtype", ["float16", "float", "double", "int8", "uint8"])
def test_max_pool_every_dtype(dtype):
    """onnxruntime (which has MaxPool for all five types) and onnx.reference where its pooling path
    reads pads correctly; integers exactly."""
    rng = np.random.default_rng(2)
    for _ in range(4):
        kernel, strides, pads, dil, sizes, ceil = random_pool(rng, 2, True)
        x = random_array(rng, [1, 2] + sizes, dtype, -100, 100)
        attrs = dict(kernel_shape=kernel, strides=strides, pads=pads, dilations=dil, ceil_mode=int(ceil))
        broken = onnx_reference_pool_path_is_broken(strides, dil)
        if broken:
            (want,), _ = onnx_pool("MaxPool", x, dtype, ort_only=True, **attrs)
        else:
            (want,), (ref,) = onnx_pool("MaxPool", x, dtype, **attrs)
        (got,) = max_pool(x, kernel_shape=kernel, strides=strides, padding=pads, dilations=dil, ceil_mode=ceil)
        label = f"{attrs} {sizes}"
        assert got.dtype == np_dtype(dtype)
        assert_matches(got, want, dtype, label=label, exact=True)
        if not broken:
            assert_matches(got, ref, dtype, label=label, exact=True)


def test_max_pool_nan_propagates_and_positive_zero_wins():
    """note nan_and_signed_zero: XLA's max (onnxruntime and onnx.reference skip the NaN here)."""
    x = np.array([[[1.0, np.nan, 2.0, -0.0, 0.0, -0.0]]], np.float32)
    y, i = max_pool(x, kernel_shape=[2], strides=[2], return_indices=True)
    np.testing.assert_array_equal(y, [[[np.nan, 2.0, 0.0]]])
    assert not np.signbit(y[0, 0, 2]) and i.tolist() == [[[1, 2, 4]]]
    (ort_y,), (ref_y,) = onnx_pool("MaxPool", x, "float", kernel_shape=[2], strides=[2])
    assert not np.isnan(ort_y[0, 0, 0]) and not np.isnan(ref_y[0, 0, 0])  # the references differ here


def _extreme_edge_values(numpy_dtype: np.dtype) -> np.ndarray:
    """What a max or min can tie on or be decided by: zeros of both signs (twice, to make ties common), NaNs
    of both signs last (a test drops them with [:-2]), infinities; for integers the type's bounds."""
    if numpy_dtype.kind == "f":
        return np.array([-0.0, 0.0, -0.0, 0.0, 1.5, -2.0, np.inf, -np.inf, -np.nan, np.nan], numpy_dtype)
    info = np.iinfo(numpy_dtype)
    return np.array([info.min, info.max, 0, 1, 2], numpy_dtype)


@pytest.mark.parametrize("dtype", ("float", "double", "float16", "int8", "uint8"))
def test_max_pool_without_indices_gives_the_folds_bits(dtype):
    """Without return_indices the maximum is taken tap by tap through the window view
    (window.extreme_of_taps), not by the fold that finds each window's first extreme tap: the same bits
    on inputs dense in ties between -0.0 and +0.0, NaNs of either sign (the first one stays),
    infinities, padding, ceil_mode and dilation (the fold's values are checked against onnxruntime above)."""
    rng = np.random.default_rng(11)
    numpy_dtype = np_dtype(dtype)
    pool = _extreme_edge_values(numpy_dtype)
    for trial in range(60):
        n = 1 + trial % 2
        kernel, strides, pads, dil, sizes, ceil = random_pool(rng, n, dilations=True)
        x = rng.choice(pool[:-2] if trial % 3 else pool, size=(2, 2, *sizes))
        attrs = dict(kernel_shape=kernel, strides=strides, padding=pads, dilations=dil, ceil_mode=ceil)
        (alone,) = max_pool(x, **attrs)
        folded, _ = max_pool(x, return_indices=True, **attrs)
        assert alone.dtype == folded.dtype and alone.shape == folded.shape
        assert alone.tobytes() == folded.tobytes(), (trial, attrs)


def test_max_pool_same_padding_uses_the_dilated_window():
    """note padding_and_ceil_mode: SAME gives ceil(n / s) outputs with the dilated span (onnxruntime
    gives 7 outputs for this one)."""
    x = np.arange(9, dtype=np.float64)[None, None] * np.array([1, -1, 1, -1, 1, -1, 1, -1, 1])
    (y,) = max_pool(x, kernel_shape=[3], dilations=[2], auto_pad="SAME_UPPER")
    # span 5, total padding 4: window k reads k-2, k, k+2
    want = [max(x[0, 0, j] for j in (k - 2, k, k + 2) if 0 <= j < 9) for k in range(9)]
    assert y.ravel().tolist() == want
    (ort_y,), _ = onnx_pool("MaxPool", x, "double", kernel_shape=[3], dilations=[2], auto_pad="SAME_UPPER")
    assert ort_y.shape[-1] == 7
    (y,) = max_pool(x, kernel_shape=[3], strides=[2], dilations=[2], auto_pad="SAME_LOWER")
    assert y.shape[-1] == 5  # ceil(9 / 2); onnx.reference gives floor(9 / 2)


def test_max_pool_indices_storage_order():
    """note indices: flat index into the whole input, row-major (0) or column-major (1)."""
    rng = np.random.default_rng(4)
    x = rng.permutation(2 * 3 * 5 * 4).reshape(2, 3, 5, 4).astype(np.float64)
    for order, layout in ((0, "C"), (1, "F")):
        y, i = max_pool(x, kernel_shape=[2, 3], strides=[2, 1], padding=[1, 0, 0, 1], ceil_mode=True,
                        return_indices=True, storage_order=order)
        np.testing.assert_array_equal(np.ravel(x, order=layout)[i], y)
    x1 = x[:1, :1]  # where onnxruntime's storage_order 1 agrees with the definition
    (_, want_i), _ = onnx_pool("MaxPool", x1, "double", True, kernel_shape=[2, 3], storage_order=1)
    _, got_i = max_pool(x1, kernel_shape=[2, 3], return_indices=True, storage_order=1)
    np.testing.assert_array_equal(got_i, want_i)


def test_max_pool_window_without_input_elements():
    """note padding_and_ceil_mode: -inf (type minimum) and index -1."""
    x = np.array([[[5, 6]]], np.int8)
    y, i = max_pool(x, kernel_shape=[2], dilations=[3], padding=[2, 1], return_indices=True)
    # span 4 over [pad, pad, 5, 6, pad]: windows read (pad, 6) and (pad, pad)
    assert y.tolist() == [[[6, -128]]] and i.tolist() == [[[1, -1]]]


def test_max_pool_empty():
    (y,) = max_pool(np.zeros((0, 2, 5), np.float32), kernel_shape=[2])
    assert y.shape == (0, 2, 4)
    (y,) = max_pool(np.zeros((1, 2, 1), np.float32), kernel_shape=[3])
    assert y.shape == (1, 2, 0)


# ---- AveragePool ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(25))
def test_average_pool_random_against_onnx(seed):
    """Explicit pads, strides, ceil_mode, count_include_pad (note padding_and_ceil_mode)."""
    rng = np.random.default_rng(100 + seed)
    n = int(rng.choice([1, 2, 3]))
    kernel, strides, pads, _, sizes, ceil = random_pool(rng, n, False)
    include = bool(rng.integers(0, 2))
    x = rng.standard_normal([2, 2] + sizes).astype(np.float32)
    attrs = dict(kernel_shape=kernel, strides=strides, pads=pads, ceil_mode=int(ceil), count_include_pad=int(include))
    (want,), (ref,) = onnx_pool("AveragePool", x, "float", **attrs)
    (got,) = average_pool(x, dims=list(range(2, 2 + n)), kernel_shape=kernel, strides=strides, padding=pads,
                          ceil_mode=ceil, count_include_pad=include)
    label = str(attrs) + str(sizes)
    assert_matches(got, want, "float", label=label)
    assert_matches(got, ref, "float", label=label)


@pytest.mark.parametrize("auto_pad", ["SAME_UPPER", "SAME_LOWER", "VALID"])
def test_average_pool_auto_pad_against_onnxruntime(auto_pad):
    rng = np.random.default_rng(9)
    for include in (False, True):
        for _ in range(4):
            kernel, strides, _, _, sizes, _ = random_pool(rng, 2, False)
            strides = [min(st, k) for st, k in zip(strides, kernel)]  # onnxruntime: SAME needs stride <= kernel
            x = rng.standard_normal([1, 2] + sizes).astype(np.float32)
            (want,), _ = onnx_pool("AveragePool", x, "float", ort_only=True, kernel_shape=kernel, strides=strides,
                                   auto_pad=auto_pad, count_include_pad=int(include))
            (got,) = average_pool(x, dims=[2, 3], kernel_shape=kernel, strides=strides, auto_pad=auto_pad,
                                  count_include_pad=include)
            assert_matches(got, want, "float", label=f"{kernel} {strides} {sizes} {include}")


def test_average_pool_dims_in_any_order():
    """note dims_order: kernel_shape/strides/padding follow dims; other dimensions are not pooled."""
    rng = np.random.default_rng(10)
    x = rng.standard_normal((5, 3, 6, 2)).astype(np.float32)
    (got,) = average_pool(x, dims=[2, 0], kernel_shape=[3, 2], strides=[2, 1], padding=[1, 0, 0, 1],
                          count_include_pad=True)
    moved = np.transpose(x, (1, 3, 2, 0))  # (3, 2, 6, 5): dims 2 and 0 become the spatial axes in that order
    (want,), _ = onnx_pool("AveragePool", moved, "float", kernel_shape=[3, 2], strides=[2, 1], pads=[1, 0, 0, 1],
                           count_include_pad=1)
    assert_matches(got, np.transpose(want, (3, 0, 2, 1)), "float")


@pytest.mark.parametrize("dtype", ["float16", "float", "double"])
def test_average_pool_every_dtype(dtype):
    rng = np.random.default_rng(12)
    kernel, strides, pads, _, sizes, ceil = random_pool(rng, 2, False)
    x = random_array(rng, [1, 3] + sizes, dtype)
    (got,) = average_pool(x, dims=[2, 3], kernel_shape=kernel, strides=strides, padding=pads, ceil_mode=ceil)
    _, (ref,) = onnx_pool("AveragePool", x.astype(np.float64), "double", ort_too=False, kernel_shape=kernel,
                          strides=strides, pads=pads, ceil_mode=int(ceil))
    assert got.dtype == np_dtype(dtype)
    assert_matches(got, ref.astype(np_dtype(dtype)), dtype)


def test_average_pool_ceil_positions_never_counted():
    """note padding_and_ceil_mode: count_include_pad counts padding, not the ceil_mode positions."""
    x = np.array([[[1.0, 2.0, 3.0, 4.0, 5.0]]])
    (y,) = average_pool(x, dims=[2], kernel_shape=[3], strides=[2], padding=[1, 0], ceil_mode=True,
                        count_include_pad=True)
    # padded [p, 1, 2, 3, 4, 5]; windows [p 1 2], [2 3 4], [4 5 (ceil)]
    np.testing.assert_allclose(y.ravel(), [3 / 3, 9 / 3, 9 / 2])


# ---- ONNX node test cases (MaxPool / AveragePool) ------------------------------------------------


def _has_dilations(case) -> bool:
    return any(a.name == "dilations" and any(d != 1 for d in a.ints) for a in case.model.graph.node[0].attribute)


def _onnx_cases(*ops):
    """The node cases; AveragePool cases with dilations (ONNX opset 19+) are left out: hlir.AveragePool has
    no dilations attribute, so they cannot be expressed. Importing an op's case module records its cases
    (onnx.backend.test.case.base runs every export at class creation); collect_testcases would build
    all ~1900 cases of every op, 7 s."""
    for op in ops:
        importlib.import_module(f"onnx.backend.test.case.node.{op.lower()}")
    return [c for c in onnx_node_cases._NodeTestCases if c.model.graph.node[0].op_type in ops
            and not (c.model.graph.node[0].op_type == "AveragePool" and _has_dilations(c))]


@pytest.mark.parametrize("case", _onnx_cases("MaxPool", "AveragePool"), ids=lambda c: c.name)
def test_pool_onnx_node_cases(case):
    node = case.model.graph.node[0]
    a = {attr.name: (list(attr.ints) if attr.type == 7 else attr.i if attr.type == 2 else attr.s.decode())
         for attr in node.attribute}
    inputs, outputs = case.data_sets[0]
    x = inputs[0]
    n = x.ndim - 2
    common = dict(kernel_shape=a["kernel_shape"], strides=a.get("strides"), padding=a.get("pads"),
                  auto_pad=a.get("auto_pad", "NOTSET"), ceil_mode=bool(a.get("ceil_mode", 0)))
    if node.op_type == "MaxPool":  # noqa: SIM108
        got = max_pool(x, dilations=a.get("dilations"), storage_order=a.get("storage_order", 0),
                       return_indices=len(outputs) == 2, **common)
    else:
        got = average_pool(x, dims=list(range(2, 2 + n)), count_include_pad=bool(a.get("count_include_pad", 0)),
                           **common)
    for g, w in zip(got, outputs):  # the onnx backend runner's tolerance: some expected values are rounded
        assert g.dtype == w.dtype and g.shape == w.shape, case.name
        np.testing.assert_allclose(g, w, rtol=1e-3, atol=1e-7, err_msg=case.name)


# ---- ReduceWindow --------------------------------------------------------------------------------


def _jax_beats(largest):
    """b is strictly more extreme than a under XLA's max (min) order: NaN above every number, +0.0 > -0.0."""
    def beats(a, b):
        nan_b = jnp.isnan(b) & ~jnp.isnan(a)
        zeros = (a == 0) & (b == 0) & (jnp.signbit(a) != jnp.signbit(b))
        return (b > a if largest else b < a) | nan_b | (zeros & (jnp.signbit(a) if largest else jnp.signbit(b)))
    return beats


JAX_COMPUTATIONS = {
    "ADD": lax.add, "SUB": lax.sub, "MUL": lax.mul, "DIV": lax.div,
    "MIN": lax.min, "MAX": lax.max, "ARGMIN": lax.min, "ARGMAX": lax.max,
    "AND": lax.bitwise_and, "OR": lax.bitwise_or, "XOR": lax.bitwise_xor,
    "UPDATE": lambda a, b: b, "COUNT": lambda a, b: a + jnp.ones_like(a), "L2": jnp.hypot,
}




@pytest.mark.parametrize("seed", range(40))
def test_reduce_window_random_against_jax(seed):
    """Every computation with a random (usually non-identity) initial value, strides, base and window
    dilations, auto_pad and ceil_mode (notes fold_and_skipped_positions, auto_pad_and_ceil_mode)."""
    rng = np.random.default_rng(200 + seed)
    computation = list(JAX_COMPUTATIONS)[seed % len(JAX_COMPUTATIONS)]
    bitwise = computation in ("AND", "OR", "XOR")
    dtype = str(rng.choice(INTS if bitwise else ["double", "int32", "float"]))
    if computation in ("L2", "DIV") and dtype != "double":
        dtype = "double"  # integer L2 and DIV: test_reduce_window_integer_l2_and_div
    rank = int(rng.integers(1, 4))
    sizes = [int(rng.integers(1, 6)) for _ in range(rank)]
    window = [int(rng.integers(1, 4)) for _ in range(rank)]
    strides = [int(rng.integers(1, 3)) for _ in range(rank)]
    base = [int(rng.integers(1, 3)) for _ in range(rank)]
    wdil = [int(rng.integers(1, 3)) for _ in range(rank)]
    auto_pad = str(rng.choice(["NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"]))
    ceil = bool(rng.integers(0, 2))
    x = random_array(rng, sizes, dtype, -4, 4)
    if computation in ("MUL", "DIV") and dtype == "double":
        x = np.where(np.abs(x) < 0.5, 2.0, x)
    init = random_array(rng, (), dtype, 1, 3)
    (got,) = reduce_window(x, init, computation=computation, window_dimensions=window, window_strides=strides,
                           base_dilations=base, window_dilations=wdil, auto_pad=auto_pad, ceil_mode=ceil)
    pads = jax_padding(auto_pad, ceil, sizes, window, strides, base, wdil)
    want = lax.reduce_window(x, init, JAX_COMPUTATIONS[computation], tuple(window), tuple(strides), pads,
                             base_dilation=tuple(base), window_dilation=tuple(wdil))
    assert_matches(got, np.asarray(want), dtype, label=f"{computation} {dtype} {sizes} {window} {strides} "
                                                      f"{base} {wdil} {auto_pad} {ceil}")


@pytest.mark.parametrize("dtype", NUMERIC)
def test_reduce_window_every_dtype(dtype):
    rng = np.random.default_rng(13)
    x = random_array(rng, (4, 5), dtype, -100, 100)
    for computation, init in (("ADD", 0), ("MAX", 1), ("MIN", 2)):
        init = np.asarray(init, np_dtype(dtype))
        (got,) = reduce_window(x, init, computation=computation, window_dimensions=[2, 3], window_strides=[1, 2],
                               auto_pad="SAME_LOWER")
        wide = np.float32 if dtype == "float16" else np_dtype(dtype)
        pads = lax.padtype_to_pads((4, 5), (2, 3), (1, 2), "SAME_LOWER")
        want = lax.reduce_window(x.astype(wide), init.astype(wide), JAX_COMPUTATIONS[computation], (2, 3), (1, 2), pads)
        assert got.dtype == np_dtype(dtype)
        assert_matches(got, np.asarray(want).astype(np_dtype(dtype)), dtype, label=computation)


def test_reduce_window_xla_max_order():
    """Reduce note max_min_order: NaN propagates, -0.0 < +0.0 (jax's lax.max agrees)."""
    x = np.array([-0.0, 0.0, -0.0, np.nan, 1.0, -0.0])
    (got,) = reduce_window(x, np.float64(-np.inf), computation="MAX", window_dimensions=[2], window_strides=[2])
    np.testing.assert_array_equal(got, [0.0, np.nan, 1.0])
    assert not np.signbit(got[0])
    (got,) = reduce_window(x[:3], np.float64(np.inf), computation="MIN", window_dimensions=[2])
    assert np.signbit(got).all()


@pytest.mark.parametrize("dtype", ("float", "double", "float16", "int32", "uint8"))
def test_reduce_window_max_min_give_the_folds_bits(dtype):
    """MAX and MIN of one input take the window's extreme without the fold (window.extreme_of_taps): the
    same bits as the fold, which ARGMAX/ARGMIN of (x, x) runs (its first output: x at the first extreme
    tap, the initial value counting as the tap before the first), and jax's lax.max/lax.min, on inputs
    dense in signed zeros, NaNs of both signs and infinities, with initial values among them, padding,
    base and window dilation and ceil_mode."""
    rng = np.random.default_rng(21)
    numpy_dtype = np_dtype(dtype)
    pool = _extreme_edge_values(numpy_dtype)
    for trial in range(80):
        rank = 1 + trial % 3
        sizes = [int(rng.integers(1, 6)) for _ in range(rank)]
        attrs = dict(window_dimensions=[int(rng.integers(1, 4)) for _ in range(rank)],
                     window_strides=[int(rng.integers(1, 3)) for _ in range(rank)],
                     base_dilations=[int(rng.integers(1, 3)) for _ in range(rank)],
                     window_dilations=[int(rng.integers(1, 3)) for _ in range(rank)],
                     auto_pad=str(rng.choice(["NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"])),
                     ceil_mode=bool(rng.integers(0, 2)))
        values = pool[:-2] if trial % 3 and numpy_dtype.kind == "f" else pool
        x = rng.choice(values, size=sizes)
        init = rng.choice(values[:4] if trial % 2 else values)
        for computation, arg in (("MAX", "ARGMAX"), ("MIN", "ARGMIN")):
            (got,) = reduce_window(x, init, computation=computation, **attrs)
            folded, _ = reduce_window(x, x, init, init, computation=arg, **attrs)
            assert got.dtype == folded.dtype and got.tobytes() == folded.tobytes(), (trial, computation, attrs)
            wide = np.float32 if dtype == "float16" else numpy_dtype
            pads = jax_padding(attrs["auto_pad"], attrs["ceil_mode"], sizes, attrs["window_dimensions"],
                               attrs["window_strides"], attrs["base_dilations"], attrs["window_dilations"])
            want = lax.reduce_window(x.astype(wide), init.astype(wide), JAX_COMPUTATIONS[computation],
                                     tuple(attrs["window_dimensions"]), tuple(attrs["window_strides"]), pads,
                                     base_dilation=tuple(attrs["base_dilations"]),
                                     window_dilation=tuple(attrs["window_dilations"]))
            want = np.asarray(want).astype(numpy_dtype)
            assert_matches(got, want, dtype, label=computation, exact=True)
            if numpy_dtype.kind == "f":  # and the zeros' signs (assert_array_equal takes -0.0 == +0.0)
                numbers = ~np.isnan(got)
                assert (np.signbit(got) == np.signbit(want))[numbers].all(), (trial, computation, attrs)
    if numpy_dtype.kind == "f":  # a NaN initial value comes before a NaN tap of the other sign
        x = np.array([-np.nan, np.nan, 1, -np.nan], numpy_dtype)
        for computation, arg in (("MAX", "ARGMAX"), ("MIN", "ARGMIN")):
            (got,) = reduce_window(x, numpy_dtype.type(np.nan), computation=computation, window_dimensions=[2])
            folded, _ = reduce_window(x, x, numpy_dtype.type(np.nan), numpy_dtype.type(np.nan), computation=arg,
                                      window_dimensions=[2])
            assert got.tobytes() == folded.tobytes() and not np.signbit(got).any()


def test_reduce_window_multiple_inputs_against_jax():
    """Reduce note arg_computations: output k is input k at the first extreme of input 0 (the initial
    values counting as the position before the first); jax with a variadic computation.

    XLA leaves the order in which a window is folded unspecified (its CPU backend does not go in
    row-major order of the window: this window of 2 x 3 taps is folded columns 0-1 of both rows, then
    column 2), so a computation that keeps the earlier operand on a tie is not a reference for "first".
    The jax computation breaks ties by the second input instead (a row-major iota, -1 for the initial
    values), which makes it commutative and associative: its result no longer depends on XLA's order
    and is the first extreme in row-major order, as the note defines."""
    rng = np.random.default_rng(14)
    for computation, largest in (("ARGMAX", True), ("ARGMIN", False)):
        x = rng.integers(0, 3, (5, 6)).astype(np.float64)
        x[0, 0], x[2, 3] = np.nan, -0.0
        iota = np.arange(30, dtype=np.int64).reshape(5, 6).astype(np.float64)
        got = reduce_window(x, iota, np.float64(1.0), np.float64(-1.0), computation=computation,
                            window_dimensions=[2, 3], window_strides=[1, 2], window_dilations=[2, 1],
                            auto_pad="SAME_UPPER")
        beats = _jax_beats(largest)

        def f(a, b):
            same = ((a[0] == b[0]) & (jnp.signbit(a[0]) == jnp.signbit(b[0]))) | (jnp.isnan(a[0]) & jnp.isnan(b[0]))
            take_b = beats(a[0], b[0]) | (same & (b[1] < a[1]))
            return jnp.where(take_b, b[0], a[0]), jnp.where(take_b, b[1], a[1])

        pads = lax.padtype_to_pads((5, 6), (3, 3), (1, 2), "SAME")
        want = lax.reduce_window((x, iota), (1.0, -1.0), f, (2, 3), (1, 2), pads, window_dilation=(2, 1))
        for g, w in zip(got, want):
            assert_matches(g, np.asarray(w), "double", label=computation)


@pytest.mark.parametrize("computation", ["MAX", "MIN", "ADD"])
def test_reduce_window_several_inputs_need_an_arg_computation(computation):
    """Constraint C3 (note computation_multi_input): several inputs only with ARGMIN or ARGMAX."""
    x = np.zeros((2, 3))
    with pytest.raises(ValidationError, match="C3"):
        reduce_window(x, x, np.float64(0), np.float64(0), computation=computation, window_dimensions=[1, 2])
    with pytest.raises(ValueError, match="ARGMAX or ARGMIN"):
        runtime_kernels.call("reduce_window.reduce_window", ((x, x), (np.float64(0), np.float64(0))),
                             dict(computation=computation, window_dimensions=[1, 2]))


def test_reduce_window_integer_l2_and_div():
    """Reduce notes l2_and_count and fold_left: integer L2 is the truncated exact sqrt(init^2 + sum x^2),
    saturated; integer DIV is XLA's (against jax's lax.div on int32)."""
    x = np.array([[127, 127, 3], [-4, 0, 5]], np.int8)
    (got,) = reduce_window(x, np.int8(-2), computation="L2", window_dimensions=[1, 2])
    want = [[min(math.isqrt(4 + a * a + b * b), 127) for a, b in zip(row[:-1], row[1:])] for row in x.astype(int)]
    assert got.tolist() == want
    rng = np.random.default_rng(15)
    xi = rng.integers(-9, 9, (4, 6)).astype(np.int32)
    xi[0, 0] = 0
    (got,) = reduce_window(xi, np.int32(-2**31), computation="DIV", window_dimensions=[2, 2], base_dilations=[1, 2])
    want = lax.reduce_window(xi, np.int32(-2**31), lax.div, (2, 2), (1, 1), [(0, 0), (0, 0)], base_dilation=(1, 2))
    np.testing.assert_array_equal(got, np.asarray(want))


def test_reduce_window_skips_holes_and_partial_windows():
    """note fold_and_skipped_positions: init used once; holes and ceil_mode positions contribute nothing;
    a window over holes only gives the initial value."""
    x = np.array([1.0, 2.0, 3.0])
    (got,) = reduce_window(x, np.float64(10.0), computation="SUB", window_dimensions=[1], base_dilations=[2])
    assert got.tolist() == [9.0, 10.0, 8.0, 10.0, 7.0]
    (got,) = reduce_window(x, np.float64(0.0), computation="COUNT", window_dimensions=[2], window_strides=[2],
                           ceil_mode=True)
    assert got.tolist() == [2.0, 1.0]  # the second window is partial: [3, past the end]
    (got,) = reduce_window(x, np.float64(0.0), computation="COUNT", window_dimensions=[2], window_strides=[2])
    assert got.tolist() == [2.0]


def test_reduce_window_empty():
    (got,) = reduce_window(np.zeros((0, 3)), np.float64(5.0), computation="ADD", window_dimensions=[1, 2])
    assert got.shape == (0, 2)
    (got,) = reduce_window(np.zeros((2, 1)), np.float64(5.0), computation="ADD", window_dimensions=[1, 2])
    assert got.shape == (2, 0)
    (got,) = reduce_window(np.zeros((2, 1)), np.float64(5.0), computation="ADD", window_dimensions=[1, 2],
                           auto_pad="SAME_UPPER")
    assert got.tolist() == [[5.0], [5.0]]


# ---- SelectAndScatter ----------------------------------------------------------------------------

JAX_SELECT = {"GE": lax.ge, "GT": lax.gt, "LE": lax.le, "LT": lax.lt}


def select_order_keys(x: np.ndarray, select: str) -> np.ndarray:
    """Distinct int64 keys, one per element of x, that every select_type picks from a window the way
    note select_order picks from x: the same extreme, and on a tie the first (GE, LE) or last (GT, LT)
    tap in row-major order of the window, which is the smallest or largest flat index of x (every
    window's taps increase in each coordinate). x must not hold NaN."""
    flat = np.asarray(x, np.float64).ravel()
    assert not np.isnan(flat).any()
    index = np.arange(flat.size)
    tie = -index if select in ("GE", "LT") else index  # GE: the earlier tap ranks higher; LT: lower
    keys = np.empty(flat.size, np.int64)
    keys[np.lexsort((tie, flat))] = np.arange(flat.size)
    return keys.reshape(np.shape(x))


def jax_select_and_scatter(x, select, window, strides, pads, source, init, computation, wide):
    """XLA's SelectAndScatter (jax's general _select_and_scatter) in the type `wide`, selecting on
    select_order_keys(x) rather than x. XLA does not fix which tap a tie selects: its CPU backend expands
    the op into a variadic ReduceWindow whose reducer is the select (xla/service/
    select_and_scatter_expander.cc) and folds windows in an order of its own, so with padding ties go to
    other taps than the row-major sequence of note select_order. On distinct keys every order selects
    the same tap; what jax still checks is the windows, strides, padding and the scatter."""
    keys = select_order_keys(x, select)
    assert np.array_equal(keys.astype(wide).astype(np.int64), keys), "keys do not fit the type"
    return np.asarray(_select_and_scatter(keys.astype(wide), JAX_SELECT[select], tuple(window), tuple(strides),
                                          [tuple(p) for p in pads], np.asarray(source).astype(wide),
                                          np.asarray(init).astype(wide), JAX_COMPUTATIONS[computation]))


@pytest.mark.parametrize("seed", [*range(14), 14, 33, 39])
def test_select_and_scatter_random_against_jax(seed):
    """Every select_type and computation, ties (few distinct values), padding (notes select_order,
    scatter_fold). Seeds 0-13 give every computation and select_type, ranks 1-3 and rank-3 padding with
    ties (2, 5, 8); 14 and 33 are more rank-3 ties with padding (LE, GT), 39 UPDATE over overlapping
    windows. Each case costs an XLA compilation (~0.2 s)."""
    rng = np.random.default_rng(300 + seed)
    select = list(JAX_SELECT)[seed % 4]
    computation = list(JAX_COMPUTATIONS)[seed % len(JAX_COMPUTATIONS)]
    bitwise = computation in ("AND", "OR", "XOR")
    dtype = str(rng.choice(INTS if bitwise else ["double", "int64", "float", "bfloat16"]))
    if computation in ("L2", "DIV"):
        dtype = "double"
    rank = int(rng.integers(1, 4))
    window = [int(rng.integers(1, 4)) for _ in range(rank)]
    sizes = [int(rng.integers(w, 6)) for w in window]  # C8 has no source shape for windows that do not fit
    strides = [int(rng.integers(1, 3)) for _ in range(rank)]
    pads = [(int(rng.integers(0, 3)), int(rng.integers(0, 3))) for _ in range(rank)]
    out = [max((n + lo + hi - w) // s + 1, 0) for n, w, s, (lo, hi) in zip(sizes, window, strides, pads)]
    x = random_array(rng, sizes, dtype, 0, 2)
    source = random_array(rng, out, dtype, 1, 4)
    init = random_array(rng, (), dtype, 1, 3)
    got = select_and_scatter(x, source, init, select_type=select, computation=computation, window_dimensions=window,
                             window_strides=strides, padding=[p[0] for p in pads] + [p[1] for p in pads])[0]
    wide = np.float32 if dtype == "bfloat16" else np_dtype(dtype)
    want = jax_select_and_scatter(x, select, window, strides, pads, source, init, computation, wide)
    assert_matches(got, want.astype(np_dtype(dtype)), dtype,
                   label=f"{select} {computation} {dtype} {sizes} {window} {strides} {pads}")


def test_select_and_scatter_is_the_max_pool_gradient():
    """jax.lax's own select_and_scatter: the vjp of a max reduce_window is select_and_scatter_add with GE."""
    rng = np.random.default_rng(16)
    x = rng.integers(0, 4, (3, 7, 6)).astype(np.float64)
    pads = [(0, 0), (1, 1), (0, 2)]
    pooled, vjp = jax.vjp(lambda v: lax.reduce_window(v, -np.inf, lax.max, (1, 3, 2), (1, 2, 2), pads), x)
    g = rng.standard_normal(pooled.shape)
    (want,) = vjp(g)
    (got,) = select_and_scatter(x, g, np.float64(0), select_type="GE", computation="ADD",
                                window_dimensions=[1, 3, 2], window_strides=[1, 2, 2], padding=[0, 1, 0, 0, 1, 2])
    assert_matches(got, np.asarray(want), "double")


def test_select_and_scatter_ties_and_nan():
    """note select_order: GE first max, GT last max, LE first min, LT last min; NaN gives way."""
    x = np.array([2.0, 1.0, 2.0, 1.0])
    picks = {}
    for select in JAX_SELECT:
        (got,) = select_and_scatter(x, np.array([5.0]), np.float64(0), select_type=select, computation="ADD",
                                    window_dimensions=[4], window_strides=[1], padding=[0, 0])
        picks[select] = int(np.flatnonzero(got)[0])
    assert picks == {"GE": 0, "GT": 2, "LE": 1, "LT": 3}
    (got,) = select_and_scatter(np.array([1.0, np.nan, 0.5]), np.array([5.0]), np.float64(0), select_type="GE",
                                computation="ADD", window_dimensions=[3], window_strides=[1], padding=[0, 0])
    assert got.tolist() == [0.0, 0.0, 5.0]


def test_select_and_scatter_window_of_padding_only_is_dropped():
    """note scatter_fold: compared with XLA (jax) on windows lying wholly in the padding."""
    x = np.array([1.0, 2.0, 3.0])
    source = np.array([10.0, 20.0, 30.0])
    (got,) = select_and_scatter(x, source, np.float64(0), select_type="GE", computation="ADD",
                                window_dimensions=[2], window_strides=[2], padding=[3, 0])
    want = _select_and_scatter(x, lax.ge, (2,), (2,), [(3, 0)], source, 0.0, lax.add)
    assert got.tolist() == np.asarray(want).tolist() == [20.0, 0.0, 30.0]  # [p p] dropped, [p 1], [2 3]


@pytest.mark.parametrize("dtype", NUMERIC + ("bfloat16",))
def test_select_and_scatter_every_dtype(dtype):
    """Distinct input values (exact in every type), so that XLA's own select is a reference whatever
    order it folds a window in (see jax_select_and_scatter); ties are checked in the random test."""
    rng = np.random.default_rng(17)
    x = rng.permutation(20).reshape(5, 4).astype(np_dtype(dtype))
    source = random_array(rng, (2, 2), dtype, 1, 9)
    init = np.asarray(1, np_dtype(dtype))
    (got,) = select_and_scatter(x, source, init, select_type="GE", computation="ADD", window_dimensions=[3, 2],
                                window_strides=[2, 2], padding=[0, 0, 0, 0])
    wide = np.float32 if dtype in ("float16", "bfloat16") else np_dtype(dtype)
    want = _select_and_scatter(x.astype(wide), lax.ge, (3, 2), (2, 2), [(0, 0), (0, 0)], source.astype(wide),
                               init.astype(wide), lax.add)
    assert got.dtype == np_dtype(dtype)
    assert_matches(got, np.asarray(want).astype(np_dtype(dtype)), dtype)


@pytest.mark.parametrize("op", ["AveragePool", "MaxPool"])
def test_ceil_mode_output_sizes_follow_onnx_shape_inference(op):
    """ceil_mode drops a last window that would start past the input and the low padding, even when
    the high padding is wider than the window (onnx.shape_inference as the reference; onnxruntime
    refuses such padding and onnx.reference's pool loop runs past its own output)."""
    from onnx import helper, shape_inference

    cases = [(n, k, s, [lo, hi]) for n in (1, 2, 5, 6, 7) for k in (1, 2, 3) for s in (1, 2, 3)
             for lo in (0, 1) for hi in (0, 1, 2, 3) if lo < k and n + lo + hi >= k]
    for n, k, s, pads in cases:
        node = helper.make_node(op, ["X"], ["Y"], kernel_shape=[k], strides=[s], pads=pads, ceil_mode=1)
        graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", 1, [1, 1, n])],
                                  [helper.make_tensor_value_info("Y", 1, None)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)], ir_version=10)
        inferred = shape_inference.infer_shapes(model, strict_mode=True)
        want = [d.dim_value for d in inferred.graph.output[0].type.tensor_type.shape.dim]
        x = np.arange(n, dtype=np.float32).reshape(1, 1, n)
        attrs = dict(kernel_shape=[k], strides=[s], padding=pads, ceil_mode=True)
        if op == "AveragePool":
            attrs["dims"] = [2]
        with np.errstate(all="ignore"):
            got = kernel(op)(x, **attrs)[0]
        assert list(got.shape) == want, (n, k, s, pads)
