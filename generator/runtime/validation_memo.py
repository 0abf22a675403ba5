"""The memo behind opgen.runtime.validation.validate: answers keyed exactly by (signature, dtypes, shapes,
attribute values), and by the bytes of small values when a check read values (see validate's docstring)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from .context import TensorInfo

if TYPE_CHECKING:
    from .validation import Signature

_CACHE: dict[tuple[Any, ...], tuple["Signature", Any]] = {}
_CACHE_SIZE = 4096
_SMALL_VALUE = 256  # elements: values up to this size are keyed by their bytes (shape and index tensors)
_READS_VALUES = ("the answer depends on values read",)  # the marker of such a key's first-level entry
_SIMPLE = frozenset({int, float, str, bool, type(None), np.float32, np.float64, np.int64, np.int32})
# Set when an answer given (memoised or computed) may depend on the values of tensors (a check read one,
# or the answer had no key): opgen.validate.checker clears it before a node and reads it after, to know
# whether the node's verdict may be reused for nodes whose values differ.
VALUES_MATTERED = [False]


def _freeze(value: Any) -> Any:
    """A hashable, type-preserving stand-in for an attribute value (TypeError if there is none)."""
    kind = type(value)
    if kind in _SIMPLE:  # the common case first: one set lookup
        return (kind, value)
    if kind is list or kind is tuple:
        types = tuple(map(type, value))
        if _SIMPLE.issuperset(types):
            # ints, floats: their types and the values, as two tuples built in C (pairing each value with
            # its type, as the elements' own keys do, allocated a tuple per element: twice the time); the
            # only 3-tuple key, so it equals no other kind's
            return (kind, types, tuple(value))
        return (kind, tuple([_freeze(v) for v in value]))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_freeze(v) for v in value))
    if isinstance(value, np.ndarray):
        # a small numeric tensor attribute (Constant's value) by its bytes: equal keys, equal tensors
        if value.dtype == object or value.size > 256:
            raise TypeError("strings and large arrays are not cached")
        return ("ndarray", value.dtype, value.shape, value.tobytes())
    if isinstance(value, TensorInfo):  # a reader's tensor attribute: its value too (TensorInfo's == ignores it)
        return ("TensorInfo", value.dtype, value.shape, None if value.value is None else _freeze(value.value))
    hash(value)
    return (type(value).__name__, value)


def _info_key(value: Any) -> Any:
    if value is None:
        return None
    kind = type(value)
    if kind is np.ndarray or kind is TensorInfo:
        return (value.dtype, value.shape)
    if isinstance(value, (np.ndarray, TensorInfo)):
        return (value.dtype, value.shape)
    if isinstance(value, tuple) and len(value) == 2:
        return (value[0], None if value[1] is None else tuple(value[1]))
    raise TypeError("not cached")


def _value_key(inputs: Sequence[Any], outputs: Sequence[Any] | None) -> tuple[Any, ...]:
    """The values given, as far as a cache key may hold them: the bytes of each small numeric array
    (its dtype and shape are in the first key), a marker for a larger or non-numeric one, None where
    no value is given."""
    parts: list[Any] = []
    for side in (inputs, outputs or ()):
        for v in side:
            value = v if type(v) is np.ndarray else getattr(v, "value", None)
            if type(value) is not np.ndarray:
                parts.append(None if value is None else "unkeyed")
            elif value.dtype == object or value.size > _SMALL_VALUE:
                parts.append("unkeyed")
            else:
                parts.append(value.tobytes())
    return tuple(parts)


def cache_key(sig: Signature, inputs: Sequence[Any], attributes: Mapping[str, Any] | None,
               outputs: Sequence[Any] | None) -> tuple[Any, ...] | None:
    try:
        # id(sig), not sig: a Signature holds dicts and callables, so it cannot be hashed (and hashing
        # it would cost more than the validation). The cache entry keeps sig alive (see validate).
        # The attributes in the order given (the kernels give them in one order): another order is
        # another key, which only costs a validation.
        ndarray = np.ndarray
        return (id(sig), tuple([(v.dtype, v.shape) if type(v) is ndarray else _info_key(v) for v in inputs]),
                tuple([(k, _freeze(v)) for k, v in attributes.items()]) if attributes else (),
                None if outputs is None else tuple([_info_key(v) for v in outputs]))
    except TypeError:
        return None


def memo_get(sig: Signature, key: tuple[Any, ...] | None, inputs: Sequence[Any],
             outputs: Sequence[Any] | None) -> Any:
    """The memoised answer under `key` (None when there is none); see opgen.runtime.validation.validate."""
    if key is None:
        return None
    cached = _CACHE.get(key)
    if cached is None or cached[0] is not sig:
        return None
    if cached[1] is _READS_VALUES:
        VALUES_MATTERED[0] = True
        cached = _CACHE.get((key, _value_key(inputs, outputs)))
        if cached is None:
            return None
    return cached[1]


def memo_put(sig: Signature, key: tuple[Any, ...] | None, answer: Any, largest_read: int,
             inputs: Sequence[Any], outputs: Sequence[Any] | None) -> None:
    """Memoise an answer computed with `largest_read` (CheckContext.largest_value_read); see
    opgen.runtime.validation.validate."""
    if key is None or largest_read >= 0:
        VALUES_MATTERED[0] = True
    if key is None or largest_read > _SMALL_VALUE:
        return
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.clear()
    # The entry keeps its signature alive: while it is cached, no other object can be given its id
    # (ids are reused once an object is freed), so id(sig) in the key names this signature only.
    if largest_read < 0:
        _CACHE[key] = (sig, answer)
    else:  # the answer depends on values read: the key says so, the values key the answer
        _CACHE[key] = (sig, _READS_VALUES)
        _CACHE[(key, _value_key(inputs, outputs))] = (sig, answer)
