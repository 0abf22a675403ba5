"""Named shape rules that a spec constraint can invoke (`rule:` + `args:`): the general ones and those of
the ONNX and oneDNN sets; the XLA-style rules of the hlir set are in `shape_rules_hlir` (imported at the
end, so that importing this module registers every shape rule).

Each rule takes the check context and its arguments, returns "" when the shapes satisfy it or a sentence
saying what was found, and raises Unknown when a shape it needs is not known. `RULES` (opgen.runtime.
rule_registry) is also what the spec checker consults to reject unknown rule names and wrong arguments.
"""
from __future__ import annotations

from . import broadcast
from .context import CheckContext, Unknown
from .rule_registry import RULES, Attr, Param, Params, Rule, rule

__all__ = ["RULES", "Attr", "Param", "Params", "Rule", "rule"]


def _present_shape(c: CheckContext, name: str) -> tuple[int, ...] | None:
    """Shape of an input that may be absent (None when absent)."""
    if c.info(name) is None:
        return None
    return c.shape(name)


@rule
def unidirectional_broadcast(c: CheckContext, source: Param, target: Param) -> str:
    """source broadcasts to target's shape (ONNX unidirectional broadcasting); an absent one passes."""
    s, t = _present_shape(c, source), _present_shape(c, target)
    if s is None or t is None:
        return ""
    return "" if broadcast.unidirectional(s, t) else f"{source} shape {list(s)} does not broadcast to {target} shape {list(t)}"


@rule
def multidirectional_broadcast(c: CheckContext, params: Params) -> str:
    """The parameters (each tensor of a variadic one, absent optional ones left out) broadcast together."""
    shapes: dict[str, tuple[int, ...]] = {}
    for p in params:
        infos = c.infos(p)
        for k, info in enumerate(infos):
            if info is None:
                continue
            dims = [d for d in info.shape or () if d is not None]
            if info.shape is None or len(dims) != len(info.shape):
                raise Unknown(p)  # an unknown dimension: whether they broadcast cannot be told
            shapes[p if len(infos) == 1 else f"{p}[{k}]"] = tuple(dims)
    if broadcast.multidirectional(*shapes.values()) is None:
        return "shapes " + ", ".join(f"{p} {list(s)}" for p, s in shapes.items()) + " do not broadcast together"
    return ""


@rule
def same_shape(c: CheckContext, params: Params) -> str:
    """Every tensor of the parameters (each of a variadic one, absent optional ones left out) has one shape."""
    shapes = []
    for p in params:
        for k, info in enumerate(c.infos(p)):
            if info is None:
                continue
            if info.shape is None or any(d is None for d in info.shape):
                raise Unknown(p)
            shapes.append((p if len(c.infos(p)) == 1 else f"{p}[{k}]", tuple(info.shape)))
    if len({s for _, s in shapes}) > 1:
        return "shapes differ: " + ", ".join(f"{p} {list(s)}" for p, s in shapes)
    return ""


@rule
def paired_element_types(c: CheckContext, params: Params) -> str:
    """Tensor k of each listed variadic parameter has one element type (XLA's variadic Reduce and Sort:
    an operand, its initial value and its result share a type, while the operands differ)."""
    columns = [(p, c.infos(p)) for p in params]
    for k in range(max(len(column) for _, column in columns)):
        # a parameter not given (outputs when only the inputs are checked) or shorter takes no part
        present = [(p, column[k]) for p, column in columns if k < len(column)]
        typed = [(p, info.dtype) for p, info in present if info is not None and info.dtype is not None]
        if len({dtype for _, dtype in typed}) > 1:
            return f"tensor {k} must have one element type in " + ", ".join(params) + ": " + \
                ", ".join(f"{p}[{k}] is {dtype}" for p, dtype in typed)
    return ""


@rule
def onnx_prelu_legacy_slope(c: CheckContext, source: Param, target: Param) -> str:
    """source (PRelu's slope before version 7) is of size 1, of target's channel count (axis 1), or broadcasts to
    target."""
    s, t = c.shape(source), c.shape(target)
    if broadcast.onnx_prelu_legacy(s, t) is None:
        return (f"{source} shape {list(s)} is neither of size 1, nor of the channel count of {target} "
                f"(axis 1), nor broadcastable to {target} shape {list(t)}")
    return ""


def _partial_shape(c: CheckContext, name: str) -> tuple[int | None, ...] | None:
    """A parameter's shape with its unknown dimensions as None; None when absent or of unknown rank."""
    info = c.info(name)
    return None if info is None or info.shape is None else tuple(info.shape)


def _shown(shape: tuple[int | None, ...]) -> str:
    return "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"


@rule
def onednn_prelu_slope(c: CheckContext, source: Param, target: Param, output: Param) -> str:
    """oneDNN PReLU's slope rules over shapes that may hold unknown dimensions. The output has the
    target's shape, so a dimension the output states pins the target's unknown one (the library infers
    the output from the target and rejects a stated output that differs)."""
    s, t = _partial_shape(c, source), _partial_shape(c, target)
    if s is None or t is None:
        raise Unknown(source if s is None else target)
    declared, out = t, _partial_shape(c, output)
    if out is not None and len(out) == len(t):
        t = tuple(o if d is None else d for d, o in zip(t, out))
    shown = _shown(t) if t == declared else f"{_shown(declared)} ({output} gives {_shown(t)})"
    fmt, per_channel = c.attr("data_format"), c.attr("per_channel_broadcast")
    if broadcast.onednn_prelu_allows(s, t, fmt, per_channel):
        return ""
    if not t:
        return f"{target} is a scalar: the slope rules need {target} of rank 1 or more"
    if not s:
        return f"{source} is a scalar: the slope rules need {source} of rank 1 to {len(t)}"
    if len(s) > len(t):
        return f"{source} shape {_shown(s)} has more dimensions than {target} shape {shown}"
    if broadcast.onednn_prelu_per_channel(len(s), len(t), per_channel):
        return (f"1-D {source} of length {s[0]} must match the channel dimension (axis "
                f"{broadcast.onednn_channel_axis(len(t), fmt)} for {fmt}) of {target} shape {shown} (rule 1)")
    if len(s) == 1:
        return (f"1-D {source} of length {s[0]} must match the rightmost dimension of {target} shape "
                f"{shown} or be 1 (rule 2)")
    return f"{source} shape {_shown(s)} does not broadcast to {target} shape {shown} (rule 3)"


@rule
def identity_shape(c: CheckContext, source: Param, target: Param) -> str:
    """The target has the source's shape (oneDNN's identity shape inference): the same rank, and every
    dimension known on both sides equal. Unlike an output shape expression, this holds while some
    dimensions are unknown."""
    s, t = _partial_shape(c, source), _partial_shape(c, target)
    if s is None or t is None:
        raise Unknown(source if s is None else target)
    if len(s) != len(t) or any(a is not None and b is not None and a != b for a, b in zip(s, t)):
        return f"{target} shape {_shown(t)} is not {source} shape {_shown(s)}"
    return ""


from . import shape_rules_hlir  # noqa: E402,F401  (registers the hlir rules; it imports only the registry)
