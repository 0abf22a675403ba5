"""`make bench`, joins/sort/reduce/random/control flow: opgen's NumPy kernels against onnx.reference and
jax.lax (jit, CPU) on 1M-element float32 inputs, for the ops they share.

Prints one row per op with median times and ratios; ratios < 1 mean opgen is faster than the peer.
opgen and onnx.reference are timed round by round (timing.paired): np/ref is the median of the rounds'
ratios, marked SLOWER when a sign test over the rounds finds opgen slower (~1: above 1.0 in the median only).

Sums along the last (contiguous) axis: hlir Reduce is a left fold from the initial value in row-major
order (specs/hlir/Reduce.yaml, note fold_left), a contract the kernel keeps bit for bit; NumPy's np.sum,
which onnx.reference's ReduceSum calls, adds a contiguous axis pairwise (other bits, and vectorised). A
left fold along a contiguous axis cannot be vectorised in NumPy: the kernel folds blocks of transposed
rows, about 4x np.sum's time. The "Reduce ADD fold" row is that contract, timed against jax only;
"ReduceSum d1" is ONNX ReduceSum against onnx.reference's, the same op: ONNX leaves the order open and
opgen's ONNX sums add as NumPy's add.reduce does (spec note summation_order: onnx.reference's bits);
along the leading axis ("Reduce ADD d0") hlir's fold is vectorised over the outputs and as fast as np.sum.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

import opgen_ops  # noqa: E402

SHAPE = (1000, 1000)
import statistics  # noqa: E402

from timing import median_time, paired  # noqa: E402


def onnx_runner(op: str, opset: int, inputs: dict[str, np.ndarray], outputs: list[str], attrs: dict):
    import onnx
    from onnx import helper
    from onnx.reference import ReferenceEvaluator

    def info(name, value):
        return helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(value.dtype), None)

    node = helper.make_node(op, list(inputs), outputs, **attrs)
    graph = helper.make_graph([node], "g", [info(n, v) for n, v in inputs.items()],
                              [helper.make_tensor_value_info(n, onnx.TensorProto.UNDEFINED, None) for n in outputs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)
    evaluator = ReferenceEvaluator(model)
    return lambda: evaluator.run(None, inputs)


def main() -> None:
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    import jax.numpy as jnp
    from jax import lax

    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(0)
    x = rng.standard_normal(SHAPE).astype(np.float32)
    y = rng.standard_normal(SHAPE).astype(np.float32)
    xj, yj = jnp.asarray(x), jnp.asarray(y)
    x4 = x.reshape(10, 100, 25, 40)  # NCHW, 1M elements
    x4j = jnp.asarray(x4)
    sizes = np.array([100, 200, 300, 400], np.int64)  # Split along axis 0
    k = lambda op: opgen_ops.get_kernel("hlir", op, 1)  # noqa: E731
    shape = np.array(SHAPE, np.int64)
    f0 = np.float32(0)

    def jitted(fn, *args):
        compiled = jax.jit(fn)
        return lambda: jax.block_until_ready(compiled(*args))

    rows = [
        ("Concatenate", lambda: k("Concatenate")(x, y, dimension=1),
         onnx_runner("Concat", 13, {"x": x, "y": y}, ["z"], {"axis": 1}),
         jitted(lambda a, b: lax.concatenate([a, b], 1), xj, yj)),
        ("GeneralSplit", lambda: k("GeneralSplit")(x, axis=1, num_outputs=4),
         onnx_runner("Split", 18, {"x": x}, ["a", "b", "c", "d"], {"axis": 1, "num_outputs": 4}),
         jitted(lambda a: jnp.split(a, 4, axis=1), xj)),
        ("Sort", lambda: k("Sort")(x, dimension=1, descending=True, is_stable=True),
         onnx_runner("TopK", 11, {"x": x, "k": np.array([SHAPE[1]], np.int64)}, ["v", "i"], {"axis": 1}),
         jitted(lambda a: lax.sort(-a, dimension=1, is_stable=True), xj)),
        ("Reduce ADD fold", lambda: k("Reduce")(x, f0, dimensions=[1], computation="ADD"),
         None,  # the left-fold contract (see the docstring): compared with jax only
         jitted(lambda a: lax.reduce(a, np.float32(0), lax.add, (1,)), xj)),
        ("ReduceSum d1", lambda: opgen_ops.get_kernel("onnx", "ReduceSum", 13)(x, np.array([1], np.int64), keepdims=0),
         onnx_runner("ReduceSum", 13, {"x": x, "axes": np.array([1], np.int64)}, ["s"], {"keepdims": 0}),
         jitted(lambda a: jnp.sum(a, axis=1), xj)),
        ("Reduce MAX", lambda: k("Reduce")(x, np.float32(-np.inf), dimensions=[1], computation="MAX"),
         onnx_runner("ReduceMax", 18, {"x": x, "axes": np.array([1], np.int64)}, ["s"], {"keepdims": 0}),
         jitted(lambda a: lax.reduce(a, np.float32(-np.inf), lax.max, (1,)), xj)),
        ("Reduce MIN", lambda: k("Reduce")(x, np.float32(np.inf), dimensions=[1], computation="MIN"),
         onnx_runner("ReduceMin", 18, {"x": x, "axes": np.array([1], np.int64)}, ["s"], {"keepdims": 0}),
         jitted(lambda a: lax.reduce(a, np.float32(np.inf), lax.min, (1,)), xj)),
        ("Reduce MUL", lambda: k("Reduce")(x, np.float32(1), dimensions=[1], computation="MUL"),
         onnx_runner("ReduceProd", 18, {"x": x, "axes": np.array([1], np.int64)}, ["s"], {"keepdims": 0}),
         jitted(lambda a: lax.reduce(a, np.float32(1), lax.mul, (1,)), xj)),
        ("Reduce ADD d0", lambda: k("Reduce")(x, f0, dimensions=[0], computation="ADD"),
         onnx_runner("ReduceSum", 13, {"x": x, "axes": np.array([0], np.int64)}, ["s"], {"keepdims": 0}),
         jitted(lambda a: lax.reduce(a, np.float32(0), lax.add, (0,)), xj)),
        ("GlobalAvgPool", lambda: k("GlobalAveragePool")(x4, dims=[2, 3]),
         onnx_runner("GlobalAveragePool", 1, {"x": x4}, ["p"], {}),
         jitted(lambda a: jnp.mean(a, axis=(2, 3), keepdims=True), x4j)),
        ("GlobalMaxPool", lambda: k("GlobalMaxPool")(x4, dims=[2, 3]),
         onnx_runner("GlobalMaxPool", 1, {"x": x4}, ["p"], {}),
         jitted(lambda a: jnp.max(a, axis=(2, 3), keepdims=True), x4j)),
        ("Split sizes", lambda: k("GeneralSplit")(x, sizes, axis=0, num_outputs=None),
         onnx_runner("Split", 18, {"x": x, "s": sizes}, ["a", "b", "c", "d"], {"axis": 0}),
         jitted(lambda a: jnp.split(a, [100, 300, 600], axis=0), xj)),
        ("Reduce MAX x2", lambda: k("Reduce")(x, y, np.float32(-np.inf), f0, dimensions=[1], computation="MAX"),
         None,
         jitted(lambda a, b: lax.reduce((a, b), (np.float32(-np.inf), np.float32(0)),
                                        lambda p, q: (jnp.where(p[0] >= q[0], p[0], q[0]),
                                                      jnp.where(p[0] >= q[0], p[1], q[1])), (1,)), xj, yj)),
        ("RngNormal", lambda: k("RngNormal")(f0, np.float32(1), shape, seed=1),
         onnx_runner("RandomNormal", 1, {}, ["r"], {"shape": list(SHAPE), "seed": 1.0}),
         jitted(lambda: jax.random.normal(jax.random.key(1), SHAPE, jnp.float32))),
        ("RngUniform", lambda: k("RngUniform")(f0, np.float32(1), shape, seed=1),
         onnx_runner("RandomUniform", 1, {}, ["r"], {"shape": list(SHAPE), "seed": 1.0}),
         jitted(lambda: jax.random.uniform(jax.random.key(1), SHAPE, jnp.float32))),
        ("While x100", lambda: k("While")(np.int64(0), x, condition=lambda i, a: i < 100,
                                          body=lambda i, a: (i + 1, a * np.float32(0.5))),
         None,
         jitted(lambda a: lax.while_loop(lambda s: s[0] < 100, lambda s: (s[0] + 1, s[1] * np.float32(0.5)),
                                         (0, a)), xj)),
        ("Map 1000 rows", lambda: k("Map")(x, dimensions=[0], computation=lambda r: r * np.float32(2)),
         None, jitted(lambda a: jax.vmap(lambda r: r * np.float32(2))(a), xj)),
        ("PartialReduce", lambda: k("PartialReduce")(x, np.float32(-np.inf), comparator=lambda a, b: a > b,
                                                     top_k=10, reduction_dim=1, log2_reduction=3),
         None,
         jitted(lambda a: lax.approx_max_k(a, 10, reduction_dimension=1, aggregate_to_topk=False), xj)),
    ]
    print(f"{'op':<15}{'numpy':>9}{'onnx.ref':>10}{'np/ref':>8}{'jax':>9}{'np/jax':>8}")
    slower = []
    for name, ours, onnx_ref, jax_fn in rows:
        timed = paired(ours, onnx_ref, pick=statistics.median) if onnx_ref else None
        t, r = (timed.ours, timed.peer) if timed else (median_time(ours), None)
        j = median_time(jax_fn) if jax_fn else None
        cells = [f"{t * 1e3:8.2f}ms"]
        cells.append(f"{r * 1e3:8.2f}ms{timed.ratio:8.2f}" if timed else f"{'-':>10}{'-':>8}")
        cells.append(f"{j * 1e3:7.2f}ms{t / j:8.2f}" if j else f"{'-':>9}{'-':>8}")
        print(f"{name:<15}" + "".join(cells) + (timed.flag if timed else ""))
        if timed and timed.consistently_slower:
            slower.append(name)
    print(f"NumPy kernels slower than onnx.reference: {', '.join(slower) or 'none'}")


if __name__ == "__main__":
    main()
