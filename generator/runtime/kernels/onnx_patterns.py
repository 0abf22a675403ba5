"""ONNX tensors made from a pattern of positions: OneHot, EyeLike, Range, and Trilu's triangular mask.

Element types named by a TensorProto DataType code (EyeLike's dtype, Range's stash_type) are read
through DATA_TYPES, the enum in code order (0 is UNDEFINED).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..elementwise import numpy_dtype
from .data_movement import trilu

# TensorProto.DataType names by code, as the specs' element type names (onnx.TensorProto: FLOAT = 1, ...)
DATA_TYPES = ("undefined", "float", "uint8", "int8", "uint16", "int16", "int32", "int64", "string", "bool", "float16",
              "double", "uint32", "uint64", "complex64", "complex128", "bfloat16", "float8e4m3fn", "float8e4m3fnuz",
              "float8e5m2", "float8e5m2fnuz", "uint4", "int4", "float4e2m1", "float8e8m0", "uint2", "int2")


def data_type(code: int, what: str) -> np.dtype:
    """The NumPy dtype of a TensorProto DataType code."""
    if not 0 < int(code) < len(DATA_TYPES):
        raise ValueError(f"{what} {code} is not a TensorProto data type code")
    return numpy_dtype(DATA_TYPES[int(code)])


def _scalar(value: Any) -> Any:
    """The one element of a scalar or one-element tensor, as a NumPy scalar of its type."""
    return np.asarray(value).reshape(-1)[0]


# ---- OneHot --------------------------------------------------------------------------------------


def one_hot(indices: np.ndarray, depth: np.ndarray, values: np.ndarray, *, axis: int = -1) -> np.ndarray:
    """ONNX OneHot: a new dimension of size depth at `axis` of the output; the entry whose position
    equals the index holds on_value = values[1], every other entry off_value = values[0]. Indices
    and depth of a floating type are cast to int64 first (toward zero); a negative index counts from
    the end (index + depth); an index outside [-depth, depth - 1] gives off_value along the whole new
    dimension. The output is chosen from values, not computed from them (onnx.reference computes
    hot * (on - off) + off, which differs for infinite or string values)."""
    idx = _int64_indices(indices)
    size = int(_int64_indices(_scalar(depth)))
    if size < 0:
        raise ValueError(f"depth {size} is negative")
    off, on = np.asarray(values).reshape(-1)[:2]
    out_rank = idx.ndim + 1
    a = axis % out_rank
    wrapped = np.where(idx < 0, idx + size, idx)
    view = [1] * out_rank
    view[a] = size
    hot = np.expand_dims(wrapped, a) == np.arange(size, dtype=np.int64).reshape(view)
    return np.where(hot, on, off).astype(np.asarray(values).dtype, copy=False)


def _int64_indices(values: Any) -> np.ndarray:
    """Indices of any numeric type as int64: floats truncated toward zero (non-finite ones, and
    unsigned values past the int64 range, become a value outside every depth)."""
    x = np.asarray(values)
    if x.dtype.kind == "f":
        finite = np.isfinite(x)
        truncated = np.clip(np.trunc(np.where(finite, x, 0)), -2.0**62, 2.0**62)  # past any depth: stays so
        return np.where(finite, truncated.astype(np.int64), np.iinfo(np.int64).min)
    if x.dtype.kind == "u" and x.dtype.itemsize == 8:
        x = np.minimum(x, np.uint64(np.iinfo(np.int64).max))
    return x.astype(np.int64)


# ---- EyeLike -------------------------------------------------------------------------------------


def eye_like(input: np.ndarray, *, dtype: int | None = None, k: int = 0,
             output_dtype: np.dtype | None = None) -> np.ndarray:
    """ONNX EyeLike: input's 2-D shape with ones where column - row = k and zeros elsewhere, of the
    element type `dtype` (a TensorProto code) when given, else `output_dtype` (the caller's), else
    input's. The attribute decides over output_dtype: the generated kernel defaults that one to the
    input's type, not knowing that an attribute names the type."""
    x = np.asarray(input)
    if dtype is not None:
        out = data_type(dtype, "dtype")
    else:
        out = np.dtype(output_dtype) if output_dtype is not None else x.dtype
    rows, cols = x.shape
    diagonal = np.arange(cols, dtype=np.int64)[None, :] - np.arange(rows, dtype=np.int64)[:, None] == int(k)
    return diagonal.astype(out)


# ---- Range ---------------------------------------------------------------------------------------


def onnx_range(start: np.ndarray, limit: np.ndarray, delta: np.ndarray, *, stash_type: int = 1) -> np.ndarray:
    """ONNX Range: max(ceil((limit - start) / delta), 0) elements, element i = start + i * delta.

    Integers are exact (the count in Python integers; start + i * delta wraps in int64 on the way but
    each result lies between start and limit, so it ends exact). Floating types count in float64 from
    the exact values; float and double elements are computed in float64 and rounded once. float16 and
    bfloat16 (version 27) compute in the type stash_type names, float32 (1, the default) or float64
    (11), or in their own type when stash_type names it (each operation rounded to it), then round."""
    first, last, step = _scalar(start), _scalar(limit), _scalar(delta)
    out = np.asarray(start).dtype
    if out.kind in "iu":
        lo, hi, by = int(first), int(last), int(step)
        if by == 0:
            raise ValueError("delta is 0")
        count = max(-((lo - hi) // by), 0)  # ceil((hi - lo) / by) in exact integers
        with np.errstate(over="ignore"):
            return (np.int64(lo) + np.arange(count, dtype=np.int64) * np.int64(by)).astype(out)
    lo64, hi64, by64 = float(first), float(last), float(step)
    if by64 == 0:
        raise ValueError("delta is 0")
    quotient = (hi64 - lo64) / by64
    if not np.isfinite(quotient):
        raise ValueError(f"Range from {lo64} to {hi64} by {by64} has no finite number of elements")
    count = max(int(np.ceil(quotient)), 0)
    work = _range_precision(out, stash_type)
    ramp = np.arange(count, dtype=np.int64).astype(work)
    return (work.type(first) + ramp * work.type(step)).astype(out)


def _range_precision(out: np.dtype, stash_type: int) -> np.dtype:
    if out.itemsize > 2:  # float, double: computed in double, rounded once
        return np.dtype(np.float64)
    stash = data_type(stash_type, "stash_type")
    if stash not in (np.dtype(np.float32), np.dtype(np.float64), out):
        raise ValueError(f"stash_type {DATA_TYPES[int(stash_type)]} is not float, double or the input type {out}")
    return stash


# ---- Trilu ---------------------------------------------------------------------------------------


def onnx_trilu(input: np.ndarray, k: np.ndarray | None = None, *, upper: int = 1) -> np.ndarray:
    """ONNX Trilu: data_movement.trilu with the diagonal offset from the optional scalar input k (0 when
    absent). For strings the cleared entries are "" (a string tensor's zero), which the shared
    function, filling with np.zeros of the type, cannot give for an object array."""
    x = np.asarray(input)
    offset = 0 if k is None else int(_scalar(k))
    if x.dtype != object:
        return trilu(x, upper=bool(upper), k=offset)
    keep = trilu(np.ones(x.shape[-2:], np.bool_), upper=bool(upper), k=offset)
    return np.where(keep, x, "").astype(object)
