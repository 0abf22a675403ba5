"""Structured C kernels: the ops a runtime needs first beyond element-wise formulas (reductions, ArgMax/ArgMin,
Softmax, Transpose, Concatenate, Slice, Pad, BroadcastInDim, DotGeneral, Gemm).

The spec's kernel function (`kernel.function`, the NumPy kernel the op runs with) says which C kernel family an
op version takes; the spec gives its element types (the input's type constraint, less the types without a C
type), its parameters (inputs, then the attributes in the spec's order, as the element-wise kernels take them)
and its names. The body of each family is a template, templates/c/structured/<family>.c.j2, which uses the
shared helpers of templates/c/structured.h.j2."""
from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Any

from ..dtypes import ELEM_TYPES, ElemType, tensor_elem
from ..model import OpVersion, Parameter
from .c_calls import CPU_CLONED
from .c_code import c_name, function_prefix
from .c_layout import prototype


@dataclass(frozen=True)
class Family:
    template: str  # templates/c/structured/<template>.c.j2
    kinds: tuple[str, ...]  # the element kinds the family computes on (ElemType.kind)
    text: str  # what the kernel computes, for the header comment
    output_elem: str | None = None  # a fixed output type (ArgMax: int64), else the input's
    output_shape_parameter: bool = False  # the output shape is not implied by the inputs and attributes


_NUMERIC = ("int", "uint", "float")
_ANY = ("bool", "int", "uint", "float")
SOFTMAX_TEXT = ("e = exp(x - max(x)) along the axis (max taken as 0 unless accurate); D = the sum of e, at least "
                "epsilon (NaN propagates); output e / D, or (x - max) - log(D) when logarithmic. Along the last "
                "dimension the sum adds eight interleaved partial sums (element j into sum j mod 8) combined "
                "pairwise, along another one it adds in axis order: not NumPy's pairwise order, so results agree "
                "with the NumPy kernel to opgen.testing.TOLERANCES, not bit for bit.")
GEMM_TEXT = ("Y = alpha * A' B' + beta * C (A' = A transposed if transA, B' likewise; C broadcast unidirectionally "
             "to (M, N); absent, or beta == 0, C is not read). DotGeneral's blocked loops: the product sums over K in "
             "order in the compute type (float16 and bfloat16 in float), then is scaled, C added, rounded once. "
             "Integers: the product wraps around in the element type, alpha * it + beta * C is computed in double "
             "and converted toward zero, saturated (NaN: 0), as Convert converts.")
FAMILIES: dict[str, Family] = {
    "reduction.reduce": Family(
        "reduce", _NUMERIC,
        "One input: the left fold init, x1, ..., xn of the reduced elements in the input's row-major order (the "
        "NumPy kernel's order, so ADD and MUL give its results exactly) for computation ADD, MUL, MAX or MIN "
        "(MAX/MIN propagate NaN and order -0.0 below +0.0); float16 accumulates in float and is rounded once, "
        "integers wrap around. Other computations return OPGEN_ERR_NOT_IMPLEMENTED."),
    "reduction.argmax": Family(
        "argmax", _NUMERIC, "The index of the first (last with select_last_index) largest element along axis; a "
        "NaN counts as the largest. An empty axis is OPGEN_ERR_SHAPE.", output_elem="int64"),
    "reduction.argmin": Family(
        "argmax", _NUMERIC, "The index of the first (last with select_last_index) smallest element along axis; a "
        "NaN counts as the smallest. An empty axis is OPGEN_ERR_SHAPE.", output_elem="int64"),
    "activation.softmax": Family("softmax", ("float",), SOFTMAX_TEXT),
    "onnx_activation.onnx_softmax": Family("softmax", ("float",), SOFTMAX_TEXT),
    "onnx_activation.onnx_log_softmax": Family("softmax", ("float",), SOFTMAX_TEXT),
    "data_movement.transpose": Family(
        "transpose", _ANY, "Output dimension i is input dimension permutation[i]."),
    "data_movement.concatenate": Family(
        "concatenate", _ANY, "The tensors of the variadic input one after another along dimension; all have one "
        "rank and the same sizes elsewhere."),
    "slice_pad.slice_": Family(
        "slice", _ANY, "Elements start, start + stride, ... below limit in every dimension (0 <= start <= limit <= "
        "size, stride >= 1; OPGEN_ERR_ARGUMENT otherwise)."),
    "slice_pad.pad": Family(
        "pad", _NUMERIC, "XLA Pad (mode PAD_VALUE): interior padding between neighbours, then low/high padding at "
        "the ends, a negative amount removing elements. PAD_EDGE, PAD_REFLECT, PAD_SYMMETRIC: no interior padding "
        "(OPGEN_ERR_ARGUMENT), negative amounts remove elements first, positive ones add elements read from the "
        "rest (the end one repeated, mirrored without it, mirrored with it; more than the rest allows is "
        "OPGEN_ERR_SHAPE)."),
    "data_movement.broadcast_in_dim": Family(
        "broadcast_in_dim", _ANY, "output[i] = input[j] with j_k = i_{broadcast_dimensions[k]} (0 where the input's "
        "size is 1); the output's shape is given.", output_shape_parameter=True),
    "onnx_slice_pad.onnx_pad": Family(
        "onnx_pad", _ANY, "ONNX Pad: the amounts (pads, or Pad-1's paddings) list the elements added before each "
        "padded axis, then after each (axes, from Pad-18: which axes, all when absent, given as int64); a negative "
        "amount first removes elements. mode constant writes the fill (constant_value's first element, Pad-1/2's "
        "value, else 0), edge repeats the end element, reflect mirrors about it without repeating it and wrap reads "
        "the rest periodically, reflect and wrap for any width (unlike hlir Pad's PAD_REFLECT, which stops at what "
        "the rest holds); adding elements to an axis left empty is OPGEN_ERR_SHAPE, a mode the version lacks "
        "OPGEN_ERR_ARGUMENT."),
    "linalg.dot_general": Family(
        "dot_general", _NUMERIC, "XLA DotGeneral: products summed over the contracting dimension pairs for each "
        "batch index; the output is batch dims, lhs free dims, rhs free dims. Blocked loops, no BLAS; the sum runs "
        "over the contracting elements in row-major order (float16 in float, rounded once; integers wrap)."),
    "linalg.gemm": Family("gemm", _NUMERIC, GEMM_TEXT),
    "onnx_linalg.onnx_gemm_legacy": Family("gemm", _NUMERIC, GEMM_TEXT + " Gemm-1/6: without broadcast, C must "
                                           "have Y's shape (M, N) (OPGEN_ERR_SHAPE otherwise)."),
}
# Kernel functions whose computation the template is told by a flag (ONNX Softmax-13 and LogSoftmax-13 are
# the accurate form of hlir Softmax without epsilon).
_SOFTMAX_FORMS = {"onnx_activation.onnx_softmax": "false", "onnx_activation.onnx_log_softmax": "true"}

_ATTR_PARAMS = {"int": ["int64_t {n}"], "float": ["double {n}"], "bool": ["bool {n}"], "string": ["const char *{n}"],
                "enum": ["const char *{n}"], "ints": ["const int64_t *{n}", "size_t {n}_len"]}
_LOAD = {"float16": "opgen_f16_to_f32({x})", "bfloat16": "opgen_bf16_to_f32({x})"}
_STORE = {"float16": "opgen_f32_to_f16({x})", "bfloat16": "opgen_f32_to_bf16({x})"}


def family_of(v: OpVersion) -> Family | None:
    return FAMILIES.get(v.kernel or "") if v.elementwise is None else None


def _elem_types(v: OpVersion, family: Family) -> list[ElemType]:
    """The element types of the first input's type constraint that have a C type and a kind the family
    computes on."""
    first = v.inputs[0]
    out = []
    for t in v.allowed_types(first):
        name = tensor_elem(t)
        elem = ELEM_TYPES.get(name) if isinstance(name, str) else None
        if elem is not None and elem.c_type and elem.kind in family.kinds:
            out.append(elem)
    return out


def _input_groups(v: OpVersion, p: Parameter, elem: ElemType, family: Family) -> list[str] | None:
    """An input's parameters: data, shape, rank. An input of another type than the first one (ONNX Pad's pads and
    axes) is taken as int64_t where its types include int64 (a caller converts an int32 axes tensor); None for
    any other (the version then has no structured kernel)."""
    n = c_name(p.name)
    if p.option == "variadic" and family.template == "concatenate":  # as a fold takes it
        return [f"const {elem.c_type} *const *{n}", f"const int64_t *const *{n}_shape", f"const size_t *{n}_rank",
                f"size_t {n}_count"]
    c_type = elem.c_type
    if p.type != v.inputs[0].type:
        if "tensor(int64)" not in v.allowed_types(p):
            return None
        c_type = "int64_t"
    return [f"const {c_type} *OPGEN_RESTRICT {n}", f"const int64_t *{n}_shape", f"size_t {n}_rank"]


def structured_views(v: OpVersion, float32: bool = False) -> list[dict[str, Any]]:
    """The typed kernels of a version whose NumPy kernel has a C family (none for other versions). `float32`: the
    domain stores float attributes as float32 (c_code._attribute_setup), so a kernel rounds them to float first."""
    family = family_of(v)
    if family is None or not v.inputs or len(v.outputs) != 1:
        return []
    if any(a.type not in _ATTR_PARAMS for a in v.attributes):
        return []
    views = []
    for elem in _elem_types(v, family):
        out_elem = ELEM_TYPES[family.output_elem] if family.output_elem else elem
        inputs = [_input_groups(v, p, elem, family) for p in v.inputs]
        if any(group is None for group in inputs):
            return []
        groups = [group for group in inputs if group is not None]
        groups += [[f.format(n=c_name(a.name)) for f in _ATTR_PARAMS[a.type]] for a in v.attributes]
        out = c_name(v.outputs[0].name)
        if family.output_shape_parameter:
            groups.append([f"const int64_t *{out}_shape", f"size_t {out}_rank"])
        groups.append([f"{out_elem.c_type} *OPGEN_RESTRICT {out}"])
        function = f"{function_prefix(v)}_{elem.name}"
        compute = elem.c_compute
        names = {p.name: c_name(p.name) for p in [*v.inputs, *v.outputs]}
        names.update({a.name: c_name(a.name) for a in v.attributes})
        computations = next((list(a.values) for a in v.attributes if a.name == "computation" and a.values), [])
        modes = next((list(a.values) for a in v.attributes if a.name == "mode" and a.values), [])
        views.append(dict(
            key=v.key, elem=elem.name, out_elem=out_elem.name, function=function, template=family.template,
            cpu_clones=elem.name in CPU_CLONED,
            declaration=prototype("opgen_status", function, groups, ";"),
            definition=prototype("opgen_status", function, groups, " {"),
            text=textwrap.fill(family.text, 112),  # the header comment's lines within 120 columns
            output=out, names=names, attributes=[c_name(a.name) for a in v.attributes],
            c_type=elem.c_type, compute=compute, kind=elem.kind, bits=elem.bits,
            load=_LOAD.get(elem.name, "({x})"), store=_STORE.get(elem.name, f"({elem.c_type})({{x}})"),
            suffix="f32" if compute == "float" else "f64", computations=computations, modes=modes,
            optional={c_name(p.name) for p in v.inputs if p.option == "optional"},
            inputs=[c_name(p.name) for p in v.inputs],
            largest=(v.kernel or "").endswith("argmax"),
            onnx_softmax=_SOFTMAX_FORMS.get(v.kernel or ""), float32_attributes=float32,
            output_shape_text=("the shape given by " + out + "_shape") if family.output_shape_parameter
            else "the shape the spec gives it",
        ))
    return views


def structured_types(v: OpVersion) -> list[str]:
    """The element types a version has structured C kernels for (`opgen build`'s coverage, `opgen list --kernels`)."""
    family = family_of(v)
    return [view["elem"] for view in structured_views(v)] if family is not None else []
