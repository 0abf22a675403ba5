"""What `opgen build` remembers between runs in the user's cache folder (opgen.cache): parsed ops,
which shared files a given set of inputs produced, and each op's kernel coverage.

Every entry is keyed by digests of what it was computed from, so a stale entry is never used; a
missing or unreadable one is recomputed. `--check` uses none of this."""
from __future__ import annotations

import hashlib
import json
import pickle
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, cast

from . import cache

if TYPE_CHECKING:
    from .errors import SpecError
    from .model import Domain, OpSpec
    from .render import manifest as mf

MODEL_FORMAT = 5  # the layout of the model cache files below


def combine(*parts: Any) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def _path_key(folder: Path) -> str:
    return combine(str(folder.resolve()))[:24]


class ModelCache:
    """Parsed and checked ops from earlier builds, each keyed by what it was computed from (its op
    file and its domain file; the file as a whole is keyed by the environment: generator, schemas,
    source documents). One cache file per domain holds each op pickled on its own, beside a small
    summary (LazyOp): an edit re-pickles only the edited op (the others are copied as bytes), and an op
    from the cache is unpickled only when something its summary does not hold is asked of it."""

    def __init__(self, specs_dir: Path, environment: str, spec_digests: dict[str, str], remember: bool = True):
        self.remember = remember  # False (--check): nothing is read from or written to the cache folder
        self.environment = environment
        self.spec_digests = spec_digests
        self.prefix = f"ops-{_path_key(specs_dir)}"
        # domain folder -> op file -> (key, pickle of (op, errors), summary: LazyOp.summary_of); and
        # domain folder -> its domain.yaml -> (the file's digest, pickle of (domain, errors), ())
        self.entries: dict[str, dict[str, tuple[str, bytes, Summary]]] = {}
        self.fresh: dict[str, dict[str, tuple[str, bytes, Summary]]] = {}
        self.missed: set[str] = set()
        self.parsed: dict[str, tuple[str, bytes]] = {}  # op file -> (key, pickle), parsed by prefetch
        self.rendered: dict[str, dict[str, bytes]] = {}  # op file -> its files, rendered by prefetch
        self.keys: dict[str, str] = {}  # op file -> its key (_key)

    def _domain(self, folder: str) -> dict[str, tuple[str, bytes, Summary]]:
        if folder not in self.entries:
            self.entries[folder] = {}
            blob = cache.load(f"{self.prefix}-{folder}.pickle") if self.remember else None
            if blob is not None:
                try:
                    loaded = pickle.loads(blob)
                    if isinstance(loaded, dict) and loaded.get("format") == MODEL_FORMAT \
                            and loaded.get("environment") == self.environment:
                        self.entries[folder] = loaded["ops"]
                except Exception:  # a cache from another version, truncated, ...: rebuild it
                    self.entries[folder] = {}
        return self.entries[folder]

    def _key(self, rel: str) -> str:
        key = self.keys.get(rel)  # asked by prefetch and again by load_op
        if key is None:
            key = self.keys[rel] = combine(self.spec_digests.get(rel),
                                           self.spec_digests.get(f"{rel.split('/', 1)[0]}/domain.yaml"))
        return key

    def prefetch(self, root: Path, render_ahead: Callable[[str], bool] | None = None) -> None:
        """Parse and check, over the machine's cores (opgen.build_parallel), every op file the cache
        does not answer, so that load_op then only unpickles. With `render_ahead`, the workers also
        render each op that parsed without errors and whose file (`domain/op.yaml`) it names, right
        after checking it: an op's files depend on its spec and its domain's alone (opgen.render), so
        one pass over the cores does both, and the build uses them once the checks across ops pass."""
        from .build_parallel import MIN_ITEMS, ordered_map
        from .parse import op_files, spec_folders

        missing: dict[Path, list[Path]] = {}  # domain folder -> op files the cache does not answer
        for folder in spec_folders(root)[0]:
            entries = self._domain(folder.name)
            for path in op_files(folder):
                hit = entries.get(f"{folder.name}/{path.name}")
                if hit is None or hit[0] != self._key(f"{folder.name}/{path.name}"):
                    missing.setdefault(folder, []).append(path)
        if sum(map(len, missing.values())) < MIN_ITEMS:
            return  # an edit's build: load_op parses the few in this process
        tasks = []
        for folder, paths in missing.items():
            domain, _ = self.load_domain(folder / "domain.yaml", root)
            if domain is not None:  # else load_specs reports it
                tasks += [(path, root, domain, render_ahead is not None and render_ahead(f"{folder.name}/{path.name}"))
                          for path in paths]
        if any(task[3] for task in tasks):
            _warm_renderers()
        for (path, _, _, _), (blob, files) in zip(tasks, ordered_map(_parse_and_render, tasks)):
            rel = f"{path.parent.name}/{path.name}"
            self.parsed[rel] = (self._key(rel), blob)
            if files is not None:
                self.rendered[rel] = files

    def load_domain(self, path: Path, root: Path) -> tuple[Domain | None, list[SpecError]]:
        """A domain.yaml (its ops not yet attached), answered from the cache while the file and the
        environment are what it was parsed from."""
        from .parse import load_domain

        folder = path.parent.name
        rel = f"{folder}/{path.name}"
        digest = self.spec_digests.get(rel)
        fresh = self.fresh.setdefault(folder, {})
        hit = (fresh.get(rel) or self._domain(folder).get(rel)) if digest is not None else None
        if hit is not None and hit[0] == digest:
            loaded = _unpickle(hit[1])
            if loaded is not None:
                fresh[rel] = hit
                return cast("tuple[Domain | None, list[SpecError]]", loaded)
        self.missed.add(folder)
        domain, errors = load_domain(path, root)
        if digest is not None and domain is not None and not any(e.severity == "error" for e in errors):
            fresh[rel] = (digest, pickle.dumps((domain, errors), protocol=pickle.HIGHEST_PROTOCOL), ())
        return domain, errors

    def load_op(self, path: Path, root: Path, domain: Domain) -> tuple[OpSpec | None, list[SpecError]]:
        folder = path.parent.name
        rel = f"{folder}/{path.name}"
        key = self._key(rel)
        fresh = self.fresh.setdefault(folder, {})
        hit = self._domain(folder).get(rel)
        if hit is not None and hit[0] == key:
            fresh[rel] = hit
            errors = hit[2][-1]
            return cast("OpSpec", LazyOp(hit[2], hit[1])), list(errors)
        self.missed.add(folder)
        parsed = self.parsed.pop(rel, None)
        from_workers = _unpickle(parsed[1]) if parsed is not None and parsed[0] == key else None
        if parsed is not None and from_workers is not None:
            (op, errors), blob = from_workers, parsed[1]
        else:
            op, errors = _parse(path, root, domain)
            blob = pickle.dumps((op, errors), protocol=pickle.HIGHEST_PROTOCOL)
        if op is not None and not any(e.severity == "error" for e in errors):
            fresh[rel] = (key, blob, LazyOp.summary_of(op, errors))
        return op, errors

    def save(self) -> None:
        if not self.remember:
            return
        for folder, ops in self.fresh.items():
            if folder in self.missed or set(ops) != set(self.entries.get(folder, {})):
                cache.store(f"{self.prefix}-{folder}.pickle", pickle.dumps(
                    {"format": MODEL_FORMAT, "environment": self.environment, "ops": ops},
                    protocol=pickle.HIGHEST_PROTOCOL))


# What an op's summary holds, in this order: LazyOp.SUMMARY, then the errors (warnings) found in its file.
Summary = tuple[Any, ...]


class LazyOp:
    """An op answered from the cache: its name, location, what the checks across ops and the
    fingerprints of shared files read (opgen.check.check_specs, opgen.render.*.shared_units) and its
    rows on the domain pages (opgen.render.docs.op_listing) come from a small summary; anything else
    unpickles the op once and is read from it. An edit's build thereby unpickles only the op whose
    files it renders, not the whole model."""

    SUMMARY = ("domain", "name", "location", "stablehlo", "onnx_domain", "version_kernels", "listing")
    __slots__ = (*SUMMARY, "_blob", "_op")

    def __init__(self, summary: Summary, blob: bytes):
        for name, value in zip(self.SUMMARY, summary):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_blob", blob)
        object.__setattr__(self, "_op", None)

    @staticmethod
    def summary_of(op: OpSpec, errors: list[SpecError]) -> Summary:
        from .render.docs import op_listing  # the domain pages' rows (index, errata, extensions)

        return (op.domain, op.name, op.location, op.stablehlo, op.onnx_domain,
                tuple((v.since_version, v.has_kernel) for v in op.versions), op_listing(op), tuple(errors))

    @property
    def key(self) -> str:
        return f"{self.domain}.{self.name}"  # as OpSpec.key

    def full(self) -> OpSpec:
        """The op itself (unpickled on the first call); renderers of many ops read it (opgen.render.full_op)."""
        op: OpSpec | None = object.__getattribute__(self, "_op")
        if op is None:
            loaded = _unpickle(object.__getattribute__(self, "_blob"))
            if loaded is None or loaded[0] is None:  # written with its summary: only a broken cache gets here
                raise RuntimeError(f"{self.key}: the build cache entry does not load; remove {cache.cache_dir()}")
            op = loaded[0]
            object.__setattr__(self, "_op", op)
        return op

    def __getattr__(self, name: str) -> Any:  # only for what the summary does not hold
        op = object.__getattribute__(self, "_op")  # loaded: one lookup (a domain page asks thousands)
        return getattr(op if op is not None else self.full(), name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{self.key} is read-only (as a frozen OpSpec)")

    def __repr__(self) -> str:
        return repr(self.full())


def _parse(path: Path, root: Path, domain: Domain) -> tuple[OpSpec | None, list[SpecError]]:
    from .parse import load_op

    return load_op(path, root, domain)


def _parse_and_render(task: tuple[Path, Path, Domain, bool]) -> tuple[bytes, dict[str, bytes] | None]:
    """One op file parsed and checked (pickled), and with task[3] its files, when it has no errors
    (None otherwise, or when a renderer fails: the build renders it again and reports the failure)."""
    path, root, domain, render = task
    op, errors = _parse(path, root, domain)
    files = None
    if render and op is not None and not any(e.severity == "error" for e in errors):
        from .render import render_op

        try:
            files = render_op(op, domain)
        except Exception:  # reported where the build renders it (opgen.render.RenderError)
            files = None
    return pickle.dumps((op, errors), protocol=pickle.HIGHEST_PROTOCOL), files


def _warm_renderers() -> None:
    """Import the renderers and compile the templates of an op's files before the workers fork, so
    that they inherit them rather than each doing it again."""
    from .render import op_templates
    from .render.common import environment

    for name in op_templates():
        environment().get_template(name)


def _unpickle(blob: bytes) -> tuple[OpSpec | None, list[SpecError]] | None:
    try:
        op, errors = pickle.loads(blob)
        return op, list(errors)
    except Exception:  # written by another version of the model classes: parse the file again
        return None


class SharedMemo:
    """For one output folder: which files each unit of shared files (opgen.render.SharedUnit) rendered
    for a given key, and the kernel-coverage rows (opgen.coverage) of each op by the op's key. A unit
    whose key is unchanged and whose files are still on disk as the manifest records them is not
    rendered again. Kept as JSON (never unpickled)."""

    def __init__(self, out_dir: Path):
        self.name = f"shared-{_path_key(out_dir)}.json"
        self.units: dict[str, Any] = {}
        self.coverage: dict[str, Any] = {}  # op key -> its coverage rows
        self.used_coverage: set[str] = set()
        self.changed = False
        blob = cache.load(self.name)
        if blob is not None:
            try:
                loaded = json.loads(blob)
                if isinstance(loaded, dict) and isinstance(loaded.get("units"), dict) \
                        and isinstance(loaded.get("coverage"), dict):
                    self.units, self.coverage = loaded["units"], loaded["coverage"]
            except ValueError:
                pass

    def reusable(self, unit: str, key: str, previous: mf.Manifest,
                 intact: Callable[[list[str]], bool]) -> dict[str, str] | None:
        """The files (path -> digest) the unit rendered for this key, if the manifest records exactly
        those digests and `intact` finds them on disk; else None."""
        entry = self.units.get(unit)
        if not (isinstance(entry, list) and len(entry) == 2 and entry[0] == key and isinstance(entry[1], dict)):
            return None
        files: dict[str, str] = entry[1]
        if any(previous.single_digest(p) != sha for p, sha in files.items()) or not intact(list(files)):
            return None
        return files

    def record(self, unit: str, key: str, files: dict[str, str]) -> None:
        entry = [key, files]
        if self.units.get(unit) != entry:
            self.units[unit] = entry
            self.changed = True

    def op_coverage(self, op_key: str, compute: Callable[[], list[Any]]) -> list[Any]:
        """The coverage rows of the op whose key is `op_key` (computed when not remembered)."""
        self.used_coverage.add(op_key)
        rows = self.coverage.get(op_key)
        if isinstance(rows, list) and all(isinstance(r, list) and len(r) == 4 for r in rows):
            return rows
        rows = [list(r) for r in compute()]
        self.coverage[op_key] = rows
        self.changed = True
        return rows

    def save(self, known_units: set[str]) -> None:
        stale = set(self.units) - known_units  # units of a domain that is gone
        gone = set(self.coverage) - self.used_coverage  # ops edited or removed since
        for name in stale:
            del self.units[name]
        for op_key in gone:
            del self.coverage[op_key]
        if self.changed or stale or gone:
            data = {"units": self.units, "coverage": self.coverage}
            cache.store(self.name, json.dumps(data, separators=(",", ":"), sort_keys=True).encode())


def folder_digests(spec_digests: dict[str, str], folder: str) -> list[tuple[str, str]]:
    """The digests of a domain folder's spec files (domain.yaml and every op file)."""
    if not folder:
        return []
    prefix = f"{folder}/"
    return sorted((k, v) for k, v in spec_digests.items() if k.startswith(prefix) and "/" not in k[len(prefix):])
