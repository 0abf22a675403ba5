"""`make bench`, whole models: the models exported from torch (tests/torch_nets.py) run through
`opgen.run_model`, onnx.reference.ReferenceEvaluator and onnxruntime, on the same inputs.

Prints one row per model: median seconds of each and the ratios opgen / ReferenceEvaluator (the goal:
<= 1.0 on every model) and opgen / onnxruntime. opgen's time includes reading and validating the model
(run_model always checks first), so it is also shown without that: `opgen run-only` is a GraphFunction
over the graph already read, which is what repeated calls on one model cost.
"""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(Path(__file__).parent))

import onnxruntime as ort  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402
from timing import median_time  # noqa: E402
from torch_nets import ARCHITECTURES, example_inputs, export  # noqa: E402

import opgen  # noqa: E402
import opgen_ops  # noqa: E402
from opgen.runtime.graph_runner import GraphFunction  # noqa: E402
from opgen.validate import read_model  # noqa: E402


def main() -> None:
    warnings.simplefilter("ignore")
    print(f"{'model':<12} {'nodes':>5} {'opgen':>9} {'run-only':>9} {'ref.eval':>9} {'ort':>9} "
          f"{'opgen/ref':>9} {'run-only/ref':>12} {'opgen/ort':>9}")
    worst = 0.0
    for name in ARCHITECTURES:
        model = export(name, 17)
        feeds = example_inputs(name)
        data = model.SerializeToString()
        graph, _ = read_model(model)
        function = GraphFunction(graph, opgen_ops)
        reference = ReferenceEvaluator(model)
        session = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
        t_opgen = median_time(lambda: opgen.run_model(model, feeds))
        t_run = median_time(lambda: function.run(feeds))
        t_ref = median_time(lambda: reference.run(None, feeds))
        t_ort = median_time(lambda: session.run(None, feeds))
        worst = max(worst, t_opgen / t_ref)
        print(f"{name:<12} {len(model.graph.node):>5} {t_opgen * 1e3:>7.2f}ms {t_run * 1e3:>7.2f}ms "
              f"{t_ref * 1e3:>7.2f}ms {t_ort * 1e3:>7.2f}ms {t_opgen / t_ref:>9.2f} {t_run / t_ref:>12.2f} "
              f"{t_opgen / t_ort:>9.1f}")
    print(f"worst opgen / ReferenceEvaluator: {worst:.2f} (goal <= 1.0)")


if __name__ == "__main__":
    main()
