"""What the specs tell of a node's outputs that the file leaves undescribed (opgen.validate.checker):
the dtype bound by a type variable or fixed by the spec, the shape inferred from the spec or tied to an
input by a same_shape rule; memoised by signature, dtypes, shapes and the shapes inferred."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import type_key
from ..runtime.context import TensorInfo

RECIPES: dict[tuple[Any, ...], tuple[Any, tuple[tuple[str | None, Any] | None, ...]]] = {}


def recipe_for(sig: Any, infos: list[Any], outs: list[Any],
            inferred: dict[str, tuple[Any, ...]]) -> tuple[tuple[str | None, Any] | None, ...]:
    """For each output of a node, None to keep what the file says of it, or the (dtype, shape) the spec
    gives it: a type variable bound by an input or allowing one type, a fixed type; the inferred shape,
    or that of an input a same_shape rule ties it to."""
    in_params = positions(sig.inputs, len(infos))
    out_params = positions(sig.outputs, len(outs))
    bound: dict[str, str] = {}
    for p, info in zip(in_params, infos):
        if p is None or info is None or info.dtype is None or p.type not in sig.type_constraints:
            continue
        if p.option == "variadic" and not p.homogeneous:
            continue
        if info.dtype in sig.type_constraints.get(p.type, ()):
            bound.setdefault(p.type, info.dtype)
    for var, allowed in sig.type_constraints.items():
        if len(allowed) == 1:
            bound.setdefault(var, allowed[0])
    results: list[tuple[str | None, Any] | None] = []
    element: dict[str, int] = {}  # next element of each variadic output
    for p, out in zip(out_params, outs):
        k = 0
        if p is not None:
            k = element[p.name] = element.get(p.name, -1) + 1
        if out is None or p is None or (out.dtype is not None and out.shape is not None):
            results.append(None)
            continue
        dtype = out.dtype
        if dtype is None:
            dtype = bound.get(p.type) if p.type in sig.type_constraints else type_key(p.type)
        given = inferred.get(p.name)
        if given is not None and p.option == "variadic":  # one shape per element
            given = given[k] if k < len(given) else None
        if out.shape is not None:
            shape = out.shape
        else:  # a scalar's shape () is a shape told (it was once taken for none)
            shape = given if given is not None else _same_shape(sig, p.name, in_params, infos)
        results.append(None if dtype == out.dtype and shape == out.shape else (dtype, shape))
    return tuple(results)


def positions(params: tuple[Any, ...], count: int) -> list[Any]:
    """The parameter each of `count` values binds to, as `validation.bind` binds them (None: surplus)."""
    key = (id(params), count)
    found = _POSITIONS.get(key)
    if found is not None and found[0] is params:
        return found[1]
    out = _positions(params, count)
    if len(_POSITIONS) >= 4096:
        _POSITIONS.clear()
    _POSITIONS[key] = (params, out)  # params kept alive: its id names it only
    return out


_POSITIONS: dict[tuple[int, int], tuple[tuple[Any, ...], list[Any]]] = {}


def _positions(params: tuple[Any, ...], count: int) -> list[Any]:
    n_fixed = sum(1 for p in params if p.option != "variadic")
    variadics = sum(1 for p in params if p.option == "variadic")
    share = max(count - n_fixed, 0) // variadics if variadics else 0
    out: list[Any] = []
    for p in params:
        out.extend([p] * share if p.option == "variadic" else [p])
    return out[:count] + [None] * (count - len(out))


def _same_shape(sig: Any, name: str, in_params: list[Any], infos: list[Any]) -> tuple[Any, ...] | None:
    """The shape a same_shape rule gives output `name`: that of an input in the same rule, when known."""
    for call in sig.rules:
        if call.rule != "same_shape" or name not in call.args.get("params", ()):
            continue
        group = set(call.args["params"])
        for p, info in zip(in_params, infos):
            if p is not None and p.name in group and info is not None and info.shape is not None \
                    and None not in info.shape:
                shape: tuple[Any, ...] = info.shape
                return shape
    return None


# ONNX Constant's output, by the attribute that holds its value (exactly one is set).
_CONSTANT_LISTS = {"value_floats": np.float32, "value_ints": np.int64, "value_strings": np.object_}
_CONSTANT_SCALARS = {"value_float": np.float32, "value_int": np.int64, "value_string": np.object_}


def constant_output(attributes: dict[str, Any]) -> TensorInfo | None:
    """An ONNX Constant's output as its attribute describes it: element type, shape and, where the reader
    kept it (as it keeps an initializer's), the value, which the checks of its consumers read (a
    Reshape's target). None when the attributes do not tell: then the reader's inference is asked."""
    for name, value in attributes.items():
        if name in ("value", "sparse_value"):
            if isinstance(value, TensorInfo) and value.dtype is not None and value.shape is not None:
                return value
            return None
        numpy_type = _CONSTANT_LISTS.get(name) or _CONSTANT_SCALARS.get(name)
        if numpy_type is not None:
            if isinstance(value, bytes):
                value = value.decode("utf-8", "replace")
            return TensorInfo.of(np.array(value, dtype=numpy_type))
    return None
