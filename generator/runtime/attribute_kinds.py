"""What value each attribute type accepts. Shared by the spec checker (defaults, listed values) and
the validators (values given at run time), and free of a NumPy import: the checker runs in every
`opgen build`, and a NumPy scalar can only be given when NumPy is loaded already."""
from __future__ import annotations

import sys
from typing import Any, Callable


def _numpy() -> Any:
    return sys.modules.get("numpy")


def is_int(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return True
    np = _numpy()
    return np is not None and isinstance(v, np.integer)


def is_number(v: Any) -> bool:
    if is_int(v) or isinstance(v, float):
        return True
    np = _numpy()
    return np is not None and isinstance(v, np.floating)


def is_bool(v: Any) -> bool:
    np = _numpy()
    return isinstance(v, bool) or (np is not None and isinstance(v, np.bool_))


def is_tensor(v: Any) -> bool:
    if isinstance(v, (list, tuple, int, float)):
        return True
    np = _numpy()
    context = sys.modules.get("opgen.runtime.context")  # TensorInfo exists only once its module is loaded
    return (np is not None and isinstance(v, (np.ndarray, np.generic))) or \
        (context is not None and isinstance(v, context.TensorInfo))


ATTR_KINDS: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "int": ("an integer", is_int),
    "float": ("a number", is_number),
    "string": ("a string", lambda v: isinstance(v, str)),
    "bool": ("a boolean", is_bool),
    "ints": ("a list of integers", lambda v: isinstance(v, (list, tuple)) and all(is_int(x) for x in v)),
    "floats": ("a list of numbers", lambda v: isinstance(v, (list, tuple)) and all(is_number(x) for x in v)),
    "strings": ("a list of strings", lambda v: isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v)),
    "enum": ("one of the listed names", lambda v: isinstance(v, str)),
    "tensor": ("a tensor", is_tensor),
    "sparse_tensor": ("a sparse tensor", is_tensor),
    "type_proto": ("a type (such as tensor(float) or seq(tensor(int64)))", lambda v: isinstance(v, str)),
    "graph": ("a graph (a callable or a nested graph)", lambda v: callable(v) or hasattr(v, "nodes")
              or (isinstance(v, dict) and "nodes" in v)),
    "graphs": ("a list of graphs (callables or nested graphs)", lambda v: isinstance(v, (list, tuple)) and all(
        callable(g) or hasattr(g, "nodes") or (isinstance(g, dict) and "nodes" in g) for g in v)),
}


def attribute_kind_ok(type_: str, value: Any) -> bool:
    return ATTR_KINDS[type_][1](value)
