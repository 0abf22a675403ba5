"""`make bench`, part 2: `opgen validate` against onnx.checker.check_model(full_check=True).

A generated ONNX model of 100 000 nodes (a chain alternating PRelu and Elu over [8, 16] float
tensors, every intermediate value declared in value_info, as exporters with shape information
write them) is written to a temporary folder; both tools read it from the file. The figure to
compare is the ratio opgen / checker (below 1: opgen is faster). A second model without value_info
shows the cost when opgen has to run onnx.shape_inference first.
"""
from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

NODES = 100_000
SHAPE = [8, 16]


def chain(nodes: int, declared: bool) -> onnx.ModelProto:
    f = TensorProto.FLOAT
    graph_nodes, value_info = [], []
    prev = "x"
    for k in range(nodes):
        out = f"v{k}"
        if k % 2 == 0:
            graph_nodes.append(helper.make_node("PRelu", [prev, "slope"], [out], name=f"prelu{k}"))
        else:
            graph_nodes.append(helper.make_node("Elu", [prev], [out], name=f"elu{k}", alpha=0.5))
        if declared and k < nodes - 1:
            value_info.append(helper.make_tensor_value_info(out, f, SHAPE))
        prev = out
    slope = numpy_helper.from_array(np.full(SHAPE[-1:], 0.25, np.float32), "slope")
    graph = helper.make_graph(graph_nodes, "chain", [helper.make_tensor_value_info("x", f, SHAPE)],
                              [helper.make_tensor_value_info(prev, f, SHAPE)], initializer=[slope],
                              value_info=value_info)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])


def hlir_chain(nodes: int) -> dict:
    """An hlir graph (JSON) of the same shape: Abs and Max alternating over [8, 16],
    every intermediate declared."""
    ops, values, prev = [], [], "x"
    for k in range(nodes):
        out = f"v{k}"
        if k % 2 == 0:
            ops.append({"name": f"abs{k}", "op": "Abs", "inputs": [prev], "outputs": [out]})
        else:
            ops.append({"name": f"max{k}", "op": "Max", "inputs": [prev, "y"], "outputs": [out]})
        values.append({"name": out, "dtype": "float", "shape": SHAPE})
        prev = out
    return {"format": "opgen-hlir-graph", "version": 1,
            "inputs": [{"name": "x", "dtype": "float", "shape": SHAPE}, {"name": "y", "dtype": "float", "shape": SHAPE}],
            "values": values[:-1], "outputs": [values[-1]], "nodes": ops}


def onednn_chain(nodes: int) -> dict:
    """oneDNN Graph JSON as oneDNN serializes it: a chain of PReLU ops (NCX, per channel) over
    [8, 16], every op describing its logical tensors in full."""
    def tensor(tid: int, shape: list[int], prop: str = "undef") -> dict:
        strides = [int(np.prod(shape[k + 1:])) for k in range(len(shape))]
        return {"id": tid, "dtype": "f32", "shape": shape, "stride": strides, "layout_type": "strided",
                "property_type": prop}

    ops = [{"id": k, "name": f"prelu{k}", "kind": "PReLU",
            "attrs": {"data_format": {"type": "string", "value": "NCX"},
                      "per_channel_broadcast": {"type": "bool", "value": 1}},
            "inputs": [tensor(k, SHAPE), tensor(nodes + 1, SHAPE[1:2], "constant")],
            "outputs": [tensor(k + 1, SHAPE)]} for k in range(nodes)]
    return {"version": "3.5.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": ops}


def median_times(fn, repeat: int) -> tuple[float, float]:
    """Median wall-clock and CPU seconds (CPU time is steadier on a shared machine)."""
    wall, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall), statistics.median(cpu)


def main(nodes: int = NODES, repeat: int = 5) -> None:
    from opgen.validate import validate_model

    with tempfile.TemporaryDirectory() as tmp:
        print(f"opgen validate vs onnx.checker.check_model(full_check=True), onnx {onnx.__version__}, "
              f"{nodes} nodes, median of {repeat}")
        print(f"{'model':<34}{'checker s':>10}{'opgen s':>9}{'ratio':>7}{'checker cpu':>13}{'opgen cpu':>11}"
              f"{'cpu ratio':>11}")
        times: dict[bool, tuple[float, float]] = {}
        for label, declared in (("value_info declared", True), ("no value_info (shape inference)", False)):
            path = Path(tmp) / f"chain_{declared}.onnx"
            onnx.save(chain(nodes, declared), path)
            report = validate_model(path)  # also warms imports and the registry
            assert report.valid and report.nodes == nodes, report.summary()
            onnx.checker.check_model(str(path), full_check=True)
            checker, checker_cpu = median_times(lambda: onnx.checker.check_model(str(path), full_check=True), repeat)
            ours, ours_cpu = median_times(lambda: validate_model(path), repeat)
            times[declared] = checker, checker_cpu
            print(f"{label:<34}{checker:>10.3f}{ours:>9.3f}{ours / checker:>7.2f}{checker_cpu:>13.3f}{ours_cpu:>11.3f}"
                  f"{ours_cpu / checker_cpu:>11.2f}")
        # The other formats have no checker of their own: their time per node is compared with the
        # checker's per node on the declared ONNX model (the same node count).
        import json

        reference, reference_cpu = times[True]
        for label, doc in (("hlir graph (JSON)", hlir_chain(nodes)), ("oneDNN graph (JSON)", onednn_chain(nodes))):
            path = Path(tmp) / f"{label.split()[0]}.json"
            path.write_text(json.dumps(doc))
            del doc
            report = validate_model(path)
            assert report.valid and report.nodes == nodes, report.to_text()[-2000:]
            ours, ours_cpu = median_times(lambda: validate_model(path), repeat)
            print(f"{label:<34}{reference:>10.3f}{ours:>9.3f}{ours / reference:>7.2f}{reference_cpu:>13.3f}"
                  f"{ours_cpu:>11.3f}{ours_cpu / reference_cpu:>11.2f}")
        print("ratio = opgen / checker (below 1: opgen is faster); hlir and oneDNN rows: against the checker "
              "on the declared ONNX model of as many nodes")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else NODES)
