"""Run-time values that are not tensors: ONNX sequences and optionals.

A tensor is a NumPy array. A sequence is a `SequenceValue` (a list of arrays that knows its element
type, so an empty sequence still has one: SequenceEmpty's dtype); an optional is an `OptionalValue`
(holding a tensor, a sequence, or nothing, with its type). The validators see their types through
`value_type` (seq(tensor(float)), optional(tensor(int64))), as the specs spell them, and the kernels
of sequence and optional ops take and return them. Everything else stays an array.
"""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from ..dtypes import elem_of_numpy


class SequenceValue(list):  # type: ignore[type-arg]  # a list of arrays, as the kernels build them
    """An ONNX sequence: a list of tensors of one element type. `elem_type` is the tensor type of the
    elements (tensor(float)); None when the sequence is empty and nothing says what it would hold."""

    def __init__(self, items: Iterable[Any] = (), elem_type: str | None = None):
        arrays = [np.asarray(x) for x in items]
        super().__init__(arrays)
        if elem_type is None and arrays:
            elem_type = f"tensor({elem_of_numpy(arrays[0].dtype)})"
        self.elem_type = elem_type

    @property
    def type(self) -> str | None:
        return None if self.elem_type is None else f"seq({self.elem_type})"

    def __repr__(self) -> str:
        return f"SequenceValue({list.__repr__(self)}, elem_type={self.elem_type!r})"


class OptionalValue:
    """An ONNX optional: a tensor or a sequence, or nothing (`value is None`). `elem_type` is the type of
    what it holds (tensor(float), seq(tensor(int64))); None when empty and no type says it."""

    __slots__ = ("value", "elem_type")

    def __init__(self, value: Any = None, elem_type: str | None = None):
        if value is not None and not isinstance(value, SequenceValue):
            value = np.asarray(value)
        self.value = value
        if elem_type is None and value is not None:
            elem_type = value_type(value)
        self.elem_type = elem_type

    @property
    def type(self) -> str | None:
        return None if self.elem_type is None else f"optional({self.elem_type})"

    def has_element(self) -> bool:
        return self.value is not None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, OptionalValue):
            return NotImplemented
        if self.value is None or other.value is None:
            return self.value is other.value
        return bool(np.array_equal(self.value, other.value)) if isinstance(self.value, np.ndarray) \
            else self.value == other.value

    __hash__ = None  # type: ignore[assignment]  # mutable content, like a list

    def __repr__(self) -> str:
        return f"OptionalValue({self.value!r}, elem_type={self.elem_type!r})"


def is_value(x: Any) -> bool:
    """Whether x is a sequence or an optional (kept as it is where a tensor would become an array)."""
    return isinstance(x, (SequenceValue, OptionalValue))


def as_input(x: Any) -> Any:
    """A kernel argument: sequences and optionals as they are, anything else as an array."""
    return x if isinstance(x, (SequenceValue, OptionalValue)) else np.asarray(x)


def writable(x: Any) -> Any:
    """x with every read-only array it holds replaced by a writable copy (the others kept as they are).
    A kernel may return a read-only view of its input (a split part, a slice, a transposition, a reshape:
    data_movement's rule); what run_model hands to the user is an array the user may write into,
    sharing nothing with the inputs."""
    if isinstance(x, np.ndarray):
        return x if x.flags.writeable else x.copy()
    if isinstance(x, SequenceValue):
        if all(a.flags.writeable for a in x):
            return x
        return SequenceValue([writable(a) for a in x], x.elem_type)
    if isinstance(x, OptionalValue) and x.value is not None:
        held = writable(x.value)
        return x if held is x.value else OptionalValue(held, x.elem_type)
    return x


def value_type(x: Any) -> str | None:
    """The spec spelling of a value's type: tensor(float), seq(tensor(int64)), optional(...)."""
    if isinstance(x, (SequenceValue, OptionalValue)):
        return x.type
    return f"tensor({elem_of_numpy(np.asarray(x).dtype)})"


def common_shape(x: SequenceValue | OptionalValue) -> tuple[int, ...] | None:
    """The shape every tensor the value holds has (None when they differ, or it holds none)."""
    items = list(x) if isinstance(x, SequenceValue) else \
        ([] if x.value is None else list(x.value) if isinstance(x.value, SequenceValue) else [x.value])
    shapes = {a.shape for a in items}
    return next(iter(shapes)) if len(shapes) == 1 else None
