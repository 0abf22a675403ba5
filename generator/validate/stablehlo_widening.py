"""Operands of a type an hlir op's spec lacks, computed in a wider type that holds each of their values.

- **bfloat16 in float32.** Document 004 gives most arithmetic (Add, Sub, Div, Exp, DotGeneral, Conv,
  ReduceWindow, ...) no bfloat16, and the specs keep its type lists. jax programs in bfloat16
  (mixed-precision layers and training steps) use those operations all the time; XLA on CPU computes
  them in float32 and rounds the result to bfloat16 (its float-normalization passes). For +, -, *, /
  and sqrt this is the correctly rounded bfloat16 result (float32 carries more than twice bfloat16's
  8 significand bits, so rounding twice never differs); for the other functions and for sums it is
  what XLA on CPU computes, up to the order of a sum's terms. Any op may be widened so.
- **bool in uint8**, for the ops in SELECTING only (and scatters whose computation selects,
  SELECTING_SCATTERS). 004 gives Select, Pad, Max, Min, Clamp, Gather, ScatterND and Sort no bool,
  and jax uses them on booleans in every causal mask (`jnp.tril` of a bool matrix is a Select of
  bools), in `jnp.where` over masks, in padding a mask, in sorting one and in jnp.unique. Each result
  element of these ops is one of their operands' elements (or the larger or smaller of two: false <
  true, as 0 < 1, which is also the order Sort's comparator compares bools in), so
  false and true computed as 0 and 1 and converted back (nonzero is true) give StableHLO's result
  exactly. An op that sums (DotGeneral, Conv, ReduceWindow, Add over many terms) is not among them:
  256 trues would wrap to 0 in uint8, so such a program keeps its type error.
- **Operands of a product in its result's type.** A dot_general or convolution may give its result a wider
  type than its operands (jax's preferred_element_type: int8 matrices multiplied into int32, as in
  quantized models; float16 into float32), which hlir's DotGeneral and Conv (one type variable) cannot
  state. Each operand is converted to the result's type first (ACCUMULATING, accumulation_plan): the
  result's type holds every operand value, so the products and sums are those of StableHLO, where the
  operands are converted to the result type (up to the order of a float sum's terms).
- **Conversions of the 8-bit float types** (FLOAT8, which 004's Convert has none of) are read as the
  extension op StablehloConvertFloat8 (float8_form) rather than widened: no op computes in them.

The program is read that way: each such operand is converted to the wide type (hlir.Convert, exact),
the hlir op computes in it, and each such result is the wide result converted back (hlir.Convert).
Only values whose parameter's types lack the narrow type and have the wide one are widened (Select's
predicate stays bool); ops with nested graphs are left as they are. The added nodes carry the
operation's location."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from ..graph import Node

if TYPE_CHECKING:
    from collections.abc import MutableMapping

    from ..runtime.validation import Signature, TensorInfo
    from .stablehlo_batching import NodeMaker

# The hlir ops each of whose results is an element of an operand (a padding value included) or the
# larger or smaller of two of them: widening bool to uint8 and narrowing back is exact for these. (Sort's
# comparator is read as its `descending` attribute, not as a graph over bools: it orders 0 and 1 alike.)
SELECTING = frozenset({"Select", "Pad", "Max", "Min", "Clamp", "Gather", "Concatenate", "Slice", "Reverse",
                       "Transpose", "BroadcastInDim", "Reshape", "DynamicSlice", "DynamicUpdateSlice", "Sort"})


class Widening(NamedTuple):
    narrow: str
    wide: str
    ops: frozenset[str] | None  # the hlir ops it applies to; None: every op


WIDENINGS = {w.narrow: w for w in (Widening("bfloat16", "float", None), Widening("bool", "uint8", SELECTING))}
# A scatter selects too when its computation replaces, or keeps the larger or smaller, or combines bits that
# stay 0 or 1 (jnp.unique(size=...) scatters bools so); ADD and MUL are left out (256 trues wrap in uint8).
SELECTING_SCATTERS = frozenset({"UPDATE", "MAX", "MIN", "AND", "OR", "XOR"})


def _applies(widening: Widening, op: str, attributes: dict[str, Any] | None) -> bool:
    if widening.ops is None or op in widening.ops:
        return True
    return widening.narrow == "bool" and op == "ScatterND" and \
        (attributes or {}).get("computation") in SELECTING_SCATTERS


# The ops whose result may have a wider type than their operands (preferred_element_type), and which types
# hold every value of which: the operands are converted to the result's type (accumulation_plan).
ACCUMULATING = frozenset({"DotGeneral", "Conv"})
_HOLDS = {"int8": {"int16", "int32", "int64"}, "int16": {"int32", "int64"}, "int32": {"int64"},
          "uint8": {"uint16", "uint32", "uint64", "int16", "int32", "int64"},
          "uint16": {"uint32", "uint64", "int32", "int64"},
          "uint32": {"uint64", "int64"}, "float16": {"float", "double"}, "bfloat16": {"float", "double"},
          "float": {"double"}}

# The wide type of each operand and of each result of one op (None: read as given).
Plan = tuple[list[str | None], list[str | None]]


def widening_plan(op: str, sig: Signature | None, inputs: list[TensorInfo | None],
                  outputs: list[TensorInfo], attributes: dict[str, Any] | None = None) -> Plan | None:
    """What to compute in a wider type, or None when nothing is: a value of a narrow type (WIDENINGS)
    whose parameter's types lack it but have its wide type, in an op the widening applies to. When some
    such value's parameter has neither, None: the wide type would not help, and the checker reports
    the type as it is."""
    if sig is None:
        return None
    plan: Plan = ([], [])
    needed = False
    for params, infos, wide_types in ((sig.inputs, inputs, plan[0]), (sig.outputs, outputs, plan[1])):
        for position, info in enumerate(infos):
            widening = WIDENINGS.get(info.dtype) if info is not None and info.dtype is not None else None
            wide = None
            if widening is not None and params and _applies(widening, op, attributes):
                allowed = sig.allowed(params[min(position, len(params) - 1)])  # the last param repeats (variadic)
                if widening.narrow not in allowed:
                    if widening.wide not in allowed:
                        return None
                    wide = widening.wide
                    needed = True
            wide_types.append(wide)
    return plan if needed else None


FLOAT8 = frozenset({"float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz"})


def float8_form(op: str, infos: list[TensorInfo | None]) -> str:
    """The hlir op for `op` on these operands and results: StablehloConvertFloat8 for a Convert where an
    8-bit float type takes part (004's Convert has none of them), else `op`."""
    if op == "Convert" and any(info is not None and info.dtype in FLOAT8 for info in infos):
        return "StablehloConvertFloat8"
    return op


def accumulation_plan(op: str, inputs: list[TensorInfo | None], outputs: list[TensorInfo]) -> list[str | None] | None:
    """The type to convert each operand of a product to (None: as it is), or None when nothing is converted:
    an ACCUMULATING op whose one result has a type that holds every value of each operand's other type."""
    if op not in ACCUMULATING or len(outputs) != 1 or outputs[0].dtype is None:
        return None
    result = outputs[0].dtype
    types = [info.dtype if info is not None else None for info in inputs]
    if any(t is None or (t != result and result not in _HOLDS.get(t, ())) for t in types):
        return None
    plan: list[str | None] = [None if t == result else result for t in types]
    return plan if any(plan) else None


def widen_inputs(reader: NodeMaker, inputs: list[str], wide_types: list[str | None],
                 values: MutableMapping[str, TensorInfo], nodes: list[Node], where: str) -> list[str]:
    """Each operand the plan widens converted to its wide type (a node each, before the op's)."""
    widened_inputs = []
    for name, wide_type in zip(inputs, wide_types):
        if wide_type is not None:
            wide = reader.fresh()
            values[wide] = described(reader, wide_type, values[name])
            reader.add(nodes, Node(len(nodes), where, "hlir", "Convert", None, (name,), (wide,)), {})
            name = wide
        widened_inputs.append(name)
    return widened_inputs


def widen_outputs(reader: NodeMaker, outputs: list[str], wide_types: list[str | None],
                  values: MutableMapping[str, TensorInfo]) -> list[str]:
    """The op's outputs: a new value of the wide type stands in for each result the plan widens
    (narrow_outputs)."""
    made = []
    for name, wide_type in zip(outputs, wide_types):
        if wide_type is not None:
            info = values[name]
            name = reader.fresh()
            values[name] = described(reader, wide_type, info)
        made.append(name)
    return made


def narrow_outputs(reader: NodeMaker, made: list[str], outputs: list[str], nodes: list[Node], where: str) -> None:
    """Each widened result converted back from the value standing in for it (after the op)."""
    for wide, name in zip(made, outputs):
        if wide != name:
            reader.add(nodes, Node(len(nodes), where, "hlir", "Convert", None, (wide,), (name,)), {})


def described(reader: NodeMaker, dtype: str, like: TensorInfo) -> TensorInfo:
    """A description of `like`'s shape with another dtype (one object per description, as the reader's)."""
    if like.shape is not None and None not in like.shape:
        return reader.info_of(dtype, tuple(int(d or 0) for d in like.shape))
    from ..runtime.validation import TensorInfo

    return TensorInfo(dtype, like.shape)
