"""`make bench`, ONNX beyond element-wise: opgen's kernel of each ONNX op against onnx.reference's kernel of the
same op (same inputs, same attributes), on inputs of about 1M float32 elements: data movement (Concat, Split,
Slice, Pad, Transpose, Reshape, Flatten, Unsqueeze, Expand, Tile, Gather/Scatter), reductions, normalisations, Softmax, pooling, Conv and
MatMul/Gemm, TopK and CumSum. kernels_bench covers the element-wise ops.

Both run the node through their own entry point: opgen_ops' kernel (which validates its inputs as `opgen run`
does) and a ReferenceEvaluator of a one-node model, timed round by round (timing.paired, up to 41
rounds). The ratio is the median of the rounds' ratios; SLOWER marks a row where a sign test over the
rounds finds opgen slower, ~1 a median above 1.0 that the rounds do not bear out (below what the run
resolves).
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

import opgen_ops  # noqa: E402
from timing import paired  # noqa: E402


def i64(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


def cases(rng: np.random.Generator) -> list[tuple[str, str, int, dict[str, np.ndarray | None], dict, int]]:
    """(label, op, opset, named inputs (None: absent), attributes, number of outputs)."""
    f = lambda *shape: rng.standard_normal(shape).astype(np.float32)  # noqa: E731
    x = f(1000, 1000)
    image = f(8, 32, 64, 64)
    return [
        ("Concat axis 1", "Concat", 13, {"a": f(1000, 500), "b": f(1000, 500)}, {"axis": 1}, 1),
        ("Split 4 axis 1", "Split", 18, {"x": x}, {"axis": 1, "num_outputs": 4}, 4),
        ("Slice step 2", "Slice", 13, {"x": x, "starts": i64(1, 1), "ends": i64(999, 999), "axes": i64(0, 1),
                                       "steps": i64(1, 2)}, {}, 1),
        ("Pad constant", "Pad", 19, {"x": x, "pads": i64(2, 1, 3, 4)}, {"mode": "constant"}, 1),
        ("Pad reflect", "Pad", 19, {"x": x, "pads": i64(2, 1, 3, 4)}, {"mode": "reflect"}, 1),
        ("Transpose 2-D", "Transpose", 13, {"x": x}, {"perm": [1, 0]}, 1),
        ("Reshape", "Reshape", 14, {"x": x, "shape": i64(-1, 500)}, {}, 1),
        ("Flatten axis 1", "Flatten", 13, {"x": image}, {"axis": 1}, 1),
        ("Unsqueeze", "Unsqueeze", 13, {"x": x, "axes": i64(0, -1)}, {}, 1),
        ("Expand", "Expand", 13, {"x": f(1000, 1), "shape": i64(1000, 1000)}, {}, 1),
        ("Tile", "Tile", 13, {"x": f(500, 500), "repeats": i64(2, 2)}, {}, 1),
        ("Gather rows", "Gather", 13, {"x": x, "i": rng.integers(0, 1000, 500)}, {"axis": 0}, 1),
        ("Gather columns", "Gather", 13, {"x": x, "i": rng.integers(0, 1000, 500)}, {"axis": 1}, 1),
        ("ScatterND rows", "ScatterND", 18, {"x": x, "i": rng.permutation(1000)[:500, None].astype(np.int64),
                                             "u": f(500, 1000)}, {}, 1),
        ("ScatterElements", "ScatterElements", 18, {"x": x, "i": np.argsort(rng.random((1000, 1000)), 1)[:, :500],
                                                   "u": f(1000, 500)}, {"axis": 1}, 1),
        ("ReduceSum axis 1", "ReduceSum", 13, {"x": x, "axes": i64(1)}, {"keepdims": 0}, 1),
        ("ReduceMean axis 0", "ReduceMean", 18, {"x": x, "axes": i64(0)}, {"keepdims": 0}, 1),
        ("ReduceMax axis 1", "ReduceMax", 18, {"x": x, "axes": i64(1)}, {"keepdims": 0}, 1),
        ("ReduceMin all", "ReduceMin", 18, {"x": x}, {"keepdims": 0}, 1),
        ("ReduceProd axis 0", "ReduceProd", 18, {"x": 1 + x / 1000, "axes": i64(0)}, {"keepdims": 0}, 1),
        ("ReduceL2 axis 1", "ReduceL2", 18, {"x": x, "axes": i64(1)}, {"keepdims": 0}, 1),
        ("ReduceLogSumExp", "ReduceLogSumExp", 18, {"x": x, "axes": i64(1)}, {"keepdims": 0}, 1),
        ("ArgMax axis 1", "ArgMax", 13, {"x": x}, {"axis": 1, "keepdims": 0}, 1),
        ("Softmax axis -1", "Softmax", 13, {"x": x}, {"axis": -1}, 1),
        ("LogSoftmax axis -1", "LogSoftmax", 13, {"x": x}, {"axis": -1}, 1),
        ("CumSum axis 1", "CumSum", 14, {"x": x, "axis": np.array(1, np.int64)}, {}, 1),
        ("TopK 10 axis 1", "TopK", 11, {"x": x, "k": i64(10)}, {"axis": 1}, 2),
        ("MatMul 256", "MatMul", 13, {"a": f(256, 256), "b": f(256, 256)}, {}, 1),
        ("Gemm 256 transB", "Gemm", 13, {"a": f(256, 256), "b": f(256, 256), "c": f(256)},
         {"alpha": 0.5, "beta": 2.0, "transB": 1}, 1),
        ("BatchNormalization", "BatchNormalization", 15,
         {"x": image, "s": f(32), "b": f(32), "m": f(32), "v": np.abs(f(32)) + 0.5}, {}, 1),
        ("LayerNormalization", "LayerNormalization", 17, {"x": x, "s": f(1000), "b": f(1000)}, {"axis": -1}, 1),
        ("InstanceNorm", "InstanceNormalization", 6, {"x": image, "s": f(32), "b": f(32)}, {}, 1),
        ("MaxPool 3x3 s2", "MaxPool", 12, {"x": image}, {"kernel_shape": [3, 3], "strides": [2, 2],
                                                        "pads": [1, 1, 1, 1]}, 1),
        ("AveragePool 3x3", "AveragePool", 19, {"x": image}, {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}, 1),
        ("GlobalAveragePool", "GlobalAveragePool", 1, {"x": image}, {}, 1),
        ("Conv 3x3 32->32", "Conv", 11, {"x": f(2, 32, 64, 64), "w": f(32, 32, 3, 3)}, {"pads": [1, 1, 1, 1]}, 1),
        ("Where", "Where", 16, {"c": rng.random((1000, 1000)) < 0.5, "a": x, "b": f(1000, 1000)}, {}, 1),
        ("Cast to int32", "Cast", 19, {"x": x * 100}, {"to": 6}, 1),
    ]


def one_node(op: str, opset: int, inputs: dict[str, np.ndarray | None], attrs: dict, outputs: int):
    import onnx
    from onnx import helper

    names = [name if value is not None else "" for name, value in inputs.items()]
    node = helper.make_node(op, names, [f"y{k}" for k in range(outputs)], **attrs)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
         for n, v in inputs.items() if v is not None],
        [helper.make_tensor_value_info(f"y{k}", onnx.TensorProto.UNDEFINED, None) for k in range(outputs)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def main() -> None:
    from onnx.reference import ReferenceEvaluator

    from opgen.parse import load_or_raise

    specs = load_or_raise(ROOT / "specs")
    rng = np.random.default_rng(0)
    rows = []
    for label, op, opset, inputs, attrs, outputs in cases(rng):
        evaluator = ReferenceEvaluator(one_node(op, opset, inputs, attrs, outputs))
        feeds = {name: value for name, value in inputs.items() if value is not None}
        kernel = opgen_ops.get_kernel("onnx", op, opset)
        args = list(inputs.values())
        version = specs.find("onnx", op).resolve(opset)
        keywords = dict(attrs)
        if version.requested_outputs:  # as the graph runner calls it: the outputs the node names
            keywords["requested_outputs"] = tuple(p.name for p in version.outputs[:outputs])
        ours, theirs = kernel(*args, **keywords), evaluator.run(None, feeds)
        assert [np.shape(a) for a in ours][:outputs] == [np.shape(b) for b in theirs], label
        timed = paired(lambda: kernel(*args, **keywords), lambda: evaluator.run(None, feeds))
        # onnx.reference may answer with a view of its input, moving no data; opgen's kernels do so where the
        # result holds exactly the input's elements (slices, split parts, transpositions, reshapes: read-only
        # views, data_movement's rule), else they copy
        theirs_view, ours_view = (any(isinstance(r, np.ndarray) and np.shares_memory(r, a) for r in results
                                      for a in feeds.values()) for results in (theirs, ours))
        note = "  (both return a view of the input)" if theirs_view and ours_view else \
            "  (onnx.reference returns a view of its input, opgen a copy)" if theirs_view else ""
        rows.append((label, timed, note))
    print("ONNX ops beyond element-wise: opgen's kernel against onnx.reference's, same op and inputs "
          "(about 1M float32 elements; best of up to 41 rounds (8 for slow peers) in microseconds, median ratio "
          "of the rounds)")
    print(f"{'case':<22}{'opgen':>10}{'onnx.ref':>10}{'ratio':>7}")
    for label, timed, note in rows:
        print(f"{label:<22}{timed.ours * 1e6:>10.0f}{timed.peer * 1e6:>10.0f}{timed.ratio:>7.2f}{timed.flag}{note}")
    geomean = math.exp(sum(math.log(timed.ratio) for _, timed, _ in rows) / len(rows))
    slower = [f"{label} {timed.ratio:.2f}" for label, timed, _ in rows if timed.consistently_slower]
    unresolved = [f"{label} {timed.ratio:.2f}" for label, timed, _ in rows
                  if timed.ratio > 1.0 and not timed.consistently_slower]
    print(f"{len(rows)} cases, geomean {geomean:.2f}; slower than onnx.reference: {', '.join(slower) or 'none'}; "
          f"above 1.0 within the run's noise: {', '.join(unresolved) or 'none'}")


if __name__ == "__main__":
    main()
