"""hlir graph files (JSON) decoded straight into typed records (msgspec), and read from them.

For a 100 000-node graph, json.loads, the schema's plain-item predicates (opgen.validate.hlir_schema)
and the dict reader each cost about as much as onnx.checker on an ONNX model of as many nodes. The
records below state the published schema's own constraints (specs/schema/hlir-graph.schema.json: no
unknown key, identifiers, name lengths, dtype names, ranks and dimensions, scalar attribute values or
lists of them), which msgspec checks in C while it decodes: a document they take whole is one the
schema accepts, but for its constants (kept raw, parsed by json.loads and checked by the schema as
before). A document they do not take (nested graphs, any value the schema may refuse, invalid JSON)
gives None, and the caller parses it with json.loads: the dict reader then reads it with the schema's
own errors. A typed document is read by the dict reader's rules only under the published schema and
a depth limit that plain items keep; otherwise its text is parsed again and read as a dict.
"""
from __future__ import annotations

import json
from typing import Annotated, Any, Literal, Union

import msgspec

from ..graph import Graph, Node
from .json_part import loads_part
from .limits import Limits, ModelReadError
from .report import Record

# The published schema's constraints (tests/test_validate_hlir_typed.py compares them with the schema)
_IDENTIFIER = "^[A-Za-z_][A-Za-z0-9_]*$"  # searched, as JSON Schema's pattern is ("Abs\n" matches)
_MAX_NAME = 1024
_MAX_RANK = 64
_MAX_DIM = 2**48
Dtype = Literal["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
                "bfloat16", "float", "double", "complex64", "complex128"]
_Identifier = Annotated[str, msgspec.Meta(pattern=_IDENTIFIER)]
_Name = Annotated[str, msgspec.Meta(max_length=_MAX_NAME)]
_Dim = Annotated[int, msgspec.Meta(ge=0, le=_MAX_DIM)]
_Scalar = Union[int, float, str, bool, None]


class _Value(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=_MAX_NAME)]
    dtype: Union[Dtype, msgspec.UnsetType] = msgspec.UNSET  # absent, never null (the schema refuses null)
    shape: Union[Annotated[tuple[Union[_Dim, None], ...], msgspec.Meta(max_length=_MAX_RANK)], None] = None


class _Node(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    op: _Identifier
    inputs: tuple[_Name, ...]
    outputs: tuple[_Name, ...]
    name: _Name = ""
    attributes: dict[_Identifier, Union[_Scalar, list[_Scalar]]] = {}


class _Document(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    format: Literal["opgen-hlir-graph"]
    version: Literal[1]
    nodes: list[_Node]
    domain: _Identifier = "hlir"
    opset: Union[Annotated[int, msgspec.Meta(ge=1)], msgspec.UnsetType] = msgspec.UNSET
    name: _Name = ""
    inputs: list[_Value] = []
    outputs: list[_Value] = []
    values: list[_Value] = []
    constants: Union[msgspec.Raw, msgspec.UnsetType] = msgspec.UNSET


class TypedHlir:
    """An hlir graph file decoded into typed records, with its text (read as a dict when the records
    cannot be read by themselves: another schema, a depth limit below a plain item's)."""

    __slots__ = ("records", "text")

    def __init__(self, records: _Document, text: bytes):
        self.records, self.text = records, text

    def get(self, key: str, default: Any = None) -> Any:
        """A top-level scalar as the document gives it (what reports and is_hlir read)."""
        if key in ("format", "version", "domain", "name"):
            return getattr(self.records, key)
        if key == "opset":
            return default if self.records.opset is msgspec.UNSET else self.records.opset
        return self.plain().get(key, default)

    def plain(self) -> Any:
        return json.loads(self.text)


_DECODER = msgspec.json.Decoder(_Document)
_NOT_TYPED = (msgspec.MsgspecError, UnicodeDecodeError, RecursionError, ValueError, OverflowError)


def decode(data: bytes) -> TypedHlir | None:
    """The document as typed records, or None when they do not take it whole (see the module's docstring)."""
    try:
        return TypedHlir(_DECODER.decode(data), data)
    except _NOT_TYPED:
        return None


def read_typed(doc: TypedHlir, limits: Limits, schema: dict[str, Any]) -> tuple[Graph, str, list[Record]] | None:
    """read_hlir's answer for a typed document, or None when its rules need the dict (see TypedHlir)."""
    from .hlir_reader import _freeze, _Reader, check_schema, check_structure
    from .hlir_schema import PLAIN_DEPTH
    from .resources import published_hlir_graph_schema

    if limits.max_json_depth < PLAIN_DEPTH or schema != published_hlir_graph_schema():
        return None
    body = doc.records
    constants: list[Any] = []
    if body.constants is not msgspec.UNSET:
        # the only part the records leave to the schema: checked as the whole document would be (every
        # other part is valid, and nothing in the schema relates one part to another)
        constants = loads_part(bytes(body.constants))
        rest = {"format": body.format, "version": body.version, "nodes": [], "constants": constants}
        check_structure(rest, limits)
        try:
            check_schema(rest, schema, (rest, {}))
        except RecursionError:
            raise ModelReadError("the document nests too deeply to be checked") from None
    domain = body.domain
    opset = None if body.opset is msgspec.UNSET else body.opset
    reader = _Reader(domain, opset, limits)
    values: dict[str, Any] = {}
    declare = reader.declare
    info = reader.info_of
    unset = msgspec.UNSET
    inputs = []
    for v in body.inputs:
        inputs.append(v.name)
        declare(values, v.name, info(None if v.dtype is unset else v.dtype, v.shape, f"input {v.name!r}"), "")
    constant_names = []
    for decl in constants:
        constant_names.append(decl["name"])
        declare(values, decl["name"], reader.constant(decl, f"constant {decl['name']!r}", ""), "")
    known = reader.infos.get
    for v in body.values:  # the big list: a description seen before, for a name not declared yet, inline
        dtype = None if v.dtype is unset else v.dtype
        described = known((dtype, v.shape))
        if described is None:
            described = info(dtype, v.shape, f"value {v.name!r}")
        if v.name in values:
            declare(values, v.name, described, "")
        else:
            values[v.name] = described
    outputs = []
    for v in body.outputs:
        outputs.append(v.name)
        described = info(None if v.dtype is unset else v.dtype, v.shape, f"output {v.name!r}")
        if described.dtype is not None or described.shape is not None:
            declare(values, v.name, described, "")
    if len(body.nodes) > limits.max_nodes:
        raise ModelReadError(f"more than {limits.max_nodes} nodes")
    nodes = []
    take = reader.budget.take
    for k, n in enumerate(body.nodes):
        attributes = n.attributes
        if not attributes:
            nodes.append(Node(k, n.name, domain, n.op, opset, n.inputs, n.outputs, "{}"))
            continue
        for name, value in attributes.items():
            if type(value) is list:
                take(len(value), f"node #{k} attribute {name!r}")
        node = Node(k, n.name, domain, n.op, opset, n.inputs, n.outputs, _freeze(attributes))
        node.attributes = attributes
        nodes.append(node)
    graph = Graph(body.name, inputs, constant_names, outputs, values, nodes)
    return graph, f"{domain} graph" + (f", opset {opset}" if opset is not None else ""), reader.records
