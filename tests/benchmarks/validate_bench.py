"""`make bench`, part 2: `opgen validate` against onnx.checker.check_model(full_check=True).

A generated ONNX model of 100 000 nodes (a chain alternating PRelu and Elu over [8, 16] float
tensors, every intermediate value declared in value_info, as exporters with shape information
write them) is written to a temporary folder; both tools read it from the file. The figure to
compare is the ratio opgen / checker (below 1: opgen is faster). A second model without value_info
shows the cost when opgen has to run onnx.shape_inference first; hlir and oneDNN chains of as many
nodes are compared with the checker per node.

The fixed cost: a few hundred nodes of real CNN blocks with tiny weights (exported by torch), in
process and as whole CLI processes (imports included). Memory: the peak RSS of `opgen validate` and
of the checker, each in a fresh interpreter, on a model with ~105 MB of weights. Both sides are timed
in alternation (timing.paired_times) by CPU time, steadier than wall time on a shared machine.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(Path(__file__).parent))
from timing import children_cpu, flag, paired_times, with_bytecode_cache  # noqa: E402

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


def resnet_blocks(blocks: int = 40) -> onnx.ModelProto:
    """A real CNN of a few hundred nodes with tiny weights: torchvision-style residual blocks (Conv,
    BatchNormalization, Relu, Add; tests/torch_nets.py) stacked, exported by torch.onnx.export. The
    exporter writes no value_info: opgen completes the model with onnx.shape_inference first."""
    import io
    import warnings

    import torch

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from torch_nets import ResBlock

    nn = torch.nn
    net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), *[ResBlock(8) for _ in range(blocks)],
                        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 10)).eval()
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(net, (torch.zeros(1, 3, 16, 16),), buf, opset_version=17, dynamo=False)
    return onnx.load_from_string(buf.getvalue())


def big_weights(size: int = 2560, layers: int = 4) -> onnx.ModelProto:
    """~105 MB of weights in a few initializers (MatMul, Add, Relu layers), no value_info."""
    f = TensorProto.FLOAT
    nodes, inits, prev = [], [], "x"
    rng = np.random.default_rng(0)
    for k in range(layers):
        inits += [numpy_helper.from_array(rng.standard_normal((size, size), dtype=np.float32), f"w{k}"),
                  numpy_helper.from_array(np.zeros(size, np.float32), f"b{k}")]
        nodes += [helper.make_node("MatMul", [prev, f"w{k}"], [f"m{k}"]),
                  helper.make_node("Add", [f"m{k}", f"b{k}"], [f"a{k}"]), helper.make_node("Relu", [f"a{k}"], [f"r{k}"])]
        prev = f"r{k}"
    graph = helper.make_graph(nodes, "big", [helper.make_tensor_value_info("x", f, [1, size])],
                              [helper.make_tensor_value_info(prev, f, [1, size])], initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def run_quietly(cmd: list[str], env: dict[str, str] | None = None) -> None:
    subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)


def peak_rss_mb(cmd: list[str]) -> float:
    """Peak RSS (MB) of a command, run by a small interpreter that reports its child's ru_maxrss (Linux
    counts the memory of the process that forks and execs into a child's peak: this bench holds the model
    it built, a small wrapper does not)."""
    wrapper = ("import resource, subprocess, sys\n"
               "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", wrapper, *cmd], check=True, capture_output=True, text=True).stdout
    return int(out.strip().splitlines()[-1]) / 1024


def row(label: str, checker: float, ours: float, unit: str = "s") -> None:
    digits = 1 if unit == "MB" or unit == "ms" else 3
    print(f"{label:<44}{checker:>11.{digits}f}{ours:>11.{digits}f}{ours / checker:>8.2f}  {unit}{flag(ours / checker)}")


def main(nodes: int = NODES, repeat: int = 5) -> None:
    from opgen.validate import validate_model

    with tempfile.TemporaryDirectory() as tmp:
        print(f"opgen validate vs onnx.checker.check_model(full_check=True), onnx {onnx.__version__}; CPU time "
              f"(process_time) of both timed in alternation, best of {repeat}; load {os.getloadavg()[0]:.1f}")
        print(f"{'model':<44}{'checker':>11}{'opgen':>11}{'ratio':>8}")
        reference = 0.0
        for label, declared in (("value_info declared", True), ("no value_info (shape inference)", False)):
            path = Path(tmp) / f"chain_{declared}.onnx"
            onnx.save(chain(nodes, declared), path)
            report = validate_model(path)  # also warms imports and the registry
            assert report.valid and report.nodes == nodes, report.summary()
            ours, checker = paired_times(lambda: validate_model(path),
                                         lambda: onnx.checker.check_model(str(path), full_check=True),
                                         repeat=repeat, clock=time.process_time)
            reference = reference or checker
            row(f"{nodes} nodes, {label}", checker, ours)
        # The other formats have no checker of their own: their time per node is compared with the
        # checker's per node on the declared ONNX model (the same node count).
        for label, doc in (("hlir graph (JSON)", hlir_chain(nodes)), ("oneDNN graph (JSON)", onednn_chain(nodes))):
            path = Path(tmp) / f"{label.split()[0]}.json"
            path.write_text(json.dumps(doc))
            del doc
            report = validate_model(path)
            assert report.valid and report.nodes == nodes, report.to_text()[-2000:]
            onnx_path = Path(tmp) / "chain_True.onnx"
            ours, checker = paired_times(lambda: validate_model(path),
                                         lambda: onnx.checker.check_model(str(onnx_path), full_check=True),
                                         repeat=repeat, clock=time.process_time)
            row(f"{nodes} nodes, {label} vs ONNX declared", checker, ours)

        small = Path(tmp) / "resnet_blocks.onnx"
        model = resnet_blocks()
        onnx.save(model, small)
        count = len(model.graph.node)
        assert validate_model(small).valid
        ours, checker = paired_times(lambda: validate_model(small),
                                     lambda: onnx.checker.check_model(str(small), full_check=True),
                                     repeat=30, clock=time.process_time)
        row(f"{count}-node ResNet blocks, in-process", checker * 1000, ours * 1000, "ms")
        opgen_cmd = [str(Path(sys.executable).with_name("opgen")), "validate", str(small)]
        checker_cmd = [sys.executable, "-c", f"import onnx; onnx.checker.check_model({str(small)!r}, full_check=True)"]
        ours, checker = paired_times(lambda: run_quietly(opgen_cmd), lambda: run_quietly(checker_cmd),
                                     repeat=repeat, clock=children_cpu)
        row(f"{count}-node ResNet blocks, CLI process", checker, ours)
        if os.environ.get("PYTHONDONTWRITEBYTECODE"):
            cached = with_bytecode_cache(Path(tmp) / "pycache")
            ours, checker = paired_times(lambda: run_quietly(opgen_cmd, cached),
                                         lambda: run_quietly(checker_cmd, cached), repeat=repeat, clock=children_cpu)
            row(f"{count}-node ResNet blocks, CLI, bytecode cached", checker, ours)

        big = Path(tmp) / "big_weights.onnx"
        onnx.save(big_weights(), big)
        mb = big.stat().st_size / 2**20
        checker_cmd = [sys.executable, "-c", f"import onnx; onnx.checker.check_model({str(big)!r}, full_check=True)"]
        opgen_cmd = [str(Path(sys.executable).with_name("opgen")), "validate", str(big)]
        row(f"{mb:.0f} MB of weights, peak RSS of the process", peak_rss_mb(checker_cmd), peak_rss_mb(opgen_cmd), "MB")
        print("ratio = opgen / checker (below 1: opgen is better); the hlir and oneDNN rows: against the checker "
              "on the declared ONNX model of as many nodes; CLI rows: whole processes, imports included")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else NODES)
