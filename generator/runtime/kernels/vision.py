"""Vision kernels: RoiAlign, MaxRoiPool, NMS and GridSample (Resize and the shared interpolation
helpers are in resize.py). The N-D point sampler (`sample_points`), the greedy box selection
(`select_boxes`) and RoiAlign also serve the ONNX kernels (onnx_vision.py, onnx_conv.py's DeformConv).

Conventions (each recorded in the op's spec notes):
- float16 inputs are computed in float32 and rounded once; float and double in their own precision;
- coordinates (ROI corners, sampling points, grid positions) are computed in float64;
- RoiAlign samples by bilinear interpolation and pools the sampled values (avg or max);
- GridSample's padding modes pad the pixel grid as Pad does, and NEAREST/LINEAR are mode codes 0/1;
- NMS keeps boxes whose score is not below score_threshold and computes IoU in float32.
"""
from __future__ import annotations

import itertools
from typing import Any, Sequence

import numpy as np

from ..elementwise import compute_dtype
from .resize import cubic_weights, floor_fraction, linear_weights

# ---- RoiAlign -----------------------------------------------------------------------------------


def _bilinear_taps(coords: np.ndarray, length: int) -> tuple[np.ndarray, ...]:
    """RoiAlign's boundary rule for sampling coordinates along one axis: a sample more than one pixel
    outside [0, length] reads nothing (valid False); otherwise the coordinate is clamped to
    [0, length - 1]. Returns (low, high, weight of low, weight of high, valid)."""
    inside = (coords >= -1.0) & (coords <= length)
    clamped = np.clip(coords, 0.0, length - 1)
    low, t = floor_fraction(clamped)
    high = np.minimum(low + 1, length - 1)
    return low, high, 1.0 - t, t, inside


def _roi_align_weights(coords: np.ndarray, length: int, dtype: np.dtype) -> np.ndarray:
    """Bilinear interpolation matrix (len(coords), length) under RoiAlign's boundary rule."""
    matrix = np.zeros((coords.size, length), dtype=dtype)
    if length == 0 or coords.size == 0:
        return matrix
    low, high, w_low, w_high, inside = _bilinear_taps(coords, length)
    rows = np.nonzero(inside)[0]
    np.add.at(matrix, (rows, low[rows]), w_low[rows].astype(dtype))
    np.add.at(matrix, (rows, high[rows]), w_high[rows].astype(dtype))
    return matrix


def _max_weighted_corner(image: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """(C, len(ys), len(xs)): at every sampling point the largest of its four bilinear corner terms
    weight * value (a point outside the rule reads 0 for every corner): ONNX RoiAlign's max mode."""
    height, width = image.shape[1:]
    y_low, y_high, wy_low, wy_high, y_in = _bilinear_taps(ys, height)
    x_low, x_high, wx_low, wx_high, x_in = _bilinear_taps(xs, width)
    valid = (y_in[:, None] & x_in[None, :]).astype(image.dtype)
    terms = [(wy[:, None] * wx[None, :] * valid).astype(image.dtype) * image[:, yi[:, None], xi[None, :]]
             for yi, wy in ((y_low, wy_low), (y_high, wy_high)) for xi, wx in ((x_low, wx_low), (x_high, wx_high))]
    return np.maximum.reduce(terms)


def roi_align(input: np.ndarray, rois: np.ndarray, batch_indices: np.ndarray, *, mode: str,
              coordinate_transformation_mode: str, output_height: int, output_width: int, sampling_ratio: int,
              spatial_scale: float) -> np.ndarray:
    """hlir.RoiAlign; also ONNX RoiAlign, whose max mode (MAX_WEIGHTED_CORNER, onnx_vision.py) pools the
    largest weighted corner term of every sample instead of the sampled values (note max_mode)."""
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
        ys = (y1 + (np.arange(output_height)[:, None] + (np.arange(grid_h) + 0.5) / grid_h) * bin_h).reshape(-1)
        xs = (x1 + (np.arange(output_width)[:, None] + (np.arange(grid_w) + 0.5) / grid_w) * bin_w).reshape(-1)
        if mode == "MAX_WEIGHTED_CORNER":
            samples = _max_weighted_corner(work[b], ys, xs)
        else:
            wy = _roi_align_weights(ys, height, work.dtype)
            wx = _roi_align_weights(xs, width, work.dtype)
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
    """hlir.NMS: the candidates are the boxes whose score is not below score_threshold."""
    threshold = np.float32(score_threshold)
    return select_boxes(boxes, scores, max_output_boxes_per_class, iou_threshold, center_point_box,
                        lambda s: s >= threshold)


def select_boxes(boxes: np.ndarray, scores: np.ndarray, max_output_boxes_per_class: Any, iou_threshold: Any,
                 center_point_box: int, candidate: Any) -> np.ndarray:
    """Greedy non-maximum suppression per (batch, class) among the boxes whose scores pass `candidate`
    (float32 scores -> mask): best score first (ties by index), a box is dropped when its IoU with a
    kept box exceeds iou_threshold; at most max_output_boxes_per_class per class. Rows [batch, class, box]."""
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
                with np.errstate(invalid="ignore"):
                    candidates = np.nonzero(candidate(s))[0]
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


def sample_points(image: np.ndarray, points: Sequence[np.ndarray], mode: str, padding_mode: str,
                  cubic_coeff_a: float = -0.75) -> np.ndarray:
    """image (C, S1, ..., Sn) sampled at pixel coordinates `points` (n arrays of one shape Q, float64,
    finite) -> (C, *Q) in image's dtype. NEAREST reads the pixel at the coordinate rounded half to even;
    LINEAR and CUBIC sum the 2**n / 4**n neighbours with (multi)linear or Keys cubic weights. A pixel index
    outside the image reads what padding_mode pads there (pad_index; PAD_VALUE: zero, "" for strings)."""
    shape = image.shape[1:]
    taps: list[tuple[np.ndarray, np.ndarray | None]]  # per axis: tap indices (..., taps), their weights
    if mode == "NEAREST":
        taps = [(np.rint(p).astype(np.int64)[..., None], None) for p in points]
    else:
        taps = []
        for p in points:
            low, t = floor_fraction(p)
            if mode == "LINEAR":
                taps.append((low[..., None] + np.arange(2), linear_weights(t)))
            else:
                taps.append((low[..., None] + np.arange(-1, 3), cubic_weights(t, cubic_coeff_a)))
    zero = np.array("" if image.dtype == object else 0).astype(image.dtype)
    real = image.real.dtype if image.dtype.kind == "c" else image.dtype
    result: np.ndarray | None = None
    for combination in itertools.product(*(range(index.shape[-1]) for index, _ in taps)):
        sources: list[np.ndarray] = []
        valid, weight = np.ones(points[0].shape, dtype=bool), None
        for d, (k, (index, weights)) in enumerate(zip(combination, taps)):
            source, reads = pad_index(index[..., k], shape[d], padding_mode)
            sources.append(source)
            valid &= reads
            if weights is not None:
                weight = weights[..., k] if weight is None else weight * weights[..., k]
        values = np.where(valid, image[(slice(None), *sources)], zero)  # type: ignore[arg-type]
        if weight is None:
            return values
        term = values * weight.astype(real)
        result = term if result is None else result + term
    assert result is not None  # at least one tap combination
    return result


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
    px = normalized_to_pixel(g[..., 0], width, align_corners)  # x indexes W, y indexes H
    py = normalized_to_pixel(g[..., 1], height, align_corners)
    nan = np.isnan(px) | np.isnan(py)
    px, py = np.where(nan, 0.0, px), np.where(nan, 0.0, py)
    result = np.stack([sample_points(work[b], [py[b], px[b]], GRID_SAMPLE_MODES[mode], padding_mode)
                       for b in range(n)]) if n else np.zeros((0, c, out_h, out_w), work.dtype)
    result = np.where(nan[:, None], np.array(np.nan, work.dtype), result)
    return result.astype(x.dtype)


def normalized_to_pixel(normalized: np.ndarray, length: int, align_corners: bool) -> np.ndarray:
    """A grid coordinate in [-1, 1] as a pixel coordinate: -1 and 1 are the centres of the edge pixels
    (align_corners) or their outer edges; far-off positions are capped at 2**52."""
    if align_corners:
        p = (normalized + 1) / 2 * (length - 1)
    else:
        p = ((normalized + 1) * length - 1) / 2
    return np.clip(p, -2.0 ** 52, 2.0 ** 52)
