"""ONNX GridSample, RoiAlign, NonMaxSuppression and AffineGrid, on the hlir vision kernels
(kernels/vision.py).

What ONNX means differently from the hlir kernels, each in a note of the ONNX spec:
- GridSample samples N-D inputs (versions 20 and 22; 16 is 4-D), also by cubic interpolation (Keys,
  a = -0.75), and samples any element type: numbers other than floats are interpolated in float64 and
  rounded half to even with saturation, strings only by nearest. Its padding modes pad the coordinates
  as PyTorch's grid_sample and onnxruntime do: zeros reads 0 outside; border reads the edge pixel for
  every interpolation tap outside (Pad's edge mode on the pixel grid; onnx.reference clamps the
  coordinate instead, which differs for cubic); reflection mirrors the coordinate about the border,
  the edge pixel centres with align_corners (Pad's reflect mode on the pixel grid) and the outer pixel
  edges without (Pad's symmetric mode);
- RoiAlign's max mode takes, at each sampling point, the largest of the four weighted corner terms
  weight * value, and pools those (onnxruntime, onnx.reference); hlir.RoiAlign pools the bilinear samples;
- NonMaxSuppression keeps the boxes whose score is strictly greater than score_threshold, and every box
  when score_threshold is absent (hlir.NMS: not below the threshold).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..elementwise import compute_dtype
from .resize import finish_rounded
from .vision import normalized_to_pixel, roi_align, sample_points, select_boxes

_GRID_MODES = {"bilinear": "LINEAR", "linear": "LINEAR", "nearest": "NEAREST", "bicubic": "CUBIC", "cubic": "CUBIC"}


def onnx_grid_sample(X: np.ndarray, grid: np.ndarray, *, align_corners: int = 0, mode: str = "linear",
                     padding_mode: str = "zeros") -> np.ndarray:
    """ONNX GridSample: output[n, c, o...] samples X[n, c] at grid[n, o...] = (x, y, ...) normalized to
    [-1, 1], x indexing the last axis. A NaN coordinate gives NaN (0 for types without NaN)."""
    x = np.asarray(X)
    kind = _GRID_MODES.get(mode)
    if kind is None:
        raise ValueError(f"unknown GridSample mode {mode!r}")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"unknown padding_mode {padding_mode!r}")
    if x.dtype == object and kind != "NEAREST":
        raise ValueError("strings can only be sampled in nearest mode")
    g = np.asarray(grid, dtype=np.float64)
    rank = x.ndim - 2
    spatial = x.shape[2:]
    N, C = x.shape[:2]
    out_spatial = g.shape[1:-1]
    if g.shape[-1] != rank:
        raise ValueError(f"grid's last axis has {g.shape[-1]} coordinates; X has {rank} spatial axes")
    if kind == "NEAREST" or x.dtype.kind == "c":
        work = x
    elif x.dtype.kind in "iub":
        work = x.astype(np.float64)
    else:
        work = x.astype(compute_dtype(x.dtype), copy=False)
    if N * C == 0 or 0 in out_spatial or 0 in spatial:
        if 0 in spatial and padding_mode != "zeros" and g.size:
            raise ValueError("an empty input has no pixels to pad with")
        zero = np.array("" if x.dtype == object else 0).astype(x.dtype)
        return np.full((N, C, *out_spatial), zero, dtype=x.dtype)
    # coordinate d of the grid indexes spatial axis rank - 1 - d
    points = [normalized_to_pixel(g[..., rank - 1 - d], spatial[d], bool(align_corners)) for d in range(rank)]
    nan = np.any([np.isnan(p) for p in points], axis=0)
    points = [np.where(nan, 0.0, p) for p in points]
    if kind == "NEAREST":  # rounded before the border rules, as PyTorch does
        points = [np.rint(p) for p in points]
    if padding_mode == "border":  # every tap outside reads the edge pixel (note border_taps)
        pad = "PAD_EDGE"
    elif padding_mode == "reflection":
        pad = "PAD_REFLECT" if align_corners else "PAD_SYMMETRIC"
    else:
        pad = "PAD_VALUE"
    result = np.stack([sample_points(work[n], [p[n] for p in points], kind, pad) for n in range(N)])
    if nan.any():
        fill = np.nan if result.dtype.kind in "fc" else 0
        result = np.where(nan[:, None], np.array(fill).astype(result.dtype), result)
    if kind == "NEAREST":
        return result.astype(x.dtype)
    return finish_rounded(result, x.dtype)


def onnx_roi_align(X: np.ndarray, rois: np.ndarray, batch_indices: np.ndarray, *,
                   coordinate_transformation_mode: str = "output_half_pixel", mode: str = "avg",
                   output_height: int = 1, output_width: int = 1, sampling_ratio: int = 0,
                   spatial_scale: float = 1.0) -> np.ndarray:
    """ONNX RoiAlign (version 10 has no coordinate_transformation_mode: output_half_pixel)."""
    modes = {"avg": "ROIALIGN_AVG", "max": "MAX_WEIGHTED_CORNER"}
    transforms = {"half_pixel": "ROIALIGN_HALF_PIXEL", "output_half_pixel": "ROIALIGN_OUTPUT_HALF_PIXEL"}
    if mode not in modes or coordinate_transformation_mode not in transforms:
        raise ValueError(f"unknown RoiAlign mode {mode!r} or coordinate_transformation_mode "
                         f"{coordinate_transformation_mode!r}")
    return roi_align(X, rois, batch_indices, mode=modes[mode],
                     coordinate_transformation_mode=transforms[coordinate_transformation_mode],
                     output_height=output_height, output_width=output_width, sampling_ratio=sampling_ratio,
                     spatial_scale=spatial_scale)


def _scalar(value: np.ndarray | None, default: float) -> float:
    if value is None or np.size(value) == 0:
        return default
    return np.asarray(value).reshape(-1)[0].item()


def onnx_non_max_suppression(boxes: np.ndarray, scores: np.ndarray,
                             max_output_boxes_per_class: np.ndarray | None = None,
                             iou_threshold: np.ndarray | None = None, score_threshold: np.ndarray | None = None, *,
                             center_point_box: int = 0) -> np.ndarray:
    """ONNX NonMaxSuppression: rows [batch, class, box] of the kept boxes; an absent
    max_output_boxes_per_class keeps none, an absent iou_threshold is 0."""
    limit = int(_scalar(max_output_boxes_per_class, 0))
    iou = _scalar(iou_threshold, 0.0)
    candidate: Callable[[np.ndarray], Any]
    if score_threshold is None or np.size(score_threshold) == 0:
        candidate = np.ones_like
    else:
        threshold = np.float32(_scalar(score_threshold, 0.0))
        candidate = lambda s: s > threshold  # noqa: E731
    return select_boxes(boxes, scores, limit, iou, center_point_box,
                        lambda s: np.asarray(candidate(s), dtype=bool))


def onnx_affine_grid(theta: np.ndarray, size: np.ndarray, *, align_corners: int = 0) -> np.ndarray:
    """ONNX AffineGrid: for size (N, C, H, W) (or (N, C, D, H, W)), grid[n, h, w] = theta[n] @ (x_w, y_h, 1)
    with the pixel centres normalized to [-1, 1] (the edge pixel centres at -1 and 1 with align_corners,
    else the outer pixel edges; an axis of one pixel has its centre at 0 either way, as PyTorch's
    affine_grid: onnx.reference puts it at -1, onnxruntime at 1). Computed in float64, rounded once to
    theta's type."""
    t = np.asarray(theta)
    dims = [int(v) for v in np.asarray(size).reshape(-1)]
    spatial = dims[2:]
    rank = len(spatial)
    if rank not in (2, 3) or t.shape[1:] != (rank, rank + 1) or t.shape[0] != dims[0]:
        raise ValueError(f"theta has shape {t.shape}; size {dims} needs ({dims[0]}, {rank}, {rank + 1})")

    def centres(n: int) -> np.ndarray:
        if align_corners:  # one pixel: its centre is the middle, 0 (note unit_axis)
            return np.linspace(-1.0, 1.0, n) if n > 1 else np.zeros(n)
        return (2.0 * np.arange(n) + 1.0) / n - 1.0

    axes = np.meshgrid(*[centres(n) for n in spatial], indexing="ij")  # one per spatial axis (D, H, W order)
    homogeneous = np.stack([*axes[::-1], np.ones(spatial)], axis=-1)  # (..., x, y[, z], 1)
    grid = np.einsum("...k,nck->n...c", homogeneous, t.astype(np.float64))
    return grid.astype(t.dtype)

