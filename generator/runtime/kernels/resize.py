"""Resize, and the interpolation helpers the vision kernels share (vision.py: RoiAlign, GridSample).
The separable resampler (`resample`) and the coordinate formulas (`source_coordinates`) also serve ONNX
Resize and Upsample (onnx_resize.py), which differ in the scale the formulas use.

Resize is separable: an N-linear (N-cubic, nearest) resize is one 1-D resize per axis, each a gather
of a few neighbouring positions ("taps") and a weighted sum over them. Conventions (spec notes of
hlir.Resize):
- x_original follows the document's formulas with scale = length_resized / length_original, also
  when the node gives scales (note scale_in_formulas);
- the output length from scales is floor(length * (roi_end - roi_start) * scale), roi counting only in
  TF_CROP_AND_RESIZE mode (note output_length);
- neighbours outside the input take the edge value (clamped index) unless exclude_outside drops them;
- NEAREST copies input elements (exact for every dtype); LINEAR/CUBIC compute floating types in their
  precision (float32 for float16/bfloat16), complex in its own, integers and bool in float64 then round
  half to even and saturate (note integer_rounding).
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..elementwise import compute_dtype

# ---- shared interpolation helpers ---------------------------------------------------------------


def floor_fraction(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(floor(x) as int64, x - floor(x)): the left neighbour of each coordinate and the distance to it."""
    low = np.floor(x)
    return low.astype(np.int64), x - low


def linear_weights(t: np.ndarray) -> np.ndarray:
    """Weights of the taps floor(x), floor(x)+1 for fractions t: shape t.shape + (2,)."""
    return np.stack([1.0 - t, t], axis=-1)


def cubic_weights(t: np.ndarray, a: float) -> np.ndarray:
    """Keys' cubic convolution weights of the taps floor(x)-1 .. floor(x)+2 (distances 1+t, t, 1-t, 2-t)."""
    def near(d: np.ndarray) -> np.ndarray:  # |d| <= 1
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d: np.ndarray) -> np.ndarray:  # 1 < |d| < 2
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a

    return np.stack([far(1 + t), near(t), near(1 - t), far(2 - t)], axis=-1)


def round_nearest(x: np.ndarray, nearest_mode: str) -> np.ndarray:
    """The "nearest" integer position to x by Resize's nearest_mode."""
    if nearest_mode == "ROUND_PREFER_FLOOR":  # halves go down
        index = np.ceil(x - 0.5)
    elif nearest_mode == "ROUND_PREFER_CEIL":  # halves go up
        index = np.floor(x + 0.5)
    elif nearest_mode == "FLOOR":
        index = np.floor(x)
    elif nearest_mode == "CEIL":
        index = np.ceil(x)
    else:
        raise ValueError(f"unknown nearest_mode {nearest_mode!r}")
    return index.astype(np.int64)


def finish_rounded(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Computed values to the output dtype: floats and complex round once; integers and bool round
    half to even and saturate to the type's range (bool: [0, 1])."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iub":
        low, high = (0, 1) if dtype.kind == "b" else (np.iinfo(dtype).min, np.iinfo(dtype).max)
        rounded = np.clip(np.rint(values), low, high)
        if dtype.kind == "b":
            return rounded != 0
        # float64 cannot hold 2**63 - 1: clip again after the conversion of the saturated bound
        big = rounded >= float(high)
        out = rounded.astype(dtype)
        return np.where(big, np.array(high, dtype), out)
    return values.astype(dtype)


# ---- Resize -----------------------------------------------------------------------------------


def source_coordinates(ctm: str, out_len: int, in_len: int, scale: float, length: float, start: float = 0.0,
                       end: float = 1.0) -> np.ndarray:
    """x_original of every output position along one axis (the document's formulas, in float64).
    `scale` is the scale of the formulas and `length` the resized length, fractional when it comes from
    a scale factor: hlir passes out_len / in_len and out_len (note scale_in_formulas), ONNX Resize the
    node's scale and in_len * scale. A resized length of at most 1 maps to 0 (align_corners: the formula
    divides 0 by 0; pytorch_half_pixel by definition) or to the ROI centre (tf_crop_and_resize)."""
    x = np.arange(out_len, dtype=np.float64)
    if ctm == "HALF_PIXEL":
        return (x + 0.5) / scale - 0.5
    if ctm == "HALF_PIXEL_SYMMETRIC":  # half_pixel, shifted so that a fractional length stays centred
        return in_len / 2 * (1 - out_len / length) + (x + 0.5) / scale - 0.5
    if ctm == "ASYMMETRIC":
        return x / scale
    if ctm == "PYTORCH_HALF_PIXEL":
        return (x + 0.5) / scale - 0.5 if length > 1 else np.zeros(out_len)
    if ctm == "TF_HALF_PIXEL_FOR_NN":
        return (x + 0.5) / scale
    if ctm == "ALIGN_CORNERS":
        return x * (in_len - 1) / (length - 1) if length > 1 else np.zeros(out_len)
    if ctm == "TF_CROP_AND_RESIZE":
        if length > 1:
            return start * (in_len - 1) + x * (end - start) * (in_len - 1) / (length - 1)
        return np.full(out_len, 0.5 * (start + end) * (in_len - 1))
    raise ValueError(f"unknown coordinate_transformation_mode {ctm!r}")


def _output_shape(shape: Any, roi_start: np.ndarray, roi_end: np.ndarray, scales: Any,
                  sizes: Sequence[int]) -> list[int]:
    if sizes is not None:
        out = [int(s) for s in np.asarray(sizes).reshape(-1)]
        if any(s < 0 for s in out):
            raise ValueError(f"sizes must not be negative, got {out}")
        return out
    scales = np.asarray(scales, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(scales)) or np.any(scales <= 0):
        raise ValueError(f"scales must be positive and finite, got {scales.tolist()}")
    lengths = np.asarray(shape, np.float64) * (roi_end - roi_start) * scales
    if np.any(lengths < 0):
        raise ValueError("roi_end - roi_start must not be negative when the output length comes from scales")
    return [int(n) for n in np.floor(lengths)]


def _resize_axis(data: np.ndarray, axis: int, index: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    """Gather `index` (out_len, taps) along `axis` and sum the taps with `weights` (or take tap 0)."""
    gathered = np.take(data, index, axis=axis)  # axis -> (out_len, taps)
    if weights is None:
        return gathered[(slice(None),) * (axis + 1) + (0,)]
    real = np.empty(0, data.dtype).real.dtype  # complex values take real weights of their precision
    w = weights.astype(real).reshape(weights.shape + (1,) * (data.ndim - axis - 1))
    return (gathered * w).sum(axis=axis + 1)


def _stretched_taps(coords: np.ndarray, mode: str, cubic_coeff_a: float,
                    stretch: float) -> tuple[np.ndarray, np.ndarray]:
    """Antialiasing taps: the linear (triangle) or cubic kernel widened by `stretch` = 1 / scale > 1,
    every input position within its support weighted kernel(distance / stretch), the weights
    normalised to sum to 1."""
    radius = 1.0 if mode == "LINEAR" else 2.0
    reach = int(np.ceil(radius * stretch))
    index = np.floor(coords).astype(np.int64)[:, None] + np.arange(-reach, reach + 1)
    distance = np.abs(index - coords[:, None]) / stretch
    if mode == "LINEAR":
        weights = np.clip(1.0 - distance, 0.0, None)
    else:
        a = cubic_coeff_a
        near = ((a + 2) * distance - (a + 3)) * distance * distance + 1
        far = ((a * distance - 5 * a) * distance + 8 * a) * distance - 4 * a
        weights = np.where(distance <= 1, near, np.where(distance < 2, far, 0.0))
    return index, weights / weights.sum(axis=1, keepdims=True)


def _axis_taps(coords: np.ndarray, n_in: int, mode: str, nearest_mode: str, cubic_coeff_a: float,
               exclude_outside: bool, stretch: float) -> tuple[np.ndarray, np.ndarray | None]:
    """(input index, weight) of the taps of every output position along one axis, the indices clamped
    to the input (neighbours outside take the edge value) unless exclude_outside drops them."""
    if mode == "NEAREST":
        return np.clip(round_nearest(coords, nearest_mode), 0, n_in - 1)[:, None], None
    if stretch > 1:
        index, weights = _stretched_taps(coords, mode, cubic_coeff_a, stretch)
    else:
        low, t = floor_fraction(coords)
        if mode == "LINEAR":
            index, weights = low[:, None] + np.arange(2), linear_weights(t)
        else:
            index, weights = low[:, None] + np.arange(-1, 3), cubic_weights(t, cubic_coeff_a)
    if exclude_outside:
        inside = (index >= 0) & (index < n_in)
        weights = np.where(inside, weights, 0.0)
        total = weights.sum(axis=1, keepdims=True)
        weights = weights / np.where(total == 0, 1.0, total)
    return np.clip(index, 0, n_in - 1), weights


def resample(input: np.ndarray, out_shape: Sequence[int], coordinates: Sequence[np.ndarray | None], *, mode: str,
             nearest_mode: str = "ROUND_PREFER_FLOOR", cubic_coeff_a: float = -0.75, exclude_outside: bool = False,
             outside: np.ndarray | None = None, extrapolation_value: float = 0.0,
             stretches: Sequence[float] | None = None) -> np.ndarray:
    """The separable resize both Resize kernels share: axis k of the output samples input coordinates
    coordinates[k] (None: the axis is kept as it is) by NEAREST, LINEAR or CUBIC interpolation; output
    positions flagged in `outside` (TF_CROP_AND_RESIZE) take extrapolation_value; stretches[k] > 1
    widens the LINEAR/CUBIC kernel of axis k (antialiasing). NEAREST copies input elements (exact for
    every dtype, strings too); LINEAR/CUBIC compute floating types in their precision (float32 for
    float16/bfloat16), complex in its own, integers and bool in float64, rounded once (finish_rounded)."""
    x = np.asarray(input)
    if mode == "NEAREST" or x.size == 0 or x.dtype.kind == "c":
        work = x  # nearest copies elements: no arithmetic, exact for every dtype
    elif x.dtype.kind in "iub":
        work = x.astype(np.float64)
    else:
        work = x.astype(compute_dtype(x.dtype), copy=False)
    for axis, coords in enumerate(coordinates):
        n_in, n_out = x.shape[axis], out_shape[axis]
        if n_out == 0 or n_in == 0:
            if n_out > 0:
                raise ValueError(f"axis {axis} is empty: there is nothing to resize it to {n_out} from")
            work = np.take(work, np.zeros(0, np.int64), axis=axis)
            continue
        if coords is None:
            continue
        stretch = stretches[axis] if stretches is not None else 1.0
        if n_out == n_in and stretch <= 1 and np.array_equal(coords, np.arange(n_in)):
            continue  # the identity along this axis (every mode samples exactly at the input positions)
        index, weights = _axis_taps(coords, n_in, mode, nearest_mode, cubic_coeff_a, exclude_outside, stretch)
        work = _resize_axis(work, axis, index, weights)
    if mode == "NEAREST":
        result = work
        if outside is not None and outside.any():
            result = np.where(outside, finish_rounded(np.asarray(extrapolation_value, np.float64), x.dtype), result)
        return np.ascontiguousarray(result).reshape(out_shape)
    if outside is not None and outside.any():
        work = np.where(outside, np.asarray(extrapolation_value).astype(work.dtype), work)
    return finish_rounded(np.asarray(work), x.dtype).reshape(out_shape)


def resize(input: np.ndarray, roi: np.ndarray | None, scales: Any, sizes: Sequence[int], *, mode: str,
           coordinate_transformation_mode: str, exclude_outside: bool, nearest_mode: str, extrapolation_value: float,
           cubic_coeff_a: float) -> np.ndarray:
    """hlir.Resize (the conventions of the module docstring)."""
    x = np.asarray(input)
    rank = x.ndim
    crop = coordinate_transformation_mode == "TF_CROP_AND_RESIZE"
    if crop:
        bounds = np.asarray(roi, dtype=np.float64).reshape(-1)
        roi_start, roi_end = bounds[:rank], bounds[rank:]
    else:  # roi takes effect only in TF_CROP_AND_RESIZE mode
        roi_start, roi_end = np.zeros(rank), np.ones(rank)
    out_shape = _output_shape(x.shape, roi_start, roi_end, scales, sizes)
    outside = np.zeros(out_shape, dtype=bool) if crop else None
    coordinates: list[np.ndarray | None] = []
    for axis, (n_in, n_out) in enumerate(zip(x.shape, out_shape)):
        if n_in == 0 or n_out == 0:
            coordinates.append(None)
            continue
        coords = source_coordinates(coordinate_transformation_mode, n_out, n_in, n_out / n_in, n_out,
                                    float(roi_start[axis]), float(roi_end[axis]))
        if outside is not None:
            off = (coords < 0) | (coords > n_in - 1)
            outside |= off.reshape((-1,) + (1,) * (rank - axis - 1))
        coordinates.append(coords)
    return resample(x, out_shape, coordinates, mode=mode, nearest_mode=nearest_mode, cubic_coeff_a=cubic_coeff_a,
                    exclude_outside=exclude_outside, outside=outside, extrapolation_value=extrapolation_value)
