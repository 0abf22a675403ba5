"""hlir Map, If, While, CustomCall and PartialReduce through the generated kernels, with graph-valued
attributes given both as Python callables and as nested hlir graphs (run by opgen.runtime.graph_runner).

References: jax.vmap (Map over the mapped dimensions), jax.lax.cond, jax.lax.while_loop, and for
PartialReduce jax.lax.approx_max_k's output size (XLA's ApproxTopKReductionOutputSize, via the CPU
fallback with aggregate_to_topk=False) plus a window-by-window jax.numpy reduction.
"""
from __future__ import annotations

import pathlib

import numpy as np
import pytest
import yaml

import opgen_ops
from kernel_refs import assert_matches, jax, jnp, kernel, lax, random_array, xla_log2_reduction
from opgen.runtime import graph_runner
from opgen.runtime.kernels import custom
from opgen.runtime.validation import ValidationError

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"


def scalar_graph(op: str, dtype: str = "float", arity: int = 2, attributes: dict | None = None) -> dict:
    """A nested graph applying one hlir op to `arity` scalar parameters."""
    names = ["p", "q", "s"][:arity]
    node = {"op": op, "inputs": names, "outputs": ["r"]}
    if attributes:
        node["attributes"] = attributes
    return {"inputs": [{"name": n, "dtype": dtype, "shape": []} for n in names], "outputs": [{"name": "r"}],
            "nodes": [node]}


# ---- graph runner --------------------------------------------------------------------------------

def test_graph_runner_runs_the_published_example_graph():
    doc = yaml.safe_load((DATA / "hlir_map_graph.yaml").read_text())
    rng = np.random.default_rng(0)
    x, y = (random_array(rng, (2, 3), "float") for _ in range(2))
    (m,) = graph_runner.GraphFunction(doc, opgen_ops)(x, y)
    a = np.abs(x)
    assert_matches(m, np.where(a >= y, a, y) + x, "float")


def test_graph_runner_constants_outer_values_and_declared_dtypes():
    # Convert's output dtype comes from the declaration of its value; the nested graph reads `k` and `x`
    # of the enclosing graph
    graph = {
        "inputs": [{"name": "x", "dtype": "float", "shape": [3]}],
        "constants": [{"name": "k", "dtype": "float", "value": 2.5}],
        "values": [{"name": "i", "dtype": "int32"}],
        "outputs": [{"name": "i"}, {"name": "m"}],
        "nodes": [
            {"op": "Convert", "inputs": ["x"], "outputs": ["i"]},
            {"op": "Map", "inputs": ["x"], "outputs": ["m"], "attributes": {"dimensions": [0]},
             "graphs": {"computation": {"inputs": [{"name": "e", "dtype": "float", "shape": []}],
                                        "outputs": [{"name": "o"}],
                                        "nodes": [{"op": "Add", "inputs": ["e", "k"], "outputs": ["o"]}]}}},
        ],
    }
    i, m = graph_runner.GraphFunction(graph, opgen_ops)(np.array([1.7, -2.2, 3.0], np.float32))
    assert i.dtype == np.int32 and i.tolist() == [1, -2, 3]
    assert_matches(m, np.array([1.7, -2.2, 3.0], np.float32) + np.float32(2.5), "float")


def test_graph_runner_errors_name_the_problem():
    with pytest.raises(graph_runner.GraphError, match="not defined"):
        graph_runner.GraphFunction({"inputs": [{"name": "p"}], "outputs": [{"name": "r"}],
                                    "nodes": [{"op": "Neg", "inputs": ["zz"], "outputs": ["r"]}]},
                                   opgen_ops)(np.float32(1))
    with pytest.raises(graph_runner.GraphError, match="declares float"):
        graph_runner.GraphFunction(scalar_graph("Add"), opgen_ops)(np.float64(1), np.float64(2))
    with pytest.raises(graph_runner.GraphError, match="takes 2 arguments"):
        graph_runner.GraphFunction(scalar_graph("Add"), opgen_ops)(np.float32(1))
    with pytest.raises(graph_runner.GraphError, match="no spec"):
        graph_runner.GraphFunction(scalar_graph("NoSuchOp"), opgen_ops)(np.float32(1), np.float32(2))
    with pytest.raises(ValidationError):  # a graph attribute that is neither callable nor a graph
        kernel("Map")(np.zeros(2), dimensions=[0], computation=3)


# ---- Map -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float", "double", "int32", "uint8", "float16"])
def test_map_scalar_computation_matches_vmap(dtype):
    rng = np.random.default_rng([1, len(dtype)])
    for trial in range(4):
        rank = int(rng.integers(0, 4))
        shape = tuple(int(d) for d in rng.integers(0, 4, size=rank))
        x, y = random_array(rng, shape, dtype, 0, 5), random_array(rng, shape, dtype, 0, 5)
        dims = list(range(rank))
        fn = jnp.add
        for _ in range(rank):
            fn = jax.vmap(fn)
        want = np.asarray(fn(jnp.asarray(x), jnp.asarray(y))) if x.size else x + y
        for computation in (lambda a, b: a + b, scalar_graph("Add", dtype)):
            (got,) = kernel("Map")(x, y, dimensions=dims[::-1], computation=computation)
            assert_matches(got, want.astype(got.dtype), dtype, f"{shape}")
            assert got.dtype == x.dtype


def test_map_over_some_dimensions_matches_vmap_over_those_axes():
    """Note map_dimensions: the computation receives the sub-arrays over the unmapped dimensions."""
    rng = np.random.default_rng(2)
    x = random_array(rng, (2, 3, 4), "double")
    for dims in ([0], [1], [2], [0, 2], [1, 2]):
        def f(row):  # a non-element-wise computation: sort each sub-array, then scale by its sum
            return np.sort(row, axis=-1) * np.sum(row)
        want = x
        fn = lambda r: jnp.sort(r, axis=-1) * jnp.sum(r)  # noqa: E731
        for removed, d in reversed(list(enumerate(sorted(dims)))):  # inner vmaps see smaller mapped axes gone
            fn = jax.vmap(fn, in_axes=d - removed, out_axes=d - removed)
        (got,) = kernel("Map")(x, dimensions=dims, computation=f)
        assert_matches(got, np.asarray(fn(jnp.asarray(want))), "double", f"dims={dims}")


def test_map_output_type_is_the_computation_result_type_and_errors():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    (got,) = kernel("Map")(x, dimensions=[0, 1], computation=lambda a: (a * 0.5).astype(np.float64))
    assert got.dtype == np.float64 and got.tolist() == (x * 0.5).tolist()
    with pytest.raises(ValueError, match="output type"):
        kernel("Map")(x, dimensions=[0, 1], computation=lambda a: a > 1)
    with pytest.raises(ValueError, match="returned shape"):
        kernel("Map")(x, dimensions=[0, 1], computation=lambda a: np.stack([a, a]))
    (empty,) = kernel("Map")(np.zeros((0, 2), np.float32), dimensions=[0, 1], computation=scalar_graph("Neg", arity=1))
    assert empty.shape == (0, 2) and empty.dtype == np.float32
    with pytest.raises(ValidationError):
        kernel("Map")(np.zeros((2, 3)), np.zeros((3, 2)), dimensions=[0, 1], computation=np.add)


# ---- If ------------------------------------------------------------------------------------------

def test_if_matches_lax_cond_and_runs_only_one_branch():
    rng = np.random.default_rng(3)
    x = random_array(rng, (2, 3), "float")
    y = random_array(rng, (4,), "double")
    calls = []

    def true_branch(a):
        calls.append("true")
        return a * 2, np.sum(a)

    def false_branch(b):
        calls.append("false")
        return (b[:3].reshape(1, 3).astype(np.float32) * np.ones((2, 1), np.float32),
                np.float32(np.max(b)))

    for pred in (True, False):
        calls.clear()
        got = kernel("If")(np.bool_(pred), x, y, true_computation=true_branch, false_computation=false_branch)
        want = lax.cond(pred, lambda a, b: (a * 2, jnp.sum(a)),
                        lambda a, b: (jnp.broadcast_to(b[:3].astype(jnp.float32), (2, 3)),
                                      jnp.max(b).astype(jnp.float32)), x, y)
        assert calls == ["true" if pred else "false"]
        for g, w in zip(got, want):
            assert_matches(g, np.asarray(w), "float")


def test_if_with_graph_branches():
    neg, absolute = scalar_graph("Neg", arity=1), scalar_graph("Abs", arity=1)
    for pred, want in ((True, 3.0), (False, 5.0)):
        (got,) = kernel("If")(np.bool_(pred), np.float32(-3), np.float32(-5), true_computation=neg,
                              false_computation=absolute)
        assert got.dtype == np.float32 and got == want
    with pytest.raises(ValidationError):
        kernel("If")(np.array([True, False]), np.float32(1), np.float32(1), true_computation=neg,
                     false_computation=neg)


def test_if_output_types_come_from_the_branch_that_runs():
    """Note branch_execution: no input binds S, the branch does; the kernel takes no output dtype."""
    to_int = lambda x: np.asarray(x).astype(np.int32)  # noqa: E731
    (got,) = kernel("If")(np.bool_(True), np.float32(2.5), np.float32(0), true_computation=to_int,
                          false_computation=lambda x: x)
    assert got.dtype == np.int32 and got == 2
    (got,) = kernel("If")(np.bool_(False), np.float32(2.5), np.float32(0.5), true_computation=to_int,
                          false_computation=lambda x: x)
    assert got.dtype == np.float32 and got == 0.5
    with pytest.raises(TypeError):
        kernel("If")(np.bool_(True), np.float32(1), np.float32(1), true_computation=to_int,
                     false_computation=to_int, output_dtype="int32")


# ---- While ---------------------------------------------------------------------------------------

def test_while_matches_lax_while_loop():
    rng = np.random.default_rng(4)
    for trial in range(6):
        limit = int(rng.integers(0, 6))
        x = random_array(rng, (3,), "double")
        got = kernel("While")(np.int64(0), x, condition=lambda i, a: i < limit,
                              body=lambda i, a: (i + 1, a * 1.5 + i))
        want = lax.while_loop(lambda s: s[0] < limit, lambda s: (s[0] + 1, s[1] * 1.5 + s[0]),
                              (jnp.int64(0), jnp.asarray(x)))
        assert got[0] == want[0] and got[0].dtype == np.int64
        assert_matches(got[1], np.asarray(want[1]), "double")


def test_while_with_graphs_and_state_checks():
    # condition: i < 5 (Compare), body: i + 1 (Add with a constant)
    condition = {"inputs": [{"name": "i", "dtype": "int32", "shape": []}],
                 "constants": [{"name": "five", "dtype": "int32", "value": 5}],
                 "outputs": [{"name": "c"}],
                 "nodes": [{"op": "Compare", "inputs": ["i", "five"], "outputs": ["c"],
                            "attributes": {"comparison_direction": "LT"}}]}
    body = {"inputs": [{"name": "i", "dtype": "int32", "shape": []}],
            "constants": [{"name": "one", "dtype": "int32", "value": 1}],
            "outputs": [{"name": "j"}],
            "nodes": [{"op": "Add", "inputs": ["i", "one"], "outputs": ["j"]}]}
    (got,) = kernel("While")(np.int32(-3), condition=condition, body=body)
    assert got.dtype == np.int32 and got == 5
    (unchanged,) = kernel("While")(np.int32(9), condition=condition, body=body)
    assert unchanged == 9
    with pytest.raises(ValueError, match="types and shapes"):
        kernel("While")(np.int32(0), condition=lambda i: i < 2, body=lambda i: i.astype(np.int64) + 1)
    with pytest.raises(ValueError, match="bool scalar"):
        kernel("While")(np.int32(0), condition=lambda i: np.array([True]), body=lambda i: i)


# ---- CustomCall ----------------------------------------------------------------------------------

def test_custom_call_registry():
    def axpy(a, x, y, *, shape, dtype):
        return (a * x + y).astype(dtype)

    custom.register_target("test_axpy", axpy, replace=True)
    try:
        x, y = np.arange(4, dtype=np.float32), np.ones(4, np.float32)
        (got,) = kernel("CustomCall")(np.float32(2), x, y, target_name="test_axpy", shape=[4])
        assert got.tolist() == [1, 3, 5, 7] and got.dtype == np.float32
        (as_double,) = kernel("CustomCall")(np.float32(2), x, y, target_name="test_axpy", shape=[4],
                                            output_dtype="double")
        assert as_double.dtype == np.float64
        with pytest.raises(ValueError, match="declares"):
            kernel("CustomCall")(np.float32(2), x, y, target_name="test_axpy", shape=[2, 2])

        def writes(a, *, shape, dtype):
            a[0] = 1
            return a

        custom.register_target("test_writes", writes, replace=True)
        with pytest.raises(ValueError, match="read-only"):
            kernel("CustomCall")(x, target_name="test_writes", shape=[4])
        with pytest.raises(ValueError, match="already registered"):
            custom.register_target("test_axpy", lambda *a, **k: None)
    finally:
        custom.unregister_target("test_axpy")
        custom.unregister_target("test_writes")
    with pytest.raises(LookupError, match="'test_axpy' is not registered"):
        kernel("CustomCall")(np.float32(2), target_name="test_axpy", shape=[])
    custom.register_target("test_zeros", lambda *, shape, dtype: np.zeros(shape, dtype))
    try:
        (z,) = kernel("CustomCall")(target_name="test_zeros", shape=[2, 0], output_dtype="int8")
        assert z.shape == (2, 0) and z.dtype == np.int8
    finally:
        custom.unregister_target("test_zeros")


# ---- PartialReduce -------------------------------------------------------------------------------

def _approx_output_size(shape, axis, k, recall):
    """XLA's ApproxTopKReductionOutputSize through jax (the CPU fallback keeps that many elements)."""
    values, _ = jax.lax.approx_max_k(jnp.zeros(shape, jnp.float32), k, reduction_dimension=axis,
                                     recall_target=recall, aggregate_to_topk=False)
    return values.shape[axis]




@pytest.mark.parametrize("dtype", ["float", "double", "int32", "float16"])
def test_partial_reduce_windows_match_a_jax_reduction(dtype):
    rng = np.random.default_rng([5, len(dtype)])
    greater = lambda a, b, i, j: a > b  # noqa: E731  (comparator: lhs comes first when larger)
    graph = {"inputs": [{"name": n, "dtype": t, "shape": []} for n, t in
                        (("a", dtype), ("b", dtype), ("i", "int32"), ("j", "int32"))],
             "outputs": [{"name": "c"}],
             "nodes": [{"op": "Compare", "inputs": ["a", "b"], "outputs": ["c"],
                        "attributes": {"comparison_direction": "GT"}}]}
    for trial, (shape, axis, k, recall) in enumerate([((3, 1000), 1, 10, 0.9), ((700, 2), 0, 4, 0.8),
                                                     ((5000,), 0, 20, 0.95), ((2, 300, 3), 1, 2, 0.5)]):
        n = shape[axis]
        r = xla_log2_reduction(n, len(shape), k, recall)
        x = random_array(rng, shape, dtype, -1000, 1000)
        index = np.broadcast_to(np.arange(n, dtype=np.int32).reshape([-1 if d == axis else 1
                                                                      for d in range(len(shape))]), shape).copy()
        lowest = np.array(-np.inf if dtype in ("float", "double", "float16") else np.iinfo(dtype).min, x.dtype)
        for comparator in (greater, graph):
            values, indices = kernel("PartialReduce")(x, index, lowest, np.int32(-1), comparator=comparator,
                                                      top_k=k, reduction_dim=axis, recall_target=recall,
                                                      log2_reduction=r)
            size = values.shape[axis]
            if r:
                assert size == _approx_output_size(shape, axis, k, recall), (shape, axis, k, recall)
            # window j = {j, j + size, ...}: jax pads with the init value and reduces the chunks
            chunks = -(-n // size)
            xs = jnp.moveaxis(jnp.asarray(x), axis, -1)
            padded = jnp.concatenate([xs, jnp.full(xs.shape[:-1] + (chunks * size - n,), lowest)], axis=-1)
            windows = padded.reshape(xs.shape[:-1] + (chunks, size))
            best = jnp.max(windows, axis=-2)
            first = jnp.argmax(windows == best[..., None, :], axis=-2)  # earliest element wins ties
            want_index = jnp.where(best > lowest, first * size + jnp.arange(size), -1)
            assert_matches(values, np.moveaxis(np.asarray(best), -1, axis), dtype, f"{shape} {axis}")
            np.testing.assert_array_equal(indices, np.moveaxis(np.asarray(want_index), -1, axis).astype(np.int32))
            # the approximate top-k: every true top-k element whose window it wins is among the candidates
            top = np.sort(values, axis=axis)
            assert top.shape[axis] >= min(k, n)


def test_partial_reduce_recall_and_edges():
    rng = np.random.default_rng(6)
    x = rng.permutation(4096).astype(np.float32)
    index = np.arange(4096, dtype=np.int32)
    values, indices = kernel("PartialReduce")(x, index, np.float32(-np.inf), np.int32(-1),
                                              comparator=lambda a, b, i, j: a > b, top_k=10, reduction_dim=0,
                                              log2_reduction=2)
    assert values.shape == (1024,)
    assert np.array_equal(x[indices], values)
    # each window holds 4 elements i, i + 1024, ...: its value is their maximum
    assert np.array_equal(values, x.reshape(4, 1024).max(axis=0))
    # log2_reduction 0 keeps every element (padded to the tiling with the init values)
    v, i = kernel("PartialReduce")(x[:100], index[:100], np.float32(-np.inf), np.int32(-1),
                                   comparator=lambda a, b, i, j: a > b, top_k=5, reduction_dim=0, log2_reduction=0)
    assert v.shape == (1024,) and np.array_equal(v[:100], x[:100]) and np.all(v[100:] == -np.inf)
    assert np.all(i[100:] == -1)
    # an empty reduction dimension gives an empty output
    v, _ = kernel("PartialReduce")(np.zeros((2, 0), np.float32), np.zeros((2, 0), np.int32), np.float32(0),
                                   np.int32(0), comparator=lambda a, b, i, j: a > b, top_k=1, reduction_dim=1,
                                   log2_reduction=1)
    assert v.shape == (2, 0)
    with pytest.raises(ValidationError):
        kernel("PartialReduce")(x, index, np.float32(0), comparator=lambda *a: True, top_k=1, reduction_dim=0,
                                log2_reduction=1)


def test_partial_reduce_spec_example_agrees_with_jax_top_k():
    """The spec's literal example (values from NumPy's window maxima) keeps the exact top-k: its
    top_k largest outputs and their positions are jax.lax.approx_max_k's answer (CPU: exact)."""
    from conftest import project_specs

    (example,) = project_specs().domain("hlir").op("PartialReduce").versions[0].examples
    x, positions = (np.asarray(t, np.float32)[0] for t in dict(example.inputs)["inputs"])
    values, where = (np.asarray(t, np.float32)[0] for t in dict(example.outputs)["outputs"])
    k = dict(example.attributes)["top_k"]
    want_values, want_positions = jax.lax.approx_max_k(jnp.asarray(x), k)
    order = np.argsort(-values, kind="stable")[:k]
    np.testing.assert_array_equal(values[order], np.asarray(want_values))
    np.testing.assert_array_equal(where[order].astype(np.int64), np.asarray(want_positions))
    np.testing.assert_array_equal(x[where.astype(np.int64)], values)  # every output is its own position's value
    assert np.array_equal(positions, np.arange(x.size))


def test_one_graph_model_is_read_once_then_checked_and_run():
    """read -> graph -> check / run: the hlir graph file is read into opgen.graph.Graph once; the
    checker validates that object and the runner executes the same object."""
    from opgen.graph import Graph
    from opgen.validate import read_model
    from opgen.validate.checker import Checker
    from opgen.validate.registry import make_registry

    graph, records = read_model(DATA / "hlir_map_graph.yaml")
    assert isinstance(graph, Graph) and records == []
    assert Checker(make_registry(None)).check(graph) == []
    x = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, 0.5]], np.float32)
    y = np.full((2, 3), 2.0, np.float32)
    (m,) = graph_runner.GraphFunction(graph, opgen_ops)(x, y)
    np.testing.assert_array_equal(m, np.where(np.abs(x) >= y, np.abs(x), y) + x)
