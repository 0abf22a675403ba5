"""`make bench`, whole models: the models exported from torch (tests/torch_nets.py) run through
`opgen.run_model`, onnx.reference.ReferenceEvaluator and onnxruntime, on the same inputs.

Prints one row per model, two comparisons with ReferenceEvaluator (the goal: <= 1.0 on every model):
end to end (opgen.run_model reads, validates and runs the model; ReferenceEvaluator is constructed and
run) and prepared (a GraphFunction over the graph read once, against one evaluator's run: what repeated
calls on one model cost), and the prepared run against onnxruntime's session.run. Each pair is timed
in alternation (timing.paired_times: both sides see the same load on a shared machine), best of
`repeat` rounds (the first argument), in CPU time (time.process_time: on a machine loaded beyond its
cores, wall time mostly measures the waits for a core; `wall` as the second argument times wall clock);
the machine's load average is printed with the table. Within a process, run_model keeps what each
node's reading, check and plan found for the next model of the same uses (a model run again finds its
answers by lookups): "first sight" times run_model with those shared answers dropped before each call
(opgen.run.forget_models), as a model of uses the process has not seen costs.

A second table times what a one-shot user pays: a whole new Python process that runs the model once
from its file (`opgen.run_model(path, inputs)` against `ReferenceEvaluator(path).run`), imports
included, with the bytecode cache on (as for installed packages); CPU time of the child processes,
in alternation, best of `repeat // 3` (at least 3) rounds; and each process's own part, timed by the
process itself after the imports both sides share.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import onnx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(Path(__file__).parent))

import onnxruntime as ort  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402
from timing import best_time, children_cpu, flag, paired_times, with_bytecode_cache  # noqa: E402
from torch_nets import ARCHITECTURES, example_inputs, export  # noqa: E402

import opgen  # noqa: E402
import opgen_ops  # noqa: E402
from opgen.run import forget_models  # noqa: E402
from opgen.runtime.graph_runner import GraphFunction  # noqa: E402
from opgen.validate import read_model  # noqa: E402


def main(repeat: int = 15, clock_name: str = "cpu") -> None:
    clock = time.perf_counter if clock_name == "wall" else time.process_time
    warnings.simplefilter("ignore")
    print("end to end: opgen.run_model (read, validate, run) against ReferenceEvaluator(model).run (construct, run);")
    print("prepared: a GraphFunction over the graph read once against one ReferenceEvaluator's run;")
    print(f"each pair timed in alternation, best of {repeat}, {clock_name} time; load average {_load()}")
    print(f"{'model':<12} {'nodes':>5} {'run_model':>10} {'ref e2e':>9} {'ratio':>6} | {'1st sight':>9} "
          f"{'ratio':>6} | {'prepared':>9} {'ref run':>9} {'ratio':>6} | {'ort run':>8} {'prep/ort':>8}")
    worst_e2e = worst_prepared = worst_first = 0.0
    for name in ARCHITECTURES:
        model = export(name, 17)
        feeds = example_inputs(name)
        graph, _ = read_model(model)
        function = GraphFunction(graph, opgen_ops)
        reference = ReferenceEvaluator(model)
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        t_e2e, t_ref_e2e = paired_times(lambda: opgen.run_model(model, feeds),
                                        lambda: ReferenceEvaluator(model).run(None, feeds), repeat, clock=clock)
        t_first, t_ref_first = paired_times(lambda: (forget_models(), opgen.run_model(model, feeds)),
                                            lambda: ReferenceEvaluator(model).run(None, feeds), repeat, clock=clock)
        t_run, t_ref = paired_times(lambda: function.run(feeds), lambda: reference.run(None, feeds), repeat,
                                    clock=clock)
        # onnxruntime runs its kernels on a thread pool: wall time, for its own column only
        t_ort = best_time(lambda: session.run(None, feeds), repeat)
        worst_e2e, worst_prepared = max(worst_e2e, t_e2e / t_ref_e2e), max(worst_prepared, t_run / t_ref)
        worst_first = max(worst_first, t_first / t_ref_first)
        print(f"{name:<12} {len(model.graph.node):>5} {t_e2e * 1e3:>8.2f}ms {t_ref_e2e * 1e3:>7.2f}ms "
              f"{t_e2e / t_ref_e2e:>6.2f} | {t_first * 1e3:>7.2f}ms {t_first / t_ref_first:>6.2f} | {t_run * 1e3:>7.2f}ms {t_ref * 1e3:>7.2f}ms {t_run / t_ref:>6.2f} | "
              f"{t_ort * 1e3:>6.2f}ms {t_run / t_ort:>8.1f}{flag(max(t_e2e / t_ref_e2e, t_run / t_ref))}")
    print(f"worst ratio to ReferenceEvaluator: end to end {worst_e2e:.2f}, prepared {worst_prepared:.2f} (goal <= 1.0); "
          f"first sight {worst_first:.2f}")
    one_shot(max(3, repeat // 3))


# What each side's one-shot process runs: the model file and the inputs (.npz) are its arguments. Each
# prints the CPU time of its own part: after the imports both sides share (numpy, onnx) and the inputs'
# loading, its own imports and the run.
_OPGEN_ONCE = ("import sys, time, numpy, onnx; feeds = dict(numpy.load(sys.argv[2])); start = time.process_time(); "
               "import opgen; opgen.run_model(sys.argv[1], feeds); print(time.process_time() - start)")
_REFERENCE_ONCE = ("import sys, time, warnings, numpy, onnx; warnings.simplefilter('ignore'); "
                   "feeds = dict(numpy.load(sys.argv[2])); start = time.process_time(); "
                   "from onnx.reference import ReferenceEvaluator; ReferenceEvaluator(sys.argv[1]).run(None, feeds); "
                   "print(time.process_time() - start)")


def one_shot(repeat: int) -> None:
    """Each model run once by a new process per side (see the module's docstring): the whole process's
    CPU time, and the part that differs between the sides (the shared imports vary by more than the
    difference on a loaded machine)."""
    print(f"\none shot: a new process runs the model once from its file, imports included (bytecode cached); "
          f"CPU time, in alternation, best of {repeat}; load average {_load()}")
    print("own part: the process after the imports both sides share (numpy, onnx) and the inputs' loading")
    print(f"{'model':<12} {'opgen':>8} {'reference':>10} {'ratio':>6} | {'own part':>8} {'reference':>10} {'ratio':>6}")
    worst = worst_own = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        env = with_bytecode_cache(Path(tmp) / "pycache")
        for name in ARCHITECTURES:
            model_path, inputs_path = Path(tmp) / f"{name}.onnx", Path(tmp) / f"{name}.npz"
            onnx.save(export(name, 17), model_path)
            np.savez(inputs_path, **example_inputs(name))
            whole: dict[str, list[float]] = {_OPGEN_ONCE: [], _REFERENCE_ONCE: []}
            own: dict[str, list[float]] = {_OPGEN_ONCE: [], _REFERENCE_ONCE: []}
            for round_ in range(repeat + 1):  # the first round writes the bytecode cache: not counted
                for script in (_OPGEN_ONCE, _REFERENCE_ONCE):
                    before = children_cpu()
                    out = subprocess.run([sys.executable, "-c", script, str(model_path), str(inputs_path)],
                                         check=True, env=env, capture_output=True, text=True).stdout
                    if round_:
                        whole[script].append(children_cpu() - before)
                        own[script].append(float(out.split()[-1]))
            ours, reference = min(whole[_OPGEN_ONCE]), min(whole[_REFERENCE_ONCE])
            ours_own, reference_own = min(own[_OPGEN_ONCE]), min(own[_REFERENCE_ONCE])
            worst, worst_own = max(worst, ours / reference), max(worst_own, ours_own / reference_own)
            print(f"{name:<12} {ours:>7.3f}s {reference:>9.3f}s {ours / reference:>6.2f} | {ours_own:>7.3f}s "
                  f"{reference_own:>9.3f}s {ours_own / reference_own:>6.2f}{flag(ours / reference)}")
    print(f"worst one-shot ratio to ReferenceEvaluator: whole process {worst:.2f}, own part {worst_own:.2f} "
          "(goal <= 1.0)")


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # not every platform reports it
        return "unknown"


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15, sys.argv[2] if len(sys.argv) > 2 else "cpu")
