"""C output: a shared runtime header, and per op a header and a source with a real kernel
for every element type the formula supports (from the same formula as the NumPy kernel)
or a type-erased stub returning OPGEN_ERR_NOT_IMPLEMENTED."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence, cast

from .. import expr, formula
from ..dtypes import ELEM_TYPES, ElemType, tensor_elem
from ..names import C_KEYWORDS, C_RENAMED
from ..model import FOLD_ACCUMULATOR, Domain, OpSpec, OpVersion, Parameter, SpecSet
from . import SharedUnit, c_calls
from .c_layout import prototype
from .common import header as file_header, module_name, render as render_template

_ATTR_C = {"int": "int64_t {n}", "float": "double {n}", "bool": "bool {n}", "string": "const char *{n}",
           "enum": "const char *{n}"}
_ATTR_FIELDS = {
    "int": ["int64_t {n}"], "float": ["double {n}"], "bool": ["bool {n}"], "string": ["const char *{n}"],
    "enum": ["const char *{n}"], "ints": ["const int64_t *{n}", "size_t {n}_len"],
    "floats": ["const double *{n}", "size_t {n}_len"], "strings": ["const char *const *{n}", "size_t {n}_len"],
    "tensor": ["opgen_tensor {n}"], "graph": ["const void *{n} /* opaque handle of the nested graph */"],
    "graphs": ["const void *const *{n} /* opaque handles of the nested graphs */", "size_t {n}_len"],
    "sparse_tensor": ["const void *{n} /* opaque handle of the sparse tensor */"],
    "type_proto": ["const char *{n} /* the type's spelling, e.g. seq(tensor(float)) */"],
}
_LOAD = {"float16": "opgen_f16_to_f32({x})", "bfloat16": "opgen_bf16_to_f32({x})"}
_STORE = {"float16": "opgen_f32_to_f16({x})", "bfloat16": "opgen_f32_to_bf16({x})"}
_ALIGN = {  # function and argument groups
    "onnx_prelu_legacy": ("opgen_align_onnx_prelu_legacy", [["{s}_shape", "{s}_rank"], ["{t}_shape", "{t}_rank"],
                                                            ["aligned"]]),
    "onednn_prelu": ("opgen_align_onednn_prelu", [["{s}_shape", "{s}_rank"], ["{t}_shape", "{t}_rank"],
                                                  ["data_format", "per_channel_broadcast", "aligned"]]),
}


# The flags the generated C is meant to be built with (generated/c/README.md, each source's top comment,
# and the tests' compiler command): GCC's -O2 uses the "very cheap" vectoriser cost model, which leaves
# the kernels' loops scalar, so ask for the usual one; -fno-trapping-math lets a where() compute both
# branches (the kernels expose no floating-point flags). Clang vectorises at -O2 and has no
# -fvect-cost-model: there -O2 -fno-trapping-math.
# -fno-math-errno lets GCC call the SIMD variants of libm functions (vector_math.h) and inline sqrt: a
# call that may set errno cannot be vectorised; the kernels report no errno (NaN and inf results stay).
OPTIMISATION_FLAGS = ("-O2", "-ftree-vectorize", "-fvect-cost-model=dynamic", "-fno-trapping-math", "-fno-math-errno")

# The libm functions of the formulas (formula.FORMULA_FUNCTIONS) with a SIMD variant in glibc's libmvec on
# x86-64, by the glibc release that added it, with their argument count (vector_math.h declares them).
VECTOR_MATH_BASIC = {"exp": 1, "log": 1, "sin": 1, "cos": 1, "pow": 2}  # glibc 2.22
VECTOR_MATH_EXTENDED = {name: 1 for name in ("expm1", "log1p", "cbrt", "tan", "asin", "acos", "atan", "sinh",
                                             "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc")}
VECTOR_MATH_EXTENDED["atan2"] = 2  # glibc 2.35


def _vector_declarations(functions: dict[str, int]) -> list[str]:
    """The double and float declarations of `functions`, each marked as having SIMD variants."""
    lines = []
    for name, arity in functions.items():
        for c_type, suffix in (("double", ""), ("float", "f")):
            lines.append(f"extern {c_type} {name}{suffix}({', '.join([c_type] * arity)}) OPGEN_SIMD;")
    return lines


def c_name(name: str) -> str:
    """A spec name as a C identifier: C keywords and C library functions get a trailing "_" (names.C_RENAMED)."""
    return name + "_" if name in C_RENAMED else name


def c_field(name: str) -> str:
    """A spec name as a field of a stub's attribute struct (API for C callers): only C keywords get a trailing
    "_"; a member may share a library function's name."""
    return name + "_" if name in C_KEYWORDS else name


@dataclass(frozen=True)
class Operand:
    name: str
    var: str
    load: str
    load_contiguous: str
    load_block: str  # element block_start + i of a dense operand (the blocked loop of op.c.j2)
    rank: str  # the rank the iterator takes (0 for an absent optional input)
    direct: bool = False  # the blocked loop may read a dense operand in place (stored in the compute type)


def function_prefix(v: OpVersion) -> str:
    return f"opgen_{v.domain}_{v.op}_v{v.since_version}"


def _kind(elem: ElemType) -> str:
    return "float" if elem.kind == "float" else elem.kind


def type_plan(v: OpVersion) -> list[tuple[ElemType, ElemType, ElemType]]:
    """(input, output, compute) element types for which C kernels are generated.

    Inputs share one type variable (the formula input's), except inputs of a single allowed type
    (Where's boolean condition: fixed_inputs); the output is bound to it, fixed, or free with a single
    allowed type (or the input's when allowed). Floating results compute in the output's
    precision, the others in the input's."""
    ew = v.elementwise
    assert ew is not None  # called for element-wise ops only
    var = v.formula_input().type
    if v.formula_input().is_fixed or any(p.type != var and p.name not in fixed_inputs(v) for p in v.inputs):
        return []
    out = next(p for p in v.outputs if p.name == ew.output)
    out_allowed = [tensor_elem(t) for t in v.allowed_types(out)]
    plan = []
    for t in v.formula_types():
        if (e := tensor_elem(t)) not in ELEM_TYPES:  # sequences and optionals have no C kernel
            continue
        elem_in = ELEM_TYPES[e]
        if out.type == var:
            elem_out = elem_in
        elif len(out_allowed) == 1:
            elem_out = ELEM_TYPES[cast(str, out_allowed[0])]  # a tensor type: element-wise outputs are tensors
        elif elem_in.name in out_allowed:
            elem_out = elem_in
        else:
            continue
        compute = elem_out if elem_out.kind == "float" else elem_in
        if not (elem_in.c_type and elem_out.c_type and compute.c_type):
            continue
        if formula.c_supported(ew.formula, _kind(compute)):
            plan.append((elem_in, elem_out, compute))
    return plan


def fixed_inputs(v: OpVersion) -> dict[str, ElemType]:
    """Inputs other than the formula input's type variable whose type allows one element type with a C
    type (Where's condition, bool): the kernel takes them in that type and converts each value."""
    var = v.formula_input().type
    out = {}
    for p in v.inputs:
        allowed = [tensor_elem(t) for t in v.allowed_types(p)]
        if p.type != var and len(allowed) == 1 and allowed[0] in ELEM_TYPES and ELEM_TYPES[allowed[0]].c_type:
            out[p.name] = ELEM_TYPES[allowed[0]]
    return out


def _load(elem: ElemType, compute: ElemType, x: str) -> str:
    if elem.name in _LOAD:
        return _LOAD[elem.name].format(x=x)
    return x if elem.c_type == compute.c_compute else f"({compute.c_compute})({x})"


# The largest finite value of each C-computable float type, exactly (ml_dtypes.finfo(...).max.hex()).
_FLOAT_MAX = {"float16": "0x1.ffcp+15", "bfloat16": "0x1.fep+127", "float": "0x1.fffffep+127",
              "double": "0x1.fffffffffffffp+1023"}


def c_limit(elem: ElemType, compute: ElemType, which: str) -> str:
    """The lowest or highest finite value of `elem` (an absent optional input or attribute, elementwise.absent)
    as a C constant of the compute type: <stdint.h> limits for integers, exact hexadecimal floats."""
    if elem.kind in ("int", "uint"):
        if elem.kind == "uint" and which == "lowest":
            value = "0"
        else:
            value = f"{'U' if elem.kind == 'uint' else ''}INT{elem.bits}_{'MIN' if which == 'lowest' else 'MAX'}"
    else:
        value = ("-" if which == "lowest" else "") + _FLOAT_MAX[elem.name]
    return f"(({compute.c_compute}){value})"


def _attribute_setup(v: OpVersion, elem_in: ElemType, compute: ElemType,
                     float32: bool = False) -> tuple[dict[str, str], list[str]]:
    """How a kernel's formulas name the attributes they read, and the statements giving those names their
    values in the compute type (string attributes are compared as given). `float32`: the domain stores
    float attributes as float32 (Domain.float_attributes), so a float attribute is rounded to float first,
    as the NumPy kernel rounds it (one typing rule for both emitters)."""
    ew = v.elementwise
    assert ew is not None
    absent = dict(ew.absent)
    read = formula.formula_names(ew.formula) | (formula.formula_names(ew.finish) if ew.finish is not None else frozenset())
    rename, setup = {}, []
    for a in v.attributes:
        via = "(float)" if float32 and a.type == "float" and compute.c_compute != "float" else ""
        if a.name in read and a.type in ("string", "enum"):
            rename[a.name] = c_name(a.name)  # only compared with words (strcmp), as given
        elif a.name in absent:  # an attribute without a default: has_<name> says whether it was given
            rename[a.name] = f"{c_name(a.name)}_a"
            setup.append(f"const {compute.c_compute} {c_name(a.name)}_a = has_{a.name} ? "
                         f"({compute.c_compute}){via}{c_name(a.name)} : {c_limit(elem_in, compute, absent[a.name])};")
        elif a.name in read:
            rename[a.name] = f"{c_name(a.name)}_a"
            setup.append(f"const {compute.c_compute} {c_name(a.name)}_a = ({compute.c_compute}){via}{c_name(a.name)};")
    return rename, setup


def _attribute_parameters(v: OpVersion) -> list[list[str]]:
    """The attributes' parameters of a typed kernel, in the spec's order (a list attribute's two together)."""
    absent = dict(v.elementwise.absent) if v.elementwise is not None else {}
    groups = []
    for a in v.attributes:
        if a.name in absent:
            groups.append([_ATTR_C[a.type].format(n=c_name(a.name)), f"bool has_{a.name}"])
        elif a.type in _ATTR_C:
            groups.append([_ATTR_C[a.type].format(n=c_name(a.name))])
        elif a.type == "ints":
            groups.append([f"const int64_t *{c_name(a.name)}", f"size_t {c_name(a.name)}_len"])
    return groups


def _unused_attributes(v: OpVersion, used: frozenset[str] | set[str]) -> list[str]:
    """The attribute parameters a kernel does not read (cast to void in its body)."""
    return [c_name(a.name) + suffix for a in v.attributes if a.type in _ATTR_C or a.type == "ints"
            if a.name not in used for suffix in (("", "_len") if a.type == "ints" else ("",))]


def fold_kernel_views(v: OpVersion, float32: bool = False) -> list[dict[str, Any]]:
    """Typed kernels of a fold (elementwise.fold): the variadic input as arrays of data pointers, shapes and
    ranks plus their count. The output is computed in blocks of OPGEN_FOLD_BLOCK elements: each block's
    accumulator, a compute-type array on the stack, takes the first tensor, then the formula with each further
    one (an iterator per tensor, seeked to the block), then finish rounds it once into the output. So any
    number of tensors folds without the iterator's operand limit, and float16 is rounded once, not per step."""
    ew = v.elementwise
    assert ew is not None and ew.fold is not None
    fold = next(p for p in v.inputs if p.name == ew.fold)
    n, out = c_name(fold.name), c_name(ew.output)
    views = []
    for elem_in, elem_out, compute in type_plan(v):
        kind = _kind(compute)
        rename = {FOLD_ACCUMULATOR: "acc_v", fold.name: f"{n}_v"}
        attribute_names, setup = _attribute_setup(v, elem_in, compute, float32)
        rename.update(attribute_names)
        counts = {fold.name: f"{n}_count"}
        groups = [[f"const {elem_in.c_type} *const *{n}", f"const int64_t *const *{n}_shape",
                   f"const size_t *{n}_rank", f"size_t {n}_count"]]
        groups += _attribute_parameters(v)
        groups.append([f"{elem_out.c_type} *OPGEN_RESTRICT {out}"])
        step = formula.formula_to_c(ew.formula, rename, compute.c_compute, kind, counts)
        finish = formula.formula_to_c(ew.finish_formula(), rename, compute.c_compute, kind, counts)
        used = formula.formula_names(ew.formula) | formula.formula_names(ew.finish_formula())
        function = f"{function_prefix(v)}_{elem_in.name}"
        same_shape = ew.broadcast == "none"
        views.append(dict(
            declaration=prototype("opgen_status", function, groups, ";"),
            definition=prototype("opgen_status", function, groups, " {"),
            key=v.key, elem=elem_in.name, out_elem=elem_out.name, function=function,
            formula=f"acc = {ew.fold}[0]; acc = {expr.canonical(ew.formula)} for each further tensor of {ew.fold}; "
                    f"{ew.output} = {expr.canonical(ew.finish_formula())}",
            compute=compute.c_compute, output=out, attribute_setup=setup, unused=_unused_attributes(v, used),
            cpu_clones=elem_in.name in c_calls.CPU_CLONED,
            fold=dict(name=n, elem=elem_in.c_type, same_shape="true" if same_shape else "false",
                      load=_load(elem_in, compute, "fold_x[it.offset[1]]"),
                      load_contiguous=_load(elem_in, compute, "fold_x[fold_start + i]"),
                      step=step, store=_STORE.get(elem_out.name, f"({elem_out.c_type}){{x}}").format(x=finish)),
            output_shape_text=(f"the shape of every tensor of {n}" if same_shape
                               else f"the broadcast shape of the tensors of {n}"),
        ))
    return views


def kernel_views(v: OpVersion, float32: bool = False) -> list[dict[str, Any]]:
    """The typed element-wise kernels of a version; `float32`: see _attribute_setup."""
    ew = v.elementwise
    if ew is not None and ew.fold is not None:
        return fold_kernel_views(v, float32)
    absent = dict(ew.absent) if ew is not None else {}
    if ew is None or any(p.option == "variadic" or (p.option == "optional" and p.name not in absent)
                         for p in v.inputs):
        return []
    views = []
    rule = v.broadcast_rule()
    for elem_in, elem_out, compute in type_plan(v):
        kind = _kind(compute)
        rename = {p.name: f"{c_name(p.name)}_v" for p in v.inputs}
        attribute_names, setup = _attribute_setup(v, elem_in, compute, float32)
        rename.update(attribute_names)
        groups = []  # the parameters, an operand's (or a list attribute's) together
        elems = {p.name: fixed_inputs(v).get(p.name, elem_in) for p in v.inputs}
        for p in v.inputs:
            n = c_name(p.name)
            # OPGEN_RESTRICT (runtime.h): C's restrict, which C++ spells __restrict; the headers serve both.
            groups.append([f"const {elems[p.name].c_type} *OPGEN_RESTRICT {n}", f"const int64_t *{n}_shape",
                           f"size_t {n}_rank"])
        groups += _attribute_parameters(v)
        out = c_name(ew.output)
        groups.append([f"{elem_out.c_type} *OPGEN_RESTRICT {out}"])  # restrict: no aliasing, so loops vectorise
        params = [p for g in groups for p in g]
        def operand(k: int, p: Parameter) -> Operand:
            n = c_name(p.name)
            load = _load(elems[p.name], compute, f"{n}[it.offset[{k}]]")
            contiguous = _load(elems[p.name], compute, f"{n}[i]")
            block = _load(elems[p.name], compute, f"{n}[block_start + i]")
            if p.option != "optional":
                return Operand(n, rename[p.name], load, contiguous, block, f"{n}_rank",
                               direct=block == f"{n}[block_start + i]")
            # An absent optional input is a NULL array (its shape is not read): the extreme value it stands for.
            value = c_limit(elem_in, compute, absent[p.name])
            return Operand(n, rename[p.name], f"({n} != NULL ? {load} : {value})",
                           f"({n} != NULL ? {contiguous} : {value})", f"({n} != NULL ? {block} : {value})",
                           f"{n} != NULL ? {n}_rank : 0")

        operands = [operand(k, p) for k, p in enumerate(v.inputs)]
        body = formula.formula_to_c(ew.formula, rename, compute.c_compute, kind)
        target_index, align, source_index, target = -1, "", 0, ""
        names = [p.name for p in v.inputs]
        if ew.broadcast in ("unidirectional", "onnx_prelu_legacy", "onednn_prelu") and rule is not None:
            args = dict(rule.args)
            target_index, source_index = names.index(args["target"]), names.index(args["source"])
            target = c_name(args["target"])
            if ew.broadcast in _ALIGN:
                function, arg_groups = _ALIGN[ew.broadcast]
                align = prototype("opgen_status aligned_status =", function,
                                  [[a.format(s=c_name(args["source"]), t=target) for a in g] for g in arg_groups],
                                  ";", indent=4)
        elif ew.broadcast == "none":
            target_index, target = 0, c_name(names[0])  # no broadcasting: the output has the first input's shape
        xla = ew.broadcast == "xla"
        used = formula.formula_names(ew.formula) | ({"data_format", "per_channel_broadcast"} if align else set()) \
            | ({"broadcast_dimensions"} if xla else set())
        unused = _unused_attributes(v, used)
        store = _STORE.get(elem_out.name, f"({elem_out.c_type}){{x}}").format(x=body)
        function = f"{function_prefix(v)}_{elem_in.name}"
        array_call = c_calls.array_call(ew.formula, [p.name for p in v.inputs], elem_in, elem_out, compute)
        clamp_call = c_calls.clamp_call(ew.formula, names, v, elem_in, elem_out, compute)
        views.append(dict(
            declaration=prototype("opgen_status", function, groups, ";"),
            definition=prototype("opgen_status", function, groups, " {"),
            key=v.key, elem=elem_in.name, out_elem=elem_out.name, formula=f"{ew.output} = {expr.canonical(ew.formula)}",
            function=function, params=params, operands=operands,
            compute=compute.c_compute, output=out, store=store, attribute_setup=setup, unused=unused, array_call=array_call,
            clamp_call=clamp_call,
            cpu_clones=elem_in.name in c_calls.CPU_CLONED and array_call is None,  # an array call chooses for itself
            target_index=target_index, align=align, source_index=source_index, target=target,
            xla=dict(lhs=c_name(names[0]), rhs=c_name(names[1]), dims=c_name("broadcast_dimensions")) if xla else None,
            output_shape_text=(f"the shape of {target}" if target_index >= 0 else "the broadcast shape of the inputs"),
            fold=None,
        ))
    return views


def stub_view(v: OpVersion) -> dict[str, Any]:
    fields = []
    for a in v.attributes:
        fields += [f.format(n=c_field(a.name)) for f in _ATTR_FIELDS[a.type]]
        if not a.required and not a.has_default and a.default_each is None:
            fields.append(f"bool has_{a.name}")

    def describe(params: Sequence[Parameter]) -> str:
        return ", ".join(p.name + {"optional": "?", "variadic": "..."}.get(p.option, "") for p in params) or "none"

    prefix = function_prefix(v)
    params = ["const opgen_tensor *inputs", "size_t n_inputs", "opgen_tensor *outputs", "size_t n_outputs",
              f"const {prefix}_attrs *attrs"]
    return dict(key=v.key, function=prefix, attrs_type=f"{prefix}_attrs", fields=fields,
                declaration=prototype("opgen_status", prefix, params, ";"),
                definition=prototype("opgen_status", prefix, params, " {"),
                inputs_text=describe(v.inputs), outputs_text=describe(v.outputs))


def render_op(op: OpSpec, float32_attributes: bool = False) -> dict[str, bytes]:
    from .c_structured import structured_views  # it builds on this module's helpers

    kernels, structured, stubs = [], [], []
    for v in op.versions:
        views = kernel_views(v, float32_attributes)
        if views:
            kernels += views
        elif typed := structured_views(v, float32_attributes):
            structured += typed
        else:
            stubs.append(stub_view(v))
    module = module_name(op.name)
    header = file_header(f"{op.domain}/{op.name}.yaml")
    ctx = dict(op=op, kernels=kernels, structured=structured, stubs=stubs, header=header, module=module,
               flags=" ".join(OPTIMISATION_FLAGS),
               guard=f"OPGEN_{op.domain.upper()}_{module.upper()}_H")
    return {
        f"c/include/opgen/{op.domain}/{module}.h": render_template("c/op.h.j2", **ctx),
        f"c/src/{op.domain}/{module}.c": render_template("c/op.c.j2", **ctx),
    }


OP_TEMPLATES = ("c/op.h.j2", "c/op.c.j2")  # what op_files renders (compiled before a build forks)


def op_files(op: OpSpec, domain: Domain) -> dict[str, bytes]:
    return render_op(op, domain.float_attributes == "float32")


def shared_units(specs: SpecSet) -> list[SharedUnit]:
    """The runtime headers and the README: they depend on the generator alone."""
    return [SharedUnit("c-runtime", None, None, _runtime_files)]


def _runtime_files() -> dict[str, bytes]:
    return {"c/include/opgen/runtime.h": render_template("c/runtime.h.j2", dtypes=list(ELEM_TYPES)),
            "c/include/opgen/structured.h": render_template("c/structured.h.j2"),
            "c/include/opgen/vector_math.h": render_template(
                "c/vector_math.h.j2", basic=_vector_declarations(VECTOR_MATH_BASIC),
                extended=_vector_declarations(VECTOR_MATH_EXTENDED)),
            "c/README.md": render_template("c/README.md.j2", flags=" ".join(OPTIMISATION_FLAGS))}
