"""The no-op stamp: how `opgen build` answers "nothing to do" from file statuses alone.

A no-op build that verified every input and output by digest (opgen.build) leaves, in the user's
cache folder, the status (size, mtime, inode, ctime) of every file it verified: each input (spec
files, schemas, the generator's source, the templates), each output the manifest records, and the
manifest itself. The next `opgen build` compares those statuses first; when every one is unchanged
it has nothing to do and says so without reading a file's bytes, parsing the manifest or importing
the build (this module needs only os, stat, marshal and zlib).

Anything else (a status changed, a file added or removed, no stamp) takes the full path, which
digests what changed and, if it turns out to be a no-op too, writes a fresh stamp.
- A file changed less than RACY_NS before the stamp was made is never stamped (an edit within the
  same clock tick could leave its status unchanged): right after a build the no-op takes the full
  path until the written files are that old.
- What the stamp cannot see: a generated file rewritten by hand to the same size with its mtime and
  ctime restored (ctime cannot be set back without changing the clock). `opgen build --check` never
  uses the stamp and reads every file.
- The stamp is the text manifest's shadow, never its replacement: it holds no digest, and a stamp
  that does not match is simply ignored. It is marshalled (the cache folder is the user's own, as
  for the pickled ops of opgen.build_cache); a stamp that does not load is ignored too.
"""
from __future__ import annotations

import marshal
import os
import stat
import time
import zlib

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a few ms of a no-op)
if TYPE_CHECKING:
    from typing import Any, Iterable

STAMP_FORMAT = 1
RACY_NS = 2_000_000_000  # as opgen.cache.StatCache
MANIFEST = ".opgen-manifest"  # opgen.render.manifest.MANIFEST (not imported: it pulls in re and hashlib)
PACKAGE_DIR = os.path.dirname(os.path.realpath(__file__))

Status = tuple[int, int, int, int]


def status(st: os.stat_result) -> Status:
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


def tree_files(top: str, suffix: str = "") -> list[str]:
    """The files below `top` whose names end in `suffix`, as relative POSIX paths in a fixed order
    (folders and names sorted); hidden files and folders and __pycache__ are left out. What
    opgen.build digests as inputs, and what the stamp compares."""
    out = []
    for here, dirs, names in os.walk(top):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        rel_dir = os.path.relpath(here, top).replace(os.sep, "/")
        prefix = "" if rel_dir == "." else f"{rel_dir}/"
        out += [prefix + name for name in sorted(names) if not name.startswith(".") and name.endswith(suffix)]
    return out


def project_specs(cwd: str) -> str | None:
    """opgen.paths.project_specs without pathlib: the specs/ folder of `cwd` or its nearest parent."""
    here = cwd
    while True:
        if os.path.isdir(os.path.join(here, "specs")):
            return os.path.join(here, "specs")
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def stamp_name(out_dir: str) -> str:
    return f"noop-{zlib.crc32(out_dir.encode('utf-8', 'surrogateescape')):08x}.marshal"


class Recorder:
    """Collects, during a full-path build, the status of each file at the moment it was verified."""

    def __init__(self) -> None:
        self.inputs: list[tuple[str, str, tuple[str, ...], tuple[Status, ...]]] = []
        self.outputs: dict[str, Status] = {}
        self.newest_ns = 0

    def _seen(self, st: os.stat_result) -> Status:
        self.newest_ns = max(self.newest_ns, st.st_mtime_ns, st.st_ctime_ns)
        return status(st)

    def input_tree(self, top: str, suffix: str, names: list[str], stats: Iterable[os.stat_result]) -> None:
        self.inputs.append((top, suffix, tuple(names), tuple(self._seen(st) for st in stats)))

    def output(self, rel: str, st: os.stat_result) -> None:
        self.outputs[rel] = self._seen(st)

    def save(self, out_dir: str, paths: list[str], line: str) -> None:
        """Write the stamp for a no-op that verified `paths` (every output), printing `line`; nothing when a
        file is too recent to be trusted, an output was not verified here, or the cache is off."""
        from .cache import cache_dir, store

        folder = cache_dir()
        if folder is None or any(p not in self.outputs for p in paths):
            return
        out = os.path.realpath(out_dir)
        try:
            manifest = self._seen(os.lstat(os.path.join(out, MANIFEST)))
        except OSError:
            return
        if time.time_ns() - self.newest_ns < RACY_NS:
            return
        names = tuple(paths)
        data = (STAMP_FORMAT, out, PACKAGE_DIR, manifest, tuple(self.inputs), names,
                tuple(self.outputs[p] for p in names), line)
        store(stamp_name(out), marshal.dumps(data))


def forget(out_dir: str) -> None:
    """Remove the stamp of `out_dir` (a build rewrote its manifest: the stamp cannot match any more,
    and the next build need not load it to find out)."""
    folder = _cache_folder()
    if folder is not None:
        try:
            os.unlink(os.path.join(folder, stamp_name(os.path.realpath(out_dir))))
        except OSError:
            pass


def noop_line(out_dir: str) -> str | None:
    """The line a no-op build prints, if the stamp says nothing changed since the last verified
    no-op into `out_dir`; None when the full path must decide."""
    out = os.path.realpath(out_dir)
    folder = _cache_folder()
    if folder is None:
        return None
    try:
        with open(os.path.join(folder, stamp_name(out)), "rb") as handle:
            data: Any = marshal.loads(handle.read())
        fmt, stamped_out, package, manifest, inputs, names, stats, line = data
    except (OSError, ValueError, EOFError, TypeError):
        return None
    if fmt != STAMP_FORMAT or stamped_out != out or package != PACKAGE_DIR:
        return None
    fd = _lock(out)  # as a build does: a build in progress is waited for
    try:
        if not _unchanged(out, manifest, inputs, names, stats):
            return None
    finally:
        if fd is not None:
            os.close(fd)
    return str(line)


def _cache_folder() -> str | None:
    """opgen.cache.cache_dir as a string (opgen.cache imports pathlib)."""
    configured = os.environ.get("OPGEN_CACHE_DIR")
    if configured is not None:
        return configured or None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "opgen")


def _lock(out: str) -> int | None:
    try:
        import fcntl

        fd = os.open(out, os.O_RDONLY)
    except (ImportError, OSError):
        return None
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def _unchanged(out: str, manifest: Status, inputs: Any, names: tuple[str, ...], stats: tuple[Status, ...]) -> bool:
    try:
        if _lstat_regular(os.path.join(out, MANIFEST)) != manifest:
            return False
        for top, suffix, input_names, input_stats in inputs:
            if tuple(tree_files(top, suffix)) != input_names:
                return False
            base = top + os.sep
            if tuple(status(os.stat(base + rel)) for rel in input_names) != input_stats:
                return False
        base = out + os.sep
        return tuple(_lstat_regular(base + rel) for rel in names) == stats
    except OSError:
        return False


def _lstat_regular(path: str) -> Status | None:
    st = os.lstat(path)
    return status(st) if stat.S_ISREG(st.st_mode) else None
