"""Which op versions have which kernels: said by `opgen build`, so a missing kernel shows up when
the spec is written, not when `get_kernel` raises NotImplementedError in a user's program."""
from __future__ import annotations

from dataclasses import dataclass, field

from .dtypes import tensor_elem
from .model import OpSpec, SpecSet


@dataclass
class Coverage:
    versions: int = 0
    no_kernel: list[str] = field(default_factory=list)  # no NumPy kernel at all
    c_stub_only: list[str] = field(default_factory=list)  # no typed C kernel (a stub returning NOT_IMPLEMENTED)
    c_partial: dict[str, list[str]] = field(default_factory=dict)  # typed C kernels for some allowed types only

    def summary(self) -> str:
        partial = [f"{key} lacks {', '.join(types)}" for key, types in sorted(self.c_partial.items())]
        lines = [f"kernels: {self.versions - len(self.no_kernel)} of {self.versions} op versions have a NumPy kernel"
                 + (f" (none: {_some(self.no_kernel)})" if self.no_kernel else ""),
                 f"C: {self.versions - len(self.c_stub_only)} have typed C kernels, {len(self.c_stub_only)} a stub "
                 "that returns OPGEN_ERR_NOT_IMPLEMENTED (`opgen list --kernels` lists them)"
                 + (f"; for some element types only: {_some(partial, sep='; ')}" if partial else "")]
        return "\n".join(lines)


def _some(items: list[str], shown: int = 8, sep: str = ", ") -> str:
    """A few items, and how many more: a build's summary stays a few lines at any op count."""
    more = len(items) - shown
    return sep.join(items[:shown]) + (f"{sep}and {more} more" if more > 0 else "")


def kernel_coverage(specs: SpecSet) -> Coverage:
    return coverage_of([row for op in specs.ops() for row in op_coverage(op)])


# One row per op version: (version key, has a NumPy kernel, has typed C kernels, allowed types lacking one).
CoverageRow = tuple[str, bool, bool, list[str]]


def op_coverage(op: OpSpec) -> list[CoverageRow]:
    """The coverage rows of one op (a build remembers them per op, so an edit computes only its op's)."""
    from .render.c_code import type_plan
    from .render.c_structured import structured_types

    rows: list[CoverageRow] = []
    for v in op.versions:
        plan = type_plan(v) if v.elementwise is not None and all(p.option == "single" for p in v.inputs) else []
        covered = {elem_in.name for elem_in, _, _ in plan} or set(structured_types(v))
        missing: list[str] = []
        if covered:
            allowed = [tensor_elem(t) or t for t in v.allowed_types(v.inputs[0])]
            missing = [t for t in allowed if t not in covered]
        rows.append((v.key, v.has_kernel, bool(covered), missing))
    return rows


def coverage_of(rows: list[CoverageRow]) -> Coverage:
    result = Coverage()
    for key, has_kernel, has_c, missing in rows:
        result.versions += 1
        if not has_kernel:
            result.no_kernel.append(key)
        if not has_c:
            result.c_stub_only.append(key)
        elif missing:
            result.c_partial[key] = missing
    return result
