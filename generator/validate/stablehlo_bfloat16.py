"""bfloat16 operands of hlir ops whose types have no bfloat16, computed in float32.

Document 004 gives most arithmetic (Add, Sub, Div, Exp, DotGeneral, Conv, ReduceWindow, ...) no
bfloat16, and the specs keep its type lists. jax programs in bfloat16 (mixed-precision layers and
training steps) use those operations all the time; XLA on CPU computes them in float32 and rounds the
result to bfloat16 (its float-normalization passes). A program is read that way: such an operation's
bfloat16 operands are converted to float32 (hlir.Convert, exact), the hlir op computes in float32,
and each bfloat16 result is the float32 result converted back (hlir.Convert, rounding to nearest
even). For +, -, *, / and sqrt this is the correctly rounded bfloat16 result (float32 carries more than
twice bfloat16's 8 significand bits, so rounding twice never differs); for the other functions and for
sums it is what XLA on CPU computes, up to the order of a sum's terms.

Only where the op's spec takes float32 and not bfloat16 for the values concerned; ops with nested
graphs are left as they are. The added nodes carry the operation's location."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..graph import Node

if TYPE_CHECKING:
    from ..runtime.validation import Signature, TensorInfo
    from .stablehlo_batching import NodeMaker

WIDE = "float"  # float32, what XLA on CPU computes bfloat16 arithmetic in
NARROW = "bfloat16"


def widened(sig: Signature | None, inputs: list[TensorInfo | None], outputs: list[TensorInfo]) -> bool:
    """Whether the op computes in float32 what the program gives it in bfloat16: some operand or result
    is bfloat16 where the spec takes no bfloat16 but float32."""
    if sig is None:
        return False
    needed = False
    for params, infos in ((sig.inputs, inputs), (sig.outputs, outputs)):
        for position, info in enumerate(infos):
            if info is None or info.dtype != NARROW:
                continue
            if not params:
                continue
            allowed = sig.allowed(params[min(position, len(params) - 1)])  # the last param repeats (variadic)
            if NARROW in allowed:
                continue
            if WIDE not in allowed:
                return False  # float32 would not help: the checker reports the type as it is
            needed = True
    return needed


def widen_inputs(reader: NodeMaker, inputs: list[str], values: dict[str, TensorInfo], nodes: list[Node],
                 where: str) -> list[str]:
    """Each bfloat16 operand converted to float32 (a node each, before the op's)."""
    widened_inputs = []
    for name in inputs:
        info = values.get(name) if name else None
        if info is not None and info.dtype == NARROW:
            wide = reader.fresh()
            values[wide] = _described(reader, WIDE, info)
            reader.add(nodes, Node(len(nodes), where, "hlir", "Convert", None, (name,), (wide,)), {})
            name = wide
        widened_inputs.append(name)
    return widened_inputs


def widen_outputs(reader: NodeMaker, outputs: list[str], values: dict[str, TensorInfo]) -> list[str]:
    """The op's outputs: a new float32 value stands in for each bfloat16 result (narrow_outputs)."""
    made = []
    for name in outputs:
        info = values[name]
        if info.dtype == NARROW:
            name = reader.fresh()
            values[name] = _described(reader, WIDE, info)
        made.append(name)
    return made


def narrow_outputs(reader: NodeMaker, made: list[str], outputs: list[str], nodes: list[Node], where: str) -> None:
    """Each bfloat16 result converted from the float32 value standing in for it (after the op)."""
    for wide, name in zip(made, outputs):
        if wide != name:
            reader.add(nodes, Node(len(nodes), where, "hlir", "Convert", None, (wide,), (name,)), {})


def _described(reader: NodeMaker, dtype: str, like: TensorInfo) -> TensorInfo:
    """A description of `like`'s shape with another dtype (one object per description, as the reader's)."""
    if like.shape is not None and None not in like.shape:
        return reader.info_of(dtype, tuple(int(d or 0) for d in like.shape))
    from ..runtime.validation import TensorInfo

    return TensorInfo(dtype, like.shape)
