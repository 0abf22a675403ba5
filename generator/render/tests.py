"""Generated pytest modules: one per op version, data only; the assertions live in opgen.testing."""
from __future__ import annotations

from typing import Any

from ..dtypes import ELEM_TYPES, tensor_elem, type_key
from ..model import Domain, OpSpec, OpVersion, SpecSet, plain_value
from . import SharedUnit
from .common import header as file_header, module_name, render_python


def bindings(v: OpVersion) -> tuple[dict[str, str], list[dict[str, str]]]:
    """A base binding (first allowed type of each variable) and one binding per allowed type."""
    allowed = {tc.name: [type_key(t) for t in tc.types] for tc in v.type_constraints}
    base = {name: types[0] for name, types in allowed.items()}
    out = [base]
    for name, types in allowed.items():
        out += [{**base, name: t} for t in types[1:]]
    return base, out


def rejected_dtype(v: OpVersion) -> dict[str, Any] | None:
    """An input and a dtype its type constraint does not allow."""
    for p in v.inputs:
        allowed = {type_key(t) for t in v.allowed_types(p)}
        for elem in ELEM_TYPES:
            if elem not in allowed:
                return dict(param=p.name, dtype=elem)
    return None


def render_version(v: OpVersion) -> bytes:
    base, all_bindings = bindings(v)
    examples = {e.name: dict(dtype=e.dtype, dtypes=dict(e.dtypes), inputs={k: plain_value(x) for k, x in e.inputs},
                             outputs={k: plain_value(x) for k, x in e.outputs},
                             attributes={k: plain_value(x) for k, x in e.attributes}) for e in v.examples}
    first = v.inputs[0] if v.inputs else None
    kernel_dtypes = [tensor_elem(t) for t in v.allowed_types(first)] if first else []
    output_dtypes = [tensor_elem(p.type) if p.is_fixed else None for p in v.outputs]
    return render_python(
        "tests/test_op.py.j2", v=v, header=file_header(f"{v.domain}/{v.op}.yaml"),
        module=f"opgen_ops.{v.domain}.{module_name(v.op)}", base=base, bindings=all_bindings,
        rejected=rejected_dtype(v), required_attributes=[a.name for a in v.attributes if a.required],
        has_required_input=any(p.option == "single" for p in v.inputs), has_kernel=v.has_kernel, has_formula=v.elementwise is not None,
        free_outputs=tuple(p.name for p in v.free_outputs()), shape_from_node=tuple(v.shape_from_node),
        count_from_node=tuple(v.count_from_node),
        input_names=[p.name for p in v.inputs], examples=examples, first_example=v.examples[0].name if v.examples else "",
        kernel_dtypes=kernel_dtypes, output_dtypes=output_dtypes)


OP_TEMPLATES = ("tests/test_op.py.j2",)  # what op_files renders (compiled before a build forks)


def op_files(op: OpSpec, domain: Domain) -> dict[str, bytes]:
    return {f"tests/{op.domain}/test_{module_name(op.name)}_v{v.since_version}.py": render_version(v)
            for v in op.versions}


def shared_units(specs: SpecSet) -> list[SharedUnit]:
    return []
