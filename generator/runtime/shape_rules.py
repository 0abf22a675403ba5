"""Named shape rules that a spec constraint can invoke (`rule:` + `args:`).

Each rule takes the check context and its arguments, returns "" when the
shapes satisfy it or a sentence saying what was found, and raises Unknown when
a shape it needs is not known. `RULES` is also what the spec checker consults
to reject unknown rule names and wrong arguments.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Callable

from . import broadcast
from .validation import CheckContext, Unknown


@dataclass(frozen=True)
class Rule:
    name: str
    fn: Callable[..., str]
    params: tuple[str, ...]  # argument names
    optional: tuple[str, ...]  # arguments with defaults
    param_args: tuple[str, ...]  # arguments that name inputs/outputs
    attr_args: tuple[str, ...]  # arguments that name attributes


RULES: dict[str, Rule] = {}


def rule(param_args: tuple[str, ...] = (), attr_args: tuple[str, ...] = ()):
    def register(fn: Callable[..., str]) -> Callable[..., str]:
        sig = inspect.signature(fn)
        names = tuple(p for p in sig.parameters if p != "c")
        optional = tuple(p for p in names if sig.parameters[p].default is not inspect.Parameter.empty)
        RULES[fn.__name__] = Rule(fn.__name__, fn, names, optional, param_args, attr_args)
        return fn
    return register


def _present_shape(c: CheckContext, name: str) -> tuple[int, ...] | None:
    """Shape of an input that may be absent (None when absent)."""
    if c.info(name) is None:
        return None
    return c.shape(name)


@rule(param_args=("source", "target"))
def unidirectional_broadcast(c: CheckContext, source: str, target: str) -> str:
    s, t = _present_shape(c, source), _present_shape(c, target)
    if s is None or t is None:
        return ""
    return "" if broadcast.unidirectional(s, t) else f"{source} shape {list(s)} does not broadcast to {target} shape {list(t)}"


@rule(param_args=("params",))
def multidirectional_broadcast(c: CheckContext, params: list[str]) -> str:
    shapes = {p: s for p in params if (s := _present_shape(c, p)) is not None}
    if broadcast.multidirectional(*shapes.values()) is None:
        return "shapes " + ", ".join(f"{p} {list(s)}" for p, s in shapes.items()) + " do not broadcast together"
    return ""


@rule(param_args=("params",))
def same_shape(c: CheckContext, params: list[str]) -> str:
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


@rule(param_args=("source", "target"))
def onnx_prelu_legacy_slope(c: CheckContext, source: str, target: str) -> str:
    s, t = c.shape(source), c.shape(target)
    if broadcast.onnx_prelu_legacy(s, t) is None:
        return (f"{source} shape {list(s)} is neither of size 1, nor of the channel count of {target} "
                f"(axis 1), nor broadcastable to {target} shape {list(t)}")
    return ""


@rule(param_args=("source", "target"))
def onednn_prelu_slope(c: CheckContext, source: str, target: str) -> str:
    s, t = c.shape(source), c.shape(target)
    fmt, per_channel = c.attr("data_format"), c.attr("per_channel_broadcast")
    if broadcast.onednn_prelu(s, t, fmt, per_channel) is not None:
        return ""
    if len(s) == 1:
        which = (f"the channel dimension (axis {broadcast.onednn_channel_axis(len(t), fmt)} for {fmt})"
                 if per_channel else "the rightmost dimension")
        return (f"1-D {source} of length {s[0]} must match {which} of {target} shape {list(t)} "
                f"(rule {1 if per_channel else 2})")
    return f"{source} shape {list(s)} does not broadcast to {target} shape {list(t)} (rule 3)"
