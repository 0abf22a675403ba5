"""Values the check computes itself: the small shape computations exporters write (Shape, Gather,
Unsqueeze, Concat, Slice, arithmetic on shape vectors...) run through opgen's own kernels when every input
value is known, so the Reshape or Expand whose target they compute is checked and described without
onnx.shape_inference (which `opgen validate` and `opgen run` then skip).

Only ops without side effects or randomness, on at most MAX_FOLD_ELEMENTS elements in and out, the
outputs' size known from the spec's shape rules before anything runs (a file's Range or Expand cannot
make the check allocate more); a kernel that refuses its arguments folds nothing (the validator reports
the fault, or the value stays unknown)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import elem_of_numpy
from ..graph import Graph, Node
from ..runtime.context import TensorInfo
# at the top, not in fold: a relative import in a function costs ~3 us per call (resolving the package)
from ..runtime.run_plan import op_plan, plan_step

MAX_FOLD_ELEMENTS = 4096
# ONNX ops folded when their inputs are known (Shape and Size need only their input's shape)
FOLDABLE = frozenset({
    "Shape", "Size", "Gather", "GatherElements", "Unsqueeze", "Squeeze", "Concat", "Slice", "Reshape", "Flatten",
    "Identity", "Cast", "Transpose", "Expand", "Tile", "Range", "ConstantOfShape", "Add", "Sub", "Mul", "Div",
    "Mod", "Neg", "Abs", "Min", "Max", "Equal", "Less", "Greater", "Not", "And", "Or", "Where", "ReduceProd",
    "ReduceSum", "ReduceMax", "ReduceMin", "Floor", "Ceil", "Sqrt",
})
_SHAPE_ONLY = frozenset({"Shape", "Size"})
_EMPTY = Graph()


def foldable(node: Node) -> bool:
    return node.domain == "onnx" and node.op in FOLDABLE and not node.graphs


def small_results(outputs: tuple[Any, ...]) -> bool:
    """Whether every output's shape is known, and small enough to fold."""
    for out in outputs:
        if out is None:
            continue
        shape = out.shape
        if shape is None or None in shape or "(" in (out.dtype or ""):  # a sequence or optional: not folded
            return False
        size = 1
        for dim in shape:
            size *= dim
        if size > MAX_FOLD_ELEMENTS:
            return False
    return True


def fold(node: Node, infos: list[Any]) -> tuple[TensorInfo, ...] | None:
    """The node's outputs computed from its known inputs, or None when an input is not known (or too
    large, or the kernel refuses it)."""
    args: list[Any] = []
    for k, info in enumerate(infos):
        if info is None:
            args.append(None)
        elif node.op in _SHAPE_ONLY and k == 0:
            shape = info.shape
            if shape is None or None in shape or info.dtype is None or "(" in info.dtype:
                return None
            args.append(np.broadcast_to(np.zeros((), np.float32), shape))  # only its shape is read
        elif info.value is None or np.size(info.value) > MAX_FOLD_ELEMENTS:
            return None
        else:
            args.append(info.value)
    import opgen_ops  # (imported when a node folds: an absolute import of a loaded module is a lookup)

    try:
        plan = op_plan(opgen_ops, node.domain, node.op, node.opset)
        step = plan_step(node, plan, _EMPTY)
        results = step.kernel(*args, **step.kwargs)
    except Exception:  # refused: the validator has said why, or the value simply stays unknown
        return None
    results = results if isinstance(results, tuple) else (results,)
    if len(results) < len(node.outputs) or any(
            not isinstance(r, np.ndarray) or r.size > MAX_FOLD_ELEMENTS for r in results[:len(node.outputs)]):
        return None
    results = results[:len(node.outputs)]
    for r in results:  # shared: by the verdicts of later checks, and by the runs that take them as computed
        r.flags.writeable = False
    return tuple(TensorInfo(elem_of_numpy(r.dtype), tuple(r.shape), r) for r in results)
