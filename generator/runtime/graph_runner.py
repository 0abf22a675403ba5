"""Run a graph of opgen's graph model (opgen.graph: what the readers produce and `opgen validate` checks;
an hlir graph dict in the format of specs/schema/hlir-graph.schema.json is read into it first) node
by node with the generated reference kernels, and turn graphs into Python callables.

    >>> import opgen_ops  # the kernel resolver: where the nodes' kernels come from
    >>> add = GraphFunction({"inputs": [{"name": "p"}, {"name": "q"}], "outputs": [{"name": "r"}],
    ...                      "nodes": [{"op": "Add", "inputs": ["p", "q"], "outputs": ["r"]}]}, opgen_ops)
    >>> add(np.float32(1), np.float32(2))
    (array(3., dtype=float32),)

This is how the kernels with graph-valued attributes (Map's computation, If's branches, While's
condition and body, PartialReduce's comparator) accept a nested graph as well as a Python callable:
`as_callable(value, resolver=...)` returns a callable either way. A graph function takes the graph's inputs
positionally (arrays) and returns the tuple of its outputs.

Semantics of a run:
- values are named; the graph's inputs, then its constants, are defined first; each node reads values
  defined before it (in this graph or an enclosing one: a nested graph sees the values of the graph
  whose node holds it, as they are when that node runs) and defines its outputs;
- every node runs `resolver.get_kernel(domain, op, opset)` (the resolver is given by the caller; the
  kernels with graph attributes pass the generated package `opgen_ops`) with its inputs positionally ("" for an
  absent optional input is None), its attributes as keywords (`<name>_attr` for one named like an
  input) and its nested graphs as callables; an output whose dtype (or shape) the node must give (the
  kernel's `<output>_dtype` / `<output>_shape` keywords) takes it from the graph's declaration of that
  value (`values`/`outputs`);
- an argument must match the declared dtype and the known dimensions of its input (no conversion).
"""
from __future__ import annotations

import types
from typing import Any, Callable, Mapping, cast

import numpy as np

from ..dtypes import elem_of_numpy
from ..errors import OpgenError
from ..graph import UNKNOWN, Graph, Node
from . import graph_constants as constants
from .context import TensorInfo
from .run_plan import (KernelResolver, _Step, check_result, constant_step, node_label, op_plan, plan_step,
                       shared_step)
from .values import as_input, is_value

GRAPH_ATTRIBUTE_HINT = "a Python callable or an hlir graph (a dict with 'nodes')"


class GraphError(OpgenError, ValueError):
    """A graph that cannot run: an undefined value, an argument of the wrong type, a failing node."""


def _as_graph(graph: Graph | Mapping[str, Any], domain: str | None, opset: int | None) -> Graph:
    """The graph model of a graph given as the model (a reader's Graph) or as an hlir graph mapping."""
    if isinstance(graph, Graph):
        return graph
    if not isinstance(graph, Mapping) or not isinstance(graph.get("nodes"), list):
        raise GraphError(f"not an hlir graph: expected a mapping with a 'nodes' list, found {type(graph).__name__}")
    from ..validate.hlir_reader import graph_from_dict  # reading: imported when a graph is given as a dict
    from ..validate.limits import ModelReadError

    try:
        return graph_from_dict(dict(graph), domain or graph.get("domain", "hlir"),
                               opset if opset is not None else graph.get("opset"))
    except ModelReadError as exc:
        raise GraphError(str(exc)) from None


class GraphFunction:
    """A graph as a callable: `fn(*arrays) -> tuple of arrays` (the graph's outputs, in order). The
    graph is opgen's graph model (opgen.graph.Graph, as the readers produce it), or an hlir graph
    mapping, which is read into that model first."""

    def __init__(self, graph: Graph | Mapping[str, Any], resolver: KernelResolver, *, domain: str | None = None,
                 opset: int | None = None, outer: Mapping[str, Any] | None = None, elementwise: bool = False,
                 plans: dict[int, _Step] | None = None):
        self.graph = _as_graph(graph, domain, opset)
        # each node's _Step, by id(node); shared with the functions of the graph's nested graphs
        self._plans: dict[int, _Step] = plans if plans is not None else {}
        self.resolver = resolver
        self.outer = outer if outer is not None else {}
        # elementwise: a scalar graph applied to whole arrays at once (PartialReduce's comparator): the
        # declared shapes of its inputs are not checked, the dtypes are
        self.elementwise = elementwise
        self.input_names = list(self.graph.inputs)
        self.output_names = list(self.graph.outputs)

    def declared(self, name: str) -> TensorInfo:
        """What the graph declares about a value (dtype, shape; either may be unknown)."""
        return self.graph.values.get(name, UNKNOWN)

    @property
    def nodes(self) -> list[Node]:
        return self.graph.nodes

    def __repr__(self) -> str:
        name = self.graph.name or "graph"
        return f"GraphFunction({name}: ({', '.join(self.input_names)}) -> ({', '.join(self.output_names)}))"

    def __call__(self, *args: Any) -> tuple[np.ndarray, ...]:
        if len(args) != len(self.input_names):
            raise GraphError(f"{self!r} takes {len(self.input_names)} arguments, {len(args)} given")
        env = self.run(dict(zip(self.input_names, args)))
        return tuple(env[n] for n in self.output_names)

    def run(self, feeds: Mapping[str, Any], progress: Callable[[int], None] | None = None) -> dict[str, Any]:
        """Run the graph on named inputs; every value defined, by name. An input the graph also holds as
        a constant (an ONNX initializer listed among the inputs) may be left out: it has its constant's
        value. `progress(k)` is told after each node (k nodes run)."""
        env: dict[str, Any] = dict(self.outer)
        constants = set(self.graph.initializers)
        missing = [n for n in self.input_names if n not in feeds and n not in constants]
        if missing:
            raise GraphError(f"{self!r}: no value given for input(s) {', '.join(map(repr, missing))}")
        for name in self.graph.initializers:
            if name in feeds:  # an initializer listed among the inputs: the value given wins
                continue
            value = self.declared(name).value
            if value is None:
                raise GraphError(f"{self!r}: constant {name!r} has no value")
            env[name] = np.asarray(value)
        for name in self.input_names:
            if name in feeds:
                env[name] = self._checked(name, as_input(feeds[name]))
        for k, node in enumerate(self.graph.nodes):
            self._run(node, env)
            if progress is not None:
                progress(k + 1)
        missing = [n for n in self.output_names if n not in env]
        if missing:
            raise GraphError(f"{self!r}: output(s) {', '.join(map(repr, missing))} are never defined")
        return env

    def _checked(self, name: str, value: Any) -> Any:
        decl = self.declared(name)
        if is_value(value):  # a sequence or an optional: its type, when both sides state one
            if decl.dtype is not None and value.type is not None and value.type != decl.dtype:
                raise GraphError(f"argument {name!r} is a {value.type}, the graph declares {decl.dtype}")
            return value
        if decl.dtype is not None and elem_of_numpy(value.dtype) != decl.dtype:
            raise GraphError(f"argument {name!r} has dtype {elem_of_numpy(value.dtype)}, the graph declares "
                             f"{decl.dtype}")
        shape = None if self.elementwise else decl.shape
        if shape is not None and (len(shape) != value.ndim
                                  or any(d is not None and d != n for d, n in zip(shape, value.shape))):
            shown = ["?" if d is None else d for d in shape]
            raise GraphError(f"argument {name!r} has shape {list(value.shape)}, the graph declares {shown}")
        return value

    def _plan(self, node: Node) -> _Step:
        """What running the node needs that does not change between runs: its kernel and the keywords
        from its attributes and its outputs' declarations (a loop body runs its nodes many times)."""
        step = self._plans.get(id(node))
        if step is not None:
            return step
        try:
            plan = op_plan(self.resolver, node.domain, node.op, node.opset)
        except (LookupError, NotImplementedError) as exc:
            raise GraphError(f"{node_label(node)}: {exc}") from None
        if self._folded_by_check(node):
            # computed when the model was checked, by the same kernel (opgen.validate.folding): each run
            # hands out copies, as for a Constant (and the kernel's keywords are never needed)
            step = constant_step(node, plan, tuple(self.graph.values[name].value for name in node.outputs))
        else:
            # a generated package's kernels never change within a process: its steps are shared
            step = shared_step(node, plan, self.graph) if isinstance(self.resolver, types.ModuleType) else \
                plan_step(node, plan, self.graph)
            if step.onnx_constant and self._keeps_constants(node):
                known = constants.lookup(step.kernel, step.kwargs)
                if known is not None:  # the same keywords gave this value before: checked as a result is
                    for declaration in step.declared:
                        check_result(step.label, node.outputs[declaration.position], known, declaration.dtype,
                                     declaration.shape)
                    step = step._replace(constant=(known,))
        self._plans[id(node)] = step
        return step

    def _folded_by_check(self, node: Node) -> bool:
        """Whether the check computed every output of the node (values the file does not describe, which
        the check filled in: graph.inferred) from constants and static shapes alone: a Shape, Gather,
        Concat... of a shape computation, or a Constant. Such values are the same on every run (an
        input's static shape is checked against every argument), so the node does not run again."""
        inferred = self.graph.inferred
        if not inferred or node.graphs or not node.outputs:
            return False
        values = self.graph.values
        for name in node.outputs:
            info = values.get(name) if name in inferred else None
            if info is None or type(info.value) is not np.ndarray:
                return False
        return True

    def _keeps_constants(self, node: Node) -> bool:
        """Whether what this Constant node gives may be kept across graphs (constants.remember): one
        named output, no inputs or graphs, and a kernel of a generated package (another resolver's
        kernel may answer differently over time)."""
        return not node.inputs and not node.graphs and len(node.outputs) == 1 and bool(node.outputs[0]) \
            and isinstance(self.resolver, types.ModuleType)

    def _run(self, node: Node, env: dict[str, Any]) -> None:
        step = self._plan(node)
        if step.constant is not None:  # see _keep_constant
            for name, value in zip(node.outputs, step.constant):
                env[name] = value.copy()
            return
        try:
            args: list[Any] = [env[name] for name in step.inputs] if not step.absent_inputs else \
                [env[name] if name else None for name in step.inputs]
        except KeyError:
            missing = next(name for name in step.inputs if name and name not in env)
            raise GraphError(f"{step.label}: input {missing!r} is not defined before the node") from None
        while args and args[-1] is None:  # a value that is None at the end: left to the kernel's default
            args.pop()
        kwargs = step.kwargs
        if node.graphs:  # nested graphs see this graph's values as they are now
            kwargs = dict(kwargs)
            for name, sub in node.graphs.items():
                function = GraphFunction(sub, self.resolver, outer=env, plans=self._plans)
                base, bracket, position = name.partition("[")
                if bracket:  # graph j of a list-valued attribute (Case's branches[j]): kept in its list
                    listed = kwargs[base] = list(kwargs.get(base) or [])
                    listed[int(position.rstrip("]"))] = function
                else:
                    kwargs[name] = function
        try:
            results = step.kernel(*args, **kwargs)
        except GraphError:
            raise
        except Exception as exc:  # any kernel failure is reported with the node that raised it
            raise GraphError(f"{step.label}: {type(exc).__name__}: {exc}"
                             if not isinstance(exc, (ValueError, TypeError)) else f"{step.label}: {exc}") from exc
        if len(results) < step.n_outputs:
            raise GraphError(f"{step.label}: {len(node.outputs)} outputs named, the kernel returned {len(results)}")
        for name, value in zip(node.outputs, results):
            if name:
                env[name] = value
        for declaration in step.declared:
            value = results[declaration.position]
            if type(value) is not np.ndarray or value.dtype != declaration.numpy_dtype \
                    or value.shape != declaration.shape and declaration.shape is not None:
                # not the exact declaration (an unknown dimension, an undeclared type, another type):
                # the full check says whether it fits, and names what does not
                check_result(step.label, node.outputs[declaration.position], value, declaration.dtype,
                             declaration.shape)
        if step.onnx_constant:
            self._keep_constant(node, step, results)

    def _keep_constant(self, node: Node, step: _Step, results: Any) -> None:
        """Keep what an ONNX Constant node gave for the next runs of this graph (or of this loop body):
        its kernel has no inputs, so running (and validating) it again would give the same array. Each
        run then hands out its own copy, as the kernel does (a caller may change an output in place).
        A small value is also kept for the Constant nodes of graphs read later (runtime.graph_constants)."""
        if not node.inputs and not node.graphs and len(results) == len(node.outputs) == 1 and node.outputs[0] \
                and type(results[0]) is np.ndarray:
            kept = results[0].copy()
            self._plans[id(node)] = step._replace(constant=(kept,))
            if self._keeps_constants(node):
                constants.remember(step.kernel, step.kwargs, kept)


def as_callable(value: Any, what: str = "graph attribute", elementwise: bool = False,
                resolver: KernelResolver | Callable[[], KernelResolver] | None = None) -> Callable[..., Any]:
    """A graph-valued attribute as a callable: a callable itself, or a GraphFunction for a graph dict
    (`elementwise`: applied to whole arrays, see GraphFunction) whose nodes run the kernels of `resolver`
    (or of what a zero-argument `resolver` returns: asked only when the value is a graph)."""
    if isinstance(value, Graph) or isinstance(value, Mapping) and "nodes" in value:
        if resolver is None:
            raise TypeError(f"{what}: a graph needs a kernel resolver to run its nodes")
        if not hasattr(resolver, "get_kernel"):
            resolver = resolver()
        return GraphFunction(value, cast(KernelResolver, resolver), elementwise=elementwise)
    if callable(value):
        return value
    raise TypeError(f"{what}: expected {GRAPH_ATTRIBUTE_HINT}, found {type(value).__name__}")


def results(value: Any, what: str = "the computation") -> tuple[np.ndarray, ...]:
    """What a computation returned, as a tuple of arrays (an array or a scalar is a 1-tuple)."""
    if isinstance(value, (tuple, list)):
        return tuple(np.asarray(v) for v in value)
    if value is None:
        raise ValueError(f"{what} returned None")
    return (np.asarray(value),)
