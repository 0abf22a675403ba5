"""Reference kernels that are not a single element-wise formula, one module per operator family.

A spec names one as `kernel: {function: <module>.<function>}`. The generated kernel validates its
arguments against the spec, applies the attribute defaults, and calls the function with the inputs
positionally (a variadic input as a list) and every attribute as a keyword; an output whose dtype no
input determines adds a `<output>_dtype` keyword, and an output the spec lists in
`kernel.shape_from_node` adds a `<output>_shape` keyword. The function returns an array or a tuple.
"""
from __future__ import annotations

import importlib
import inspect
from typing import Any, Callable

import numpy as np

from ..values import SequenceValue, as_input  # noqa: F401  (as_input: used by the generated kernels)

PACKAGE = __name__


def generated_ops() -> Any:
    """The generated package `opgen_ops`, the kernel resolver of graph-valued attributes (the graph runner
    takes it injected). Imported on use: these kernels are called through that package, so it is loaded
    by then, and importing a runtime module never drags the generated code in."""
    return importlib.import_module("opgen_ops")


def resolve(name: str) -> Callable[..., Any]:
    """The function `<module>.<function>` of this package; LookupError with the reason if absent."""
    module_name, _, function = name.partition(".")
    try:
        module = importlib.import_module(f"{PACKAGE}.{module_name}")
    except ModuleNotFoundError:
        raise LookupError(f"no kernel module opgen.runtime.kernels.{module_name}") from None
    fn = getattr(module, function, None)
    if not callable(fn):
        raise LookupError(f"opgen.runtime.kernels.{module_name} has no function {function}")
    return fn


def signature_problems(name: str, positional: list[str], keywords: list[str]) -> list[str]:
    """Why the function cannot take these arguments (empty when it can)."""
    try:
        params = inspect.signature(resolve(name)).parameters
    except LookupError as exc:
        return [str(exc)]
    kinds = inspect.Parameter
    pos = [p for p in params.values() if p.kind in (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD)]
    has_var_pos = any(p.kind == kinds.VAR_POSITIONAL for p in params.values())
    kw = {p.name for p in params.values() if p.kind in (kinds.KEYWORD_ONLY, kinds.POSITIONAL_OR_KEYWORD)}
    problems = []
    if len(positional) > len(pos) and not has_var_pos:
        problems.append(f"{name} takes {len(pos)} positional inputs, the spec has {len(positional)} "
                        f"({', '.join(positional)})")
    missing = [k for k in keywords if k not in kw and not any(p.kind == kinds.VAR_KEYWORD for p in params.values())]
    if missing:
        problems.append(f"{name} has no keyword parameter for {', '.join(missing)}")
    extra = [p.name for p in params.values() if p.kind == kinds.KEYWORD_ONLY and p.default is kinds.empty
             and p.name not in keywords]
    if extra:
        problems.append(f"{name} requires keywords the spec does not give: {', '.join(extra)}")
    return problems


def as_outputs(result: Any) -> tuple[Any, ...]:
    """A kernel function's result as the tuple of outputs (a tuple or list as it is, else one output).
    The generated kernels call their function directly (imported from its module) and pass the result here."""
    if isinstance(result, SequenceValue):  # one output that is a sequence (a list itself)
        return (result,)
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


def call(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[np.ndarray, ...]:
    """Call the function `<module>.<function>` by name (the generated kernels import theirs instead)."""
    return as_outputs(resolve(name)(*args, **kwargs))


def split_variadic(args: tuple[Any, ...], n_fixed_before: int, n_variadic: int) -> list[Any]:
    """Split positional arguments among fixed inputs and n equally sized variadic lists."""
    head, rest = list(args[:n_fixed_before]), list(args[n_fixed_before:])
    if n_variadic == 0:
        return head
    size, remainder = divmod(len(rest), n_variadic)
    if remainder:
        raise ValueError(f"{len(rest)} variadic arguments do not split equally into {n_variadic} lists")
    return head + [rest[k * size:(k + 1) * size] for k in range(n_variadic)]
