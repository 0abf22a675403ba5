"""ONNX Resize (versions 10 to 19) and Upsample (1 to 10), on the separable resampler that hlir.Resize
uses (kernels/resize.py: `resample`, `source_coordinates`).

What ONNX means differently from hlir.Resize, each recorded in a note of the ONNX specs:
- the coordinate formulas use the node's scale when scales is given (hlir: output length / input
  length), and the resized length is then the fractional in_len * scale (the document's
  `output_width`; the node tests' align_corners cases depend on it);
- an output length from scales is floor(in_len * scale): the ROI does not shorten it (as onnx.reference
  and onnxruntime compute it, and as the spec's output shape says);
- axes, keep_aspect_ratio_policy (out = round-half-up(s * in_len) with one common scale s),
  antialias (the linear or cubic kernel widened by 1 / scale when shrinking) and half_pixel_symmetric;
- an empty scales or sizes tensor counts as absent (versions 11 and 13 allow empty names or tensors);
- Resize 10 and every Upsample are Resize with asymmetric coordinates, nearest rounding down (floor),
  which is how ONNX's version converter carries Resize 10 to Resize 11; Upsample 1's "bilinear" is linear.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .resize import resample, source_coordinates


def _given(value: Any) -> np.ndarray | None:
    """An optional input that counts as present: given and not empty."""
    if value is None:
        return None
    array = np.asarray(value)
    return array.reshape(-1) if array.size else None


def _targets(shape: Sequence[int], axes: list[int], scales: np.ndarray | None, sizes: np.ndarray | None,
             policy: str) -> tuple[list[int], list[float], list[float]]:
    """(output lengths, scales of the formulas, resized lengths) of every axis (1.0 and the input length
    for the axes not resized)."""
    out, scale, length = list(shape), [1.0] * len(shape), [float(n) for n in shape]
    if scales is not None:
        if len(scales) != len(axes):
            raise ValueError(f"scales has {len(scales)} values; {len(axes)} (one per resized axis) needed")
        for a, s in zip(axes, scales.astype(np.float64)):
            if not np.isfinite(s) or s <= 0:
                raise ValueError(f"scales must be positive and finite, got {scales.tolist()}")
            scale[a], length[a] = float(s), shape[a] * float(s)
            out[a] = int(np.floor(length[a]))
        return out, scale, length
    if sizes is None:
        raise ValueError("Resize needs scales or sizes (one of them non-empty)")
    if len(sizes) != len(axes):
        raise ValueError(f"sizes has {len(sizes)} values; {len(axes)} (one per resized axis) needed")
    if np.any(sizes < 0):
        raise ValueError(f"sizes must not be negative, got {sizes.tolist()}")
    ratios = [int(n) / shape[a] if shape[a] else 0.0 for a, n in zip(axes, sizes)]
    if policy == "stretch":
        for a, n, r in zip(axes, sizes, ratios):
            out[a], scale[a], length[a] = int(n), r, float(n)
        return out, scale, length
    if policy not in ("not_larger", "not_smaller"):
        raise ValueError(f"unknown keep_aspect_ratio_policy {policy!r}")
    common = min(ratios) if policy == "not_larger" else max(ratios)
    for a in axes:  # one scale for every resized axis; the length rounds half up
        out[a], scale[a], length[a] = int(np.floor(common * shape[a] + 0.5)), common, common * shape[a]
    return out, scale, length


def onnx_resize(X: np.ndarray, roi: np.ndarray | None = None, scales: np.ndarray | None = None,
                sizes: np.ndarray | None = None, *, mode: str = "nearest",
                coordinate_transformation_mode: str = "half_pixel", cubic_coeff_a: float = -0.75,
                exclude_outside: int = 0, extrapolation_value: float = 0.0, nearest_mode: str = "round_prefer_floor",
                antialias: int = 0, axes: Sequence[int] | None = None,
                keep_aspect_ratio_policy: str = "stretch") -> np.ndarray:
    """ONNX Resize 11, 13, 18 and 19 (the attributes a version lacks keep their defaults)."""
    x = np.asarray(X)
    rank = x.ndim
    resized = [int(a) % rank for a in axes] if axes is not None else list(range(rank))
    if len(set(resized)) != len(resized):
        raise ValueError(f"axes names an axis twice: {list(axes or [])}")
    scale_values, size_values = _given(scales), _given(sizes)
    if scale_values is not None and size_values is not None:
        raise ValueError("scales and sizes cannot both be given")
    out_shape, scale, length = _targets(x.shape, resized, scale_values,
                                        size_values.astype(np.int64) if size_values is not None else None,
                                        keep_aspect_ratio_policy)
    ctm = coordinate_transformation_mode.upper()
    starts, ends = np.zeros(rank), np.ones(rank)
    crop = ctm == "TF_CROP_AND_RESIZE"
    if crop:
        bounds = _given(roi)
        if bounds is None or len(bounds) != 2 * len(resized):
            raise ValueError(f"tf_crop_and_resize needs roi with {2 * len(resized)} values (starts, then ends)")
        bounds = bounds.astype(np.float64)
        starts[resized], ends[resized] = bounds[:len(resized)], bounds[len(resized):]
    outside = np.zeros(out_shape, dtype=bool) if crop else None
    coordinates: list[np.ndarray | None] = [None] * rank
    stretches = [1.0] * rank
    for a in resized:
        if x.shape[a] == 0 or out_shape[a] == 0:
            continue
        coords = source_coordinates(ctm, out_shape[a], x.shape[a], scale[a], length[a], starts[a], ends[a])
        if outside is not None:
            off = (coords < 0) | (coords > x.shape[a] - 1)
            outside |= off.reshape((-1,) + (1,) * (rank - a - 1))
        coordinates[a] = coords
        if antialias and mode in ("linear", "cubic") and scale[a] < 1:
            stretches[a] = 1.0 / scale[a]
    return resample(x, out_shape, coordinates, mode=mode.upper(), nearest_mode=nearest_mode.upper(),
                    cubic_coeff_a=cubic_coeff_a, exclude_outside=bool(exclude_outside), outside=outside,
                    extrapolation_value=extrapolation_value, stretches=stretches)


def onnx_resize_v10(X: np.ndarray, scales: np.ndarray, *, mode: str = "nearest") -> np.ndarray:
    """ONNX Resize 10, Upsample 9 and 10: scales for every axis, asymmetric coordinates, nearest = floor."""
    return onnx_resize(X, None, scales, None, mode=mode, coordinate_transformation_mode="asymmetric",
                       nearest_mode="floor")


def onnx_upsample_v7(X: np.ndarray, *, mode: str = "nearest", scales: Sequence[float]) -> np.ndarray:
    """ONNX Upsample 7: Upsample 9 with the scales as an attribute."""
    return onnx_resize_v10(X, np.asarray(scales, np.float32), mode=mode)


def onnx_upsample_v1(X: np.ndarray, *, height_scale: float, width_scale: float, mode: str = "nearest") -> np.ndarray:
    """ONNX Upsample 1: the height and width (axes 2 and 3) of an NCHW tensor; "bilinear" is linear."""
    scales = np.array([1.0, 1.0, height_scale, width_scale], np.float32)
    return onnx_resize_v10(X, scales, mode="linear" if mode == "bilinear" else mode)
