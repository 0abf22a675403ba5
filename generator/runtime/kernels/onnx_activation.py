"""ONNX Softmax, LogSoftmax, Hardmax and Dropout, every version.

Softmax and LogSoftmax are hlir Softmax (`activation.softmax`: exp(x - max) / sum, accurate, epsilon 0) on
the axis ONNX names. What changed at opset 13 is that axis:
- before 13 (versions 1 and 11) the input is coerced to a 2-D matrix [a_0 * ... * a_(axis-1),
  a_axis * ... * a_(n-1)] and each row is normalised: all dimensions from axis on together;
- from 13 only the one dimension axis is normalised.
Hardmax marks the first largest element with 1 (reduction.argmax: NaN counts as the largest, as in
NumPy and onnx.reference), on the same two kinds of slices.

Dropout from version 12 is hlir Dropout (`activation.dropout`: training_mode and ratio inputs, seed).
Versions 7 and 10 have no input or attribute selecting the mode; a reference kernel runs them for
inference (output = data, mask all kept), as onnx.reference and onnxruntime do. Versions 1 and 6 select
it with is_test, whose default 0 means training: elements are dropped at random (no seed attribute).
"""
from __future__ import annotations

import numpy as np

from .. import elementwise as _ew
from .activation import dropout, softmax
from .reduction import argmax


def _as_rows(x: np.ndarray, axis: int) -> np.ndarray:
    """The 2-D view of ONNX's coerced softmax (before opset 13): dimensions before axis, then the rest."""
    a = axis % x.ndim if x.ndim else 0
    leading = int(np.prod(x.shape[:a], dtype=np.int64))
    trailing = int(np.prod(x.shape[a:], dtype=np.int64))
    return x.reshape(leading, trailing)


def _softmax(input: np.ndarray, axis: int, logarithmic: bool, coerced: bool) -> np.ndarray:
    x = np.asarray(input)
    if coerced:
        return softmax(_as_rows(x, axis), axis=1, accurate=True, logarithmic=logarithmic, epsilon=0.0).reshape(x.shape)
    return softmax(x, axis=axis, accurate=True, logarithmic=logarithmic, epsilon=0.0)


def onnx_softmax(input: np.ndarray, *, axis: int = -1) -> np.ndarray:
    """Softmax-13: exp(x) / sum(exp(x)) along the one dimension axis."""
    return _softmax(input, axis, logarithmic=False, coerced=False)


def onnx_softmax_2d(input: np.ndarray, *, axis: int = 1) -> np.ndarray:
    """Softmax-1/11: exp(x) / sum(exp(x)) over all dimensions from axis on together (the 2-D view)."""
    return _softmax(input, axis, logarithmic=False, coerced=True)


def onnx_log_softmax(input: np.ndarray, *, axis: int = -1) -> np.ndarray:
    """LogSoftmax-13: x - max - log(sum(exp(x - max))) along the one dimension axis."""
    return _softmax(input, axis, logarithmic=True, coerced=False)


def onnx_log_softmax_2d(input: np.ndarray, *, axis: int = 1) -> np.ndarray:
    """LogSoftmax-1/11: the logarithmic softmax over all dimensions from axis on together."""
    return _softmax(input, axis, logarithmic=True, coerced=True)


def _hardmax(x: np.ndarray, axis: int) -> np.ndarray:
    out = np.zeros(x.shape, x.dtype)
    if x.size == 0:
        return out
    first_largest = argmax(x, axis=axis, keepdims=True, select_last_index=False)
    np.put_along_axis(out, first_largest, np.ones((), x.dtype), axis=axis)
    return out


def onnx_hardmax(input: np.ndarray, *, axis: int = -1) -> np.ndarray:
    """Hardmax-13: 1 at the first largest element along axis, 0 elsewhere."""
    x = np.asarray(input)
    return _hardmax(x, axis % x.ndim if x.ndim else 0)


def onnx_hardmax_2d(input: np.ndarray, *, axis: int = 1) -> np.ndarray:
    """Hardmax-1/11: 1 at the first largest element of each row of the 2-D view, 0 elsewhere."""
    x = np.asarray(input)
    return _hardmax(_as_rows(x, axis), 1).reshape(x.shape)


# ---- Dropout -----------------------------------------------------------------------------------


def onnx_dropout(data: np.ndarray, ratio: np.ndarray | None = None, training_mode: np.ndarray | None = None, *,
                 seed: int | None = None) -> tuple[np.ndarray, ...]:
    """Dropout-12/13/22: hlir Dropout. float8 data (version 22) is computed in float32 and rounded once."""
    x = np.asarray(data)
    if x.dtype.name.startswith("float8"):  # ml_dtypes float8: computed in float32, not step by step in 8 bits
        output, mask = dropout(x.astype(np.float32), ratio, training_mode, seed=seed)
        return _ew.finish(output, x.dtype), mask
    return dropout(x, ratio, training_mode, seed=seed)


def onnx_dropout_inference(data: np.ndarray, *, ratio: float = 0.5,
                           mask_dtype: np.dtype | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Dropout-7/10: run for inference, output = data and the mask is all kept (true; 1 in data's type for
    version 7, whose mask has type T, which no mask_dtype names); ratio is unused."""
    x = np.asarray(data)
    return x.copy(), np.ones(x.shape, dtype=mask_dtype or x.dtype)


def onnx_dropout_is_test(data: np.ndarray, *, ratio: float = 0.5, is_test: int = 0,
                         consumed_inputs: list[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Dropout-1/6. is_test != 0: output = data, mask all 1 (every element kept; the text leaves the
    mask unfilled). is_test = 0 (the default): training, each element kept with probability 1 - ratio
    and scaled by 1 / (1 - ratio), drawn from an unseeded generator; mask in data's type."""
    x = np.asarray(data)
    if is_test:
        return x.copy(), np.ones(x.shape, dtype=x.dtype)
    output, mask = dropout(x, np.asarray(ratio), np.asarray(True), seed=None)
    return output, mask.astype(x.dtype)
