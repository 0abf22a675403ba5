"""Readings of document 004 chosen so that real jax programs pass, and the explicit rules kept.

Ambiguous text, read the way XLA (which the sections cite) reads it, each with a decision note:
variadic Reduce and Sort type each operand separately (argmax over values and an int32 iota, sort
by key); DynamicUpdateSlice clamps out-of-range start indices. Explicit text, kept, with a note and a
precise error: Reduce has no bool; the core arithmetic ops list no bfloat16. Gather and ScatterND
already take int32 indices (their Tind). References: jax.lax (x64, CPU).
"""
from __future__ import annotations

import numpy as np
import pytest

import opgen_ops
from conftest import project_specs
from kernel_refs import jnp, kernel, lax
from opgen.runtime.validation import ValidationError

HLIR = project_specs().domain("hlir")


def note(op: str, note_id: str):
    found = [n for n in HLIR.op(op).all_notes() if n.id == note_id]
    assert len(found) == 1 and found[0].text.en and found[0].text.zh, (op, note_id)
    return found[0]


def jax_argmax_reducer(a, b):
    """The reducer jax.numpy.argmax lowers to: the larger value, the first index among equals."""
    (va, ia), (vb, ib) = a, b
    take_a = (va > vb) | ((va == vb) & (ia < ib))
    return lax.select(take_a, va, vb), lax.select(take_a, ia, ib)


def test_reduce_types_each_operand_separately_argmax_over_float_values_and_int32_indices():
    assert note("Reduce", "operand_types").kind == "decision"
    rng = np.random.default_rng(5)
    values = rng.standard_normal((4, 6)).astype(np.float32)
    indices = np.broadcast_to(np.arange(6, dtype=np.int32), (4, 6)).copy()
    got = kernel("Reduce")(values, indices, np.float32(-np.inf), np.int32(0), computation="ARGMAX", dimensions=[1])
    want = lax.reduce((values, indices), (np.float32(-np.inf), np.int32(0)), jax_argmax_reducer, (1,))
    assert [g.dtype for g in got] == [np.float32, np.int32]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(got[1], jnp.argmax(values, axis=1))


def test_reduce_still_pairs_each_operand_with_its_initial_value_and_result():
    validate = opgen_ops.get_validator("hlir", "Reduce", 1)
    found = [str(p) for p in validate([("float", (4, 6)), ("int32", (4, 6)), ("float", ()), ("int64", ())],
                                      {"computation": "ARGMAX", "dimensions": [1]},
                                      outputs=[("float", (4,)), ("int32", (4,))])]
    assert any("constraint C6" in p and "init_values[1] is int64" in p for p in found), found
    assert validate([("float", (4, 6)), ("int32", (4, 6)), ("float", ()), ("int32", ())],
                    {"computation": "ARGMAX", "dimensions": [1]}, outputs=[("float", (4,)), ("int32", (4,))]) == []


def test_reduce_of_bool_is_rejected_because_the_document_lists_numeric_types_only():
    assert note("Reduce", "bool_excluded").kind == "info"
    with pytest.raises(ValidationError, match=r"input 'inputs'\[0\]: dtype bool is not allowed; allowed \(T\): "
                                              r"uint8, .*, double"):
        kernel("Reduce")(np.array([True, False]), np.bool_(True), computation="MIN", dimensions=[0])
    # the workaround the note gives computes jnp.all
    flags = np.array([[True, False, True], [True, True, True]])
    (as_uint8,) = kernel("Reduce")(flags.astype(np.uint8), np.uint8(1), computation="MIN", dimensions=[1])
    np.testing.assert_array_equal(as_uint8.astype(bool), jnp.all(flags, axis=1))


def test_sort_by_key_with_values_of_another_type():
    assert note("Sort", "operand_types").kind == "decision"
    keys = np.array([2.5, -1.0, 0.5, -1.0, 7.0], np.float32)
    values = np.arange(5, dtype=np.int32) * 10
    got = kernel("Sort")(keys, values, dimension=0, descending=False, is_stable=True)
    want = lax.sort((keys, values), dimension=0, is_stable=True, num_keys=1)
    assert [g.dtype for g in got] == [np.float32, np.int32]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    found = [str(p) for p in opgen_ops.get_validator("hlir", "Sort", 1)(
        [("float", (5,)), ("int32", (5,))], {"dimension": 0, "descending": False, "is_stable": True},
        outputs=[("float", (5,)), ("int64", (5,))])]
    assert any("constraint C2" in p and "output[1] is int64" in p for p in found), found


@pytest.mark.parametrize("start", [-3, 3, 100])
def test_dynamic_update_slice_clamps_out_of_range_starts(start):
    assert note("DynamicUpdateSlice", "start_clamping").kind == "decision"
    operand, update = np.arange(20, dtype=np.float32).reshape(4, 5), np.full((2, 3), -1.0, np.float32)
    starts = np.array([start, 1], np.int32)
    (got,) = kernel("DynamicUpdateSlice")(operand, update, starts)
    # allow_negative_indices=False: the StableHLO operation itself (jax.numpy indexing would wrap negatives first)
    want = lax.dynamic_update_slice(operand, update, [jnp.asarray(s) for s in starts], allow_negative_indices=False)
    np.testing.assert_array_equal(got, want)


def test_gather_and_scatter_take_the_int32_indices_jax_emits():
    x, rows = np.arange(15, dtype=np.float32).reshape(5, 3), np.array([[0], [2], [4]], np.int32)
    (gathered,) = kernel("Gather")(x, rows, index_vector_dim=1, start_index_map=[0], collapsed_slice_dims=[0],
                                   offset_dims=[1], slice_sizes=[1, 3])
    np.testing.assert_array_equal(gathered, x[rows[:, 0]])
    updates = np.ones((3, 3), np.float32)
    (scattered,) = kernel("ScatterND")(x, rows, updates, computation="ADD", index_vector_dim=1,
                                       update_window_dims=[1], inserted_window_dims=[0],
                                       scatter_dims_to_operand_dims=[0])
    np.testing.assert_array_equal(scattered, jnp.asarray(x).at[rows[:, 0]].add(updates))


@pytest.mark.parametrize("op,inputs", [("Add", 2), ("Sub", 2), ("Div", 2), ("Max", 2), ("Exp", 1), ("Rsqrt", 1)])
def test_bfloat16_is_rejected_where_the_document_lists_the_types_without_it(op, inputs):
    assert note(op, "bfloat16_not_listed").kind == "info"
    found = [str(p) for p in opgen_ops.get_validator("hlir", op, 1)([("bfloat16", (3,))] * inputs, {})]
    assert found and all("dtype bfloat16 is not allowed; allowed (T): " in p for p in found), found
    assert "bfloat16" in opgen_ops.get_signature("hlir", "Multiply", 1).type_constraints["T"]  # the extension has it
