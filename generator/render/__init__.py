"""Renderers: typed model -> {relative path: bytes}. Each renderer owns one kind of output and
splits it in two: the files of one op (which depend on that op and its domain only) and the
shared files that list several ops (registries, indexes, errata). The split is what lets
`opgen build` re-render only the ops whose specs changed.

The shared files come in units (SharedUnit), each saying what it depends on besides the generator
and its templates (the environment): nothing else, one domain's spec files, or a small fingerprint
of the specs (names, versions) that determines it completely. `opgen build` reuses a unit's files
when that dependency is what it was at the build that wrote them."""
from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Callable, NamedTuple

from ..errors import OpgenError

if TYPE_CHECKING:  # the model is not imported at run time here: `opgen build`'s no-op path uses
    from ..model import Domain, OpSpec, SpecSet  # opgen.render.manifest and must stay light

SHARED = "*"  # the owner recorded in the manifest for files that list several ops


def _renderers() -> tuple[ModuleType, ...]:
    from . import c_code, docs, python_ops, tests

    return (python_ops, c_code, docs, tests)


def op_templates() -> list[str]:
    """The templates the files of one op are rendered from (each renderer's OP_TEMPLATES)."""
    return [name for renderer in _renderers() for name in renderer.OP_TEMPLATES]


def full_op(op: OpSpec) -> OpSpec:
    """The op as a plain OpSpec: an op `opgen build` answered from its cache (opgen.build_cache.LazyOp)
    is unpickled, so that rendering reads its attributes directly rather than through the proxy."""
    full: Callable[[], OpSpec] | None = getattr(op, "full", None)
    return full() if full is not None else op


def render_op(op: OpSpec, domain: Domain) -> dict[str, bytes]:
    """Every file of one op, from every renderer."""
    op = full_op(op)
    files: dict[str, bytes] = {}
    for renderer in _renderers():
        try:
            files.update(renderer.op_files(op, domain))
        except Exception as exc:  # name the op: a renderer bug must not surface as a bare KeyError
            raise RenderError(f"{op.location.file}: {op.key}: rendering {renderer.__name__.rsplit('.', 1)[-1]} "
                              f"failed: {type(exc).__name__}: {exc}") from exc
    return files


class SharedUnit(NamedTuple):
    """Shared files rendered together, and what their bytes are a function of.

    `domain`: the name of the domain whose spec files (domain.yaml and every op file) the files depend
    on, or None when they depend on no spec file as such. `fingerprint`: a value (with a deterministic
    repr) that, with the environment and that domain's spec files, determines the files completely;
    computing it must cost far less than rendering."""

    name: str  # unique among the units of a build
    domain: str | None
    fingerprint: object
    render: Callable[[], dict[str, bytes]]


def shared_units(specs: SpecSet) -> list[SharedUnit]:
    units: list[SharedUnit] = []
    for renderer in _renderers():
        units += renderer.shared_units(specs)
    return units


def render_shared(specs: SpecSet) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for unit in shared_units(specs):
        files.update(unit.render())
    return files


def render_all(specs: SpecSet) -> dict[str, bytes]:
    files = render_shared(specs)
    for domain in specs.domains:
        for op in domain.ops:
            files.update(render_op(op, domain))
    return files


class RenderError(OpgenError, RuntimeError):
    """A renderer failed on an op that passed every check: an opgen bug, reported with the op."""
