"""XLA's slicing and padding: Slice, SliceInDim, DynamicSlice, DynamicUpdateSlice, RealDynamicSlice,
Pad and DynamicPad (hlir). The conventions of opgen.runtime.kernels.data_movement hold: elements move bit
for bit; the slices (Slice, SliceInDim, DynamicSlice, RealDynamicSlice) are read-only views of the
input and the other results fresh arrays; index values the validator cannot see are checked here. ONNX's Slice
and Pad count and pad differently (onnx_slice_pad.py says how)."""
from __future__ import annotations

import builtins
from typing import Any, Sequence

import numpy as np

from .data_movement import _axis, _fresh, _ints, _zero, basic_slice

# ---- Slice, SliceInDim, DynamicSlice, DynamicUpdateSlice, RealDynamicSlice ------------------------


def _check_box(shape: Any, starts: Sequence[int], limits: Sequence[int], strides: Sequence[int]) -> None:
    """XLA Slice's bounds: 0 <= start <= limit <= size and stride > 0 in every dimension."""
    for d, (n, s, l, st) in enumerate(zip(shape, starts, limits, strides)):
        if st <= 0:
            raise ValueError(f"stride {st} of dimension {d} must be positive")
        if not 0 <= s <= l <= n:
            raise ValueError(f"dimension {d}: the slice [{s}, {l}) does not satisfy 0 <= start <= limit <= {n}")


def _box(x: np.ndarray, starts: Sequence[int], limits: Sequence[int], strides: Sequence[int]) -> np.ndarray:
    _check_box(x.shape, starts, limits, strides)
    return basic_slice(x, tuple(builtins.slice(s, l, st) for s, l, st in zip(starts, limits, strides)))


def slice_(input: np.ndarray, *, start_indices: Sequence[int], limit_indices: Sequence[int],
           strides: Sequence[int]) -> np.ndarray:
    """XLA Slice: elements start, start + stride, ... below limit in every dimension."""
    return _box(np.asarray(input), list(start_indices), list(limit_indices), list(strides))


def slice_in_dim(input: np.ndarray, *, start_index: int, limit_index: int, stride: int, dimno: int) -> np.ndarray:
    """XLA SliceInDim: Slice in dimension dimno, the other dimensions whole."""
    x = np.asarray(input)
    starts, limits, strides = [0] * x.ndim, list(x.shape), [1] * x.ndim
    starts[dimno], limits[dimno], strides[dimno] = start_index, limit_index, stride
    return _box(x, starts, limits, strides)


def _clamped_starts(shape: Any, starts: Sequence[int], sizes: Sequence[int]) -> list[int]:
    """XLA's clamping of dynamic start indices: start -> min(max(start, 0), size of dim - slice size)."""
    return [min(max(s, 0), n - k) for s, n, k in zip(starts, shape, sizes)]


def dynamic_slice(input: np.ndarray, start_indices: Sequence[int], *, slice_sizes: Sequence[int]) -> np.ndarray:
    """XLA DynamicSlice; start indices are clamped so the slice lies inside the input (negative
    indices are clamped to 0, not counted from the back)."""
    x = np.asarray(input)
    sizes = list(slice_sizes)
    starts = _clamped_starts(x.shape, _ints(start_indices), sizes)
    return basic_slice(x, tuple(builtins.slice(s, s + k) for s, k in zip(starts, sizes)))


def dynamic_update_slice(input: np.ndarray, update: np.ndarray, start_indices: Sequence[int]) -> np.ndarray:
    """XLA DynamicUpdateSlice: a copy of input with update written at the (clamped) start indices."""
    x, u = np.asarray(input), np.asarray(update)
    starts = _clamped_starts(x.shape, _ints(start_indices), u.shape)
    out = _fresh(x)
    out[tuple(builtins.slice(s, s + k) for s, k in zip(starts, u.shape))] = u
    return out


def real_dynamic_slice(input: np.ndarray, start_indices: Sequence[int], limit_indices: Sequence[int],
                       strides: Sequence[int], axes: Any = None) -> np.ndarray:
    """Slice with the box given by tensors; `axes` (absent or empty: every dimension, in order)
    names the dimensions sliced, the others are taken whole. Bounds as XLA Slice (spec note
    slice_bounds): no negative indices, no clamping."""
    x = np.asarray(input)
    starts, limits, steps = _ints(start_indices), _ints(limit_indices), _ints(strides)
    if axes is None or np.asarray(axes).size == 0:
        named = list(range(x.ndim))
    else:
        named = [_axis(a, x.ndim, "axes value") for a in _ints(axes)]
        if len(set(named)) != len(named):
            raise ValueError(f"axes {_ints(axes)} name a dimension twice")
    if not len(starts) == len(limits) == len(steps) == len(named):
        raise ValueError(f"start_indices, limit_indices and strides need one value per sliced dimension ({len(named)})")
    box_start, box_limit, box_step = [0] * x.ndim, list(x.shape), [1] * x.ndim
    for a, s, l, st in zip(named, starts, limits, steps):
        box_start[a], box_limit[a], box_step[a] = s, l, st
    return _box(x, box_start, box_limit, box_step)


# ---- Pad, DynamicPad -------------------------------------------------------------------------------


def _pad_dimension(n: int, low: int, high: int, interior: int, mode: str, d: int) -> tuple[int, np.ndarray, np.ndarray]:
    """For one dimension of size n: the output size, the output positions that read an input element,
    and the input element each of them reads.

    PAD_VALUE is XLA Pad: `interior` padding elements between neighbours, then `low`/`high` elements
    at the ends, a negative amount removing elements of the interior-padded data.
    The other modes (spec note pad_modes) take no interior padding: a negative amount first removes
    elements, then a positive one adds elements read from the remaining m elements: PAD_EDGE repeats
    the end element, PAD_REFLECT mirrors without the end element (at most m - 1 added), PAD_SYMMETRIC
    mirrors with it (at most m added)."""
    if mode == "PAD_VALUE":
        size = n + low + high + max(n - 1, 0) * interior
        if size < 0:
            raise ValueError(f"dimension {d}: padding ({low}, {high}, interior {interior}) removes more than "
                             f"its {n} elements")
        offset = np.arange(size, dtype=np.int64) - low  # position in the interior-padded data
        step = interior + 1
        reads = (offset >= 0) & (offset % step == 0) & (offset // step < n)
        return size, np.flatnonzero(reads), (offset // step)[reads]
    if interior:
        raise ValueError(f"dimension {d}: interior padding {interior} is only defined for PAD_VALUE")
    cut_low, cut_high = max(-low, 0), max(-high, 0)
    add_low, add_high = max(low, 0), max(high, 0)
    m = n - cut_low - cut_high
    if m < 0:
        raise ValueError(f"dimension {d}: negative padding ({low}, {high}) removes more than its {n} elements")
    widest = max(add_low, add_high)
    if widest and (m == 0 or (mode == "PAD_REFLECT" and widest > m - 1) or (mode == "PAD_SYMMETRIC" and widest > m)):
        raise ValueError(f"dimension {d}: {mode} cannot add {widest} elements next to {m} remaining elements")
    q = np.arange(-add_low, m + add_high, dtype=np.int64)  # position relative to the remaining data
    if mode == "PAD_EDGE":
        q = np.clip(q, 0, m - 1)
    elif mode == "PAD_REFLECT":
        q = np.where(q < 0, -q, np.where(q >= m, 2 * (m - 1) - q, q))
    else:
        q = np.where(q < 0, -q - 1, np.where(q >= m, 2 * m - 1 - q, q))
    return q.size, np.arange(q.size, dtype=np.int64), cut_low + q


def fill_from_kept(x: np.ndarray, sources: Sequence[np.ndarray], cut: Sequence[int], added: Sequence[int],
                   kept: Sequence[int]) -> np.ndarray:
    """The padding of the modes that read the data (edge, reflect, symmetric, wrap; hlir Pad and ONNX Pad):
    out[i, j, ...] = x[sources[0][i], sources[1][j], ...], where along each axis a the kept[a] elements of x
    from cut[a] appear once, in order, from output position added[a], and every other position reads one
    of them. The kept data is copied once into the middle; then, axis after axis, the positions added
    before and after it copy the output positions they read (as np.pad fills its borders), so each later
    axis also fills the corners the earlier ones added. Gathering every element (or a whole axis at a
    time) was 5-20x onnx.reference's np.pad."""
    out = np.empty([s.size for s in sources], dtype=x.dtype)
    out[tuple(slice(a, a + m) for a, m in zip(added, kept))] = x[tuple(slice(c, c + m) for c, m in zip(cut, kept))]
    for axis, s in enumerate(sources):
        a, m = added[axis], kept[axis]
        for region in (slice(0, a), slice(a + m, s.size)):
            if region.stop > region.start:
                where: list[Any] = [slice(None)] * x.ndim
                where[axis] = region
                # s holds input positions; the output holds input position i at i - cut + added
                out[tuple(where)] = np.take(out, s[region] - cut[axis] + a, axis=axis)
    return out


def _pad(x: np.ndarray, value: np.ndarray, mode: str, lows: Sequence[int], highs: Sequence[int],
         interiors: Sequence[int]) -> np.ndarray:
    """Pad dimension by dimension: out = value everywhere, then the input elements put in place."""
    sizes, positions, sources = [], [], []
    for d, (n, lo, hi, it) in enumerate(zip(x.shape, lows, highs, interiors)):
        size, p, s = _pad_dimension(n, int(lo), int(hi), int(it), mode, d)
        sizes.append(size)
        positions.append(p)
        sources.append(s)
    if mode != "PAD_VALUE":
        cut = [max(-int(lo), 0) for lo in lows]
        added = [max(int(lo), 0) for lo in lows]
        kept = [n - c - max(-int(hi), 0) for n, c, hi in zip(x.shape, cut, highs)]
        return fill_from_kept(x, sources, cut, added, kept)
    # PAD_VALUE writes the input elements at evenly spaced positions (interior padding between them) and
    # reads a contiguous run of them: two slices per dimension, where indexing every element through np.ix_
    # was ~20x the C kernel and onnx.reference's np.pad
    out = np.full(sizes, value, dtype=x.dtype)
    out[tuple(map(_progression, positions))] = x[tuple(map(_progression, sources))]
    return out


def _progression(indices: np.ndarray) -> slice:
    """Increasing, evenly spaced indices (PAD_VALUE's, from _pad_dimension) as the slice that holds them."""
    if indices.size < 2:
        start = int(indices[0]) if indices.size else 0
        return slice(start, start + indices.size)
    step = int(indices[1] - indices[0])
    return slice(int(indices[0]), int(indices[-1]) + 1, step)


def pad(input: np.ndarray, padding_value: np.ndarray, *, mode: str, edge_padding_low: Sequence[int],
        edge_padding_high: Sequence[int], interior_padding: Sequence[int]) -> np.ndarray:
    x = np.asarray(input)
    value = np.asarray(padding_value).reshape(())
    return _pad(x, value, mode, list(edge_padding_low), list(edge_padding_high), list(interior_padding))


def dynamic_pad(input: np.ndarray, pads: np.ndarray, padding_value: np.ndarray | None = None, *,
                mode: str) -> np.ndarray:
    """Pad with ONNX-ordered amounts [x1_begin, x2_begin, ..., x1_end, x2_end, ...] and no interior
    padding. An absent mode is PAD_VALUE and an absent padding_value is 0 (spec note pad_defaults)."""
    x = np.asarray(input)
    amounts = _ints(pads)
    if len(amounts) != 2 * x.ndim:
        raise ValueError(f"pads {amounts} needs two amounts per input dimension (rank {x.ndim})")
    value = _zero(x.dtype) if padding_value is None else np.asarray(padding_value).reshape(())
    return _pad(x, value, mode or "PAD_VALUE", amounts[:x.ndim], amounts[x.ndim:], [0] * x.ndim)
