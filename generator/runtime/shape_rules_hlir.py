"""XLA-style shape rules of the hlir operator set (registered in opgen.runtime.rule_registry.RULES like the
general ones in `shape_rules`)."""
from __future__ import annotations

from typing import Any, cast

import numpy as np

from .context import CheckContext, Unknown
from .rule_registry import Attr, Param, rule


def _shapes(c: CheckContext, name: str) -> list[tuple[int, ...]]:
    """Shapes of every element of a (possibly variadic) parameter; Unknown if any is unknown."""
    out = []
    for info in c.infos(name):
        if info is None:
            continue
        if info.shape is None or any(d is None for d in info.shape):
            raise Unknown(name)
        out.append(tuple(cast("tuple[int, ...]", info.shape)))  # no None: checked above
    return out


def _optional_attr(c: CheckContext, name: str) -> Any:
    try:
        return c.attr(name)
    except Unknown:
        return None


@rule
def xla_broadcast_dimensions(c: CheckContext, lhs: Param, rhs: Param, attribute: Attr) -> str:
    """XLA's element-wise binary shapes (ShapeInference::InferElementwiseBinaryOpShape).

    Equal ranks: broadcast_dimensions absent (or the identity), and each dimension pair is equal or
    has a 1 ("degenerate" broadcasting). Different ranks: the lower-rank operand is a scalar, or
    broadcast_dimensions maps its dimensions, in strictly increasing order, to dimensions of the
    other, where the sizes are equal or one of them is 1."""
    a, b = tuple(c.shape(lhs)), tuple(c.shape(rhs))
    dims = _optional_attr(c, attribute)
    dims = None if dims is None else [int(d) for d in dims]

    def compatible(x: int, y: int) -> bool:
        return x == y or x == 1 or y == 1

    if len(a) == len(b):
        if dims and dims != list(range(len(a))):
            return (f"{attribute} {dims} must be absent or the identity when {lhs} and {rhs} have the same "
                    f"rank ({len(a)})")
        bad = [k for k in range(len(a)) if not compatible(a[k], b[k])]
        if bad:
            given = "" if dims else f" and no {attribute} is given"
            return (f"{lhs} shape {list(a)} and {rhs} shape {list(b)} differ in dimension {bad[0]}, where "
                    f"neither size is 1{given}")
        return ""
    (low_name, low), (high_name, high) = sorted(((lhs, a), (rhs, b)), key=lambda x: len(x[1]))
    if not dims:
        if len(low) == 0:
            return ""
        return f"{lhs} shape {list(a)} and {rhs} shape {list(b)} differ in rank and no {attribute} is given"
    if len(dims) != len(low):
        return f"{attribute} {dims} needs one entry per dimension of {low_name} (rank {len(low)})"
    if any(not 0 <= d < len(high) for d in dims) or len(set(dims)) != len(dims):
        return f"{attribute} {dims} must be distinct dimensions of {high_name} (rank {len(high)})"
    if any(dims[k] <= dims[k - 1] for k in range(1, len(dims))):
        return f"{attribute} {dims} must be in strictly increasing order"
    bad = [k for k, d in enumerate(dims) if not compatible(low[k], high[d])]
    if bad:
        return (f"{low_name} dimension {bad[0]} (size {low[bad[0]]}) does not match {high_name} dimension "
                f"{dims[bad[0]]} (size {high[dims[bad[0]]]}), and neither size is 1")
    return ""


@rule
def concatenate(c: CheckContext, inputs: Param, attribute: Attr) -> str:
    """The tensors of inputs have one rank and equal sizes off the dimension the attribute names (in range)."""
    shapes = _shapes(c, inputs)
    if not shapes:
        return ""
    rank = len(shapes[0])
    dim = c.attr(attribute)
    if not -rank <= dim < rank:
        return f"{attribute} {dim} is outside [-{rank}, {rank - 1}]"
    dim %= rank
    for k, s in enumerate(shapes):
        if len(s) != rank or any(s[d] != shapes[0][d] for d in range(rank) if d != dim):
            return f"{inputs}[{k}] shape {list(s)} differs from {inputs}[0] shape {list(shapes[0])} off dimension {dim}"
    return ""


@rule
def dot(c: CheckContext, lhs: Param, rhs: Param) -> str:
    """lhs and rhs have rank 1 or 2 and lhs's last dimension equals rhs's first."""
    a, b = c.shape(lhs), c.shape(rhs)
    if len(a) not in (1, 2) or len(b) not in (1, 2):
        return f"{lhs} and {rhs} must have rank 1 or 2, found {len(a)} and {len(b)}"
    if a[-1] != b[0]:
        return f"contracting sizes differ: {lhs} {list(a)} dimension {len(a) - 1} vs {rhs} {list(b)} dimension 0"
    return ""


@rule
def dot_general(c: CheckContext, lhs: Param, rhs: Param) -> str:
    """Sizes only (StableHLO dot_general_c9/c10): corresponding batching and contracting dimensions have
    the same size. Equal lengths, ranges and distinctness are constraints of their own in the spec (one
    violation, one number), so dimension lists that break them leave this rule nothing to say."""
    a, b = c.shape(lhs), c.shape(rhs)
    for side in ("lhs", "rhs"):
        used = list(c.attr(f"{side}_batching_dimensions")) + list(c.attr(f"{side}_contracting_dimensions"))
        if len(set(used)) != len(used):
            return ""  # not distinct: the spec's own constraint reports it
    for kind in ("batching", "contracting"):
        left, right = list(c.attr(f"lhs_{kind}_dimensions")), list(c.attr(f"rhs_{kind}_dimensions"))
        if len(left) != len(right):
            continue
        for d_l, d_r in zip(left, right):
            if not (0 <= d_l < len(a) and 0 <= d_r < len(b)):
                continue
            if a[d_l] != b[d_r]:
                return (f"{kind} sizes differ: {lhs} dimension {d_l} (size {a[d_l]}) vs {rhs} dimension {d_r} "
                        f"(size {b[d_r]})")
    return ""


@rule
def dynamic_update_slice(c: CheckContext, operand: Param, update: Param) -> str:
    """update has operand's rank and fits inside it (no dimension larger)."""
    a, u = c.shape(operand), c.shape(update)
    if len(a) != len(u) or any(x > y for x, y in zip(u, a)):
        return f"{update} shape {list(u)} does not fit in {operand} shape {list(a)}"
    return ""


@rule
def select(c: CheckContext, pred: Param, on_true: Param, on_false: Param) -> str:
    """on_true and on_false have one shape; pred has that shape or is a scalar."""
    p, t, f = c.shape(pred), c.shape(on_true), c.shape(on_false)
    if t != f:
        return f"{on_true} shape {list(t)} differs from {on_false} shape {list(f)}"
    if p != t and len(p) != 0:
        return f"{pred} shape {list(p)} must equal {list(t)} or be a scalar"
    return ""


@rule
def broadcast_in_dim(c: CheckContext, operand: Param, output: Param, attribute: Attr) -> str:
    """The attribute maps each operand dimension to a distinct output dimension of size equal (or operand size 1)."""
    s, out = c.shape(operand), c.shape(output)
    dims = list(c.attr(attribute))
    if len(dims) != len(s):
        return f"{attribute} {dims} needs one entry per dimension of {operand} (rank {len(s)})"
    if any(not 0 <= d < len(out) for d in dims) or len(set(dims)) != len(dims):
        return f"{attribute} {dims} must be distinct dimensions of {output} (rank {len(out)})"
    bad = [k for k, d in enumerate(dims) if s[k] not in (1, out[d])]
    if bad:
        k = bad[0]
        return (f"{operand} dimension {k} (size {s[k]}) cannot broadcast to {output} dimension {dims[k]} "
                f"(size {out[dims[k]]})")
    return ""


@rule
def bitcast_convert(c: CheckContext, operand: Param, output: Param) -> str:
    """output's shape is operand's, with a last dimension added or removed when the element widths differ."""
    from ..dtypes import ELEM_TYPES

    s, t = c.shape(operand), c.shape(output)
    bits_in, bits_out = ELEM_TYPES[c.dtype(operand)].bits, ELEM_TYPES[c.dtype(output)].bits
    if bits_in == bits_out:
        expected = s
    elif bits_in > bits_out:
        expected = s + (bits_in // bits_out,)
    else:
        if not s or s[-1] != bits_out // bits_in:
            return f"{operand} last dimension must be {bits_out // bits_in} to widen {bits_in}-bit to {bits_out}-bit"
        expected = s[:-1]
    return "" if t == expected else f"{output} shape {list(t)} should be {list(expected)}"


def _same_and_scalars(c: CheckContext, inputs: str, init_values: str) -> tuple[list[tuple[int, ...]], str]:
    shapes = _shapes(c, inputs)
    if len(set(shapes)) > 1:
        return shapes, f"{inputs} shapes differ: {[list(s) for s in shapes]}"
    inits = _shapes(c, init_values)
    if any(len(s) != 0 for s in inits):
        return shapes, f"every {init_values} element must be a scalar, found shapes {[list(s) for s in inits]}"
    if inits and len(inits) != len(shapes):
        return shapes, f"{len(shapes)} {inputs} need as many {init_values}, found {len(inits)}"
    return shapes, ""


@rule
def reduce(c: CheckContext, inputs: Param, init_values: Param, outputs: Param, attribute: Attr) -> str:
    """inputs share one shape, init_values are scalars (one per input), the attribute's dimensions are distinct and
    in range, outputs drop them."""
    shapes, problem = _same_and_scalars(c, inputs, init_values)
    if problem or not shapes:
        return problem
    dims, rank = list(c.attr(attribute)), len(shapes[0])
    if any(not 0 <= d < rank for d in dims) or len(set(dims)) != len(dims):
        return f"{attribute} {dims} must be distinct dimensions in [0, {rank - 1}]"
    expected = tuple(x for k, x in enumerate(shapes[0]) if k not in dims)
    try:
        outs = _shapes(c, outputs)
    except Unknown:
        return ""
    bad = [list(s) for s in outs if s != expected]
    return f"{outputs} shapes {bad} should be {list(expected)}" if bad else ""


@rule
def reduce_window_operands(c: CheckContext, inputs: Param, init_values: Param, attribute: Attr) -> str:
    """inputs share one shape, init_values are scalars (one per input), the window attribute has one entry per
    dimension."""
    shapes, problem = _same_and_scalars(c, inputs, init_values)
    if problem or not shapes:
        return problem
    window = list(c.attr(attribute))
    return "" if len(window) == len(shapes[0]) else (
        f"{attribute} {window} needs one entry per dimension of the inputs (rank {len(shapes[0])})")


@rule
def partial_reduce(c: CheckContext, inputs: Param, init_values: Param, outputs: Param, reduction_dim: Attr,
                   log2_reduction: Attr) -> str:
    """inputs share one shape, init_values are scalars (one per input), reduction_dim is a dimension of the inputs."""
    shapes, problem = _same_and_scalars(c, inputs, init_values)
    if problem or not shapes:
        return problem
    rank, dim = len(shapes[0]), c.attr(reduction_dim)
    if rank < 1 or not 0 <= dim < rank:
        return f"{reduction_dim} {dim} must be in [0, {rank - 1}]"
    return ""


@rule
def sort(c: CheckContext, inputs: Param, attribute: Attr) -> str:
    """The tensors of inputs share one shape and the attribute names one of its dimensions."""
    shapes = _shapes(c, inputs)
    if len(set(shapes)) > 1:
        return f"{inputs} shapes differ: {[list(s) for s in shapes]}"
    if shapes:
        rank, dim = len(shapes[0]), c.attr(attribute)
        if not 0 <= dim < max(rank, 1):
            return f"{attribute} {dim} is outside [0, {rank - 1}]"
    return ""


def _axes(c: CheckContext, axes: str, rank: int) -> tuple[list[int], str]:
    values = [int(v) for v in c.value(axes).reshape(-1)]
    if any(not -rank <= v < rank for v in values):
        return values, f"{axes} {values} must lie in [-{rank}, {rank - 1}]"
    normal = [v % rank for v in values] if rank else values
    if len(set(normal)) != len(normal):
        return values, f"{axes} {values} name a dimension twice"
    return normal, ""


@rule
def squeeze_axes(c: CheckContext, input: Param, axes: Param) -> str:
    """The axes input (when given) names distinct dimensions of input, each of size 1."""
    if not c.has(axes):
        return ""
    s = c.shape(input)
    normal, problem = _axes(c, axes, len(s))
    if problem:
        return problem
    bad = [a for a in normal if s[a] != 1]
    return f"dimensions {bad} of {input} shape {list(s)} are not of size 1" if bad else ""


@rule
def unsqueeze_axes(c: CheckContext, input: Param, axes: Param) -> str:
    """The axes input names distinct dimensions of the output (rank of input plus the number of axes)."""
    count = len(c.value(axes).reshape(-1))
    _, problem = _axes(c, axes, c.rank(input) + count)
    return problem


@rule
def topk_k(c: CheckContext, input: Param, k: Param, attribute: Attr) -> str:
    """The attribute is an axis of input and k holds one value in [1, size of that axis]."""
    s, axis = c.shape(input), c.attr(attribute)
    if not -len(s) <= axis < len(s):
        return f"{attribute} {axis} is outside [-{len(s)}, {len(s) - 1}]"
    values = c.value(k).reshape(-1)
    if values.size != 1 or not 0 < int(values[0]) <= s[axis]:
        return f"{k} must hold one value in [1, {s[axis]}], found {values.tolist()}"
    return ""


@rule
def positive_values(c: CheckContext, param: Param) -> str:
    """Every value of the (constant) parameter is > 0."""
    values = c.value(param)
    return "" if (values > 0).all() else f"every {param} value must be > 0, found {values.tolist()}"


@rule
def axis_values_in_range(c: CheckContext, param: Param, data: Param) -> str:
    """Every value of param (when given) is an axis of data, in [-rank, rank - 1]."""
    if not c.has(param):
        return ""
    rank = c.rank(data)
    values = c.value(param).reshape(-1).tolist()
    bad = [v for v in values if not -rank <= v < rank]
    return f"{param} values {bad} are outside [-{rank}, {rank - 1}]" if bad else ""


@rule
def start_indices_in_bounds(c: CheckContext, operand: Param, start_indices: Param, sizes: Param) -> str:
    """Each start index keeps a slice of the given size inside operand's dimension."""
    shape, size = c.shape(operand), c.shape(sizes)
    starts = [int(v) for v in np.concatenate([c.value(i).reshape(-1) for i in [start_indices]]).tolist()] \
        if c.info(start_indices) is not None else _variadic_values(c, start_indices)
    for d, (st, n, full) in enumerate(zip(starts, size, shape)):
        if not 0 <= st <= full - n:
            return f"start index {st} of dimension {d} puts a slice of size {n} outside [0, {full})"
    return ""


def _variadic_values(c: CheckContext, name: str) -> list[int]:
    out = []
    for info in c.infos(name):
        out += [int(v) for v in c.value_of(info, name).reshape(-1)]  # noted as read: not cached blindly
    return out


@rule
def reshape_shape_values(c: CheckContext, input: Param, shape: Param, attribute: Attr) -> str:
    """The shape input is a valid target for input: at most one -1, 0 as the attribute (allowzero) says, same element
    count."""
    target = [int(v) for v in c.value(shape).reshape(-1)]
    s, allowzero = c.shape(input), bool(c.attr(attribute))
    if target.count(-1) > 1 or any(v < -1 for v in target):
        return f"{shape} {target} may hold at most one -1 and no other negative value"
    if allowzero and 0 in target and -1 in target:
        return f"with {attribute}=1, {shape} {target} cannot hold both 0 and -1"
    dims = []
    for k, v in enumerate(target):
        if v == 0 and not allowzero:
            if k >= len(s):
                return f"{shape}[{k}] = 0 copies a dimension {input} does not have"
            v = s[k]
        dims.append(v)
    total = int(np.prod(s, dtype=np.int64))
    known = int(np.prod([d for d in dims if d != -1], dtype=np.int64))
    if -1 in dims:
        return "" if known and total % known == 0 else f"{shape} {target} cannot be inferred for {total} elements"
    return "" if known == total else f"{shape} {target} holds {known} elements, {input} has {total}"


@rule
def ctc_loss_values(c: CheckContext, input: Param, targets: Param, input_lengths: Param, target_lengths: Param,
                    attribute: Attr) -> str:
    """CTC loss lengths and targets: lengths within the steps, targets within their lengths, class indices other than
    blank."""
    s = c.shape(input)
    steps, classes = s[0], s[-1]
    in_len = c.value(input_lengths).reshape(-1)
    tg_len = c.value(target_lengths).reshape(-1)
    tg = c.value(targets)
    blank = c.attr(attribute)
    if ((in_len < 0) | (in_len > steps)).any():
        return f"{input_lengths} {in_len.tolist()} must lie in [0, {steps}]"
    if (tg_len > in_len).any():
        return f"{target_lengths} {tg_len.tolist()} may not exceed {input_lengths} {in_len.tolist()}"
    if tg.ndim == 1 and tg_len.sum() != tg.size:
        return f"{target_lengths} must sum to the {tg.size} elements of 1-D {targets}"
    if tg.ndim == 2 and (tg_len > tg.shape[1]).any():
        return f"{target_lengths} may not exceed the padded length {tg.shape[1]}"
    used = tg.reshape(-1) if tg.ndim == 1 else np.concatenate([row[:n] for row, n in zip(tg, tg_len)])
    if ((used < 0) | (used >= classes) | (used == blank)).any():
        return f"{targets} values must be class indices in [0, {classes}) other than blank ({blank})"
    return ""


# The rules that look inside graph attributes (If branches, Loop/Scan bodies) live in their own module;
# importing it registers them here (it needs `rule` and the argument kinds above, hence the import last).
from . import graph_rules as _graph_rules  # noqa: E402,F401
