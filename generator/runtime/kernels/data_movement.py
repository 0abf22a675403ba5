"""Shape and data movement: the hlir operators that copy, rearrange, select or describe elements
without computing with them (Broadcast, Reshape, Slice, Pad, Transpose, Iota, Shape, Tuple, ...).

Conventions of this module (each decision the text leaves open is recorded in the op's spec notes):
- No arithmetic happens on element values, so every element type (bool, integers, float16, bfloat16,
  complex) is moved bit for bit: NaN payloads and signed zeros survive.
- Every kernel returns fresh arrays, never its input or a view of it, with one exception: a result
  that holds exactly the input's elements, sliced, permuted, reversed or reshaped (GeneralSplit's parts,
  hence ONNX Split of every version and SplitToSequence's parts; Slice, SliceInDim, DynamicSlice,
  RealDynamicSlice, ONNX Slice; Transpose, Reverse; Reshape, DynamicReshape, Squeeze, Unsqueeze, hence
  ONNX Reshape and Flatten), is a read-only view of it (`flags.writeable` False; a reshape NumPy cannot
  express as a view is a copy, read-only too), so that such a kernel moves no data (as in onnx.reference
  and the runtimes, which hand out views too) and no caller can write through the result into the input.
  A kernel never writes into an array it is given; run_model copies a read-only graph output before
  handing it to the user.
- Where the result depends on the contents of an index, shape or size tensor that the validator
  cannot see in advance, the kernel checks those values and raises ValueError naming them.
- Shapes are row-major (XLA's and NumPy's default): Reshape and the block rearrangements read and
  write elements in that order.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

# ---- helpers -------------------------------------------------------------------------------------


def _fresh(value: Any) -> np.ndarray:
    """An array that owns its data (a 0-d array for a scalar), never a view of the argument."""
    return np.array(value, copy=True)


def read_only_view(view: np.ndarray) -> np.ndarray:
    """`view` (a new view object of the input: a basic slice, a transposition, a reshape) made
    read-only, the module's one exception to fresh results. The flag is the view object's own: the
    input keeps its."""
    view.flags.writeable = False
    return view


def basic_slice(x: np.ndarray, window: tuple[slice, ...]) -> np.ndarray:
    """x[window] as a read-only view. The trailing Ellipsis keeps a 0-d result a view: x[()] of a 0-d
    array is a NumPy scalar."""
    index: tuple[Any, ...] = (*window, Ellipsis)
    return read_only_view(x[index])


def _ints(values: Any) -> list[int]:
    """The values of an integer tensor or list as Python ints (row-major)."""
    return [int(v) for v in np.asarray(values).reshape(-1).tolist()]


def _axis(axis: int, rank: int, what: str) -> int:
    if not -rank <= axis < rank:
        raise ValueError(f"{what} {axis} is outside [-{rank}, {rank - 1}]")
    return axis % rank


def _zero(dtype: np.dtype) -> np.ndarray:
    """The zero of an element type (False for bool), as a 0-d array."""
    return np.zeros((), dtype=dtype)


# ---- Broadcast, BroadcastInDim, DynamicBroadcastInDim --------------------------------------------


def broadcast(input: np.ndarray, *, broadcast_sizes: Sequence[int]) -> np.ndarray:
    """XLA Broadcast: new leading dimensions of the given sizes; output[i..., j...] = input[j...]."""
    x = np.asarray(input)
    return _fresh(np.broadcast_to(x, tuple(broadcast_sizes) + x.shape))


def _broadcast_in_dim(x: np.ndarray, dims: Sequence[int], shape: Sequence[int]) -> np.ndarray:
    """output[i_0, ..., i_{n-1}] = x[j_0, ..., j_{r-1}] with j_k = i_{dims[k]} (0 where x's size is 1).

    dims need not be increasing (StableHLO allows any distinct dimensions): x's dimensions are first
    put into the order of their target dimensions, then given the output's rank and broadcast."""
    shape = tuple(int(d) for d in shape)
    if any(d < 0 for d in shape):
        raise ValueError(f"output shape {list(shape)} has a negative dimension size")
    if len(dims) != x.ndim:
        raise ValueError(f"broadcast_dimensions {list(dims)} needs one entry per input dimension (rank {x.ndim})")
    if len(set(dims)) != len(dims) or any(not 0 <= d < len(shape) for d in dims):
        raise ValueError(f"broadcast_dimensions {list(dims)} must be distinct dimensions of the output "
                         f"(rank {len(shape)})")
    for k, d in enumerate(dims):
        if x.shape[k] not in (1, shape[d]):
            raise ValueError(f"input dimension {k} (size {x.shape[k]}) cannot broadcast to output dimension {d} "
                             f"(size {shape[d]})")
    order = sorted(range(x.ndim), key=lambda k: dims[k])
    view = [1] * len(shape)
    for k in order:
        view[dims[k]] = x.shape[k]
    return _fresh(np.broadcast_to(np.transpose(x, order).reshape(view), shape))


def broadcast_in_dim(input: np.ndarray, *, broadcast_dimensions: Sequence[int],
                     output_shape: Sequence[int]) -> np.ndarray:
    """XLA BroadcastInDim; the target shape is the output's (spec note target_shape)."""
    return _broadcast_in_dim(np.asarray(input), list(broadcast_dimensions), output_shape)


def dynamic_broadcast_in_dim(input: np.ndarray, shape: Any, *, broadcast_dimensions: Sequence[int]) -> np.ndarray:
    """BroadcastInDim whose target shape is the contents of the 1-D tensor `shape`."""
    return _broadcast_in_dim(np.asarray(input), list(broadcast_dimensions), _ints(shape))


# ---- Concatenate, Constant, Tuple, GetTupleElement -----------------------------------------------


def concatenate(inputs: Sequence[np.ndarray], *, dimension: int) -> np.ndarray:
    arrays = [np.asarray(a) for a in inputs]
    return np.concatenate(arrays, axis=_axis(dimension, arrays[0].ndim, "dimension"))


def constant(*, value: Any, output_dtype: np.dtype[Any] | None) -> np.ndarray:
    """The tensor `value`. An array keeps its element type, which must be the output's; a Python
    number or list is converted to output_dtype and must be exactly representable there."""
    value = getattr(value, "value", value)  # a TensorInfo carries the array as .value
    dtype = np.dtype(output_dtype)
    if isinstance(value, (np.ndarray, np.generic)):
        if value.dtype != dtype:
            raise ValueError(f"value has element type {value.dtype}, the output {dtype} (type variable T binds both)")
        return _fresh(value)
    given = np.asarray(value)  # a Python number or list
    if given.dtype.kind == "c" and dtype.kind != "c" and np.any(given.imag):
        raise ValueError(f"value {given.tolist()} is complex, the output {dtype}")
    with np.errstate(invalid="ignore", over="ignore"):  # a failed conversion is reported below
        converted = (given.real if given.dtype.kind == "c" and dtype.kind != "c" else given).astype(dtype)
    if dtype.kind in "biu" and not np.array_equal(converted.astype(given.dtype), given):
        raise ValueError(f"value {given.tolist()} is not exactly representable as {dtype}")
    return converted


def tuple_(elements: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
    """XLA Tuple: the elements themselves, in order (spec note tuple_as_list)."""
    return tuple(_fresh(e) for e in elements)


def get_tuple_element(tuple_data: Sequence[np.ndarray], *, index: int) -> np.ndarray:
    return _fresh(tuple_data[index])


# ---- Reshape, DynamicReshape, Squeeze, Unsqueeze, Transpose ---------------------------------------


def reshape(input: np.ndarray, *, output_shape: Sequence[int]) -> np.ndarray:
    """XLA Reshape: the row-major sequence of elements, read into the output's shape."""
    x = np.asarray(input)
    shape = tuple(int(d) for d in output_shape)
    count = math.prod(shape)  # Python ints: exact, and without np.prod's array per call
    if count != x.size:
        raise ValueError(f"output shape {list(shape)} holds {count} elements, the input {x.size}")
    return read_only_view(x.reshape(shape))


def dynamic_reshape(input: np.ndarray, shape: Any, *, allowzero: bool = False) -> np.ndarray:
    """ONNX Reshape: 0 copies the input's dimension (allowzero=0) or is a zero size (allowzero=1);
    one -1 is inferred from the element count. ONNX Reshape-5 and 13 have no allowzero: they mean 0."""
    x = np.asarray(input)
    target = _ints(shape)
    dims = []
    for k, v in enumerate(target):
        if v == 0 and not allowzero:
            if k >= x.ndim:
                raise ValueError(f"shape[{k}] = 0 copies input dimension {k}, which does not exist (rank {x.ndim})")
            v = x.shape[k]
        elif v < -1:
            raise ValueError(f"shape {target} holds the negative size {v}")
        dims.append(v)
    if dims.count(-1) > 1:
        raise ValueError(f"shape {target} holds more than one -1")
    known = math.prod(d for d in dims if d != -1)  # Python ints: exact (np.prod allocates an array per call)
    if -1 in dims:
        if known == 0 or x.size % known:
            raise ValueError(f"shape {target}: the -1 cannot be inferred for {x.size} elements")
        dims[dims.index(-1)] = x.size // known
    count = math.prod(dims)
    if count != x.size:
        raise ValueError(f"shape {target} gives {dims} with {count} elements, the input has {x.size}")
    return read_only_view(x.reshape(dims))


def squeeze(input: np.ndarray, axes: Any = None) -> np.ndarray:
    """ONNX Squeeze. Absent or empty axes remove every dimension of size 1 (spec note empty_axes)."""
    x = np.asarray(input)
    if axes is None or np.asarray(axes).size == 0:
        drop = {k for k, d in enumerate(x.shape) if d == 1}
    else:
        drop = {_axis(a, x.ndim, "axes value") for a in _ints(axes)}
        bad = [a for a in sorted(drop) if x.shape[a] != 1]
        if bad:
            raise ValueError(f"dimensions {bad} of input shape {list(x.shape)} are not of size 1")
    return read_only_view(x.reshape([d for k, d in enumerate(x.shape) if k not in drop]))


def unsqueeze(input: np.ndarray, axes: Any) -> np.ndarray:
    """ONNX Unsqueeze: axes are positions in the output (rank = rank(input) + len(axes))."""
    x = np.asarray(input)
    values = _ints(axes)
    rank = x.ndim + len(values)
    ones = {_axis(a, rank, "axes value") for a in values}
    if len(ones) != len(values):
        raise ValueError(f"axes {values} name an output dimension twice")
    sizes = iter(x.shape)
    return read_only_view(x.reshape([1 if k in ones else next(sizes) for k in range(rank)]))


def transpose(input: np.ndarray, *, permutation: Sequence[int]) -> np.ndarray:
    """output dimension i is input dimension permutation[i] (numpy.transpose)."""
    return read_only_view(np.transpose(np.asarray(input), list(permutation)))


# ---- Reverse, ReverseSequence, Tile, Trilu -------------------------------------------------------


def reverse(input: np.ndarray, *, dimensions: Sequence[int]) -> np.ndarray:
    """XLA Rev: index i of a reversed dimension of size N moves to N - 1 - i."""
    x = np.asarray(input)
    return read_only_view(np.flip(x, axis=tuple(dimensions)) if len(dimensions) else x[...])


def reverse_sequence(input: np.ndarray, sequence_lens: np.ndarray, *, batch_axis: int, time_axis: int) -> np.ndarray:
    """ONNX ReverseSequence: for batch entry b, time steps [0, len[b]) are reversed, the rest copied.
    Every length lies in [0, time size] (spec note sequence_lens_range)."""
    x = np.asarray(input)
    lens = np.asarray(sequence_lens, dtype=np.int64).reshape(-1)
    steps = x.shape[time_axis]
    bad = [int(n) for n in lens if not 0 <= n <= steps]
    if bad:
        raise ValueError(f"sequence_lens {bad} are outside [0, {steps}] (the size of the time axis)")
    t = np.arange(steps, dtype=np.int64)[None, :]
    n = lens[:, None]
    source = np.where(t < n, n - 1 - t, t)  # [batch, time]: the time step each output step reads
    if batch_axis == 1:
        source = source.T  # [time, batch]
    source = source.reshape(source.shape + (1,) * (x.ndim - 2))
    return _fresh(np.take_along_axis(x, np.broadcast_to(source, x.shape), axis=time_axis))


def tile(input: np.ndarray, repeats: np.ndarray) -> np.ndarray:
    """ONNX Tile: dimension d repeated repeats[d] times (0 gives an empty dimension)."""
    x = np.asarray(input)
    reps = _ints(repeats)
    if len(reps) != x.ndim:
        raise ValueError(f"repeats {reps} needs one entry per input dimension (rank {x.ndim})")
    if any(r < 0 for r in reps):
        raise ValueError(f"repeats {reps} must be non-negative")
    # np.tile repeats whole blocks (a copy per dimension repeated); indexing every element through np.ix_
    # and copying the result was ~10x onnx.reference's np.tile
    tiled = np.tile(x, reps)
    return _fresh(tiled) if np.may_share_memory(tiled, x) else tiled


def trilu(input: np.ndarray, *, upper: bool, k: int) -> np.ndarray:
    """ONNX Trilu on the last two dimensions: keep j - i >= k (upper) or j - i <= k (lower), zero elsewhere."""
    x = np.asarray(input)
    rows = np.arange(x.shape[-2], dtype=np.int64)[:, None]
    cols = np.arange(x.shape[-1], dtype=np.int64)[None, :]
    keep = (cols - rows >= k) if upper else (cols - rows <= k)
    return np.where(keep, x, _zero(x.dtype))


# ---- DepthToSpace, SpaceToDepth ------------------------------------------------------------------


def _to_chw(x: np.ndarray, depth_dim: int, space_dims: Sequence[int]) -> tuple[np.ndarray, list[int]]:
    """x with its other dimensions first (in order), then depth, height, width; and that order."""
    height, width = space_dims
    order = [k for k in range(x.ndim) if k not in (depth_dim, height, width)] + [depth_dim, height, width]
    return np.transpose(x, order), order


def _from_chw(y: np.ndarray, order: list[int]) -> np.ndarray:
    return _fresh(np.transpose(y, np.argsort(order)))


def depth_to_space(input: np.ndarray, *, space_dims: Sequence[int], blocksize: int, depth_dim: int,
                   mode: str) -> np.ndarray:
    """ONNX DepthToSpace on the named dimensions (space_dims = [height, width]); other dimensions keep
    their order. DCR reads depth as (row, column, channel), CRD as (channel, row, column)."""
    x, order = _to_chw(np.asarray(input), depth_dim, space_dims)
    *rest, c, h, w = x.shape
    b = blocksize
    if mode == "DCR":
        t = x.reshape(*rest, b, b, c // (b * b), h, w)  # row, column, channel, h, w
        t = np.moveaxis(t, [-5, -4, -3, -2, -1], [-3, -1, -5, -4, -2])  # -> channel, h, row, w, column
    else:
        t = x.reshape(*rest, c // (b * b), b, b, h, w)  # channel, row, column, h, w
        t = np.moveaxis(t, [-5, -4, -3, -2, -1], [-5, -3, -1, -4, -2])  # -> channel, h, row, w, column
    return _from_chw(t.reshape(*rest, c // (b * b), h * b, w * b), order)


def space_to_depth(input: np.ndarray, *, space_dims: Sequence[int], blocksize: int, depth_dim: int,
                   mode: str = "DCR") -> np.ndarray:
    """ONNX SpaceToDepth on the named dimensions: element (h * blocksize + row, w * blocksize + column)
    of input channel c goes to output channel (row * blocksize + column) * C + c (DCR, the only order
    before ONNX SpaceToDepth-28) or c * blocksize^2 + row * blocksize + column (CRD): DepthToSpace's
    reading order of the same mode, so the two are inverses."""
    x, order = _to_chw(np.asarray(input), depth_dim, space_dims)
    *rest, c, h, w = x.shape
    b = blocksize
    t = x.reshape(*rest, c, h // b, b, w // b, b)  # channel, h, row, w, column
    if mode == "DCR":
        t = np.moveaxis(t, [-5, -4, -3, -2, -1], [-3, -2, -5, -1, -4])  # -> row, column, channel, h, w
    else:
        t = np.moveaxis(t, [-5, -4, -3, -2, -1], [-5, -2, -4, -1, -3])  # -> channel, row, column, h, w
    return _from_chw(t.reshape(*rest, b * b * c, h // b, w // b), order)


# ---- Iota, DynamicIota ---------------------------------------------------------------------------


def iota(*, iota_dimension: int, output_dtype: np.dtype[Any] | None, output_shape: Sequence[int]) -> np.ndarray:
    """XLA Iota: 0, 1, 2, ... along `iota_dimension`, broadcast over the other dimensions."""
    shape = tuple(output_shape)
    ramp = np.arange(shape[iota_dimension], dtype=np.int64).astype(output_dtype)
    view = [1] * len(shape)
    view[iota_dimension] = shape[iota_dimension]
    return np.broadcast_to(ramp.reshape(view), shape).copy()


def dynamic_iota(shape: Any, *, iota_dimension: int, output_dtype: np.dtype[Any] | None) -> np.ndarray:
    """Iota whose shape is the contents of the 1-D tensor `shape`."""
    dims = _ints(shape)
    if any(d < 0 for d in dims):
        raise ValueError(f"shape {dims} has a negative dimension size")
    return iota(iota_dimension=iota_dimension, output_dtype=output_dtype, output_shape=dims)


# ---- Shape, Size, SetDimensionSize, NonZero, GeneralSplit -----------------------------------------


def shape_of(input: np.ndarray, *, start: int, end: int, output_dtype: np.dtype[Any] | None) -> np.ndarray:
    """ONNX Shape: dimensions [start, end) of the input's shape; negative values count from the back,
    then both are clamped to [0, rank]."""
    rank = np.ndim(input)
    lo = min(max(start + rank if start < 0 else start, 0), rank)
    hi = min(max(end + rank if end < 0 else end, 0), rank)
    return np.array(np.shape(input)[lo:hi], dtype=output_dtype).reshape(-1)


def size(input: np.ndarray, *, output_dtype: np.dtype[Any] | None) -> np.ndarray:
    """ONNX Size: the number of elements, as a scalar (spec note scalar_output)."""
    return np.array(np.size(input), dtype=output_dtype)


def set_dimension_size(input: np.ndarray, size: int, *, dimension: int) -> np.ndarray:
    """XLA SetDimensionSize: the result's dimension `dimension` has the dynamic size `size`; the
    kernel returns that dynamic-shaped value, the first `size` elements along the dimension (spec
    note dynamic_result)."""
    x = np.asarray(input)
    n = int(np.asarray(size).reshape(()))
    if not 0 <= n <= x.shape[dimension]:
        raise ValueError(f"size {n} is outside [0, {x.shape[dimension]}] (the static size of dimension {dimension})")
    return _fresh(np.take(x, np.arange(n), axis=dimension))


def nonzero(input: np.ndarray) -> np.ndarray:
    """torch.nonzero: the index of every element that is not zero, one row each, in row-major order
    (NaN is not zero, -0.0 is; a complex number is zero when both parts are)."""
    x = np.asarray(input)
    found = x != _zero(x.dtype)
    if x.ndim == 0:
        return np.zeros((1 if found else 0, 0), dtype=np.int64)
    return np.stack(np.nonzero(found), axis=1).astype(np.int64)


def general_split(input: np.ndarray, split: np.ndarray | None = None, *, axis: int,
                  num_outputs: int | None) -> tuple[np.ndarray, ...]:
    """ONNX Split-18. With num_outputs every part has ceil(size / num_outputs) elements but the last,
    which has the rest (spec note uneven_split); with split, the parts have the given sizes."""
    x = np.asarray(input)
    a = _axis(axis, x.ndim, "axis")
    total = x.shape[a]
    if (split is None) == (num_outputs is None):
        raise ValueError("exactly one of split and num_outputs must be given")
    if split is not None:
        sizes = _ints(split)
        if any(s < 0 for s in sizes) or sum(sizes) != total:
            raise ValueError(f"split {sizes} must be non-negative sizes summing to {total}, the size of axis {a}")
    else:
        assert num_outputs is not None  # exactly one of the two is given (checked above)
        chunk = -(-total // num_outputs)
        sizes = [chunk] * (num_outputs - 1) + [total - chunk * (num_outputs - 1)]
        if sizes[-1] < 0:
            raise ValueError(f"axis {a} of size {total} cannot be split into {num_outputs} parts of "
                             f"{chunk} elements with a smaller last part")
    # each part is a basic slice of the input, given as a read-only view (the module's rule)
    before = (slice(None),) * a
    parts = []
    lo = 0
    for size in sizes:  # a Python loop: np.cumsum of a short list costs more than the slicing
        parts.append(basic_slice(x, before + (slice(lo, lo + size),)))
        lo += size
    return tuple(parts)
