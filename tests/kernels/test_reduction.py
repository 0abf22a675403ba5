"""hlir reductions and normalisations against independent implementations.

References: onnx.reference and onnxruntime for the ONNX-defined ops (ArgMax, ArgMin, InstanceNorm,
LayerNorm, GroupNorm, GlobalAveragePool, GlobalMaxPool), jax.lax.reduce (XLA, x64, CPU) for Reduce,
torch (CPU) for the batch norms (XLA-defined, but jax has no batch norm and a jax.numpy composition
would only restate the formula), the ONNX-style norms once more, BCELoss and CTCLoss.

Precision: the kernels compute float16 in float32 and round once. The XLA references for float16 run in
float32 too and are rounded the same way; the torch and ONNX references run in double, more accurate
than any of the kernels, and are rounded to the kernel's type. Every behaviour the seed text or a spec
note fixes has its own test naming the note.
"""
from __future__ import annotations

import decimal
import functools
import math

import jax
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from onnx import helper
from onnx.reference import ReferenceEvaluator

import opgen_ops
from kernel_refs import SHAPES, assert_matches, edge_values, jnp, kernel, lax, np_dtype, random_array
from opgen.dtypes import ELEM_TYPES
from opgen.runtime import kernels as runtime_kernels
from opgen.runtime.validation import ValidationError
from onnx_refs import ort_session

INTS = ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64")
FLOATS = ("float16", "float", "double")
NUMERIC = INTS + FLOATS


def validator(op: str):
    return opgen_ops.get_validator("hlir", op, 1)


def wide(name: str) -> np.dtype:
    """The precision a reference runs in: float32 for float16 (computed in float32, rounded once)."""
    return np.dtype(np.float32) if name == "float16" else np_dtype(name)


def with_edges(rng, shape, dtype: str, shift: int = 0, subnormals: bool = True, huge: bool = True) -> np.ndarray:
    """A random array whose first elements are the dtype's edge values (rolled by `shift`).

    subnormals=False leaves out the subnormal edge values, for references that flush them to zero
    (XLA on CPU does); the kernels keep them, which test_reduce_keeps_subnormals shows. huge=False
    leaves out +-max, whose sums with each other depend on the summation order (any order is right)."""
    array = random_array(rng, shape, dtype)
    edges = edge_values(dtype)
    if not subnormals and ELEM_TYPES[dtype].kind == "float":
        edges = edges[~((np.abs(edges) < np.finfo(edges.dtype).tiny) & (edges != 0))]
    if not huge and ELEM_TYPES[dtype].kind == "float":
        edges = edges[np.abs(edges) != np.finfo(edges.dtype).max]
    edges = np.roll(edges, shift)
    flat = array.reshape(-1)
    count = min(flat.size, edges.size)
    flat[:count] = edges[:count]
    return array


# ---- ONNX references ---------------------------------------------------------------------------

def onnx_model(op: str, inputs: list[np.ndarray], attrs: dict, opset: int, out_types: list[np.dtype]):
    names = [f"x{k}" for k in range(len(inputs))]
    outs = [f"y{k}" for k in range(len(out_types))]
    node = helper.make_node(op, names, outs, **attrs)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
         for n, a in zip(names, inputs)],
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(np.dtype(t)), None)
         for n, t in zip(outs, out_types)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10), names


def onnx_reference(op, inputs, attrs, opset, out_types):
    model, names = onnx_model(op, inputs, attrs, opset, out_types)
    with np.errstate(all="ignore"):  # infinities and NaN are part of the data
        return ReferenceEvaluator(model).run(None, dict(zip(names, inputs)))


def onnxruntime(op, inputs, attrs, opset, out_types):
    """onnxruntime's outputs, or None when it has no kernel for these types."""
    model, names = onnx_model(op, inputs, attrs, opset, out_types)
    try:
        session = ort_session(model)
    except Exception as exc:  # no kernel registered for this type
        if "NOT_IMPLEMENTED" in str(exc) or "Could not find an implementation" in str(exc):
            return None
        raise
    return session.run(None, dict(zip(names, inputs)))


def torch_in(array: np.ndarray) -> torch.Tensor:
    """The values in double: the floating-point references run in double and are rounded once to the
    kernel's type, so they are more accurate than any of the kernels."""
    return torch.from_numpy(np.array(array, dtype=np.float64))  # (ascontiguousarray would make 0-d 1-d)


def ref_in(*arrays: np.ndarray) -> list[np.ndarray]:
    return [a.astype(np.float64) for a in arrays]


def from_torch(t: torch.Tensor, dtype: str) -> np.ndarray:
    return t.detach().numpy().astype(np_dtype(dtype))


# =================================================================================================
# ArgMax / ArgMin (ONNX text; onnx.reference and onnxruntime)
# =================================================================================================

ARG_SHAPES = [((7,), 0), ((2, 3), 0), ((2, 3), 1), ((2, 3, 4), 0), ((2, 3, 4), 1), ((2, 3, 4), 2), ((0, 3), 1),
              ((3, 0, 2), 0)]


@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
@pytest.mark.parametrize("dtype", NUMERIC)
def test_arg_extreme_matches_onnx(op, dtype):
    rng = np.random.default_rng(sum(map(ord, op + dtype)))
    for shape, axis in ARG_SHAPES:
        # few distinct values, so that ties exercise select_last_index
        x = np.asarray(rng.integers(0, 4, size=shape)).astype(np_dtype(dtype))
        for data in (x, random_array(rng, shape, dtype)):
            for keepdims in (False, True):
                for last in (False, True):
                    attrs = dict(axis=axis, keepdims=keepdims, select_last_index=last)
                    (got,) = kernel(op)(data, **attrs)
                    label = f"{op} {dtype} {shape} {attrs}"
                    onnx_attrs = dict(axis=axis, keepdims=int(keepdims), select_last_index=int(last))
                    (want,) = onnx_reference(op, [data], onnx_attrs, 13, [np.int64])
                    assert got.dtype == np.int64, label
                    assert_matches(got, want, "int64", label)
                    ort = onnxruntime(op, [data], onnx_attrs, 13, [np.int64])
                    if ort is not None:
                        assert_matches(got, ort[0], "int64", label + " (onnxruntime)")


@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
@pytest.mark.parametrize("dtype", NUMERIC)
def test_arg_extreme_edge_values(op, dtype):
    """Edge values (infinities, denormals, integer limits, NaN) against onnx.reference and jax.numpy;
    onnxruntime is inconsistent about NaN (note nan_and_ties), so it is compared on NaN-free data only."""
    edges = edge_values(dtype)
    rng = np.random.default_rng(7)
    x = np.stack([np.roll(edges, k) for k in range(3)] + [rng.permutation(edges) for _ in range(3)])
    pick = jnp.argmax if op == "ArgMax" else jnp.argmin
    for axis in (0, 1):
        (got,) = kernel(op)(x, axis=axis, keepdims=False)
        (want,) = onnx_reference(op, [x], dict(axis=axis, keepdims=0), 13, [np.int64])
        assert_matches(got, want, "int64", f"{op} {dtype} axis {axis}")
        assert_matches(got, np.asarray(pick(jnp.asarray(x), axis=axis)), "int64", f"{op} {dtype} jnp")
        finite = x if ELEM_TYPES[dtype].kind != "float" else np.where(np.isnan(x), x.dtype.type(0), x)
        ort = onnxruntime(op, [finite], dict(axis=axis, keepdims=0), 13, [np.int64])
        if ort is not None:
            assert_matches(kernel(op)(finite, axis=axis, keepdims=False)[0], ort[0], "int64", f"{op} {dtype} ort")


@pytest.mark.parametrize("dtype", FLOATS)
def test_arg_extreme_nan_and_ties(dtype):
    """Note nan_and_ties: NaN is the extreme for both ops (first NaN, last with select_last_index);
    -0.0 and +0.0 tie. (onnxruntime is not consistent about NaN, so it is not asked here.)"""
    x = np.array([1.0, np.nan, 3.0, np.nan, -3.0], np_dtype(dtype))
    for op in ("ArgMax", "ArgMin"):
        assert kernel(op)(x, keepdims=False)[0] == 1
        assert kernel(op)(x, keepdims=False, select_last_index=True)[0] == 3
    zeros = np.array([-0.0, 0.0, -0.0], np_dtype(dtype))
    assert kernel("ArgMax")(zeros)[0].tolist() == [0]
    assert kernel("ArgMax")(zeros, select_last_index=True)[0].tolist() == [2]
    assert kernel("ArgMin")(zeros, select_last_index=True)[0].tolist() == [2]


def test_arg_extreme_defaults_and_keepdims():
    x = np.array([[1, 5, 5], [7, 0, 7]], np.int32)
    assert kernel("ArgMax")(x)[0].tolist() == [[1, 0, 1]]  # axis 0, keepdims true by default
    assert kernel("ArgMax")(x, axis=1, keepdims=False)[0].tolist() == [1, 0]
    assert kernel("ArgMax")(x, axis=1, keepdims=False, select_last_index=True)[0].tolist() == [2, 2]
    assert kernel("ArgMin")(x, axis=1)[0].tolist() == [[0], [1]]


@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
def test_arg_extreme_rejects_bad_axis_rank0_and_empty_axis(op):
    with pytest.raises(ValidationError, match="C1"):
        kernel(op)(np.zeros((2, 3), np.float32), axis=2)
    with pytest.raises(ValidationError, match="C1"):
        kernel(op)(np.float32(1.0))  # rank 0: no axis in [0, r-1]
    with pytest.raises(ValidationError, match="C2"):  # note empty_axis
        kernel(op)(np.zeros((0, 3), np.float32), axis=0)
    assert kernel(op)(np.zeros((0, 3), np.float32), axis=1)[0].shape == (0, 1)
    with pytest.raises(ValidationError, match="bool"):
        kernel(op)(np.zeros((2,), bool))


# =================================================================================================
# Reduce (XLA Reduce with the seed's left fold from init; jax.lax.reduce)
# =================================================================================================


def reduce_kernel(inputs, init_values, **attrs):
    """The generated hlir.Reduce kernel: the inputs, then the initial values, as its variadic inputs."""
    return opgen_ops.get_kernel("hlir", "Reduce")(*inputs, *init_values, **attrs)


LAX_COMPUTATION = {"ADD": lax.add, "SUB": lax.sub, "MUL": lax.mul, "DIV": lax.div, "MAX": lax.max,
                   "MIN": lax.min, "ARGMAX": lax.max, "ARGMIN": lax.min, "AND": lax.bitwise_and,
                   "OR": lax.bitwise_or, "XOR": lax.bitwise_xor, "UPDATE": lambda acc, x: x}
COMPUTATIONS = ("UPDATE", "ADD", "SUB", "MUL", "DIV", "MIN", "MAX", "AND", "OR", "XOR", "ARGMIN", "ARGMAX",
                "L2", "COUNT")


def rows(x: np.ndarray, dims) -> np.ndarray:
    """The reduced dimensions as one last axis, in row-major order; no dimension gives a length-1 axis."""
    dims = sorted(dims)
    kept = [k for k in range(x.ndim) if k not in dims]
    count = int(np.prod([x.shape[d] for d in dims], dtype=np.int64))
    return np.transpose(x, kept + dims).reshape([x.shape[k] for k in kept] + [count])


@np.errstate(all="ignore")
def reduce_reference(x: np.ndarray, init, computation: str, dims, dtype: str) -> np.ndarray:
    """XLA Reduce (jax.lax.reduce) over the reduced elements of each output as one axis, so that the
    initial value is applied once (note fold_left), also with no dimension or one element, where XLA,
    which takes init for an identity, would drop it; float16 in float32, rounded once. L2 by
    math.hypot in double; for integers exactly by decimal, truncated and saturated (note l2_and_count)."""
    r = rows(x.astype(wide(dtype)), dims)
    init = np.asarray(init).astype(wide(dtype))
    if computation == "L2":
        flat = r.reshape(int(np.prod(r.shape[:-1], dtype=np.int64)), r.shape[-1])
        if ELEM_TYPES[dtype].kind != "float":  # exact: decimal square root of the exact sum of squares
            top = int(np.iinfo(np_dtype(dtype)).max)
            with decimal.localcontext(decimal.Context(prec=80)):
                out = [min(int(sum(decimal.Decimal(int(v)) ** 2 for v in [init.item(), *row.tolist()]).sqrt()),
                           top) if row.size else init.item() for row in flat]
            return np.array(out, dtype=object).astype(np_dtype(dtype)).reshape(r.shape[:-1])
        out = [math.hypot(init.item(), *row.tolist()) if row.size else init.item() for row in flat]
        return np.array(out, np.float64).astype(np_dtype(dtype)).reshape(r.shape[:-1])
    if computation == "COUNT":
        r = np.ones_like(r)
    flat = r.reshape(int(np.prod(r.shape[:-1], dtype=np.int64)), r.shape[-1])  # one compilation per (M, N)
    out = np.asarray(xla_reduce_last(jnp.asarray(flat), jnp.asarray(init), computation))
    return out.reshape(r.shape[:-1]).astype(np_dtype(dtype))


@functools.partial(jax.jit, static_argnums=2)
def xla_reduce_last(r, init, computation: str):
    fn = lax.add if computation == "COUNT" else LAX_COMPUTATION[computation]
    if r.shape[-1] == 1:  # XLA takes init for an identity and drops it here: apply the computation once
        return fn(jnp.full(r.shape[:-1], init), r[..., 0])
    return lax.reduce(r, init, fn, (r.ndim - 1,))


# (shape, dimensions): rank 0, empty inputs and outputs, no dimension, several (also unsorted) dimensions
REDUCE_CASES = [((), []), ((0,), [0]), ((7,), []), ((7,), [0]), ((2, 3), [1]), ((2, 3), [1, 0]),
                ((2, 3, 4), []), ((2, 3, 4), [1]), ((2, 3, 4), [2, 0]), ((2, 3, 4), [0, 1, 2]), ((3, 0, 2), [1]),
                ((3, 0, 2), [0, 2])]


@pytest.mark.parametrize("computation,dtype", [
    (c, t) for c in COMPUTATIONS for t in NUMERIC
    if not (c in ("AND", "OR", "XOR") and t in FLOATS)])  # bitwise takes integers: test_reduce_bitwise_needs_integers
def test_reduce_single_input_matches_xla(computation, dtype):
    rng = np.random.default_rng(sum(map(ord, computation + dtype)))
    for shape, dims in REDUCE_CASES:
        for data in (random_array(rng, shape, dtype), with_edges(rng, shape, dtype, len(dims), dtype == "float16")):
            init = random_array(rng, (), dtype)
            if computation == "DIV" and ELEM_TYPES[dtype].kind != "float":
                init = np.asarray(np.iinfo(np_dtype(dtype)).max // 3, np_dtype(dtype))
            (got,) = reduce_kernel([data], [init], dimensions=dims, computation=computation)
            want = reduce_reference(data, init, computation, dims, dtype)
            assert got.dtype == np_dtype(dtype)
            assert_matches(got, want, dtype, f"Reduce {computation} {dtype} {shape} dims={dims} init={init}")


def first_position_of(row0: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Index along the last axis of the first element that is m itself (same sign of zero; NaN for NaN)."""
    same = row0 == m[..., None]
    if row0.dtype.kind == "f":
        same = (same & (np.signbit(row0) == np.signbit(m[..., None]))) | (np.isnan(row0) & np.isnan(m[..., None]))
    return np.argmax(same, axis=-1)


@pytest.mark.parametrize("computation", ["MAX", "MIN", "ARGMAX", "ARGMIN"])
@pytest.mark.parametrize("dtype", NUMERIC)
def test_reduce_multiple_inputs_take_values_at_the_extreme(computation, dtype):
    """Seed: with several inputs, max or min is computed on the first input only and the others take
    their values at its index (note arg_computations). The extreme is XLA's (lax.reduce); its index is
    jax.numpy's argmax/argmin over the row with the initial value in front, on data without ties of
    signed zeros or NaN, and otherwise the first position holding exactly that extreme."""
    rng = np.random.default_rng(sum(map(ord, computation + dtype)))
    largest = computation in ("MAX", "ARGMAX")
    for shape, dims in REDUCE_CASES:
        for edges in (False, True):
            x0 = (with_edges(rng, shape, dtype, 3, dtype == "float16") if edges
                  else random_array(rng, shape, dtype, -50, 50))
            x1 = random_array(rng, shape, dtype)
            x2 = np.arange(x0.size).reshape(shape).astype(np_dtype(dtype))  # an iota: the index itself
            inits = [random_array(rng, (), dtype), random_array(rng, (), dtype), np.asarray(0, np_dtype(dtype))]
            got = reduce_kernel([x0, x1, x2], inits, dimensions=dims, computation=computation)
            m = reduce_reference(x0, inits[0], "MAX" if largest else "MIN", dims, dtype)
            full = [np.concatenate([np.broadcast_to(v, rows(x, dims).shape[:-1] + (1,)), rows(x, dims)], axis=-1)
                    for x, v in zip((x0, x1, x2), inits)]
            position = first_position_of(full[0], m)
            if not edges:
                pick = jnp.argmax if largest else jnp.argmin
                np.testing.assert_array_equal(position, np.asarray(pick(jnp.asarray(full[0]), axis=-1)))
            label = f"Reduce {computation} {dtype} {shape} dims={dims} edges={edges}"
            assert_matches(got[0], m, dtype, label)
            for k in (1, 2):
                want = np.take_along_axis(full[k], position[..., None], axis=-1)[..., 0]
                assert_matches(got[k], want, dtype, f"{label} input {k}")


def test_reduce_argmax_with_iota_is_xla_argmax():
    """XLA expresses argmax as a Reduce over (values, iota) from (-inf, 0): the second output is then
    jax.numpy.argmax (including NaN, the first NaN)."""
    rng = np.random.default_rng(3)
    x = rng.integers(-3, 3, size=(4, 5, 6)).astype(np.float64)
    x[1, 2, 3] = np.nan
    for axis in range(3):
        iota = np.broadcast_to(np.arange(x.shape[axis], dtype=np.float64).reshape(
            [-1 if k == axis else 1 for k in range(3)]), x.shape)
        for computation, pick, start in (("ARGMAX", jnp.argmax, -np.inf), ("ARGMIN", jnp.argmin, np.inf)):
            values, index = reduce_kernel([x, iota], [np.float64(start), np.float64(0)], dimensions=[axis],
                                          computation=computation)
            np.testing.assert_array_equal(index, np.asarray(pick(jnp.asarray(x), axis=axis)).astype(np.float64))


def test_reduce_fold_left_from_init():
    """Note fold_left: acc = init, then acc = f(acc, x) over the reduced elements in row-major order."""
    f64 = np.float64
    run = lambda x, init, comp, dims=(0,): reduce_kernel([np.asarray(x)], [np.asarray(init)],  # noqa: E731
                                                          dimensions=list(dims), computation=comp)[0]
    assert run(np.array([1.0, 2.0, 3.0]), f64(10), "SUB") == 4.0  # ((10 - 1) - 2) - 3
    assert run(np.array([2.0, 5.0]), f64(100), "DIV") == 10.0  # (100 / 2) / 5
    assert run(np.array([2, 3], np.int32), np.int32(-100), "DIV") == -16  # trunc(trunc(-100 / 2) / 3)
    assert run(np.array([0], np.int32), np.int32(7), "DIV") == -1  # XLA: x / 0 = -1
    assert run(np.array([0], np.uint8), np.uint8(7), "DIV") == 255  # unsigned: all bits set
    assert run(np.array([-1], np.int8), np.int8(-128), "DIV") == -128  # MIN / -1 = MIN
    assert run(np.array([100, 100], np.int8), np.int8(0), "ADD") == -56  # wraps around
    grid = np.array([[1, 2], [3, 4]], np.int64)
    assert run(grid, np.int64(0), "UPDATE", (0, 1)) == 4  # the last element in row-major order
    assert run(grid, np.int64(0), "UPDATE", (1, 0)).tolist() == 4
    assert run(grid, np.int64(9), "UPDATE", ()).tolist() == grid.tolist()  # UPDATE(init, x) = x
    # no dimension: every output is f(init, x) -- XLA (jax.lax.reduce), taking init for an identity, drops it
    assert run(grid, np.int64(10), "ADD", ()).tolist() == (grid + 10).tolist()
    assert np.asarray(lax.reduce(jnp.asarray(grid), jnp.int64(10), lax.add, ())).tolist() == grid.tolist()
    # no element: the initial value
    for comp in COMPUTATIONS:
        assert run(np.zeros((0, 3), np.int32), np.int32(-5), comp).tolist() == [-5, -5, -5], comp


@pytest.mark.parametrize("shape, dims, dtype", [((257, 40), [1], np.float32), ((129, 6), [1], np.float16),
                                               ((2, 130, 5), [2], np.float64), ((300, 3, 4), [1, 2], np.float32)])
def test_reduce_add_mul_along_rows_fold_left_bit_for_bit(shape, dims, dtype):
    """Note fold_left along the contiguous last dimensions of more than one block of outputs (the kernel
    folds blocks of transposed rows; a last block of one row joins the one before): every output is
    init + x1 + x2 + ... in that order, bit for bit. Reference: NumPy's sequential scan (ufunc.accumulate)
    over [init, x1, ..., xn] in the compute type (float32 for float16), its last element rounded once."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal(shape).astype(dtype)
    x.reshape(-1)[[3, 50, 77]] = [np.inf, -0.0, np.nan]
    compute = np.float32 if dtype == np.float16 else dtype
    for comp, ufunc, init, data in (("ADD", np.add, 0.25, x), ("MUL", np.multiply, 1.5, (1 + x / 8).astype(dtype))):
        rows = data.reshape(-1, math.prod(shape[d] for d in dims)).astype(compute)
        start = np.full((rows.shape[0], 1), init, compute)
        want = ufunc.accumulate(np.concatenate([start, rows], axis=1), axis=1)[:, -1].astype(dtype)
        got = reduce_kernel([data], [dtype(init)], dimensions=dims, computation=comp)[0]
        assert got.dtype == dtype and got.reshape(-1).tobytes() == want.tobytes(), comp


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_reduce_mul_fold_left_against_python_fold(dtype):
    """Note fold_left for MUL, which the kernel computes with np.multiply.reduce: every output is
    init * x1 * x2 * ... in row-major order of its reduced elements, whichever dimensions are reduced and
    however the input is laid out (a transposed view too). Reference: functools.reduce over each output's
    elements listed in row-major order, in Python floats rounded to the compute type after each product
    (float32 for float16; a product of two float32 numbers is exact in double, so rounding it once gives the
    float32 product), then rounded once. Data near 1 with NaN, +-inf, -0.0, subnormals and huge values.
    Results compare bit for bit except where both are NaN: which NaN a product of two NaNs keeps is
    the processor's business (x86 takes the first operand, and C compilers may swap a product's operands)."""
    rng = np.random.default_rng(11)
    compute = np.float32 if dtype == np.float16 else dtype
    specials = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-41, -1e-42, 3e38, -2.0, 1e-300, 1e300, np.nan]
    cases = [((6, 300), [1]), ((300, 6), [0]), ((4, 30, 6), [1]), ((4, 30, 6), [0, 2]), ((900,), [0]), ((3, 4), [])]
    for shape, dims in cases:
        x = 1 + rng.standard_normal(shape) / 8
        flat = x.reshape(-1)
        flat[rng.choice(flat.size, min(flat.size, len(specials)), replace=False)] = specials[:flat.size]
        with np.errstate(over="ignore"):  # 1e300 becomes inf in the narrower types
            x = x.astype(dtype)
        for data, reduced in ((x, dims), (x.T, sorted(x.ndim - 1 - d for d in dims))):
            init = dtype(1.25)
            kept = [k for k in range(data.ndim) if k not in reduced]
            outputs = rows(data, reduced).astype(compute)  # each output's elements in row-major order
            step = lambda acc, v: float(compute(acc * v))  # noqa: E731
            with np.errstate(all="ignore"):
                want = np.array([functools.reduce(step, row.tolist(), float(compute(init)))
                                 for row in outputs.reshape(-1, outputs.shape[-1])], compute).astype(dtype)
                got = reduce_kernel([data], [init], dimensions=reduced, computation="MUL")[0]
            assert got.shape == tuple(data.shape[k] for k in kept) and got.dtype == dtype
            got, want = got.reshape(-1), want.reshape(-1)
            nan = np.isnan(want)
            assert np.array_equal(np.isnan(got), nan), (shape, dims)
            assert got[~nan].tobytes() == want[~nan].tobytes(), (shape, reduced, data.flags.c_contiguous)


def test_reduce_l2_and_count():
    """Note l2_and_count: L2 folds hypot (sqrt(init^2 + sum x^2)); integers exactly, truncated and
    saturated; COUNT adds one per reduced element."""
    run = lambda x, init, comp: reduce_kernel([np.asarray(x)], [np.asarray(init)],  # noqa: E731
                                              dimensions=[0], computation=comp)[0]
    assert run(np.array([3.0, 4.0], np.float32), np.float32(0), "L2") == 5.0
    assert run(np.array([3.0, 4.0]), np.float64(12), "L2") == 13.0
    assert run(np.array([1e200, 1e200]), np.float64(0), "L2") == pytest.approx(math.sqrt(2) * 1e200)  # no overflow
    assert run(np.array([np.inf, np.nan]), np.float64(0), "L2") == np.inf  # C hypot: inf even with NaN
    assert np.isnan(run(np.array([1.0, np.nan]), np.float64(0), "L2"))
    assert run(np.array([3, 4], np.int8), np.int8(0), "L2") == 5
    assert run(np.array([2, 2], np.int32), np.int32(0), "L2") == 2  # sqrt(8) = 2.83 truncated
    assert run(np.array([127, 127], np.int8), np.int8(0), "L2") == 127  # 179.6 saturates
    assert run(np.array([-3, 4], np.int64), np.int64(0), "L2") == 5
    assert run(np.zeros((0,), np.int32), np.int32(-3), "L2") == -3  # no element: init itself
    assert run(np.zeros((6,), np.float16), np.float16(0.5), "COUNT") == 6.5
    assert run(np.zeros((300,), np.uint8), np.uint8(5), "COUNT") == (5 + 300) % 256  # wraps as adding 1 does
    assert run(np.full((4,), np.nan), np.float64(1), "COUNT") == 5  # counts elements, whatever their value


@pytest.mark.parametrize("dtype", FLOATS)
def test_reduce_max_min_order(dtype):
    """Note max_min_order: NaN propagates and -0.0 < +0.0 (XLA's max/min), also in the choice of the
    position that multiple inputs take their values from; the initial value wins ties."""
    t = np_dtype(dtype)
    zeros, index = np.array([-0.0, 0.0, -0.0], t), np.array([0, 1, 2], t)
    start = [np.asarray(-np.inf, t), np.asarray(-1, t)]
    value, at = reduce_kernel([zeros, index], start, dimensions=[0], computation="ARGMAX")
    assert value == 0 and not np.signbit(value) and at == 1
    value, at = reduce_kernel([zeros, index], [np.asarray(np.inf, t), np.asarray(-1, t)], dimensions=[0],
                              computation="MIN")
    assert value == 0 and np.signbit(value) and at == 0
    for comp, want in (("MAX", np.asarray(lax.reduce(jnp.asarray(zeros), jnp.asarray(-np.inf, t), lax.max, (0,)))),
                       ("MIN", np.asarray(lax.reduce(jnp.asarray(zeros), jnp.asarray(np.inf, t), lax.min, (0,))))):
        (got,) = reduce_kernel([zeros], [np.asarray(np.inf if comp == "MIN" else -np.inf, t)], dimensions=[0],
                               computation=comp)
        assert np.signbit(got) == np.signbit(want), comp
    nan = np.array([1.0, np.nan, 5.0, np.nan], t)
    value, at = reduce_kernel([nan, np.arange(4).astype(t)], start, dimensions=[0], computation="MIN")
    assert np.isnan(value) and at == 1
    tie = np.array([5.0, 3.0, 5.0], t)
    value, at = reduce_kernel([tie, np.arange(3).astype(t)], [np.asarray(5, t), np.asarray(-1, t)],
                              dimensions=[0], computation="MAX")
    assert value == 5 and at == -1  # the initial value is the leftmost candidate
    value, at = reduce_kernel([tie, np.arange(3).astype(t)], start, dimensions=[0], computation="MAX")
    assert value == 5 and at == 0  # among elements, the first


def test_reduce_single_input_argmax_is_max():
    """Note arg_computations: with one input ARGMAX/ARGMIN give the extreme value (type T)."""
    x = np.array([[3, 9, 2], [7, 1, 8]], np.int16)
    for arg, plain in (("ARGMAX", "MAX"), ("ARGMIN", "MIN")):
        a = reduce_kernel([x], [np.int16(5)], dimensions=[1], computation=arg)
        b = reduce_kernel([x], [np.int16(5)], dimensions=[1], computation=plain)
        assert a[0].tolist() == b[0].tolist() and a[0].dtype == np.int16
    assert reduce_kernel([x], [np.int16(5)], dimensions=[1], computation="ARGMAX")[0].tolist() == [9, 8]


@pytest.mark.parametrize("dtype", ["float", "double"])
def test_reduce_keeps_subnormals(dtype):
    """The kernels are IEEE: subnormal inputs are not flushed to zero (XLA on CPU flushes them, which is
    why the comparisons with lax.reduce leave them out)."""
    t = np_dtype(dtype)
    sub = np.finfo(t).smallest_subnormal
    run = lambda x, init, comp: reduce_kernel([np.asarray(x, t)], [np.asarray(init, t)],  # noqa: E731
                                              dimensions=[0], computation=comp)[0]
    assert run([sub, sub], 0, "ADD") == 2 * sub
    assert run([sub, 4.0], 1, "MUL") == 4 * sub
    assert run([sub, 0.0], -np.inf, "MAX") == sub
    assert run([sub], 0, "L2") == sub
    assert run([sub], 1, "DIV") == np.inf  # 1 / smallest subnormal overflows
    assert run([-sub], 0, "SUB") == sub


def test_reduce_rejections():
    f = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="integer"):  # note bitwise_integers
        reduce_kernel([f], [np.float32(0)], dimensions=[1], computation="XOR")
    with pytest.raises(ValidationError, match="C5"):
        reduce_kernel([f, f], [np.float32(0), np.float32(0)], dimensions=[1], computation="ADD")
    with pytest.raises(ValidationError, match="split equally"):  # C1: as many init_values as inputs
        reduce_kernel([f, f], [np.float32(0)], dimensions=[1], computation="MAX")
    with pytest.raises(ValidationError, match="C4"):
        reduce_kernel([f], [np.zeros(1, np.float32)], dimensions=[1], computation="MAX")
    with pytest.raises(ValidationError, match="C4"):
        reduce_kernel([f], [np.float32(0)], dimensions=[2], computation="MAX")
    with pytest.raises(ValidationError, match="C3"):
        reduce_kernel([f], [np.float32(0)], dimensions=[1, 1], computation="MAX")
    with pytest.raises(ValidationError, match="C4"):
        reduce_kernel([f, np.zeros((3, 2), np.float32)], [np.float32(0)] * 2, dimensions=[1], computation="MAX")
    # the runtime kernel checks what the generated validator would, when called directly
    with pytest.raises(ValueError, match="computation"):
        runtime_kernels.call("reduction.reduce", ([f, f], [np.float32(0)] * 2), dict(dimensions=[1], computation="ADD"))


# =================================================================================================
# Batch normalisation (XLA definitions; torch's batch norm kernels as the reference)
# =================================================================================================

# (input shape, feature_index): rank 1, the feature dimension first, middle and last, empty dimensions
BN_CASES = [((7,), 0), ((2, 3), 0), ((2, 3), 1), ((2, 3, 4), 0), ((2, 3, 4), 1), ((2, 3, 4), 2), ((3, 2, 2, 2), 1),
            ((2, 0, 4), 2), ((3, 0), 1)]
EPSILONS = (2.0 ** -14, 0.25)  # exact in float, as ONNX stores epsilon


def channels_second(x: torch.Tensor, feature_index: int) -> torch.Tensor:
    """torch keeps features in dimension 1: move them there (a rank-1 input gets a batch of one)."""
    return x[None] if x.dim() == 1 else torch.movedim(x, feature_index, 1)


def channels_back(y: torch.Tensor, feature_index: int, rank: int) -> torch.Tensor:
    return y[0] if rank == 1 else torch.movedim(y, 1, feature_index)


def bn_inputs(rng, shape, fi, dtype, edges):
    """Edge values go into input and variance; scale, bias and mean stay finite (see
    test_batch_norm_inference_formula_order for infinite ones)."""
    c = shape[fi]
    x = with_edges(rng, shape, dtype, huge=False) if edges else random_array(rng, shape, dtype)
    scale, bias, mean = (random_array(rng, (c,), dtype) for _ in range(3))
    var = np.abs(with_edges(rng, (c,), dtype, 4, huge=False)) if edges else random_array(rng, (c,), dtype, 0.0, 3.0)
    return x, scale, bias, mean, var


@pytest.mark.parametrize("dtype", FLOATS)
def test_batch_norm_inference_matches_torch(dtype):
    rng = np.random.default_rng(11)
    for shape, fi in BN_CASES:
        for edges in (False, True):
            for eps in EPSILONS:
                x, scale, bias, mean, var = bn_inputs(rng, shape, fi, dtype, edges)
                (got,) = kernel("BatchNormInference")(x, scale, bias, mean, var, epsilon=eps, feature_index=fi)
                assert got.shape == shape and got.dtype == np_dtype(dtype)
                if not x.size:
                    continue  # torch has no batch norm of nothing
                t = [torch_in(a) for a in (x, scale, bias, mean, var)]
                want = F.batch_norm(channels_second(t[0], fi), t[3], t[4], t[1], t[2], training=False, eps=eps)
                assert_matches(got, from_torch(channels_back(want, fi, x.ndim), dtype), dtype,
                               f"BatchNormInference {dtype} {shape} fi={fi} edges={edges} eps={eps}")


def test_batch_norm_inference_formula_order():
    """Note formula_order: the output is evaluated as the formula is written; torch folds the parameters
    into x * (scale * rstd) + (bias - mean * scale * rstd), which gives NaN where an infinite scale meets
    a zero mean."""
    one, zero, inf = np.ones(1), np.zeros(1), np.full(1, np.inf)
    (got,) = kernel("BatchNormInference")(one, inf, zero, zero, zero, epsilon=1.0, feature_index=0)
    assert got.tolist() == [np.inf]  # (1 - 0) / sqrt(0 + 1) * inf + 0
    want = F.batch_norm(torch.ones(1, 1, dtype=torch.float64), torch.zeros(1, dtype=torch.float64),
                        torch.zeros(1, dtype=torch.float64), torch.full((1,), np.inf, dtype=torch.float64),
                        torch.zeros(1, dtype=torch.float64), training=False, eps=1.0)
    assert torch.isnan(want).all()  # the reference difference the note records


@pytest.mark.parametrize("dtype", FLOATS)
def test_batch_norm_training_matches_torch(dtype):
    """output from torch.native_batch_norm in training mode; mean from torch.mean and the population
    variance from torch.var(correction=0), over every dimension except feature_index. (torch's
    var_mean and batch norm statistics use Welford's update, whose mean of [inf, 1] is NaN.)"""
    rng = np.random.default_rng(12)
    for shape, fi in BN_CASES:
        if np.prod(shape) == 0 and shape[fi] != 0:
            continue  # no element per feature: test_batch_norm_statistics_of_nothing
        for edges in (False, True):
            x, scale, bias, _, _ = bn_inputs(rng, shape, fi, dtype, edges)
            eps = EPSILONS[edges]
            out, mean, var = kernel("BatchNormTraining")(x, scale, bias, epsilon=eps, feature_index=fi)
            assert out.shape == shape and mean.shape == var.shape == (shape[fi],)
            if not x.size:
                continue  # no feature
            t = [channels_second(torch_in(x), fi), torch_in(scale), torch_in(bias)]
            axes = [k for k in range(t[0].dim()) if k != 1]
            label = f"BatchNormTraining {dtype} {shape} fi={fi} edges={edges}"
            assert_matches(mean, from_torch(torch.mean(t[0], dim=axes), dtype), dtype, label + " mean")
            assert_matches(var, from_torch(torch.var(t[0], dim=axes, correction=0), dtype), dtype, label + " variance")
            if not edges or not np.isinf(x).any():
                want, _, _ = torch.native_batch_norm(t[0], t[1], t[2], None, None, True, 0.0, eps)
                assert_matches(out, from_torch(channels_back(want, fi, x.ndim), dtype), dtype, label)


def test_batch_norm_statistics_of_nothing():
    """Note empty_statistics: with no element per feature, mean and variance are 0/0 = NaN (as
    jax.numpy's mean and var of nothing); torch refuses such an input. The gradients of scale and bias
    are then empty sums, 0."""
    x = np.zeros((0, 3, 2), np.float32)
    out, mean, var = kernel("BatchNormTraining")(x, np.ones(3, np.float32), np.zeros(3, np.float32),
                                                 epsilon=1e-5, feature_index=1)
    assert out.shape == (0, 3, 2)
    with np.errstate(all="ignore"):
        assert_matches(mean, np.asarray(jnp.mean(jnp.asarray(x), axis=(0, 2))), "float")
        assert_matches(var, np.asarray(jnp.var(jnp.asarray(x), axis=(0, 2))), "float")
    grad = kernel("BatchNormGrad")(x, np.ones(3, np.float32), np.zeros(3, np.float32), np.ones(3, np.float32), x,
                                   epsilon=1e-5, feature_index=1)
    assert grad[0].shape == (0, 3, 2) and grad[1].tolist() == [0, 0, 0] and grad[2].tolist() == [0, 0, 0]


@pytest.mark.parametrize("dtype", FLOATS)
def test_batch_norm_grad_matches_torch(dtype):
    """XLA BatchNormGrad with the given mean and variance (note given_statistics) against torch's
    native_batch_norm_backward in training mode (save_invstd = 1 / sqrt(variance + epsilon))."""
    rng = np.random.default_rng(13)
    for shape, fi in BN_CASES:
        if np.prod(shape) == 0:
            continue  # test_batch_norm_statistics_of_nothing
        for edges in (False, True):
            x, scale, _, mean, var = bn_inputs(rng, shape, fi, dtype, edges)
            g = with_edges(rng, shape, dtype, 5, huge=False) if edges else random_array(rng, shape, dtype)
            got = kernel("BatchNormGrad")(x, scale, mean, var, g, epsilon=0.25, feature_index=fi)
            invstd = 1 / torch.sqrt(torch_in(var) + 0.25)
            want = torch.ops.aten.native_batch_norm_backward(
                channels_second(torch_in(g), fi), channels_second(torch_in(x), fi), torch_in(scale),
                None, None, torch_in(mean), invstd, True, 0.25, [True, True, True])
            label = f"BatchNormGrad {dtype} {shape} fi={fi} edges={edges}"
            assert_matches(got[0], from_torch(channels_back(want[0], fi, x.ndim), dtype), dtype, label + " grad_input")
            assert_matches(got[1], from_torch(want[1], dtype), dtype, label + " grad_scale")
            assert_matches(got[2], from_torch(want[2], dtype), dtype, label + " grad_bias")


def test_batch_norm_grad_is_the_gradient_of_training():
    """With the batch statistics BatchNormTraining returns, BatchNormGrad is the gradient torch.autograd
    finds for batch normalisation in training mode."""
    rng = np.random.default_rng(14)
    x, scale, bias = rng.standard_normal((4, 3, 5)), rng.standard_normal(3), rng.standard_normal(3)
    g = rng.standard_normal((4, 3, 5))
    _, mean, var = kernel("BatchNormTraining")(x, scale, bias, epsilon=1e-3, feature_index=1)
    got = kernel("BatchNormGrad")(x, scale, mean, var, g, epsilon=1e-3, feature_index=1)
    tx, ts, tb = (torch.tensor(a, requires_grad=True) for a in (x, scale, bias))
    F.batch_norm(tx, None, None, ts, tb, training=True, eps=1e-3).backward(torch.from_numpy(g))
    for k, t in enumerate((tx, ts, tb)):
        assert_matches(got[k], t.grad.numpy(), "double", f"output {k}")


def test_batch_norm_rejections():
    x, c = np.zeros((2, 3), np.float32), np.zeros(3, np.float32)
    with pytest.raises(ValidationError, match="C1"):
        kernel("BatchNormInference")(x, c, c, c, c, epsilon=1e-5, feature_index=2)
    with pytest.raises(ValidationError, match="C2"):
        kernel("BatchNormTraining")(x, np.zeros(2, np.float32), c, epsilon=1e-5, feature_index=1)
    with pytest.raises(ValidationError, match="C5"):
        kernel("BatchNormGrad")(x, c, c, c, np.zeros((3, 2), np.float32), epsilon=1e-5, feature_index=1)
    with pytest.raises(ValidationError, match="epsilon"):
        kernel("BatchNormInference")(x, c, c, c, c, epsilon=None, feature_index=1)
    with pytest.raises(ValidationError, match="float16"):
        kernel("BatchNormInference")(x, c, c, c.astype(np.float16), c, epsilon=1e-5, feature_index=1)


# =================================================================================================
# InstanceNorm, LayerNorm, GroupNorm (ONNX; onnx.reference, onnxruntime and torch)
# =================================================================================================


@pytest.mark.parametrize("dtype", FLOATS)
def test_instance_norm_matches_torch_and_onnx(dtype):
    """Channel-first inputs directly, channel-last ones with the channel moved to dimension 1 for the
    references (note layout_choice)."""
    rng = np.random.default_rng(21)
    cases = [((2, 3, 4), "first"), ((2, 3, 4, 5), "first"), ((1, 2, 3, 2, 2), "first"), ((0, 3, 4), "first"),
             ((2, 4, 3), "last"), ((2, 5, 4, 3), "last")]
    for shape, layout in cases:
        for edges in (False, True):
            c = shape[1] if layout == "first" else shape[-1]
            x = with_edges(rng, shape, dtype, huge=False) if edges else random_array(rng, shape, dtype)
            scale, bias = random_array(rng, (c,), dtype), random_array(rng, (c,), dtype)
            (got,) = kernel("InstanceNorm")(x, scale, bias, epsilon=2.0 ** -12)
            assert got.shape == shape and got.dtype == np_dtype(dtype)
            if not x.size:
                continue  # torch has no instance norm of nothing
            xf = x if layout == "first" else np.moveaxis(x, -1, 1)
            back = (lambda a: a) if layout == "first" else (lambda a: np.moveaxis(a, 1, -1))
            label = f"InstanceNorm {dtype} {shape} {layout} edges={edges}"
            want = F.instance_norm(torch_in(xf), weight=torch_in(scale), bias=torch_in(bias), eps=2.0 ** -12)
            assert_matches(got, back(want.numpy()).astype(np_dtype(dtype)), dtype, label + " torch")
            (ref,) = onnx_reference("InstanceNormalization", ref_in(xf, scale, bias), dict(epsilon=2.0 ** -12), 22,
                                    [np.float64])
            assert_matches(got, back(ref).astype(np_dtype(dtype)), dtype, label + " onnx.reference")
            ort = onnxruntime("InstanceNormalization", [np.ascontiguousarray(xf), scale, bias],
                              dict(epsilon=2.0 ** -12), 22, [np_dtype(dtype)])
            if ort is not None and not edges:
                assert_matches(got, back(ort[0]), dtype, label + " onnxruntime")


def test_instance_norm_layout_choice():
    """Note layout_choice: dimension 1 is the channel dimension when scale's size matches it, else the
    last dimension; when both match, channel-first."""
    rng = np.random.default_rng(22)
    x = rng.standard_normal((2, 3, 4, 3))
    scale, bias = rng.standard_normal(3), rng.standard_normal(3)
    (got,) = kernel("InstanceNorm")(x, scale, bias, epsilon=1e-5)
    want = F.instance_norm(torch.from_numpy(x), weight=torch.from_numpy(scale), bias=torch.from_numpy(bias), eps=1e-5)
    assert_matches(got, want.numpy(), "double")
    with pytest.raises(ValidationError, match="C3"):
        kernel("InstanceNorm")(x, np.zeros(4), np.zeros(4), epsilon=1e-5)
    with pytest.raises(ValidationError, match="C1"):
        kernel("InstanceNorm")(np.zeros((2, 3)), np.zeros(3), np.zeros(3), epsilon=1e-5)


@pytest.mark.parametrize("dtype", FLOATS)
def test_layer_norm_matches_onnx_and_torch(dtype):
    """output, mean and rstd against onnx.reference LayerNormalization (Y, Mean, InvStdDev) for scale and
    bias of any shape broadcastable to input, and torch.native_layer_norm when they have the normalised
    shape (its mean comes from Welford's update, NaN for [inf, 1], so it is compared without
    infinities); onnxruntime's output too where it has a kernel."""
    rng = np.random.default_rng(31)
    cases = [((7,), -1, (7,)), ((2, 3), 1, (3,)), ((2, 3), 0, (2, 3)), ((2, 3, 4), -1, (4,)), ((2, 3, 4), 1, (3, 4)),
             ((2, 3, 4), -2, (1,)), ((2, 3, 4), 2, (2, 3, 4)), ((2, 3, 4), 0, (3, 1)), ((0, 3), 1, (3,)),
             ((2, 0, 3), 2, (3,))]
    eps = 2.0 ** -10
    for shape, axis, param_shape in cases:
        for edges in (False, True):
            x = with_edges(rng, shape, dtype, huge=False) if edges else random_array(rng, shape, dtype)
            scale, bias = random_array(rng, param_shape, dtype), random_array(rng, param_shape, dtype)
            got = kernel("LayerNorm")(x, scale, bias, axis=axis, epsilon=eps)
            label = f"LayerNorm {dtype} {shape} axis={axis} {param_shape} edges={edges}"
            ref = onnx_reference("LayerNormalization", ref_in(x, scale, bias), dict(axis=axis, epsilon=eps), 17,
                                 [np.float64] * 3)
            for k, name in enumerate(("output", "mean", "rstd")):
                assert_matches(got[k], ref[k].astype(np_dtype(dtype)), dtype, f"{label} {name} onnx.reference")
            start = axis % len(shape)
            if tuple(param_shape) == tuple(shape[start:]):
                want = torch.native_layer_norm(torch_in(x), list(shape[start:]), torch_in(scale), torch_in(bias), eps)
                for k, name in enumerate(("output", "mean", "rstd")):
                    if name != "mean" or not np.isinf(x).any():
                        assert_matches(got[k], from_torch(want[k], dtype), dtype, f"{label} {name} torch")
            if x.size and not edges:
                ort = onnxruntime("LayerNormalization", [x, scale, bias], dict(axis=axis, epsilon=eps), 17,
                                  [np_dtype(dtype)])
                if ort is not None:
                    assert_matches(got[0], ort[0], dtype, f"{label} onnxruntime")


def test_layer_norm_statistics_shape_and_precision():
    """Note statistics_outputs: mean and rstd keep input's rank with the dimensions from axis on set to 1;
    a double input is standardised in double (ONNX's default stash_type would use float, in which
    1 + 2e-9 is 1 and the first row would become zeros)."""
    x = np.array([[1.0, 1.0 + 2e-9, 1.0 - 2e-9], [3.0, 5.0, 7.0]])
    out, mean, rstd = kernel("LayerNorm")(x, np.ones(3), np.zeros(3), axis=-1, epsilon=0.0)
    assert mean.shape == (2, 1) and rstd.shape == (2, 1)
    assert abs(out[0, 1] - math.sqrt(1.5)) < 1e-6 and abs(out[0, 2] + math.sqrt(1.5)) < 1e-6
    assert_matches(out[1], torch.native_layer_norm(torch.from_numpy(x[1]), [3], None, None, 0.0)[0].numpy(), "double")
    _, mean, rstd = kernel("LayerNorm")(np.zeros((2, 3, 4), np.float16), np.ones(4, np.float16),
                                        np.zeros(4, np.float16), axis=1, epsilon=0.25)
    assert mean.shape == (2, 1, 1) and rstd.shape == (2, 1, 1) and rstd.dtype == np.float16
    assert rstd.ravel().tolist() == [2.0, 2.0]
    with pytest.raises(ValidationError, match="C1"):
        kernel("LayerNorm")(x, np.ones(3), np.zeros(3), axis=2, epsilon=0.0)
    with pytest.raises(ValidationError, match="C2"):
        kernel("LayerNorm")(x, np.ones(2), np.zeros(3), axis=1, epsilon=0.0)


@pytest.mark.parametrize("dtype", FLOATS)
def test_group_norm_matches_torch_and_onnx(dtype):
    """torch.nn.functional.group_norm and onnx.reference GroupNormalization-21 (stash_type double, see
    note precision). (onnxruntime's float kernel is off by 2.4e-6 relative on these inputs, beyond the
    float tolerance, while this kernel agrees with both double references; it is not used.)"""
    rng = np.random.default_rng(41)
    cases = [((2, 6), 3), ((2, 6, 5), 1), ((2, 6, 5), 2), ((2, 6, 5), 6), ((1, 4, 3, 2), 2), ((0, 4, 3), 2),
             ((2, 4, 0), 4)]
    eps = 2.0 ** -12
    for shape, groups in cases:
        for edges in (False, True):
            x = with_edges(rng, shape, dtype, huge=False) if edges else random_array(rng, shape, dtype)
            scale, bias = random_array(rng, (shape[1],), dtype), random_array(rng, (shape[1],), dtype)
            (got,) = kernel("GroupNorm")(x, scale, bias, epsilon=eps, num_groups=groups)
            label = f"GroupNorm {dtype} {shape} groups={groups} edges={edges}"
            assert got.shape == shape and got.dtype == np_dtype(dtype)
            if not x.size:
                continue  # nothing to compare; the references reshape with -1, which an empty input cannot
            want = F.group_norm(torch_in(x), groups, torch_in(scale), torch_in(bias), eps)
            assert_matches(got, from_torch(want, dtype), dtype, label + " torch")
            (ref,) = onnx_reference("GroupNormalization", ref_in(x, scale, bias),
                                    dict(num_groups=groups, epsilon=eps, stash_type=11), 21, [np.float64])
            assert_matches(got, ref.astype(np_dtype(dtype)), dtype, label + " onnx.reference")


def test_group_norm_defaults_and_equivalences():
    """epsilon defaults to 1e-5; one group per channel is InstanceNorm, one group is LayerNorm over C and
    the spatial dimensions (with per-channel scale and bias)."""
    rng = np.random.default_rng(42)
    x, scale, bias = rng.standard_normal((2, 4, 5)), rng.standard_normal(4), rng.standard_normal(4)
    (per_channel,) = kernel("GroupNorm")(x, scale, bias, num_groups=4)
    assert_matches(per_channel, kernel("InstanceNorm")(x, scale, bias, epsilon=1e-5)[0], "double")
    (one,) = kernel("GroupNorm")(x, scale, bias, num_groups=1)
    layer = kernel("LayerNorm")(x, scale[:, None], bias[:, None], axis=1, epsilon=1e-5)[0]
    assert_matches(one, layer, "double")
    with pytest.raises(ValidationError, match="C2"):
        kernel("GroupNorm")(x, scale, bias, num_groups=3)
    with pytest.raises(ValidationError, match="C3"):
        kernel("GroupNorm")(x, scale[:2], bias, num_groups=2)


# =================================================================================================
# GlobalAveragePool / GlobalMaxPool (ONNX, with the dims attribute; onnx.reference, onnxruntime, torch)
# =================================================================================================

# (shape, dims): channel-first (N, C, ...) and channel-last (N, ..., C) layouts, rank 2 (nothing pooled),
# empty batch
POOL_CASES = [((2, 3, 4, 5), [2, 3]), ((2, 4, 5, 3), [1, 2]), ((2, 3, 4), [2]), ((2, 4, 3), [1]),
              ((1, 2, 3, 2, 2), [2, 3, 4]), ((1, 3, 2, 2, 2), [4, 1, 2]), ((2, 3), []), ((0, 3, 4, 4), [2, 3])]


def to_channel_first(x: np.ndarray, dims) -> tuple[np.ndarray, list[int]]:
    """x transposed to (N, C, spatial...) as ONNX has it, and the permutation that did it."""
    channel = [k for k in range(1, x.ndim) if k not in dims]
    order = [0] + channel + sorted(dims)
    return np.ascontiguousarray(np.transpose(x, order)), order


@pytest.mark.parametrize("op", ["GlobalAveragePool", "GlobalMaxPool"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_global_pool_matches_references(op, dtype):
    """torch.mean / torch.amax over dims (keepdim) in double; onnx.reference in double for 4-D inputs
    (its GlobalMaxPool pools the wrong axes for other ranks); onnxruntime on channel-first copies
    without NaN (its GlobalMaxPool skips NaN, see note nan_and_empty)."""
    rng = np.random.default_rng(sum(map(ord, op + dtype)))
    for shape, dims in POOL_CASES:
        for edges in (False, True):
            x = with_edges(rng, shape, dtype, huge=False) if edges else random_array(rng, shape, dtype)
            (got,) = kernel(op)(x, dims=dims)
            label = f"{op} {dtype} {shape} dims={dims} edges={edges}"
            expected_shape = tuple(1 if k in dims else n for k, n in enumerate(shape))
            assert got.shape == expected_shape and got.dtype == np_dtype(dtype), label
            if not x.size:
                continue
            t = torch_in(x)
            want = (torch.mean(t, dim=dims, keepdim=True) if op == "GlobalAveragePool" else
                    torch.amax(t, dim=dims, keepdim=True)) if dims else t
            assert_matches(got, from_torch(want, dtype), dtype, label + " torch")
            if x.ndim == 2:
                continue  # nothing pooled; ONNX's pools need a spatial dimension
            first, order = to_channel_first(x, dims)
            inverse = np.argsort(order)
            if x.ndim == 4 or op == "GlobalAveragePool":
                (ref,) = onnx_reference(op, ref_in(first), {}, 22, [np.float64])
                assert_matches(got, np.transpose(ref, inverse).astype(np_dtype(dtype)), dtype,
                               label + " onnx.reference")
            if not np.isnan(x).any():
                ort = onnxruntime(op, [first], {}, 22, [np_dtype(dtype)])
                if ort is not None:
                    assert_matches(got, np.transpose(ort[0], inverse), dtype, label + " onnxruntime")


@pytest.mark.parametrize("dtype", FLOATS)
def test_global_pool_nan_and_empty(dtype):
    """Notes empty_window and nan_and_empty: NaN propagates through both pools (onnx.reference and torch
    agree; onnxruntime's GlobalMaxPool skips it); pooling nothing gives NaN (0/0) for the average and
    -inf (the identity of max) for the max; -0.0 < +0.0 as in Reduce MAX."""
    t = np_dtype(dtype)
    x = np.array([[[1.0, np.nan], [3.0, 2.0]]], t)  # N=1, C=2, W=2
    for op in ("GlobalAveragePool", "GlobalMaxPool"):
        (got,) = kernel(op)(x, dims=[2])
        (ref,) = onnx_reference(op, ref_in(x.reshape(1, 2, 2, 1)), {}, 22, [np.float64])
        assert np.isnan(got[0, 0, 0]) and np.isnan(ref[0, 0, 0, 0])
    ort = onnxruntime("GlobalMaxPool", [x.reshape(1, 2, 2, 1)], {}, 22, [t])
    if ort is not None:
        assert not np.isnan(ort[0][0, 0, 0, 0])  # the documented difference
    empty = np.zeros((2, 3, 0), t)
    assert np.isnan(kernel("GlobalAveragePool")(empty, dims=[2])[0]).all()
    assert (kernel("GlobalMaxPool")(empty, dims=[2])[0] == -np.inf).all()
    assert kernel("GlobalMaxPool")(empty, dims=[2])[0].shape == (2, 3, 1)
    (zero,) = kernel("GlobalMaxPool")(np.array([[[-0.0, 0.0, -0.0]]], t), dims=[2])
    assert zero.item() == 0 and not np.signbit(zero.item())


def test_global_pool_rejections():
    x = np.zeros((2, 3, 4, 5), np.float32)
    for op in ("GlobalAveragePool", "GlobalMaxPool"):
        with pytest.raises(ValidationError, match="C2"):
            kernel(op)(x, dims=[2])
        with pytest.raises(ValidationError, match="C1"):
            kernel(op)(x, dims=[0, 3])
        with pytest.raises(ValidationError, match="C1"):
            kernel(op)(x, dims=[3, 3])
        with pytest.raises(ValidationError, match="int32"):
            kernel(op)(x.astype(np.int32), dims=[2, 3])


# =================================================================================================
# BCELoss and CTCLoss (PyTorch; torch.nn.functional and torch._ctc_loss in double)
# =================================================================================================


def probabilities(rng, shape, dtype: str, edges: bool) -> np.ndarray:
    """Values in [0, 1]: uniform, or the dtype's edge values that lie in [0, 1] (0, -0.0, 1, the
    smallest normal and subnormal, 0.5, 1 - eps) spread over a uniform array."""
    x = rng.uniform(0.0, 1.0, shape).astype(np_dtype(dtype))
    if edges and x.size:
        e = edge_values(dtype)
        inside = np.concatenate([e[(e >= 0) & (e <= 1)], [1 - np.finfo(np_dtype(dtype)).eps]]).astype(np_dtype(dtype))
        flat = x.reshape(-1)
        picks = rng.integers(0, inside.size, flat.size)
        chosen = rng.random(flat.size) < 0.5
        flat[chosen] = inside[picks[chosen]]
    return x


@pytest.mark.parametrize("dtype", FLOATS)
def test_bce_loss_matches_torch(dtype):
    rng = np.random.default_rng(51)
    for shape in SHAPES + [(2, 3, 4, 2)]:
        weights = [None, shape, shape[-1:], ()] if shape else [None, ()]
        for weight_shape in weights:
            for edges in (False, True):
                x, y = probabilities(rng, shape, dtype, edges), probabilities(rng, shape, dtype, edges)
                w = None if weight_shape is None else (with_edges(rng, weight_shape, dtype, huge=False) if edges
                                                       else random_array(rng, weight_shape, dtype, 0.0, 3.0))
                for reduction in ("none", "mean", "sum"):
                    (got,) = kernel("BCELoss")(x, y, w, reduction=reduction)
                    want = F.binary_cross_entropy(torch_in(x), torch_in(y), None if w is None else torch_in(w),
                                                  reduction=reduction)
                    assert_matches(got, from_torch(want, dtype), dtype,
                                   f"BCELoss {dtype} {shape} weight={weight_shape} {reduction} edges={edges}")


def test_bce_loss_clamp_and_defaults():
    """Each log is clamped at -100 (the summary, as PyTorch); reduction defaults to mean; the mean of
    nothing is NaN, as in torch."""
    x, y = np.array([0.0, 1.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0, 1.0])
    assert kernel("BCELoss")(x, y, reduction="none")[0].tolist() == [100.0, 100.0, 0.0, 0.0]
    assert kernel("BCELoss")(x, y)[0] == 50.0
    assert kernel("BCELoss")(x, y, np.array([2.0]), reduction="sum")[0] == 400.0
    (empty,) = kernel("BCELoss")(np.zeros(0, np.float32), np.zeros(0, np.float32))
    assert empty.shape == () and np.isnan(empty)
    assert torch.isnan(F.binary_cross_entropy(torch.zeros(0), torch.zeros(0)))


@pytest.mark.parametrize("bad", [np.nan, 1.5, -0.25, np.inf])
def test_bce_loss_rejects_values_outside_zero_one(bad):
    """Note value_range: as torch, input and target values outside [0, 1] (NaN included) are errors."""
    good = np.array([0.5, 0.5])
    worse = np.array([0.5, bad])
    for args in ((worse, good), (good, worse)):
        with pytest.raises(ValueError, match="between 0 and 1"):
            kernel("BCELoss")(*args)
        with pytest.raises(RuntimeError, match="between 0 and 1"):
            F.binary_cross_entropy(torch.from_numpy(args[0]), torch.from_numpy(args[1]))
    with pytest.raises(ValidationError, match="C1"):
        kernel("BCELoss")(good, np.array([0.5, 0.5, 0.5]))
    with pytest.raises(ValidationError, match="C2"):
        kernel("BCELoss")(good, good, np.ones(3))
    with pytest.raises(ValidationError, match="reduction"):
        kernel("BCELoss")(good, good, reduction="max")


def ctc_case(rng, steps, batch, classes, blank, target_lengths, input_lengths, form, dtype, edges):
    """log-probabilities (T, N, C) (or (T, C) when batch is None), targets in the [N, S] or 1-D form."""
    n = 1 if batch is None else batch
    logits = rng.standard_normal((steps, n, classes)) * 2
    lp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    if edges:  # probability 0 for some classes, and certain ones
        lp[rng.random(lp.shape) < 0.15] = -np.inf
        lp[0, :, blank] = 0.0
    labels = [c for c in range(classes) if c != blank]
    seqs = [list(rng.choice(labels, size=k)) for k in target_lengths]
    if seqs and len(seqs[0]) >= 2:
        seqs[0][1] = seqs[0][0]  # a repeated label needs a blank between
    if form == "padded":
        width = max(target_lengths, default=0) + 1
        targets = np.array([s + [blank] * (width - len(s)) for s in seqs]).reshape(n, width)  # padding: any value
    else:
        targets = np.array([c for s in seqs for c in s], dtype=np.int64)
    lp = lp.astype(np_dtype(dtype))
    if batch is None:
        lp = lp[:, 0, :]
    shape = () if batch is None else (n,)
    return lp, targets, np.array(input_lengths).reshape(shape), np.array(target_lengths).reshape(shape)


CTC_CASES = [  # steps, batch, classes, blank, target lengths, input lengths, targets form
    (6, 3, 5, 0, [3, 1, 0], [6, 4, 2], "padded"),
    (6, 3, 5, 0, [3, 1, 2], [6, 5, 6], "concatenated"),
    (7, 2, 4, 3, [2, 4], [5, 7], "padded"),
    (5, None, 4, 0, [2], [5], "concatenated"),
    (5, 2, 3, 1, [0, 0], [5, 1], "concatenated"),
    (4, 0, 3, 0, [], [], "concatenated"),  # (the C7 rule fails on an empty batch in the [N, S] form)
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("ti", ["int32", "int64"])
def test_ctc_loss_matches_torch(dtype, ti):
    """loss against torch.nn.functional.ctc_loss (reduction none) and torch._ctc_loss, alpha against
    torch._ctc_loss's log_alpha where torch defines it (note alpha_values), -inf elsewhere."""
    rng = np.random.default_rng(61)
    for steps, batch, classes, blank, t_len, i_len, form in CTC_CASES:
        for edges in (False, True):
            lp, targets, il, tl = ctc_case(rng, steps, batch, classes, blank, t_len, i_len, form, dtype, edges)
            t_ = np_dtype(ti)
            loss, alpha = kernel("CTCLoss")(lp, targets.astype(t_), il.astype(t_), tl.astype(t_), blank=blank)
            label = f"CTCLoss {dtype} {ti} T={steps} N={batch} blank={blank} {form} edges={edges}"
            width = 2 * max(t_len, default=0) + 1
            assert loss.shape == il.shape and loss.dtype == np_dtype(dtype), label
            assert alpha.shape == ((steps, width) if batch is None else (batch, steps, width)), label
            if batch == 0:
                continue  # torch has no loss of an empty batch
            lp3 = torch_in(lp if batch is not None else lp[:, None, :])
            tg = torch.from_numpy(targets.astype(np.int64))
            il_t, tl_t = (torch.from_numpy(a.reshape(-1).astype(np.int64)) for a in (il, tl))
            nll, log_alpha = torch._ctc_loss(lp3, tg, il_t, tl_t, blank, False)
            want_loss = F.ctc_loss(lp3, tg, il_t, tl_t, blank=blank, reduction="none")
            got_loss, got_alpha = loss.reshape(-1), alpha.reshape((-1,) + alpha.shape[-2:])
            assert_matches(got_loss, from_torch(nll, dtype), dtype, label + " loss")
            assert_matches(got_loss, from_torch(want_loss, dtype), dtype, label + " loss (F.ctc_loss)")
            for b in range(got_alpha.shape[0]):
                defined = (slice(0, int(il_t[b])), slice(0, 2 * int(tl_t[b]) + 1))
                assert_matches(got_alpha[b][defined], from_torch(log_alpha[b][defined], dtype), dtype,
                               f"{label} alpha[{b}]")
                outside = np.ones(got_alpha[b].shape, bool)
                outside[defined] = False
                assert (got_alpha[b][outside] == -np.inf).all(), f"{label} alpha[{b}] outside"


def test_ctc_loss_special_cases():
    """Note empty_input: an input of length 0 (with its empty target) has loss 0, where torch reads
    outside its buffer. Note numerics: no possible alignment gives +inf and a +inf log-probability gives
    NaN, both as in torch (zero_infinity=False)."""
    lp = np.log(np.full((3, 2, 3), 1 / 3))
    loss, alpha = kernel("CTCLoss")(lp, np.array([1], np.int64), np.array([0, 3], np.int64), np.array([0, 1], np.int64))
    assert loss[0] == 0.0 and (alpha[0] == -np.inf).all()
    # [1, 1] needs three steps (1, blank, 1); two give no alignment
    loss, _ = kernel("CTCLoss")(lp, np.array([[1, 1]]).repeat(2, 0), np.array([2, 3]), np.array([2, 2]))
    want = torch._ctc_loss(torch.from_numpy(lp), torch.tensor([[1, 1], [1, 1]]), torch.tensor([2, 3]),
                           torch.tensor([2, 2]), 0, False)[0]
    assert loss[0] == np.inf and want[0] == np.inf
    assert_matches(loss[1:], want[1:].numpy(), "double")
    hot = lp.copy()
    hot[1, 0, 0] = np.inf
    loss, _ = kernel("CTCLoss")(hot, np.array([1, 2]), np.array([3, 3]), np.array([1, 1]))
    want = torch._ctc_loss(torch.from_numpy(hot), torch.tensor([1, 2]), torch.tensor([3, 3]), torch.tensor([1, 1]), 0,
                           False)[0]
    assert np.isnan(loss[0]) and torch.isnan(want[0])
    # one step, one class besides blank: the loss is -log p(label)
    single = np.log(np.array([[0.25, 0.75]]))
    loss, alpha = kernel("CTCLoss")(single, np.array([1]), np.array(1), np.array(1))
    assert loss.shape == () and abs(loss - -math.log(0.75)) < 1e-15 and alpha.shape == (1, 3)


def test_ctc_loss_rejections():
    lp = np.zeros((4, 2, 3))
    with pytest.raises(ValidationError, match="C7"):  # a target equal to blank (note target_not_blank)
        kernel("CTCLoss")(lp, np.array([[0, 1], [1, 2]]), np.array([4, 4]), np.array([2, 2]))
    with pytest.raises(ValidationError, match="C7"):  # a target longer than its input
        kernel("CTCLoss")(lp, np.array([[1, 2], [1, 2]]), np.array([1, 4]), np.array([2, 2]))
    with pytest.raises(ValidationError, match="C6"):
        kernel("CTCLoss")(lp, np.array([[1, 2], [1, 2]]), np.array([4, 4]), np.array([2, 2]), blank=3)
    with pytest.raises(ValidationError, match="C4"):
        kernel("CTCLoss")(lp, np.array([[1, 2], [1, 2]]), np.array([4]), np.array([2, 2]))
