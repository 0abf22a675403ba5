"""Python output: one module per op (validators and NumPy kernels for each version) and the
`opgen_ops` package with its registry."""
from __future__ import annotations

import keyword
from dataclasses import dataclass

from .. import expr
from ..dtypes import tensor_elem
from ..model import OpSpec, OpVersion, SpecSet
from .common import HEADER, module_name, render as render_template

PACKAGE = "python/opgen_ops"


@dataclass(frozen=True)
class KernelView:
    """What the template needs to write one element-wise NumPy kernel."""

    args: list[str]  # positional input names (Python identifiers)
    keywords: list[tuple[str, str]]  # (name, default literal) of attributes
    float_attrs: list[str]
    prepare: list[str]  # statements before evaluation
    expression: str
    output: str
    out_dtype: str  # expression giving the output dtype


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


def kernel_view(v: OpVersion) -> KernelView | None:
    ew = v.elementwise
    if ew is None:
        return None
    inputs = [p for p in v.inputs]
    rename = {p.name: py_name(p.name) + "_" for p in inputs}
    scalar_attrs = [a for a in v.attributes if a.type in ("int", "float", "bool", "string")]
    rename.update({a.name: py_name(a.name) for a in scalar_attrs})
    prepare = [f"{rename[p.name]} = {py_name(p.name)}.astype(compute, copy=False)" for p in inputs]
    if ew.broadcast in _ALIGN:
        source = next(c for c in v.constraints if c.rule)
        args = dict(source.args)
        prepare.append(_ALIGN[ew.broadcast].format(s=rename[args["source"]], t=py_name(args["target"])))
    out = next(p for p in v.outputs if p.name == ew.output)
    if out.is_fixed:
        out_dtype = f"_ew.numpy_dtype({tensor_elem(out.type)!r})"
    else:
        bound = next(p for p in inputs if p.type == out.type)
        out_dtype = f"{py_name(bound.name)}.dtype"
    return KernelView(
        args=[py_name(p.name) for p in inputs],
        keywords=[(py_name(a.name), repr(a.default) if a.has_default else "None") for a in scalar_attrs],
        float_attrs=[py_name(a.name) for a in scalar_attrs if a.type == "float"],
        prepare=prepare,
        expression=expr.formula_to_numpy(ew.formula, rename),
        output=py_name(out.name),
        out_dtype=out_dtype,
    )


def _compute_source(v: OpVersion) -> str:
    """The input whose dtype decides the compute dtype (the first one)."""
    return py_name(v.inputs[0].name)


def render_op(op: OpSpec) -> bytes:
    versions = [
        dict(v=v, sig=signature_literal(v), checks=checks(v), rules=rule_calls(v), kernel=kernel_view(v),
             compute_from=_compute_source(v) if v.inputs else None, inputs=[py_name(p.name) for p in v.inputs])
        for v in op.versions
    ]
    return render_template("python/op_module.py.j2", op=op, versions=versions,
                  header=HEADER.format(source=f"{op.domain}/{op.name}.yaml"))


def render(specs: SpecSet) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    entries = []
    for domain in specs.domains:
        files[f"{PACKAGE}/{domain.name}/__init__.py"] = render_template(
            "python/domain_init.py.j2", domain=domain, modules=[module_name(o.name) for o in domain.ops])
        for op in domain.ops:
            files[f"{PACKAGE}/{domain.name}/{module_name(op.name)}.py"] = render_op(op)
            entries.append(dict(domain=domain.name, op=op.name, module=f"opgen_ops.{domain.name}.{module_name(op.name)}",
                                versions=tuple(v.since_version for v in op.versions),
                                kernels=tuple(v.since_version for v in op.versions if v.elementwise is not None)))
    files[f"{PACKAGE}/__init__.py"] = render_template("python/package_init.py.j2", entries=entries,
                                                      domains=tuple(d.name for d in specs.domains))
    return files
