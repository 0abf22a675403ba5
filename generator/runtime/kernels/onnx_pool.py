"""ONNX pooling: AveragePool, MaxPool, LpPool, GlobalAveragePool, GlobalMaxPool, GlobalLpPool, MaxRoiPool
and MaxUnpool, over the spatial axes 2, 3, ... of an (N, C, D1, ..., Dn) input.

AveragePool, MaxPool, GlobalAveragePool, GlobalMaxPool and MaxRoiPool are the hlir kernels
(kernels/window.py, kernels/reduction.py, kernels/vision.py) with ONNX's attribute names; LpPool uses
the same windowing helper. What ONNX means differently, each in a note of the spec:
- MaxPool's Indices with storage_order 1 are column-major over the spatial axes only, the batch and
  channel still counting in row-major order (n * C + c) * D1 * ... * Dn + column-major spatial index, as
  onnxruntime and onnx.reference compute them (hlir.MaxPool: column-major over the whole input);
- LpPool's padding and ceil_mode positions add nothing to the sum of |x|^p.
"""
from __future__ import annotations

from typing import Any, Sequence, cast

import numpy as np

from ..elementwise import compute_dtype, ieee_results
from .reduction import global_average_pool, global_max_pool
from .vision import max_roi_pool
from .window import average_pool, max_pool, pool_axes, window_view


def _spatial_dims(x: np.ndarray) -> list[int]:
    return list(range(2, x.ndim))


def onnx_average_pool(X: np.ndarray, *, auto_pad: str = "NOTSET", ceil_mode: int = 0, count_include_pad: int = 0,
                      dilations: Sequence[int] | None = None, kernel_shape: Sequence[int],
                      pads: Sequence[int] | None = None, strides: Sequence[int] | None = None) -> np.ndarray:
    """ONNX AveragePool (every version: the attributes a version lacks keep their defaults)."""
    x = np.asarray(X)
    return average_pool(x, dims=_spatial_dims(x), kernel_shape=kernel_shape, ceil_mode=bool(ceil_mode),
                        count_include_pad=bool(count_include_pad), strides=strides, padding=pads, auto_pad=auto_pad,
                        dilations=dilations)


def onnx_max_pool(X: np.ndarray, *, auto_pad: str = "NOTSET", ceil_mode: int = 0,
                  dilations: Sequence[int] | None = None, kernel_shape: Sequence[int],
                  pads: Sequence[int] | None = None, storage_order: int = 0, strides: Sequence[int] | None = None,
                  Indices_dtype: Any = "int64",
                  requested_outputs: Sequence[str] | None = None) -> tuple[np.ndarray, ...]:
    """ONNX MaxPool 8 to 22: (Y, Indices); (Y,) alone when the node does not ask for Indices
    (`requested_outputs`, which the graph runner gives: spec kernel.requested_outputs): the indices
    cost a fold over the window taps that the maximum alone does not need."""
    x = np.asarray(X)
    if storage_order not in (0, 1):
        raise ValueError(f"storage_order must be 0 or 1, got {storage_order}")
    # bfloat16 (an ml_dtypes type, which the hlir kernel does not order) is pooled in float32: exact
    work = x if x.dtype.kind in "fiu" else x.astype(compute_dtype(x.dtype))
    if requested_outputs is not None and "Indices" not in requested_outputs:
        if np.dtype(Indices_dtype or "int64") != np.int64:
            raise ValueError(f"Indices is int64, got {Indices_dtype}")
        alone = cast(np.ndarray, max_pool(work, kernel_shape=kernel_shape, strides=strides, padding=pads,
                                          dilations=dilations, auto_pad=auto_pad, ceil_mode=bool(ceil_mode)))
        return (alone.astype(x.dtype),)
    value, index = max_pool(work, kernel_shape=kernel_shape, strides=strides, padding=pads, dilations=dilations,
                            auto_pad=auto_pad, ceil_mode=bool(ceil_mode), return_indices=True, storage_order=0,
                            Indices_dtype=Indices_dtype or "int64")
    value = value.astype(x.dtype)
    if storage_order == 1 and index.size:  # column-major within each (n, c) plane
        spatial = x.shape[2:]
        step = int(np.prod(spatial, dtype=np.int64))
        found = index >= 0
        plane, within = np.divmod(np.where(found, index, 0), max(step, 1))
        column_major = np.ravel_multi_index(np.unravel_index(within, spatial), spatial, order="F")
        index = np.where(found, plane * step + column_major, -1).astype(np.int64)
    return value, index


def onnx_max_pool_v1(X: np.ndarray, *, auto_pad: str = "NOTSET", kernel_shape: Sequence[int],
                     pads: Sequence[int] | None = None, strides: Sequence[int] | None = None) -> np.ndarray:
    """ONNX MaxPool 1 (no Indices output)."""
    return onnx_max_pool(X, auto_pad=auto_pad, kernel_shape=kernel_shape, pads=pads, strides=strides,
                         requested_outputs=("Y",))[0]


@ieee_results
def onnx_lp_pool(X: np.ndarray, *, auto_pad: str = "NOTSET", ceil_mode: int = 0,
                 dilations: Sequence[int] | None = None, kernel_shape: Sequence[int], p: float = 2,
                 pads: Sequence[int] | None = None, strides: Sequence[int] | None = None) -> np.ndarray:
    """ONNX LpPool: (sum of |x|^p over each window) ^ (1 / p); padding and ceil_mode positions add
    nothing. Computed in float32 for float16/bfloat16, rounded once."""
    x = np.asarray(X)
    rank = len(kernel_shape)
    dims = _spatial_dims(x)
    axes = pool_axes(x.shape[2:], kernel_shape, list(strides or [1] * rank), list(dilations or [1] * rank),
                     auto_pad=auto_pad, padding=pads, ceil_mode=bool(ceil_mode))
    powered = np.abs(x.astype(compute_dtype(x.dtype))) ** p
    total = window_view(powered, dims, axes, 0).sum(axis=tuple(range(-rank, 0)))
    return (total ** (1.0 / p)).astype(x.dtype)


def onnx_global_average_pool(X: np.ndarray) -> np.ndarray:
    """ONNX GlobalAveragePool: hlir.GlobalAveragePool over every spatial axis."""
    x = np.asarray(X)
    return global_average_pool(x, dims=_spatial_dims(x))


def onnx_global_max_pool(X: np.ndarray) -> np.ndarray:
    """ONNX GlobalMaxPool: hlir.GlobalMaxPool over every spatial axis (NaN propagates)."""
    x = np.asarray(X)
    return global_max_pool(x, dims=_spatial_dims(x))


@ieee_results
def onnx_global_lp_pool(X: np.ndarray, *, p: float = 2) -> np.ndarray:
    """ONNX GlobalLpPool: (sum of |x|^p over every spatial axis) ^ (1 / p), the axes kept as size 1."""
    x = np.asarray(X)
    powered = np.abs(x.astype(compute_dtype(x.dtype))) ** p
    total = powered.sum(axis=tuple(_spatial_dims(x)), keepdims=True)
    return (total ** (1.0 / p)).astype(x.dtype)


def onnx_max_roi_pool(X: np.ndarray, rois: np.ndarray, *, pooled_shape: Sequence[int],
                      spatial_scale: float = 1.0) -> np.ndarray:
    """ONNX MaxRoiPool: hlir.MaxRoiPool in the NCHW layout."""
    return max_roi_pool(X, rois, layout="NCHW", pooled_shape=pooled_shape, spatial_scale=spatial_scale)


def onnx_max_unpool(X: np.ndarray, I: np.ndarray, output_shape: np.ndarray | None = None, *,
                    kernel_shape: Sequence[int], pads: Sequence[int] | None = None,
                    strides: Sequence[int] | None = None) -> np.ndarray:
    """ONNX MaxUnpool: zeros of the unpooled shape (N, C, (D - 1) * stride - pad_begin - pad_end + kernel,
    ...) with X[j] written at the flat (row-major) index I[j] (a later element wins a repeated index).
    An output_shape places that result at the start of a zero tensor of its shape (cut where shorter),
    as the onnx node test expects (note output_shape_corner; onnxruntime indexes into output_shape)."""
    x = np.asarray(X)
    rank = len(kernel_shape)
    strides_ = list(strides or [1] * rank)
    pads_ = list(pads or [0] * (2 * rank))
    unpooled = list(x.shape[:2]) + [(n - 1) * s - pads_[d] - pads_[rank + d] + k for d, (n, s, k)
                                    in enumerate(zip(x.shape[2:], strides_, kernel_shape))]
    index = np.asarray(I, np.int64).reshape(-1)
    size = int(np.prod(unpooled, dtype=np.int64))
    if index.size and (index.min() < 0 or index.max() >= size):
        raise ValueError(f"indices must lie in [0, {size}) (the unpooled shape is {unpooled})")
    flat = np.zeros(size, dtype=x.dtype)
    flat[index] = x.reshape(-1)
    result = flat.reshape(unpooled)
    if output_shape is None or not np.size(output_shape):
        return result
    shape = [int(v) for v in np.asarray(output_shape).reshape(-1)]
    if len(shape) != x.ndim:
        raise ValueError(f"output_shape has {len(shape)} values; X has rank {x.ndim}")
    out = np.zeros(shape, dtype=x.dtype)
    corner = tuple(slice(0, min(a, b)) for a, b in zip(shape, unpooled))
    out[corner] = result[corner]
    return out
