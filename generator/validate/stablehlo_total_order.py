"""Total-order comparisons of floats (`stablehlo.compare` with compare_type TOTALORDER), read as an
hlir.Compare of integers.

TOTALORDER orders floats as IEEE 754's totalOrder does: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf
< +NaN. hlir.Compare compares floats as IEEE 754's ordinary comparisons (NaN unordered, -0.0 equal to
+0.0), so such a comparison is written the way XLA's own ComparisonExpander pass writes it: each
operand's bits as a signed integer of its width (hlir.BitcastConvert), with every bit but the sign
flipped when the sign is set (x ^ ((x >> (width - 1)) & INT_MAX): hlir.ShiftRightArithmetic,
StablehloAnd, StablehloXor, by scalar constants broadcast to the shape). Those integers order as the
floats' total order does, so a signed hlir.Compare with the same direction gives the same answer.
jax writes such comparisons for jnp.searchsorted (so digitize, interp, histogram).

The added nodes carry the operation's location."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..graph import Node
from ..runtime.validation import TensorInfo
from .stablehlo_ops import Untranslatable

if TYPE_CHECKING:
    from collections.abc import MutableMapping

    from .stablehlo_batching import NodeMaker

# float element type -> the signed integer type of its width
_INTEGER_OF = {"float16": "int16", "bfloat16": "int16", "float": "int32", "double": "int64"}


def total_order_keys(reader: NodeMaker, operands: list[str], values: MutableMapping[str, TensorInfo], nodes: list[Node],
                     where: str) -> list[str]:
    """For the two operands of a TOTALORDER comparison, the integers whose signed order is their total
    order (see above); Untranslatable for operands that are not floats of a static shape."""
    info = values[operands[0]]
    integer = _INTEGER_OF.get(info.dtype or "")
    if integer is None or info.shape is None or None in info.shape:
        raise Untranslatable(f"compare_type TOTALORDER on {info.dtype or 'operands of unknown type'}"
                             f"{'' if info.shape is not None and None not in info.shape else ' of no static shape'}; "
                             "opgen reads it for floats of a static shape")
    shape = tuple(int(d or 0) for d in info.shape)
    kind = np.dtype(integer)
    width = kind.itemsize * 8
    shift = _broadcast_scalar(reader, integer, shape, np.array(width - 1, kind), values, nodes, where)
    magnitude = _broadcast_scalar(reader, integer, shape, np.array(np.iinfo(kind).max, kind), values, nodes, where)
    keys = []
    for operand in operands:
        bits = _node(reader, "BitcastConvert", (operand,), integer, shape, values, nodes, where)
        sign = _node(reader, "ShiftRightArithmetic", (bits, shift), integer, shape, values, nodes, where)
        flips = _node(reader, "StablehloAnd", (sign, magnitude), integer, shape, values, nodes, where)
        keys.append(_node(reader, "StablehloXor", (bits, flips), integer, shape, values, nodes, where))
    return keys


def _node(reader: NodeMaker, op: str, inputs: tuple[str, ...], dtype: str, shape: tuple[int, ...],
          values: MutableMapping[str, TensorInfo], nodes: list[Node], where: str,
          attributes: dict[str, Any] | None = None) -> str:
    """One more node of `op` making one value of this type; its name."""
    out = reader.fresh()
    values[out] = reader.info_of(dtype, shape)
    reader.add(nodes, Node(len(nodes), where, "hlir", op, None, inputs, (out,)), attributes or {})
    return out


def _broadcast_scalar(reader: NodeMaker, dtype: str, shape: tuple[int, ...], value: np.ndarray,
                      values: MutableMapping[str, TensorInfo], nodes: list[Node], where: str) -> str:
    """A scalar hlir.Constant broadcast to `shape` (hlir.BroadcastInDim): the constant stays one element."""
    scalar = reader.fresh()
    values[scalar] = TensorInfo(dtype, (), value)
    reader.add(nodes, Node(len(nodes), where, "hlir", "Constant", None, (), (scalar,)), {"value": value})
    return _node(reader, "BroadcastInDim", (scalar,), dtype, shape, values, nodes, where, {"broadcast_dimensions": []})
