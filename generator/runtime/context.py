"""What a compiled constraint check sees: the context types shared by the validator
(`validation`) and the named shape rules (`shape_rules`).

They live apart from both so that neither imports the other for them: `validation` runs the rules
(it imports `shape_rules`), and the rules only need the context.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, cast

import numpy as np

from ..dtypes import elem_of_numpy, spec_dtype
from .values import OptionalValue, SequenceValue, common_shape

if TYPE_CHECKING:  # for annotations only: validation imports this module
    from .validation import Signature

MAX_RANGE = 1_000_000  # values one range() in a check may produce
VALUE_UNKEYED = 1 << 62  # CheckContext.largest_value_read after reading a value no cache key holds


class Unknown(Exception):
    """Raised inside a check when a value it needs (a shape, an absent attribute) is not known."""


@dataclass(frozen=True)
class TensorInfo:
    """What a validator knows of a value: element type and shape (either possibly unknown), and the
    value itself when it is a constant. A shape entry may be None (a symbolic dimension).

    A value that is not a tensor has its whole type as dtype (seq(tensor(float)), optional(...)); the
    shape of a sequence of tensors or of an optional tensor is the shape of the tensors it holds, when
    its type states one (every element of a sequence has it), else None."""

    dtype: str | None = None
    shape: tuple[int | None, ...] | None = None
    value: Any = field(default=None, compare=False, repr=False)

    @staticmethod
    def of(value: Any) -> "TensorInfo | None":
        if value is None or isinstance(value, TensorInfo):
            return value
        if isinstance(value, tuple) and len(value) == 2 and (value[0] is None or isinstance(value[0], str)):
            dtype, shape = value  # a spec name, or a NumPy one ("float32") read as the spec's ("float")
            return TensorInfo(spec_dtype(dtype), None if shape is None else tuple(shape))
        if isinstance(value, tuple) and len(value) == 2 and _is_dtype_like(value[0]):
            dtype, shape = value  # a NumPy dtype or type: np.float32, np.dtype("int8"), ml_dtypes.bfloat16
            return TensorInfo(spec_dtype(dtype), None if shape is None else tuple(shape))
        if isinstance(value, (SequenceValue, OptionalValue)):
            return TensorInfo(value.type, common_shape(value), value)
        arr = np.asarray(value)
        return TensorInfo(elem_of_numpy(arr.dtype), tuple(arr.shape), arr)


def _is_dtype_like(obj: Any) -> bool:
    return isinstance(obj, np.dtype) or (isinstance(obj, type) and issubclass(obj, np.generic))


@dataclass
class Bound:
    """Values bound to the parameters of one side (inputs or outputs)."""

    single: dict[str, TensorInfo | None] = field(default_factory=dict)
    variadic: dict[str, list[TensorInfo | None]] = field(default_factory=dict)



class CheckContext:
    """What a compiled check can ask: attributes, ranks and shapes (raising Unknown when unknown)."""

    def __init__(self, sig: Signature, attrs: Mapping[str, Any], ins: Bound, outs: Bound,
                 given: frozenset[str] = frozenset()):
        self.sig, self.attrs, self.ins, self.outs, self.given = sig, attrs, ins, outs, given
        self.read_values = False  # set when a rule reads a tensor's value (an input's or an attribute's)
        # the most elements of an input or output value read (0 for an absent value asked for;
        # VALUE_UNKEYED: one no cache key can hold); attribute values are in every cache key already
        self.largest_value_read = -1

    def attr(self, name: str) -> Any:
        if name in self.attrs:
            return self.attrs[name]
        own = self.sig.checked_attribute(name)  # `split_attr`: the attribute named like an input
        if own is not None and own != name and own in self.attrs:
            return self.attrs[own]
        raise Unknown(name)

    def info(self, name: str) -> TensorInfo | None:
        for b in (self.ins, self.outs):
            if name in b.single:
                return b.single[name]
        return None

    def infos(self, name: str) -> list[TensorInfo | None]:
        for b in (self.ins, self.outs):
            if name in b.variadic:
                return b.variadic[name]
        return [self.info(name)]

    def has(self, name: str) -> bool:
        """Attribute given explicitly, or optional input present."""
        own = self.sig.checked_attribute(name)
        if own is not None:
            return own in self.given
        return any(i is not None for i in self.infos(name))

    def _attribute_info(self, name: str) -> TensorInfo:
        """A tensor-valued attribute's value as a TensorInfo (a model reader gives one; a caller may give
        an array or a nested list); Unknown when it has no regular shape."""
        try:
            info = TensorInfo.of(self.attr(name))
        except ValueError:  # a ragged nested list
            raise Unknown(name) from None
        if info is None or info.shape is None:
            raise Unknown(name)
        return info

    def shape(self, name: str) -> tuple[int, ...]:
        """The shape of a parameter, or of a tensor-valued attribute's value (Constant's value)."""
        info = self._attribute_info(name) if self.sig.checked_attribute(name) is not None else self.info(name)
        if info is None or info.shape is None or any(d is None for d in info.shape):
            raise Unknown(name)
        return tuple(cast("tuple[int, ...]", info.shape))  # no None: checked above

    def shapes(self, name: str) -> tuple[tuple[int, ...], ...]:
        """The shape of each value bound to a parameter: every element of a variadic one (Concat's
        inputs), or the one value of a single one; Unknown when any is absent or not fully known."""
        out = []
        for info in self.infos(name):
            if info is None or info.shape is None or any(d is None for d in info.shape):
                raise Unknown(name)
            out.append(tuple(cast("tuple[int, ...]", info.shape)))
        return tuple(out)

    def broadcast_shape(self, *names: str) -> tuple[int, ...]:
        """The shape NumPy/ONNX multidirectional broadcasting gives these parameters (every element of
        a variadic one: Sum, Max, Mean)."""
        try:
            return tuple(np.broadcast_shapes(*(s for n in names for s in self.shapes(n))))
        except ValueError:
            raise Unknown(names[0]) from None  # not broadcastable: a constraint reports that

    def xla_broadcast_shape(self, *names: str) -> tuple[int, ...]:
        """XLA element-wise broadcasting: the operands of the highest rank broadcast among themselves
        (degenerate dimensions); operands of lower rank align into them (broadcast_dimensions)."""
        shapes = [self.shape(n) for n in names]
        top = max(len(s) for s in shapes)
        try:
            return tuple(np.broadcast_shapes(*(s for s in shapes if len(s) == top)))
        except ValueError:
            raise Unknown(names[0]) from None

    def rank(self, name: str) -> int:
        """Rank of a parameter (for a variadic one, of its first element whose shape is known), or of a
        tensor-valued attribute's value."""
        if self.sig.checked_attribute(name) is not None:
            return len(self.shape(name))
        known = [i for i in self.infos(name) if i is not None and i.shape is not None]
        if not known:
            raise Unknown(name)
        return len(known[0].shape or ())  # known shapes only

    def numel(self, name: str) -> int:
        return int(np.prod(self.shape(name), dtype=np.int64))

    def count(self, name: str) -> int:
        if not any(name in b.single or name in b.variadic for b in (self.ins, self.outs)):
            raise Unknown(name)  # an output, and the caller gave no outputs (a kernel call)
        return len(self.infos(name))

    def value(self, name: str) -> np.ndarray:
        """The constant value of a parameter, or of an attribute; Unknown when not known."""
        self.read_values = True
        if self.sig.checked_attribute(name) is not None:
            return np.asarray(self.attr(name))
        return self.value_of(self.info(name), name)

    def value_of(self, info: TensorInfo | None, name: str) -> np.ndarray:
        """The constant value of one input or output (`value` for a single one; rules call this for
        each element of a variadic one); noted for the validation cache, which keys small values."""
        self.read_values = True
        value = None if info is None else info.value
        if value is None:  # the memo keys whether a value is given: reading none is like reading a small one
            self.largest_value_read = max(self.largest_value_read, 0)
            raise Unknown(name)
        if type(value) is not np.ndarray or value.dtype == object:  # a sequence, strings
            self.largest_value_read = VALUE_UNKEYED
        else:
            self.largest_value_read = max(self.largest_value_read, value.size)
        return np.asarray(value)

    def values(self, name: str) -> tuple[Any, ...]:
        """A constant input's values, flattened, as Python numbers (what checks compare and sum);
        Unknown when the file gives no value (readers keep only small constants)."""
        return tuple(self.value(name).ravel().tolist())

    @staticmethod
    def bits(elem: str) -> int:
        """The width in bits of an element type named as dtype() gives it (BitcastConvert's shapes)."""
        from ..dtypes import ELEM_TYPES

        return ELEM_TYPES[elem].bits

    @staticmethod
    def prod(values: Any) -> int:
        """The product of a few sizes (a shape's element count); Python ints, so it cannot overflow."""
        out = 1
        for v in values:
            out *= int(v)
        return out

    def dtype(self, name: str) -> str:
        """Element type of a parameter; for a variadic one, of its first element whose type is known."""
        info = self.info(name)
        if info is None:
            info = next((i for i in self.infos(name) if i is not None and i.dtype is not None), None)
        if info is None or info.dtype is None:
            raise Unknown(name)
        return info.dtype

    @staticmethod
    def range(*args: int) -> range:
        """range() for checks, bounded: a check walks dimensions and list attributes, never more than
        MAX_RANGE values, so a runaway range (from a spec or a hostile attribute) fails fast."""
        values = range(*args)
        if len(values) > MAX_RANGE:
            raise ValueError(f"range of {len(values)} values in a check; at most {MAX_RANGE}")
        return values

    @staticmethod
    def unique(values: Any) -> bool:
        values = list(values)
        return len(values) == len(set(values))
