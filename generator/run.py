"""`opgen.run_model` and `opgen run`: run a whole model on the generated reference kernels.

A model flows the one way every model does (opgen.graph): read -> Graph -> check -> run. The model is
read once and validated (`opgen validate`'s checks: a problem stops the run before any node runs),
then the same graph runs node by node in topological order through `opgen_ops.get_kernel`; each
kernel validates its node's actual inputs again as it runs (the nodes whose outputs the check computed
from static shapes and constants, opgen.validate.folding, hand out those values). Initializers and
Constant nodes, nested graphs (If/Loop/Scan bodies, which see the values of the graphs around them)
and model-local functions (inlined first with onnx.inliner, as onnxruntime does) are all handled.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np

from .errors import OpgenError
from .runtime.graph_runner import GraphError, GraphFunction
from .runtime.values import OptionalValue, SequenceValue, writable


class ModelError(OpgenError, ValueError):
    """A model that may not run: it cannot be read, `opgen validate` finds problems in it, or the
    inputs given do not fit it. `problems` lists what validation found (empty otherwise);
    `exit_code` is what `opgen run` exits with (1: an invalid model, 2: unreadable, or bad inputs)."""

    def __init__(self, message: str, problems: list[Any] | None = None):
        self.problems = problems or []
        self.exit_code = 1 if self.problems else 2
        super().__init__(message)


def _describe(graph: Any, name: str) -> str:
    info = graph.values.get(name)
    if info is None or info.dtype is None:
        return name
    shape = "" if info.shape is None else "[" + ", ".join("?" if d is None else str(d) for d in info.shape) + "]"
    return f"{name} ({info.dtype}{shape})"


def _onnx_model(model: Any) -> Any:
    """The ModelProto of an ONNX model given as a path, bytes or a ModelProto (None for other kinds),
    its model-local functions inlined (their nodes then run like any other)."""
    if isinstance(model, (str, Path)) and Path(model).suffix.lower() != ".onnx":
        return None
    import onnx

    from .validate.limits import DEFAULT_LIMITS
    from .validate.onnx_reader import load_model

    if isinstance(model, (bytes, bytearray)):
        from .validate.stablehlo_reader import is_stablehlo

        if is_stablehlo(bytes(model)):
            return None
    if not isinstance(model, (str, Path, bytes, bytearray, memoryview, onnx.ModelProto)):
        return None
    proto = load_model(model, DEFAULT_LIMITS)
    external = next(_external_tensors(proto.graph), None)
    if external is not None:
        _load_external_data(proto, model, external)
    if proto.functions:
        import onnx.inliner

        proto = onnx.inliner.inline_local_functions(proto)
    return proto


def _external_tensors(graph: Any) -> Iterator[Any]:
    """The tensors of a graph (initializers, tensor attributes, nested graphs) whose data is in another
    file, as onnx.save(..., save_as_external_data=True) writes the weights of a large model."""
    from onnx import AttributeProto, TensorProto

    external = TensorProto.EXTERNAL
    for tensor in graph.initializer:
        if tensor.data_location == external:
            yield tensor
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == AttributeProto.TENSOR and attr.t.data_location == external:
                yield attr.t
            elif attr.type == AttributeProto.TENSORS:
                yield from (t for t in attr.tensors if t.data_location == external)
            elif attr.type == AttributeProto.GRAPH:
                yield from _external_tensors(attr.g)
            elif attr.type == AttributeProto.GRAPHS:
                for sub in attr.graphs:
                    yield from _external_tensors(sub)


def _load_external_data(proto: Any, model: Any, first: Any) -> None:
    """Read the external data of a model given by its path, from files beside it. onnx's loader refuses
    what is not a regular file inside the model's folder (a path leading out of it, a link, a named pipe)
    and data beyond a file's end; each refusal is a ModelError here, not a traceback."""
    from onnx.checker import ValidationError
    from onnx.external_data_helper import load_external_data_for_model

    if not isinstance(model, (str, Path)):  # bytes or a ModelProto: no folder to find the files in
        where = next((entry.value for entry in first.external_data if entry.key == "location"), "")
        raise ModelError(f"tensor {first.name!r} keeps its data in the external file {where!r}; give the model "
                         "by its path, so that the file is found beside it")
    folder = Path(model).resolve().parent
    for tensor in _external_tensors(proto.graph):  # onnx's own message for a missing file says "not regular file"
        where = next((entry.value for entry in tensor.external_data if entry.key == "location"), "")
        if not os.path.lexists(folder / where):
            raise ModelError(f"cannot read the model's external data: tensor {tensor.name!r} keeps its data in "
                             f"{where!r}, which is not in the model's folder {str(folder)!r}")
    try:
        load_external_data_for_model(proto, str(folder))
    except (OSError, ValueError, ValidationError) as exc:
        raise ModelError(f"cannot read the model's external data: {exc}") from None


def _input_defaults(proto: Any, input_names: list[str], given: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """The initializers of inputs not given (ONNX lets an initializer be an input's default value)."""
    from onnx import numpy_helper

    wanted = set(input_names) - set(given)
    if not wanted:  # every input given: no initializer to look through
        return {}
    return {t.name: numpy_helper.to_array(t) for t in proto.graph.initializer if t.name in wanted}


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


def run_model(model: Any, inputs: Mapping[str, Any] | Sequence[Any] | None = None, *, check: bool = True,
              specs: str | None = None, progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Run a model on named inputs; its outputs by name, in the model's order (arrays; a sequence
    output is a SequenceValue, an optional one an OptionalValue).

    model: a path (.onnx, an hlir graph / oneDNN Graph file, a StableHLO program .mlir/.mlirbc), an
    onnx.ModelProto or its bytes (or a StableHLO program's bytes).
    inputs: by name, or a list or tuple in the order of the model's inputs (a StableHLO program's
    arguments: arg0, arg1, ...).
    check: validate the model first (ModelError listing the problems if it is not valid).
    progress(done, total) is told after each node of the main graph.
    Raises ModelError when the model may not run, GraphError naming the node when a kernel fails.
    """
    import opgen_ops

    from .validate.api import check_and_read
    from .validate.limits import ModelReadError

    try:
        proto = _onnx_model(model)
        report, graph = check_and_read(proto if proto is not None else model, specs=specs)
    except ModelReadError as exc:
        raise ModelError(f"cannot read the model: {exc}") from None
    inputs = _named_inputs(inputs, graph.inputs)
    if check and report.problems:
        shown = "\n".join(f"  {r}" for r in report.problems[:20])
        more = f"\n  ... and {len(report.problems) - 20} more" if len(report.problems) > 20 else ""
        raise ModelError(f"the model is not valid ({len(report.problems)} problem(s)); it was not run:\n"
                         f"{shown}{more}", report.problems)
    unknown = sorted(set(inputs) - set(graph.inputs))
    if unknown:
        raise ModelError(f"the model has no input(s) {', '.join(map(repr, unknown))}; its inputs: "
                         f"{', '.join(map(repr, graph.inputs)) or 'none'}")
    if proto is not None:  # initializers listed among the inputs are defaults the reader leaves unvalued
        inputs = {**_input_defaults(proto, graph.inputs, inputs), **inputs}
    missing = [n for n in graph.inputs if n not in inputs and n not in set(graph.initializers)]
    if missing:
        raise ModelError(f"no value given for input(s) {', '.join(_describe(graph, n) for n in missing)}")
    feeds = {name: _feed(name, value, graph.values[name].dtype if name in graph.values else None)
             for name, value in inputs.items()}
    function = GraphFunction(graph, opgen_ops)
    total = len(graph.nodes)
    env = function.run(feeds, None if progress is None else (lambda done: progress(done, total)))
    # a split part, a slice, a transposition or a reshape is a read-only view (data_movement's rule): the user
    # gets a writable array of its own
    return {name: writable(env[name]) for name in graph.outputs}


def forget_models() -> None:
    """Drop what earlier models left for later ones within this process: the checker's verdicts
    (opgen.validate.verdicts), the ONNX reader's shared types and attributes and the runner's shared
    steps. The next model is then read, checked and planned from nothing, as a first model is (what
    `make bench` times as "first sight"); the kernels' own argument memo is kept."""
    from .runtime.run_plan import forget_steps
    from .validate import onnx_model
    from .validate.registry import make_registry

    make_registry(None).verdict_memo = None
    onnx_model.SHARED_READINGS.clear()
    forget_steps()


def _named_inputs(inputs: Mapping[str, Any] | Sequence[Any] | None, names: list[str]) -> dict[str, Any]:
    """Inputs by name; a list or tuple is taken in the order of the graph's inputs."""
    if inputs is None:
        return {}
    if type(inputs) is dict or isinstance(inputs, Mapping):  # a dict first: typing's isinstance costs more
        # a oneDNN graph's inputs are logical tensors, named by their integer id: 3 and "3" both name one
        return {str(k) if isinstance(k, int) and not isinstance(k, bool) else k: v for k, v in inputs.items()}
    if isinstance(inputs, (list, tuple)):
        if len(inputs) > len(names):
            raise ModelError(f"{len(inputs)} inputs given by position; the model has {len(names)}: "
                             f"{', '.join(map(repr, names)) or 'none'}")
        return dict(zip(names, inputs))
    raise ModelError(f"inputs must be a mapping of names to values or a list in input order, not "
                     f"{type(inputs).__name__}")


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


__all__ = ["run_model", "forget_models", "ModelError", "GraphError", "SequenceValue", "OptionalValue",
           "terminal_progress"]
