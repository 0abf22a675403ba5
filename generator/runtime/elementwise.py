"""Helpers for the generated element-wise NumPy kernels."""
from __future__ import annotations

from typing import Sequence

import ml_dtypes
import numpy as np

from . import broadcast
from ..dtypes import ELEM_TYPES

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
