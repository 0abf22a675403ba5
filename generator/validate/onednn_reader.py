"""oneDNN Graph JSON (what oneDNN Graph serializes and benchdnn's --graph driver reads) -> the graph model.

    {"version": "3.5.0", "engine_kind": "cpu", "fpmath_mode": "strict",
     "graph": [{"id": 0, "name": "prelu", "kind": "PReLU",
                "attrs": {"data_format": {"type": "string", "value": "NCX"},
                          "per_channel_broadcast": {"type": "bool", "value": 1}},
                "inputs": [{"id": 0, "dtype": "f32", "shape": [1, 8, 4, 4], "stride": [...],
                            "layout_type": "strided", "property_type": "undef"}, ...],
                "outputs": [...]}]}

An op's kind names the spec (onednn.<kind>, version 1). Logical tensors are values named by their id;
a tensor no op produces is a graph input. Every op repeats the description of its tensors: the
first description (the producer's, else the first consumer's) is the declared one, and a different
description elsewhere is reported. dtypes map through the onednn domain's `dtype_names` (f32 ->
float, ...), "undef" is unknown; a dimension DNNL_GRAPH_UNKNOWN_DIM (INT64_MIN; -1 in older
releases) is unknown; shape [] is a scalar. Ops are checked in dependency order (the serialization
does not promise one); ops in a cycle are reported.
"""
from __future__ import annotations

import json
from typing import Any

from ..runtime.validation import TensorInfo
from .graph import Graph, Node
from .limits import AttributeBudget, Limits, ModelReadError, check_shape
from .registry import Registry
from .report import Record

DOMAIN = "onednn"
# DNNL_GRAPH_UNKNOWN_DIM is INT64_MIN in oneDNN 3.x (dnnl_graph_types.h); the graph API's preview
# releases defined it as -1, which older serializations still hold. Both mean "unknown".
UNKNOWN_DIM = -(2**63)
UNKNOWN_DIMS = frozenset((UNKNOWN_DIM, -1))
_ATTR_TYPES = {"string": "string", "bool": "bool", "s64": "int", "f32": "float", "s64[]": "ints",
               "f32[]": "floats"}


def is_onednn(doc: Any) -> bool:
    """A JSON document in the oneDNN Graph shape: a "graph" list of ops with a "kind"."""
    return (isinstance(doc, dict) and isinstance(doc.get("graph"), list)
            and all(isinstance(op, dict) and "kind" in op for op in doc["graph"]))


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def read_onednn(doc: Any, registry: Registry, limits: Limits) -> tuple[Graph, str, list[Record]]:
    if not isinstance(doc, dict) or not isinstance(doc.get("graph"), list):
        raise ModelReadError('not a oneDNN Graph JSON document: expected an object with a "graph" list')
    ops = doc["graph"]
    if len(ops) > limits.max_nodes:
        raise ModelReadError(f"more than {limits.max_nodes} ops")
    names = registry.dtype_names(DOMAIN)
    records: list[Record] = []
    described: dict[str, tuple[TensorInfo, str]] = {}  # tensor -> (declared info, who described it)
    types: dict[tuple, TensorInfo] = {}
    budget = AttributeBudget(limits)
    nodes: list[Node] = []
    for k, op in enumerate(ops):
        where = f"graph[{k}]"
        if not isinstance(op, dict):
            raise ModelReadError(f"{where}: expected an op object")
        kind, name = op.get("kind"), op.get("name", "")
        if not isinstance(kind, str) or not isinstance(name, str):
            raise ModelReadError(f"{where}: \"kind\" and \"name\" must be strings")
        sides = []
        for side in ("inputs", "outputs"):
            tensors = op.get(side, [])
            if not isinstance(tensors, list):
                raise ModelReadError(f"{where}.{side}: expected a list of logical tensors")
            ids = []
            for j, lt in enumerate(tensors):
                ids.append(_tensor(lt, f"{where}.{side}[{j}]", names, types, limits))
            sides.append(ids)
        label = f"op {name!r} (#{k})" if name else f"op #{k}"
        # outputs first: the producer's description is the declared one
        for tid, info in sides[1] + sides[0]:
            first = described.get(tid)
            if first is None:
                described[tid] = (info, label)
            elif (info.dtype, info.shape) != (first[0].dtype, first[0].shape) and info.dtype is not None:
                records.append(Record("error", "", f"logical tensor {tid}", "is described as "
                                      f"{_show(info)} by {label} but as {_show(first[0])} by {first[1]}",
                                      found=_show(info), expected=_show(first[0])))
        attributes, kinds = _attributes(op.get("attrs", {}), where, budget)
        node = Node(k, name, DOMAIN, kind, None, tuple(t for t, _ in sides[0]), tuple(t for t, _ in sides[1]),
                    json.dumps([attributes, kinds], sort_keys=True))
        node.attributes, node.attr_kinds = attributes, kinds
        nodes.append(node)
    produced = {t for n in nodes for t in n.outputs}
    inputs = list(dict.fromkeys(t for n in nodes for t in n.inputs if t not in produced))
    values = {t: info for t, (info, _) in described.items()}
    graph = Graph("", inputs, [], [], values, _dependency_order(nodes))
    extra = [f"{label}{doc[key]}" for key, label in (("version", "oneDNN "), ("engine_kind", "engine "),
                                                     ("fpmath_mode", "fpmath "))
             if isinstance(doc.get(key), (str, int, float)) and not isinstance(doc.get(key), bool)]
    return graph, "onednn graph" + (f" ({', '.join(extra)})" if extra else ""), records


def _show(info: TensorInfo) -> str:
    shape = "?" if info.shape is None else "[" + ", ".join("?" if d is None else str(d) for d in info.shape) + "]"
    return f"{info.dtype or '?'} {shape}"


def _tensor(lt: Any, where: str, names: dict[str, str], types: dict, limits: Limits) -> tuple[str, TensorInfo]:
    if not isinstance(lt, dict) or not _int(lt.get("id")):
        raise ModelReadError(f"{where}: expected a logical tensor object with an integer \"id\"")
    dtype = lt.get("dtype")
    if dtype is not None and not isinstance(dtype, str):
        raise ModelReadError(f"{where}.dtype: expected a string")
    dtype = None if dtype in (None, "undef") else names.get(dtype, dtype)
    shape = lt.get("shape")
    if shape is not None:
        if not isinstance(shape, list) or not all(_int(d) for d in shape):
            raise ModelReadError(f"{where}.shape: expected a list of integers")
        shape = tuple(None if d in UNKNOWN_DIMS else d for d in shape)
        check_shape(shape, limits, f"{where}.shape")
    key = (dtype, shape)
    info = types.get(key)
    if info is None:
        info = types[key] = TensorInfo(dtype, shape)
    return str(lt["id"]), info


def _attributes(raw: Any, where: str, budget: AttributeBudget) -> tuple[dict, dict]:
    if not isinstance(raw, dict):
        raise ModelReadError(f"{where}.attrs: expected an object")
    values: dict[str, Any] = {}
    kinds: dict[str, tuple[str, str]] = {}
    for name, attr in raw.items():
        if not isinstance(attr, dict) or "type" not in attr or "value" not in attr:
            raise ModelReadError(f"{where}.attrs.{name}: expected {{\"type\": ..., \"value\": ...}}")
        declared, value = attr["type"], attr["value"]
        if not isinstance(declared, str):
            raise ModelReadError(f"{where}.attrs.{name}.type: expected a string")
        if isinstance(value, list):
            budget.take(len(value), f"{where}.attrs.{name}")
        if declared == "bool" and value in (0, 1) and not isinstance(value, float):
            value = bool(value)  # oneDNN writes booleans as 0/1
        elif declared == "f32" and _int(value):
            value = float(value)
        elif declared == "f32[]" and isinstance(value, list):
            value = [float(v) if _int(v) else v for v in value]
        values[name] = value
        kinds[name] = (_ATTR_TYPES.get(declared, declared), declared)
    return values, kinds


def _dependency_order(nodes: list[Node]) -> list[Node]:
    """Nodes so that producers come first (stable); nodes in a cycle keep their place at the end."""
    producer: dict[str, int] = {}
    for k, n in enumerate(nodes):
        for t in n.outputs:
            producer.setdefault(t, k)
    waiting = [0] * len(nodes)
    users: list[list[int]] = [[] for _ in nodes]
    for k, n in enumerate(nodes):
        for t in set(n.inputs):
            p = producer.get(t)
            if p is not None and p != k:
                waiting[k] += 1
                users[p].append(k)
            elif p == k:
                waiting[k] += 1  # uses its own output: a cycle of one
    import heapq

    ready = [k for k in range(len(nodes)) if waiting[k] == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        k = heapq.heappop(ready)
        order.append(k)
        for u in users[k]:
            waiting[u] -= 1
            if waiting[u] == 0:
                heapq.heappush(ready, u)
    placed = set(order)
    order += [k for k in range(len(nodes)) if k not in placed]
    return [nodes[k] for k in order]
