"""opgen's one graph model: what every model reader produces (ONNX, oneDNN Graph JSON, hlir graphs),
what `opgen validate` checks (opgen.validate.checker) and what the graph runner executes
(opgen.runtime.graph_runner). A model flows one way: read -> Graph -> check / run.

A graph holds named values (each described by a `TensorInfo`: dtype, shape, constant value,
any of them possibly unknown) and nodes in execution order. A node names its op by spec domain,
op and requested version (an opset, resolved like ONNX: newest since_version <= it), its inputs and
outputs by value name ("" for an absent optional), its attributes as plain Python values, and the
graphs held by graph-valued attributes (If branches, Loop bodies, Map computations), which see the
values of the enclosing graphs.
"""
from __future__ import annotations

from typing import Any

from .runtime.context import TensorInfo

UNKNOWN = TensorInfo()  # a value whose dtype and shape are unknown (one shared object)


def small_key(attr_key: Any, budget: int = 1 << 16) -> bool:
    """Whether a node's attr_key (a reader's: a tuple of serialized attributes, a JSON or repr string)
    holds at most `budget` bytes, counted without copying: the memos shared across models
    (validate.verdicts, runtime.run_plan) keep only small keys, not a Constant's large tensor."""
    if type(attr_key) is tuple:  # the ONNX reader's: serialized attributes, counted in one pass
        total = 0
        for item in attr_key:
            if type(item) is not bytes:
                break
            total += len(item)
        else:
            return total <= budget
    elif type(attr_key) is str:  # the hlir (JSON) and StableHLO readers'
        return len(attr_key) <= budget
    stack = [attr_key]
    while stack:
        item = stack.pop()
        if isinstance(item, (bytes, str)):
            budget -= len(item)
        elif isinstance(item, (tuple, list, frozenset)):
            budget -= 8 * len(item)
            stack.extend(item)
        else:
            budget -= 8
        if budget < 0:
            return False
    return True


class Node:
    """One use of an op. Fields other than the first eight are set only when they differ from the
    class defaults below (shared, never mutated), which keeps building 10^5 nodes cheap."""

    attributes: dict[str, Any] = {}
    # The type the file itself declares for an attribute, as (spec attribute type, the file's spelling):
    # ONNX AttributeProto types and oneDNN attribute types. Checked against the spec's attribute type.
    attr_kinds: dict[str, tuple[str, str]] = {}
    graphs: dict[str, "Graph"] = {}
    note = ""  # why the node is not checked, when the reader knows (e.g. a call of a model-local function)

    def __init__(self, index: int, name: str, domain: str, op: str, opset: int | None,
                 inputs: tuple[str, ...], outputs: tuple[str, ...], attr_key: Any = None):
        self.index = index  # position in its graph (0-based)
        self.name = name
        self.domain = domain  # spec domain (onnx, onednn, hlir) or the file's own domain when no spec has it
        self.op = op
        self.opset = opset  # requested version; None: the newest
        self.inputs = inputs  # value names; "" for an absent optional input
        self.outputs = outputs
        # A hashable stand-in for attributes + attr_kinds (equal keys: equal attributes), set by the reader
        # that sets the attributes; None (the default): not cacheable. The checker's verdicts and the
        # runner's steps are shared by it across models, so only a reader that knows the key sets it.
        self.attr_key = attr_key

    @property
    def label(self) -> str:
        return f"node {self.name!r} (#{self.index})" if self.name else f"node #{self.index}"

    def __repr__(self) -> str:
        return f"Node({self.index}, {self.name!r}, {self.domain}.{self.op}, {self.inputs} -> {self.outputs})"


class Graph:
    """Values and nodes of one graph; `values` holds what the file declares about any value."""

    __slots__ = ("name", "inputs", "initializers", "outputs", "values", "nodes", "inferred")

    def __init__(self, name: str = "", inputs: list[str] | None = None, initializers: list[str] | None = None,
                 outputs: list[str] | None = None, values: dict[str, TensorInfo] | None = None,
                 nodes: list[Node] | None = None, inferred: frozenset[str] = frozenset()):
        self.name = name
        self.inputs = inputs or []  # defined when the graph starts
        self.initializers = initializers or []  # constants, defined when the graph starts
        self.outputs = outputs or []  # must be defined by the end
        self.values = values if values is not None else {}
        self.nodes = nodes if nodes is not None else []
        # Values whose entry in `values` a reader's helper filled in (onnx.shape_inference), not the file:
        # they are not checked as declarations; the checker uses them only where the specs give nothing.
        self.inferred = inferred

    def __repr__(self) -> str:
        return f"Graph({self.name!r}, {len(self.nodes)} nodes)"


def count_nodes(graph: Graph) -> int:
    """Nodes of a graph and of every graph nested in it."""
    total, stack = 0, [graph]
    while stack:
        g = stack.pop()
        total += len(g.nodes)
        for node in g.nodes:
            stack.extend(node.graphs.values())
    return total
