"""ONNX values given rather than computed: Identity (a tensor, a sequence or an optional, copied) and
Constant (the tensor one of its attributes holds).

Every result is a new object: the graph runner hands a value to every node that reads it, so a kernel
never returns its input (or a view of it) as its output.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ...dtypes import ELEM_TYPES
from ..values import OptionalValue, SequenceValue
from .data_movement import constant as xla_constant


def copy_value(x: Any) -> Any:
    """A value as a new object: an array copied, a sequence or an optional rebuilt around copies."""
    if isinstance(x, SequenceValue):
        return SequenceValue([np.array(a, copy=True) for a in x], x.elem_type)
    if isinstance(x, OptionalValue):
        return OptionalValue(None if x.value is None else copy_value(x.value), x.elem_type)
    return np.array(x, copy=True)


def identity(input: Any) -> Any:
    """ONNX Identity: the input, copied (tensor, sequence or optional alike; NaN payloads and -0.0 kept)."""
    return copy_value(input)


def _strings(values: Any) -> np.ndarray:
    """An array of Python str (ONNX strings are UTF-8 bytes; onnx's numpy_helper gives them as bytes)."""
    arr = np.asarray(values, dtype=object)
    out = np.empty(arr.shape, dtype=object)
    for index, v in np.ndenumerate(arr):
        out[index] = v.decode("utf-8") if isinstance(v, bytes) else str(v)
    return out


def _tensor_attribute(value: Any, name: str) -> np.ndarray:
    """The array a tensor attribute holds: an array, or a TensorInfo the model reader made (its .value;
    the reader keeps values of constants up to limits.MAX_CONSTANT_ELEMENTS elements only)."""
    held = getattr(value, "value", value)
    if held is None:
        raise ValueError(f"the {name} attribute carries no value (the model reader keeps the data of tensors "
                         "with at most limits.MAX_CONSTANT_ELEMENTS elements, and none of sparse tensors)")
    arr = np.asarray(held)
    return _strings(arr) if arr.dtype == object or arr.dtype.kind in "SU" else arr


def constant(*, value: Any = None, sparse_value: Any = None, value_float: float | None = None,
             value_floats: Sequence[float] | None = None, value_int: int | None = None,
             value_ints: Sequence[int] | None = None, value_string: str | None = None,
             value_strings: Sequence[str] | None = None, output_dtype: Any = None) -> np.ndarray:
    """ONNX Constant: the tensor of the one attribute given. value (and sparse_value, given densified)
    keeps its element type and shape; value_float and value_int are float32 and int64 scalars,
    value_floats and value_ints 1-D float32 and int64 tensors, value_string(s) a string scalar (1-D
    tensor). A declared output type (output_dtype) must be that type. The copying is XLA Constant's
    (data_movement.constant), which checks the element type against the output's."""
    given = {name: v for name, v in (("value", value), ("sparse_value", sparse_value), ("value_float", value_float),
                                     ("value_floats", value_floats), ("value_int", value_int),
                                     ("value_ints", value_ints), ("value_string", value_string),
                                     ("value_strings", value_strings)) if v is not None}
    if len(given) != 1:
        raise ValueError(f"Constant needs exactly one value attribute, found {', '.join(given) or 'none'}")
    name, raw = given.popitem()
    if name in ("value", "sparse_value"):
        tensor = _tensor_attribute(raw, name)
    elif name in ("value_float", "value_floats"):
        tensor = np.asarray(raw, dtype=np.float32)
    elif name in ("value_int", "value_ints"):
        tensor = np.asarray(raw, dtype=np.int64)
    else:
        tensor = _strings(np.asarray(raw, dtype=object))
    if output_dtype is not None:
        wanted = ELEM_TYPES[output_dtype].numpy if isinstance(output_dtype, str) else np.dtype(output_dtype)
        return xla_constant(value=tensor, output_dtype=wanted)
    return np.array(tensor, copy=True)
