"""ONNX's element-type codes (TensorProto.DataType): the int attributes that name a type (dtype of the
random ops, output_dtype and precision of QuantizeLinear/DequantizeLinear) as NumPy dtypes; and the
rounding of float64 results to any of ONNX's floating types, once."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...dtypes import ELEM_TYPES, elem_of_numpy
from .conversion import _float64_to_float32_round_to_odd

# TensorProto.DataType, in code order: the element name (opgen's spelling) of each code.
DATA_TYPES: tuple[str, ...] = (
    "undefined", "float", "uint8", "int8", "uint16", "int16", "int32", "int64", "string", "bool", "float16",
    "double", "uint32", "uint64", "complex64", "complex128", "bfloat16", "float8e4m3fn", "float8e4m3fnuz",
    "float8e5m2", "float8e5m2fnuz", "uint4", "int4", "float4e2m1", "float8e8m0", "uint2", "int2",
    "float6e2m3", "float6e3m2",
)


def dtype_of_code(code: int, what: str = "dtype") -> np.dtype[Any]:
    """The NumPy dtype of a TensorProto.DataType code (ValueError for 0 and for unknown codes)."""
    code = int(code)
    if not 0 < code < len(DATA_TYPES):
        raise ValueError(f"{what}={code} is not an ONNX element type code")
    return ELEM_TYPES[DATA_TYPES[code]].numpy


def code_of_dtype(dtype: Any) -> int:
    """The TensorProto.DataType code of a NumPy dtype."""
    return DATA_TYPES.index(elem_of_numpy(np.dtype(dtype)))


def round_float64(value: np.ndarray, dtype: np.dtype[Any]) -> np.ndarray:
    """float64 values rounded once (to nearest, ties to even) to a floating dtype. NumPy rounds float64
    to float16 directly; the formats ml_dtypes reaches through float32 go through float32 rounded to odd,
    which keeps the information the final rounding needs (float32 has more than 2 extra bits)."""
    value = np.asarray(value, np.float64)
    dtype = np.dtype(dtype)
    with np.errstate(all="ignore"):
        if dtype in (np.dtype(np.float64), np.dtype(np.float16)):
            return value.astype(dtype)
        if dtype == np.float32:
            return value.astype(np.float32)
        return _float64_to_float32_round_to_odd(value).astype(dtype)
