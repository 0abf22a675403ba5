"""hlir graph files (JSON or YAML, described by specs/schema/hlir-graph.schema.json) -> the graph model.

    format: opgen-hlir-graph
    version: 1
    inputs:    [{name: x, dtype: float, shape: [2, 3]}]
    constants: [{name: zero, dtype: float, value: 0.0}]
    values:    [{name: t, dtype: float, shape: [2, 3]}]          # optional declarations
    outputs:   [{name: y}]
    nodes:
      - {name: abs0, op: Abs, inputs: [x], outputs: [t]}
      - name: map0
        op: Map
        inputs: [t]
        outputs: [y]
        attributes: {dimensions: [0, 1]}
        graphs:
          computation: {inputs: [{name: a, dtype: float, shape: []}], outputs: [{name: b}],
                        nodes: [{op: Neg, inputs: [a], outputs: [b]}]}

The document is checked against the published JSON Schema first; anything it rejects is an
unreadable file (exit 2), with the JSON path of the first problem.
"""
from __future__ import annotations

import json
from typing import Any

import numpy as np

from ..dtypes import ELEM_TYPES
from ..runtime.validation import TensorInfo
from ..graph import UNKNOWN, Graph, Node
from .hlir_schema import PLAIN_DEPTH, first_errors, reduce_plain
from .limits import RUN_LIMITS, AttributeBudget, Limits, ModelReadError, check_shape
from .report import Record

FORMAT = "opgen-hlir-graph"


def is_hlir(doc: Any) -> bool:
    """A document with the hlir graph marker (a file decoded into opgen.validate.hlir_typed's records has it)."""
    if not isinstance(doc, dict):
        from .hlir_typed import TypedHlir

        return isinstance(doc, TypedHlir)
    return doc.get("format") == FORMAT


def check_structure(doc: Any, limits: Limits) -> None:
    """Nesting depth and mapping keys, before the schema (whose validator recurses) sees the document.

    Level by level, so that each container costs a few C-level calls rather than one Python step per
    element (a 100 000-node graph has 10^6 of them)."""
    level, depth = [doc] if isinstance(doc, (dict, list)) else [], 1
    while level:
        if depth > limits.max_json_depth:
            raise ModelReadError(f"the document nests more than {limits.max_json_depth} levels deep")
        below: list[Any] = []
        for item in level:
            if isinstance(item, dict):
                if not _STR.issuperset(map(type, item)):
                    bad = [key for key in item if not isinstance(key, str)]
                    if bad:
                        raise ModelReadError(f"mapping keys must be strings, found {bad[0]!r}")
                values = item.values()
                if not _SCALARS.issuperset(map(type, values)):
                    below += [v for v in values if isinstance(v, _CONTAINERS)]
            elif not _SCALARS.issuperset(map(type, item)):  # lists of names or dimensions: one C call
                below += [v for v in item if isinstance(v, _CONTAINERS)]
        level, depth = below, depth + 1


_STR = frozenset((str,))
_CONTAINERS = (dict, list)
_SCALARS = frozenset((str, int, float, bool, type(None)))


def _path(parts: Any) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "the document"


def check_schema(doc: Any, schema: dict[str, Any], reduced: tuple[Any, dict[str, list[int]]] | None = None) -> None:
    import jsonschema

    from .resources import published_hlir_graph_schema

    errors, locate = first_errors(doc, schema, reduced is not None or schema == published_hlir_graph_schema(), reduced)
    if errors:
        # The deepest error says what is wrong; "unevaluated properties" at a shallower level is its echo
        # (a failing subschema evaluates nothing), unless it is the only kind there is.
        specific = [e for e in errors if e.validator != "unevaluatedProperties"] or errors
        deepest = max(len(e.absolute_path) for e in specific)
        best = jsonschema.exceptions.best_match([e for e in specific if len(e.absolute_path) == deepest])
        path = _path(locate(best))
        message = best.message if len(best.message) <= 300 else best.message[:297] + "..."
        raise ModelReadError(f"not a valid hlir graph ({path}): {message}")


def read_hlir(doc: Any, limits: Limits, schema: dict[str, Any]) -> tuple[Graph, str, list[Record]]:
    from .resources import published_hlir_graph_schema

    if not isinstance(doc, dict):
        from .hlir_typed import TypedHlir, read_typed

        if isinstance(doc, TypedHlir):
            found = read_typed(doc, limits, schema)
            if found is not None:
                return found
            doc = doc.plain()
    reduced = None
    if limits.max_json_depth >= PLAIN_DEPTH and schema == published_hlir_graph_schema():
        # The items the schema certainly accepts are shallow and keyed by strings: the structure check
        # and the schema check both look at the rest only (one pass over the big lists, not three).
        reduced = reduce_plain(doc, schema)
        check_structure(reduced[0], limits)
    else:
        check_structure(doc, limits)
    try:
        check_schema(doc, schema, reduced)
    except RecursionError:
        raise ModelReadError("the document nests too deeply to be checked") from None
    domain = doc.get("domain", "hlir")
    opset = doc.get("opset")
    reader = _Reader(domain, opset, limits)
    graph = reader.graph(doc, 0, "")
    context = f"{domain} graph" + (f", opset {opset}" if opset is not None else "")
    return graph, context, reader.records




def graph_from_dict(raw: Any, domain: str = "hlir", opset: int | None = None,
                    limits: Limits = RUN_LIMITS) -> Graph:
    """An hlir graph given as a mapping (a graph attribute of a node or an example, without the file's
    `format`/`version` header) as the graph model, for the runner. Problems that would make a file
    unreadable raise ModelReadError; those a validation reports as records (a value declared twice)
    are left to validation."""
    if not isinstance(raw, dict) or not isinstance(raw.get("nodes"), list):
        raise ModelReadError(f"not an hlir graph: expected a mapping with a 'nodes' list, found {type(raw).__name__}")
    check_structure(raw, limits)
    try:
        return _Reader(domain, opset, limits).graph(raw, 0, "")
    except (KeyError, TypeError, AttributeError) as exc:
        raise ModelReadError(f"not an hlir graph: {type(exc).__name__}: {exc}") from None


class _Reader:
    def __init__(self, domain: str, opset: int | None, limits: Limits):
        self.domain, self.opset, self.limits = domain, opset, limits
        self.records: list[Record] = []
        self.nodes = 0
        self.infos: dict[tuple[Any, ...], TensorInfo] = {}
        self.budget = AttributeBudget(limits)

    def info(self, decl: dict[str, Any], what: str) -> TensorInfo:
        return self.info_of(decl.get("dtype"), decl.get("shape"), what)

    def info_of(self, dtype: str | None, shape: Any, what: str) -> TensorInfo:
        key = (dtype, None if shape is None else tuple(shape))
        info = self.infos.get(key)
        if info is None:  # a description seen before was checked then (the schema made its sizes ints)
            check_shape(key[1], self.limits, what)
            info = self.infos[key] = TensorInfo(*key)
        return info

    def declare(self, values: dict[str, TensorInfo], name: str, info: TensorInfo, path: str) -> None:
        """Enter a value's description; a second one that differs is reported."""
        first = values.get(name)
        if first is None or first is UNKNOWN:
            values[name] = info
        elif info is not UNKNOWN and (first.dtype, first.shape) != (info.dtype, info.shape):
            self.records.append(Record("error", "", f"value {name!r}", "is declared twice, as "
                                       f"{first.dtype} {first.shape} and as {info.dtype} {info.shape}",
                                       graph=path, found=name))

    def constant(self, decl: dict[str, Any], what: str, path: str) -> TensorInfo:
        dtype = decl["dtype"]
        try:
            array = np.array(decl["value"], dtype=ELEM_TYPES[dtype].numpy)
        except (ValueError, TypeError, OverflowError) as exc:
            raise ModelReadError(f"{what}: its value is not a {dtype} tensor ({exc})") from None
        check_shape(array.shape, self.limits, what)
        given = decl.get("shape")
        if given is not None and tuple(given) != array.shape:
            self.records.append(Record("error", "", what, f"declared shape {list(given)} differs from "
                                       f"the shape {list(array.shape)} of its value", graph=path,
                                       found=list(array.shape), expected=list(given)))
        value = array if array.size <= self.limits.max_constant_elements else None
        return TensorInfo(dtype, tuple(array.shape), value)

    def graph(self, raw: dict[str, Any], depth: int, path: str) -> Graph:
        if depth > self.limits.max_graph_depth:
            raise ModelReadError(f"graphs are nested more than {self.limits.max_graph_depth} deep")
        values: dict[str, TensorInfo] = {}

        def declare(name: str, info: TensorInfo) -> None:
            self.declare(values, name, info, path)

        inputs = []
        for decl in raw.get("inputs", []):
            inputs.append(decl["name"])
            declare(decl["name"], self.info(decl, f"input {decl['name']!r}"))
        constants = []
        for decl in raw.get("constants", []):
            constants.append(decl["name"])
            declare(decl["name"], self.constant(decl, f"constant {decl['name']!r}", path))
        for decl in raw.get("values", []):
            declare(decl["name"], self.info(decl, f"value {decl['name']!r}"))
        outputs = []
        for decl in raw.get("outputs", []):
            outputs.append(decl["name"])
            info = self.info(decl, f"output {decl['name']!r}")
            if info.dtype is not None or info.shape is not None:
                declare(decl["name"], info)

        raw_nodes = raw.get("nodes", [])
        self.nodes += len(raw_nodes)
        if self.nodes > self.limits.max_nodes:
            raise ModelReadError(f"more than {self.limits.max_nodes} nodes")
        nodes = []
        domain, opset = self.domain, self.opset
        for k, n in enumerate(raw_nodes):
            raw_attributes, raw_graphs = n.get("attributes", _NONE_GIVEN), n.get("graphs", _NONE_GIVEN)
            if type(raw_attributes) is dict and not raw_attributes and type(raw_graphs) is dict and not raw_graphs:
                # the common case: no attribute and no graph (given as {} or not at all)
                node = Node(k, n.get("name", ""), domain, n["op"], opset, tuple(n["inputs"]), tuple(n["outputs"]), "{}")
                nodes.append(node)
                continue
            attributes = dict(n.get("attributes", {}))
            for name, value in attributes.items():
                if isinstance(value, list):
                    self.budget.take(len(value), f"node #{k} attribute {name!r}" + (f" in {path}" if path else ""))
            node = Node(k, n.get("name", ""), self.domain, n["op"], self.opset, tuple(n["inputs"]),
                        tuple(n["outputs"]))
            node.attributes = attributes
            graphs = {}
            for name, sub in n.get("graphs", {}).items():
                if name in attributes:
                    self.records.append(Record("error", f"{self.domain}.{node.op}", f"attribute {name!r}",
                                               "is given both as an attribute and as a graph", node.name, k, path,
                                               name))
                sub_path = (f"{path} > " if path else "") + f"{node.label}.{name}"
                attributes[name] = graphs[name] = self.graph(sub, depth + 1, sub_path)
            if graphs:
                node.graphs = graphs
            node.attr_key = None if graphs else (_freeze(attributes) if attributes else "{}")
            nodes.append(node)
        return Graph(raw.get("name", ""), inputs, constants, outputs, values, nodes)


_NONE_GIVEN: dict[str, Any] = {}  # what a node without "attributes" or "graphs" holds (never changed)


def _freeze(attributes: dict[str, Any]) -> str | None:
    """A cache key for JSON attribute values (None when they are not plain JSON, e.g. YAML dates)."""
    try:
        return json.dumps(attributes, sort_keys=True, allow_nan=True)
    except (TypeError, ValueError):
        return None

