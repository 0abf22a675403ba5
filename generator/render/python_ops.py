"""Python output: one module per op (validators and NumPy kernels for each version) and the
`opgen_ops` package with its registry."""
from __future__ import annotations

import keyword
from dataclasses import dataclass

from .. import expr
from ..dtypes import tensor_elem
from ..model import Domain, OpSpec, OpVersion, SpecSet
from .common import HEADER, module_name, render as render_template

PACKAGE = "python/opgen_ops"


@dataclass(frozen=True)
class KernelView:
    """What the template needs to write one NumPy kernel (a formula, or a call of a runtime kernel)."""

    params: str  # the Python parameter list
    convert: list[str]  # statements turning arguments into arrays
    validate_inputs: str  # expression: the tuple of inputs given to the validator
    attributes: str  # expression: the dict of attributes (defaults applied by the signature)
    free_outputs: list[tuple[str, str, tuple]]  # (output name, dtype keyword, allowed element types)
    validate_outputs: str  # expression: the outputs given to the validator ("None" when none is known)
    first_input: str
    body: list[str]  # statements after validation
    doc: str  # what the kernel computes, for its docstring (emitted as a Python string literal)


def py_name(name: str) -> str:
    return name + "_" if keyword.iskeyword(name) else name


def signature_literal(v: OpVersion) -> dict:
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
        "type_constraints": {tc.name: tuple(tensor_elem(t) for t in tc.types) for tc in v.type_constraints},
    }


def checks(v: OpVersion) -> list[dict]:
    return [dict(id=c.id, test=expr.check_to_python(c.check),
                 when=expr.check_to_python(c.when) if c.when else None,
                 message=c.description.get("en"))
            for c in v.constraints if c.check]


def rule_calls(v: OpVersion) -> list[dict]:
    return [dict(id=c.id, rule=c.rule, args={k: list(a) if isinstance(a, tuple) else a for k, a in c.args},
                 message=c.description.get("en"))
            for c in v.constraints if c.rule]


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
    convert = [f"{py_name(p.name)} = None if {py_name(p.name)} is None else np.asarray({py_name(p.name)})"
               if p.option == "optional" else f"{py_name(p.name)} = np.asarray({py_name(p.name)})" for p in singles]
    names = [py_name(p.name) for p in singles]
    if variadics:
        params.append("*variadic")
        convert.append("variadic = [np.asarray(x) for x in variadic]")
        validate_inputs = _tuple_display(names + ["*variadic"])
    else:
        validate_inputs = _tuple_display(names)
    keywords = [f"{py_name(a.name)}={repr(a.default) if a.has_default else 'None'}" if not a.required
                else py_name(a.name) for a in v.attributes]
    keywords += [f"{py_name(p.name)}_dtype=None" for p in v.free_outputs()]
    keywords += [f"{py_name(name)}_shape" for name in v.shape_from_node]
    if keywords:
        if not variadics:  # after *variadic every parameter is keyword-only already
            params.append("*")
        params += keywords
    return ", ".join(params), convert, validate_inputs


def kernel_view(v: OpVersion) -> KernelView | None:
    if not v.has_kernel:
        return None
    params, convert, validate_inputs = _signature_parts(v)
    attributes = "{" + ", ".join(f"{a.name!r}: {py_name(a.name)}" for a in v.attributes) + "}"
    free = [(p.name, f"{py_name(p.name)}_dtype", tuple(tensor_elem(t) for t in v.allowed_types(p)))
            for p in v.free_outputs()]
    free_names = {p.name for p in v.free_outputs()}

    def output_info(p) -> str:
        dtype = f"_ew.elem({py_name(p.name)}_out)" if p.name in free_names else "None"
        shape = f"tuple({py_name(p.name)}_shape)" if p.name in v.shape_from_node else "None"
        return f"({dtype}, {shape})"  # (None, None): an output given, of a dtype and shape not known here

    validate_outputs = "None" if not (free or v.shape_from_node) else \
        "[" + ", ".join(output_info(p) for p in v.outputs) + "]"
    if not v.inputs:
        first_input = "None"
    elif v.inputs[0].option != "variadic":
        first_input = py_name(v.inputs[0].name) + ".dtype"
    else:
        first_input = "(variadic[0].dtype if variadic else None)"
    if v.kernel is not None:
        singles = [py_name(p.name) for p in v.inputs if p.option != "variadic"]
        n_var = sum(1 for p in v.inputs if p.option == "variadic")
        parts = singles + ([f"*_kernels.split_variadic(variadic, 0, {n_var})"] if n_var else [])
        args = _tuple_display(parts)
        kwargs = "{" + ", ".join([f"{a.name!r}: {py_name(a.name)}" for a in v.attributes] +
                                 [f"{kw!r}: {py_name(name)}_out" for name, kw, _ in free] +
                                 [f"'{name}_shape': tuple({py_name(name)}_shape)" for name in v.shape_from_node]) + "}"
        body = [f"return _kernels.call({v.kernel!r}, {args}, {kwargs})"]
        return KernelView(params, convert, validate_inputs, attributes, free, validate_outputs, first_input, body,
                          f"calls opgen.runtime.kernels.{v.kernel}")
    return _formula_view(v, params, convert, validate_inputs, attributes, free, validate_outputs, first_input)


def _formula_view(v: OpVersion, params, convert, validate_inputs, attributes, free, validate_outputs,
                  first_input) -> KernelView:
    ew = v.elementwise
    inputs = list(v.inputs)
    rename = {p.name: py_name(p.name) + "_" for p in inputs}
    scalar_attrs = [a for a in v.attributes if a.type in ("int", "float", "bool", "string")]
    rename.update({a.name: py_name(a.name) for a in scalar_attrs})
    first = py_name(inputs[0].name)
    out = next(p for p in v.outputs if p.name == ew.output)
    if out.is_fixed:
        out_dtype = f"_ew.numpy_dtype({tensor_elem(out.type)!r})"
    elif out in v.free_outputs():
        out_dtype = f"{py_name(out.name)}_out"
    else:
        out_dtype = f"{py_name(next(p for p in inputs if p.type == out.type).name)}.dtype"
    body = [f"{py_name(a.name)} = float({py_name(a.name)})" for a in scalar_attrs if a.type == "float"]
    body.append(f"compute = _ew.compute_dtype_for({out_dtype}, {first}.dtype)")
    body += [f"{rename[p.name]} = None if {py_name(p.name)} is None else {py_name(p.name)}.astype(compute, copy=False)"
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
             f"    result = {expr.formula_to_numpy(ew.formula, rename)}",
             f"return (_ew.finish(result, {out_dtype}),)"]
    return KernelView(params, convert, validate_inputs, attributes, free, validate_outputs, first_input, body,
                      expr.canonical(ew.formula))  # re-emitted from the tree: spec text never reaches code


def render_op(op: OpSpec) -> bytes:
    versions = [
        dict(v=v, sig=signature_literal(v), checks=checks(v), rules=rule_calls(v), kernel=kernel_view(v))
        for v in op.versions
    ]
    return render_template("python/op_module.py.j2", op=op, versions=versions,
                  header=HEADER.format(source=f"{op.domain}/{op.name}.yaml"))


def op_files(op: OpSpec, domain: Domain) -> dict[str, bytes]:
    return {f"{PACKAGE}/{domain.name}/{module_name(op.name)}.py": render_op(op)}


def shared_files(specs: SpecSet) -> dict[str, bytes]:
    """The package and domain `__init__` modules (the registry of every op)."""
    files: dict[str, bytes] = {}
    entries = []
    for domain in specs.domains:
        files[f"{PACKAGE}/{domain.name}/__init__.py"] = render_template(
            "python/domain_init.py.j2", domain=domain, modules=[module_name(o.name) for o in domain.ops])
        for op in domain.ops:
            entries.append(dict(domain=domain.name, op=op.name, module=f"opgen_ops.{domain.name}.{module_name(op.name)}",
                                versions=tuple(v.since_version for v in op.versions),
                                kernels=tuple(v.since_version for v in op.versions if v.has_kernel)))
    files[f"{PACKAGE}/__init__.py"] = render_template("python/package_init.py.j2", entries=entries,
                                                      domains=tuple(d.name for d in specs.domains))
    return files
