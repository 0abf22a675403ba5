"""Sorts by several keys and sorts of complex values, read as a chain of hlir.Sort ops.

hlir.Sort orders every tensor by its first one (document 004), ascending or descending. jax writes two
other comparators:
- several keys (jnp.lexsort, lax.sort with num_keys > 1): `or(LT(k0), and(EQ(k0), <the other keys>))`,
  the keys compared in turn;
- complex values (jnp.sort, argsort and unique of complex numbers, and so jnp.roots): the same, with the
  real parts as the first key and the imaginary parts as the second.

Each key is a `compare LT|GT` of one operand's two elements, or of their real or imaginary parts, as jax
canonicalizes them first (-0.0 as +0.0, every NaN as one NaN greater than +inf: hlir.Sort's own order). A
stable sort by the last key, then by the one before, and so on to the first, orders the tensors as the
comparator does (least significant key first, as a radix sort does); so the comparator becomes one stable
hlir.Sort per key, each with its key tensor first. A complex operand is sorted as its two parts
(hlir.Real, StablehloImag: hlir.Sort has no complex type), which StablehloComplex joins again. Ties of every
key keep their input order: a valid result of an unstable sort too.

The added nodes carry the operation's location.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..graph import Node
from .stablehlo_complex import PART_OF
from .stablehlo_ops import Untranslatable, _attr, _body, _direction, _rank, lineage
from .stablehlo_widening import described, widen_inputs, widening_plan

if TYPE_CHECKING:
    from collections.abc import MutableMapping

    from ..runtime.validation import Signature, TensorInfo
    from .stablehlo_batching import NodeMaker

# What jax's comparators compute between a block argument and a comparison: taking a part, and the
# canonicalization of signed zeros and NaNs (compare, select, constant), which keeps the order. Anything
# else (a negation, say) would order otherwise, and the sort is not read.
_KEY_OPERATIONS = {"stablehlo.real", "stablehlo.imag", "stablehlo.compare", "stablehlo.select",
                   "stablehlo.constant"}
_PART_OPERATIONS = {"stablehlo.real": "real", "stablehlo.imag": "imag"}


@dataclass(frozen=True)
class SortKey:
    operand: int  # the position of the sorted tensor the key is taken from
    part: str | None  # "real" or "imag": that part of a complex tensor; None: the tensor itself
    descending: bool


def sort_keys(op: Any) -> list[SortKey]:
    """The comparator of a stablehlo.sort as its keys, most significant first."""
    args, ops = _body(op, 0)
    ret = ops[-1]
    if len(ret.operands) != 1 or len(args) < 2 or len(args) % 2:
        raise Untranslatable("its comparator does not return one comparison of the operands' elements")
    return _keys(ret.operands[0], args, 0)


def _keys(value: Any, args: list[Any], depth: int) -> list[SortKey]:
    if depth > len(args):
        raise Untranslatable("its comparator nests more comparisons than it has operands")
    owner = value.owner
    name = getattr(owner, "name", "")
    if name == "stablehlo.compare":
        return [_key(owner, args, ("LT", "GT"))]
    if name == "stablehlo.or" and len(owner.operands) == 2:
        for first, rest in ((0, 1), (1, 0)):
            before = owner.operands[first].owner
            if getattr(before, "name", "") != "stablehlo.compare" or _direction(before) not in ("LT", "GT"):
                continue
            key = _key(before, args, ("LT", "GT"))
            tie = owner.operands[rest].owner
            if getattr(tie, "name", "") != "stablehlo.and" or len(tie.operands) != 2:
                break
            for equal, others in ((0, 1), (1, 0)):
                compare = tie.operands[equal].owner
                if getattr(compare, "name", "") == "stablehlo.compare" and _direction(compare) == "EQ":
                    tied = _key(compare, args, ("EQ",))
                    if (tied.operand, tied.part) == (key.operand, key.part):
                        return [key, *_keys(tie.operands[others], args, depth + 1)]
            break
    raise Untranslatable("its comparator is neither `compare LT|GT` of one operand's elements nor a "
                         "lexicographic `or(LT(k0), and(EQ(k0), ...))` of such keys (hlir.Sort orders by keys)")


def _key(compare: Any, args: list[Any], directions: tuple[str, ...]) -> SortKey:
    """The key a `compare` of (f(arg 2i), f(arg 2i + 1)) reads: operand i, the part f takes."""
    direction = _direction(compare)
    if direction not in directions:
        raise Untranslatable(f"its comparator compares {direction} where {' or '.join(directions)} orders")
    (lhs, lhs_parts), (rhs, rhs_parts) = (_lineage(compare.operands[k], args) for k in (0, 1))
    if len(lhs) != 1 or len(rhs) != 1 or min(lhs) % 2 or max(rhs) != min(lhs) + 1 or lhs_parts != rhs_parts \
            or len(lhs_parts) > 1:
        raise Untranslatable("a comparison of its comparator does not compare one operand's two elements")
    return SortKey(min(lhs) // 2, next(iter(lhs_parts), None), direction == "GT")


def _lineage(value: Any, args: list[Any]) -> tuple[set[int], set[str]]:
    """The block arguments a comparator value is computed from, and the parts (real, imag) it takes."""
    found, names = lineage(value, args)
    changing = sorted(names - _KEY_OPERATIONS)
    if changing:
        raise Untranslatable(f"its comparator computes {changing[0] or 'a value'} of a key, which may change the "
                             "order (jax compares the elements, their parts, or zeros and NaNs made canonical)")
    return found, {_PART_OPERATIONS[name] for name in names & _PART_OPERATIONS.keys()}


def sort_dimension(op: Any) -> int:
    dimension = _attr(op, "dimension")
    return int(dimension.value) if dimension is not None else _rank(op) - 1


def needs_chain(keys: list[SortKey], inputs: list[TensorInfo | None]) -> bool:
    """Whether a sort is more than one hlir.Sort: several keys, a part as key, or a complex tensor."""
    return len(keys) > 1 or keys[0].part is not None or any(i is not None and i.dtype in PART_OF for i in inputs)


def add_chained_sort(reader: NodeMaker, keys: list[SortKey], dimension: int, inputs: list[str], outputs: list[str],
                     values: MutableMapping[str, TensorInfo], nodes: list[Node], where: str,
                     signature: Signature | None) -> None:
    """One stable hlir.Sort per key, the last key first, each with its key's tensor first; complex tensors
    sorted as their parts and joined again into `outputs`; bool and bfloat16 tensors sorted as uint8 and
    float (hlir.Sort's types lack them; the order is the same), as the reader widens single sorts."""
    complex_ = [values[name].dtype in PART_OF for name in inputs]
    # (operand, part) of each tensor sorted together: a complex operand as its two parts
    sources = [(k, part) for k, apart in enumerate(complex_) for part in (("real", "imag") if apart else (None,))]
    for key in keys:
        if (key.operand, key.part) not in sources:
            what = f"the {key.part} part of operand {key.operand}" if key.part else f"operand {key.operand}"
            raise Untranslatable(f"its comparator orders by {what}, which is not a real tensor of the sort")
    columns: list[str] = []
    for position, part in sources:
        name = inputs[position]
        if part is None:
            columns.append(name)
            continue
        column = reader.fresh()
        values[column] = described(reader, PART_OF[values[name].dtype or ""], values[name])
        take = "Real" if part == "real" else "StablehloImag"
        reader.add(nodes, Node(len(nodes), where, "hlir", take, None, (name,), (column,)), {})
        columns.append(column)
    infos = [values[c] for c in columns]
    plan = widening_plan("Sort", signature, list(infos), infos)
    widened = plan[0] if plan is not None else [None] * len(columns)
    if plan is not None:
        columns = widen_inputs(reader, columns, plan[0], values, nodes, where)
    for round_, key in enumerate(reversed(keys)):
        first = sources.index((key.operand, key.part))
        order = [first] + [k for k in range(len(columns)) if k != first]
        last = round_ == len(keys) - 1
        made = []
        for k in order:
            operand, part = sources[k]
            # the last sort makes the results, but for the parts and the widened tensors
            name = outputs[operand] if last and part is None and widened[k] is None else reader.fresh()
            if name not in values:
                values[name] = values[columns[k]]
            made.append(name)
        reader.add(nodes, Node(len(nodes), where, "hlir", "Sort", None, tuple(columns[k] for k in order), tuple(made)),
                   {"dimension": dimension, "descending": key.descending, "is_stable": True})
        for k, name in zip(order, made):
            columns[k] = name
    for k, wide in enumerate(widened):  # back to bool or bfloat16
        if wide is not None:
            reader.add(nodes, Node(len(nodes), where, "hlir", "Convert", None, (columns[k],),
                                   (outputs[sources[k][0]],)), {})
    for position, apart in enumerate(complex_):
        if apart:
            parts = (columns[sources.index((position, "real"))], columns[sources.index((position, "imag"))])
            reader.add(nodes, Node(len(nodes), where, "hlir", "StablehloComplex", None, parts, (outputs[position],)),
                       {})
