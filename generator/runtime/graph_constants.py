"""The values of ONNX Constant nodes, kept for the graphs read after them (the graph runner's memo).

A Constant node has no inputs: its kernel's result (and its validation) depends on the node's
keywords alone (its attributes and the declared output type). The graph runner keeps each node's
result for the later runs of its graph; this module keeps small results by those keywords as well,
so that a model read again (each `opgen.run_model` call reads and validates the model anew) does
not run and validate its constants again. Keys hold every keyword exactly (arrays by element type,
shape and bytes; floats by their bits: -0.0 is not 0.0); a keyword that cannot be keyed (a large or
string tensor, a value the reader did not keep) leaves the node to its kernel.
"""
from __future__ import annotations

import struct
from typing import Any, Callable, Mapping

import numpy as np

_MAX_ELEMENTS = 256  # a larger value is not kept here (its bytes would cost more to key than to copy)
_MAX_ENTRIES = 1024
_KEPT: dict[tuple[Any, ...], tuple[Callable[..., Any], np.ndarray]] = {}


def _frozen(value: Any) -> Any:
    """A hashable stand-in that is equal only for an equal keyword (None: this value is not keyed)."""
    kind = type(value)
    if kind is str or kind is bool or kind is int:
        return (kind, value)
    if kind is float:
        return (kind, struct.pack("<d", value))  # the bits: NaN equals itself, -0.0 differs from 0.0
    if kind is np.ndarray:
        if value.dtype.kind in "OSU" or value.size > _MAX_ELEMENTS:  # strings: not keyed
            return None
        return (value.dtype, value.shape, value.tobytes())
    if kind is list or kind is tuple:
        items = tuple(_frozen(v) for v in value)
        return None if any(v is None for v in items) else (kind, items)
    return None


def _key(kernel: Callable[..., Any], kwargs: Mapping[str, Any]) -> tuple[Any, ...] | None:
    parts = []
    for name, value in kwargs.items():
        frozen = _frozen(value)
        if frozen is None:
            return None
        parts.append((name, frozen))
    # id(kernel): the entry keeps the kernel alive, so no other function can be given its id meanwhile
    return (id(kernel), tuple(parts))


def lookup(kernel: Callable[..., Any], kwargs: Mapping[str, Any]) -> np.ndarray | None:
    """The value a Constant node with these keywords gave before (shared: hand out copies), or None."""
    key = _key(kernel, kwargs)
    found = None if key is None else _KEPT.get(key)
    return found[1] if found is not None and found[0] is kernel else None


def remember(kernel: Callable[..., Any], kwargs: Mapping[str, Any], value: np.ndarray) -> None:
    """Keep what a Constant node's kernel gave for these keywords (value: an array no one else holds)."""
    if value.size > _MAX_ELEMENTS:
        return
    key = _key(kernel, kwargs)
    if key is None:
        return
    if len(_KEPT) >= _MAX_ENTRIES:
        _KEPT.clear()
    _KEPT[key] = (kernel, value)
