"""Reductions: ArgMax/ArgMin, Reduce and the global pools' shared machinery."""
from __future__ import annotations

import numpy as np


def _arg_extreme(x: np.ndarray, axis: int, keepdims: bool, select_last_index: bool, pick) -> np.ndarray:
    """Index of the first (or last) extreme along `axis`; NaN counts as the extreme, as in XLA/NumPy."""
    if select_last_index:
        flipped = np.flip(x, axis=axis)
        index = x.shape[axis] - 1 - pick(flipped, axis=axis)
    else:
        index = pick(x, axis=axis)
    index = np.asarray(index, dtype=np.int64)
    return np.expand_dims(index, axis) if keepdims else index


def argmax(input, *, axis, keepdims, select_last_index):
    return _arg_extreme(np.asarray(input), axis, keepdims, select_last_index, np.argmax)
