"""Checking an hlir graph document against its JSON Schema, fast when the schema is opgen's own.

jsonschema takes ~100 µs per node (11 s for a 100 000-node graph). For opgen's published schema,
most items of the big top-level lists (nodes, values, inputs, outputs) are plain: a node of name, op,
inputs, outputs and attributes; a value of name, dtype and shape. `plain_node` and `plain_value`
recognise such items with the schema's own constraints, conservatively (True only when the schema
certainly accepts the item; anything unusual is left to jsonschema). jsonschema then checks the
document with those items left out: nothing in the schema relates the items of a list to each other
or counts them, so the verdict, and the first errors, are those of the whole document; error paths
are mapped back to the original indices. Any other schema (--specs) is checked by jsonschema alone.
"""
from __future__ import annotations

import itertools
import re
from typing import Any, Callable

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # the schema's pattern, as a full match (no trailing \n)
_MAX_NAME = 1024
_MAX_RANK = 64
_MAX_DIM = 2**48
_VALUE_KEYS = frozenset(("name", "dtype", "shape"))
_NODE_KEYS = frozenset(("name", "op", "inputs", "outputs", "attributes"))
_STR = frozenset((str,))
_INT = frozenset((int,))
_SCALARS = frozenset((str, int, float, bool, type(None)))
# Containers from the document down to the deepest part of a plain item: the document, its list, the
# node, its attributes, an attribute's list.
PLAIN_DEPTH = 5


class PlainItems:
    """The predicates for one schema: the dtype names come from its own enum."""

    def __init__(self, schema: dict[str, Any]):
        self.dtypes = frozenset(d for d in schema["$defs"]["dtype"]["enum"] if type(d) is str)
        self.ops: set[str] = set()  # op names seen to match the schema's identifier pattern

    def _identifier(self, op: str) -> bool:
        if _IDENTIFIER.fullmatch(op) is None:
            return False
        self.ops.add(op)
        return True

    def value(self, item: Any) -> bool:
        if type(item) is not dict or not _VALUE_KEYS.issuperset(item):
            return False
        name = item.get("name")
        if type(name) is not str or not 1 <= len(name) <= _MAX_NAME:
            return False
        if "dtype" in item and (type(item["dtype"]) is not str or item["dtype"] not in self.dtypes):
            return False
        shape = item.get("shape")
        if shape is None:
            return True
        if type(shape) is not list or len(shape) > _MAX_RANK:
            return False
        if _INT.issuperset(map(type, shape)):  # the common case, in C calls: dimensions that are ints
            return not shape or (min(shape) >= 0 and max(shape) <= _MAX_DIM)
        return all(d is None or (type(d) is int and 0 <= d <= _MAX_DIM) for d in shape)

    def node(self, item: Any) -> bool:
        if type(item) is not dict or not _NODE_KEYS.issuperset(item):
            return False
        op, ins, outs = item.get("op"), item.get("inputs"), item.get("outputs")
        if type(op) is not str or (op not in self.ops and not self._identifier(op)):
            return False
        if type(ins) is not list or type(outs) is not list:
            return False
        if not _STR.issuperset(map(type, ins)) or not _STR.issuperset(map(type, outs)):
            return False
        if (ins and max(map(len, ins)) > _MAX_NAME) or (outs and max(map(len, outs)) > _MAX_NAME):
            return False
        if "name" in item and (type(item["name"]) is not str or len(item["name"]) > _MAX_NAME):
            return False
        attributes = item.get("attributes")
        if attributes is None:
            return "attributes" not in item  # null is not an object
        # Attribute values: scalars and lists of scalars only (anything deeper is left to the full checks),
        # so that a plain item nests at most PLAIN_DEPTH levels below the document and the structure
        # check (depth, string keys) can leave plain items out as the schema check does.
        return (type(attributes) is dict and all(type(k) is str and _IDENTIFIER.fullmatch(k) for k in attributes)
                and all(type(v) in _SCALARS or (type(v) is list and _SCALARS.issuperset(map(type, v)))
                        for v in attributes.values()))


def reduce_plain(doc: Any, schema: dict[str, Any]) -> tuple[Any, dict[str, list[int]]]:
    """The document without the top-level items the schema certainly accepts (see _reduce)."""
    return _reduce(doc, PlainItems(schema))


def _reduce(doc: Any, plain: PlainItems) -> tuple[Any, dict[str, list[int]]]:
    """The document without its plain top-level items, and for each shortened list the original
    index of every item kept."""
    if type(doc) is not dict:
        return doc, {}
    reduced, kept = dict(doc), {}
    for key, test in (("nodes", plain.node), ("values", plain.value), ("inputs", plain.value),
                      ("outputs", plain.value)):
        items = doc.get(key)
        if type(items) is not list:
            continue
        keep = [k for k, item in enumerate(items) if not test(item)]
        if len(keep) < len(items):
            reduced[key] = [items[k] for k in keep]
            kept[key] = keep
    return reduced, kept


def first_errors(doc: Any, schema: dict[str, Any], published: bool,
                 reduced: tuple[Any, dict[str, list[int]]] | None = None) -> tuple[list[Any], Callable[[Any], list[Any]]]:
    """Up to 50 schema errors in jsonschema's order, and the function that gives an error's path in
    the original document (for these errors and any error in their context). reduced: reduce_plain's
    answer for this document and schema, when the caller has it already."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    if reduced is None:
        reduced = _reduce(doc, PlainItems(schema)) if published else (doc, {})
    target, kept = reduced

    def locate(error: Any) -> list[Any]:
        parts = list(error.absolute_path)
        if len(parts) >= 2 and parts[0] in kept and isinstance(parts[1], int):
            parts[1] = kept[parts[0]][parts[1]]
        return parts

    return list(itertools.islice(validator.iter_errors(target), 50)), locate
