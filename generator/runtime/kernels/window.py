"""Windows over a tensor: AveragePool, MaxPool, and the windowing helper that Conv and ConvBias
(kernels/convolution.py) and ReduceWindow and SelectAndScatter (kernels/reduce_window.py) share with them.

The helper describes every windowed axis in the same terms:
- the input (n elements) is first dilated by `base_dilation` (b - 1 holes between neighbours, XLA's
  base/lhs dilation), then padded by `lo` and `hi` (either may be negative: a negative amount removes
  elements, XLA's convolution padding), and by `extra` more positions at the high end (the positions a
  ceil_mode output reaches past the padded input);
- the window has `window` taps `dilation` apart (XLA's window/rhs dilation) and moves by `stride`.
Padding, holes and ceil_mode positions are not input elements: each kernel says what they contribute
(zero for a convolution, nothing for the pools and ReduceWindow, which skip them).

`window_view` returns the windows as a strided view (no copy until a kernel reduces it) whose windowed
axes are replaced by the output positions and whose trailing axes are the window taps; `tap_positions`
gives, for one axis, the input index each (output position, tap) reads, or -1.

Conventions of the kernels here (each recorded in a spec note):
- float16 is computed in float32 and rounded once; integers wrap around (two's complement);
- max/min are XLA's (NaN propagates, -0.0 < +0.0), as in Reduce (note max_min_order); a window's
  arg-extreme is the first tap holding it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..elementwise import compute_dtype, ieee_results

# ---- the windowing helper -------------------------------------------------------------------------


@dataclass(frozen=True)
class Axis:
    """How one axis is windowed (see the module docstring)."""
    size: int
    window: int
    stride: int = 1
    dilation: int = 1
    base_dilation: int = 1
    lo: int = 0
    hi: int = 0
    extra: int = 0
    count: int | None = None  # the number of outputs where a rule fixes it (ceil_mode's last-window rule)

    @property
    def dilated_size(self) -> int:
        return (self.size - 1) * self.base_dilation + 1 if self.size > 0 else 0

    @property
    def span(self) -> int:
        """Positions one window covers, holes of the dilated window included."""
        return (self.window - 1) * self.dilation + 1

    @property
    def padded_size(self) -> int:
        return self.dilated_size + self.lo + self.hi

    @property
    def out(self) -> int:
        """Number of window positions: floor((padded + extra - span) / stride) + 1, at least 0, unless
        `count` fixes it."""
        if self.count is not None:
            return self.count
        room = self.padded_size + self.extra - self.span
        return room // self.stride + 1 if room >= 0 else 0


def output_size(size: int, window: int, stride: int, dilation: int = 1, lo: int = 0, hi: int = 0,
                ceil_mode: bool = False) -> tuple[int, int]:
    """(number of outputs, extra high positions) of a pooling axis: floor((size + lo + hi - span) /
    stride) + 1, or with ceil_mode the ceiling, less one when the last window would start past the
    input and the low padding (ONNX's rule: every window starts inside the input or the low padding)."""
    span = (window - 1) * dilation + 1
    room = size + lo + hi - span
    if not ceil_mode:
        return (room // stride + 1 if room >= 0 else 0), 0
    out = max(-(-room // stride) + 1, 0)
    if out > 0 and (out - 1) * stride >= size + lo:
        out -= 1
    return out, max((out - 1) * stride + span - (size + lo + hi), 0) if out > 0 else 0


def same_padding(size: int, window: int, stride: int, dilation: int, upper: bool) -> tuple[int, int]:
    """SAME_UPPER / SAME_LOWER: pad so that there are ceil(size / stride) outputs; an odd total puts the
    extra position at the end (UPPER) or at the beginning (LOWER)."""
    out = -(-size // stride)
    total = max((out - 1) * stride + (window - 1) * dilation + 1 - size, 0)
    small, large = total // 2, total - total // 2
    return (small, large) if upper else (large, small)


def pool_axes(sizes: Sequence[int], window: Sequence[int], strides: Sequence[int], dilations: Sequence[int],
              *, auto_pad: str | None, padding: Sequence[int] | None, ceil_mode: bool,
              base_dilations: Sequence[int] | None = None) -> list[Axis]:
    """The pooling axes for ONNX-style auto_pad / padding ([x1_begin, x2_begin, ..., x1_end, ...]) /
    ceil_mode. ceil_mode applies to explicit padding only (NOTSET); SAME_* and VALID fix the output size
    (as onnxruntime does). `sizes` are the sizes before base dilation; the padding rules see the
    base-dilated sizes."""
    rank = len(sizes)
    base_dilations = list(base_dilations) if base_dilations is not None else [1] * rank
    if padding is not None and len(padding) not in (0, 2 * rank):
        raise ValueError(f"padding has {len(padding)} values; {2 * rank} (begin and end of {rank} axes) needed")
    pads = list(padding) if padding else [0] * (2 * rank)
    mode = auto_pad or "NOTSET"
    axes = []
    for d in range(rank):
        n = (sizes[d] - 1) * base_dilations[d] + 1 if sizes[d] > 0 else 0
        lo, hi, extra, count = pads[d], pads[rank + d], 0, None
        if mode in ("SAME_UPPER", "SAME_LOWER"):
            lo, hi = same_padding(n, window[d], strides[d], dilations[d], mode == "SAME_UPPER")
        elif mode == "VALID":
            lo = hi = 0
        elif mode == "NOTSET" and ceil_mode:
            # ONNX's rule drops a last window that would start past the input and the low padding,
            # which can leave fewer positions than the padded size holds: the count is fixed here.
            count, extra = output_size(n, window[d], strides[d], dilations[d], lo, hi, ceil_mode)
        elif mode != "NOTSET":
            raise ValueError(f"auto_pad must be NOTSET, SAME_UPPER, SAME_LOWER or VALID, got {auto_pad!r}")
        axes.append(Axis(sizes[d], window[d], strides[d], dilations[d], base_dilations[d], lo, hi, extra, count))
    return axes


def window_view(x: np.ndarray, dims: Sequence[int], axes: Sequence[Axis], fill: Any) -> np.ndarray:
    """The windows of x over the axes `dims`: x's shape with each dims[i] replaced by axes[i].out,
    followed by one trailing axis per window tap (axes[i].window each). Holes, padding and ceil_mode
    positions read `fill`; a negative padding removes elements first."""
    x = np.asarray(x)
    if any(a.out == 0 for a in axes):
        shape = list(x.shape)
        for d, a in zip(dims, axes):
            shape[d] = a.out
        return np.full(shape + [a.window for a in axes], fill, dtype=x.dtype)
    if any(a.base_dilation > 1 for a in axes):  # put the holes in
        shape = list(x.shape)
        for d, a in zip(dims, axes):
            shape[d] = a.dilated_size
        dilated = np.full(shape, fill, dtype=x.dtype)
        index = [slice(None)] * x.ndim
        for d, a in zip(dims, axes):
            index[d] = slice(None, None, a.base_dilation)
        dilated[tuple(index)] = x
        x = dilated
    widths = [(0, 0)] * x.ndim
    crop = [slice(None)] * x.ndim
    for d, a in zip(dims, axes):
        widths[d] = (max(a.lo, 0), max(a.hi, 0) + a.extra)
        crop[d] = slice(max(-a.lo, 0), x.shape[d] - max(-a.hi, 0))
    x = x[tuple(crop)]
    if any(w != (0, 0) for w in widths):
        x = _pad_constant(x, widths, fill)
    view = _sliding_windows(x, dims, [a.span for a in axes])
    index = [slice(None)] * x.ndim + [slice(None, None, a.dilation) for a in axes]
    for d, a in zip(dims, axes):
        index[d] = slice(None, (a.out - 1) * a.stride + 1, a.stride)
    return view[tuple(index)]


def _pad_constant(x: np.ndarray, widths: Sequence[tuple[int, int]], fill: Any) -> np.ndarray:
    """np.pad(x, widths, constant_values=fill), element for element, without its general machinery (60 us
    on a small tensor): the fill is converted as np.pad converts it (a NumPy scalar of np.array(fill)'s
    type, assigned), then x is copied into the middle."""
    shape = tuple(n + lo + hi for n, (lo, hi) in zip(x.shape, widths))
    padded = np.empty(shape, dtype=x.dtype)
    padded[...] = np.array(fill).ravel()[0]
    padded[tuple(slice(lo, lo + n) for n, (lo, _) in zip(x.shape, widths))] = x
    return padded


def _sliding_windows(x: np.ndarray, dims: Sequence[int], spans: Sequence[int]) -> np.ndarray:
    """sliding_window_view(x, spans, axis=dims) for distinct dims, as the same read-only strided view
    (its argument checks cost more than a small convolution's arithmetic): each axis dims[i] keeps
    x.shape[d] - spans[i] + 1 window starts, and one trailing axis per window walks spans[i] taps."""
    shape = list(x.shape)
    for d, span in zip(dims, spans):
        shape[d] -= span - 1
    return as_strided(x, shape=tuple(shape) + tuple(spans),
                      strides=x.strides + tuple(x.strides[d] for d in dims), writeable=False)


def tap_positions(a: Axis) -> np.ndarray:
    """(a.out, a.window) array: the input index each tap of each window reads, -1 for padding, holes and
    ceil_mode positions."""
    p = np.arange(a.out)[:, None] * a.stride + np.arange(a.window)[None, :] * a.dilation - a.lo
    q, r = np.divmod(p, a.base_dilation)
    return np.where((p >= 0) & (r == 0) & (q < a.size), q, -1)


def tap_mask(ndim: int, dims: Sequence[int], axes: Sequence[Axis]) -> np.ndarray | None:
    """Boolean mask broadcastable to window_view(x, dims, axes): True where a tap reads an input
    element; None when every tap does."""
    mask = None
    n_taps = len(axes)
    for i, (d, a) in enumerate(zip(dims, axes)):
        valid = tap_positions(a) >= 0
        if valid.all():
            continue
        shape = [1] * (ndim + n_taps)
        shape[d], shape[ndim + i] = a.out, a.window
        valid = valid.reshape(shape)
        mask = valid if mask is None else mask & valid
    return mask


def _flat_taps(view: np.ndarray, n_taps: int) -> np.ndarray:
    """The window taps as one last axis, in row-major order of the window."""
    return view.reshape(view.shape[:view.ndim - n_taps] + (int(np.prod(view.shape[view.ndim - n_taps:])),))


# ---- XLA max / min as a fold ----------------------------------------------------------------------


def _beats(x: np.ndarray, acc: np.ndarray, largest: bool) -> np.ndarray:
    """True where x is strictly more extreme than acc under XLA's order: NaN beats any number and
    +0.0 beats -0.0 for max (-0.0 beats +0.0 for min). An equal value never beats: the first stays."""
    better = x > acc if largest else x < acc
    if x.dtype.kind != "f":
        return better
    zeros = (x == 0) & (acc == 0) & (np.signbit(acc) != np.signbit(x))
    return better | (np.isnan(x) & ~np.isnan(acc)) | (zeros & (np.signbit(acc) if largest else np.signbit(x)))


# ---- AveragePool / MaxPool ------------------------------------------------------------------------


@ieee_results
def average_pool(input: np.ndarray, *, dims: Sequence[int], kernel_shape: Sequence[int], ceil_mode: bool = False,
                 count_include_pad: bool = False, strides: Sequence[int] | None = None,
                 padding: Sequence[int] | None = None, auto_pad: str | None = None,
                 dilations: Sequence[int] | None = None) -> np.ndarray:
    """Mean of each window over the axes `dims` (kernel_shape, strides, dilations and the padding pairs
    follow the order of dims; dilations: ONNX AveragePool 19). Padding and ceil_mode positions hold no
    value; count_include_pad counts the taps on padding positions (explicit or SAME_*) in the divisor but
    never the taps ceil_mode adds past the padded input (onnxruntime, onnx.reference). A window without
    any counted position gives NaN (0 / 0)."""
    x = np.asarray(input)
    dims = [int(d) for d in dims]
    rank = len(dims)
    strides = list(strides) if strides else [1] * rank
    axes = pool_axes([x.shape[d] for d in dims], kernel_shape, strides, list(dilations) if dilations else [1] * rank,
                     auto_pad=auto_pad, padding=padding, ceil_mode=ceil_mode)
    compute = compute_dtype(x.dtype)
    view = window_view(x.astype(compute, copy=False), dims, axes, 0)
    total = _flat_taps(view, rank).sum(axis=-1)
    if count_include_pad:  # taps inside the padded input, whatever they read
        counted = [((np.arange(a.out)[:, None] * a.stride + np.arange(a.window)[None, :] * a.dilation)
                    < a.padded_size).sum(axis=1) for a in axes]
    else:
        counted = [(tap_positions(a) >= 0).sum(axis=1) for a in axes]
    count = np.ones((), dtype=compute)
    for d, c in zip(dims, counted):
        shape = [1] * x.ndim
        shape[d] = c.size
        count = count * c.reshape(shape).astype(compute)
    return (total / count).astype(x.dtype)


@ieee_results
def max_pool(input: np.ndarray, *, kernel_shape: Sequence[int], strides: Sequence[int] | None = None,
             padding: Sequence[int] | None = None, dilations: Sequence[int] | None = None, auto_pad: str = "NOTSET",
             ceil_mode: bool = False, return_indices: bool = False, storage_order: int = 0,
             Indices_dtype: str | np.dtype[Any] = "int64") -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Max of each window over the spatial axes of an (N, C, D1, ..., Dn) input. Padding and ceil_mode
    positions are skipped. Max is XLA's (NaN propagates, +0.0 > -0.0, as GlobalMaxPool and Reduce);
    Indices (with return_indices) is the flat index into the input of the first tap holding the max, in
    row-major order (storage_order 0) or column-major order (1) of the whole input. A window without any
    input element gives the lowest value of the type (-inf) and index -1 (onnxruntime)."""
    x = np.asarray(input)
    rank = len(kernel_shape)
    dims = list(range(2, 2 + rank))
    strides = list(strides) if strides else [1] * rank
    dilations = list(dilations) if dilations else [1] * rank
    if storage_order not in (0, 1):
        raise ValueError(f"storage_order must be 0 or 1, got {storage_order}")
    if np.dtype(Indices_dtype) != np.int64:
        raise ValueError(f"Indices is int64, got {Indices_dtype}")
    axes = pool_axes(x.shape[2:], kernel_shape, strides, dilations,
                     auto_pad=auto_pad, padding=padding, ceil_mode=ceil_mode)
    lowest = extreme_fill(x.dtype, largest=True)
    view = window_view(x, dims, axes, lowest)
    if not return_indices:
        return extreme_of_taps(view, rank)
    taps = _flat_taps(view, rank)
    mask = tap_mask(x.ndim, dims, axes)
    if mask is not None:  # padding reads `lowest`, which must not win a tie with a real element
        mask = _flat_taps(np.broadcast_to(mask, mask.shape[:x.ndim] + tuple(a.window for a in axes)), rank)
    first = np.argmax(mask, axis=-1) if mask is not None else 0
    best = np.zeros(taps.shape[:-1], dtype=np.int64) + first
    value = np.take_along_axis(taps, best[..., None], axis=-1)[..., 0]
    for k in range(taps.shape[-1]):  # fold over the taps: the first most extreme one stays
        tap = taps[..., k]
        wins = _beats(tap, value, True)
        if mask is not None:
            wins &= mask[..., k]
        value = np.where(wins, tap, value)
        best = np.where(wins, k, best)
    if not return_indices:
        return value
    index = _tap_flat_index(x.shape, dims, axes, best, storage_order)
    if mask is not None:
        index = np.where(mask.any(axis=-1), index, -1)
    return value, index


def extreme_fill(dtype: np.dtype, largest: bool) -> Any:
    """What padding reads when a window's maximum (minimum) is taken without a mask: a value no element is
    below (above), so it never changes the result (a window of padding only gives it, as the fold does)."""
    if dtype.kind == "f":
        return -np.inf if largest else np.inf
    info = np.iinfo(dtype)
    return info.min if largest else info.max


def extreme_of_taps(view: np.ndarray, rank: int, largest: bool = True, start: np.ndarray | None = None
                    ) -> np.ndarray:
    """The fold of XLA's max (min) over each window's taps, from `start` (a scalar before the first tap)
    when given, without the fold, for when no index is wanted. `view`: the window view with padding
    filled by extreme_fill, its last `rank` axes walking each window's taps.
    - One np.maximum per tap over the whole output, read through the view, in the fold's order. Flattening
      the taps into one axis copies the input once per tap, and a reduction along that short axis was
      3-6x slower on a (8, 64, 56, 56) input.
    - NaN: np.maximum returns a NaN operand, the first of two, so the fold's first NaN is the result.
    - Signed zeros: np.maximum may give either zero of a tie between -0.0 and +0.0, so zero results are
      set from their windows: +0.0 for max (-0.0 for min) when any tap or `start` is that zero."""
    window = view.shape[view.ndim - rank:]
    combine = np.maximum if largest else np.minimum
    if 0 in window:  # no tap: the fold gives its start (here the fill when there is none)
        none = np.full(view.shape[:view.ndim - rank], extreme_fill(view.dtype, largest), view.dtype)
        return none if start is None else combine(start, none)
    taps = iter(np.ndindex(*window))
    first = view[(..., *next(taps))]
    value = first.copy() if start is None else combine(start, first)  # `start` first: a NaN of its wins
    for tap in taps:
        combine(value, view[(..., *tap)], out=value)
    if value.dtype.kind != "f":
        return value
    zero = value == 0
    if zero.any():
        windows = view[zero]  # (zero results, *window)
        winner = ~np.signbit(windows) if largest else np.signbit(windows)
        won = ((windows == 0) & winner).reshape(len(windows), -1).any(axis=-1)
        if start is not None and start == 0 and bool(np.signbit(start)) != largest:
            won[...] = True  # `start` is the winning zero
        zeros = value.dtype.type(0), value.dtype.type(-0.0)
        value[zero] = np.where(won, *(zeros if largest else zeros[::-1]))
    return value


def _tap_flat_index(shape: Any, dims: Sequence[int], axes: Any, tap: np.ndarray, storage_order: int) -> np.ndarray:
    """Flat input index of tap number `tap` (row-major over the window) of every window."""
    coords = [np.arange(n).reshape([-1 if k == d else 1 for k in range(len(shape))]) for d, n in enumerate(shape)]
    remaining = tap
    for i in reversed(range(len(axes))):
        remaining, k = np.divmod(remaining, axes[i].window)
        positions = tap_positions(axes[i])  # (out, window)
        d = dims[i]
        out_index = np.arange(axes[i].out).reshape([-1 if j == d else 1 for j in range(len(shape))])
        coords[d] = positions[out_index, k]
    order = range(len(shape)) if storage_order == 0 else reversed(range(len(shape)))
    flat = np.zeros((), dtype=np.int64)
    for d in order:
        flat = flat * shape[d] + coords[d]
    return np.broadcast_to(flat, tap.shape).astype(np.int64)
