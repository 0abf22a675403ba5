"""What a generated op module imports: the kernel functions its versions call (each under a local name
that shadows nothing of the module) and the runtime helpers its code uses."""
from __future__ import annotations

import builtins
import keyword
import re
from typing import TYPE_CHECKING, Any

from ..model import OpSpec
from .python_kernel_text import attribute_keywords, py_name

if TYPE_CHECKING:
    from .python_ops import KernelView

_KERNEL_NAME = re.compile(r"([a-z_][a-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)")


def kernel_function(name: str) -> tuple[str, str]:
    """(module, function) of a spec's `kernel.function` (`<module>.<function>` of opgen.runtime.kernels).
    The spec checker has resolved the name to a function of that package (kernels.signature_problems, the
    checks kernels.call made at run time before); here it must also be a plain dotted pair of identifiers,
    since it is written into an import statement of the generated module."""
    match = _KERNEL_NAME.fullmatch(name)
    if not match or any(keyword.iskeyword(part) for part in match.groups()):
        raise ValueError(f"kernel function {name!r} is not <module>.<function> of opgen.runtime.kernels")
    return match.group(1), match.group(2)


def _module_names(op: OpSpec) -> set[str]:
    """Names a kernel import must not take: the module's own, the runtime's it imports, the kernels'
    parameters and locals, and the builtins (a check may use them)."""
    names = {"OP", "VALIDATORS", "SIGNATURES", "KERNELS", "np", "_ew", "_validate", "annotations", "AttrSig",
             "Check", "ParamSig", "RuleCall", "OutputShape", "Signature", "ValidationError", "as_input", "as_outputs",
             "split_variadic",
             "variadic", "problems", "compute", "result", "requested_outputs"}
    names |= set(dir(builtins)) | set(keyword.kwlist)
    for v in op.versions:
        names |= {f"SIGNATURE_V{v.since_version}", f"validate_v{v.since_version}", f"kernel_v{v.since_version}"}
        for n in [p.name for p in v.inputs] + [p.name for p in v.outputs] + [a.name for a in v.attributes] \
                + list(attribute_keywords(v).values()):
            names |= {n, py_name(n), py_name(n) + "_", f"{py_name(n)}_out", f"{py_name(n)}_dtype",
                      f"{py_name(n)}_shape", f"{py_name(n)}_count"}
    return names


def kernel_imports(op: OpSpec) -> dict[str, tuple[str, str, str]]:
    """For each kernel function the op's versions call: (module, function, local name). The local name is
    the function's own, or `<module>_<function>` where that would shadow another name of the module."""
    taken = _module_names(op)
    imports: dict[str, tuple[str, str, str]] = {}
    for v in op.versions:
        if v.kernel is None or v.kernel in imports:
            continue
        module, function = kernel_function(v.kernel)
        local = function
        while local in taken:
            local = f"{module}_{function}" if local == function else local + "_"
        taken.add(local)
        imports[v.kernel] = (module, function, local)
    return imports


def _uses(kernels: list[KernelView], name: str) -> bool:
    """Whether the kernels' code refers to `name.` (np, _ew): the module imports only what it uses."""
    pattern = re.compile(rf"(?<![\w.]){re.escape(name)}\.")
    texts = [t for k in kernels for t in [k.params, k.validate_inputs, k.attributes, k.validate_outputs,
                                          k.first_input, *k.convert, *k.body]]
    return any(pattern.search(t) for t in texts)


def import_view(op: OpSpec, versions: list[dict[str, Any]], imports: dict[str, tuple[str, str, str]]) -> dict[str, Any]:
    """The imports of the op's module, each only where the module uses it."""
    kernels = [item["kernel"] for item in versions if item["kernel"]]
    used = {"Signature": True, "AttrSig": any(item["v"].attributes for item in versions),
            "Check": any(item["checks"] for item in versions), "RuleCall": any(item["rules"] for item in versions),
            "OutputShape": any(item["shapes"] for item in versions),
            "ParamSig": any(item["v"].inputs or item["v"].outputs for item in versions),
            "ValidationError": bool(kernels)}
    validation = sorted(name for name, needed in used.items() if needed)
    helpers = [name for name in ("as_input", "as_outputs", "split_variadic")
               if any(name + "(" in line for k in kernels for line in [*k.convert, *k.body])]
    plain: dict[str, list[str]] = {}
    aliased = []
    for module, function, local in imports.values():
        if local == function:
            plain.setdefault(module, []).append(function)
        else:
            aliased.append((module, f"{function} as {local}"))
    functions = sorted([(module, ", ".join(sorted(names))) for module, names in plain.items()] + aliased)
    return dict(numpy=_uses(kernels, "np"), elementwise=_uses(kernels, "_ew"), validation=validation,
                kernel_helpers=helpers, kernel_functions=functions)
