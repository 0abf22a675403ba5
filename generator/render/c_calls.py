"""What the generated C kernels take from runtime.h beyond their formula's loop: the element types compiled
twice (for the baseline ISA and for AVX2, chosen at load time: OPGEN_CPU_CLONES), and the formulas whose dense
loop is one runtime.h function that picks its own instructions (floor, ceil) or skips the general formula's
NaN and signed-zero work where its operands allow (Clamp between two single bounds)."""
from __future__ import annotations

import re
from typing import Any

from .. import expr
from ..dtypes import ElemType
from ..model import OpVersion

# Element types whose kernels are also compiled for AVX2 (runtime.h's OPGEN_CPU_CLONES): float and double,
# where AVX2 and libm's 8-wide SIMD variants give 1.2-3x. Each clone is compiled once more, so the kernels of
# other types stay single: integers are seldom a model's hot path, and float16/bfloat16 spend their time
# converting each element (every type cloned made the library's build 60 % longer).
CPU_CLONED = frozenset({"float", "double"})


# Formulas whose dense loop is one runtime.h array function, which picks an instruction set at run time
_ARRAY_FUNCTIONS = {("floor", "float"): "opgen_floor_array_f32", ("floor", "double"): "opgen_floor_array_f64",
                    ("ceil", "float"): "opgen_ceil_array_f32", ("ceil", "double"): "opgen_ceil_array_f64"}


def array_call(text: str, inputs: list[str], elem_in: ElemType, elem_out: ElemType, compute: ElemType) -> str | None:
    """The runtime.h function that computes a formula `floor(x)` or `ceil(x)` of the op's one input over a
    dense array in its own type (None for any other formula, or a conversion on the way)."""
    if len(inputs) != 1 or not (elem_in.name == elem_out.name == compute.name):
        return None
    spelled = expr.canonical(text).replace(" ", "")
    for function in ("floor", "ceil"):
        if spelled == f"{function}({inputs[0]})":
            return _ARRAY_FUNCTIONS.get((function, elem_in.name))
    return None


_CLAMP_FUNCTIONS = {"float": "opgen_clamp_array_f32", "double": "opgen_clamp_array_f64"}


def clamp_call(text: str, inputs: list[str], v: OpVersion, elem_in: ElemType, elem_out: ElemType,
                compute: ElemType) -> dict[str, Any] | None:
    """For a formula `ieee_minimum(ieee_maximum(x, low), high)` of three required inputs in one floating type
    (XLA Clamp): runtime.h's clamp over a dense x with one value per bound, and which operand is which. It
    declines bounds it cannot take in one pass (a NaN, a zero, low > high), which the general loop then
    computes, as NumPy's ieee_clamp takes np.clip under the same condition."""
    function = _CLAMP_FUNCTIONS.get(elem_in.name)
    if function is None or len(inputs) != 3 or not (elem_in.name == elem_out.name == compute.name) \
            or any(p.option != "single" for p in v.inputs):
        return None
    match = re.fullmatch(r"ieee_minimum\(ieee_maximum\((\w+),(\w+)\),(\w+)\)", expr.canonical(text).replace(" ", ""))
    if match is None or sorted(match.groups()) != sorted(inputs):
        return None
    x, low, high = (inputs.index(name) for name in match.groups())
    return dict(function=function, x=x, low=low, high=high)
