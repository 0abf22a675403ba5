"""Helpers for the generated element-wise NumPy kernels."""
from __future__ import annotations

from typing import Sequence

import ml_dtypes
import numpy as np

from . import broadcast
from ..dtypes import ELEM_TYPES
from ..dtypes import elem_of_numpy as elem  # noqa: F401  (used by generated kernels)

_LOW_PRECISION = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))


def compute_dtype(dtype: np.dtype) -> np.dtype:
    """float16 and bfloat16 are computed in float32 and rounded once at the end."""
    dtype = np.dtype(dtype)
    return np.dtype(np.float32) if dtype in _LOW_PRECISION else dtype


def numpy_dtype(elem: str) -> np.dtype:
    return ELEM_TYPES[elem].numpy


def finish(value: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Round the computed result once to the output dtype."""
    return np.asarray(value).astype(dtype, copy=False)


def align_onnx_prelu_legacy(slope: np.ndarray, x_shape: Sequence[int]) -> np.ndarray:
    return slope.reshape(broadcast.onnx_prelu_legacy(slope.shape, x_shape))


def align_onednn_prelu(slope: np.ndarray, src_shape: Sequence[int], data_format: str,
                       per_channel_broadcast: bool) -> np.ndarray:
    return slope.reshape(broadcast.onednn_prelu(slope.shape, src_shape, data_format, per_channel_broadcast))


def output_dtype(requested: str | np.dtype | None, first_input: np.dtype | None, allowed: tuple[str, ...],
                 name: str) -> np.dtype:
    """The dtype of an output that no input determines (e.g. Convert's T1, Cbrt's To, Iota's T).

    Given explicitly, it is used; otherwise the first input's dtype when the spec allows it."""
    if requested is not None:
        if isinstance(requested, str) and requested in ELEM_TYPES:
            return numpy_dtype(requested)
        return np.dtype(requested)
    if first_input is not None and elem(first_input) in allowed:
        return np.dtype(first_input)
    what = f"the input dtype {first_input} is not one of" if first_input is not None else "choose one of"
    raise ValueError(f"{name}_dtype is required: {what} {', '.join(allowed)}")


def compute_dtype_for(out: np.dtype, first_input: np.dtype) -> np.dtype:
    """Floating results are computed in the output's precision (float32 for float16/bfloat16);
    boolean and integer results in the input's."""
    out = np.dtype(out)
    if out.kind in "fc" or out in _LOW_PRECISION:
        return compute_dtype(out)
    return compute_dtype(first_input)


def align_xla(lhs: np.ndarray, rhs: np.ndarray, dims) -> tuple[np.ndarray, np.ndarray]:
    """XLA broadcast_dimensions: place the lower-rank operand's dimensions at `dims` of the other."""
    if dims is None or lhs.ndim == rhs.ndim:
        return lhs, rhs
    low, high = (lhs, rhs) if lhs.ndim < rhs.ndim else (rhs, lhs)
    shape = [1] * high.ndim
    for k, d in enumerate(dims):
        shape[d] = low.shape[k]
    low = low.reshape(shape)
    return (low, high) if lhs.ndim < rhs.ndim else (high, low)


def round_half_away(x: np.ndarray) -> np.ndarray:
    """Round half away from zero (C round), unlike np.round's half to even."""
    return np.where(np.isfinite(x), np.copysign(np.floor(np.abs(x) + 0.5), x), x)


def erf(x: np.ndarray) -> np.ndarray:
    from scipy.special import erf as _erf

    return _erf(x)
