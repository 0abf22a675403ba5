"""The hot loops of the ONNX reader: a graph's value_info and nodes, and a node's attributes answered
from a cache keyed by their serialized bytes (equal bytes: equal attributes, kinds and list lengths).

With protobuf's upb backend every field read is a C call that makes a Python object (a wrapper per
message, a list per repeated field); that cost is the floor of this reading. Measured alternatives
that were slower: reading each field for all nodes at once with map() (every wrapper then lives at
the same time: 1.5-2x the time of one loop that drops them as it goes).
"""
from __future__ import annotations

from functools import partial
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Callable

from onnx import AttributeProto, TypeProto

from ..graph import Node
from ..runtime.validation import TensorInfo
from .onnx_model import Incomplete
from .report import to_str


def _list_where(node: Node, name: str, path: str) -> str:
    """Where a node's list attribute is, for the budget's error."""
    return _where(f"{node.label} attribute", name, path)


def _where(kind: str, name: str, path: str) -> str:
    """Where a value is, for read errors: its kind, name and graph (nested graphs by path)."""
    return f"{kind} {name!r}" + (f" in {path}" if path else "")


if TYPE_CHECKING:
    from .onnx_reader import _Converter

_NODE_FIELDS = attrgetter("domain", "name", "op_type", "input", "output", "attribute")
_NAME_TYPE = attrgetter("name", "type")
_ATTR_TYPE = attrgetter("type")
_SERIALIZE_TYPE: Callable[[TypeProto], bytes] = TypeProto.SerializeToString
_SERIALIZE_ATTRIBUTE: Callable[[AttributeProto], bytes] = AttributeProto.SerializeToString
_GRAPH_TYPES = {AttributeProto.GRAPH, AttributeProto.GRAPHS}
_LIST_FIELDS = {AttributeProto.FLOATS: "floats", AttributeProto.INTS: "ints", AttributeProto.STRINGS: "strings",
                AttributeProto.TENSORS: "tensors", AttributeProto.SPARSE_TENSORS: "sparse_tensors",
                AttributeProto.TYPE_PROTOS: "type_protos"}


def read_value_info(conv: "_Converter", protos: Any, values: dict[str, TensorInfo],
                    declared: dict[str, bytes] | None, path: str) -> set[str]:
    """Add a graph's value_info entries to `values` (a name already there keeps its entry: the first
    entry of a name counts, later ones are not read), one TensorInfo per distinct serialized type. With
    `declared` (the types the file itself gave, when the model was completed by shape inference), a
    type that differs from the file's is inference's: it is read as such and its name returned among
    the inferred ones."""
    inferred: set[str] = set()
    types = conv.types
    for name, tp in map(_NAME_TYPE, protos):
        if type(name) is not str:
            name = to_str(name)
        if name in values:
            continue
        key = _SERIALIZE_TYPE(tp)
        if declared is not None and declared.get(name) != key:
            inferred.add(name)
            key = b"inferred:" + key
        info = types.get(key)
        values[name] = info if info is not None else _new_info(conv, tp, key, name, path)
    return inferred


def _new_info(conv: "_Converter", tp: TypeProto, key: bytes, name: str, path: str) -> TensorInfo:
    if key.startswith(b"inferred:"):
        return conv._inferred_type(tp, key, name, path)
    return conv._new_type(tp, key, "value", name, path)


def read_nodes(conv: "_Converter", protos: Any, values: dict[str, TensorInfo], depth: int,
               path: str) -> list[Node]:
    """The Nodes of a graph's NodeProtos, in order. A converter told to stop at the first node output
    the model does not describe raises Incomplete there."""
    nodes: list[Node] = []
    default = conv.opsets.get("")
    functions = conv.functions
    append = nodes.append
    stop = conv.stop_if_incomplete
    get = values.get
    join = "".join
    attributes = conv.attributes
    attr_cache = conv.attr_cache
    add = conv.budget.add
    for k, (dom, name, op, ins, outs, attrs) in enumerate(map(_NODE_FIELDS, protos)):
        # [:] rather than iteration: upb's repeated fields iterate by index until IndexError, and
        # raising it cost ~10% of the reading (three times per node).
        ins, outs = tuple(ins[:]), tuple(outs[:])
        try:
            join((dom, name, op, *ins, *outs))  # one C call that fails on any bytes among them
        except TypeError:
            dom, name, op = to_str(dom), to_str(name), to_str(op)
            ins, outs = tuple(map(to_str, ins)), tuple(map(to_str, outs))
        if not dom or dom == "ai.onnx":
            domain, opset = "onnx", default
            conv.uses_default_domain = True
        else:
            domain, opset = conv.domain(dom)
        if stop:
            for o in outs:
                info = get(o)
                if o and (info is None or info.dtype is None or info.shape is None):
                    raise Incomplete
        node = Node(k, name, domain, op, opset, ins, outs, ())  # no attributes (set below when it has some)
        if attrs:
            # Attributes that serialize as an earlier node's did (and hold no graph) are answered from the
            # cache: equal bytes, equal attributes, kinds and list lengths; the lists they hold are taken
            # from the file's budget again (the per-list limit was checked at their first use).
            listed = attrs[:]
            hit = None
            if _GRAPH_TYPES.isdisjoint(map(_ATTR_TYPE, listed)):
                key = tuple(map(_SERIALIZE_ATTRIBUTE, listed))
                hit = attr_cache.get(key)
            if hit is None:
                attributes(node, attrs, depth, path)
            else:
                node.attributes, node.attr_kinds, elements, first_list = hit
                node.attr_key = key
                if elements:
                    add(elements, partial(_list_where, node, first_list, path))
        if functions and (dom, op) in functions:
            node.note = (f"calls the model-local function {dom + '.' if dom else ''}{op}; "
                         "its body is not checked")
        append(node)
    return nodes


def list_elements(attrs: Any) -> tuple[int, str]:
    """Elements of the list attributes among attrs (what the budget counts), and the first one's name."""
    total, first = 0, ""
    for a in attrs[:]:
        field = _LIST_FIELDS.get(a.type)
        if field is not None:
            total += len(getattr(a, field))
            first = first or to_str(a.name)
    return total, first
