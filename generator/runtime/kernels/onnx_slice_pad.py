"""ONNX Slice, Pad and CenterCropPad: the ONNX window operators whose meaning differs from XLA's, so
they are written here instead of reusing slice_pad.slice_/pad.

ONNX Slice vs XLA Slice (slice_pad.slice_, real_dynamic_slice): ONNX counts a negative start or
end from the back, clamps out-of-range ones to the dimension (INT64_MAX means "to the end"), allows
negative steps (walking backwards) and slices only the listed axes. XLA requires
0 <= start <= limit <= size and positive strides, and refuses anything else.

ONNX Pad vs XLA Pad (slice_pad.pad, dynamic_pad):
- amounts: ONNX lists [begin of each padded axis..., end of each padded axis...], optionally for a
  subset of the axes (input axes, version 18); XLA gives low/high per dimension plus interior padding,
  which ONNX does not have;
- modes: ONNX constant/reflect/edge/wrap; XLA PAD_VALUE/PAD_EDGE/PAD_REFLECT/PAD_SYMMETRIC. wrap
  (periodic) has no XLA counterpart, and symmetric no ONNX one;
- fill: ONNX's constant_value defaults to 0, "" for strings, False for bool (Pad-1/2: a float attribute);
- reflect past the data (an amount >= the axis size): ONNX's reference (numpy.pad) keeps mirroring
  (period 2 * (size - 1)), where the XLA kernel refuses; onnxruntime refuses too (spec note
  reflect_beyond_data);
- a negative amount removes elements first, then the mode adds elements from what remains
  (onnxruntime's order; onnx.reference refuses negative amounts: spec note negative_pads).
"""
from __future__ import annotations

import builtins
from typing import Any, Sequence

import numpy as np

from .data_movement import _axis, _ints, basic_slice
from .slice_pad import fill_from_kept

# ---- Slice ------------------------------------------------------------------------------------------


def _bounds(n: int, start: int, end: int, step: int) -> builtins.slice:
    """The Python slice of ONNX's (start, end, step) on a dimension of size n: negative values count
    from the back, then start is clamped to [0, n] (step > 0) or [0, n - 1] (step < 0) and end to
    [0, n] or [-1, n - 1], -1 meaning "before the first element" (None in a Python slice)."""
    start += n if start < 0 else 0
    end += n if end < 0 else 0
    if step > 0:
        return builtins.slice(min(max(start, 0), n), min(max(end, 0), n), step)
    start, end = min(max(start, 0), n - 1), min(max(end, -1), n - 1)
    return builtins.slice(start, None if end < 0 else end, step) if start >= 0 else builtins.slice(0, 0)


def onnx_slice(data: np.ndarray, starts: Any, ends: Any, axes: Any = None, steps: Any = None) -> np.ndarray:
    """ONNX Slice: inputs from version 10 (axes and steps optional), attributes starts/ends/axes in
    version 1 (no steps). Absent axes are [0, ..., len(starts) - 1], absent steps all 1; the other
    dimensions are taken whole."""
    x = np.asarray(data)
    begin, end = _ints(starts), _ints(ends)
    named = list(range(len(begin))) if axes is None else [_axis(a, x.ndim, "axes value") for a in _ints(axes)]
    stride = [1] * len(begin) if steps is None else _ints(steps)
    if not len(begin) == len(end) == len(named) == len(stride):
        raise ValueError(f"starts ({len(begin)}), ends ({len(end)}), axes ({len(named)}) and steps "
                         f"({len(stride)}) need the same length")
    if len(set(named)) != len(named):
        raise ValueError(f"axes {named} name a dimension twice")
    if 0 in stride:
        raise ValueError(f"steps {stride} holds a 0")
    window = [builtins.slice(None)] * x.ndim
    for a, s, e, st in zip(named, begin, end, stride):
        window[a] = _bounds(x.shape[a], s, e, st)
    return basic_slice(x, tuple(window))  # a read-only view (data_movement's rule)


# ---- Pad --------------------------------------------------------------------------------------------


def _pad_sources(n: int, begin: int, end: int, mode: str, axis: int) -> np.ndarray:
    """For one axis of size n padded by (begin, end): the input index each output position reads, -1
    where constant mode writes the fill value. Negative amounts first remove elements; the mode then
    adds elements read from the m that remain."""
    cut_begin, cut_end = max(-begin, 0), max(-end, 0)
    m = n - cut_begin - cut_end
    if m < 0:
        raise ValueError(f"axis {axis}: pads ({begin}, {end}) remove more than its {n} elements")
    q = np.arange(-max(begin, 0), m + max(end, 0), dtype=np.int64)  # position relative to what remains
    outside = (q < 0) | (q >= m)
    if mode == "constant":
        return np.where(outside, -1, q + cut_begin)
    if outside.any() and m == 0:
        raise ValueError(f"axis {axis}: {mode} mode cannot add elements to an axis with no elements left")
    if mode == "edge":
        q = np.clip(q, 0, m - 1)
    elif mode == "wrap":
        q = q % m
    elif mode == "reflect":  # mirror about the end elements without repeating them: period 2 (m - 1)
        period = 2 * (m - 1)
        q = np.abs(q) % period if period else np.zeros_like(q)
        q = np.where(q >= m, period - q, q)
    else:
        raise ValueError(f"mode {mode!r} is not constant, reflect, edge or wrap")
    return q + cut_begin


def _default_fill(dtype: np.dtype) -> Any:
    """ONNX's fill when constant_value is absent: 0, an empty string for strings, False for bool."""
    return "" if dtype.kind == "O" else np.zeros((), dtype=dtype)


def onnx_pad(data: np.ndarray, pads: Any = None, constant_value: Any = None, axes: Any = None, *,
             mode: str = "constant", paddings: Sequence[int] | None = None, value: float | None = None) -> np.ndarray:
    """ONNX Pad, every version: pads and constant_value are inputs from version 11 (axes from 18);
    Pad-2 takes the amounts as the attribute pads, Pad-1 as paddings, and both the fill as the float
    attribute value. The amounts are [begin of each padded axis..., end of each padded axis...]."""
    x = np.asarray(data)
    amounts = _ints(pads if pads is not None else paddings if paddings is not None else [])
    named = list(range(x.ndim)) if axes is None else [_axis(a, x.ndim, "axes value") for a in _ints(axes)]
    if len(set(named)) != len(named):
        raise ValueError(f"axes {named} name a dimension twice")
    if len(amounts) != 2 * len(named):
        raise ValueError(f"pads {amounts} needs two amounts for each of the {len(named)} padded axes")
    begins, ends = [0] * x.ndim, [0] * x.ndim
    for k, a in enumerate(named):
        begins[a], ends[a] = amounts[k], amounts[k + len(named)]
    sources = [_pad_sources(n, b, e, mode, a) for a, (n, b, e) in enumerate(zip(x.shape, begins, ends))]
    if constant_value is not None and np.size(constant_value):
        fill = np.asarray(constant_value).reshape(-1)[0]
    elif value is not None:
        fill = value  # Pad-1/2: the float attribute, converted to data's floating-point type below
    else:
        fill = _default_fill(x.dtype)
    # Whole blocks, not elements: indexing every output element through np.ix_ was ~9x onnx.reference.
    if mode == "constant":
        out = np.full([s.size for s in sources], fill, dtype=x.dtype)
        written, read = [], []
        for s in sources:
            reads = np.flatnonzero(s >= 0)  # one run of consecutive input positions (see _pad_sources)
            if not reads.size:
                return out
            written.append(slice(int(reads[0]), int(reads[-1]) + 1))
            read.append(slice(int(s[reads[0]]), int(s[reads[-1]]) + 1))
        out[tuple(written)] = x[tuple(read)]
        return out
    cut = [max(-b, 0) for b in begins]
    kept = [n - c - max(-e, 0) for n, c, e in zip(x.shape, cut, ends)]
    return fill_from_kept(x, sources, cut, [max(b, 0) for b in begins], kept)


# ---- CenterCropPad ---------------------------------------------------------------------------------


def onnx_center_crop_pad(input_data: np.ndarray, shape: Any, *, axes: Sequence[int] | None = None) -> np.ndarray:
    """ONNX CenterCropPad: each listed axis (all when axes is absent) gets the size given in shape,
    centred: a crop starts at floor((n - size) / 2), a pad puts floor((size - n) / 2) zeros first and
    the rest (one more when odd) last. It is constant Pad with the matching (negative for a crop)
    amounts and the fill 0 ("" for strings, False for bool: spec note pad_value)."""
    x = np.asarray(input_data)
    sizes = _ints(shape)
    named = list(range(x.ndim)) if axes is None else [_axis(a, x.ndim, "axes value") for a in axes]
    if len(sizes) != len(named):
        raise ValueError(f"shape {sizes} needs one size for each of the {len(named)} axes")
    if any(s < 0 for s in sizes):
        raise ValueError(f"shape {sizes} holds a negative size")
    begins = [(s - x.shape[a]) // 2 if s >= x.shape[a] else -((x.shape[a] - s) // 2) for a, s in zip(named, sizes)]
    ends = [s - x.shape[a] - b for a, s, b in zip(named, sizes, begins)]
    return onnx_pad(x, np.asarray(begins + ends, dtype=np.int64), None, np.asarray(named, dtype=np.int64))
