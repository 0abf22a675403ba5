"""oneDNN Graph JSON (what oneDNN Graph serializes and benchdnn's --graph driver reads) -> the graph model.

    {"version": "3.5.0", "engine_kind": "cpu", "fpmath_mode": "strict",
     "graph": [{"id": 0, "name": "prelu", "kind": "PReLU",
                "attrs": {"data_format": {"type": "string", "value": "NCX"},
                          "per_channel_broadcast": {"type": "bool", "value": 1}},
                "inputs": [{"id": 0, "dtype": "f32", "shape": [1, 8, 4, 4], "stride": [...],
                            "layout_type": "strided", "property_type": "undef"}, ...],
                "outputs": [...]}]}

An op's kind names the spec (onednn.<kind>, version 1). Logical tensors are values named by their id
(the string "3" for id 3); a tensor no op produces is a graph input (in the order of "input_ports" when
that lists them all, else of first use), and the graph's outputs are the produced tensors "output_ports"
lists, else those no op consumes (what `opgen run` returns). Every op repeats the description of its tensors: the
first description (the producer's, else the first consumer's) is the declared one, and a different
description that contradicts it elsewhere is reported (an unknown dtype, shape or dimension agrees
with anything). dtypes map through the onednn domain's `dtype_names` (f32 -> float, f8_e4m3 ->
float8e4m3fn, s4 -> int4, ...), "undef" is unknown, a name oneDNN Graph does not define is reported
once and read as unknown; a dimension DNNL_GRAPH_UNKNOWN_DIM (INT64_MIN; -1 in older
releases) is unknown; shape [] is a scalar. A shape of that one marker, [INT64_MIN], is a whole unknown
shape (rank included): the library's serializer writes it for any logical tensor whose shape is not
known, an unknown rank (ndims DNNL_GRAPH_UNKNOWN_NDIMS, -1) as much as unknown dimensions. Ops are checked in dependency order (the serialization
does not promise one); ops in a cycle are reported.
"""
from __future__ import annotations

from typing import Any

from ..runtime.validation import TensorInfo
from ..graph import Graph, Node
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
    """A JSON document in the oneDNN Graph shape: a "graph" list of ops with a "kind" (a document decoded
    into opgen.validate.onednn_typed's records has that shape)."""
    if not isinstance(doc, dict):
        from .onednn_typed import TypedOnednn

        return isinstance(doc, TypedOnednn)
    return isinstance(doc.get("graph"), list) and all(isinstance(op, dict) and "kind" in op for op in doc["graph"])


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def read_onednn(doc: Any, registry: Registry, limits: Limits) -> tuple[Graph, str, list[Record]]:
    if not isinstance(doc, dict):
        from .onednn_typed import TypedOnednn, read_typed

        if isinstance(doc, TypedOnednn):
            return read_typed(doc, registry, limits)
    if not isinstance(doc, dict) or not isinstance(doc.get("graph"), list):
        raise ModelReadError('not a oneDNN Graph JSON document: expected an object with a "graph" list')
    ops = doc["graph"]
    if len(ops) > limits.max_nodes:
        raise ModelReadError(f"more than {limits.max_nodes} ops")
    names = registry.dtype_names(DOMAIN)
    records: list[Record] = []
    # tensor id -> (declared info, index of the op that described it first)
    described: dict[str, tuple[TensorInfo, int]] = {}
    tensor = _TensorReader(names, limits)
    budget = AttributeBudget(limits)
    # Ops repeat the same attributes: each distinct "attrs" object (keyed by its repr, which tells 1,
    # 1.0 and true apart) is converted once; its element count still goes to the budget at every use.
    attr_cache: dict[str, tuple[dict[str, Any], dict[str, Any], int]] = {}
    nodes: list[Node] = []
    pending: set[str] = set()  # inputs no earlier op produced: the file may not be in dependency order
    produced: set[str] = set()
    for k, op in enumerate(ops):
        if type(op) is not dict:
            raise ModelReadError(f"graph[{k}]: expected an op object")
        kind, name = op.get("kind"), op.get("name", "")
        if type(kind) is not str or type(name) is not str:
            kind, name = _checked_names(kind, name, k)
        ins, outs = op.get("inputs", []), op.get("outputs", [])
        if type(ins) is not list:
            raise ModelReadError(f"graph[{k}].inputs: expected a list of logical tensors")
        if type(outs) is not list:
            raise ModelReadError(f"graph[{k}].outputs: expected a list of logical tensors")
        out_ids, out_infos = tensor.read(outs, k, "outputs")
        in_ids, in_infos = tensor.read(ins, k, "inputs")
        # outputs first: the producer's description is the declared one
        for tid, info in zip(out_ids + in_ids, out_infos + in_infos):
            first = described.get(tid)
            if first is None:
                described[tid] = (info, k)
            elif info is not first[0] and _conflict(info, first[0]):
                records.append(_mismatch(tid, info, _label(ops, k), first[0], _label(ops, first[1])))
        raw = op.get("attrs", {})
        key = repr(raw)
        hit = attr_cache.get(key)
        if hit is None:
            hit = attr_cache[key] = _attributes(raw, f"graph[{k}]", budget)  # takes its lists from the budget
        elif hit[2]:
            budget.add(hit[2], f"graph[{k}].attrs")
        if not produced.issuperset(in_ids):
            pending.update([t for t in in_ids if t not in produced])
        produced.update(out_ids)
        node = Node(k, name, DOMAIN, kind, None, in_ids, out_ids, key)
        node.attributes, node.attr_kinds = hit[0], hit[1]
        nodes.append(node)
    values = {t: info for t, (info, _) in described.items()}
    in_order = pending.isdisjoint(produced)  # no op uses a tensor that a later op (or itself) produces
    return finish(doc, nodes, values, in_order, produced, tensor, records, names)


def finish(doc: Any, nodes: list[Node], values: dict[str, TensorInfo], in_order: bool, produced: set[str],
           tensor: "_TensorReader", records: list[Record], names: dict[str, str]) -> tuple[Graph, str, list[Record]]:
    """The graph of the ops read (inputs, outputs, values, dependency order) and its report context."""
    inputs = list(dict.fromkeys(t for n in nodes for t in n.inputs if t not in produced))
    listed_inputs = _ports(doc.get("input_ports"))
    if sorted(listed_inputs) == sorted(inputs):  # the serialized order of the graph's inputs, when it lists them all
        inputs = listed_inputs
    consumed = {t for n in nodes for t in n.inputs}
    outputs = [t for t in _ports(doc.get("output_ports")) if t in produced] or \
        [t for t in dict.fromkeys(t for n in nodes for t in n.outputs) if t not in consumed]
    graph = Graph("", inputs, [], outputs, values, nodes if in_order else _dependency_order(nodes))
    context = [(key, label, doc.get(key)) for key, label in (("version", "oneDNN "), ("engine_kind", "engine "),
                                                            ("fpmath_mode", "fpmath "))]
    extra = [f"{label}{value}" for key, label, value in context
             if isinstance(value, (str, int, float)) and not isinstance(value, bool)]
    records += tensor.unknown_dtype_records(names)
    return graph, "onednn graph" + (f" ({', '.join(extra)})" if extra else ""), records


def _checked_names(kind: Any, name: Any, k: int) -> tuple[str, str]:
    if not isinstance(kind, str) or not isinstance(name, str):
        raise ModelReadError(f"graph[{k}]: \"kind\" and \"name\" must be strings")
    return kind, name  # str subclasses (never made by json.loads, but a parsed document may hold them)


def _ports(ports: Any) -> list[str]:
    """The logical tensor ids of an "input_ports"/"output_ports" list (oneDNN 3.x serializations write
    them), distinct and in order; anything else is no list."""
    if not isinstance(ports, list):
        return []
    return list(dict.fromkeys(str(p) for p in ports if type(p) is int))


def _conflict(info: TensorInfo, first: TensorInfo) -> bool:
    """Two descriptions of one logical tensor that cannot both hold: known dtypes that differ, or known
    shapes of different ranks or with a dimension known in both that differs. An unknown dtype, shape or
    dimension ("undef", DNNL_GRAPH_UNKNOWN_DIM) agrees with anything: it is filled in later."""
    if info.dtype is not None and first.dtype is not None and info.dtype != first.dtype:
        return True
    if info.shape is None or first.shape is None:
        return False
    return len(info.shape) != len(first.shape) or \
        any(a is not None and b is not None and a != b for a, b in zip(info.shape, first.shape))


def _show(info: TensorInfo) -> str:
    shape = "?" if info.shape is None else "[" + ", ".join("?" if d is None else str(d) for d in info.shape) + "]"
    return f"{info.dtype or '?'} {shape}"


def _label(ops: list[Any], k: int) -> str:
    name = ops[k].get("name", "")
    return f"op {name!r} (#{k})" if name else f"op #{k}"


def _mismatch(tid: str, info: TensorInfo, label: str, first: TensorInfo, first_label: str) -> Record:
    return Record("error", "", f"logical tensor {tid}", f"is described as {_show(info)} by {label} but as "
                  f"{_show(first)} by {first_label}", found=_show(info), expected=_show(first))


class _TensorReader:
    """Logical tensors -> (id, TensorInfo), one TensorInfo per distinct (dtype, shape): the checker
    caches verdicts by the identity of the infos, and a oneDNN graph repeats a few descriptions."""

    def __init__(self, names: dict[str, str], limits: Limits):
        self.names, self.limits = names, limits
        self.infos: dict[tuple[Any, ...], TensorInfo] = {}
        # a dtype name the domain does not define -> (logical tensor id, JSON path) where first seen
        self.unknown_dtypes: dict[str, tuple[str, str]] = {}

    def unknown_dtype_records(self, names: dict[str, str]) -> list[Record]:
        """One problem per dtype name that oneDNN Graph does not define (its tensors get an unknown dtype,
        so no validator reports the same fault again)."""
        known = ", ".join(sorted(names))
        return [Record("error", "", f"logical tensor {tid}", f"data type {name!r} ({path}) is not a oneDNN Graph "
                       f"data type (known: undef, {known})", found=name)
                for name, (tid, path) in self.unknown_dtypes.items()]

    def read(self, lts: list[Any], k: int, side: str) -> tuple[tuple[str, ...], tuple[TensorInfo, ...]]:
        """The ids (as strings) and infos of one op's logical tensors; the hot path of the reader: a
        description seen before (dtype, and shape: a list of int, checked by type) is found by its key."""
        ids, infos = [], []
        known, names = self.infos, self.names
        for j, lt in enumerate(lts):
            if type(lt) is not dict:
                raise ModelReadError(f"graph[{k}].{side}[{j}]: expected a logical tensor object with an integer \"id\"")
            tid, dtype, shape = lt.get("id"), lt.get("dtype"), lt.get("shape")
            if type(tid) is not int:  # bool is not an id
                raise ModelReadError(f"graph[{k}].{side}[{j}]: expected a logical tensor object with an integer \"id\"")
            if type(shape) is list and type(dtype) is str and dtype in names and _INTS.issuperset(map(type, shape)):
                # the types themselves: 1.0 == 1 and True == 1 would otherwise pass as dimensions
                info = known.get((dtype, tuple(shape)))
                if info is not None:
                    ids.append(str(tid))
                    infos.append(info)
                    continue
            infos.append(self.slow(lt, tid, dtype, shape, k, side, j))
            ids.append(str(tid))
        return tuple(ids), tuple(infos)

    def slow(self, lt: dict[str, Any], tid: int, dtype: Any, shape: Any, k: int, side: str, j: int) -> TensorInfo:
        """A logical tensor whose description is new, odd (no shape, an unknown dtype) or wrong."""
        if dtype is not None and not isinstance(dtype, str):
            raise ModelReadError(f"graph[{k}].{side}[{j}].dtype: expected a string")
        if dtype is not None and dtype != "undef" and dtype not in self.names:
            self.unknown_dtypes.setdefault(dtype, (str(tid), f"graph[{k}].{side}[{j}].dtype"))
        if shape is not None:
            # the types themselves: 1.0 == 1 and True == 1 would otherwise pass as dimensions
            if not isinstance(shape, list) or not _INTS.issuperset(map(type, shape)):
                raise ModelReadError(f"graph[{k}].{side}[{j}].shape: expected a list of integers")
            shape = tuple(shape)
        key = (dtype, shape)
        info = self.infos.get(key)
        if info is None:
            info = self.infos[key] = self._new(dtype, shape, f"graph[{k}].{side}[{j}].shape")
        return info

    def slow_typed(self, dtype: str | None, shape: tuple[int, ...] | None, tid: int, k: int, side: str,
                   j: int) -> TensorInfo:
        """A logical tensor of a typed document (opgen.validate.onednn_typed) whose description is new:
        its types were checked by the decoding."""
        if dtype is not None and dtype != "undef" and dtype not in self.names:
            self.unknown_dtypes.setdefault(dtype, (str(tid), f"graph[{k}].{side}[{j}].dtype"))
        info = self.infos.get((dtype, shape))
        if info is None:
            info = self.infos[(dtype, shape)] = self._new(dtype, shape, f"graph[{k}].{side}[{j}].shape")
        return info

    def _new(self, dtype: str | None, shape: tuple[Any, ...] | None, where: str) -> TensorInfo:
        # an unknown name is reported once, by the reader; the validators see an unknown dtype
        dtype = None if dtype is None else self.names.get(dtype)
        if shape is not None and len(shape) == 1 and shape[0] in UNKNOWN_DIMS:
            # oneDNN's value serializer writes {DNNL_GRAPH_UNKNOWN_DIM} for every shape it does not know
            # (logical_tensor_wrapper_t::is_shape_unknown: ndims < 0 or any dimension unknown), so the rank
            # is not known either; the graph model says "shape unknown" with None.
            shape = None
        if shape is not None:
            shape = tuple(None if d in UNKNOWN_DIMS else d for d in shape)
            check_shape(shape, self.limits, where)
        return TensorInfo(dtype, shape)


_INTS = frozenset((int,))


def _attributes(raw: Any, where: str, budget: AttributeBudget) -> tuple[dict[str, Any], dict[str, Any], int]:
    """(values, declared kinds, elements in list values) of an op's "attrs"."""
    if not isinstance(raw, dict):
        raise ModelReadError(f"{where}.attrs: expected an object")
    values: dict[str, Any] = {}
    kinds: dict[str, tuple[str, str]] = {}
    count = 0
    for name, attr in raw.items():
        if not isinstance(attr, dict) or "type" not in attr or "value" not in attr:
            raise ModelReadError(f"{where}.attrs.{name}: expected {{\"type\": ..., \"value\": ...}}")
        declared, value = attr["type"], attr["value"]
        if not isinstance(declared, str):
            raise ModelReadError(f"{where}.attrs.{name}.type: expected a string")
        if isinstance(value, list):
            budget.take(len(value), f"{where}.attrs.{name}")
            count += len(value)
        if declared == "bool" and value in (0, 1) and not isinstance(value, float):
            value = bool(value)  # oneDNN writes booleans as 0/1
        elif declared == "f32" and _int(value):
            value = float(value)
        elif declared == "f32[]" and isinstance(value, list):
            value = [float(v) if _int(v) else v for v in value]
        values[name] = value
        kinds[name] = (_ATTR_TYPES.get(declared, declared), declared)
    return values, kinds, count


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
