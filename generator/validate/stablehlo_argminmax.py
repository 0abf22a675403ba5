"""jax's argmax/argmin reduction (a StableHLO reduce of values and an iota of indices) -> hlir.StablehloReduce
(Reduce's kernel and notes) with computation ARGMAX or ARGMIN.

jax.numpy.argmax lowers to `reduce((values, iota) init (-inf, 0))` whose body picks, of two
(value, index) pairs, the one with the larger value (a NaN counts as the largest), and of equal values
the lower index. hlir.Reduce states that with two inputs and ARGMAX (ARGMIN for `LT`): output k is
input k where the first input first holds its extreme (Reduce notes arg_computations, max_min_order).
The two agree when the indices are an iota along the one reduced dimension (so the lowest index is the
first position) and the initial index is not above the first index (0). One case stays apart: when
the extreme is a zero met as both -0.0 and +0.0, XLA's comparison takes them as equal (the lower
index wins) while hlir orders -0.0 below +0.0; jax.numpy.argmax of such rows may differ.
"""
from __future__ import annotations

from typing import Any

from .stablehlo_ops import Untranslatable, _body, _direction, _same


def _producer(value: Any, name: str) -> Any:
    """The operation `name` that produced value, or None (a block argument, or another operation)."""
    owner = value.owner
    return owner if getattr(owner, "name", "") == name else None


def _compares(value: Any, directions: tuple[str, ...], lhs: Any, rhs: Any) -> str | None:
    """The direction of `value = compare DIR (lhs, rhs)` when DIR is one of directions."""
    op = _producer(value, "stablehlo.compare")
    if op is None or not (_same(op.operands[0], lhs) and _same(op.operands[1], rhs)):
        return None
    direction = _direction(op)
    return direction if direction in directions else None


def _either(value: Any, name: str) -> list[tuple[Any, Any]]:
    """The two orders of the operands of `value = name(a, b)` (an or/and), or none."""
    op = _producer(value, name)
    if op is None or len(op.operands) != 2:
        return []
    a, b = op.operands
    return [(a, b), (b, a)]


def _picks_first(value: Any, va: Any, vb: Any) -> str | None:
    """GT or LT when value is `compare GT|LT (va, vb)`, alone (integers) or or-ed with `compare NE
    (va, va)` (floats: a NaN value wins)."""
    direction = _compares(value, ("GT", "LT"), va, vb)
    if direction is not None:
        return direction
    for a, b in _either(value, "stablehlo.or"):
        direction = _compares(a, ("GT", "LT"), va, vb)
        if direction is not None and _compares(b, ("NE",), va, va):
            return direction
    return None


def _select_of(value: Any, on_true: Any, on_false: Any) -> Any:
    """The predicate of `value = select(pred, on_true, on_false)`, or None."""
    op = _producer(value, "stablehlo.select")
    if op is None or not (_same(op.operands[1], on_true) and _same(op.operands[2], on_false)):
        return None
    return op.operands[0]


def _index_wins(value: Any, pick: Any, va: Any, vb: Any, ia: Any, ib: Any) -> bool:
    """value is `or(pick, and(compare EQ (va, vb), compare LT (ia, ib)))`: on equal values the lower
    index wins."""
    for first, tie in _either(value, "stablehlo.or"):
        if _same(first, pick):
            for a, b in _either(tie, "stablehlo.and"):
                if _compares(a, ("EQ",), va, vb) and _compares(b, ("LT",), ia, ib):
                    return True
    return False


def _iota_along(value: Any, dimensions: list[int]) -> bool:
    op = _producer(value, "stablehlo.iota")
    return op is not None and len(dimensions) == 1 and int(op.attributes["iota_dimension"].value) == dimensions[0]


def _at_most_zero(value: Any) -> bool:
    """value is a constant no larger than 0 (the first index an iota holds)."""
    from jaxlib.mlir import ir

    op = _producer(value, "stablehlo.constant")
    if op is None:
        return False
    dense = ir.DenseElementsAttr(op.attributes["value"])
    return bool(dense.is_splat) and ir.IntegerAttr(dense.get_splat_value()).value <= 0


def argminmax_of(op: Any, dimensions: list[int]) -> str:
    """ARGMAX or ARGMIN for jax's argmax/argmin reduce of (values, iota); Untranslatable otherwise."""
    args, ops = _body(op, 0)
    ret = ops[-1]
    if len(args) == 4 and len(ret.operands) == 2:
        va, ia, vb, ib = args
        pick = _select_of(ret.operands[0], va, vb)
        pick_index = _select_of(ret.operands[1], ia, ib)
        direction = None if pick is None else _picks_first(pick, va, vb)
        if (direction is not None and pick_index is not None and _index_wins(pick_index, pick, va, vb, ia, ib)
                and _iota_along(op.operands[1], dimensions) and _at_most_zero(op.operands[3])):
            return "ARGMAX" if direction == "GT" else "ARGMIN"
    raise Untranslatable("it reduces two tensors with a body other than jax's argmax/argmin of values and an "
                         "iota along the one reduced dimension (hlir.Reduce states those as ARGMAX/ARGMIN)")
