"""Tensors filled with one value: ONNX ConstantOfShape (the shape read at run time from an input)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..context import TensorInfo
from .random import requested_shape


def _tensor_attribute(value: Any) -> np.ndarray:
    """A tensor attribute as an array: run_model passes the model's TensorInfo, its data in `.value`."""
    if isinstance(value, TensorInfo):
        if value.value is None:
            raise ValueError("ConstantOfShape: the value attribute's data is not available (external data?)")
        return np.asarray(value.value)
    return np.asarray(value)


def constant_of_shape(input: np.ndarray, *, value: np.ndarray | None = None,
                      output_dtype: np.dtype[Any] | None = None) -> np.ndarray:
    """A tensor of the shape `input` lists (empty: a scalar; a 0 entry: an empty tensor), every element
    equal to the one element of `value`, whose element type the result has; without value, float32 zeros.

    The output's type is the value's (ONNX), whatever `output_dtype` the caller declares: the generated
    kernel passes the declared type, or the input's (int64) when none is declared."""
    shape = requested_shape(input)
    fill = np.zeros((), np.float32) if value is None else _tensor_attribute(value)
    if fill.size != 1:
        raise ValueError(f"ConstantOfShape: value has {fill.size} elements, expected one")
    if output_dtype is not None and np.dtype(output_dtype) not in (fill.dtype, np.asarray(input).dtype):
        raise ValueError(f"ConstantOfShape: the output is declared {np.dtype(output_dtype)}, value is {fill.dtype}")
    return np.full(shape, fill.reshape(()), dtype=fill.dtype)
