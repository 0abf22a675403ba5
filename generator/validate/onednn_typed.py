"""oneDNN Graph JSON decoded straight into typed records (msgspec), and read from them.

json.loads of a 100 000-op graph builds ~2 million dicts, lists and strings (about twice onnx.checker's
time on the ONNX model of as many nodes); msgspec decodes the same text into a few small records per op,
checking in C the types the dict reader checks in Python (an integer id that is no bool; a dtype, one of
oneDNN Graph's names, or null; a shape of integers or null; the op's kind and name strings; lists of
tensors), and skips what opgen does not read (an op's id, a tensor's strides, layout and property type).
An op's "attrs" stay raw JSON text: ops repeat a few distinct attribute objects, each parsed once by
json.loads and converted by the dict reader's own code.

The typed decoding is only a faster way to the same answer: a document it does not take whole (a type
that differs, a data type oneDNN Graph does not name, invalid JSON, a byte-order mark, nesting too deep,
a "format" key that an hlir graph has) gives None, and the caller parses it with json.loads and reads it
with the dict reader, whose errors (located by JSON path, or by line and column for invalid JSON) stay
exactly what they were. Reading ops one after the other (rather than list by list) hashes each tensor's
description once; measured list by list, the descriptions were hashed twice and nothing was faster.
"""
from __future__ import annotations

import json
from itertools import chain
from operator import is_not
from typing import Any, Literal

import msgspec

from ..graph import Graph, Node
from ..runtime.validation import TensorInfo
from .json_part import loads_part
from .limits import AttributeBudget, Limits, ModelReadError
from .registry import Registry
from .report import Record

# oneDNN Graph's data type names (the onednn domain's dtype_names, and undef; a test compares them): decoded
# as one shared string each, whose hash is computed once. A file naming another type is read the dict way,
# which reports it.
DataType = Literal["undef", "f32", "bf16", "f16", "f64", "s8", "u8", "s32", "boolean", "s64", "f8_e4m3", "f8_e5m2",
                   "s4", "u4"]


class _Tensor(msgspec.Struct, gc=False):
    id: int
    dtype: DataType | None = None
    shape: tuple[int, ...] | None = None


_EMPTY_ATTRS = msgspec.Raw(b"{}")
_NULL = msgspec.Raw(b"null")


class _Op(msgspec.Struct, gc=False):
    kind: str
    name: str = ""
    attrs: msgspec.Raw = _EMPTY_ATTRS
    inputs: list[_Tensor] = []
    outputs: list[_Tensor] = []


class TypedOnednn(msgspec.Struct, gc=False):
    """A oneDNN Graph document as typed records (the top-level fields opgen reads; the small ones raw)."""

    graph: list[_Op]
    version: msgspec.Raw = _NULL
    engine_kind: msgspec.Raw = _NULL
    fpmath_mode: msgspec.Raw = _NULL
    input_ports: msgspec.Raw = _NULL
    output_ports: msgspec.Raw = _NULL
    # An hlir graph's marker: a document with a format other than null is not taken (decoding stops there,
    # so an hlir file costs no decoding here before json.loads reads it).
    format: None = None

    def get(self, key: str) -> Any:
        """A top-level field as json.loads would give it (None when absent), as doc.get does for a dict."""
        raw = getattr(self, key) if key in _RAW_FIELDS else None
        return None if raw is None else json.loads(bytes(raw))


_RAW_FIELDS = frozenset(("version", "engine_kind", "fpmath_mode", "input_ports", "output_ports"))
_DECODER = msgspec.json.Decoder(TypedOnednn)
# what decoding may raise for a document the typed records do not take whole
_NOT_TYPED = (msgspec.MsgspecError, UnicodeDecodeError, RecursionError, ValueError, OverflowError)


def decode(data: bytes) -> TypedOnednn | None:
    """The document as typed records, or None when they do not take it whole (see the module's docstring)."""
    try:
        doc = _DECODER.decode(data)
    except _NOT_TYPED:
        return None
    return doc


def read_typed(doc: TypedOnednn, registry: Registry, limits: Limits) -> tuple[Graph, str, list[Record]]:
    """read_onednn for a typed document: the same graph, records and errors (the types are checked)."""
    from .onednn_reader import DOMAIN, _attributes, _TensorReader, finish

    ops = doc.graph
    if len(ops) > limits.max_nodes:
        raise ModelReadError(f"more than {limits.max_nodes} ops")
    names = registry.dtype_names(DOMAIN)
    records: list[Record] = []
    tensor = _TensorReader(names, limits)
    known = tensor.infos
    budget = AttributeBudget(limits)
    # raw "attrs" text -> (values, kinds, list elements, attribute key); equal parsed objects share one key
    attr_cache: dict[bytes, tuple[dict[str, Any], dict[str, Any], int, str]] = {}
    attr_keys: dict[str, str] = {}
    nodes: list[Node] = []
    # every op's tensor ids and infos, outputs first (the producer's description is the declared one)
    all_ids: list[str] = []
    all_infos: list[TensorInfo] = []
    known_get = known.get
    for k, op in enumerate(ops):
        outs, ins = op.outputs, op.inputs
        out_ids = tuple([str(lt.id) for lt in outs])
        in_ids = tuple([str(lt.id) for lt in ins])
        lts = outs + ins
        infos: list[Any] = [known_get((lt.dtype, lt.shape)) for lt in lts]
        if not all(infos):  # a description not seen before (None; an info is true): checked and made once
            infos = [info if info is not None else
                     tensor.slow_typed(lt.dtype, lt.shape, lt.id, k, *_side(j, len(outs)))
                     for j, (lt, info) in enumerate(zip(lts, infos))]
        all_ids += out_ids
        all_ids += in_ids
        all_infos += infos
        raw = bytes(op.attrs)
        hit = attr_cache.get(raw)
        if hit is None:
            parsed = loads_part(raw)
            attr_values, kinds, count = _attributes(parsed, f"graph[{k}]", budget)  # takes its lists from the budget
            key = repr(parsed)  # as the dict reader keys them: 1, 1.0 and true differ
            hit = attr_cache[raw] = (attr_values, kinds, count, attr_keys.setdefault(key, key))
        elif hit[2]:
            budget.add(hit[2], f"graph[{k}].attrs")
        node = Node(k, op.name, DOMAIN, op.kind, None, in_ids, out_ids, hit[3])
        node.attributes, node.attr_kinds = hit[0], hit[1]
        nodes.append(node)
    # The first description of each tensor (a dict built backwards keeps the first); when every later one is
    # that same object (readers share one info per description), no description can contradict it.
    first_info = dict(zip(reversed(all_ids), reversed(all_infos)))
    values: dict[str, Any] = dict.fromkeys(all_ids)
    values.update(first_info)  # in the order of first description, as the dict reader has them
    if any(map(is_not, map(first_info.__getitem__, all_ids), all_infos)):
        _compare_descriptions(ops, all_ids, all_infos, records)
    produced = set(chain.from_iterable([node.outputs for node in nodes]))
    return finish(doc, nodes, values, _in_order(nodes), produced, tensor, records, names)


def _in_order(nodes: list[Node]) -> bool:
    """Whether no op uses a tensor that no earlier op produced but it or a later op does (as the dict
    reader tells). Looked at backwards first, two C calls per op: when no op uses a tensor that it or a
    later op produces, the ops are in order; otherwise the exact test decides (a tensor produced twice)."""
    later: set[str] = set()
    for node in reversed(nodes):
        later.update(node.outputs)
        if not later.isdisjoint(node.inputs):
            break
    else:
        return True
    produced: set[str] = set()
    pending: set[str] = set()
    for node in nodes:
        if not produced.issuperset(node.inputs):
            pending.update([t for t in node.inputs if t not in produced])
        produced.update(node.outputs)
    return pending.isdisjoint(produced)


def _side(j: int, outputs: int) -> tuple[str, int]:
    return ("outputs", j) if j < outputs else ("inputs", j - outputs)


def _compare_descriptions(ops: list[_Op], ids: list[str], infos: list[TensorInfo], records: list[Record]) -> None:
    """A record for each description of a tensor that contradicts its first one (as the dict reader finds them)."""
    from .onednn_reader import _conflict, _mismatch

    described: dict[str, tuple[TensorInfo, int]] = {}  # tensor id -> (first info, index of the op giving it)
    position = 0
    for k, op in enumerate(ops):
        end = position + len(op.outputs) + len(op.inputs)
        for tid, info in zip(ids[position:end], infos[position:end]):
            first = described.get(tid)
            if first is None:
                described[tid] = (info, k)
            elif info is not first[0] and _conflict(info, first[0]):
                records.append(_mismatch(tid, info, _label(ops, k), first[0], _label(ops, first[1])))
        position = end


def _label(ops: list[_Op], k: int) -> str:
    name = ops[k].name
    return f"op {name!r} (#{k})" if name else f"op #{k}"
