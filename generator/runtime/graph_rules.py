"""Named rules that look inside graph-valued attributes: If's branches, Loop's, Scan's and SequenceMap's
bodies (registered in `shape_rules.RULES` like the shape rules, and invoked the same way: `rule:` + `args:`).

A graph attribute reaches a validator as one of:
- opgen's graph model (`opgen.graph.Graph`, what the readers produce): `inputs` and `outputs` are value names,
  described (dtype, shape) by its `values`;
- an hlir-style graph, a mapping with a `nodes` list whose `inputs` / `outputs` are lists of
  `{name, dtype?, shape?}` declarations;
- a Python callable (a kernel's graph argument): its inputs and outputs are not known, so every rule
  raises Unknown and checks nothing. So does an absent attribute.
Each rule returns "" when the use satisfies it, or a sentence saying what was found.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..graph import Graph
from .context import CheckContext, TensorInfo, Unknown
from .shape_rules import Attr, Param, Params, rule

GraphIO = tuple[list[TensorInfo | None], list[TensorInfo | None]]


def _declared(decl: Any) -> TensorInfo | None:
    if not isinstance(decl, Mapping):
        return None
    shape = decl.get("shape")
    return TensorInfo(decl.get("dtype"), None if shape is None else tuple(shape))


def graph_io(value: Any) -> GraphIO:
    """What a graph attribute's value tells of its inputs and outputs, in order (an entry None when the
    graph does not describe that value); Unknown for a callable or anything else that is not a graph."""
    if isinstance(value, Mapping):
        if not isinstance(value.get("nodes"), list):
            raise Unknown("graph")
        ins: Sequence[Any] = value.get("inputs") or []
        outs: Sequence[Any] = value.get("outputs") or []
        return [_declared(d) for d in ins], [_declared(d) for d in outs]
    if not isinstance(value, Graph):
        raise Unknown("graph")
    return [value.values.get(n) for n in value.inputs], [value.values.get(n) for n in value.outputs]


def _graph(c: CheckContext, name: str) -> GraphIO:
    return graph_io(c.attr(name))


def _count(c: CheckContext, params: Sequence[str]) -> int:
    return sum(c.count(p) for p in params)


@rule
def graph_inputs(c: CheckContext, graph: Attr, params: Params) -> str:
    """The graph takes one input per value bound to the parameters (each element of a variadic one)."""
    ins, _ = _graph(c, graph)
    want = _count(c, params)
    if len(ins) != want:
        what = " + ".join(f"count({p})" for p in params) or "none"
        return f"{graph} takes {len(ins)} inputs, the node gives it {want} ({what})"
    return ""


@rule
def graph_outputs(c: CheckContext, graph: Attr, params: Params) -> str:
    """The graph gives one output per value bound to the parameters (the node's outputs)."""
    _, outs = _graph(c, graph)
    want = _count(c, params)
    if len(outs) != want:
        return f"{graph} gives {len(outs)} outputs, the node has {want}"
    return ""


@rule
def loop_body_inputs(c: CheckContext, body: Attr, v_initial: Param) -> str:
    """Loop's body takes the iteration number, the condition and one value per loop-carried input."""
    ins, _ = _graph(c, body)
    want = 2 + c.count(v_initial)
    if len(ins) != want:
        return f"{body} takes {len(ins)} inputs, expected 2 + {c.count(v_initial)} (iteration, condition, " \
               f"{v_initial})"
    return ""


@rule
def loop_body_outputs(c: CheckContext, body: Attr, outputs: Param) -> str:
    """Loop's body gives the condition, then one value per node output (loop-carried, then scan outputs)."""
    _, outs = _graph(c, body)
    want = 1 + c.count(outputs)
    if len(outs) != want:
        return f"{body} gives {len(outs)} outputs, expected 1 + {c.count(outputs)} (the condition, then one per " \
               "node output)"
    return ""


@rule
def branch_output_dtypes(c: CheckContext, then_branch: Attr, else_branch: Attr) -> str:
    """Output k of both branches has one type (where both graphs state it)."""
    _, first = _graph(c, then_branch)
    _, second = _graph(c, else_branch)
    for k, (a, b) in enumerate(zip(first, second)):
        if a is not None and b is not None and a.dtype is not None and b.dtype is not None and a.dtype != b.dtype:
            return f"output {k} is {a.dtype} in {then_branch} but {b.dtype} in {else_branch}"
    return ""


@rule
def graph_output_dtypes(c: CheckContext, graph: Attr, outputs: Param) -> str:
    """Node output k has the type of the graph's output k (where both are known)."""
    _, outs = _graph(c, graph)
    for k, (info, node_out) in enumerate(zip(outs, c.infos(outputs))):
        if info is not None and node_out is not None and info.dtype is not None and node_out.dtype is not None \
                and info.dtype != node_out.dtype:
            return f"{outputs}[{k}] is {node_out.dtype}, but {graph} gives {info.dtype}"
    return ""


@rule
def scan_output_axes_range(c: CheckContext, body: Attr, scan_output_axes: Attr, num_scan_inputs: Attr,
                           inputs: Param) -> str:
    """Each scan output axis lies in [-(r+1), r], r being the rank of the body output it stacks (the scan
    outputs follow the N = count(inputs) - num_scan_inputs state outputs of the body)."""
    _, outs = _graph(c, body)
    axes = c.attr(scan_output_axes)
    states = c.count(inputs) - int(c.attr(num_scan_inputs))
    if states < 0:
        raise Unknown(num_scan_inputs)  # a constraint reports it
    for k, axis in enumerate(axes):
        info = outs[states + k] if states + k < len(outs) else None
        if info is None or info.shape is None:
            continue
        r = len(info.shape)
        if not -(r + 1) <= int(axis) <= r:
            return f"{scan_output_axes}[{k}] = {axis} is outside [{-(r + 1)}, {r}] for a body output of rank {r}"
    return ""


@rule
def branch_output_counts(c: CheckContext, then_branch: Attr, else_branch: Attr, outputs: Param) -> str:
    """Both branches give one output per node output (one condition: a node with the wrong number of
    outputs is one fault, reported once, not once per branch)."""
    want = c.count(outputs)
    found = []
    for name in (then_branch, else_branch):
        try:
            found.append((name, len(_graph(c, name)[1])))
        except Unknown:
            continue
    wrong = [f"{name} gives {n}" for name, n in found if n != want]
    return f"the node has {want} outputs, but " + " and ".join(wrong) if wrong else ""
