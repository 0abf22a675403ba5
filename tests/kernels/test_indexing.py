"""hlir Gather, ScatterND, Sort and Topk against independent implementations.

- Gather: jax.lax.gather with mode="clip" (XLA's clamping), over randomised dimension numbers.
- ScatterND: XLA's scatter through jax (mode="drop": XLA's own out-of-bounds rule, windows skipped)
  with an update computation written in JAX for every computation the spec lists.
- Sort: jax.lax.sort / jnp.argsort and torch.sort (stable, both directions, several operands).
- Topk: onnx.reference, onnxruntime, the onnx package's node test cases, jax.lax.top_k and torch.topk.
The index vector dimension of jax's gather/scatter is always the last one: the references receive
the index tensor with index_vector_dim moved last, which XLA defines to be the same operation.
"""
from __future__ import annotations


import ml_dtypes
import numpy as np
import pytest
import torch
from jax._src.core import typeof
from jax._src.lax import lax as lax_internal
from jax._src.lax import slicing as lax_slicing

import opgen_ops
from kernel_refs import assert_matches, edge_values, jnp, kernel, lax, np_dtype, random_array
from opgen.dtypes import ELEM_TYPES, elem_of_numpy
from opgen.runtime.validation import ValidationError
from onnx_refs import node_test_cases, ort_session

GATHER_TYPES = ["uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                "float", "double"]
SORT_TYPES = ["uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float16", "float", "double"]
INT_TYPES = [t for t in GATHER_TYPES if ELEM_TYPES[t].kind in ("int", "uint")]
COMPUTATIONS = ["UPDATE", "ADD", "SUB", "MUL", "DIV", "MIN", "MAX", "AND", "OR", "XOR", "ARGMIN", "ARGMAX", "L2",
                "COUNT"]


def values(rng, shape, dtype: str, edges: bool) -> np.ndarray:
    """Random values, with the dtype's edge values (NaN, infinities, signed zeros, limits) mixed in."""
    array = random_array(rng, shape, dtype)
    if edges and array.size:
        flat = array.reshape(-1)
        picks = rng.random(flat.size) < 0.4
        flat[picks] = rng.choice(edge_values(dtype), size=int(picks.sum()))
    return array


def same_bits(got: np.ndarray, want, label: str = "", nan_bits: bool = True) -> None:
    """Identical dtype, shape and bits (tells -0.0 from +0.0). NaNs compare by sign and payload, or
    with nan_bits=False only by position (IEEE does not say which NaN an arithmetic result carries)."""
    want = np.asarray(want)
    assert got.dtype == want.dtype, f"{label}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{label}: shape {got.shape} != {want.shape}"
    unsigned = np.dtype(f"u{got.dtype.itemsize}")
    got_bits, want_bits = np.ascontiguousarray(got).view(unsigned), np.ascontiguousarray(want).view(unsigned)
    if not nan_bits and ELEM_TYPES[elem_of_numpy(got.dtype)].kind == "float":
        got_nan, want_nan = np.isnan(got.astype(np.float64)), np.isnan(want.astype(np.float64))
        np.testing.assert_array_equal(got_nan, want_nan, err_msg=f"{label}: NaN positions differ")
        got_bits, want_bits = got_bits[~got_nan], want_bits[~want_nan]
    np.testing.assert_array_equal(got_bits, want_bits, err_msg=label)


def xla_safe(array: np.ndarray, dtype: str, arithmetic: bool) -> np.ndarray:
    """The array with subnormals (and, for arithmetic, the smallest normals, whose products underflow)
    replaced by 1: XLA's CPU code flushes subnormals to zero, in comparisons too, while the kernels
    keep IEEE's gradual underflow (tested on their own below)."""
    if ELEM_TYPES[dtype].kind != "float" or not array.size:
        return array
    tiny = float(ml_dtypes.finfo(array.dtype).tiny)
    magnitude = np.abs(array.astype(np.float64))
    small = (magnitude > 0) & ((magnitude <= tiny) if arithmetic else (magnitude < tiny))
    return np.where(small, np.ones((), array.dtype), array)


def index_vectors_last(indices: np.ndarray, index_vector_dim: int) -> np.ndarray:
    """What jax needs: the index vectors in the last dimension (a trailing 1 when index_vector_dim = rank)."""
    if index_vector_dim == indices.ndim:
        return indices[..., None]
    return np.moveaxis(indices, index_vector_dim, -1)


def random_subset(rng, pool, size: int) -> list[int]:
    return [int(d) for d in rng.permutation(list(pool))[:size]]


def random_index_tensor(rng, batch_shape: tuple, index_size: int, bounds: list[int]) -> tuple[np.ndarray, int]:
    """Index tensor with the index vectors at a random dimension (or implied, when their size is 1),
    holding values in and out of range, negative ones and the int64 extremes."""
    rank = len(batch_shape)
    implied = index_size == 1 and rng.random() < 0.4
    vectors = np.stack([rng.integers(-3, max(b, 0) + 3, size=batch_shape) for b in bounds], axis=-1) \
        if bounds else np.zeros(batch_shape + (0,), np.int64)
    vectors = vectors.astype(np.int64)
    if vectors.size and rng.random() < 0.3:
        flat = vectors.reshape(-1)
        flat[rng.integers(0, flat.size, size=2)] = rng.choice([np.iinfo(np.int64).max, np.iinfo(np.int64).min])
    if implied:
        return vectors[..., 0], rank
    index_vector_dim = int(rng.integers(0, rank + 1))
    return np.moveaxis(vectors, -1, index_vector_dim), index_vector_dim


# ---- Gather --------------------------------------------------------------------------------------


def random_gather_case(rng):
    rank = int(rng.integers(0, 5))
    shape = tuple(int(n) for n in rng.integers(0 if rng.random() < 0.15 else 1, 5, size=rank))
    index_size = int(rng.integers(0, rank + 1))
    start_index_map = random_subset(rng, range(rank), index_size)
    batch_shape = tuple(int(n) for n in rng.integers(0 if rng.random() < 0.1 else 1, 4, size=int(rng.integers(0, 4))))
    indices, index_vector_dim = random_index_tensor(rng, batch_shape, index_size,
                                                    [shape[d] for d in start_index_map])
    slice_sizes = [int(rng.integers(0, n + 1)) for n in shape]
    ones = [d for d in range(rank) if slice_sizes[d] == 1]
    collapsed = sorted(random_subset(rng, ones, int(rng.integers(0, len(ones) + 1))))
    out_rank = len(batch_shape) + rank - len(collapsed)
    offset_dims = sorted(random_subset(rng, range(out_rank), rank - len(collapsed)))
    attrs = dict(index_vector_dim=index_vector_dim, start_index_map=start_index_map,
                 collapsed_slice_dims=collapsed, offset_dims=offset_dims, slice_sizes=slice_sizes,
                 indices_are_sorted=bool(rng.random() < 0.5))
    return shape, indices, attrs


def jax_gather(x: np.ndarray, indices: np.ndarray, attrs: dict) -> np.ndarray:
    dnums = lax.GatherDimensionNumbers(offset_dims=tuple(attrs["offset_dims"]),
                                       collapsed_slice_dims=tuple(attrs["collapsed_slice_dims"]),
                                       start_index_map=tuple(attrs["start_index_map"]))
    return np.asarray(lax.gather(jnp.asarray(x), jnp.asarray(index_vectors_last(indices, attrs["index_vector_dim"])),
                                 dnums, tuple(attrs["slice_sizes"]), mode="clip"))


@pytest.mark.parametrize("dtype", GATHER_TYPES)
def test_gather_matches_jax_over_random_dimension_numbers(dtype):
    rng = np.random.default_rng(sum(map(ord, "gather" + dtype)))
    gather = kernel("Gather")
    for case in range(16):  # 16 random dimension numbers per type (~190 over the types; jax compiles for each)
        shape, indices, attrs = random_gather_case(rng)
        x = values(rng, shape, dtype, edges=case % 2 == 1)
        (got,) = gather(x, indices, **attrs)
        same_bits(got, jax_gather(x, indices, attrs), f"case {case}: {shape} {indices.shape} {attrs}")


def test_gather_clamps_windows_into_the_input():
    """XLA: each start is clamped into [0, dim - slice size] (mode="clip"), never wrapped or filled."""
    x = np.arange(10, dtype=np.int32)
    attrs = dict(index_vector_dim=1, start_index_map=[0], collapsed_slice_dims=[], offset_dims=[1], slice_sizes=[3])
    starts = np.array([[-5], [-1], [0], [6], [7], [8], [np.iinfo(np.int64).max]])
    (got,) = kernel("Gather")(x, starts, **attrs)
    np.testing.assert_array_equal(got, [[0, 1, 2], [0, 1, 2], [0, 1, 2], [6, 7, 8], [7, 8, 9], [7, 8, 9], [7, 8, 9]])
    same_bits(got, jax_gather(x, starts, attrs))


@pytest.mark.parametrize("dtype", ["float", "int8"])
def test_gather_lookup_of_rows_matches_jax(dtype):
    """One index per slice along one dimension, whole along the others (an embedding lookup, the kernel's
    np.take path with its clip mode): indices out of range either way and at the int64 extremes, the
    looked-up dimension first or inner, batch dimensions of rank 0 to 2."""
    rng = np.random.default_rng(11)
    x = values(rng, (5, 3, 4), dtype, edges=True)
    for axis, batch_shape in [(0, (6,)), (1, (2, 3)), (2, ()), (0, (0,))]:
        indices = rng.integers(-3, x.shape[axis] + 3, batch_shape + (1,)).astype(np.int64)
        if indices.size:
            indices.reshape(-1)[:2] = [np.iinfo(np.int64).min, np.iinfo(np.int64).max][:indices.size]
        slice_sizes = [1 if d == axis else n for d, n in enumerate(x.shape)]
        rank = len(batch_shape)
        attrs = dict(index_vector_dim=rank, start_index_map=[axis], collapsed_slice_dims=[axis],
                     offset_dims=list(range(rank, rank + 2)), slice_sizes=slice_sizes)
        (got,) = kernel("Gather")(x, indices, **attrs)
        same_bits(got, jax_gather(x, indices, attrs), f"axis {axis} batch {batch_shape}")


def test_gather_xla_documentation_example():
    """The example of XLA's operation semantics: start_indices [[0, 0], [1, 0]] with index_vector_dim 1."""
    x = np.arange(3 * 3, dtype=np.float32).reshape(3, 3)
    attrs = dict(index_vector_dim=1, start_index_map=[0, 1], collapsed_slice_dims=[0], offset_dims=[1],
                 slice_sizes=[1, 2])
    (got,) = kernel("Gather")(x, np.array([[0, 0], [1, 1], [2, 1]]), **attrs)
    np.testing.assert_array_equal(got, [[0, 1], [4, 5], [7, 8]])


def test_gather_rejects_unsorted_offset_dims():
    """C10 (XLA): offset_dims and collapsed_slice_dims in ascending order."""
    x = np.zeros((3, 4), np.float32)
    attrs = dict(index_vector_dim=1, start_index_map=[0], collapsed_slice_dims=[], offset_dims=[2, 1],
                 slice_sizes=[2, 2])
    with pytest.raises(ValidationError, match="C10"):
        kernel("Gather")(x, np.zeros((5, 1), np.int64), **attrs)
    validate = opgen_ops.get_validator("hlir", "Gather", 1)
    ok = dict(attrs, offset_dims=[1, 2])
    assert validate([x, np.zeros((5, 1), np.int64)], ok) == []


def typed_indices(indices: np.ndarray, index_type: str) -> np.ndarray:
    """The index tensor converted to index_type, its values saturated into that type's range."""
    info = np.iinfo(np_dtype(index_type))
    return np.clip(indices, max(info.min, np.iinfo(np.int64).min), min(info.max, np.iinfo(np.int64).max)) \
        .astype(np_dtype(index_type))


@pytest.mark.parametrize("index_type", INT_TYPES)
def test_gather_takes_start_indices_of_every_integer_type_of_t(index_type):
    """004 types start_indices T, whose integer types include int32 (and XLA takes any integer type):
    the validator accepts them, and the kernel matches jax.lax.gather given the same typed indices."""
    rng = np.random.default_rng(sum(map(ord, "gather-index" + index_type)))
    gather, validate = kernel("Gather"), opgen_ops.get_validator("hlir", "Gather", 1)
    for case in range(20):
        shape, indices, attrs = random_gather_case(rng)
        indices = typed_indices(indices, index_type)
        x = values(rng, shape, "float", edges=False)
        assert validate([x, indices], attrs) == [], f"case {case}"
        (got,) = gather(x, indices, **attrs)
        same_bits(got, jax_gather(x, indices, attrs), f"case {case}: {indices.dtype} {shape} {indices.shape} {attrs}")
    x = np.arange(10, dtype=np.int32)
    attrs = dict(index_vector_dim=1, start_index_map=[0], collapsed_slice_dims=[], offset_dims=[1], slice_sizes=[3])
    info = np.iinfo(np_dtype(index_type))
    starts = np.array([[info.min], [0], [5], [info.max]], np_dtype(index_type))
    (got,) = gather(x, starts, **attrs)
    same_bits(got, jax_gather(x, starts, attrs), f"{index_type} extremes")


# ---- ScatterND -----------------------------------------------------------------------------------


def random_scatter_case(rng):
    rank = int(rng.integers(0, 5))
    shape = tuple(int(n) for n in rng.integers(0 if rng.random() < 0.1 else 1, 5, size=rank))
    inserted = sorted(random_subset(rng, range(rank), int(rng.integers(0, rank + 1))))
    window = [int(rng.integers(0, shape[d] + 1)) for d in range(rank) if d not in inserted]
    index_size = int(rng.integers(0, rank + 1))
    to_operand = random_subset(rng, range(rank), index_size)
    batch_shape = tuple(int(n) for n in rng.integers(0 if rng.random() < 0.1 else 1, 4, size=int(rng.integers(0, 4))))
    indices, index_vector_dim = random_index_tensor(rng, batch_shape, index_size, [shape[d] for d in to_operand])
    updates_rank = len(batch_shape) + len(window)
    window_dims = sorted(random_subset(rng, range(updates_rank), len(window)))
    updates_shape, batch_sizes, window_sizes = [], iter(batch_shape), iter(window)
    for d in range(updates_rank):
        updates_shape.append(next(window_sizes) if d in window_dims else next(batch_sizes))
    attrs = dict(index_vector_dim=index_vector_dim, update_window_dims=window_dims, inserted_window_dims=inserted,
                 scatter_dims_to_operand_dims=to_operand, indices_are_sorted=bool(rng.random() < 0.5),
                 unique_indices=bool(rng.random() < 0.5))
    return shape, indices, tuple(updates_shape), attrs


def jax_update_computation(computation: str, dtype: str):
    """The update computation (current a, update b) written with jax, as XLA's region."""
    np_type = np_dtype(dtype)

    def l2(a, b):
        if ELEM_TYPES[dtype].kind == "float":  # float16/bfloat16: in float32, rounded once per application
            wide = jnp.promote_types(np_type, jnp.float32)
            return jnp.hypot(a.astype(wide), b.astype(wide)).astype(np_type)
        r = jnp.floor(jnp.hypot(a.astype(jnp.float64), b.astype(jnp.float64)))  # >= 0: floor truncates
        info = np.iinfo(np_type)
        past_max = 2.0 ** (info.bits - (1 if info.min < 0 else 0))
        return jnp.where(r >= past_max, np.array(info.max, np_type), jnp.minimum(r, float(info.max)).astype(np_type))

    return {
        "UPDATE": lambda a, b: b, "ADD": lax.add, "SUB": lax.sub, "MUL": lax.mul, "DIV": lax.div,
        "MIN": lax.min, "ARGMIN": lax.min, "MAX": lax.max, "ARGMAX": lax.max,
        "AND": lax.bitwise_and, "OR": lax.bitwise_or, "XOR": lax.bitwise_xor,
        "L2": l2, "COUNT": lambda a, b: a + jnp.ones((), a.dtype),
    }[computation]


def jax_scatter(x, indices, updates, attrs, computation: str, dtype: str) -> np.ndarray:
    """XLA Scatter through jax's scatter primitive, with the update computation as its region and
    mode="drop" (FILL_OR_DROP: the indices reach XLA unchanged, as with promise_in_bounds)."""
    if x.ndim == 0:
        # XLA fails a RET_CHECK on a rank-0 operand with several updates; a shape-(1,) operand whose
        # only dimension is inserted is the same scatter
        attrs = dict(attrs, inserted_window_dims=[0])
        return jax_scatter(x.reshape(1), indices, updates, attrs, computation, dtype).reshape(())
    vectors = index_vectors_last(indices, attrs["index_vector_dim"])
    if not attrs["scatter_dims_to_operand_dims"]:
        # XLA's CPU scatter misplaces updates given index vectors of size 0 (several updates land at
        # other positions); an index vector holding one 0 mapped to dimension 0 gives the same starts
        vectors = np.zeros(vectors.shape[:-1] + (1,), np.int64)
        attrs = dict(attrs, scatter_dims_to_operand_dims=[0])
    dnums = lax.ScatterDimensionNumbers(update_window_dims=tuple(attrs["update_window_dims"]),
                                        inserted_window_dims=tuple(attrs["inserted_window_dims"]),
                                        scatter_dims_to_operand_dims=tuple(attrs["scatter_dims_to_operand_dims"]))
    operand = jnp.asarray(x)
    region = jax_update_computation(computation, dtype)
    jaxpr, consts = lax_internal._reduction_jaxpr(region, typeof(lax_internal._zero(operand)))
    result = lax_slicing.scatter_p.bind(
        operand, jnp.asarray(vectors), jnp.asarray(updates),
        update_jaxpr=jaxpr, update_consts=consts, dimension_numbers=dnums,
        indices_are_sorted=attrs["indices_are_sorted"], unique_indices=attrs["unique_indices"],
        mode=lax_slicing.GatherScatterMode.FILL_OR_DROP)
    return np.asarray(result)


def scatter_types(computation: str) -> list[str]:
    return INT_TYPES if computation in ("AND", "OR", "XOR") else GATHER_TYPES


def scatter_cases() -> list[tuple[str, str]]:
    """Every computation on its first float and integer type, and on three more types taken in turn, so
    that every type meets several computations (not the whole product: jax compiles for every case)."""
    pairs, turn = [], 0
    for c in COMPUTATIONS:
        types = scatter_types(c)
        chosen = {t for t in ("float", "int32") if t in types}
        while len(chosen) < min(5, len(types)):
            chosen.add(types[turn % len(types)])
            turn += 1
        pairs += [(c, t) for t in types if t in chosen]
    return pairs


def test_scatter_cases_cover_every_type_and_computation():
    pairs = scatter_cases()
    assert {c for c, _ in pairs} == set(COMPUTATIONS)
    assert {t for _, t in pairs} == set(GATHER_TYPES)


@pytest.mark.parametrize("computation,dtype", scatter_cases())
def test_scatter_matches_xla_over_random_dimension_numbers(computation, dtype):
    rng = np.random.default_rng(sum(map(ord, "scatter" + computation + dtype)))
    scatter = kernel("ScatterND")
    for case in range(9):  # 9 random cases per (computation, type), 3 with edge values
        shape, indices, updates_shape, attrs = random_scatter_case(rng)
        edges = case % 3 == 2
        x = xla_safe(values(rng, shape, dtype, edges), dtype, arithmetic=True)
        updates = xla_safe(values(rng, updates_shape, dtype, edges), dtype, arithmetic=True)
        if computation == "DIV" and not edges and ELEM_TYPES[dtype].kind != "float":
            updates[updates == 0] = 3  # x / 0 is covered by the edge cases
        (got,) = scatter(x, indices, updates, computation=computation, **attrs)
        want = jax_scatter(x, indices, updates, attrs, computation, dtype)
        label = f"{computation} case {case}: {shape} {indices.shape} {updates_shape} {attrs}"
        if computation in ("UPDATE", "MIN", "MAX", "ARGMIN", "ARGMAX", "COUNT") or not ELEM_TYPES[dtype].kind == "float":
            same_bits(got, want, label, nan_bits=computation == "UPDATE")
        else:
            assert_matches(got, want, dtype, label)


@pytest.mark.parametrize("index_type", INT_TYPES)
def test_scatter_takes_scatter_indices_of_every_integer_type_of_t(index_type):
    """004 types scatter_indices T, whose integer types include int32 (and XLA takes any integer type):
    the validator accepts them, and the kernel matches XLA's scatter given the same typed indices."""
    rng = np.random.default_rng(sum(map(ord, "scatter-index" + index_type)))
    scatter, validate = kernel("ScatterND"), opgen_ops.get_validator("hlir", "ScatterND", 1)
    for case in range(15):
        shape, indices, updates_shape, attrs = random_scatter_case(rng)
        indices = typed_indices(indices, index_type)
        x = values(rng, shape, "int32", edges=False)
        updates = values(rng, updates_shape, "int32", edges=False)
        assert validate([x, indices, updates], dict(attrs, computation="ADD")) == [], f"case {case}"
        (got,) = scatter(x, indices, updates, computation="ADD", **attrs)
        want = jax_scatter(x, indices, updates, attrs, "ADD", "int32")
        same_bits(got, want, f"case {case}: {indices.dtype} {shape} {indices.shape} {updates_shape} {attrs}")
    x = np.zeros(6, np.int32)
    attrs = dict(index_vector_dim=1, update_window_dims=[1], inserted_window_dims=[], scatter_dims_to_operand_dims=[0],
                 indices_are_sorted=False, unique_indices=False)
    info = np.iinfo(np_dtype(index_type))
    starts = np.array([[info.min], [0], [4], [info.max]], np_dtype(index_type))
    updates = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], np.int32)
    (got,) = scatter(x, starts, updates, computation="ADD", **attrs)
    same_bits(got, jax_scatter(x, starts, updates, attrs, "ADD", "int32"), f"{index_type} extremes")


def test_scatter_skips_whole_windows_that_do_not_fit():
    """XLA: a window partly outside the operand is skipped entirely; negative starts are outside."""
    x = np.zeros(6, np.int32)
    attrs = dict(index_vector_dim=1, update_window_dims=[1], inserted_window_dims=[], scatter_dims_to_operand_dims=[0])
    starts = np.array([[0], [4], [5], [-1], [np.iinfo(np.int64).max], [2]])
    updates = np.array([[1, 2], [3, 4], [5, 6], [7, 8], [9, 9], [10, 20]], np.int32)
    (got,) = kernel("ScatterND")(x, starts, updates, computation="ADD", **attrs)
    np.testing.assert_array_equal(got, [1, 2, 10, 20, 3, 4])
    same_bits(got, jax_scatter(x, starts, updates, dict(attrs, indices_are_sorted=False, unique_indices=False), "ADD",
                               "int32"))


@pytest.mark.parametrize("computation,dtype", [("UPDATE", "float"), ("ADD", "float16"), ("MAX", "double"),
                                               ("DIV", "int32")])
def test_scatter_of_whole_rows_matches_xla(computation, dtype):
    """Windows that are whole rows of the operand (the kernel's row-level path): one or two leading
    dimensions indexed, rows out of range skipped; a repeated row takes the element-wise path."""
    rng = np.random.default_rng(sum(map(ord, computation + dtype)))
    x = xla_safe(values(rng, (6, 2, 3), dtype, edges=True), dtype, arithmetic=True)
    for mapped, rows in [([0], [[4], [0], [7], [-1], [2]]), ([0, 1], [[5, 1], [0, 0], [5, 2], [3, 1]]),
                         ([0], [[1], [3], [1]])]:
        starts = np.array(rows, np.int64)
        window_dims = list(range(1, 1 + x.ndim - len(mapped)))
        updates = xla_safe(values(rng, (len(rows),) + x.shape[len(mapped):], dtype, edges=True), dtype, True)
        if computation == "DIV":
            updates[updates == 0] = 3
        attrs = dict(index_vector_dim=1, update_window_dims=window_dims, inserted_window_dims=mapped,
                     scatter_dims_to_operand_dims=mapped, indices_are_sorted=False, unique_indices=False)
        (got,) = kernel("ScatterND")(x, starts, updates, computation=computation, **attrs)
        want = jax_scatter(x, starts, updates, attrs, computation, dtype)
        if computation == "ADD":
            assert_matches(got, want, dtype, f"{mapped} {rows}")
        else:
            same_bits(got, want, f"{mapped} {rows}", nan_bits=computation == "UPDATE")


def test_scatter_applies_repeated_windows_in_order():
    """Overlapping windows combine in row-major order of the update batch index: UPDATE keeps the last,
    SUB and DIV (which do not commute) fold left."""
    attrs = dict(index_vector_dim=1, update_window_dims=[], inserted_window_dims=[0], scatter_dims_to_operand_dims=[0])
    starts = np.array([[1], [1], [0], [1]])
    scatter = kernel("ScatterND")
    (got,) = scatter(np.array([5.0, 100.0]), starts, np.array([1.0, 2.0, 3.0, 4.0]), computation="UPDATE", **attrs)
    np.testing.assert_array_equal(got, [3.0, 4.0])
    (got,) = scatter(np.array([5.0, 100.0]), starts, np.array([1.0, 2.0, 3.0, 4.0]), computation="SUB", **attrs)
    np.testing.assert_array_equal(got, [2.0, 93.0])
    (got,) = scatter(np.array([7, 100], np.int32), starts, np.array([3, 0, 2, 5], np.int32), computation="DIV", **attrs)
    np.testing.assert_array_equal(got, [3, 0])  # 100 / 3 = 33, 33 / 0 = -1, -1 / 5 = 0 (toward zero)


def test_scatter_count_l2_and_integer_edges():
    attrs = dict(index_vector_dim=1, update_window_dims=[], inserted_window_dims=[0], scatter_dims_to_operand_dims=[0])
    starts = np.array([[0], [0], [0], [1]])
    scatter = kernel("ScatterND")
    (got,) = scatter(np.array([10, 20], np.uint8), starts, np.array([9, 9, 9, 9], np.uint8), computation="COUNT",
                     **attrs)
    np.testing.assert_array_equal(got, [13, 21])
    (got,) = scatter(np.array([3.0, -0.0]), starts[:2], np.array([4.0, 12.0]), computation="L2", **attrs)
    np.testing.assert_array_equal(got, [13.0, -0.0])
    (got,) = scatter(np.array([120, 3], np.int8), starts[:2], np.array([100, 0], np.int8), computation="L2", **attrs)
    np.testing.assert_array_equal(got, [127, 3])  # sqrt(120² + 100²) = 156.2 saturates; 3 untouched
    (got,) = scatter(np.array([2, 0], np.int8), starts[:1], np.array([-128], np.int8), computation="MUL", **attrs)
    np.testing.assert_array_equal(got, [0, 0])  # 2 * -128 wraps to 0


def test_scatter_keeps_subnormals():
    """IEEE gradual underflow (XLA's CPU code would flush these to zero)."""
    subnormal = np.finfo(np.float64).smallest_subnormal
    attrs = dict(index_vector_dim=1, update_window_dims=[], inserted_window_dims=[0], scatter_dims_to_operand_dims=[0])
    starts = np.array([[0], [1], [2]])
    x = np.array([subnormal, 2.0**-1022, 0.0])
    (got,) = kernel("ScatterND")(x, starts, np.array([subnormal, 0.25, -subnormal]), computation="ADD", **attrs)
    np.testing.assert_array_equal(got, [2 * subnormal, 2.0**-1022 + 0.25, -subnormal])
    (got,) = kernel("ScatterND")(x, starts, np.array([1.0, 0.25, 1.0]), computation="MUL", **attrs)
    np.testing.assert_array_equal(got, [subnormal, 2.0**-1024, 0.0])
    (got,) = kernel("ScatterND")(x, starts, np.array([0.0, 1.0, -subnormal]), computation="MAX", **attrs)
    np.testing.assert_array_equal(got, [subnormal, 1.0, 0.0])


def test_scatter_bitwise_computations_need_integers():
    """C11: AND/OR/XOR are bitwise and apply to integer types only."""
    attrs = dict(index_vector_dim=1, update_window_dims=[], inserted_window_dims=[0], scatter_dims_to_operand_dims=[0])
    with pytest.raises(ValidationError, match="C11"):
        kernel("ScatterND")(np.zeros(2, np.float32), np.zeros((1, 1), np.int64), np.ones(1, np.float32),
                            computation="XOR", **attrs)
    (got,) = kernel("ScatterND")(np.array([12, 0], np.int16), np.zeros((1, 1), np.int64), np.array([10], np.int16),
                                 computation="XOR", **attrs)
    np.testing.assert_array_equal(got, [6, 0])


# ---- Sort ----------------------------------------------------------------------------------------


def sort(operands, **attrs) -> tuple:
    """The generated hlir.Sort kernel: the operands are its variadic input."""
    return kernel("Sort")(*operands, **attrs)


def sort_keys(rng, shape, dtype: str, case: int) -> np.ndarray:
    """Keys with many ties: few distinct values, and edge values (both zeros, NaNs) in half the cases."""
    keys = random_array(rng, shape, dtype, low=-2, high=2)
    if ELEM_TYPES[dtype].kind == "float":
        keys = np.round(keys).astype(keys.dtype)
    if case % 2 and keys.size:
        flat = keys.reshape(-1)
        picks = rng.random(flat.size) < 0.5
        edges = edge_values(dtype)
        if ELEM_TYPES[dtype].kind == "float":  # a negative NaN too: it is as large as any NaN
            edges = np.concatenate([edges, -edges[np.isnan(edges)]])
        flat[picks] = rng.choice(edges, size=int(picks.sum()))
    return keys


def jax_sort(arrays: list[np.ndarray], dimension: int, descending: bool) -> list[np.ndarray]:
    if not descending:
        return [np.asarray(r) for r in lax.sort([jnp.asarray(a) for a in arrays], dimension=dimension,
                                                 is_stable=True, num_keys=1)]
    order = np.asarray(jnp.argsort(jnp.asarray(arrays[0]), axis=dimension, stable=True, descending=True))
    return [np.take_along_axis(a, order, axis=dimension) for a in arrays]


def torch_sort(arrays: list[np.ndarray], dimension: int, descending: bool) -> list[np.ndarray]:
    keys = torch.from_numpy(np.ascontiguousarray(arrays[0]))
    order = torch.sort(keys, dim=dimension, descending=descending, stable=True).indices.numpy()
    return [np.take_along_axis(a, order, axis=dimension) for a in arrays]


@pytest.mark.parametrize("dtype", SORT_TYPES)
def test_sort_matches_jax_and_torch(dtype):
    rng = np.random.default_rng(sum(map(ord, "sort" + dtype)))
    for case in range(12):  # 12 random cases per type (jax compiles for each)
        rank = int(rng.integers(1, 4))
        shape = tuple(int(n) for n in rng.integers(0 if case % 5 == 4 else 1, 6, size=rank))
        dimension = int(rng.integers(0, rank))
        descending, is_stable = bool(case % 2), bool(case % 4 < 2)
        keys = sort_keys(rng, shape, dtype, case // 2)
        payload = [np.arange(keys.size, dtype=np_dtype(dtype)).reshape(shape) if keys.size < 100
                   else random_array(rng, shape, dtype), values(rng, shape, dtype, edges=True)]
        operands = [keys] + payload[: case % 3]
        label = f"case {case}: {shape} dimension {dimension} descending {descending}"
        if dtype not in ("uint16", "uint32", "uint64"):  # torch sorts these only partially
            got = sort(operands, dimension=dimension, descending=descending, is_stable=is_stable)
            assert len(got) == len(operands)
            for g, w in zip(got, torch_sort(operands, dimension, descending)):
                same_bits(g, w, label + " (torch)")
        operands[0] = xla_safe(keys, dtype, arithmetic=False)
        got = sort(operands, dimension=dimension, descending=descending, is_stable=is_stable)
        for g, w in zip(got, jax_sort(operands, dimension, descending)):
            same_bits(g, w, label + " (jax)")


def test_sort_keeps_subnormals_apart_from_zero():
    """IEEE order: a subnormal is not equal to 0 (XLA's CPU comparisons flush it to 0)."""
    subnormal = float(np.finfo(np.float32).smallest_subnormal)
    keys = np.array([subnormal, 0.0, -subnormal, -0.0], np.float32)
    (got,) = sort([keys], dimension=0, descending=False, is_stable=True)
    same_bits(got, np.array([-subnormal, 0.0, -0.0, subnormal], np.float32))
    (got,) = sort([keys], dimension=0, descending=True, is_stable=True)
    same_bits(got, torch.sort(torch.from_numpy(keys), descending=True, stable=True).values.numpy())


def test_sort_order_of_nan_and_signed_zeros():
    """NaNs of either sign are the largest and equal; -0.0 equals +0.0; equal keys keep their order."""
    keys = np.array([np.nan, 0.0, -np.inf, -0.0, -np.nan, 1.0, 0.0], np.float32)
    tags = np.arange(7, dtype=np.float32)
    up = sort([keys, tags], dimension=0, descending=False, is_stable=False)
    np.testing.assert_array_equal(up[1], [2, 1, 3, 6, 5, 0, 4])
    down = sort([keys, tags], dimension=0, descending=True, is_stable=True)
    np.testing.assert_array_equal(down[1], [0, 4, 5, 1, 3, 6, 2])


# ---- Topk ----------------------------------------------------------------------------------------


def onnx_topk(x: np.ndarray, k: int, axis: int, largest: bool, sorted_: bool, runtime: str):
    import onnx
    from onnx import helper
    from onnx.reference import ReferenceEvaluator

    elem = helper.np_dtype_to_tensor_dtype(x.dtype)
    node = helper.make_node("TopK", ["X", "K"], ["V", "I"], axis=axis, largest=int(largest), sorted=int(sorted_))
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", elem, None),
                                            helper.make_tensor_value_info("K", onnx.TensorProto.INT64, [1])],
                              [helper.make_tensor_value_info("V", elem, None),
                               helper.make_tensor_value_info("I", onnx.TensorProto.INT64, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 24)], ir_version=10)
    feeds = {"X": x, "K": np.array([k], np.int64)}
    if runtime == "reference":
        return ReferenceEvaluator(model).run(None, feeds)
    model.opset_import[0].version = 21
    return ort_session(model).run(None, feeds)


def random_topk_case(rng, dtype: str, case: int):
    rank = int(rng.integers(1, 4))
    shape = [int(n) for n in rng.integers(1, 6, size=rank)]
    axis = int(rng.integers(-rank, rank))
    if case % 7 == 6 and rank > 1:  # an empty dimension other than axis
        shape[(axis + 1) % rank] = 0
    x = sort_keys(rng, tuple(shape), dtype, case)
    k = int(rng.integers(1, shape[axis] + 1))
    return x, k, axis, bool(case % 2 == 0), bool(case % 4 < 3)


@pytest.mark.parametrize("dtype", SORT_TYPES)
def test_topk_matches_onnx_reference(dtype):
    rng = np.random.default_rng(sum(map(ord, "topk" + dtype)))
    topk = kernel("Topk")
    for case in range(40):
        x, k, axis, largest, sorted_ = random_topk_case(rng, dtype, case)
        got_values, got_indices = topk(x, np.array([k]), axis=axis, largest=largest, sorted=sorted_)
        want_values, want_indices = onnx_topk(x, k, axis, largest, sorted_, "reference")
        label = f"case {case}: {x.shape} k {k} axis {axis} largest {largest}"
        same_bits(got_values, want_values, label)
        np.testing.assert_array_equal(got_indices, want_indices, err_msg=label)
        assert got_indices.dtype == np.int64


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64", "float16", "float", "double"])
def test_topk_matches_onnxruntime(dtype):
    """onnxruntime on the types it implements, without NaN (it orders NaN inconsistently: it is
    neither kept first with largest nor last with smallest)."""
    rng = np.random.default_rng(sum(map(ord, "topk-ort" + dtype)))
    topk = kernel("Topk")
    for case in range(15):
        x, k, axis, largest, _ = random_topk_case(rng, dtype, case)
        if ELEM_TYPES[dtype].kind == "float":
            x = np.where(np.isnan(x), np.array(7, x.dtype), x)
        want_values, want_indices = onnx_topk(x, k, axis, largest, True, "onnxruntime")
        got_values, got_indices = topk(x, np.array([k]), axis=axis, largest=largest)
        label = f"case {case}: {x.shape} k {k} axis {axis} largest {largest}"
        same_bits(got_values, want_values, label)
        np.testing.assert_array_equal(got_indices, want_indices, err_msg=label)


def test_topk_onnx_node_test_cases():
    """The onnx package's TopK node tests, with hlir's attribute names (axis has no default in hlir:
    ONNX's default -1 is passed explicitly)."""
    import onnx

    cases = [c for c in node_test_cases() if c.model.graph.node[0].op_type == "TopK" and c.data_sets]
    assert len(cases) >= 5
    topk = kernel("Topk")
    for case in cases:
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in case.model.graph.node[0].attribute}
        (x, k), (want_values, want_indices) = case.data_sets[0]
        got_values, got_indices = topk(x, k, axis=attrs.get("axis", -1), largest=bool(attrs.get("largest", 1)),
                                       sorted=bool(attrs.get("sorted", 1)))
        np.testing.assert_array_equal(got_values, want_values, err_msg=case.name)
        np.testing.assert_array_equal(got_indices, want_indices, err_msg=case.name)


@pytest.mark.parametrize("dtype", SORT_TYPES)
def test_topk_matches_jax_top_k_where_orders_agree(dtype):
    """jax.lax.top_k (largest only) orders by the total order; without -0.0 and negative NaNs (note
    jax_top_k_order) it agrees, NaNs first and ties by the lower index."""
    rng = np.random.default_rng(sum(map(ord, "topk-jax" + dtype)))
    topk = kernel("Topk")
    for case in range(12):
        x, k, axis, _, _ = random_topk_case(rng, dtype, case)
        if ELEM_TYPES[dtype].kind == "float":
            x = np.where(x == 0, np.zeros((), x.dtype), np.where(np.isnan(x), np.array(np.nan, x.dtype), x))
            x = xla_safe(x, dtype, arithmetic=False)
        want_values, want_indices = lax.top_k(jnp.asarray(x), k, axis=axis)
        got_values, got_indices = topk(x, np.array([k]), axis=axis, largest=True)
        label = f"case {case}: {x.shape} k {k} axis {axis}"
        same_bits(got_values, np.asarray(want_values), label)
        np.testing.assert_array_equal(got_indices, np.asarray(want_indices), err_msg=label)


def test_topk_matches_torch_with_nan():
    """torch.topk also treats NaN as the largest value (distinct values, so its tie order is moot)."""
    rng = np.random.default_rng(5)
    topk = kernel("Topk")
    for case in range(20):
        x = rng.permutation(np.arange(24, dtype=np.float64)).reshape(2, 3, 4) - 11.5
        x.reshape(-1)[rng.integers(0, 24, size=3)] = np.nan
        axis, largest = int(rng.integers(-3, 3)), bool(case % 2)
        k = int(rng.integers(1, x.shape[axis] + 1))
        want = torch.topk(torch.from_numpy(x), k, dim=axis, largest=largest, sorted=True)
        got_values, got_indices = topk(x, np.array([k]), axis=axis, largest=largest)
        finite = ~np.isnan(got_values)
        np.testing.assert_array_equal(np.isnan(got_values), np.isnan(want.values.numpy()))
        np.testing.assert_array_equal(got_values[finite], want.values.numpy()[finite])
        np.testing.assert_array_equal(got_indices[finite], want.indices.numpy()[finite])


def test_topk_ties_and_signed_zeros_by_index():
    x = np.array([0.0, -0.0, 3.0, np.nan, 0.0, -np.nan, 3.0], np.float32)
    values_, indices = kernel("Topk")(x, np.array([5]), axis=0, largest=True)
    np.testing.assert_array_equal(indices, [3, 5, 2, 6, 0])
    values_, indices = kernel("Topk")(x, np.array([4]), axis=-1, largest=False)
    np.testing.assert_array_equal(indices, [0, 1, 4, 2])
    assert np.signbit(values_[1]) and not np.signbit(values_[0])


def test_topk_rejects_k_out_of_range():
    with pytest.raises(ValidationError, match="C3"):
        kernel("Topk")(np.zeros((2, 3), np.float32), np.array([4]), axis=1)
    with pytest.raises(ValidationError, match="C3"):
        kernel("Topk")(np.zeros((2, 3), np.float32), np.array([0]), axis=1)
