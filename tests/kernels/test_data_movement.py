"""hlir shape and data movement operators against independent implementations.

References: jax.lax (XLA, x64, CPU) for the XLA-defined ops (Broadcast, BroadcastInDim, Concatenate,
Reshape, Reverse, Slice, SliceInDim, DynamicSlice, DynamicUpdateSlice, RealDynamicSlice, Pad with
PAD_VALUE, Transpose, Iota), StableHLO compiled by XLA itself for SetDimensionSize (lax has no such op),
onnx.reference, onnxruntime and the onnx package's node test cases for the ONNX-defined ops, torch for
NonZero and Trilu. Randomised loops (seeded) draw shapes, dimension numbers and index values; every
element type a spec allows is covered, with edge values (NaN, signed zeros, integer limits) in the data,
since data movement must move elements bit for bit.

The ONNX references are run on float and integer data directly, and, for the element types they lack
(bool, bfloat16, complex, unsigned), on a tensor of element positions: the positions they return
say where each element goes, and the test moves the typed data accordingly.
"""
from __future__ import annotations


import ml_dtypes
import numpy as np
import pytest
import torch
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from kernel_refs import edge_values, jax, jnp, kernel, lax, np_dtype, random_array
from opgen.dtypes import ELEM_TYPES
from opgen.runtime.validation import ValidationError
from onnx_refs import node_test_cases, ort_session

ALL = ("bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float16", "bfloat16",
       "float", "double", "complex64", "complex128")
NUMERIC = ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float16", "float", "double")
IOTA_TYPES = NUMERIC
OPSET = 21
TRIALS = 4  # random cases per element type (each type draws its own: ~60 per op over the 15 types; each
# jax reference call compiles for its shapes, the bulk of this module's time)


def concatenate(arrays, *, dimension):
    return one(kernel("Concatenate")(*arrays, dimension=dimension))


def tuple_(elements):
    return kernel("Tuple")(*elements)


def get_tuple_element(elements, *, index):
    return one(kernel("GetTupleElement")(*elements, index=index))


def general_split(x, split, *, axis, num_outputs):
    return kernel("GeneralSplit")(x, split, axis=axis, num_outputs=num_outputs)


def rng_for(seed: int, dtype: str) -> np.random.Generator:
    """A generator of its own for every (test, element type): the types explore different cases."""
    return np.random.default_rng([seed, ALL.index(dtype)])


def sample(rng: np.random.Generator, shape, dtype: str) -> np.ndarray:
    """Random data whose first elements are the dtype's edge values (NaN, -0.0, limits, ...)."""
    array = np.array(random_array(rng, shape, dtype))
    flat = array.reshape(-1)
    edges = edge_values(dtype)
    count = min(flat.size, edges.size)
    flat[:count] = edges[:count]
    return rng.permutation(flat).reshape(shape) if flat.size else array


def assert_exact(got: np.ndarray, want, label: str = "") -> None:
    """Same element type, same shape and the same bits (NaN payloads and signed zeros included)."""
    want = np.asarray(want)
    assert isinstance(got, np.ndarray), f"{label}: {type(got).__name__} is not an array"
    assert got.dtype == want.dtype, f"{label}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{label}: shape {got.shape} != {want.shape}"
    assert got.tobytes() == np.ascontiguousarray(want).tobytes(), f"{label}: values differ\n{got}\n{want}"


def assert_fresh(result: np.ndarray, *inputs) -> None:
    for x in inputs:
        assert not np.shares_memory(result, x), "the kernel returned (a view of) its input"


def assert_read_only(result: np.ndarray) -> None:
    """A result that may be a view of the input (a split part, a slice, a transposition) cannot be
    written through."""
    assert not result.flags.writeable, "a view of the input that can be written through"
    with pytest.raises(ValueError, match="read-only"):
        result[...] = 0


def assert_read_only_view(result: np.ndarray, x: np.ndarray) -> None:
    """A slice, transposition, reversal or reshape of a contiguous x: a read-only view of x (no data
    moved), while x stays writable."""
    if result.size:
        assert np.shares_memory(result, x), "the kernel copied its input"
    assert_read_only(result)
    assert x.flags.writeable, "making the view read-only changed the input's own flag"


def random_shape(rng, rank: int, low: int = 0, high: int = 4) -> tuple[int, ...]:
    return tuple(int(d) for d in rng.integers(low, high + 1, size=rank))


def one(result) -> np.ndarray:
    assert isinstance(result, tuple) and len(result) == 1, result
    return result[0]


# ---- XLA itself: StableHLO compiled and run on the CPU ------------------------------------------

MLIR_TYPES = {"bool": "i1", "uint8": "ui8", "uint16": "ui16", "uint32": "ui32", "uint64": "ui64", "int8": "i8",
              "int16": "i16", "int32": "i32", "int64": "i64", "float16": "f16", "bfloat16": "bf16", "float": "f32",
              "double": "f64", "complex64": "complex<f32>", "complex128": "complex<f64>"}


def mlir_tensor(shape, dtype: str, dynamic: tuple[int, ...] = ()) -> str:
    dims = "".join(("?" if k in dynamic else str(d)) + "x" for k, d in enumerate(shape))
    return f"tensor<{dims}{MLIR_TYPES[dtype]}>"


def xla_run(body: str, args: list[tuple[str, np.ndarray]], result: str) -> np.ndarray:
    """Compile a one-function StableHLO module with XLA for the CPU and run it (jax's own client, not
    jax.lax: lax has no SetDimensionSize, and its broadcast_in_dim shortcuts some cases)."""
    from jax._src import xla_bridge
    from jax._src.lib import xla_client

    params = ", ".join(f"%{name}: {mlir_tensor(a.shape, dtype)}" for name, (dtype, a) in zip("abcdefgh", args))
    module = f"module @m {{\n  func.func public @main({params}) -> {result} {{\n{body}\n  }}\n}}"
    backend = xla_bridge.get_backend("cpu")
    device = backend.devices()[0]
    executable = backend.compile_and_load(module, xla_client.DeviceList((device,)), xla_client.CompileOptions())
    outputs = executable.execute_sharded([jax.device_put(a, device) for _, a in args])
    return np.asarray(jax.device_get(outputs.disassemble_into_single_device_arrays()[0][0]))


def xla_broadcast_in_dim(x: np.ndarray, dtype: str, dims, out_shape) -> np.ndarray:
    out = mlir_tensor(out_shape, dtype)
    body = (f"    %0 = stablehlo.broadcast_in_dim %a, dims = {list(dims)} : ({mlir_tensor(x.shape, dtype)}) -> {out}\n"
            f"    return %0 : {out}")
    return xla_run(body, [(dtype, x)], out)


# ---- ONNX models ---------------------------------------------------------------------------------

def onnx_model(op: str, inputs: list, attrs: dict, n_out: int = 1, opset: int = OPSET, out_dtype=None):
    """A one-node model; None in inputs is an omitted optional input. Outputs have out_dtype (default:
    the first input's element type)."""
    names = ["" if a is None else f"x{k}" for k, a in enumerate(inputs)]
    while names and names[-1] == "":
        names.pop()
    outs = [f"y{k}" for k in range(n_out)]
    node = helper.make_node(op, names, outs, **attrs)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
         for n, a in zip(names, inputs) if n],
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(np.dtype(out_dtype or inputs[0].dtype)), None)
         for n in outs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)
    feeds = {n: a for n, a in zip(names, inputs) if n}
    return model, feeds


def onnx_reference(op: str, inputs: list, attrs: dict, n_out: int = 1, opset: int = OPSET,
                   out_dtype=None) -> list[np.ndarray]:
    model, feeds = onnx_model(op, inputs, attrs, n_out, opset, out_dtype)
    return ReferenceEvaluator(model).run(None, feeds)


def ort(op: str, inputs: list, attrs: dict, n_out: int = 1, opset: int = OPSET, out_dtype=None) -> list[np.ndarray]:
    """onnxruntime's outputs; fails the test when onnxruntime has no kernel for this case."""
    model, feeds = onnx_model(op, inputs, attrs, n_out, opset, out_dtype)
    return ort_session(model).run(None, feeds)


def ort_rejects(op: str, inputs: list, attrs: dict, n_out: int = 1) -> bool:
    """Whether onnxruntime refuses the node with one of its own errors (Fail, InvalidArgument,
    RuntimeException): any other exception (a bug in building the model, a missing package) is
    not a rejection and propagates."""
    from onnxruntime.capi.onnxruntime_pybind11_state import Fail, InvalidArgument, RuntimeException

    try:
        ort(op, inputs, attrs, n_out)
    except (Fail, InvalidArgument, RuntimeException):
        return True
    return False


def positions(shape) -> np.ndarray:
    """The row-major position of every element: moved by a reference, it says where elements go."""
    return np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64).reshape(shape)


def moved(x: np.ndarray, where: np.ndarray) -> np.ndarray:
    """x's elements placed as a reference placed the positions (a position < 0 marks padding)."""
    return x.reshape(-1)[np.asarray(where, dtype=np.int64)] if x.size else np.zeros(np.shape(where), x.dtype)


def node_cases(*op_types: str) -> list:
    """The onnx package's node test cases of these op types: (name, op type, node attributes, inputs,
    outputs); an omitted optional input is None."""
    out = []
    for case in node_test_cases():
        if case.kind != "node" or len(case.model.graph.node) != 1 or case.model.graph.node[0].op_type not in op_types:
            continue
        node = case.model.graph.node[0]
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        attrs = {k: v.decode() if isinstance(v, bytes) else v for k, v in attrs.items()}
        for inputs, outputs in case.data_sets:
            named = dict(zip(node.input, inputs))
            inputs = [named.get(n) if n else None for n in node.input]
            out.append((case.name, node.op_type, attrs, inputs, list(outputs)))
    assert out, f"no onnx node test cases for {op_types}"
    return out


# ---- Iota, DynamicIota ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", IOTA_TYPES)
def test_iota_matches_lax_broadcasted_iota(dtype):
    rng = rng_for(1, dtype)
    for trial in range(TRIALS):
        shape = random_shape(rng, int(rng.integers(1, 5)))
        dim = int(rng.integers(0, len(shape)))
        got = one(kernel("Iota")(iota_dimension=dim, output_dtype=dtype, output_shape=shape))
        assert_exact(got, lax.broadcasted_iota(np_dtype(dtype), shape, dim), f"{dtype} {shape} {dim}")


@pytest.mark.parametrize("dtype", IOTA_TYPES)
def test_iota_beyond_the_exact_range_of_the_type(dtype):
    """uint8/int8 wrap past 255/127 and float16 rounds past 2048, as XLA's iota does."""
    shape = (3, 3000)
    got = one(kernel("Iota")(iota_dimension=1, output_dtype=dtype, output_shape=shape))
    assert_exact(got, lax.broadcasted_iota(np_dtype(dtype), shape, 1), dtype)


def test_iota_rejects_a_dimension_outside_the_output():
    with pytest.raises(ValidationError, match="C1"):
        kernel("Iota")(iota_dimension=2, output_dtype="int32", output_shape=(2, 3))
    with pytest.raises(ValidationError, match="C1"):
        kernel("Iota")(iota_dimension=0, output_dtype="int32", output_shape=())


@pytest.mark.parametrize("dtype", IOTA_TYPES)
def test_dynamic_iota_matches_lax(dtype):
    rng = rng_for(2, dtype)
    for trial in range(TRIALS):
        shape = random_shape(rng, int(rng.integers(1, 5)))
        dim = int(rng.integers(0, len(shape)))
        got = one(kernel("DynamicIota")(np.array(shape, np.int64), iota_dimension=dim, output_dtype=dtype))
        assert_exact(got, lax.broadcasted_iota(np_dtype(dtype), shape, dim), f"{dtype} {shape} {dim}")


def test_dynamic_iota_rejects_negative_sizes_and_defaults_its_dtype():
    with pytest.raises(ValueError, match="negative"):
        kernel("DynamicIota")(np.array([2, -1]), iota_dimension=0, output_dtype="int32")
    # Without output_dtype the generated kernel takes the first input's type (shape's int64) when T allows it.
    assert_exact(one(kernel("DynamicIota")(np.array([3]), iota_dimension=0)), np.arange(3, dtype=np.int64))


# ---- Broadcast, BroadcastInDim, DynamicBroadcastInDim --------------------------------------------

@pytest.mark.parametrize("dtype", ALL)
def test_broadcast_matches_lax(dtype):
    rng = rng_for(3, dtype)
    for trial in range(TRIALS):
        x = sample(rng, random_shape(rng, int(rng.integers(0, 4))), dtype)
        sizes = list(random_shape(rng, int(rng.integers(0, 3))))
        got = one(kernel("Broadcast")(x, broadcast_sizes=sizes))
        assert_exact(got, lax.broadcast(jnp.asarray(x), sizes), f"{x.shape} {sizes}")
        assert_fresh(got, x)


def random_broadcast_in_dim(rng, dtype):
    """An input, broadcast_dimensions in any order (increasing or not) and a valid output shape."""
    out_rank = int(rng.integers(0, 5))
    out_shape = random_shape(rng, out_rank)
    in_rank = int(rng.integers(0, out_rank + 1))
    dims = [int(d) for d in rng.permutation(out_rank)[:in_rank]]
    in_shape = tuple(1 if rng.random() < 0.3 else out_shape[d] for d in dims)
    return sample(rng, in_shape, dtype), dims, out_shape


@pytest.mark.parametrize("dtype", ALL)
def test_broadcast_in_dim_matches_lax(dtype):
    rng = rng_for(4, dtype)
    for trial in range(TRIALS):
        x, dims, out_shape = random_broadcast_in_dim(rng, dtype)
        got = one(kernel("BroadcastInDim")(x, broadcast_dimensions=dims, output_shape=out_shape))
        assert_exact(got, xla_broadcast_in_dim(x, dtype, dims, out_shape), f"{x.shape} {dims} {out_shape}")
        if dims == sorted(dims):
            assert_exact(got, lax.broadcast_in_dim(jnp.asarray(x), out_shape, dims), f"{x.shape} {dims} {out_shape}")
        assert_fresh(got, x)


def test_broadcast_in_dim_non_increasing_dimensions_transpose():
    """Note dimension_order: output[i, j, k] = input[j, i, k] for broadcast_dimensions [1, 0, 2], as XLA
    computes it; jax.lax.broadcast_in_dim returns its operand unchanged when the shapes are equal."""
    x = np.arange(16, dtype=np.int32).reshape(4, 4, 1)
    got = one(kernel("BroadcastInDim")(x, broadcast_dimensions=[1, 0, 2], output_shape=(4, 4, 1)))
    assert_exact(got, x.transpose(1, 0, 2))
    assert_exact(got, xla_broadcast_in_dim(x, "int32", [1, 0, 2], (4, 4, 1)))
    assert_exact(np.asarray(lax.broadcast_in_dim(jnp.asarray(x), (4, 4, 1), (1, 0, 2))), x)  # the jax shortcut
    y = np.arange(6).reshape(2, 3)
    assert_exact(one(kernel("BroadcastInDim")(y, broadcast_dimensions=[1, 0], output_shape=(3, 2))), y.T)


def test_broadcast_in_dim_rejects_incompatible_sizes():
    with pytest.raises(ValidationError, match="cannot broadcast"):
        kernel("BroadcastInDim")(np.zeros((3, 2)), broadcast_dimensions=[1, 2], output_shape=(2, 3, 4))


@pytest.mark.parametrize("dtype", ALL)
def test_dynamic_broadcast_in_dim_matches_lax(dtype):
    rng = rng_for(5, dtype)
    for trial in range(TRIALS):
        x, dims, out_shape = random_broadcast_in_dim(rng, dtype)
        shape = np.array(out_shape, dtype=np.int32 if trial % 2 else np.int64)
        got = one(kernel("DynamicBroadcastInDim")(x, shape, broadcast_dimensions=dims))
        assert_exact(got, xla_broadcast_in_dim(x, dtype, dims, out_shape), f"{x.shape} {dims} {out_shape}")


def test_dynamic_broadcast_in_dim_checks_the_shape_values():
    k = kernel("DynamicBroadcastInDim")
    with pytest.raises(ValueError, match="cannot broadcast"):
        k(np.zeros(3), np.array([2, 4]), broadcast_dimensions=[1])
    with pytest.raises(ValueError, match="negative"):
        k(np.zeros(1), np.array([2, -1]), broadcast_dimensions=[1])


# ---- Concatenate, Constant, Tuple, GetTupleElement -----------------------------------------------

@pytest.mark.parametrize("dtype", ALL)
def test_concatenate_matches_lax(dtype):
    rng = rng_for(6, dtype)
    for trial in range(TRIALS):
        rank = int(rng.integers(1, 4))
        base = random_shape(rng, rank)
        dim = int(rng.integers(-rank, rank))
        arrays = []
        for k in range(int(rng.integers(1, 4))):
            shape = list(base)
            shape[dim] = int(rng.integers(0, 4))
            arrays.append(sample(rng, tuple(shape), dtype))
        got = concatenate(arrays, dimension=dim)
        want = lax.concatenate([jnp.asarray(a) for a in arrays], dim % rank)
        assert_exact(got, want, f"{[a.shape for a in arrays]} {dim}")
        assert_fresh(got, *arrays)


def test_concatenate_onnx_node_cases():
    for name, _, attrs, inputs, outputs in node_cases("Concat"):
        if outputs[0].dtype.kind == "U" or outputs[0].dtype == object:
            continue  # string tensors: not an hlir element type
        assert_exact(concatenate(inputs, dimension=attrs["axis"]), outputs[0], name)


@pytest.mark.parametrize("dtype", ALL)
def test_constant_returns_its_value(dtype):
    rng = np.random.default_rng(7)
    for shape in [(), (0,), (3,), (2, 3)]:
        value = sample(rng, shape, dtype)
        got = one(kernel("Constant")(value=value, output_dtype=dtype))
        assert_exact(got, value, f"{dtype} {shape}")
        assert_fresh(got, value)


def test_constant_onnx_node_case():
    name, _, attrs, _, outputs = node_cases("Constant")[0]
    value = numpy_helper.to_array(attrs["value"])
    assert value.dtype == np.float32
    assert_exact(one(kernel("Constant")(value=value, output_dtype="float")), outputs[0], name)


def test_constant_value_type_rules():
    """Note value_type: T binds value and output; plain numbers convert exactly to integer types."""
    k = kernel("Constant")
    assert_exact(one(k(value=[1, 2, 3], output_dtype="uint8")), np.array([1, 2, 3], np.uint8))
    assert_exact(one(k(value=0.1, output_dtype="float")), np.array(0.1, np.float32))
    assert_exact(one(k(value=[True, False], output_dtype="bool")), np.array([True, False]))
    with pytest.raises(ValueError, match="element type"):
        k(value=np.array([1, 2], np.int64), output_dtype="int32")
    with pytest.raises(ValueError, match="representable"):
        k(value=[300], output_dtype="uint8")
    with pytest.raises(ValueError, match="representable"):
        k(value=[1.5], output_dtype="int32")


def test_tuple_and_get_tuple_element():
    """XLA Tuple holds its elements unchanged; GetTupleElement returns element index."""
    get = get_tuple_element
    rng = np.random.default_rng(8)
    elements = [sample(rng, shape, dtype) for shape, dtype in
                [((2, 3), "float"), ((), "bool"), ((0, 4), "complex64"), ((5,), "bfloat16"), ((1,), "uint64")]]
    got = tuple_(elements)
    assert isinstance(got, tuple) and len(got) == len(elements)
    for g, e in zip(got, elements):
        assert_exact(g, e)
        assert_fresh(g, e)
    assert tuple_([]) == ()
    for index, e in enumerate(elements):
        g = get(elements, index=index)
        assert_exact(g, e)
        assert_fresh(g, e)


# ---- Reshape, DynamicReshape ---------------------------------------------------------------------

def factorisations(rng, total: int, rank: int) -> tuple[int, ...]:
    """A random shape of `rank` dimensions holding `total` elements (total > 0)."""
    dims = [1] * rank
    remaining = total
    for p in [2, 3, 5, 7]:
        while remaining % p == 0:
            remaining //= p
            dims[int(rng.integers(0, rank))] *= p
    dims[int(rng.integers(0, rank))] *= remaining
    return tuple(dims)


@pytest.mark.parametrize("dtype", ALL)
def test_reshape_matches_lax(dtype):
    rng = rng_for(9, dtype)
    for trial in range(TRIALS):
        shape = random_shape(rng, int(rng.integers(0, 4)), 1, 4)
        x = sample(rng, shape, dtype)
        new = factorisations(rng, x.size, int(rng.integers(1, 5))) if trial % 5 else ()
        if new == () and x.size != 1:
            new = (x.size,)
        got = one(kernel("Reshape")(x, output_shape=new))
        assert_exact(got, lax.reshape(jnp.asarray(x), new), f"{shape} -> {new}")
        assert_read_only_view(got, x)
    empty = np.zeros((2, 0, 3), np_dtype(dtype))
    assert_exact(one(kernel("Reshape")(empty, output_shape=(0, 5))), lax.reshape(jnp.asarray(empty), (0, 5)))


def test_reshape_rejects_a_different_element_count():
    with pytest.raises(ValidationError, match="C1"):
        kernel("Reshape")(np.zeros((2, 3)), output_shape=(4, 2))


def dynamic_reshape_call(x, shape, allowzero):
    return one(kernel("DynamicReshape")(x, np.asarray(shape, np.int64), allowzero=allowzero))


def test_dynamic_reshape_onnx_node_cases():
    for name, _, attrs, inputs, outputs in node_cases("Reshape"):
        assert_exact(dynamic_reshape_call(inputs[0], inputs[1], attrs.get("allowzero", 0)), outputs[0], name)


def random_reshape_target(rng, shape, allowzero: int) -> list[int]:
    """A target shape for `shape` using 0 (copied or literal) and -1 where they are valid."""
    total = int(np.prod(shape, dtype=np.int64))
    if total == 0:
        target = list(shape) + [1] * int(rng.integers(0, 2))
        if not allowzero:
            target = [0 if k < len(shape) and d == shape[k] and rng.random() < 0.5 else d for k, d in enumerate(target)]
        return target
    target = list(factorisations(rng, total, int(rng.integers(1, 5))))
    if not allowzero:
        target = [0 if k < len(shape) and d == shape[k] and rng.random() < 0.5 else d for k, d in enumerate(target)]
    candidates = [k for k, d in enumerate(target) if d != 0]
    if candidates and rng.random() < 0.6:
        target[candidates[int(rng.integers(0, len(candidates)))]] = -1
    return target


@pytest.mark.parametrize("allowzero", [0, 1])
def test_dynamic_reshape_matches_onnx_references(allowzero):
    rng = np.random.default_rng(10 + allowzero)
    for trial in range(40):
        shape = random_shape(rng, int(rng.integers(0, 4)), 0 if trial % 4 == 0 else 1, 4)
        target = np.array(random_reshape_target(rng, shape, allowzero), np.int64)
        x = sample(rng, shape, "float")
        got = dynamic_reshape_call(x, target, allowzero)
        label = f"{shape} {target.tolist()} allowzero={allowzero}"
        assert_exact(got, onnx_reference("Reshape", [x, target], {"allowzero": allowzero})[0], label)
        assert_exact(got, ort("Reshape", [x, target], {"allowzero": allowzero})[0], label)


@pytest.mark.parametrize("dtype", ALL)
def test_dynamic_reshape_every_type(dtype):
    rng = np.random.default_rng(12)
    x = sample(rng, (2, 3, 4), dtype)
    for target in ([0, -1], [4, 0, 2], [24], [-1, 3, 1, 2]):
        where = onnx_reference("Reshape", [positions(x.shape), np.array(target, np.int64)], {})[0]
        assert_exact(dynamic_reshape_call(x, target, 0), moved(x, where), str(target))


def test_dynamic_reshape_rejects_invalid_shape_values():
    x = np.zeros((2, 3))
    for target, allowzero in [([-1, -1], 0), ([0, -1], 1), ([4, 2], 0), ([2, -2, 3], 0), ([1, 1, 0, 6], 0)]:
        with pytest.raises(ValidationError, match="C4"):
            dynamic_reshape_call(x, target, allowzero)
    assert dynamic_reshape_call(np.zeros((2, 0)), [0, 5], 1).shape == (0, 5)  # allowzero: a literal 0
    assert_exact(dynamic_reshape_call(np.array([[5.0]]), [], 0), np.array(5.0))  # empty shape: a scalar


# ---- Squeeze, Unsqueeze, Transpose -----------------------------------------------------------------

def squeeze_call(x, axes):
    return one(kernel("Squeeze")(x) if axes is None else kernel("Squeeze")(x, axes))


def test_squeeze_onnx_node_cases():
    for name, _, _, inputs, outputs in node_cases("Squeeze"):
        assert_exact(squeeze_call(inputs[0], inputs[1] if len(inputs) > 1 else None), outputs[0], name)


def test_squeeze_and_unsqueeze_match_onnx_references():
    rng = np.random.default_rng(13)
    for trial in range(40):
        shape = tuple(1 if rng.random() < 0.5 else int(d) for d in random_shape(rng, int(rng.integers(0, 5))))
        x = sample(rng, shape, "float")
        ones = [k for k, d in enumerate(shape) if d == 1]
        chosen = [k - len(shape) if rng.random() < 0.5 else k for k in ones if rng.random() < 0.6]
        for axes in ([None] if not chosen else []) + ([np.array(chosen, np.int64)] if chosen else []):
            got = squeeze_call(x, axes)
            inputs = [x] if axes is None else [x, axes]
            assert_exact(got, onnx_reference("Squeeze", inputs, {})[0], f"{shape} {axes}")
            assert_exact(got, ort("Squeeze", inputs, {})[0], f"{shape} {axes}")
        out_rank = len(shape) + int(rng.integers(0, 3))
        new = [int(a) for a in rng.permutation(out_rank)[:out_rank - len(shape)]]
        axes = np.array([a - out_rank if rng.random() < 0.5 else a for a in new], np.int32 if trial % 2 else np.int64)
        got = one(kernel("Unsqueeze")(x, axes))
        want = onnx_reference("Unsqueeze", [x, axes.astype(np.int64)], {})[0]
        assert_exact(got, want, f"{shape} {axes}")
        assert_exact(got, ort("Unsqueeze", [x, axes.astype(np.int64)], {})[0], f"{shape} {axes}")


def test_squeeze_empty_axes_remove_every_size_one_dimension():
    """Note empty_axes: an empty axes tensor is no axes (onnxruntime); onnx.reference keeps the shape."""
    x = np.arange(3, dtype=np.float32).reshape(1, 3, 1)
    empty = np.zeros(0, np.int64)
    got = squeeze_call(x, empty)
    assert_exact(got, ort("Squeeze", [x, empty], {})[0])
    assert got.shape == (3,)
    assert onnx_reference("Squeeze", [x, empty], {})[0].shape == (1, 3, 1)  # the recorded difference


def test_squeeze_rejects_a_dimension_not_of_size_one():
    with pytest.raises(ValidationError, match="not of size 1"):
        squeeze_call(np.zeros((1, 3)), np.array([1]))


def test_unsqueeze_onnx_node_cases():
    for name, _, _, inputs, outputs in node_cases("Unsqueeze"):
        assert_exact(one(kernel("Unsqueeze")(inputs[0], inputs[1])), outputs[0], name)


@pytest.mark.parametrize("dtype", ALL)
def test_squeeze_unsqueeze_every_type(dtype):
    rng = np.random.default_rng(14)
    x = sample(rng, (1, 3, 1, 2), dtype)
    for axes in (None, np.array([0]), np.array([-2, 0])):
        got = squeeze_call(x, axes)
        where = onnx_reference("Squeeze", [positions(x.shape)] + ([] if axes is None else [axes]), {})[0]
        assert_exact(got, moved(x, where))
        assert_read_only_view(got, x)
    got = one(kernel("Unsqueeze")(x, np.array([-1, 1])))
    assert_exact(got, moved(x, onnx_reference("Unsqueeze", [positions(x.shape), np.array([-1, 1])], {})[0]))
    assert_read_only_view(got, x)
    scalar = sample(rng, (), dtype)
    assert_exact(one(kernel("Unsqueeze")(scalar, np.array([0, 1]))), scalar.reshape(1, 1))
    assert_exact(squeeze_call(scalar, None), scalar)


@pytest.mark.parametrize("dtype", ALL)
def test_transpose_matches_lax(dtype):
    rng = rng_for(15, dtype)
    for trial in range(TRIALS):
        x = sample(rng, random_shape(rng, int(rng.integers(0, 5))), dtype)
        perm = [int(p) for p in rng.permutation(x.ndim)]
        got = one(kernel("Transpose")(x, permutation=perm))
        assert_exact(got, lax.transpose(jnp.asarray(x), perm), f"{x.shape} {perm}")
        assert_read_only_view(got, x)


def test_transpose_onnx_node_cases():
    for name, _, attrs, inputs, outputs in node_cases("Transpose"):
        perm = attrs.get("perm", list(range(inputs[0].ndim))[::-1])
        assert_exact(one(kernel("Transpose")(inputs[0], permutation=perm)), outputs[0], name)


# ---- Reverse, ReverseSequence --------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL)
def test_reverse_matches_lax(dtype):
    rng = rng_for(16, dtype)
    for trial in range(TRIALS):
        x = sample(rng, random_shape(rng, int(rng.integers(0, 5))), dtype)
        dims = sorted(int(d) for d in rng.permutation(x.ndim)[:int(rng.integers(0, x.ndim + 1))])
        got = one(kernel("Reverse")(x, dimensions=dims))
        assert_exact(got, lax.rev(jnp.asarray(x), dims), f"{x.shape} {dims}")
        assert_read_only_view(got, x)


def test_reverse_sequence_onnx_node_cases():
    for name, _, attrs, inputs, outputs in node_cases("ReverseSequence"):
        got = one(kernel("ReverseSequence")(inputs[0], inputs[1], batch_axis=attrs.get("batch_axis", 1),
                                            time_axis=attrs.get("time_axis", 0)))
        assert_exact(got, outputs[0], name)


def random_reverse_sequence(rng, dtype):
    batch_axis = int(rng.integers(0, 2))
    shape = random_shape(rng, int(rng.integers(2, 5)), 0, 4)
    x = sample(rng, shape, dtype)
    lens = rng.integers(0, shape[1 - batch_axis] + 1, size=shape[batch_axis]).astype(np.int64)
    return x, lens, {"batch_axis": batch_axis, "time_axis": 1 - batch_axis}


def test_reverse_sequence_matches_onnx_references():
    rng = np.random.default_rng(17)
    for trial in range(40):
        x, lens, attrs = random_reverse_sequence(rng, "float")
        got = one(kernel("ReverseSequence")(x, lens, **attrs))
        label = f"{x.shape} {lens.tolist()} {attrs}"
        assert_exact(got, onnx_reference("ReverseSequence", [x, lens], attrs)[0], label)
        if x.size:  # onnxruntime cannot allocate a zero-sized input for this op
            assert_exact(got, ort("ReverseSequence", [x, lens], attrs)[0], label)
        assert_fresh(got, x)


@pytest.mark.parametrize("dtype", ALL)
def test_reverse_sequence_every_type(dtype):
    rng = np.random.default_rng(18)
    for trial in range(8):
        x, lens, attrs = random_reverse_sequence(rng, dtype)
        where = onnx_reference("ReverseSequence", [positions(x.shape), lens], attrs)[0]
        assert_exact(one(kernel("ReverseSequence")(x, lens, **attrs)), moved(x, where), f"{x.shape} {lens} {attrs}")


def test_reverse_sequence_lengths_outside_the_time_axis():
    """Note sequence_lens_range: rejected, as onnxruntime does; onnx.reference reads them otherwise."""
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    for lens in ([5, 1, 1], [-1, 1, 1]):
        lens = np.array(lens, np.int64)
        with pytest.raises(ValueError, match="outside"):
            kernel("ReverseSequence")(x, lens, batch_axis=1, time_axis=0)
        assert ort_rejects("ReverseSequence", [x, lens], {"batch_axis": 1, "time_axis": 0})
    onnx_negative = onnx_reference("ReverseSequence", [x, np.array([-1, 1, 1])], {"batch_axis": 1, "time_axis": 0})[0]
    assert not np.array_equal(onnx_negative, x)  # onnx.reference moves elements for a negative length


# ---- Slice, SliceInDim, DynamicSlice, DynamicUpdateSlice, RealDynamicSlice ------------------------

def random_box(rng, shape):
    starts, limits, strides = [], [], []
    for n in shape:
        a, b = sorted(int(v) for v in rng.integers(0, n + 1, size=2))
        starts.append(a)
        limits.append(b)
        strides.append(int(rng.integers(1, 4)))
    return starts, limits, strides


@pytest.mark.parametrize("dtype", ALL)
def test_slice_and_slice_in_dim_match_lax(dtype):
    rng = rng_for(19, dtype)
    for trial in range(TRIALS):
        x = sample(rng, random_shape(rng, int(rng.integers(0, 4)), 0, 6), dtype)
        starts, limits, strides = random_box(rng, x.shape)
        got = one(kernel("Slice")(x, start_indices=starts, limit_indices=limits, strides=strides))
        assert_exact(got, lax.slice(jnp.asarray(x), starts, limits, strides), f"{x.shape} {starts} {limits} {strides}")
        assert_read_only_view(got, x)
        if x.ndim:
            d = int(rng.integers(0, x.ndim))
            got = one(kernel("SliceInDim")(x, start_index=starts[d], limit_index=limits[d], stride=strides[d], dimno=d))
            want = lax.slice_in_dim(jnp.asarray(x), starts[d], limits[d], strides[d], axis=d)
            assert_exact(got, want, f"{x.shape} dim {d}")
            assert_read_only_view(got, x)


def test_slice_in_dim_rejects_bounds_outside_the_dimension():
    with pytest.raises(ValidationError, match="C2"):
        kernel("SliceInDim")(np.zeros((3, 4)), start_index=2, limit_index=5, stride=1, dimno=1)


@pytest.mark.parametrize("dtype", ALL)
def test_dynamic_slice_matches_lax_with_clamping(dtype):
    rng = rng_for(20, dtype)
    extremes = [np.iinfo(np.int64).min, np.iinfo(np.int64).max, np.iinfo(np.int32).min, -1]
    for trial in range(TRIALS):
        x = sample(rng, random_shape(rng, int(rng.integers(0, 4)), 1, 5), dtype)
        sizes = [int(rng.integers(1, n + 1)) for n in x.shape]
        index_type = np.int32 if trial % 2 else np.int64
        starts = np.array([int(rng.integers(-3, n + 3)) if rng.random() < 0.8 else extremes[k % 4]
                           for k, n in enumerate(x.shape)], dtype=np.int64).clip(
            np.iinfo(index_type).min, np.iinfo(index_type).max).astype(index_type)
        got = one(kernel("DynamicSlice")(x, starts, slice_sizes=sizes))
        want = lax.dynamic_slice(jnp.asarray(x), [jnp.asarray(s) for s in starts], sizes, allow_negative_indices=False)
        assert_exact(got, want, f"{x.shape} {starts} {sizes}")
        assert_read_only_view(got, x)


def test_dynamic_slice_negative_start_is_clamped_not_wrapped():
    """Note negative_starts: XLA clamps -1 to 0; jax.lax.dynamic_slice by default counts from the back."""
    x = np.arange(5)
    got = one(kernel("DynamicSlice")(x, np.array([-1]), slice_sizes=[2]))
    assert_exact(got, np.array([0, 1]))
    assert np.asarray(lax.dynamic_slice(jnp.asarray(x), [jnp.asarray(-1)], [2])).tolist() == [3, 4]


@pytest.mark.parametrize("dtype", ALL)
def test_dynamic_update_slice_matches_lax(dtype):
    rng = rng_for(21, dtype)
    for trial in range(TRIALS):
        x = sample(rng, random_shape(rng, int(rng.integers(0, 4)), 1, 5), dtype)
        update = sample(rng, tuple(int(rng.integers(1, n + 1)) for n in x.shape), dtype)
        starts = np.array([int(rng.integers(0, n - u + 1)) for n, u in zip(x.shape, update.shape)],
                          dtype=np.int32 if trial % 2 else np.int64)
        got = one(kernel("DynamicUpdateSlice")(x, update, starts))
        want = lax.dynamic_update_slice(jnp.asarray(x), jnp.asarray(update), [jnp.asarray(s) for s in starts],
                                        allow_negative_indices=False)
        assert_exact(got, want, f"{x.shape} {update.shape} {starts}")
        assert_fresh(got, x, update)


def test_dynamic_update_slice_out_of_bounds_starts():
    """Clamped into range as XLA does, not rejected (spec note start_clamping)."""
    x, update = np.arange(5), np.array([9, 9])
    for start in (-3, 4, 100):
        want = lax.dynamic_update_slice(jnp.asarray(x), jnp.asarray(update), [jnp.asarray(start)],
                                        allow_negative_indices=False)
        assert_exact(one(kernel("DynamicUpdateSlice")(x, update, np.array([start], np.int32))), want, str(start))
    with pytest.raises(ValidationError, match="C2"):
        kernel("DynamicUpdateSlice")(np.zeros((3, 3)), np.zeros((0, 3)), np.array([0, 0]))


def real_dynamic_slice_call(x, starts, limits, strides, axes, index_type):
    args = [np.array(v, index_type) for v in (starts, limits, strides)]
    if axes is not None:
        args.append(np.array(axes, index_type))
    return one(kernel("RealDynamicSlice")(x, *args))


@pytest.mark.parametrize("dtype", ALL)
def test_real_dynamic_slice_matches_lax(dtype):
    rng = rng_for(22, dtype)
    for trial in range(TRIALS):
        x = sample(rng, random_shape(rng, int(rng.integers(0, 4)), 0, 6), dtype)
        starts, limits, strides = random_box(rng, x.shape)
        want = lax.slice(jnp.asarray(x), starts, limits, strides)
        index_type = np.int32 if trial % 2 else np.int64
        kind = trial % 3
        if kind == 0:  # no axes, or an empty one: every dimension
            got = real_dynamic_slice_call(x, starts, limits, strides, None if trial % 2 else [], index_type)
        else:  # a subset of the dimensions in any order, some counted from the back
            named = [int(a) for a in rng.permutation(x.ndim)[:int(rng.integers(0, x.ndim + 1))]]
            full_start, full_limit, full_stride = [0] * x.ndim, list(x.shape), [1] * x.ndim
            for a in named:
                full_start[a], full_limit[a], full_stride[a] = starts[a], limits[a], strides[a]
            want = lax.slice(jnp.asarray(x), full_start, full_limit, full_stride)
            axes = [a - x.ndim if rng.random() < 0.5 else a for a in named]
            if not named:
                continue  # an empty axes tensor means every dimension: kind 0 covers it
            got = real_dynamic_slice_call(x, [starts[a] for a in named], [limits[a] for a in named],
                                          [strides[a] for a in named], axes, index_type)
        assert_exact(got, want, f"{x.shape} {starts} {limits} {strides}")
        assert_read_only_view(got, x)


def test_real_dynamic_slice_bounds_are_slice_bounds():
    """Note slice_bounds: values outside 0 <= start <= limit <= size are errors, not clamped."""
    x = np.arange(20).reshape(4, 5)
    for starts, limits, axes in [([-1], [2], [0]), ([0], [6], [1]), ([3], [2], [1]), ([0, 0], [1, 1], [1, -1])]:
        with pytest.raises(ValueError):
            real_dynamic_slice_call(x, starts, limits, [1] * len(starts), axes, np.int64)
    with pytest.raises(ValidationError, match="C5"):
        real_dynamic_slice_call(x, [0], [2], [0], [0], np.int64)
    with pytest.raises(ValidationError, match="C6"):
        real_dynamic_slice_call(x, [0], [2], [1], [2], np.int64)


# ---- Pad, DynamicPad -----------------------------------------------------------------------------

MODES = ("PAD_VALUE", "PAD_EDGE", "PAD_REFLECT", "PAD_SYMMETRIC")
JNP_MODE = {"PAD_EDGE": "edge", "PAD_REFLECT": "reflect", "PAD_SYMMETRIC": "symmetric"}


def random_pads(rng, shape, mode: str, interior: bool, least: int = 0):
    """Valid (low, high, interior) per dimension for the mode (Pad notes pad_modes, C6-C9), keeping at
    least `least` elements after the negative amounts in the modes other than PAD_VALUE."""
    lows, highs, inner = [], [], []
    for n in shape:
        while True:
            lo, hi = (int(v) for v in rng.integers(-3, 4, size=2))
            it = int(rng.integers(0, 3)) if interior and mode == "PAD_VALUE" else 0
            m = n - max(-lo, 0) - max(-hi, 0)
            widest = max(lo, hi, 0)
            if mode == "PAD_VALUE":
                ok = n + lo + hi + max(n - 1, 0) * it >= 0
            else:
                ok = m >= least and (widest == 0 or (m >= 1 and (mode != "PAD_REFLECT" or widest <= m - 1)
                                                 and (mode != "PAD_SYMMETRIC" or widest <= m)))
            if ok:
                break
        lows.append(lo)
        highs.append(hi)
        inner.append(it)
    return lows, highs, inner


def mode_reference(x: np.ndarray, mode: str, lows, highs) -> np.ndarray:
    """The modes other than PAD_VALUE: remove the negative amounts, then jnp.pad the positive ones."""
    cropped = x[tuple(slice(max(-lo, 0), n - max(-hi, 0)) for n, lo, hi in zip(x.shape, lows, highs))]
    widths = [(max(lo, 0), max(hi, 0)) for lo, hi in zip(lows, highs)]
    if not widths:
        return cropped  # rank 0: nothing to pad (jnp.pad takes no empty pad_width)
    return np.asarray(jnp.pad(jnp.asarray(cropped), widths, mode=JNP_MODE[mode]))


def pad_call(x, value, mode, lows, highs, inner):
    return one(kernel("Pad")(x, value, mode=mode, edge_padding_low=lows, edge_padding_high=highs,
                             interior_padding=inner))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", NUMERIC)
def test_pad_matches_lax_and_jnp(dtype, mode):
    rng = rng_for(23 + MODES.index(mode), dtype)
    for trial in range(TRIALS):
        x = sample(rng, random_shape(rng, int(rng.integers(0, 4)), 0, 4), dtype)
        value = sample(rng, (), dtype)
        lows, highs, inner = random_pads(rng, x.shape, mode, interior=True)
        got = pad_call(x, value, mode, lows, highs, inner)
        label = f"{x.shape} {lows} {highs} {inner}"
        if mode == "PAD_VALUE":
            want = lax.pad(jnp.asarray(x), jnp.asarray(value), list(zip(lows, highs, inner)))
        else:
            want = mode_reference(x, mode, lows, highs)
        assert_exact(got, want, label)
        assert_fresh(got, x)


@pytest.mark.parametrize("mode", ["PAD_VALUE", "PAD_EDGE", "PAD_REFLECT"])
def test_pad_and_dynamic_pad_match_onnxruntime_with_negative_pads(mode):
    """onnxruntime's Pad removes the negative amounts first, then pads (note pad_modes). It refuses to
    reflect or extend fewer than two remaining elements even where nothing is added: the cases keep two."""
    onnx_mode = {"PAD_VALUE": "constant", "PAD_EDGE": "edge", "PAD_REFLECT": "reflect"}[mode]
    rng = np.random.default_rng(27)
    for trial in range(30):
        x = sample(rng, random_shape(rng, int(rng.integers(1, 4)), 4, 6), "float")
        lows, highs, _ = random_pads(rng, x.shape, mode, interior=False, least=2)
        pads = np.array(lows + highs, np.int64)
        value = np.array(rng.normal(), np.float32)
        want = ort("Pad", [x, pads, value], {"mode": onnx_mode})[0]
        assert_exact(pad_call(x, value, mode, lows, highs, [0] * x.ndim), want, f"{x.shape} {lows} {highs}")
        assert_exact(one(kernel("DynamicPad")(x, pads, value, mode=mode)), want, f"{x.shape} {pads}")


def test_pad_onnx_node_cases():
    for name, _, attrs, inputs, outputs in node_cases("Pad"):
        onnx_mode = attrs.get("mode", "constant")
        if onnx_mode == "wrap":
            continue  # ONNX's wrap mode has no hlir counterpart
        mode = {"constant": "PAD_VALUE", "edge": "PAD_EDGE", "reflect": "PAD_REFLECT"}[onnx_mode]
        x, pads = inputs[0], inputs[1].tolist()
        value = inputs[2] if len(inputs) > 2 and inputs[2] is not None else np.zeros((), x.dtype)
        axes = inputs[3].tolist() if len(inputs) > 3 and inputs[3] is not None else list(range(x.ndim))
        lows, highs = [0] * x.ndim, [0] * x.ndim
        for k, a in enumerate(axes):
            lows[a % x.ndim], highs[a % x.ndim] = pads[k], pads[len(axes) + k]
        assert_exact(pad_call(x, value, mode, lows, highs, [0] * x.ndim), outputs[0], name)
        got = one(kernel("DynamicPad")(x, np.array(lows + highs, np.int64), value, mode=mode))
        assert_exact(got, outputs[0], f"{name} (DynamicPad)")


def test_pad_value_removes_from_the_interior_padded_data():
    """XLA: interior padding comes first; negative edges may cut into it or past the data."""
    x = np.array([1.0, 2.0], np.float32)
    for lows, highs, inner in [([-1], [2], [1]), ([-3], [5], [0]), ([-2], [-1], [2]), ([1], [1], [3])]:
        want = lax.pad(jnp.asarray(x), jnp.float32(9), list(zip(lows, highs, inner)))
        assert_exact(pad_call(x, np.float32(9), "PAD_VALUE", lows, highs, inner), want, f"{lows} {highs} {inner}")
    empty = np.zeros((0,), np.int8)
    assert_exact(pad_call(empty, np.int8(7), "PAD_VALUE", [1], [1], [2]), np.array([7, 7], np.int8))


def test_pad_rejects_what_the_modes_cannot_do():
    """C8: interior padding is PAD_VALUE's only; C9: the mirror modes' limits; C6: no negative size."""
    x = np.arange(3, dtype=np.float32)
    v = np.float32(0)
    with pytest.raises(ValidationError, match="C8"):
        pad_call(x, v, "PAD_EDGE", [0], [0], [1])
    with pytest.raises(ValidationError, match="C9"):
        pad_call(x, v, "PAD_REFLECT", [3], [0], [0])
    with pytest.raises(ValidationError, match="C9"):
        pad_call(x, v, "PAD_SYMMETRIC", [0], [4], [0])
    with pytest.raises(ValidationError, match="C9"):
        pad_call(x, v, "PAD_EDGE", [-3], [1], [0])
    with pytest.raises(ValidationError, match="C6"):
        pad_call(x, v, "PAD_VALUE", [-2], [-2], [0])
    assert_exact(pad_call(x, v, "PAD_REFLECT", [1], [-1], [0]), np.array([1, 0, 1], np.float32))
    assert_exact(pad_call(x, v, "PAD_EDGE", [-3], [0], [0]), np.zeros(0, np.float32))  # nothing added
    assert_exact(pad_call(x, v, "PAD_SYMMETRIC", [3], [0], [0]), np.array([2, 1, 0, 0, 1, 2], np.float32))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ALL)
def test_dynamic_pad_every_type(dtype, mode):
    rng = rng_for(28 + MODES.index(mode), dtype)
    for trial in range(TRIALS):
        x = sample(rng, random_shape(rng, int(rng.integers(0, 4)), 0, 4), dtype)
        lows, highs, _ = random_pads(rng, x.shape, mode, interior=False)
        pads = np.array(lows + highs, np.int64)
        value = sample(rng, (1,), dtype)
        got = one(kernel("DynamicPad")(x, pads, value, mode=mode))
        if mode == "PAD_VALUE":
            want = lax.pad(jnp.asarray(x), jnp.asarray(value[0]), [(lo, hi, 0) for lo, hi in zip(lows, highs)])
        else:
            want = mode_reference(x, mode, lows, highs)
        assert_exact(got, want, f"{x.shape} {pads.tolist()}")
        assert_fresh(got, x)


def test_dynamic_pad_defaults():
    """Note pad_defaults: no mode is PAD_VALUE, no padding_value is 0 (False), as in ONNX Pad."""
    x = np.array([[1, 2], [3, 4]], np.int32)
    pads = np.array([1, 0, 0, 1], np.int64)
    want = ort("Pad", [x, pads], {})[0]
    assert_exact(one(kernel("DynamicPad")(x, pads)), want)
    assert_exact(one(kernel("DynamicPad")(np.array([True]), np.array([1, 1]))), np.array([False, True, False]))
    want = ort("Pad", [x, pads, np.array(7, np.int32)], {})[0]
    assert_exact(one(kernel("DynamicPad")(x, pads, np.array([7], np.int32))), want)


def test_dynamic_pad_rejects_amounts_the_mode_cannot_take():
    x = np.arange(3, dtype=np.float32)
    for pads, mode in [([-2, -2], "PAD_VALUE"), ([3, 0], "PAD_REFLECT"), ([0, 4], "PAD_SYMMETRIC"),
                       ([-3, 1], "PAD_EDGE"), ([-4, 4], "PAD_SYMMETRIC")]:
        with pytest.raises(ValueError):
            kernel("DynamicPad")(x, np.array(pads), mode=mode)
    with pytest.raises(ValidationError, match="C1"):
        kernel("DynamicPad")(x, np.array([1, 1, 1]))


# ---- Tile, Trilu ---------------------------------------------------------------------------------

def test_tile_onnx_node_cases():
    for name, _, _, inputs, outputs in node_cases("Tile"):
        assert_exact(one(kernel("Tile")(inputs[0], inputs[1])), outputs[0], name)


def test_tile_matches_onnx_references_and_torch():
    rng = np.random.default_rng(32)
    for trial in range(30):
        x = sample(rng, random_shape(rng, int(rng.integers(0, 4)), 0, 3), "float")
        repeats = rng.integers(0, 4, size=x.ndim).astype(np.int64)
        got = one(kernel("Tile")(x, repeats))
        label = f"{x.shape} {repeats.tolist()}"
        assert_exact(got, onnx_reference("Tile", [x, repeats], {})[0], label)
        assert_exact(got, torch.from_numpy(x).repeat(*repeats.tolist()).numpy() if x.ndim else x, label)
        if x.size and got.size:
            assert_exact(got, ort("Tile", [x, repeats], {})[0], label)
        assert_fresh(got, x)


@pytest.mark.parametrize("dtype", ALL)
def test_tile_every_type(dtype):
    rng = rng_for(33, dtype)
    for trial in range(TRIALS):
        x = sample(rng, random_shape(rng, int(rng.integers(0, 4)), 0, 3), dtype)
        repeats = rng.integers(0, 3, size=x.ndim).astype(np.int64)
        where = onnx_reference("Tile", [positions(x.shape), repeats], {})[0]
        assert_exact(one(kernel("Tile")(x, repeats)), moved(x, where), f"{x.shape} {repeats}")


def test_tile_rejects_negative_repeats():
    """Note repeats_values: as onnxruntime, negative repeats are errors."""
    x, repeats = np.ones(2, np.float32), np.array([-1], np.int64)
    with pytest.raises(ValueError, match="non-negative"):
        kernel("Tile")(x, repeats)
    assert ort_rejects("Tile", [x, repeats], {})


def test_trilu_onnx_node_cases():
    for name, _, attrs, inputs, outputs in node_cases("Trilu"):
        k = int(inputs[1]) if len(inputs) > 1 and inputs[1] is not None else 0
        got = one(kernel("Trilu")(inputs[0], upper=bool(attrs.get("upper", 1)), k=k))
        assert_exact(got, outputs[0], name)


TORCH_TYPES = {"bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float", "double",
               "complex64", "complex128"}


def to_torch(x: np.ndarray) -> torch.Tensor:
    """The same bits as a torch tensor (bfloat16 reinterpreted, not converted)."""
    x = np.array(x, copy=True)
    if x.dtype == ml_dtypes.bfloat16:
        return torch.from_numpy(x.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(x)


def from_torch(t: torch.Tensor) -> np.ndarray:
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


@pytest.mark.parametrize("dtype", ALL)
def test_trilu_matches_torch_and_onnx(dtype):
    rng = rng_for(34, dtype)
    for trial in range(TRIALS):
        x = sample(rng, random_shape(rng, int(rng.integers(2, 5)), 0, 4), dtype)
        k = int(rng.integers(-5, 6))
        for upper in (True, False):
            got = one(kernel("Trilu")(x, upper=upper, k=k))
            label = f"{x.shape} upper={upper} k={k}"
            if dtype in TORCH_TYPES:
                want = (torch.triu if upper else torch.tril)(to_torch(x), k)
                assert_exact(got, from_torch(want), label)
            else:
                ref = onnx_reference("Trilu", [x, np.array(k, np.int64)], {"upper": int(upper)})[0]
                assert_exact(got, ref, label)
            assert_fresh(got, x)
    x = sample(rng, (3, 4), dtype)
    if dtype in ("float", "double", "int32", "int64"):
        for upper, k in [(True, 0), (False, -1), (True, 3)]:
            want = ort("Trilu", [x, np.array(k, np.int64)], {"upper": int(upper)})[0]
            assert_exact(one(kernel("Trilu")(x, upper=upper, k=k)), want, f"onnxruntime {upper} {k}")


def test_trilu_zeroes_nan_and_keeps_signed_zero():
    x = np.array([[np.nan, -0.0], [np.nan, np.nan]], np.float32)
    got = one(kernel("Trilu")(x, upper=True, k=0))
    assert_exact(got, np.array([[np.nan, -0.0], [0.0, np.nan]], np.float32))


# ---- DepthToSpace, SpaceToDepth ------------------------------------------------------------------

def depth_to_space_call(x, depth_dim, space_dims, blocksize, mode="DCR"):
    return one(kernel("DepthToSpace")(x, space_dims=space_dims, blocksize=blocksize, depth_dim=depth_dim, mode=mode))


def space_to_depth_call(x, depth_dim, space_dims, blocksize):
    return one(kernel("SpaceToDepth")(x, space_dims=space_dims, blocksize=blocksize, depth_dim=depth_dim))


def test_depth_to_space_and_space_to_depth_onnx_node_cases():
    for name, op, attrs, inputs, outputs in node_cases("DepthToSpace", "SpaceToDepth"):
        if op == "DepthToSpace":
            got = depth_to_space_call(inputs[0], 1, [2, 3], attrs["blocksize"], attrs.get("mode", "DCR"))
        elif attrs.get("mode", "DCR") == "DCR":
            got = space_to_depth_call(inputs[0], 1, [2, 3], attrs["blocksize"])
        else:
            continue  # SpaceToDepth's CRD mode (ONNX opset 26) has no hlir attribute
        assert_exact(got, outputs[0], name)


def test_depth_to_space_and_space_to_depth_nchw_match_references():
    rng = np.random.default_rng(35)
    for trial in range(20):
        b = int(rng.integers(1, 4))
        n, c, h, w = int(rng.integers(0, 3)), int(rng.integers(1, 3)), int(rng.integers(1, 3)), int(rng.integers(1, 3))
        x = sample(rng, (n, c * b * b, h, w), "float")
        for mode in ("DCR", "CRD"):
            got = depth_to_space_call(x, 1, [2, 3], b, mode)
            label = f"{x.shape} b={b} {mode}"
            assert_exact(got, onnx_reference("DepthToSpace", [x], {"blocksize": b, "mode": mode})[0], label)
            if x.size:
                assert_exact(got, ort("DepthToSpace", [x], {"blocksize": b, "mode": mode})[0], label)
            if mode == "CRD":
                assert_exact(got, torch.nn.functional.pixel_shuffle(torch.from_numpy(x), b).numpy(), label)
        y = sample(rng, (n, c, h * b, w * b), "float")
        got = space_to_depth_call(y, 1, [2, 3], b)
        assert_exact(got, onnx_reference("SpaceToDepth", [y], {"blocksize": b})[0], f"{y.shape} b={b}")
        if y.size:
            assert_exact(got, ort("SpaceToDepth", [y], {"blocksize": b})[0], f"{y.shape} b={b}")
        assert_exact(depth_to_space_call(got, 1, [2, 3], b, "DCR"), y, "DCR inverts SpaceToDepth")


def random_layout(rng):
    """A rank (3 to 5) and distinct depth, height and width dimensions in any positions."""
    rank = int(rng.integers(3, 6))
    depth, height, width = (int(d) for d in rng.permutation(rank)[:3])
    return rank, depth, [height, width]


def via_nchw(op: str, x: np.ndarray, depth: int, space, attrs: dict) -> np.ndarray:
    """The ONNX reference applied on the named dimensions: the others flattened into N, in order."""
    others = [k for k in range(x.ndim) if k not in (depth, *space)]
    order = others + [depth, *space]
    t = np.transpose(x, order)
    lead = t.shape[:len(others)]
    out = onnx_reference(op, [t.reshape((-1,) + t.shape[len(others):])], attrs)[0]
    out = out.reshape(lead + out.shape[1:])
    return np.transpose(out, np.argsort(order))


@pytest.mark.parametrize("dtype", ALL)
def test_depth_to_space_and_space_to_depth_any_layout_and_type(dtype):
    rng = rng_for(36, dtype)
    for trial in range(TRIALS):
        rank, depth, space = random_layout(rng)
        b = int(rng.integers(1, 4))
        shape = list(random_shape(rng, rank, 1, 3))
        shape[depth] *= b * b
        x = sample(rng, tuple(shape), dtype)
        for mode in ("DCR", "CRD"):
            where = via_nchw("DepthToSpace", positions(x.shape), depth, space, {"blocksize": b, "mode": mode})
            got = depth_to_space_call(x, depth, space, b, mode)
            assert_exact(got, moved(x, where), f"{x.shape} depth={depth} space={space} b={b} {mode}")
            assert_fresh(got, x)
        shape = list(random_shape(rng, rank, 1, 3))
        shape[space[0]] *= b
        shape[space[1]] *= b
        y = sample(rng, tuple(shape), dtype)
        where = via_nchw("SpaceToDepth", positions(y.shape), depth, space, {"blocksize": b})
        assert_exact(space_to_depth_call(y, depth, space, b), moved(y, where), f"{y.shape} {depth} {space} b={b}")


def test_depth_to_space_and_space_to_depth_reject_indivisible_sizes():
    with pytest.raises(ValidationError, match="C4"):
        depth_to_space_call(np.zeros((1, 6, 2, 2)), 1, [2, 3], 2)
    with pytest.raises(ValidationError, match="C5"):
        space_to_depth_call(np.zeros((1, 1, 3, 4)), 1, [2, 3], 2)


# ---- Shape, Size, SetDimensionSize ----------------------------------------------------------------

def test_shape_onnx_node_cases():
    for name, _, attrs, inputs, outputs in node_cases("Shape"):
        got = one(kernel("Shape")(inputs[0], **{k: v for k, v in attrs.items() if k in ("start", "end")}))
        assert_exact(got, outputs[0], name)


@pytest.mark.parametrize("dtype", ALL)
def test_shape_matches_onnx_references(dtype):
    rng = rng_for(37, dtype)
    for trial in range(TRIALS):
        x = sample(rng, random_shape(rng, int(rng.integers(0, 5)), 0, 4), dtype)
        attrs = {"start": int(rng.integers(-6, 7))}
        if rng.random() < 0.7:
            attrs["end"] = int(rng.integers(-6, 7))
        got = one(kernel("Shape")(x, **attrs))
        probe = np.zeros(x.shape, np.float32)  # the result depends on the shape alone
        assert_exact(got, ort("Shape", [probe], attrs, out_dtype=np.int64)[0], f"{x.shape} {attrs}")
        if min(attrs.values()) >= -x.ndim:  # note negative_clamping: onnx.reference differs below -rank
            assert_exact(got, onnx_reference("Shape", [probe], attrs, out_dtype=np.int64)[0], f"{x.shape} {attrs}")


def test_shape_clamps_after_adding_the_rank():
    """C2 and note negative_clamping: start/end below -rank count as 0 (ONNX's text, onnxruntime);
    onnx.reference slices with the still negative value instead."""
    probe = np.zeros((1, 3, 4, 4), np.float32)
    for attrs, want in [({"start": 0, "end": -6}, []), ({"start": -6, "end": -5}, []), ({"start": -9}, [1, 3, 4, 4])]:
        got = one(kernel("Shape")(probe, **attrs))
        assert_exact(got, np.array(want, np.int64), str(attrs))
        assert_exact(got, ort("Shape", [probe], attrs, out_dtype=np.int64)[0], str(attrs))
    assert onnx_reference("Shape", [probe], {"start": 0, "end": -6}, out_dtype=np.int64)[0].tolist() == [1, 3]


def test_size_onnx_node_cases():
    for name, _, _, inputs, outputs in node_cases("Size"):
        probe = np.zeros(inputs[0].shape, np.int32)  # hlir Size takes integer tensors only
        assert_exact(one(kernel("Size")(probe)), outputs[0], name)


@pytest.mark.parametrize("dtype", ["uint32", "uint64", "int32", "int64"])
def test_size_matches_onnxruntime(dtype):
    rng = rng_for(38, dtype)
    for shape in [(), (0,), (7,), (2, 0, 3)] + [random_shape(rng, int(rng.integers(1, 5))) for _ in range(TRIALS)]:
        x = sample(rng, shape, dtype)
        got = one(kernel("Size")(x))
        assert_exact(got, np.array(x.size, np.int64), str(shape))  # note scalar_output
        assert_exact(got, ort("Size", [x], {}, out_dtype=np.int64)[0], str(shape))
        assert_exact(got, onnx_reference("Size", [x], {}, out_dtype=np.int64)[0], str(shape))
    with pytest.raises(ValidationError, match="dtype float"):
        kernel("Size")(np.zeros(3, np.float32))


def xla_set_dimension_size(x: np.ndarray, dtype: str, size: int, dimension: int) -> np.ndarray:
    dynamic = mlir_tensor(x.shape, dtype, dynamic=(dimension,))
    bounds = ", ".join(str(n) if k == dimension else "?" for k, n in enumerate(x.shape))
    bounded = dynamic[:-1] + f", #stablehlo.bounds<{bounds}>>"
    body = (f"    %0 = stablehlo.set_dimension_size %a, %b, dim = {dimension} : ({mlir_tensor(x.shape, dtype)}, "
            f"tensor<i32>) -> {bounded}\n"
            f"    %1 = stablehlo.convert %0 : ({bounded}) -> {dynamic}\n"
            f"    return %1 : {dynamic}")
    return xla_run(body, [(dtype, x), ("int32", np.array(size, np.int32))], dynamic)


@pytest.mark.parametrize("dtype", ALL)
def test_set_dimension_size_matches_xla(dtype):
    """Note dynamic_result: the kernel returns the dynamic-shaped value XLA's result holds."""
    rng = rng_for(39, dtype)
    for trial in range(TRIALS):
        x = sample(rng, random_shape(rng, int(rng.integers(1, 4)), 1, 4), dtype)
        dimension = int(rng.integers(0, x.ndim))
        size = int(rng.integers(0, x.shape[dimension] + 1))
        got = one(kernel("SetDimensionSize")(x, np.array(size, np.int32), dimension=dimension))
        assert_exact(got, xla_set_dimension_size(x, dtype, size, dimension), f"{x.shape} dim {dimension} size {size}")
        assert_fresh(got, x)


def test_set_dimension_size_rejects_a_size_beyond_the_bound():
    x = np.zeros((2, 3))
    for size in (-1, 4):
        with pytest.raises(ValueError, match="outside"):
            kernel("SetDimensionSize")(x, np.array(size, np.int32), dimension=1)
    with pytest.raises(ValidationError, match="C2"):
        kernel("SetDimensionSize")(x, np.array([1], np.int32), dimension=1)


# ---- GeneralSplit, NonZero -----------------------------------------------------------------------

def test_general_split_onnx_node_cases():
    split = general_split
    for name, _, attrs, inputs, outputs in node_cases("Split"):
        sizes = inputs[1] if len(inputs) > 1 and inputs[1] is not None else None
        if sizes is None and "num_outputs" not in attrs:
            num = len(outputs)  # before opset 18 the number of outputs gave equal parts
        else:
            num = attrs.get("num_outputs")
        got = split(inputs[0], sizes, axis=attrs.get("axis", 0), num_outputs=num)
        assert len(got) == len(outputs), name
        for g, want in zip(got, outputs):
            assert_exact(g, want, name)


@pytest.mark.parametrize("dtype", ALL)
def test_general_split_matches_onnx_references(dtype):
    split = general_split
    rng = rng_for(40, dtype)
    for trial in range(TRIALS):
        x = sample(rng, random_shape(rng, int(rng.integers(1, 4)), 0, 7), dtype)
        axis = int(rng.integers(-x.ndim, x.ndim))
        total = x.shape[axis]
        if trial % 2:
            cuts = sorted(int(c) for c in rng.integers(0, total + 1, size=int(rng.integers(0, 4))))
            sizes = np.diff([0] + cuts + [total]).astype(np.int64)
            got = split(x, sizes, axis=axis, num_outputs=None)
            inputs, attrs = [positions(x.shape), sizes], {"axis": axis}
        else:
            num = int(rng.integers(1, total + 2)) if total else int(rng.integers(1, 4))
            if total - -(-total // num) * (num - 1) < 0:
                num = 1
            got = split(x, None, axis=axis, num_outputs=num)
            inputs, attrs = [positions(x.shape)], {"axis": axis, "num_outputs": num}
        wheres = onnx_reference("Split", inputs, attrs, n_out=len(got), opset=18)
        assert len(wheres) == len(got)
        for g, where in zip(got, wheres):
            assert_exact(g, moved(x, where), f"{x.shape} {attrs}")
            assert_read_only(g)
        if dtype == "float" and all(g.size for g in got):
            for g, want in zip(got, ort("Split", [x] + inputs[1:], attrs, n_out=len(got), opset=18)):
                assert_exact(g, want, f"onnxruntime {x.shape} {attrs}")


def test_general_split_uneven_parts():
    """Note uneven_split: ceil-sized parts and a smaller (possibly empty) last one, as ONNX's shape
    inference and onnx.reference; onnxruntime rejects an empty last part; a negative one is an error."""
    split = general_split
    x = np.arange(6, dtype=np.float32)
    got = split(x, None, axis=0, num_outputs=4)
    assert [g.tolist() for g in got] == [[0, 1], [2, 3], [4, 5], []]
    for g, want in zip(got, onnx_reference("Split", [x], {"num_outputs": 4}, n_out=4, opset=18)):
        assert_exact(g, want)
    assert ort_rejects("Split", [x], {"num_outputs": 4}, n_out=4)
    with pytest.raises(ValidationError, match="C7"):  # 5 in pieces of 2: the last would be -1
        split(np.arange(5), None, axis=0, num_outputs=4)
    with pytest.raises(ValidationError, match="C6"):  # lengths summing to 4, not 5
        split(np.arange(5), np.array([2, 2]), axis=0, num_outputs=None)
    with pytest.raises(ValidationError, match="C2"):  # exactly one of split and num_outputs
        split(np.arange(5), np.array([5]), axis=0, num_outputs=1)


def test_nonzero_onnx_node_case():
    """ONNX NonZero gives the transpose of torch.nonzero's [count, rank] (note torch_semantics)."""
    for name, _, _, inputs, outputs in node_cases("NonZero"):
        assert_exact(one(kernel("NonZero")(inputs[0])), outputs[0].T, name)


@pytest.mark.parametrize("dtype", ALL)
def test_nonzero_matches_torch(dtype):
    rng = rng_for(41, dtype)
    shapes = [(), (0,), (0, 3)] + [random_shape(rng, int(rng.integers(1, 4)), 0, 5) for _ in range(TRIALS)]
    for shape in shapes:
        x = sample(rng, shape, dtype)
        if x.size and ELEM_TYPES[dtype].kind != "bool":
            x.reshape(-1)[rng.random(x.size) < 0.4] = 0  # plenty of zeros
        if dtype in TORCH_TYPES:
            t = to_torch(x)
        else:  # torch lacks uint16-64 here; as float64 every value keeps its zero-ness
            t = torch.from_numpy(x.astype(np.float64))
        want = torch.nonzero(t).numpy()
        got = one(kernel("NonZero")(x))
        assert_exact(got, want, f"{dtype} {shape}")
    for scalar, rows in [(np.float32(np.nan), 1), (np.float32(-0.0), 0), (np.complex64(1j), 1), (np.bool_(False), 0)]:
        assert one(kernel("NonZero")(np.array(scalar))).shape == (rows, 0)


def test_split_parts_are_read_only_views_of_the_input():
    """The parts of GeneralSplit, ONNX Split (every version) and SplitToSequence are basic slices of
    the input handed out as read-only views (data_movement's rule): no data moves, and writing into a
    part raises instead of changing the input. Expected values: onnx.reference."""
    from opgen.runtime.kernels.onnx_shape import onnx_split, onnx_split_v1
    from opgen.runtime.kernels.sequence import split_to_sequence

    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    before = x.copy()
    sizes = np.array([1, 2, 3], np.int64)
    wants = onnx_reference("Split", [x, sizes], {"axis": 1}, n_out=3, opset=18)
    for got in (general_split(x, sizes, axis=1, num_outputs=None), onnx_split(x, sizes, axis=1),
                onnx_split_v1(x, axis=1, split_attr=[1, 2, 3]),
                tuple(split_to_sequence(x, sizes, axis=1))):
        assert len(got) == len(wants)
        for g, want in zip(got, wants):
            assert_exact(g, want)
            assert np.shares_memory(g, x) and not g.flags.writeable
            with pytest.raises(ValueError, match="read-only"):
                g[...] = -1
    np.testing.assert_array_equal(x, before)
