"""Ops of ONNX's ai.onnx.ml domain: ArrayFeatureExtractor, Binarizer, LabelEncoder and TreeEnsemble.

Strings are object arrays of Python str, as the runtime holds every string tensor.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np


def array_feature_extractor(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Z[..., j] = X[..., Y.flat[j]]: the leading axes kept, the last one indexed. A vector X gives one
    row, as onnxruntime (the operator's own runtime) and onnx.reference read the schema."""
    positions = np.asarray(Y, dtype=np.int64).reshape(-1)
    width = X.shape[-1]
    if positions.size and (positions.min() < 0 or positions.max() >= width):
        raise IndexError(f"positions {positions.tolist()} are out of range for a last axis of {width}")
    picked = np.take(X, positions, axis=-1)
    return picked.reshape(1, positions.size) if X.ndim == 1 else picked


def binarizer(X: np.ndarray, *, threshold: float = 0.0) -> np.ndarray:
    """1 where X > threshold, else 0, in X's type (NaN compares false and gives 0)."""
    return (X > threshold).astype(X.dtype)


# The output types of the values_* list attributes: ONNX stores floats as float32.
_LIST_TYPES = {"floats": np.float32, "int64s": np.int64, "strings": object}


def _first_given(kind: str, given: dict[str, Any]) -> tuple[str, Any]:
    chosen = [(suffix, value) for suffix, value in given.items() if value is not None]
    if len(chosen) != 1:
        raise ValueError(f"exactly one {kind}_* attribute must be given, found {len(chosen)}")
    return chosen[0]


def _key(value: Any) -> Any:
    """A dictionary key under which every NaN is one key (NaN keys match any NaN element)."""
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return value


def label_encoder(X: np.ndarray, *, default_float: float = -0.0, default_int64: int = -1,
                  default_string: str = "_Unused", default_tensor: np.ndarray | None = None,
                  keys_floats: Sequence[float] | None = None, keys_int64s: Sequence[int] | None = None,
                  keys_strings: Sequence[str] | None = None, keys_tensor: np.ndarray | None = None,
                  values_floats: Sequence[float] | None = None, values_int64s: Sequence[int] | None = None,
                  values_strings: Sequence[str] | None = None,
                  values_tensor: np.ndarray | None = None, Y_dtype: str | None = None) -> np.ndarray:
    """LabelEncoder 2 and 4: the i-th key maps to the i-th value; other elements get the default of
    the values' type. Of repeated keys the last one counts (a dict built in order). Y_dtype (the
    output's declared type, which the inputs do not decide) is not needed: the values' type is Y's."""
    _, keys = _first_given("keys", {"floats": keys_floats, "int64s": keys_int64s, "strings": keys_strings,
                                    "tensor": keys_tensor})
    kind, values = _first_given("values", {"floats": values_floats, "int64s": values_int64s,
                                           "strings": values_strings, "tensor": values_tensor})
    keys, values = list(np.asarray(keys).reshape(-1).tolist()), list(np.asarray(values).reshape(-1).tolist())
    if len(keys) != len(values):
        raise ValueError(f"{len(keys)} keys but {len(values)} values: they must pair up")
    if kind == "tensor":
        dtype: Any = np.asarray(values_tensor).dtype
        if default_tensor is not None:
            default: Any = np.asarray(default_tensor).reshape(-1)[0].item()
        else:  # the schema's defaults by type: "_Unused", -1, -0.0
            default = "_Unused" if dtype == object or dtype.kind in "US" else -1 if dtype.kind in "iu" else -0.0
        if dtype.kind in "US":
            dtype = object
    else:
        dtype = _LIST_TYPES[kind]
        default = {"floats": default_float, "int64s": default_int64, "strings": default_string}[kind]
    table = {_key(k): v for k, v in zip(keys, values)}
    flat = [table.get(_key(x), default) for x in np.asarray(X).reshape(-1).tolist()]
    return np.array(flat, dtype=dtype).reshape(np.shape(X))


def label_encoder_v1(X: np.ndarray, *, classes_strings: Sequence[str] | None = None, default_int64: int = -1,
                     default_string: str = "_Unused", Y_dtype: str | None = None) -> np.ndarray:
    """LabelEncoder 1: strings to their positions in classes_strings, or positions to strings (the
    input's type decides the direction, and so Y's type: Y_dtype is not needed)."""
    classes = list(classes_strings or [])
    flat = np.asarray(X).reshape(-1).tolist()
    if np.asarray(X).dtype.kind in "OUS":
        position = {s: k for k, s in reversed(list(enumerate(classes)))}  # the first occurrence counts
        return np.array([position.get(s, default_int64) for s in flat], dtype=np.int64).reshape(np.shape(X))
    out = [classes[k] if 0 <= k < len(classes) else default_string for k in flat]
    return np.array(out, dtype=object).reshape(np.shape(X))
