"""A per-user cache of work `opgen build` can reuse between runs (parsed specs, compiled schema
validators). It lives in the user's cache folder, never in the project: what it holds is
unpickled, so it must not be something a commit can plant. Every entry is keyed by the digests
of what it was computed from; a missing, stale or unreadable entry is simply recomputed.

OPGEN_CACHE_DIR overrides the folder; OPGEN_CACHE_DIR="" turns the cache off.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def cache_dir() -> Path | None:
    configured = os.environ.get("OPGEN_CACHE_DIR")
    if configured is not None:
        return Path(configured) if configured else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "opgen"


def load(name: str) -> bytes | None:
    folder = cache_dir()
    if folder is None:
        return None
    try:
        return (folder / name).read_bytes()
    except OSError:
        return None


def store(name: str, data: bytes) -> None:
    """Write an entry atomically; a cache that cannot be written is no error."""
    folder = cache_dir()
    if folder is None:
        return
    from .files import write_atomically

    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_atomically(str(folder / name), data, mode=0o600)
    except OSError:
        pass


class StatCache:
    """Digests of files remembered by their (size, mtime_ns, inode, ctime_ns): a file whose status is
    unchanged since it was hashed is not read again (what git's index does). A file modified less
    than RACY_NS before it was hashed is not remembered: a later edit within the same clock tick
    would leave its status unchanged. Marshalled in the user's cache folder (as opgen.build_stamp's stamp:
    several times faster to load and write than JSON, which was a tenth of an edit's build)."""

    RACY_NS = 2_000_000_000

    def __init__(self, name: str):
        import marshal

        self.name = name
        self.entries: dict[str, list[Any]] = {}
        self.changed = False
        blob = load(name)
        if blob is not None:
            try:
                loaded = marshal.loads(blob)
                if isinstance(loaded, dict):
                    self.entries = loaded
            except (ValueError, EOFError, TypeError):
                self.entries = {}

    @staticmethod
    def _key(st: os.stat_result) -> list[int]:
        return [st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns]

    def known(self, path: str, st: os.stat_result) -> str | None:
        """The digest remembered for this file, if its status has not changed since."""
        entry = self.entries.get(path)  # field by field: asked once per input and output of a build
        if type(entry) is list and len(entry) == 5 and entry[0] == st.st_size and entry[1] == st.st_mtime_ns \
                and entry[2] == st.st_ino and entry[3] == st.st_ctime_ns:
            return str(entry[4])
        return None

    def remember(self, path: str, st: os.stat_result, sha: str) -> None:
        import time

        if time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) < self.RACY_NS:
            return
        entry = [*self._key(st), sha]
        if self.entries.get(path) != entry:
            self.entries[path] = entry
            self.changed = True

    def save(self) -> None:
        import marshal

        if self.changed:
            store(self.name, marshal.dumps(self.entries))
            self.changed = False
