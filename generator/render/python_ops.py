"""Python output: one module per op (validators and NumPy kernels for each version) and the
`opgen_ops` package with its registry."""
from __future__ import annotations

import dataclasses
import keyword
from dataclasses import dataclass
from functools import partial
from typing import Any

from .. import expr, formula
from ..dtypes import tensor_elem, type_key
from ..model import FOLD_ACCUMULATOR, Domain, OpSpec, OpVersion, Parameter, SpecSet
from . import SharedUnit
from .common import header as file_header
from .common import module_name, py_call, render_python
from .python_imports import import_view, kernel_function, kernel_imports
from .python_kernel_text import attribute_keywords, kernel_docstring, py_name

PACKAGE = "python/opgen_ops"


@dataclass(frozen=True)
class KernelView:
    """What the template needs to write one NumPy kernel (a formula, or a call of a runtime kernel)."""

    params: str  # the Python parameter list
    convert: list[str]  # statements turning arguments into arrays
    validate_inputs: str  # expression: the tuple of inputs given to the validator
    attributes: str  # expression: the dict of attributes (defaults applied by the signature)
    free_outputs: list[tuple[str, str, tuple[Any, ...]]]  # (output name, dtype keyword, allowed element types)
    validate_outputs: str  # expression: the outputs given to the validator ("None" when none is known)
    first_input: str
    body: list[str]  # statements after validation
    doc: str  # what the kernel computes, for its docstring (emitted as a Python string literal)
    docstring: str = ""  # the whole docstring (kernel_docstring)
    free_dtypes: tuple[str, ...] = ()  # statements choosing each free output's dtype (<output>_out)


def signature_literal(v: OpVersion) -> dict[str, Any]:
    """Plain data for the Signature the generated module builds."""
    return {
        "attributes": [
            dict(name=a.name, type=a.type, required=a.required, has_default=a.has_default,
                 default=list(a.default) if isinstance(a.default, tuple) else a.default,
                 default_each=a.default_each, values=a.values)
            for a in v.attributes
        ],
        "inputs": [dict(name=p.name, type=p.type, option=p.option, homogeneous=p.homogeneous, min_arity=p.min_arity)
                   for p in v.inputs],
        "outputs": [dict(name=p.name, type=p.type, option=p.option, homogeneous=p.homogeneous, min_arity=p.min_arity)
                    for p in v.outputs],
        "type_constraints": {tc.name: tuple(type_key(t) for t in tc.types) for tc in v.type_constraints},
    }


def checks(v: OpVersion) -> list[dict[str, Any]]:
    out = []
    for c in v.constraints:
        if not c.check:
            continue
        args: list[str | tuple[str, str]] = [repr(c.id), f"lambda c: {expr.check_to_python(c.check)}",
                                             ("str", c.description.get("en") or "")]
        if c.when:
            args.append(f"when=lambda c: {expr.check_to_python(c.when)}")
        out.append(dict(id=c.id, code=py_call("Check", args, 8)))
    return out


def output_shapes(v: OpVersion) -> list[dict[str, Any]]:
    """Each output's shape function (spec `shape`, or the element-wise broadcasting's), with its text."""
    out = []
    for p in v.outputs:
        text = v.output_shape(p)
        if text is not None:
            args: list[str | tuple[str, str]] = [repr(p.name), f"lambda c: {expr.check_to_python(text)}",
                                                 ("str", expr.canonical(text))]
            out.append(dict(name=p.name, code=py_call("OutputShape", args, 8)))
    return out


def rule_calls(v: OpVersion) -> list[dict[str, Any]]:
    out = []
    for c in v.constraints:
        if c.rule:
            args = {k: list(a) if isinstance(a, tuple) else a for k, a in c.args}
            code = py_call("RuleCall", [repr(c.id), repr(c.rule), repr(args), ("str", c.description.get("en") or "")], 8)
            out.append(dict(id=c.id, code=code))
    return out


_ALIGN = {
    "onnx_prelu_legacy": "{s} = _ew.align_onnx_prelu_legacy({s}, {t}.shape)",
    "onednn_prelu": "{s} = _ew.align_onednn_prelu({s}, {t}.shape, data_format, per_channel_broadcast)",
}


def _tuple_display(items: list[str]) -> str:
    """Python source of a tuple of these expressions (starred ones included): "(a, *b,)" or "()"."""
    return f"({', '.join(items)},)" if items else "()"


def _signature_parts(v: OpVersion) -> tuple[str, list[str], str]:
    """Parameter list, array conversions and the validator's input tuple for a kernel."""
    singles = [p for p in v.inputs if p.option != "variadic"]
    variadics = [p for p in v.inputs if p.option == "variadic"]
    params = [py_name(p.name) + ("=None" if p.option == "optional" else "") for p in singles]

    def convert_call(p: Parameter, x: str) -> str:  # a sequence or an optional stays what it is (runtime.values)
        tensor_only = all(t.startswith("tensor(") for t in v.allowed_types(p))
        return f"np.asarray({x})" if tensor_only else f"as_input({x})"

    convert = [f"{py_name(p.name)} = None if {py_name(p.name)} is None else {convert_call(p, py_name(p.name))}"
               if p.option == "optional" else f"{py_name(p.name)} = {convert_call(p, py_name(p.name))}"
               for p in singles]
    names = [py_name(p.name) for p in singles]
    if variadics:
        params.append("*variadic")
        convert.append(f"variadic = [{convert_call(variadics[0], 'x')} for x in variadic]")
        validate_inputs = _tuple_display(names + ["*variadic"])
    else:
        validate_inputs = _tuple_display(names)
    spelled = attribute_keywords(v)
    keywords = [f"{py_name(spelled[a.name])}={repr(a.default) if a.has_default else 'None'}" if not a.required
                else py_name(spelled[a.name]) for a in v.attributes]
    keywords += [f"{py_name(p.name)}_dtype=None" for p in v.free_outputs()]
    keywords += [f"{py_name(name)}_shape" for name in v.shape_from_node]
    keywords += [f"{py_name(name)}_count=None" for name in v.count_from_node]
    keywords += ["requested_outputs=None"] if v.requested_outputs else []
    if keywords:
        if not variadics:  # after *variadic every parameter is keyword-only already
            params.append("*")
        params += keywords
    return ", ".join(params), convert, validate_inputs


def _keywords(pairs: list[tuple[str, str]]) -> list[str]:
    """Keyword arguments `name=value`; a name that is no identifier (a Python keyword) as `**{'name': value}`."""
    return [f"{k}={value}" if k.isidentifier() and not keyword.iskeyword(k) else f"**{{{k!r}: {value}}}"
            for k, value in pairs]


def kernel_view(v: OpVersion, imports: dict[str, tuple[str, str, str]] | None = None,
                float32_attributes: bool = False) -> KernelView | None:
    """`float32_attributes`: the domain stores float attributes as float32 (Domain.float_attributes), so
    the kernel rounds the ones it is given, and its decimal defaults, as the references compute with them."""
    if not v.has_kernel:
        return None
    params, convert, validate_inputs = _signature_parts(v)
    spelled = attribute_keywords(v)
    if float32_attributes:
        convert += [f"{py_name(spelled[a.name])} = _ew.float32_attribute({py_name(spelled[a.name])})"
                    for a in v.attributes if a.type in ("float", "floats")]
    attributes = "{" + ", ".join(f"{a.name!r}: {py_name(spelled[a.name])}" for a in v.attributes) + "}"
    free = [(p.name, f"{py_name(p.name)}_dtype", tuple(type_key(t) for t in v.allowed_types(p)))
            for p in v.free_outputs()]
    free_names = {p.name for p in v.free_outputs()}

    def output_info(p: Parameter) -> str:
        dtype = f"_ew.elem({py_name(p.name)}_out)" if p.name in free_names else "None"
        shape = f"tuple({py_name(p.name)}_shape)" if p.name in v.shape_from_node else "None"
        return f"({dtype}, {shape})"  # (None, None): an output given, of a dtype and shape not known here

    validate_outputs = "None" if not (free or v.shape_from_node) else \
        "[" + ", ".join(output_info(p) for p in v.outputs) + "]"
    if not v.inputs:
        first_input = "None"
    elif v.inputs[0].option != "variadic":
        # getattr: an absent optional input (None), a sequence or an optional has no dtype
        first_input = f"getattr({py_name(v.inputs[0].name)}, 'dtype', None)"
    else:
        first_input = "(getattr(variadic[0], 'dtype', None) if variadic else None)"
    if v.kernel is not None:
        singles = [py_name(p.name) for p in v.inputs if p.option != "variadic"]
        n_var = sum(1 for p in v.inputs if p.option == "variadic")
        parts = singles + ([f"*split_variadic(variadic, 0, {n_var})"] if n_var else [])
        kwargs = _keywords([(spelled[a.name], py_name(spelled[a.name])) for a in v.attributes] +
                           [(kw, f"{py_name(name)}_out") for name, kw, _ in free] +
                           [(f"{name}_shape", f"tuple({py_name(name)}_shape)") for name in v.shape_from_node] +
                           [(f"{name}_count", f"{py_name(name)}_count") for name in v.count_from_node] +
                           ([("requested_outputs", "requested_outputs")] if v.requested_outputs else []))
        module, function, local = (imports or kernel_imports_of(v))[v.kernel]
        body = [f"return as_outputs({local}({', '.join(parts + kwargs)}))"]
        return KernelView(params, convert, validate_inputs, attributes, free, validate_outputs, first_input, body,
                          f"calls opgen.runtime.kernels.{v.kernel}")
    return _formula_view(v, params, convert, validate_inputs, attributes, free, validate_outputs, first_input)


def _with_docstring(v: OpVersion, k: KernelView | None) -> KernelView | None:
    return None if k is None else dataclasses.replace(k, docstring=kernel_docstring(v, k.doc),
                                                      free_dtypes=free_dtype_statements(v, k))


def free_dtype_statements(v: OpVersion, k: KernelView) -> tuple[str, ...]:
    """`<output>_out = ...` for each output no input types: the `<output>_dtype` keyword when given, else
    the type the attribute of kernel.dtype_from names (Cast's to, RandomNormal's dtype, with its default),
    else its fallback input's type or the first input's (elementwise.output_dtype)."""
    spelled = attribute_keywords(v)
    named = dict(v.dtype_from)
    out = []
    for name, dtype_keyword, allowed in k.free_outputs:
        source = k.first_input
        extra = ""
        if name in named:
            attribute, *fallback = named[name]
            extra = f", named={py_name(spelled[attribute])}"
            if fallback:
                source = f"getattr({py_name(fallback[0])}, 'dtype', None)"
        out.append(f"{py_name(name)}_out = _ew.output_dtype({dtype_keyword}, {source}, {allowed!r}, {name!r}{extra})")
    return tuple(out)


def kernel_imports_of(v: OpVersion) -> dict[str, tuple[str, str, str]]:
    assert v.kernel is not None  # asked only for ops with a kernel function
    module, function = kernel_function(v.kernel)
    return {v.kernel: (module, function, function)}


def _formula_view(v: OpVersion, params: str, convert: list[str], validate_inputs: str, attributes: str,
                  free: list[tuple[str, str, tuple[Any, ...]]], validate_outputs: str, first_input: str) -> KernelView:
    ew = v.elementwise
    assert ew is not None  # called for element-wise ops only
    if ew.fold is not None:
        body = _fold_body(v)
        return KernelView(params, convert, validate_inputs, attributes, free, validate_outputs, first_input, body,
                          _fold_doc(v))
    inputs = list(v.inputs)
    rename = {p.name: py_name(p.name) + "_" for p in inputs}
    scalar_attrs = [a for a in v.attributes if a.type in ("int", "float", "bool", "string", "enum")]
    rename.update({a.name: py_name(a.name) for a in scalar_attrs})
    out = next(p for p in v.outputs if p.name == ew.output)
    # The compute type follows the input whose type the output has (Where's X, not its boolean condition).
    first = py_name(v.formula_input().name)
    if out.is_fixed:
        out_dtype = f"_ew.numpy_dtype({tensor_elem(out.type)!r})"
    elif out in v.free_outputs():
        out_dtype = f"{py_name(out.name)}_out"
    else:
        out_dtype = f"{py_name(next(p for p in inputs if p.type == out.type).name)}.dtype"
    body = []
    if ew.types:
        covered = tuple(tensor_elem(t) for t in ew.types)
        refusal = f"f'{v.key} has no formula for {{_ew.elem({first}.dtype)}} (see its notes)'"
        body += [f"if _ew.elem({first}.dtype) not in {covered!r}:", f"    raise NotImplementedError({refusal})"]
    absent = dict(ew.absent)  # an absent optional input or attribute: an extreme value of the input's type
    body += [f"{py_name(a.name)} = float({py_name(a.name)})" for a in scalar_attrs
             if a.type == "float" and a.name not in absent]
    body.append(f"compute = _ew.compute_dtype_for({out_dtype}, {first}.dtype)")

    def limit(name: str) -> str:
        return f"_ew.type_limit({first}.dtype, compute, {absent[name]!r})"

    body += [f"{py_name(a.name)} = {limit(a.name)} if {py_name(a.name)} is None else "
             f"{'float' if a.type == 'float' else 'int'}({py_name(a.name)})" for a in scalar_attrs if a.name in absent]
    body += [f"{rename[p.name]} = {limit(p.name) if p.name in absent else 'None'} if {py_name(p.name)} is None "
             f"else {py_name(p.name)}.astype(compute, copy=False)"
             if p.option == "optional" else f"{rename[p.name]} = {py_name(p.name)}.astype(compute, copy=False)"
             for p in inputs]
    if ew.broadcast in _ALIGN:
        rule = v.broadcast_rule()
        assert rule is not None, "check.py requires the broadcast rule"
        args = dict(rule.args)
        body.append(_ALIGN[ew.broadcast].format(s=rename[args["source"]], t=py_name(args["target"])))
    elif ew.broadcast == "xla":
        lhs, rhs = (rename[p.name] for p in inputs[:2])
        body.append(f"{lhs}, {rhs} = _ew.align_xla({lhs}, {rhs}, broadcast_dimensions)")
    body += ['with np.errstate(all="ignore"):',
             f"    result = {formula.formula_to_numpy(ew.formula, rename)}",
             f"return (_ew.finish(result, {out_dtype}),)"]
    return KernelView(params, convert, validate_inputs, attributes, free, validate_outputs, first_input, body,
                      expr.canonical(ew.formula))  # re-emitted from the tree: spec text never reaches code


def _fold_doc(v: OpVersion) -> str:
    """What a fold kernel computes, re-emitted from the parsed formulas (spec text never reaches code)."""
    ew = v.elementwise
    assert ew is not None and ew.fold is not None
    doc = f"acc = {ew.fold}[0], then acc = {expr.canonical(ew.formula)} for each further tensor of {ew.fold}"
    return doc + (f"; result {expr.canonical(ew.finish)}" if ew.finish is not None else "")


def _fold_body(v: OpVersion) -> list[str]:
    """The statements of a fold kernel (elementwise.fold) after validation: the tensors of the variadic input
    (`variadic`) folded in the compute type by _ew.fold, NumPy broadcasting them (multidirectional; with
    broadcast none the validator has found them of one shape), then finish, rounded once."""
    ew = v.elementwise
    assert ew is not None and ew.fold is not None
    out = next(p for p in v.outputs if p.name == ew.output)
    if out.is_fixed:
        out_dtype = f"_ew.numpy_dtype({tensor_elem(out.type)!r})"
    elif out in v.free_outputs():
        out_dtype = f"{py_name(out.name)}_out"
    else:
        out_dtype = "variadic[0].dtype"
    body = []
    if ew.types:
        covered = tuple(tensor_elem(t) for t in ew.types)
        refusal = f"f'{v.key} has no formula for {{_ew.elem(variadic[0].dtype)}} (see its notes)'"
        body += [f"if _ew.elem(variadic[0].dtype) not in {covered!r}:", f"    raise NotImplementedError({refusal})"]
    scalar_attrs = [a for a in v.attributes if a.type in ("int", "float", "bool", "string", "enum")]
    body += [f"{py_name(a.name)} = float({py_name(a.name)})" for a in scalar_attrs if a.type == "float"]
    rename = {a.name: py_name(a.name) for a in scalar_attrs}
    rename.update({FOLD_ACCUMULATOR: FOLD_ACCUMULATOR, ew.fold: py_name(ew.fold) + "_"})
    counts = {ew.fold: "len(variadic)"}
    step = formula.formula_to_numpy(ew.formula, rename, counts)
    body += [f"compute = _ew.compute_dtype_for({out_dtype}, variadic[0].dtype)",
             'with np.errstate(all="ignore"):',
             f"    {FOLD_ACCUMULATOR} = _ew.fold(variadic, compute, lambda {FOLD_ACCUMULATOR}, {rename[ew.fold]}: {step})",
             f"    result = {formula.formula_to_numpy(ew.finish_formula(), rename, counts)}",
             f"    return (_ew.finish(result, {out_dtype}),)"]  # the rounding may overflow to inf (float16)
    return body


def render_op(op: OpSpec, float32_attributes: bool = False) -> bytes:
    """The op's module; `float32_attributes`: its domain's Domain.float_attributes is float32."""
    imports = kernel_imports(op)
    versions = [
        dict(v=v, sig=signature_literal(v), checks=checks(v), rules=rule_calls(v), shapes=output_shapes(v),
             kernel=_with_docstring(v, kernel_view(v, imports, float32_attributes)))
        for v in op.versions
    ]
    return render_python("python/op_module.py.j2", op=op, versions=versions, imports=import_view(op, versions, imports),
                         header=file_header(f"{op.domain}/{op.name}.yaml"))


OP_TEMPLATES = ("python/op_module.py.j2",)  # what op_files renders (compiled before a build forks)


def op_files(op: OpSpec, domain: Domain) -> dict[str, bytes]:
    return {f"{PACKAGE}/{domain.name}/{module_name(op.name)}.py":
            render_op(op, domain.float_attributes == "float32")}


def shared_units(specs: SpecSet) -> list[SharedUnit]:
    """The package and domain `__init__` modules (the registry of every op) and the package's py.typed;
    each is a function of the names and versions it lists."""
    units = []
    entries = []
    for domain in specs.domains:
        modules = [module_name(o.name) for o in domain.ops]
        units.append(SharedUnit(f"python-domain-{domain.name}", None, (domain.name, modules),
                                partial(_domain_init, domain, modules)))
        for op in domain.ops:
            entries.append(dict(domain=domain.name, op=op.name, onnx_domain=op.onnx_domain, module=f"opgen_ops.{domain.name}.{module_name(op.name)}",
                                versions=tuple(since for since, _ in _version_kernels(op)),
                                kernels=tuple(since for since, kernel in _version_kernels(op) if kernel)))
    domains = tuple(d.name for d in specs.domains)
    units.append(SharedUnit("python-package", None, (entries, domains), lambda: _package_files(entries, domains)))
    return units


def _version_kernels(op: OpSpec) -> tuple[tuple[int, bool], ...]:
    """(since_version, has a kernel) of each version, newest first. An op a build answers from its cache
    (opgen.build_cache.LazyOp) carries them in its summary: the registry's fingerprint then unpickles no op."""
    known: tuple[tuple[int, bool], ...] | None = getattr(op, "version_kernels", None)
    return known if known is not None else tuple((v.since_version, v.has_kernel) for v in op.versions)


def _domain_init(domain: Domain, modules: list[str]) -> dict[str, bytes]:
    return {f"{PACKAGE}/{domain.name}/__init__.py": render_python("python/domain_init.py.j2", domain=domain,
                                                                  modules=modules)}


def _package_files(entries: list[dict[str, Any]], domains: tuple[str, ...]) -> dict[str, bytes]:
    return {f"{PACKAGE}/__init__.py": render_python("python/package_init.py.j2", entries=entries, domains=domains),
            # PEP 561: the generated kernels and validators carry type hints; the marker lets type checkers of
            # the projects that install opgen_ops use them.
            f"{PACKAGE}/py.typed": b""}
