"""`opgen.run_model` and `opgen run`: run a whole model on the generated reference kernels.

A model flows the one way every model does (opgen.graph): read -> Graph -> check -> run. The model is
read once and validated (`opgen validate`'s checks: a problem stops the run before any node runs),
then the same graph runs node by node in topological order through `opgen_ops.get_kernel`; each
kernel validates its node's actual inputs again as it runs. Initializers and Constant nodes, nested
graphs (If/Loop/Scan bodies, which see the values of the graphs around them) and model-local
functions (inlined first with onnx.inliner, as onnxruntime does) are all handled.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from .errors import OpgenError
from .runtime.graph_runner import GraphError, GraphFunction
from .runtime.values import OptionalValue, SequenceValue


class ModelError(OpgenError, ValueError):
    """A model that may not run: it cannot be read, `opgen validate` finds problems in it, or the
    inputs given do not fit it. `problems` lists what validation found (empty otherwise)."""

    def __init__(self, message: str, problems: list[Any] | None = None):
        self.problems = problems or []
        super().__init__(message)


def _onnx_model(model: Any) -> Any:
    """The ModelProto of an ONNX model given as a path, bytes or a ModelProto (None for other kinds),
    its model-local functions inlined (their nodes then run like any other)."""
    import onnx

    from .validate.limits import DEFAULT_LIMITS
    from .validate.onnx_reader import load_model

    if isinstance(model, (str, Path)) and Path(model).suffix.lower() != ".onnx":
        return None
    if not isinstance(model, (str, Path, bytes, bytearray, memoryview, onnx.ModelProto)):
        return None
    proto = load_model(model, DEFAULT_LIMITS)
    if proto.functions:
        import onnx.inliner

        proto = onnx.inliner.inline_local_functions(proto)
    return proto


def _feed(name: str, value: Any, declared: str | None) -> Any:
    """An input value as the runner holds it: a list for a sequence input becomes a SequenceValue, a
    value (or None) for an optional input an OptionalValue; anything else an array."""
    if declared is not None and declared.startswith("seq(") and not isinstance(value, SequenceValue):
        if not isinstance(value, (list, tuple)):
            raise ModelError(f"input {name!r} is a {declared}: give a list of arrays, not {type(value).__name__}")
        return SequenceValue(value, declared[4:-1])
    if declared is not None and declared.startswith("optional(") and not isinstance(value, OptionalValue):
        inner = declared[9:-1]
        if value is not None and inner.startswith("seq("):
            value = SequenceValue(value, inner[4:-1])
        return OptionalValue(value, inner)
    return value if isinstance(value, (SequenceValue, OptionalValue)) else np.asarray(value)


def run_model(model: Any, inputs: Mapping[str, Any] | None = None, *, check: bool = True,
              specs: str | None = None, progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Run a model on named inputs; its outputs by name (arrays; a sequence output is a SequenceValue,
    an optional one an OptionalValue).

    model: a path (.onnx, or an hlir graph / oneDNN Graph file), an onnx.ModelProto or its bytes.
    check: validate the model first (ModelError listing the problems if it is not valid).
    progress(done, total) is told after each node of the main graph.
    Raises ModelError when the model may not run, GraphError naming the node when a kernel fails.
    """
    import opgen_ops

    from .validate.api import check_and_read
    from .validate.limits import ModelReadError

    inputs = dict(inputs or {})
    try:
        proto = _onnx_model(model)
        report, graph = check_and_read(proto if proto is not None else model, specs=specs)
    except ModelReadError as exc:
        raise ModelError(f"cannot read the model: {exc}") from None
    if check and report.problems:
        shown = "\n".join(f"  {r}" for r in report.problems[:20])
        more = f"\n  ... and {len(report.problems) - 20} more" if len(report.problems) > 20 else ""
        raise ModelError(f"the model is not valid ({len(report.problems)} problem(s)); it was not run:\n"
                         f"{shown}{more}", report.problems)
    unknown = sorted(set(inputs) - set(graph.inputs))
    if unknown:
        raise ModelError(f"the model has no input(s) {', '.join(map(repr, unknown))}; its inputs: "
                         f"{', '.join(map(repr, graph.inputs)) or 'none'}")
    feeds = {name: _feed(name, value, graph.values[name].dtype if name in graph.values else None)
             for name, value in inputs.items()}
    function = GraphFunction(graph, opgen_ops)
    total = len(graph.nodes)
    env = function.run(feeds, None if progress is None else (lambda done: progress(done, total)))
    return {name: env[name] for name in graph.outputs}


def terminal_progress(stream: Any = None) -> Callable[[int, int], None] | None:
    """A progress bar on stderr when it is a terminal (None otherwise): `done/total nodes`."""
    stream = stream or sys.stderr
    if not getattr(stream, "isatty", lambda: False)():
        return None

    def show(done: int, total: int) -> None:
        if total < 50 or (done % max(1, total // 100) and done != total):
            return  # short models run too fast to need a bar; long ones redraw about 100 times
        width = 30
        filled = width * done // total
        stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} nodes")
        if done == total:
            stream.write("\n")
        stream.flush()

    return show


__all__ = ["run_model", "ModelError", "GraphError", "SequenceValue", "OptionalValue", "terminal_progress"]
