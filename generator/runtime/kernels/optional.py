"""ONNX optionals: Optional, OptionalHasElement and OptionalGetElement.

An optional is an `opgen.runtime.values.OptionalValue`: a tensor or a sequence, or nothing, with the
type of what it holds (tensor(float), seq(tensor(int64))), so that an empty optional still has a type.
From version 18, OptionalHasElement and OptionalGetElement also take a plain tensor or sequence, which
counts as a present value (ONNX's rule).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..values import OptionalValue, SequenceValue, value_type
from .onnx_value import copy_value


def optional(input: Any = None, *, type: str | None = None, output_dtype: Any = None) -> OptionalValue:
    """ONNX Optional: an optional holding (a copy of) input, or, without input, an empty optional of
    `type` (the element type, tensor(float) or seq(tensor(int64)), as the model reader spells the
    attribute). With both, input decides the type and `type` must name it."""
    if input is None:
        if type is None:
            raise ValueError("Optional without an input needs the type attribute")
        return OptionalValue(None, type)
    if isinstance(input, OptionalValue):
        raise ValueError("Optional takes a tensor or a sequence, found an optional (optionals do not nest)")
    if not isinstance(input, SequenceValue):
        input = np.asarray(input)
    held = value_type(input)
    if type is not None and held is not None and type != held:
        raise ValueError(f"input is a {held}, the type attribute says {type}")
    return OptionalValue(copy_value(input), held)


def optional_has_element(input: Any = None, *, output_dtype: Any = None) -> np.ndarray:
    """ONNX OptionalHasElement: a bool scalar, false for an empty optional or an absent input, true for
    an optional that holds a value or (version 18) a tensor or sequence given directly."""
    if input is None:
        return np.array(False)
    if isinstance(input, OptionalValue):
        return np.array(input.has_element())
    return np.array(True)


def optional_get_element(input: Any, *, output_dtype: Any = None) -> Any:
    """ONNX OptionalGetElement: (a copy of) the value an optional holds, or (version 18) the tensor or
    sequence given directly. An empty optional has no element: ONNX leaves the result undefined, this
    kernel raises ValueError (spec note empty_optional)."""
    if isinstance(input, OptionalValue):
        if input.value is None:
            raise ValueError(f"the optional is empty ({input.type or 'optional'}): it has no element to get")
        return copy_value(input.value)
    return copy_value(input)
