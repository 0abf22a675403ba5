"""A per-user cache of work `opgen build` can reuse between runs (parsed specs, compiled schema
validators). It lives in the user's cache folder, never in the project: what it holds is
unpickled, so it must not be something a commit can plant. Every entry is keyed by the digests
of what it was computed from; a missing, stale or unreadable entry is simply recomputed.

OPGEN_CACHE_DIR overrides the folder; OPGEN_CACHE_DIR="" turns the cache off.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


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
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, folder / name)
    except OSError:
        pass
