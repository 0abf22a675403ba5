"""The registry of named rules a spec constraint can invoke (`rule:` + `args:`): the `rule` decorator
records each rule function with the kinds of its arguments, read from their annotations, so the spec
checker (which rejects unknown rules and wrong arguments) and the runtime (which calls the function)
read one declaration. The rules themselves live in `shape_rules` (general, ONNX, oneDNN),
`shape_rules_hlir` (XLA-style rules of the hlir set) and `graph_rules` (rules over graph attributes).
"""
from __future__ import annotations

import inspect
import typing
from dataclasses import dataclass
from typing import Callable, NewType

# What a rule argument names, declared once, by the annotation of the rule function's parameter: the
# spec checker (which rejects names the op lacks) and the runtime (which calls the function) both read
# the one declaration, so they cannot drift apart.
Param = NewType("Param", str)  # an input or output of the op
Params = NewType("Params", list[str])  # a list of inputs/outputs
Attr = NewType("Attr", str)  # an attribute of the op
_KINDS = {Param: "param", Params: "params", Attr: "attr"}


@dataclass(frozen=True)
class Rule:
    name: str
    fn: Callable[..., str]
    params: tuple[str, ...]  # argument names
    optional: tuple[str, ...]  # arguments with defaults
    kinds: tuple[tuple[str, str], ...]  # (argument, "param" | "params" | "attr"), from the annotations

    @property
    def param_args(self) -> tuple[str, ...]:
        """Arguments that name inputs/outputs (one, or a list)."""
        return tuple(n for n, kind in self.kinds if kind in ("param", "params"))

    @property
    def attr_args(self) -> tuple[str, ...]:
        return tuple(n for n, kind in self.kinds if kind == "attr")

    def kind(self, argument: str) -> str:
        return dict(self.kinds)[argument]


RULES: dict[str, Rule] = {}


def rule(fn: Callable[..., str]) -> Callable[..., str]:
    """Register a rule; every argument after the context must be annotated Param, Params or Attr."""
    sig = inspect.signature(fn)
    hints = typing.get_type_hints(fn)
    names = tuple(p for p in sig.parameters if p != "c")
    undeclared = [n for n in names if hints.get(n) not in _KINDS]
    if undeclared:
        raise TypeError(f"rule {fn.__name__}: arguments {undeclared} must be annotated Param, Params or Attr")
    optional = tuple(p for p in names if sig.parameters[p].default is not inspect.Parameter.empty)
    RULES[fn.__name__] = Rule(fn.__name__, fn, names, optional, tuple((n, _KINDS[hints[n]]) for n in names))
    return fn
