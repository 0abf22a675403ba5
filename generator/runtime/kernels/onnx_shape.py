"""ONNX shape and data-movement operators: Concat, Split, Reshape, Flatten, Expand, Tile, Transpose,
Size, Shape, DepthToSpace, SpaceToDepth and Compress.

Where ONNX means what an hlir operator means, the function here is a thin adapter that maps ONNX's
attribute names and defaults onto the data_movement function (Concat -> concatenate, Transpose ->
transpose, Expand -> broadcast_in_dim, Split-18 -> general_split, ...); the specs call data_movement
directly where nothing needs mapping (Squeeze, Unsqueeze, Reshape-5+, Tile-6+). ONNX Slice and Pad,
whose semantics differ from XLA's, are in onnx_slice_pad.

Conventions (those of data_movement): element values are moved bit for bit, whatever their type
(strings are object arrays, bfloat16/float8/int4 ml_dtypes arrays); every result is a fresh array,
except those holding exactly the input's elements (Split's parts, Reshape, Flatten, Transpose), which
are read-only views of the input (data_movement's one exception); a value the validator cannot see in
advance (a split length, a target shape, a block size that does not divide) is checked here and
refused with a ValueError naming it.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from . import data_movement as dm

# ---- Concat, Split --------------------------------------------------------------------------------


def onnx_concat(inputs: Sequence[np.ndarray], *, axis: int | None = None) -> np.ndarray:
    """ONNX Concat = XLA Concatenate along `axis`. Concat-1 declares no default for axis; its
    documentation (and every runtime) uses 1, the channel axis."""
    return dm.concatenate(inputs, dimension=1 if axis is None else axis)


def onnx_split(input: np.ndarray, split: Any = None, *, axis: int | None = 0,
               num_outputs: int | None = None, outputs_count: int | None = None) -> tuple[np.ndarray, ...]:
    """ONNX Split from version 2. The lengths come from `split` (an attribute in 2 and 11, an input from
    13) or, in version 18, from num_outputs (general_split: ceil-sized pieces, a smaller last one).
    Without either, ONNX divides the axis equally among the node's outputs: their number is
    `outputs_count` (spec kernel.count_from_node: the graph runner gives it), and the axis must divide
    equally. Split-1 (an input and an attribute both named split) is onnx_split_v1."""
    axis = 0 if axis is None else axis
    if split is None and num_outputs is None:
        if outputs_count is None:
            raise ValueError("Split without split lengths divides the axis among the node's outputs: give "
                             "split, or outputs_count (the number of outputs)")
        size = input.shape[axis]
        if outputs_count <= 0 or size % outputs_count:
            raise ValueError(f"Split without split lengths: the axis of length {size} does not divide into "
                             f"{outputs_count} equal pieces")
        equal = np.full(outputs_count, size // outputs_count, dtype=np.int64)
        return dm.general_split(input, equal, axis=axis, num_outputs=None)
    lengths = None if split is None else np.asarray(dm._ints(np.asarray(split).astype(np.int64)), dtype=np.int64)
    return dm.general_split(input, lengths, axis=axis, num_outputs=num_outputs)


def onnx_split_v1(input: np.ndarray, split: np.ndarray | None = None, *, axis: int | None = None,
                  split_attr: Sequence[int] | None = None, outputs_count: int | None = None) -> tuple[np.ndarray, ...]:
    """Split-1: the lengths come from the optional second input `split` (of the data's float type) or
    from the attribute split, which the kernel takes as the keyword `split_attr` (a Python function
    cannot have two parameters named split; names.attribute_keyword). When both are given the input
    wins (note both_given of specs/onnx/Split.yaml); with neither the axis is divided equally among the
    outputs. An absent axis is 0, the default Split-2 declares (note axis_default)."""
    if split is not None:
        values = np.asarray(split).ravel()
        if values.size and not np.all(np.isfinite(values) & (values == np.round(values))):
            raise ValueError(f"Split-1: the split input must hold whole lengths, found {values.tolist()}")
        lengths: Any = values.astype(np.int64)
    else:
        lengths = None if split_attr is None else list(split_attr)
    return onnx_split(input, lengths, axis=0 if axis is None else axis, outputs_count=outputs_count)


# ---- Reshape, Flatten, Expand, Tile, Transpose -----------------------------------------------------


def onnx_reshape_attribute(data: np.ndarray, *, shape: Sequence[int] | None = None,
                           consumed_inputs: Sequence[int] | None = None) -> np.ndarray:
    """Reshape-1: the target shape is an attribute, with the meaning of Reshape-5's input (0 copies the
    input's dimension, one -1 is inferred). consumed_inputs is an old memory-planning hint: ignored."""
    if shape is None:
        raise ValueError("Reshape-1 needs the shape attribute (the target shape)")
    return dm.dynamic_reshape(data, np.asarray(list(shape), dtype=np.int64), allowzero=False)


def onnx_flatten(input: np.ndarray, *, axis: int = 1) -> np.ndarray:
    """ONNX Flatten: a 2-D tensor [prod(shape[:axis]), prod(shape[axis:])]; axis lies in [-r, r]
    (a negative value counts from the back), so either part may be empty (size 1)."""
    x = np.asarray(input)
    if not -x.ndim <= axis <= x.ndim:
        raise ValueError(f"axis {axis} is outside [-{x.ndim}, {x.ndim}]")
    cut = axis + x.ndim if axis < 0 else axis
    return dm.reshape(x, output_shape=(math.prod(x.shape[:cut]), math.prod(x.shape[cut:])))


def onnx_expand(input: np.ndarray, shape: Any) -> np.ndarray:
    """ONNX Expand: broadcast input and the shape given by the values of `shape` against each other
    (numpy's multidirectional rule, so a 1 in shape keeps input's size), then BroadcastInDim to that
    shape with input's dimensions aligned to the trailing ones."""
    x = np.asarray(input)
    target = dm._ints(shape)
    if any(d < 0 for d in target):
        raise ValueError(f"shape {target} holds a negative size")
    try:
        out_shape = np.broadcast_shapes(x.shape, tuple(target))
    except ValueError:
        raise ValueError(f"input shape {list(x.shape)} does not broadcast with shape {target}") from None
    rank = len(out_shape)
    return dm.broadcast_in_dim(x, broadcast_dimensions=list(range(rank - x.ndim, rank)), output_shape=out_shape)


def onnx_tile_axis(input: np.ndarray, tiles: Any, axis: Any) -> np.ndarray:
    """Tile-1: `tiles` copies of input laid end to end along `axis`; both are one-element tensors of
    input's (floating-point) type, read as integers. It is Tile-6 with repeats 1 except at axis."""
    x = np.asarray(input)
    count, where = np.asarray(tiles).reshape(-1), np.asarray(axis).reshape(-1)
    if count.size != 1 or where.size != 1:
        raise ValueError(f"tiles and axis must hold one value each (found {count.size} and {where.size})")
    if count[0] != np.floor(count[0]) or where[0] != np.floor(where[0]):
        raise ValueError(f"tiles {count[0]} and axis {where[0]} must be whole numbers")
    repeats = [1] * x.ndim
    repeats[dm._axis(int(where[0]), x.ndim, "axis")] = int(count[0])
    return dm.tile(x, np.asarray(repeats, dtype=np.int64))


def onnx_transpose(data: np.ndarray, *, perm: Sequence[int] | None = None) -> np.ndarray:
    """ONNX Transpose = XLA Transpose; an absent perm reverses the dimensions."""
    x = np.asarray(data)
    order = list(range(x.ndim))[::-1] if perm is None else list(perm)
    if sorted(order) != list(range(x.ndim)):
        raise ValueError(f"perm {order} is not a permutation of the {x.ndim} dimensions")
    return dm.transpose(x, permutation=order)


# ---- Size, Shape -----------------------------------------------------------------------------------


def onnx_size(data: np.ndarray, *, size_dtype: Any = None) -> np.ndarray:
    """ONNX Size: the element count as an int64 scalar (data_movement.size)."""
    return dm.size(data, output_dtype=np.dtype(np.int64) if size_dtype is None else size_dtype)


def onnx_shape(data: np.ndarray, *, start: int = 0, end: int | None = None, shape_dtype: Any = None) -> np.ndarray:
    """ONNX Shape: dimensions [start, end) of data's shape (from version 15; before, all of them), as
    a 1-D int64 tensor; start and end count from the back when negative and are clamped to [0, rank]."""
    rank = np.ndim(data)
    return dm.shape_of(data, start=start, end=rank if end is None else end,
                       output_dtype=np.dtype(np.int64) if shape_dtype is None else shape_dtype)


# ---- DepthToSpace, SpaceToDepth ------------------------------------------------------------------


def _check_blocks(x: np.ndarray, blocksize: int, op: str) -> None:
    if x.ndim != 4:
        raise ValueError(f"{op} takes a 4-D [N, C, H, W] tensor, found rank {x.ndim}")
    if blocksize <= 0:
        raise ValueError(f"blocksize {blocksize} must be positive")


def onnx_depth_to_space(input: np.ndarray, *, blocksize: int, mode: str = "DCR") -> np.ndarray:
    """ONNX DepthToSpace on [N, C, H, W] (data_movement.depth_to_space with depth 1 and space 2, 3);
    DepthToSpace-1 has no mode attribute and means DCR."""
    x = np.asarray(input)
    _check_blocks(x, blocksize, "DepthToSpace")
    if x.shape[1] % (blocksize * blocksize):
        raise ValueError(f"the channel count {x.shape[1]} is not a multiple of blocksize^2 = {blocksize ** 2}")
    return dm.depth_to_space(x, space_dims=[2, 3], blocksize=blocksize, depth_dim=1, mode=mode)


def onnx_space_to_depth(input: np.ndarray, *, blocksize: int, mode: str = "DCR") -> np.ndarray:
    """ONNX SpaceToDepth on [N, C, H, W]; the mode attribute (version 28; DCR before) orders the new
    channels as DepthToSpace's mode of the same name reads them, so the two are inverses."""
    x = np.asarray(input)
    _check_blocks(x, blocksize, "SpaceToDepth")
    if x.shape[2] % blocksize or x.shape[3] % blocksize:
        raise ValueError(f"height {x.shape[2]} and width {x.shape[3]} must be multiples of blocksize {blocksize}")
    return dm.space_to_depth(x, space_dims=[2, 3], blocksize=blocksize, depth_dim=1, mode=mode)


# ---- Compress ---------------------------------------------------------------------------------------


def onnx_compress(input: np.ndarray, condition: np.ndarray, *, axis: int | None = None) -> np.ndarray:
    """ONNX Compress (numpy.compress): the slices along axis (the elements of the flattened input when
    axis is absent) whose position holds True in condition. A shorter condition drops the positions past
    its end. Entries past the end of the axis are ignored, as the spec's output shape reads them
    (spec note long_condition: numpy.compress refuses a True there; onnxruntime ignores it)."""
    x = np.asarray(input)
    if axis is None:
        x, where = x.reshape(-1), 0
    else:
        where = dm._axis(axis, x.ndim, "axis")
    keep = np.asarray(condition, dtype=bool).reshape(-1)[:x.shape[where]]
    return np.take(x, np.flatnonzero(keep), axis=where)
