"""ReduceWindow and SelectAndScatter: XLA's windowed reductions and their gradient scatter, over the
windows of the helper in kernels/window.py (same Axis terms: base dilation, padding, window dilation,
stride). Padding and holes are not input elements: they take no part in the fold.

Conventions (each recorded in a spec note): every computation is a left fold over the window's taps in
row-major order from the initial value; float16 is computed in float32 and rounded once; integers wrap
around (two's complement); max/min are XLA's (NaN propagates, -0.0 < +0.0), as in Reduce (note
max_min_order), and a window's arg-extreme is the first tap holding it.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from ..elementwise import compute_dtype, ieee_results
from .reduction import _int_div
from .window import (Axis, _beats, _flat_taps, _tap_flat_index, extreme_fill, extreme_of_taps, pool_axes, tap_mask,
                     window_view)

# ---- ReduceWindow / SelectAndScatter: the computations as folds -----------------------------------

_BITWISE = {"AND": np.bitwise_and, "OR": np.bitwise_or, "XOR": np.bitwise_xor}
_EXTREMES = {"MAX": True, "ARGMAX": True, "MIN": False, "ARGMIN": False}


def _combine(computation: str, dtype: np.dtype) -> Callable[..., Any]:
    """f(acc, x) of one computation (Reduce notes fold_left, max_min_order, l2_and_count), on arrays of
    the compute dtype. Integer L2 and the multi-input extremes are handled by the callers."""
    integer = dtype.kind in "iu"
    if computation in _BITWISE:
        if not integer:
            raise ValueError(f"computation {computation} is bitwise and needs an integer type, got {dtype}")
        return _BITWISE[computation]
    if computation in _EXTREMES:
        largest = _EXTREMES[computation]
        return lambda acc, x: np.where(_beats(x, acc, largest), x, acc)
    table: dict[str, Callable[..., Any]] = {
        "UPDATE": lambda acc, x: x,
        "ADD": np.add, "SUB": np.subtract, "MUL": np.multiply,
        "DIV": _int_div if integer else np.divide,
        "L2": np.hypot,
        "COUNT": lambda acc, x: acc + np.ones((), acc.dtype),
    }
    if computation not in table:
        raise ValueError(f"unknown computation {computation!r}")
    return table[computation]


def _int_l2(init: int, squares_sum: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """floor(sqrt(init^2 + sum of squares)), exactly, saturated at the type's maximum."""
    root = np.frompyfunc(math.isqrt, 1, 1)(squares_sum + init * init)
    return np.minimum(root, int(np.iinfo(dtype).max)).astype(dtype)


@ieee_results
def reduce_window(inputs: Sequence[np.ndarray], init_values: Sequence[np.ndarray], *, computation: str,
                  window_dimensions: Sequence[int], window_strides: Sequence[int] | None = None,
                  base_dilations: Sequence[int] | None = None, window_dilations: Sequence[int] | None = None,
                  auto_pad: str = "NOTSET", ceil_mode: bool = False, padding: Sequence[int] | None = None
                  ) -> tuple[np.ndarray, ...]:
    """hlir.ReduceWindow: every window is folded from its initial value on the left, over the input
    elements it covers in row-major order of the window (Reduce note fold_left); padding, base-dilation
    holes and ceil_mode positions are skipped, as XLA's CPU backend does. The padding comes from auto_pad
    and ceil_mode (ONNX rules on the base-dilated input; VALID pads nothing, NOTSET the explicit `padding`
    if given (note explicit_padding), ceil_mode adds the partial windows at the end). With several inputs
    (ARGMAX/ARGMIN, constraint C3) output k is input k at the first tap where the first input is most extreme, the initial values counting as the tap before the
    first."""
    xs = [np.asarray(x) for x in inputs]
    inits = [np.asarray(v) for v in init_values]
    if len(xs) != len(inits):
        raise ValueError(f"{len(xs)} inputs need as many init_values, got {len(inits)}")
    if len(xs) > 1 and computation not in ("ARGMAX", "ARGMIN"):  # constraint C3
        raise ValueError(f"with {len(xs)} inputs the computation must be ARGMAX or ARGMIN, got {computation}")
    x0 = xs[0]
    rank = x0.ndim
    dims = list(range(rank))
    # explicit padding goes with NOTSET only (constraint C9, note explicit_padding)
    axes = pool_axes(x0.shape, window_dimensions, window_strides or [1] * rank, window_dilations or [1] * rank,
                     auto_pad=auto_pad, padding=padding if auto_pad == "NOTSET" else None, ceil_mode=ceil_mode,
                     base_dilations=base_dilations)
    dtype = x0.dtype
    compute = compute_dtype(dtype)
    if len(xs) == 1 and computation in ("MAX", "MIN") and compute.kind in "fiu":
        # a max (min) pool: the fold's bits without the fold (window.extreme_of_taps)
        largest = computation == "MAX"
        view = window_view(x0.astype(compute, copy=False), dims, axes, extreme_fill(compute, largest))
        return (extreme_of_taps(view, rank, largest, inits[0].astype(compute)).astype(dtype),)
    mask = tap_mask(rank, dims, axes)
    if mask is not None:
        mask = _flat_taps(np.broadcast_to(mask, tuple(a.out for a in axes) + tuple(a.window for a in axes)), rank)
    taps = [_flat_taps(window_view(x.astype(compute_dtype(x.dtype), copy=False), dims, axes, 0), rank)
            for x in xs]
    out_shape = tuple(a.out for a in axes)
    accs = [np.full(out_shape, init.astype(compute_dtype(x.dtype)), dtype=compute_dtype(x.dtype))
            for x, init in zip(xs, inits)]
    n_taps = taps[0].shape[-1]

    if computation == "L2" and dtype.kind in "iu":
        squares = taps[0].astype(object) ** 2
        if mask is not None:
            squares = np.where(mask, squares, 0)
        total = squares.sum(axis=-1) if n_taps else np.zeros(out_shape, dtype=object)
        return (_int_l2(int(inits[0]), total, dtype),)
    f = _combine(computation, compute)
    for k in range(n_taps):
        valid = mask[..., k] if mask is not None else True
        if len(xs) > 1:  # the first input decides; the others follow its choice
            wins = _beats(taps[0][..., k], accs[0], _EXTREMES[computation]) & valid
            accs = [np.where(wins, t[..., k], acc) for t, acc in zip(taps, accs)]
        else:
            accs[0] = np.where(valid, f(accs[0], taps[0][..., k]), accs[0])
    return tuple(acc.astype(x.dtype) for acc, x in zip(accs, xs))


_SELECT = {"GE": np.greater_equal, "GT": np.greater, "LE": np.less_equal, "LT": np.less}


@ieee_results
def select_and_scatter(input: np.ndarray, source: np.ndarray, init_value: np.ndarray, *, select_type: str,
                       computation: str, window_dimensions: Sequence[int], window_strides: Sequence[int],
                       padding: Sequence[int]) -> np.ndarray:
    """hlir.SelectAndScatter (XLA): in every window the selected tap is found by XLA's sequential select
    over the input elements in row-major order of the window (padding is never selected): the current
    choice c stays while select_type(c, x) holds, otherwise x becomes the choice (GE: first max, GT: last
    max, LE: first min, LT: last min; a NaN choice gives way to the next element). The output starts as
    init_value everywhere, and every window's source element is folded into the output at its selected
    position, acc = computation(acc, source), windows in row-major order. A window that covers only
    padding selects nothing and its source element is dropped. padding is [x1_begin, ..., x1_end, ...]."""
    x = np.asarray(input)
    src = np.asarray(source)
    rank = x.ndim
    if select_type not in _SELECT:
        raise ValueError(f"select_type must be GE, GT, LE or LT, got {select_type!r}")
    if len(padding) != 2 * rank:
        raise ValueError(f"padding has {len(padding)} values; {2 * rank} needed")
    dims = list(range(rank))
    axes = [Axis(x.shape[d], window_dimensions[d], window_strides[d], lo=padding[d], hi=padding[rank + d])
            for d in dims]
    out_shape = tuple(a.out for a in axes)
    if src.shape != out_shape:
        raise ValueError(f"source has shape {src.shape}; the windows of input give {out_shape}")
    compute = compute_dtype(x.dtype)
    taps = _flat_taps(window_view(x.astype(compute, copy=False), dims, axes, 0), rank)
    mask = tap_mask(rank, dims, axes)
    mask = (np.ones(taps.shape, bool) if mask is None else
            _flat_taps(np.broadcast_to(mask, out_shape + tuple(a.window for a in axes)), rank))
    keep = _SELECT[select_type]
    chosen = np.full(out_shape, -1, dtype=np.int64)
    value = np.zeros(out_shape, dtype=compute)
    for k in range(taps.shape[-1]):
        tap = taps[..., k]
        take = mask[..., k] & ((chosen < 0) | ~keep(value, tap))
        chosen = np.where(take, k, chosen)
        value = np.where(take, tap, value)
    # the flat input index each window selected (-1: none)
    target = np.where(chosen >= 0, _tap_flat_index(x.shape, dims, axes, np.maximum(chosen, 0), 0), -1).ravel()
    values = src.astype(compute).ravel()
    out = np.full(x.size, np.asarray(init_value).astype(compute), dtype=compute)
    if computation == "L2" and x.dtype.kind in "iu":
        squares = np.zeros(x.size, dtype=object)
        np.add.at(squares, target[target >= 0], values[target >= 0].astype(object) ** 2)
        return _int_l2(int(np.asarray(init_value)), squares, x.dtype).reshape(x.shape)
    f = _combine(computation, compute)
    for targets, vals in _rounds(target, values):
        out[targets] = f(out[targets], vals)
    return out.astype(x.dtype).reshape(x.shape)


def _rounds(target: np.ndarray, values: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Split (target, value) pairs into rounds in which every target occurs at most once, keeping the
    order of the pairs per target: round r holds the r-th pair of every target."""
    keep = target >= 0
    target, values = target[keep], values[keep]
    order = np.argsort(target, kind="stable")
    sorted_targets = target[order]
    starts: np.ndarray | list[int] = \
        np.flatnonzero(np.r_[True, sorted_targets[1:] != sorted_targets[:-1]]) if target.size else []
    rank = np.arange(target.size) - np.repeat(starts, np.diff(np.r_[starts, target.size])) if target.size else target
    for r in range(int(rank.max()) + 1 if target.size else 0):
        pick = order[rank == r]
        yield target[pick], values[pick]
