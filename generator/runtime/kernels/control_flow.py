"""Control flow: hlir Map, If and While (XLA Map, Conditional and While).

A graph-valued attribute is either a Python callable taking and returning arrays, or a nested hlir graph
(a dict in the hlir graph format), which graph_runner turns into such a callable. A computation may
return one array or a tuple/list of arrays (a graph returns the tuple of its outputs).
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ...dtypes import elem_of_numpy
from ..graph_runner import GraphFunction, as_callable, results
from . import generated_ops


def map_output_types() -> tuple[str, ...]:
    """The element types hlir Map's spec allows for its output, read from the generated signature (the
    spec's type constraint), so that no second copy of that list can fall out of step with the spec."""
    sig = generated_ops().get_signature("hlir", "Map")
    return sig.allowed(sig.outputs[0])


def _single(value: Any, what: str) -> np.ndarray:
    out = results(value, what)
    if len(out) != 1:
        raise ValueError(f"{what} returned {len(out)} values; it must return one")
    return out[0]


def _declared_output_dtype(fn: object) -> np.dtype | None:
    """The dtype a graph declares for its (single) output, when it declares one."""
    if isinstance(fn, GraphFunction) and len(fn.output_names) == 1:
        from ...dtypes import ELEM_TYPES

        dtype = fn.declared(fn.output_names[0]).dtype
        return None if dtype is None else np.dtype(ELEM_TYPES[dtype].numpy)
    return None


def map_(input: np.ndarray, *, dimensions: Sequence[int], computation: Callable[..., Any]) -> np.ndarray:
    """XLA Map. The computation runs once for every index of the mapped `dimensions`, on the inputs'
    sub-arrays at that index (over the other dimensions; scalars, as rank-0 arrays, when `dimensions`
    lists every dimension, XLA's only form) and returns a sub-array of the same shape; the output holds
    these results in place (spec note map_dimensions). Its element type is the computation's result type
    (spec note map_output_type)."""
    xs = [np.asarray(x) for x in input]
    if not xs:
        raise ValueError("Map needs at least one input")
    shape = xs[0].shape
    for k, x in enumerate(xs):
        if x.shape != shape:
            raise ValueError(f"input {k} has shape {x.shape}, input 0 {shape}: Map needs one shape")
    dims = sorted({int(d) for d in dimensions})
    if len(dims) != len(list(dimensions)) or any(not 0 <= d < len(shape) for d in dims):
        raise ValueError(f"dimensions {list(dimensions)} must be distinct dimensions of rank {len(shape)}")
    fn = as_callable(computation, "Map computation", resolver=generated_ops)
    front = [np.moveaxis(x, dims, list(range(len(dims)))) for x in xs]  # mapped dimensions first
    mapped, rest = front[0].shape[:len(dims)], front[0].shape[len(dims):]
    out = None
    for index in np.ndindex(*mapped):
        y = _single(fn(*(np.asarray(f[index]) for f in front)), "the Map computation")
        if y.shape != rest:
            raise ValueError(f"the Map computation returned shape {y.shape} for arguments of shape {rest}")
        if out is None:
            allowed = map_output_types()
            if elem_of_numpy(y.dtype) not in allowed:
                raise ValueError(f"the Map computation returned {y.dtype}; the output type must be one of "
                                 f"{', '.join(allowed)}")
            out = np.empty(front[0].shape, dtype=y.dtype)
        elif y.dtype != out.dtype:
            raise ValueError(f"the Map computation returned {y.dtype} at {index} and {out.dtype} before")
        out[index] = y
    if out is None:  # nothing to map: the type a graph declares for its result, else the first input's
        out = np.empty(front[0].shape, dtype=_declared_output_dtype(fn) or xs[0].dtype)
    return np.moveaxis(out, list(range(len(dims))), dims)


def if_(pred: np.ndarray, true_operand: Sequence[np.ndarray], false_operand: Sequence[np.ndarray], *,
        true_computation: Callable[..., Any], false_computation: Callable[..., Any]) -> tuple[np.ndarray, ...]:
    """XLA Conditional: true_computation(true_operand) when pred is true, else
    false_computation(false_operand); only the chosen branch runs. The outputs are the branch's results
    with their own types."""
    p = np.asarray(pred)
    if p.ndim != 0 or p.dtype != np.bool_:
        raise ValueError(f"pred must be a bool scalar, found {p.dtype} of shape {p.shape}")
    if bool(p):
        branch = as_callable(true_computation, "If true_computation", resolver=generated_ops)
        return results(branch(true_operand), "true_computation")
    branch = as_callable(false_computation, "If false_computation", resolver=generated_ops)
    return results(branch(false_operand), "false_computation")


def while_(init: Sequence[np.ndarray], *, condition: Callable[..., Any], body: Callable[..., Any]) -> tuple[np.ndarray,
           ...]:
    """XLA While: state = init; while condition(*state): state = body(*state). The state is the list of
    init tensors; body must return the same number of tensors with the same dtypes and shapes."""
    cond = as_callable(condition, "While condition", resolver=generated_ops)
    step = as_callable(body, "While body", resolver=generated_ops)
    state = tuple(np.array(x, copy=True) for x in init)
    if not state:
        raise ValueError("While needs at least one init tensor")
    while True:
        c = _single(cond(*state), "the While condition")
        if c.ndim != 0 or c.dtype != np.bool_:
            raise ValueError(f"the While condition must return a bool scalar, found {c.dtype} of shape {c.shape}")
        if not bool(c):
            return state
        new = results(step(*state), "the While body")
        if len(new) != len(state) or any(n.dtype != s.dtype or n.shape != s.shape for n, s in zip(new, state)):
            raise ValueError("the While body must return the loop state's types and shapes "
                             f"{[(str(s.dtype), s.shape) for s in state]}, returned "
                             f"{[(str(n.dtype), n.shape) for n in new]}")
        state = new
