"""ONNX tensor sequences: SequenceEmpty, SequenceConstruct, SequenceAt, SequenceInsert, SequenceErase,
SequenceLength, SplitToSequence, ConcatFromSequence and SequenceMap.

A sequence is an `opgen.runtime.values.SequenceValue`: a list of arrays that knows the element type
of its tensors ("tensor(float)"), so that an empty sequence still has a type. Conventions:
- every kernel returns a new sequence and new arrays (SplitToSequence's parts are read-only views of
  its input, as data_movement.general_split gives them); an input sequence is never changed (an ONNX
  value is immutable, and the graph runner may hand the same sequence to several nodes);
- a position (SequenceAt, SequenceInsert, SequenceErase) counts from the back when negative, and one
  outside the accepted range is an error (ValueError naming the range), as ONNX says it is;
- the tensors of one sequence share an element type but not a shape (ONNX allows any shapes).
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ...dtypes import elem_of_numpy
from ..values import OptionalValue, SequenceValue, value_type
from .data_movement import concatenate, general_split

# TensorProto.DataType codes of the element types a sequence may hold (SequenceEmpty's dtype). ONNX
# numbers its types in this enum; the names are opgen's spellings, which are ONNX's in lower case.
ONNX_TYPE_CODES = {
    1: "float", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64", 8: "string",
    9: "bool", 10: "float16", 11: "double", 12: "uint32", 13: "uint64", 14: "complex64", 15: "complex128",
    16: "bfloat16",
}


def _items(sequence: Any, what: str = "input_sequence") -> SequenceValue:
    if not isinstance(sequence, SequenceValue):
        if isinstance(sequence, (list, tuple)):  # a plain list given to a kernel directly
            return SequenceValue(sequence)
        raise TypeError(f"{what} must be a sequence (SequenceValue), found {type(sequence).__name__}")
    return sequence


def _position(position: Any, length: int, what: str, *, inclusive_end: bool) -> int:
    """A position given as a scalar tensor, counted from the back when negative: [-n, n-1] names an
    element; with inclusive_end (SequenceInsert) n, the end, is accepted too."""
    p = np.asarray(position)
    if p.size != 1:
        raise ValueError(f"{what} must hold one integer, found shape {list(p.shape)}")
    k = int(p.reshape(-1)[0])
    high = length if inclusive_end else length - 1
    if not -length <= k <= high:
        raise ValueError(f"{what} {k} is outside [{-length}, {high}] for a sequence of {length} tensors")
    return k + length if k < 0 else k


def _elem_type_of(x: np.ndarray) -> str:
    return f"tensor({elem_of_numpy(np.asarray(x).dtype)})"


def _same_type(seq: SequenceValue, tensor: np.ndarray, what: str) -> None:
    if seq.elem_type is not None and _elem_type_of(tensor) != seq.elem_type:
        raise ValueError(f"{what} is a {_elem_type_of(tensor)}, the sequence holds {seq.elem_type}")


# ---- building and reading sequences --------------------------------------------------------------


def sequence_empty(*, dtype: int = 1, output_dtype: Any = None) -> SequenceValue:
    """An empty sequence of tensors of the element type numbered `dtype` (float by default). The graph
    runner may also pass the output's declared type as output_dtype; the attribute decides."""
    elem = ONNX_TYPE_CODES.get(1 if dtype is None else int(dtype))  # ONNX: float when not given
    if elem is None:
        raise ValueError(f"dtype {dtype} is not the TensorProto code of an element type a sequence may hold")
    return SequenceValue([], f"tensor({elem})")


def sequence_construct(inputs: Sequence[np.ndarray], *, output_sequence_dtype: Any = None) -> SequenceValue:
    """The sequence of the given tensors, in order (at least one: ONNX's min arity; one element type)."""
    arrays = [np.array(x, copy=True) for x in inputs]
    if not arrays:
        raise ValueError("SequenceConstruct needs at least one tensor")
    types = {_elem_type_of(a) for a in arrays}
    if len(types) != 1:
        raise ValueError(f"the tensors of a sequence share one element type, found {', '.join(sorted(types))}")
    return SequenceValue(arrays, types.pop())


def sequence_at(input_sequence: SequenceValue, position: np.ndarray, *, tensor_dtype: Any = None) -> np.ndarray:
    """The tensor at `position` (in [-n, n-1])."""
    seq = _items(input_sequence)
    return np.array(seq[_position(position, len(seq), "position", inclusive_end=False)], copy=True)


def sequence_length(input_sequence: SequenceValue, *, length_dtype: Any = None) -> np.ndarray:
    """The number of tensors, as an int64 scalar."""
    return np.array(len(_items(input_sequence)), dtype=np.int64)


def sequence_insert(input_sequence: SequenceValue, tensor: np.ndarray, position: np.ndarray | None = None
                    ) -> SequenceValue:
    """A copy of the sequence with `tensor` inserted before `position` (in [-n, n]); at the back when
    position is absent."""
    seq = _items(input_sequence)
    _same_type(seq, tensor, "tensor")
    k = len(seq) if position is None else _position(position, len(seq), "position", inclusive_end=True)
    items = [np.array(a, copy=True) for a in seq]
    items.insert(k, np.array(tensor, copy=True))
    return SequenceValue(items, seq.elem_type or _elem_type_of(tensor))


def sequence_erase(input_sequence: SequenceValue, position: np.ndarray | None = None) -> SequenceValue:
    """A copy of the sequence without the tensor at `position` (in [-n, n-1]); the last one when
    position is absent. Erasing from an empty sequence is an error (no position is valid)."""
    seq = _items(input_sequence)
    k = _position(-1 if position is None else position, len(seq), "position", inclusive_end=False)
    return SequenceValue([np.array(a, copy=True) for j, a in enumerate(seq) if j != k], seq.elem_type)


# ---- SplitToSequence and ConcatFromSequence ------------------------------------------------------


def split_to_sequence(input: np.ndarray, split: np.ndarray | None = None, *, axis: int = 0,
                      keepdims: int = 1, output_sequence_dtype: Any = None) -> SequenceValue:
    """ONNX SplitToSequence: the parts of `input` along `axis`. Without split, parts of size 1, whose
    axis is removed when keepdims is 0; a scalar split s gives parts of size s, the last one smaller
    when s does not divide the size (ONNX's rule, unlike Split's equal-as-possible num_outputs); a 1-D
    split gives the sizes themselves (keepdims is then ignored, as ONNX says). The cutting is
    data_movement.general_split's, given the sizes."""
    x = np.asarray(input)
    if x.ndim == 0:
        raise ValueError("SplitToSequence needs an input of rank 1 or more")
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"axis {axis} is outside [{-x.ndim}, {x.ndim - 1}]")
    a = axis % x.ndim
    total = x.shape[a]
    if split is None:
        sizes = [1] * total
    else:
        s = np.asarray(split)
        if s.ndim == 0:
            chunk = int(s)
            if chunk <= 0:
                raise ValueError(f"a scalar split must be positive, found {chunk}")
            sizes = [chunk] * (total // chunk) + ([total % chunk] if total % chunk else [])
        elif s.ndim == 1:
            sizes = [int(v) for v in s.tolist()]
        else:
            raise ValueError(f"split must be a scalar or a 1-D tensor, found rank {s.ndim}")
    elem_type = _elem_type_of(x)
    if not sizes:  # an axis of size 0 split in parts of 1 (or a scalar split): no parts at all
        return SequenceValue([], elem_type)
    parts = list(general_split(x, np.asarray(sizes, dtype=np.int64), axis=a, num_outputs=None))
    if split is None and not keepdims:
        parts = [np.squeeze(p, axis=a) for p in parts]
    return SequenceValue(parts, elem_type)


def concat_from_sequence(input_sequence: SequenceValue, *, axis: int, new_axis: int = 0,
                         concat_result_dtype: Any = None) -> np.ndarray:
    """ONNX ConcatFromSequence: the tensors joined along `axis` (in [-r, r-1]); with new_axis 1 they are
    stacked on a new axis, which `axis` places in the rank r+1 result (in [-r-1, r]). The joining is
    data_movement.concatenate's. An empty sequence has nothing to join: an error (ONNX gives no
    result for it, and the output's shape would be unknown)."""
    seq = _items(input_sequence)
    if not seq:
        raise ValueError("ConcatFromSequence of an empty sequence: there is no tensor to join")
    arrays = [np.asarray(a) for a in seq]
    rank = arrays[0].ndim
    if new_axis:
        if not -rank - 1 <= axis <= rank:
            raise ValueError(f"axis {axis} is outside [{-rank - 1}, {rank}] (new_axis = 1, rank {rank})")
        position = axis % (rank + 1)
        arrays = [np.expand_dims(a, position) for a in arrays]
        return concatenate(arrays, dimension=position)
    if rank == 0:
        raise ValueError("scalars cannot be joined along an existing axis: use new_axis = 1")
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} is outside [{-rank}, {rank - 1}]")
    return concatenate(arrays, dimension=axis)


# ---- SequenceMap ---------------------------------------------------------------------------------


def _declared_sequence_types(body: Any, count: int) -> list[str | None]:
    """The element types a graph body declares for its outputs (tensor(float)), None where unknown."""
    declared = getattr(body, "declared", None)
    names = getattr(body, "output_names", None)
    if declared is None or names is None:
        return [None] * count
    out: list[str | None] = []
    for name in names[:count]:
        dtype = declared(name).dtype
        out.append(None if dtype is None else dtype if "(" in dtype else f"tensor({dtype})")
    return out + [None] * (count - len(out))


def sequence_map(input_sequence: SequenceValue, additional_inputs: Sequence[Any] = (), *,
                 body: Callable[..., Any]) -> tuple[SequenceValue, ...]:
    """ONNX SequenceMap: body runs once per element i of input_sequence, on that element and, for each
    additional input, its element i when it is a sequence (of the same length) or the whole value when
    it is a tensor. Output k is the sequence of body's k-th results. Body's outputs are tensors; for an
    empty input sequence, the output sequences are empty with the element types body declares."""
    seq = _items(input_sequence)
    extras = list(additional_inputs)
    for j, extra in enumerate(extras):
        if isinstance(extra, SequenceValue) and len(extra) != len(seq):
            raise ValueError(f"additional input {j} is a sequence of {len(extra)} tensors, input_sequence has "
                             f"{len(seq)}: sequences are mapped element by element")
    n_out = len(getattr(body, "output_names", ())) or None
    collected: list[list[np.ndarray]] | None = None
    for i, element in enumerate(seq):
        args = [element] + [e[i] if isinstance(e, SequenceValue) else e for e in extras]
        results = body(*args)
        results = tuple(results) if isinstance(results, (tuple, list)) and not isinstance(results, SequenceValue) \
            else (results,)
        if collected is None:
            collected = [[] for _ in results]
        if len(results) != len(collected):
            raise ValueError(f"body returned {len(results)} values at element {i}, {len(collected)} before")
        for k, r in enumerate(results):
            if isinstance(r, (SequenceValue, OptionalValue)):
                raise ValueError(f"body output {k} is a {value_type(r)}: SequenceMap collects tensors")
            collected[k].append(np.array(r, copy=True))
    if collected is None:  # no element: the output types are the ones body declares
        if n_out is None:
            raise ValueError("SequenceMap of an empty sequence needs a body that declares its outputs")
        declared = _declared_sequence_types(body, n_out)
        return tuple(SequenceValue([], t) for t in declared)
    outputs = []
    for k, items in enumerate(collected):
        types = {_elem_type_of(a) for a in items}
        if len(types) != 1:
            raise ValueError(f"body output {k} has element types {', '.join(sorted(types))}: a sequence holds one")
        outputs.append(SequenceValue(items, types.pop()))
    return tuple(outputs)
