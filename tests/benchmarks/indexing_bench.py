"""`make bench`, indexing and ordering: hlir Gather, ScatterND, Topk and Sort on realistic sizes against
onnx.reference, onnxruntime (the ONNX op of the same meaning) and jax.lax (jit-compiled, CPU).

Cases: an embedding lookup (Gather of 4096 rows of a 10000x256 table: ONNX Gather axis 0), its
scatter (ScatterND of 4096 rows: ONNX ScatterND), top 10 of each row of a 1000x1000 matrix (ONNX
TopK), and a full sort of each row of that matrix (ONNX has no Sort: TopK with k = 1000).
Median of several runs, milliseconds; ratio = opgen / peer, < 1 means opgen is faster. opgen and
onnx.reference are timed round by round (timing.paired): their ratio is the median of the rounds' ratios,
marked SLOWER when a sign test over the rounds finds opgen slower (~1: above 1.0 in the median only).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import onnxruntime as ort  # noqa: E402
from jax import lax  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

import opgen_ops  # noqa: E402

ROWS, WIDTH, LOOKUPS = 10_000, 256, 4096
import statistics  # noqa: E402

from timing import median_time, paired  # noqa: E402


def onnx_runners(op: str, feeds: dict[str, np.ndarray], outputs: tuple[int, ...], **attrs):
    """onnx.reference and onnxruntime callables for one ONNX node over these named inputs, with
    outputs of these TensorProto element types."""
    elem = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int64): TensorProto.INT64}
    node = helper.make_node(op, list(feeds), [f"y{k}" for k in range(len(outputs))], **attrs)
    graph = helper.make_graph(
        [node], "bench", [helper.make_tensor_value_info(n, elem[v.dtype], v.shape) for n, v in feeds.items()],
        [helper.make_tensor_value_info(f"y{k}", t, None) for k, t in enumerate(outputs)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8)
    evaluator = ReferenceEvaluator(model)
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return (lambda: evaluator.run(None, feeds)), (lambda: session.run(None, feeds))


def cases(rng: np.random.Generator):
    table = rng.standard_normal((ROWS, WIDTH)).astype(np.float32)
    rows = rng.integers(0, ROWS, LOOKUPS).astype(np.int64)
    updates = rng.standard_normal((LOOKUPS, WIDTH)).astype(np.float32)
    unique_rows = rng.permutation(ROWS)[:LOOKUPS].astype(np.int64)  # ONNX ScatterND needs unique indices
    matrix = rng.standard_normal((1000, 1000)).astype(np.float32)
    k10, k_all = np.array([10], np.int64), np.array([1000], np.int64)

    gather = opgen_ops.get_kernel("hlir", "Gather")
    gather_attrs = dict(index_vector_dim=1, start_index_map=[0], collapsed_slice_dims=[0], offset_dims=[1],
                        slice_sizes=[1, WIDTH])
    gather_numbers = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
    jax_gather = jax.jit(lambda t, i: lax.gather(t, i, gather_numbers, (1, WIDTH),
                                                 mode=lax.GatherScatterMode.CLIP))
    yield ("Gather 4096 of 10000x256", lambda: gather(table, rows[:, None], **gather_attrs),
           *onnx_runners("Gather", {"t": table, "i": rows}, (TensorProto.FLOAT,), axis=0),
           lambda: jax_gather(table, rows[:, None]).block_until_ready())

    scatter = opgen_ops.get_kernel("hlir", "ScatterND")
    scatter_attrs = dict(computation="UPDATE", index_vector_dim=1, update_window_dims=[1], inserted_window_dims=[0],
                         scatter_dims_to_operand_dims=[0])
    scatter_numbers = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                                  scatter_dims_to_operand_dims=(0,))
    jax_scatter = jax.jit(lambda t, i, u: lax.scatter(t, i, u, scatter_numbers, mode=lax.GatherScatterMode.FILL_OR_DROP))
    yield ("ScatterND 4096 rows", lambda: scatter(table, unique_rows[:, None], updates, **scatter_attrs),
           *onnx_runners("ScatterND", {"t": table, "i": unique_rows[:, None], "u": updates}, (TensorProto.FLOAT,)),
           lambda: jax_scatter(table, unique_rows[:, None], updates).block_until_ready())

    topk = opgen_ops.get_kernel("hlir", "Topk")
    jax_topk = jax.jit(lambda m: lax.top_k(m, 10))
    yield ("Topk 10 of 1000x1000", lambda: topk(matrix, k10, axis=1),
           *onnx_runners("TopK", {"m": matrix, "k": k10}, (TensorProto.FLOAT, TensorProto.INT64), axis=1),
           lambda: jax_topk(matrix)[0].block_until_ready())

    sort = opgen_ops.get_kernel("hlir", "Sort")
    jax_sort = jax.jit(lambda m: lax.sort(m, dimension=1))
    yield ("Sort rows of 1000x1000", lambda: sort(matrix, dimension=1, descending=False, is_stable=False),
           *onnx_runners("TopK", {"m": matrix, "k": k_all}, (TensorProto.FLOAT, TensorProto.INT64), axis=1, largest=0),
           lambda: jax_sort(matrix).block_until_ready())


def main() -> None:
    rows = []
    for name, ours, reference, onnxruntime, jax_fn in cases(np.random.default_rng(0)):
        rows.append((name, paired(ours, reference, pick=statistics.median), median_time(onnxruntime, 7),
                     median_time(jax_fn, 7)))
    print("indexing and ordering (median ms; ratio = opgen / peer, < 1 is faster)")
    print(f"{'case':<26}{'opgen':>8}{'onnx.ref':>10}{'/ref':>7}{'ort':>8}{'/ort':>7}{'jax':>8}{'/jax':>7}")
    for name, timed, ort_t, jax_t in rows:
        t = timed.ours
        print(f"{name:<26}{t * 1e3:>8.2f}{timed.peer * 1e3:>10.2f}{timed.ratio:>7.2f}"
              f"{ort_t * 1e3:>8.2f}{t / ort_t:>7.2f}{jax_t * 1e3:>8.2f}{t / jax_t:>7.2f}{timed.flag}")
    slower = [f"{r[0]} {r[1].ratio:.2f}" for r in rows if r[1].consistently_slower]
    print(f"opgen kernels slower than onnx.reference: {', '.join(slower) or 'none'}")


if __name__ == "__main__":
    main()
