"""The graph runner's plans: what running a node needs that does not change between its runs, worked
out once (opgen.runtime.graph_runner runs them).

Two levels: an op plan (_OpPlan: the kernel, its signature and which keywords it takes) is the same
for every node of one op version and is kept per process; a step (_Step: the kernel's keywords from
the node's attributes and its outputs' declarations, the inputs it reads, the declarations its
results are checked against) belongs to one node and is kept by the graph function that runs it.
Each `opgen.run_model` call reads the model anew, so every node is planned once per call: planning
is on the path of every model run, and is kept lean (no string formatting unless a node fails). What a
step holds besides the node's own names (its keywords, its outputs' declarations) depends only on the
kernel, the attributes (a reader's attr_key: their exact serialization) and the declarations of its
outputs: shared_step keeps it per process, so the next reading of a model (or another model of the
same uses) plans each node by a lookup.
"""
from __future__ import annotations

import functools
import inspect
import types
from typing import Any, Callable, NamedTuple, Protocol

import numpy as np

from ..dtypes import ELEM_TYPES, elem_of_numpy
from ..graph import UNKNOWN, Graph, Node, small_key
from ..names import ATTRIBUTE_CLASH_SUFFIX
from .context import TensorInfo


class KernelResolver(Protocol):
    """Where a graph's nodes find their kernels and signatures: the generated package `opgen_ops` is one.
    Injected, not imported here: the generated package imports this runtime, not the other way round."""

    def get_kernel(self, domain: str, op: str, opset: int | None = None) -> Callable[..., Any]: ...

    def get_signature(self, domain: str, op: str, opset: int | None = None) -> Any: ...


def node_label(node: Node) -> str:
    """A node as the runner's errors name it: its name (or position) and its op."""
    return f"node {node.name or '#' + str(node.index)} ({node.domain}.{node.op})"


@functools.lru_cache(maxsize=4096)
def _keywords(kernel: Callable[..., Any]) -> frozenset[str]:
    try:
        return frozenset(inspect.signature(kernel).parameters)
    except (TypeError, ValueError):
        return frozenset()


class _OpPlan(NamedTuple):
    """What every node of one op version shares, worked out once per process (see op_plan)."""
    kernel: Callable[..., Any]
    signature: Any
    input_names: frozenset[str]  # an attribute of one of these names is the keyword <name>_attr
    # per output parameter: its <output>_dtype and <output>_shape keywords (None where the kernel takes none)
    output_keywords: tuple[tuple[str | None, str | None], ...]
    variadic_count: tuple[int, str] | None  # (position, <output>_count keyword) of a variadic last output
    requested_outputs: bool  # the kernel takes requested_outputs (spec kernel.requested_outputs)
    takes_output_keywords: bool  # any of the three above: a node's outputs give the kernel keywords


_OP_PLANS: dict[tuple[Any, ...], tuple[_OpPlan, KernelResolver]] = {}


def op_plan(resolver: KernelResolver, domain: str, op: str, opset: int | None) -> _OpPlan:
    """The kernel, signature and keyword plan of an op version: the same for every node of that op. A
    package of kernels (the generated `opgen_ops`) is asked once per process: resolving a kernel imports
    its module, which cost as much as running a small node. Another resolver may answer differently
    over time, so it is asked every time."""
    key = (id(resolver), domain, op, opset)
    found = _OP_PLANS.get(key)
    if found is not None and found[1] is resolver:
        return found[0]
    kernel = resolver.get_kernel(domain, op, opset)
    signature = resolver.get_signature(domain, op, opset)
    input_names = frozenset(p.name for p in signature.inputs)
    # not an input of that name: MaxUnpool's output_shape is an input
    accepted = _keywords(kernel) - input_names
    variadic = [(k, f"{p.name}_count") for k, p in enumerate(signature.outputs)
                if p.option == "variadic" and f"{p.name}_count" in accepted]
    output_keywords = _output_keywords(signature, accepted)
    requested = "requested_outputs" in accepted
    plan = _OpPlan(kernel, signature, input_names, output_keywords, variadic[0] if variadic else None, requested,
                   bool(variadic) or requested or any(d is not None or s is not None for d, s in output_keywords))
    if isinstance(resolver, types.ModuleType):
        if len(_OP_PLANS) >= 4096:
            _OP_PLANS.clear()
        _OP_PLANS[key] = (plan, resolver)  # the resolver kept alive: its id stays its own
    return plan


def _output_keywords(signature: Any, accepted: frozenset[str]) -> tuple[tuple[str | None, str | None], ...]:
    """For each output parameter, the <output>_dtype and <output>_shape keywords the kernel takes
    (None where it takes none): the same for every node of an op."""
    return tuple((f"{p.name}_dtype" if f"{p.name}_dtype" in accepted else None,
                  f"{p.name}_shape" if f"{p.name}_shape" in accepted else None) for p in signature.outputs)


class _Declared(NamedTuple):
    """What the graph declares about one output of a node, as the result check compares it (the
    output's name is the node's: node.outputs[position])."""
    position: int
    dtype: str | None  # element type, None when not declared
    shape: tuple[int | None, ...] | None  # None: not declared
    # the declared element type as the NumPy dtype a result of exactly that type has (None when there is
    # no such one dtype: then every result takes the full check)
    numpy_dtype: np.dtype[Any] | None


class _Step(NamedTuple):
    node: Node
    kernel: Callable[..., Any]
    kwargs: dict[str, Any]  # attributes, and the <output>_dtype/_shape keywords the declarations give
    n_outputs: int  # outputs the node names
    constant: tuple[np.ndarray, ...] | None  # the outputs of a Constant node, once it has run
    # each output the file declares (not one a reader's shape inference filled in): the results are
    # checked against them
    declared: tuple[_Declared, ...]
    inputs: tuple[str, ...]  # the node's inputs without its absent trailing ones ("": an absent one)
    absent_inputs: bool  # an absent input ("") among them: it is passed as None
    onnx_constant: bool  # an ONNX Constant node (what it gives is kept, see GraphFunction._keep_constant)

    @property
    def label(self) -> str:
        return node_label(self.node)


# Attribute values a kernel takes as they are (anything else goes through _attribute_value)
_PLAIN = frozenset({int, float, str, bool, list, tuple, type(None)})


def plan_step(node: Node, plan: _OpPlan, graph: Graph) -> _Step:
    """A node's step: its kernel's keywords from its attributes (a tensor attribute as its array; one
    named like an input as <name>_attr, Split-1's split) and from its outputs' declarations, and what
    its results are checked against."""
    attributes = node.attributes
    if attributes:
        clash = plan.input_names
        kwargs: dict[str, Any] = {(name + ATTRIBUTE_CLASH_SUFFIX if name in clash else name):
                                  (value if type(value) in _PLAIN and (type(value) is not list or not value
                                                                       or type(value[0]) is not TensorInfo)
                                   else _attribute_value(value))
                                  for name, value in attributes.items()}
    else:
        kwargs = {}
    values = graph.values
    outputs = node.outputs
    if plan.takes_output_keywords:
        for (dtype_keyword, shape_keyword), value_name in zip(plan.output_keywords, outputs):
            if dtype_keyword is None and shape_keyword is None:
                continue
            decl = values.get(value_name, UNKNOWN)
            if dtype_keyword is not None and decl.dtype is not None:
                kwargs.setdefault(dtype_keyword, decl.dtype)
            if shape_keyword is not None and decl.shape is not None and None not in decl.shape:
                kwargs.setdefault(shape_keyword, tuple(decl.shape))
        if plan.variadic_count is not None:  # a variadic output (the last): as many as the node names
            position, keyword = plan.variadic_count
            kwargs.setdefault(keyword, len(outputs) - position)
        if plan.requested_outputs:  # the outputs the node gives a name
            kwargs.setdefault("requested_outputs",
                              tuple(p.name for p, v in zip(plan.signature.outputs, outputs) if v))
    inferred = graph.inferred
    declared: tuple[_Declared, ...] = ()
    for k, name in enumerate(outputs):
        if name and name not in inferred:
            decl = values.get(name, UNKNOWN)
            if decl.dtype is not None or decl.shape is not None:
                shape = None if decl.shape is None else tuple(decl.shape)
                declared += (_Declared(k, decl.dtype, shape, _numpy_dtype_of(decl.dtype)),)
    inputs = _given_inputs(node)
    # positional: a NamedTuple built with keywords costs a microsecond more, for every node of every graph
    return _Step(node, plan.kernel, kwargs, len(outputs) - outputs.count(""), None, declared, inputs,
                 "" in inputs, node.op == "Constant" and node.domain == "onnx")


def constant_step(node: Node, plan: _OpPlan, constant: tuple[np.ndarray, ...]) -> _Step:
    """The step of a node whose outputs are known before it runs (what the check computed): it hands
    out copies of `constant` and its kernel never runs, so no keywords or declarations are worked out."""
    inputs = _given_inputs(node)
    outputs = node.outputs
    return _Step(node, plan.kernel, {}, len(outputs) - outputs.count(""), constant, (), inputs, "" in inputs,
                 node.op == "Constant" and node.domain == "onnx")


def _given_inputs(node: Node) -> tuple[str, ...]:
    """The node's inputs without its absent trailing optionals (left to the kernel's defaults)."""
    inputs = node.inputs
    while inputs and not inputs[-1]:
        inputs = inputs[:-1]
    return inputs


_SHARED_STEPS: dict[tuple[Any, ...], _Step] = {}


def forget_steps() -> None:
    """Drop the shared steps (opgen.run.forget_models)."""
    _SHARED_STEPS.clear()


def shared_step(node: Node, plan: _OpPlan, graph: Graph) -> _Step:
    """plan_step for a node of a generated package's kernel, its steps shared per process by (kernel,
    attributes, declarations of the outputs): a node whose attributes hold a graph (attr_key None) or
    whose reader gave no key is planned afresh."""
    attr_key = node.attr_key
    if attr_key is None or node.graphs:
        return plan_step(node, plan, graph)
    values, inferred = graph.values, graph.inferred
    described = []
    for name in node.outputs:
        decl = values.get(name, UNKNOWN) if name else None
        described.append(None if decl is None else (decl.dtype, decl.shape, name in inferred))
    key = (plan.kernel, attr_key, tuple(described))
    found = _SHARED_STEPS.get(key)
    if found is None:
        found = plan_step(node, plan, graph)
        if small_key(attr_key):  # a Constant's large tensor is not kept alive by the process
            if len(_SHARED_STEPS) >= 2048:  # each may hold 64 KiB of attributes: 128 MiB at the most
                _SHARED_STEPS.clear()
            _SHARED_STEPS[key] = found  # (a planned step holds no constant: nothing to take out)
        return found
    inputs = _given_inputs(node)
    return _Step(node, found.kernel, found.kwargs, found.n_outputs, None, found.declared, inputs, "" in inputs,
                 found.onnx_constant)


def check_result(label: str, name: str, value: Any, dtype: str | None, shape: tuple[int | None, ...] | None) -> None:
    """A kernel's result must be what the graph declares for it: its element type, and every known
    dimension (a declaration the validator accepted, so a difference is a kernel's fault, named here)."""
    from .graph_runner import GraphError

    if type(value) is not np.ndarray:
        return  # sequences, optionals and maps are checked by their own kernels
    if dtype is not None and value.dtype.kind not in "OUS":  # strings: object or NumPy str/bytes arrays
        got = elem_of_numpy(value.dtype)
        if got != dtype:
            raise GraphError(f"{label}: output {name!r} has dtype {got}, the graph declares {dtype}")
    if shape is not None and (len(shape) != value.ndim
                              or any(d is not None and d != n for d, n in zip(shape, value.shape))):
        shown = "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"
        raise GraphError(f"{label}: output {name!r} has shape {list(value.shape)}, the graph declares {shown}")


@functools.lru_cache(maxsize=None)
def _numpy_dtype_of(dtype: str | None) -> np.dtype[Any] | None:
    """The NumPy dtype whose results match a declared element type at a glance: one that maps back to it
    (strings map to no single dtype)."""
    elem = ELEM_TYPES.get(dtype) if dtype is not None else None
    if elem is None:
        return None
    try:
        numpy_dtype = np.dtype(elem.numpy)
        return numpy_dtype if numpy_dtype.kind not in "OUS" and elem_of_numpy(numpy_dtype) == dtype else None
    except (KeyError, TypeError, ValueError):  # an element type NumPy has no dtype for
        return None


def _attribute_value(value: Any) -> Any:
    """An attribute as a kernel takes it: a tensor (TensorInfo, as the readers keep it) as its array."""
    if isinstance(value, TensorInfo):
        return value if value.value is None else np.asarray(value.value)
    if isinstance(value, list) and value and all(isinstance(v, TensorInfo) for v in value):
        return [_attribute_value(v) for v in value]
    return value


__all__ = ["KernelResolver", "node_label", "op_plan", "plan_step", "shared_step", "constant_step", "forget_steps",
           "check_result"]
