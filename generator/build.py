"""`opgen build`: specs -> generated files, doing only the work the change since the last build needs.

The manifest records a digest of every input that shapes the output (each spec file, the
templates, the generator's own source) and of every file written, with the op that owns it.
- Nothing changed and every output still matches its digest: nothing else is done (the fast
  path imports neither the parser nor the renderers).
- Otherwise the specs are loaded (unchanged op files answered from a per-user cache of parsed,
  checked ops: opgen.build_cache), the ops whose inputs changed are re-rendered, so are the units of
  shared files (opgen.render.SharedUnit) whose inputs changed, and the writer brings the folder in
  line. Many ops to parse or render (a full build) are spread over the cores (opgen.build_parallel).
- `--check` never trusts the manifest or the cache: it loads and renders everything and compares.
"""
from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .build_stamp import Recorder, tree_files
from .cache import StatCache
from .files import read_regular
from .paths import PACKAGE_DIR, SCHEMA_DIR_NAME, TEMPLATES, schema_dir
from .render import manifest as mf

if TYPE_CHECKING:
    from .build_cache import SharedMemo
    from .errors import SpecError
    from .model import Domain, OpSpec, SpecSet
    from .render.writer import Kept, Outcome

CACHE_FORMAT = 1


@dataclass(frozen=True)
class Inputs:
    """Digests of everything the output depends on."""

    specs: dict[str, str]  # path relative to the specs folder -> sha256
    environment: str  # the generator's source, the templates, the schemas and the source documents
    total: str


def _tree_digests(folder: Path, suffix: str = "", stats: StatCache | None = None,
                  recorder: Recorder | None = None) -> dict[str, str]:
    """sha256 of every file below `folder` (names ending in `suffix`, opgen.build_stamp.tree_files), by
    relative POSIX path. Files whose status `stats` remembers are not read; `recorder` notes each status."""
    top = str(folder)
    names = tree_files(top, suffix)
    out = {}
    seen = []
    for rel in names:
        sha, st = _file_digest(os.path.join(top, rel), stats)
        out[rel] = sha
        seen.append(st)
    if recorder is not None:
        recorder.input_tree(top, suffix, names, seen)
    return out


def _file_digest(path: str, stats: StatCache | None) -> tuple[str, os.stat_result]:
    """The file's digest, and its status taken before it was read."""
    st = os.stat(path)
    sha = stats.known(path, st) if stats is not None else None
    if sha is None:
        sha = mf.digest(read_regular(path))  # a named pipe among the specs is refused, not waited on
        if stats is not None:
            stats.remember(path, st, sha)
    return sha, st


def _combine(*parts: Any) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def gather_inputs(specs_dir: Path, stats: StatCache | None = None, recorder: Recorder | None = None) -> Inputs:
    specs = _tree_digests(specs_dir, stats=stats, recorder=recorder)
    shared = {k: v for k, v in specs.items() if k.split("/", 1)[0] in ("schema", "sources")}
    if not any(k.startswith(f"{SCHEMA_DIR_NAME}/") for k in shared):
        # No schema/ of its own: the specs are checked against (and the guide describes) opgen's bundled
        # schemas, which are then inputs too.
        shared.update({f"{SCHEMA_DIR_NAME}/{k}": v
                       for k, v in _tree_digests(schema_dir(specs_dir), ".json", stats, recorder).items()})
    environment = _combine(CACHE_FORMAT, sorted(_tree_digests(PACKAGE_DIR, ".py", stats, recorder).items()),
                           sorted(_tree_digests(TEMPLATES, "", stats, recorder).items()), sorted(shared.items()))
    return Inputs(specs, environment, _combine(environment, sorted(specs.items())))


def outputs_intact(out_dir: Path, previous: mf.Manifest, paths: Any = None, stats: StatCache | None = None,
                   recorder: Recorder | None = None) -> bool:
    """Every recorded output (or those in `paths`) is a regular file holding the bytes recorded for
    it (read without following a symbolic link; a file whose status `stats` remembers with the
    recorded digest is not read again). `recorder` notes the status of each file found intact."""
    top = str(out_dir)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    for rel in previous.files if paths is None else paths:
        sha = previous.single_digest(rel)
        if sha is None:
            return False
        path = f"{top}/{rel}"  # rel is a plain relative POSIX path (manifest.safe_relpath)
        if stats is not None:
            try:
                st = os.lstat(path)
            except OSError:
                return False
            if not stat.S_ISREG(st.st_mode):
                return False
            if stats.known(path, st) == sha:
                if recorder is not None:
                    recorder.output(rel, st)
                continue
        try:
            fd = os.open(path, flags)
        except OSError:
            return False
        try:
            with os.fdopen(fd, "rb") as handle:
                st = os.fstat(handle.fileno())  # before reading: a later change shows in the status
                found = mf.digest(handle.read())
                if stats is not None:
                    stats.remember(path, st, found)
                if found != sha:
                    return False
                if recorder is not None:
                    recorder.output(rel, st)
        except OSError:
            return False
    return True


@dataclass
class BuildResult:
    outcome: Outcome | None = None
    errors: list[SpecError] = field(default_factory=list)
    rendered_ops: int = 0
    reused_ops: int = 0
    rendered_units: list[str] = field(default_factory=list)  # units of shared files rendered (opgen.render.SharedUnit)
    noop: bool = False
    coverage: str = ""  # which op versions lack a NumPy or C kernel (opgen.coverage)


def build_summary(result: BuildResult) -> str:
    """The line `opgen build` ends with: what was written, and how many ops were rendered."""
    assert result.outcome is not None
    ops = "nothing to do" if result.noop else f"{result.rendered_ops} op(s) rendered, {result.reused_ops} unchanged"
    return f"opgen build: {result.outcome.summary()} ({ops})"


def run(specs_dir: Path, out_dir: Path, check: bool = False) -> BuildResult:
    """Build (or with check=True compare) `out_dir` from `specs_dir`; one build per folder at a time."""
    if check:
        return _run(specs_dir, out_dir, check=True)
    from .render.writer import BuildError, build_lock

    created = not out_dir.exists()
    try:
        out_dir.mkdir(parents=True, exist_ok=True)  # the lock is taken on the folder itself
    except OSError as exc:
        raise BuildError(f"{out_dir} cannot be created: {exc.strerror or exc}") from None
    result = None
    try:
        with build_lock(out_dir):
            result = _run(specs_dir, out_dir, check=False)
    finally:
        if created and (result is None or result.outcome is None):
            with contextlib.suppress(OSError):
                out_dir.rmdir()  # specs with errors, or interrupted: leave no trace (only if still empty)
    return result


def _run(specs_dir: Path, out_dir: Path, check: bool) -> BuildResult:
    # --check trusts nothing remembered: it reads every file.
    stats = None if check else StatCache(f"stats-{_combine(str(out_dir.resolve()))[:24]}.marshal")
    # A build allocates the whole model (millions of objects, from the cache or the parser) and keeps
    # it to the end: the cycle collector would scan that growing heap again and again for nothing
    # (a third of an edit's build). Reference counting still frees everything else meanwhile.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _build(specs_dir, out_dir, check, stats)
    finally:
        if collecting:
            gc.enable()
        if stats is not None:
            stats.save()


def _build(specs_dir: Path, out_dir: Path, check: bool, stats: StatCache | None) -> BuildResult:
    recorder = None if check else Recorder()
    try:
        inputs = gather_inputs(specs_dir, stats, recorder)
    except OSError as exc:  # an input the user may not read: reported as the parser reports it
        return BuildResult(errors=[_unreadable(exc, specs_dir)])
    previous = mf.read(out_dir)
    if not check and previous.inputs == inputs.total and not previous.journal and previous.files \
            and outputs_intact(out_dir, previous, stats=stats, recorder=recorder):
        from .render.writer import Outcome

        noop = BuildResult(Outcome(unchanged=sorted([*previous.files, mf.MANIFEST])), noop=True)
        if recorder is not None:  # the next no-op may then be answered from file statuses alone
            recorder.save(str(out_dir), list(previous.files), build_summary(noop))
        return noop

    from .build_cache import ModelCache, SharedMemo
    from .parse import load_specs
    from .render.writer import Kept, sync

    cache = ModelCache(specs_dir, inputs.environment, inputs.specs, remember=not check)
    cache.prefetch(specs_dir, render_ahead=lambda rel: check or previous.ops.get(_op_key_of(rel)) != _op_input_key(
        inputs, rel, f"{rel.split('/', 1)[0]}/domain.yaml"))
    specs, errors = load_specs(specs_dir, op_loader=cache.load_op, domain_loader=cache.load_domain)
    real = [e for e in errors if e.severity == "error"]
    if real:
        return BuildResult(errors=real)
    cache.save()

    memo = None if check else SharedMemo(out_dir)
    files: dict[str, bytes | Kept] = {}
    owners: dict[str, str] = {}
    result = BuildResult(errors=errors)
    unit_names = _shared_files(specs, inputs, previous, out_dir, stats, memo, files, owners, result)
    op_keys = _op_files(specs, inputs, previous, out_dir, stats, check, files, owners, result, cache.rendered)
    record = {p: (d.digest if isinstance(d, Kept) else mf.digest(d), owners[p]) for p, d in files.items()}
    files[mf.MANIFEST] = mf.render(inputs.total, op_keys, record)
    result.outcome = sync(out_dir, files, check=check, previous=previous)
    if not check and mf.MANIFEST in result.outcome.written:
        from .build_stamp import forget

        forget(str(out_dir))  # the no-op stamp records the old manifest's status: it can never match again
    if memo is not None:
        from functools import partial

        from .coverage import coverage_of, op_coverage

        rows = [row for d in specs.domains for op in d.ops
                for row in memo.op_coverage(op_keys[op.key], partial(op_coverage, op))]
        result.coverage = coverage_of(rows).summary()
        memo.save(unit_names)
    return result


def _unreadable(exc: OSError, specs_dir: Path) -> SpecError:
    from .errors import Location, SpecError
    from .parse import display_path

    path = Path(exc.filename) if exc.filename else specs_dir
    return SpecError(Location(display_path(path, specs_dir)), f"cannot read file: {exc.strerror or exc}")


def _shared_files(specs: SpecSet, inputs: Inputs, previous: mf.Manifest, out_dir: Path, stats: StatCache | None,
                  memo: SharedMemo | None, files: dict[str, bytes | Kept], owners: dict[str, str],
                  result: BuildResult) -> set[str]:
    """The files listing several ops, unit by unit: a unit whose inputs (its key) are those of the
    build that wrote its files, still intact on disk, is kept; the others are rendered."""
    from .build_cache import combine, folder_digests
    from .render import SHARED, shared_units
    from .render.writer import Kept

    folders = {d.name: Path(d.location.file).parent.name for d in specs.domains}
    units = shared_units(specs)
    for unit in units:
        key = combine(inputs.environment, folder_digests(inputs.specs, folders.get(unit.domain or "", "")),
                      unit.domain, unit.fingerprint)
        kept = memo.reusable(unit.name, key, previous,
                             lambda paths: outputs_intact(out_dir, previous, paths, stats)) if memo else None
        if kept is not None:
            for path, sha in kept.items():
                files[path], owners[path] = Kept(sha), SHARED
            continue
        rendered = unit.render()
        result.rendered_units.append(unit.name)
        for path, data in rendered.items():
            files[path], owners[path] = data, SHARED
        if memo is not None:
            memo.record(unit.name, key, {path: mf.digest(data) for path, data in rendered.items()})
    return {u.name for u in units}


def _op_files(specs: SpecSet, inputs: Inputs, previous: mf.Manifest, out_dir: Path, stats: StatCache | None,
              check: bool, files: dict[str, bytes | Kept], owners: dict[str, str],
              result: BuildResult, rendered_ahead: dict[str, dict[str, bytes]]) -> dict[str, str]:
    """The files of each op: kept when the op's key (environment, op file, domain file) is the one the
    manifest records and its files are intact, else rendered (or taken from `rendered_ahead`, op file ->
    files, what the workers that parsed it rendered). Returns the key of every op."""
    from .build_parallel import ordered_map
    from .render.writer import Kept

    by_owner: dict[str, list[str]] = {}
    for p, owner in previous.owners.items():
        by_owner.setdefault(owner, []).append(p)
    op_keys: dict[str, str] = {}
    to_render: list[tuple[OpSpec, Domain]] = []
    for domain in specs.domains:
        domain_rel = f"{domain.name}/domain.yaml"
        for op in domain.ops:
            op_rel = f"{domain.name}/{os.path.basename(op.location.file)}"
            key = _op_input_key(inputs, op_rel, domain_rel)
            op_keys[op.key] = key
            owned = by_owner.get(op.key, [])
            if not check and previous.ops.get(op.key) == key and owned and outputs_intact(out_dir, previous, owned,
                                                                                          stats):
                for p in owned:
                    files[p], owners[p] = Kept(previous.single_digest(p) or ""), op.key
                result.reused_ops += 1
                continue
            ahead = rendered_ahead.get(op_rel)
            if ahead is not None:
                for p, data in ahead.items():
                    files[p], owners[p] = data, op.key
                result.rendered_ops += 1
                continue
            to_render.append((op, domain))
    for (op, _), rendered in zip(to_render, ordered_map(_render_op, to_render)):
        for p, data in rendered.items():
            files[p], owners[p] = data, op.key
    result.rendered_ops += len(to_render)
    return op_keys


def _op_input_key(inputs: Inputs, op_rel: str, domain_rel: str) -> str:
    """What an op's files are a function of: the environment, its op file and its domain file."""
    return _combine(inputs.environment, inputs.specs.get(op_rel), inputs.specs.get(domain_rel))


def _op_key_of(op_rel: str) -> str:
    """The op key (OpSpec.key) of an op file `domain/Name.yaml`: a spec's name is its file's."""
    domain, _, file_name = op_rel.partition("/")
    return f"{domain}.{os.path.splitext(file_name)[0]}"


def _render_op(op_and_domain: tuple[OpSpec, Domain]) -> dict[str, bytes]:
    from .render import render_op

    return render_op(*op_and_domain)
