"""Vision kernels: RoiAlign, MaxRoiPool, NMS and GridSample (Resize and the shared interpolation
helpers are in resize.py).

Conventions (each recorded in the op's spec notes):
- float16 inputs are computed in float32 and rounded once; float and double in their own precision;
- coordinates (ROI corners, sampling points, grid positions) are computed in float64;
- RoiAlign samples by bilinear interpolation and pools the sampled values (avg or max);
- GridSample's padding modes pad the pixel grid as Pad does, and NEAREST/LINEAR are mode codes 0/1;
- NMS keeps boxes whose score is not below score_threshold and computes IoU in float32.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..elementwise import compute_dtype
from .resize import floor_fraction, linear_weights

# ---- RoiAlign -----------------------------------------------------------------------------------


def _roi_align_weights(coords: np.ndarray, length: int, dtype: np.dtype) -> np.ndarray:
    """Bilinear interpolation matrix (len(coords), length) with RoiAlign's boundary rule: a sample
    more than one pixel outside [0, length] is 0; otherwise the coordinate is clamped to [0, length-1]."""
    matrix = np.zeros((coords.size, length), dtype=dtype)
    if length == 0 or coords.size == 0:
        return matrix
    inside = (coords >= -1.0) & (coords <= length)
    clamped = np.clip(coords, 0.0, length - 1)
    low, t = floor_fraction(clamped)
    high = np.minimum(low + 1, length - 1)
    rows = np.nonzero(inside)[0]
    np.add.at(matrix, (rows, low[rows]), (1.0 - t[rows]).astype(dtype))
    np.add.at(matrix, (rows, high[rows]), t[rows].astype(dtype))
    return matrix


def roi_align(input: np.ndarray, rois: np.ndarray, batch_indices: np.ndarray, *, mode: str,
              coordinate_transformation_mode: str, output_height: int, output_width: int, sampling_ratio: int,
              spatial_scale: float) -> np.ndarray:
    x = np.asarray(input)
    work = x.astype(compute_dtype(x.dtype), copy=False)
    boxes = np.asarray(rois, dtype=np.float64)
    batch = np.asarray(batch_indices, dtype=np.int64)
    n, c, height, width = x.shape
    if batch.size and (batch.min() < 0 or batch.max() >= n):
        raise ValueError(f"batch_indices must lie in [0, {n - 1}], got {batch.tolist()}")
    offset = 0.5 if coordinate_transformation_mode == "ROIALIGN_HALF_PIXEL" else 0.0
    out = np.zeros((boxes.shape[0], c, output_height, output_width), dtype=work.dtype)
    for r, (box, b) in enumerate(zip(boxes, batch)):
        x1, y1, x2, y2 = box * spatial_scale - offset
        roi_w, roi_h = x2 - x1, y2 - y1
        if offset == 0.0:  # ROIALIGN_OUTPUT_HALF_PIXEL: regions are at least one pixel (backward compatible)
            roi_w, roi_h = max(roi_w, 1.0), max(roi_h, 1.0)
        bin_h, bin_w = roi_h / output_height, roi_w / output_width
        grid_h = sampling_ratio if sampling_ratio > 0 else int(np.ceil(roi_h / output_height))
        grid_w = sampling_ratio if sampling_ratio > 0 else int(np.ceil(roi_w / output_width))
        if grid_h <= 0 or grid_w <= 0:
            continue  # no sampling points: the pooled value is 0
        # sampling points: (grid + 0.5) / grid of the way through every bin
        ys = y1 + (np.arange(output_height)[:, None] + (np.arange(grid_h) + 0.5) / grid_h) * bin_h
        xs = x1 + (np.arange(output_width)[:, None] + (np.arange(grid_w) + 0.5) / grid_w) * bin_w
        wy = _roi_align_weights(ys.reshape(-1), height, work.dtype)
        wx = _roi_align_weights(xs.reshape(-1), width, work.dtype)
        samples = wy @ work[b] @ wx.T  # (C, rows of samples, columns of samples): separable bilinear
        samples = samples.reshape(c, output_height, grid_h, output_width, grid_w)
        if mode == "ROIALIGN_AVG":
            out[r] = samples.mean(axis=(2, 4))
        else:
            out[r] = samples.max(axis=(2, 4))
    return out.astype(x.dtype)


# ---- MaxRoiPool ---------------------------------------------------------------------------------


def _round_half_away(v: np.ndarray) -> np.ndarray:
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def max_roi_pool(input: np.ndarray, rois: np.ndarray, *, layout: str, pooled_shape: Sequence[int],
                 spatial_scale: float) -> np.ndarray:
    x = np.asarray(input)
    if layout == "NHWC":  # pool in NCHW; the output is [num_rois, channels, pooled_h, pooled_w] either way
        x = np.moveaxis(x, 3, 1)
    n, c, height, width = x.shape
    pooled_h, pooled_w = (int(p) for p in pooled_shape)
    boxes = np.asarray(rois, dtype=np.float64)
    out = np.zeros((boxes.shape[0], c, pooled_h, pooled_w), dtype=x.dtype)
    for r, box in enumerate(boxes):
        b = int(box[0])
        if not 0 <= b < n:
            raise ValueError(f"roi {r}: batch_id {box[0]} is outside [0, {n - 1}]")
        start_w, start_h, end_w, end_h = (int(v) for v in _round_half_away(box[1:] * spatial_scale))
        roi_h, roi_w = max(end_h - start_h + 1, 1), max(end_w - start_w + 1, 1)
        bin_h, bin_w = roi_h / pooled_h, roi_w / pooled_w
        for ph in range(pooled_h):
            h0 = min(max(int(np.floor(ph * bin_h)) + start_h, 0), height)
            h1 = min(max(int(np.ceil((ph + 1) * bin_h)) + start_h, 0), height)
            for pw in range(pooled_w):
                w0 = min(max(int(np.floor(pw * bin_w)) + start_w, 0), width)
                w1 = min(max(int(np.ceil((pw + 1) * bin_w)) + start_w, 0), width)
                if h1 > h0 and w1 > w0:  # an empty bin pools to 0
                    out[r, :, ph, pw] = x[b, :, h0:h1, w0:w1].max(axis=(1, 2))
    return out


# ---- NMS ----------------------------------------------------------------------------------------


def _corners(boxes: np.ndarray, center_point_box: int) -> tuple[np.ndarray, ...]:
    """(y_min, x_min, y_max, x_max) of every box."""
    if center_point_box == 0:  # [y1, x1, y2, x2], any pair of diagonal corners
        y_a, x_a, y_b, x_b = np.moveaxis(boxes, -1, 0)
        return np.minimum(y_a, y_b), np.minimum(x_a, x_b), np.maximum(y_a, y_b), np.maximum(x_a, x_b)
    xc, yc, w, h = np.moveaxis(boxes, -1, 0)  # [x_center, y_center, width, height]
    return yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2


def _suppresses(box: int, others: np.ndarray, corners: Sequence[np.ndarray], areas: np.ndarray,
                iou_threshold: np.float32) -> np.ndarray:
    """Which of `others` overlap `box` with IoU > iou_threshold (boxes of no area never overlap)."""
    y0, x0, y1, x1 = corners
    ih = np.minimum(y1[box], y1[others]) - np.maximum(y0[box], y0[others])
    iw = np.minimum(x1[box], x1[others]) - np.maximum(x0[box], x0[others])
    overlap = (ih > 0) & (iw > 0) & (areas[box] > 0) & (areas[others] > 0)
    inter = np.where(overlap, ih * iw, np.float32(0))
    union = areas[box] + areas[others] - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / np.where(union > 0, union, np.float32(1))
    return overlap & (union > 0) & (iou > iou_threshold)


def nms(boxes: np.ndarray, scores: np.ndarray, *, max_output_boxes_per_class: Any, iou_threshold: Any,
        score_threshold: Any, center_point_box: int) -> np.ndarray:
    boxes = np.asarray(boxes, dtype=np.float32)
    scores = np.asarray(scores, dtype=np.float32)
    if center_point_box not in (0, 1):
        raise ValueError(f"center_point_box must be 0 or 1, got {center_point_box}")
    threshold = np.float32(iou_threshold)
    selected = []
    if max_output_boxes_per_class > 0:
        for b in range(boxes.shape[0]):
            with np.errstate(over="ignore", invalid="ignore"):
                corners = _corners(boxes[b], center_point_box)
                areas = (corners[2] - corners[0]) * (corners[3] - corners[1])
            for k in range(scores.shape[1]):
                s = scores[b, k]
                candidates = np.nonzero(s >= np.float32(score_threshold))[0]  # NaN scores never qualify
                order = candidates[np.argsort(-s[candidates], kind="stable")]  # best first, ties by index
                kept = 0
                while order.size and kept < max_output_boxes_per_class:
                    best, order = order[0], order[1:]
                    selected.append((b, k, best))
                    kept += 1
                    with np.errstate(over="ignore", invalid="ignore"):
                        order = order[~_suppresses(best, order, corners, areas, threshold)]
    return np.array(selected, dtype=np.int64).reshape(-1, 3)


# ---- GridSample ---------------------------------------------------------------------------------

GRID_SAMPLE_MODES = {0: "NEAREST", 1: "LINEAR"}  # the order of Resize's mode values (note mode_codes)


def pad_index(index: np.ndarray, length: int, padding_mode: str) -> tuple[np.ndarray, np.ndarray]:
    """Where a pixel index outside [0, length) reads from, as Pad with padding_mode would fill it,
    and whether it reads the input at all (PAD_VALUE reads the constant 0 instead)."""
    if padding_mode == "PAD_VALUE":
        return np.clip(index, 0, length - 1), (index >= 0) & (index < length)
    if padding_mode == "PAD_EDGE":
        source = np.clip(index, 0, length - 1)
    elif padding_mode == "PAD_REFLECT":  # mirror about the edge pixels: ... 2 1 | 0 1 2 ... n-1 | n-2 ...
        period = 2 * (length - 1)
        m = np.mod(index, period) if period else np.zeros_like(index)
        source = np.where(m >= length, period - m, m)
    elif padding_mode == "PAD_SYMMETRIC":  # mirror including the edge pixels: ... 1 0 | 0 1 ... n-1 | n-1 ...
        period = 2 * length
        m = np.mod(index, period)
        source = np.where(m >= length, period - 1 - m, m)
    else:
        raise ValueError(f"unknown padding_mode {padding_mode!r}")
    return source, np.ones(index.shape, dtype=bool)


def grid_sample(input: np.ndarray, grid: np.ndarray, *, mode: int, align_corners: bool,
                padding_mode: str) -> np.ndarray:
    if mode not in GRID_SAMPLE_MODES:
        raise ValueError(f"mode must be 0 (NEAREST) or 1 (LINEAR), got {mode}")
    x = np.asarray(input)
    work = x.astype(compute_dtype(x.dtype), copy=False)
    g = np.asarray(grid, dtype=np.float64)
    n, c, height, width = x.shape
    _, out_h, out_w, _ = g.shape
    if height == 0 or width == 0:
        if padding_mode != "PAD_VALUE" and g.size:
            raise ValueError("an empty input has no pixels to pad with")
        return np.zeros((n, c, out_h, out_w), dtype=x.dtype)

    # [-1, 1] -> pixel coordinates; far-off positions are capped
    def pixel(normalized: np.ndarray, length: int) -> np.ndarray:
        if align_corners:
            p = (normalized + 1) / 2 * (length - 1)
        else:
            p = ((normalized + 1) * length - 1) / 2
        return np.clip(p, -2.0 ** 52, 2.0 ** 52)

    px, py = pixel(g[..., 0], width), pixel(g[..., 1], height)  # x indexes W, y indexes H
    nan = np.isnan(px) | np.isnan(py)
    px, py = np.where(nan, 0.0, px), np.where(nan, 0.0, py)
    batch = np.arange(n)[:, None, None]

    # values at integer pixels (N, Hout, Wout, C), 0 where PAD_VALUE pads
    def fetch(iy: np.ndarray, ix: np.ndarray) -> np.ndarray:
        sy, vy = pad_index(iy, height, padding_mode)
        sx, vx = pad_index(ix, width, padding_mode)
        values = work[batch, :, sy, sx]
        return np.where((vy & vx)[..., None], values, np.zeros((), work.dtype))

    if GRID_SAMPLE_MODES[mode] == "NEAREST":  # round half to even, as torch and ONNX do
        result = fetch(np.rint(py).astype(np.int64), np.rint(px).astype(np.int64))
    else:
        y0, ty = floor_fraction(py)
        x0, tx = floor_fraction(px)
        wy, wx = linear_weights(ty).astype(work.dtype), linear_weights(tx).astype(work.dtype)
        result = sum(fetch(y0 + i, x0 + j) * (wy[..., i] * wx[..., j])[..., None]
                     for i in range(2) for j in range(2))
    result = np.where(nan[..., None], np.array(np.nan, work.dtype), result)
    return np.moveaxis(result, 3, 1).astype(x.dtype)
