"""Gathers and scatters with batching dimensions, read as hlir's Gather and ScatterND, which have none.

StableHLO lets a gather pair dimensions of the operand with dimensions of the indices
(operand_batching_dims with start_indices_batching_dims; for a scatter, input_batching_dims with
scatter_indices_batching_dims): the slice taken for index position i along such an indices
dimension lies at position i of the paired operand dimension. jax emits them for
`jnp.take_along_axis` (so for every cross-entropy loss) and for its gradient.

A batching dimension is an index whose value is the position itself, so it can be written
explicitly, as XLA's own pass (BatchedGatherScatterNormalizer) does: for each pair, an hlir.Iota
along the indices dimension is appended to the index vector (hlir.Concatenate at index_vector_dim,
after an hlir.Reshape when the index vector is the implicit trailing one), and the operand
dimension joins start_index_map and collapsed_slice_dims (scatter: scatter_dims_to_operand_dims and
inserted_window_dims). The result's shape and every value are unchanged: the position is always in
range (StableHLO's C-constraints make the paired sizes equal), so clamping never moves it.

The translators (opgen.validate.stablehlo_ops) fold the operand dimensions into the maps; the reader
calls `explicit_indices` for the indices operand. The added nodes carry the operation's location."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from ..graph import Node
from .stablehlo_ops import Untranslatable

if TYPE_CHECKING:
    from collections.abc import MutableMapping

    from ..runtime.validation import TensorInfo


class NodeMaker(Protocol):
    """What explicit_indices asks of the reader (opgen.validate.stablehlo_reader._Reader)."""

    def fresh(self) -> str: ...

    def info_of(self, dtype: str | None, shape: tuple[int, ...]) -> TensorInfo: ...

    def add(self, nodes: list[Node], node: Node, attributes: dict[str, Any]) -> None: ...


class Batching(NamedTuple):
    indices: int  # the operand position of the indices
    index_vector_dim: int
    indices_dims: tuple[int, ...]  # the indices' batching dimensions, in the order of their pairs
    operand_dims: tuple[int, ...]


def batching_of(op: Any) -> Batching | None:
    """The batching dimensions of a stablehlo.gather or single-tensor stablehlo.scatter, None if it
    has none (or is another operation)."""
    from jaxlib.mlir.dialects import stablehlo

    if op.name == "stablehlo.gather":
        g = stablehlo.GatherDimensionNumbers(op.attributes["dimension_numbers"])
        batching = Batching(1, int(g.index_vector_dim), tuple(int(x) for x in g.start_indices_batching_dims),
                            tuple(int(x) for x in g.operand_batching_dims))
    elif op.name == "stablehlo.scatter" and len(op.operands) == 3:
        s = stablehlo.ScatterDimensionNumbers(op.attributes["scatter_dimension_numbers"])
        batching = Batching(1, int(s.index_vector_dim), tuple(int(x) for x in s.scatter_indices_batching_dims),
                            tuple(int(x) for x in s.input_batching_dims))
    else:
        return None
    return batching if batching.operand_dims else None


def explicit_indices(reader: NodeMaker, name: str, info: TensorInfo, batching: Batching,
                     values: MutableMapping[str, TensorInfo], nodes: list[Node], where: str) -> str:
    """The indices `name` with one index-vector component more per batching pair: the position along
    the pair's indices dimension (hlir.Iota), joined at index_vector_dim (hlir.Concatenate)."""
    if info.shape is None or None in info.shape or info.dtype is None:
        raise Untranslatable("it has batching dimensions, and its indices have no static shape to spell "
                             "them as explicit indices")
    shape = tuple(int(d or 0) for d in info.shape)
    axis = batching.index_vector_dim
    if axis == len(shape):  # the implicit trailing index vector of one component: made explicit
        shape += (1,)
        vector = reader.fresh()
        values[vector] = reader.info_of(info.dtype, shape)
        reader.add(nodes, Node(len(nodes), where, "hlir", "Reshape", None, (name,), (vector,)), {})
        name = vector
    one = shape[:axis] + (1,) + shape[axis + 1:]
    pieces = [name]
    for dim in batching.indices_dims:
        position = reader.fresh()
        values[position] = reader.info_of(info.dtype, one)
        reader.add(nodes, Node(len(nodes), where, "hlir", "Iota", None, (), (position,)), {"iota_dimension": dim})
        pieces.append(position)
    joined = reader.fresh()
    values[joined] = reader.info_of(info.dtype, shape[:axis] + (shape[axis] + len(batching.indices_dims),)
                                    + shape[axis + 1:])
    reader.add(nodes, Node(len(nodes), where, "hlir", "Concatenate", None, tuple(pieces), (joined,)),
               {"dimension": axis})
    return joined


def aligned_dot_batching(reader: NodeMaker, inputs: list[str], attributes: dict[str, Any],
                         values: MutableMapping[str, TensorInfo], nodes: list[Node], where: str) -> list[str]:
    """A stablehlo.dot_general whose operands number their batching dimensions differently (jax's
    dot_product_attention pairs [0, 2] with [1, 2]) read as hlir.DotGeneral, whose constraint C3 (from
    document 004) wants the same numbers on both sides: each operand whose batching dimensions are not
    its leading ones in order is transposed (hlir.Transpose) so that they are, its other dimensions
    keeping their order, and `attributes` numbers the dimensions as they then stand. The result is
    unchanged: DotGeneral's result is the batching dimensions in their order, then the free dimensions
    of lhs and of rhs, each in its operand's order. Returns the operands to use."""
    lhs_b, rhs_b = attributes["lhs_batching_dimensions"], attributes["rhs_batching_dimensions"]
    if lhs_b == rhs_b:
        return inputs
    leading = list(range(len(lhs_b)))
    out = list(inputs)
    for k, side in enumerate(("lhs", "rhs")):
        batching = attributes[f"{side}_batching_dimensions"]
        if batching == leading:
            continue
        info = values[inputs[k]]
        if info.shape is None:
            raise Untranslatable(f"its {side} numbers its batching dimensions otherwise than the other operand, "
                                 "and has no known rank to transpose it by")
        permutation = batching + [d for d in range(len(info.shape)) if d not in batching]
        moved = reader.fresh()
        values[moved] = reader.info_of(info.dtype, tuple(info.shape[d] for d in permutation))
        reader.add(nodes, Node(len(nodes), where, "hlir", "Transpose", None, (inputs[k],), (moved,)),
                   {"permutation": permutation})
        out[k] = moved
        attributes[f"{side}_batching_dimensions"] = leading
        attributes[f"{side}_contracting_dimensions"] = [permutation.index(d)
                                                        for d in attributes[f"{side}_contracting_dimensions"]]
    return out
