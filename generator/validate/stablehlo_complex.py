"""Complex values of an hlir op whose types have no complex type, where the op works on the real and
the imaginary parts apart: the op applied to the real parts and to the imaginary parts, which
StablehloComplex joins again.

Document 004 gives Pad, Select, Gather, Add, Sub and Neg no complex type, and jnp.fft's programs pad,
select and add spectra (jnp.fft.irfftn and jax.scipy.signal.fftconvolve pad them; jnp.conj negates an
imaginary part). Each result element of the ops in PARTWISE is an element of an operand (or the padding
value) placed elsewhere, or the sum, difference or negation of elements, whose real part is that of
the real parts and whose imaginary part that of the imaginary parts, as StableHLO (and XLA) compute
it: taking the parts apart and joining them gives StableHLO's result exactly. A reduction or a window
reduction that adds (PARTWISE_WHEN: jnp.sum, jnp.mean and jnp.cumsum of complex values) is partwise too, and so
is a scatter that places or adds its updates (x.at[i].set(z), .add(z)).
Ops that mix the parts (Multiply, Abs, Exp, a product's reduction) or order complex numbers (Max, Sort:
by both parts together) are not among them.

stablehlo.abs, exponential, log, sqrt, divide and dot_general of complex operands are read as
hlir.StablehloComplexAbs, StablehloComplexExp, StablehloComplexLog, StablehloComplexSqrt,
StablehloComplexDivide and StablehloComplexDotGeneral; tanh, tan, log_plus_one, exponential_minus_one,
power, rsqrt and sign as the StablehloComplex* op of that name, and chlo.square, sinh, cosh, asin, acos,
atan, asinh, acosh and atanh as the ChloComplex* one (COMPLEX_FORMS).

The program is read that way: hlir.Real and hlir.StablehloImag take each such operand apart, the op
runs twice (on the real parts, then on the imaginary parts; its other operands, such as indices and
Select's predicate, shared), and hlir.StablehloComplex makes the result (004's Imag and Complex cannot
state complex128, nor Imag a real result). The added nodes carry the operation's
location."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..graph import Node
from .stablehlo_widening import described

if TYPE_CHECKING:
    from collections.abc import MutableMapping

    from ..runtime.validation import Signature, TensorInfo
    from .stablehlo_batching import NodeMaker

PARTWISE = frozenset({"Select", "Pad", "Gather", "Concatenate", "Slice", "Reverse", "Transpose", "BroadcastInDim",
                      "Reshape", "DynamicSlice", "DynamicUpdateSlice", "Add", "Sub", "Neg"})
# Ops that are partwise for some computations only: a sum of complex numbers (jnp.sum, jnp.mean, jnp.cumsum)
# sums the real parts and the imaginary parts apart, a product does not.
PARTWISE_WHEN = {"StablehloReduce": frozenset({"ADD"}), "ReduceWindow": frozenset({"ADD"}),
                 "ScatterND": frozenset({"UPDATE", "ADD"})}  # x.at[i].set(z) and .add(z) of complex values
PART_OF = {"complex64": "float", "complex128": "double"}
# hlir ops whose types have no complex type, and the extension op that computes the same StableHLO operation
# for complex operands (stablehlo.abs of a complex number is its modulus, of the part type).
COMPLEX_FORMS = {"Abs": "StablehloComplexAbs", "Exp": "StablehloComplexExp", "Log": "StablehloComplexLog",
                 "Sqrt": "StablehloComplexSqrt", "Div": "StablehloComplexDivide",
                 "DotGeneral": "StablehloComplexDotGeneral", "Tanh": "StablehloComplexTanh",
                 "Tan": "StablehloComplexTan",
                 "Log1p": "StablehloComplexLog1p", "Expm1": "StablehloComplexExpm1", "Pow": "StablehloComplexPower",
                 "StablehloRsqrt": "StablehloComplexRsqrt", "StablehloSign": "StablehloComplexSign",
                 "ChloSquare": "ChloComplexSquare", "Sinh": "ChloComplexSinh", "ChloCosh": "ChloComplexCosh",
                 "Asin": "ChloComplexAsin", "Acos": "ChloComplexAcos", "Atan": "ChloComplexAtan",
                 "Asinh": "ChloComplexAsinh", "ChloAcosh": "ChloComplexAcosh", "Atanh": "ChloComplexAtanh"}


def complex_form(op: str, inputs: list[TensorInfo | None]) -> str:
    """The hlir op that computes `op` for these operands: its complex form when the first is complex."""
    form = COMPLEX_FORMS.get(op)
    first = inputs[0] if inputs else None
    return form if form is not None and first is not None and first.dtype in PART_OF else op


def split_plan(op: str, sig: Signature | None, inputs: list[TensorInfo | None],
               outputs: list[TensorInfo], attributes: dict[str, Any] | None = None) -> list[bool] | None:
    """Which operands to take apart: the complex ones whose parameter's types lack their type and have the
    type of their parts. None when nothing is taken apart, when the op is not in PARTWISE (or PARTWISE_WHEN
    for its `computation`) or has several results, and when some complex value's parameter has neither
    type (the checker then reports it)."""
    partwise = op in PARTWISE or (attributes or {}).get("computation") in PARTWISE_WHEN.get(op, ())
    if sig is None or not partwise or len(outputs) != 1:
        return None
    split: list[bool] = []
    needed = False
    for params, infos in ((sig.inputs, inputs), (sig.outputs, outputs)):
        for position, info in enumerate(infos):
            part = PART_OF.get(info.dtype or "") if info is not None else None
            apart = False
            if part is not None and params:
                allowed = sig.allowed(params[min(position, len(params) - 1)])  # the last param repeats (variadic)
                if info is not None and info.dtype not in allowed:
                    if part not in allowed:
                        return None
                    apart = needed = True
            split.append(apart)
    return split[:len(inputs)] if needed else None


def add_in_parts(reader: NodeMaker, op: str, inputs: list[str], output: str, split: list[bool],
                 attributes: dict[str, Any], values: MutableMapping[str, TensorInfo], nodes: list[Node],
                 where: str) -> None:
    """The nodes of `op` on the real and on the imaginary parts of the operands `split` marks, and of the
    Complex that joins the two results into `output`."""
    part_type = PART_OF[values[output].dtype or ""]
    halves = []
    for take in ("Real", "StablehloImag"):
        operands = []
        for name, apart in zip(inputs, split):
            if apart:
                part = reader.fresh()
                values[part] = described(reader, part_type, values[name])
                reader.add(nodes, Node(len(nodes), where, "hlir", take, None, (name,), (part,)), {})
                name = part
            operands.append(name)
        half = reader.fresh()
        values[half] = described(reader, part_type, values[output])
        reader.add(nodes, Node(len(nodes), where, "hlir", op, None, tuple(operands), (half,)), dict(attributes))
        halves.append(half)
    reader.add(nodes, Node(len(nodes), where, "hlir", "StablehloComplex", None, tuple(halves), (output,)), {})
