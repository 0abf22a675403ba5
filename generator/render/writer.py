"""Turn a rendered tree (relative path -> bytes) into files: write only what changed, remove what
an earlier build produced and no spec does any more, or just report (--check).

Safety rules, because the manifest is committed and so is untrusted input:
- only plain relative paths inside the output folder are ever written or removed;
- a file is removed only if the manifest lists it and its bytes still match a digest recorded
  there (opgen wrote it and nobody changed it since); anything else is kept and reported;
- nothing is written or removed through a symbolic link to a directory;
- one build at a time per output folder (an exclusive lock on the folder itself);
- the manifest is written first as a journal and last as the record, so a build killed at any
  point converges on the next run.
"""
from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from ..files import write_atomically
from ..errors import OpgenError
from . import manifest as mf
from .manifest import MANIFEST

__all__ = ["MANIFEST", "BuildError", "Kept", "Outcome", "sync"]


class BuildError(OpgenError):
    """The output folder cannot be written safely (a symbolic link in the way, a path outside)."""


@dataclass(frozen=True)
class Kept:
    """An output the build did not re-render: the file on disk already holds these bytes (digest)."""

    digest: str


@dataclass
class Outcome:
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # stale, but changed by hand since opgen wrote it

    def summary(self, check: bool = False) -> str:
        if check:
            stale = len(self.written) + len(self.removed)
            return (f"{stale} stale ({len(self.written)} to write, {len(self.removed)} to remove), "
                    f"{len(self.unchanged)} up to date")
        kept = f", {len(self.kept)} kept (edited by hand)" if self.kept else ""
        return f"{len(self.written)} written, {len(self.unchanged)} unchanged, {len(self.removed)} removed{kept}"


_HELD: set[str] = set()  # output folders this process holds the lock of


@contextlib.contextmanager
def build_lock(out_dir: Path) -> Iterator[None]:
    """Hold an exclusive lock on the output folder (flock on the folder itself, so no lock file
    appears in it) for the duration of a build; a second build into it waits."""
    key = os.path.realpath(out_dir)
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock (opgen's supported platforms are POSIX)
        yield
        return
    if key in _HELD:
        yield
        return
    fd = os.open(out_dir, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        _HELD.add(key)
        yield
    finally:
        _HELD.discard(key)
        os.close(fd)  # closing releases the lock


class _Tree:
    """Paths below `root`, with a memo of which folders were checked to be real (not links)."""

    def __init__(self, root: Path):
        self.root = root
        self.real_dirs: set[str] = {""}

    def check_parents(self, rel: str) -> None:
        """Raise BuildError if a folder on the way to `rel` is a symbolic link."""
        if not mf.safe_relpath(rel):
            raise BuildError(f"refusing output path {rel!r}: not a plain relative path inside {self.root}")
        if rel.rpartition("/")[0] in self.real_dirs:  # a folder is added only once all above it are
            return
        parts = rel.split("/")[:-1]
        for k in range(1, len(parts) + 1):
            sub = "/".join(parts[:k])
            if sub in self.real_dirs:
                continue
            if os.path.islink(self.root / sub):
                raise BuildError(f"{self.root / sub} is a symbolic link; opgen does not write through links "
                                 f"(remove it and build again)")
            self.real_dirs.add(sub)

    def read(self, rel: str) -> bytes | None:
        path = self.root / rel
        try:
            if path.is_symlink() or not path.is_file():
                return None
            return path.read_bytes()
        except OSError:
            return None


def sync(out_dir: Path, files: dict[str, bytes | Kept], check: bool = False,
         previous: mf.Manifest | None = None) -> Outcome:
    """Make `out_dir` hold exactly `files` (the manifest among them, written last); with check=True
    only report what a build would change. `previous`: the manifest as the caller read it."""
    manifest_data = files[MANIFEST]
    assert isinstance(manifest_data, bytes)
    outputs = {rel: data for rel, data in files.items() if rel != MANIFEST}
    previous = previous or mf.read(out_dir)
    if check:
        return _compare(out_dir, files, previous)
    out_dir.mkdir(parents=True, exist_ok=True)
    with build_lock(out_dir):  # re-entrant for a caller (opgen build) that holds it already
        outcome = _compare(out_dir, outputs, previous)
        manifest_before = _Tree(out_dir).read(MANIFEST)
        if not (outcome.written or outcome.removed) and manifest_before == manifest_data:
            return _with_manifest(outcome, unchanged=True)
        tree = _Tree(out_dir)
        new = {rel: (data.digest if isinstance(data, Kept) else mf.digest(data), "") for rel, data in outputs.items()}
        with _located(out_dir, MANIFEST, "written"):
            _atomic_write(out_dir / MANIFEST, mf.journal(previous, new))
        made: set[str] = set()
        for rel in outcome.written:
            data = outputs[rel]
            assert isinstance(data, bytes), f"{rel}: a kept output is missing on disk"
            tree.check_parents(rel)
            with _located(out_dir, rel, "written"):
                _atomic_write(out_dir / rel, data, made)
        for rel in list(outcome.removed):
            with _located(out_dir, rel, "removed"):
                ours = _remove_if_ours(tree, rel, previous.files[rel])
            if not ours:
                outcome.removed.remove(rel)
                outcome.kept.append(rel)
        with _located(out_dir, MANIFEST, "written"):
            _atomic_write(out_dir / MANIFEST, manifest_data)
        return _with_manifest(outcome, unchanged=manifest_before == manifest_data)


@contextlib.contextmanager
def _located(out_dir: Path, rel: str, done: str) -> Iterator[None]:
    """An OSError (a read-only folder, a full disk) as a BuildError naming the output file. What was
    written before it stays consistent: the manifest's journal lets the next build finish the job."""
    try:
        yield
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise BuildError(f"{out_dir / rel} cannot be {done}: {reason}; the files before it are written, and "
                         "the next `opgen build` completes the output once this is fixed") from None


def _with_manifest(outcome: Outcome, unchanged: bool) -> Outcome:
    (outcome.unchanged if unchanged else outcome.written).append(MANIFEST)
    return outcome


def _compare(out_dir: Path, files: dict[str, bytes | Kept], previous: mf.Manifest) -> Outcome:
    """What differs between `files` and the folder: files to write, stale files to remove."""
    tree = _Tree(out_dir)
    outcome = Outcome()
    for rel, data in sorted(files.items()):
        if rel != MANIFEST:
            tree.check_parents(rel)
        if isinstance(data, Kept):
            outcome.unchanged.append(rel)
            continue
        (outcome.unchanged if tree.read(rel) == data else outcome.written).append(rel)
    for rel in sorted(set(previous.files) - set(files)):
        path = out_dir / rel
        if path.is_symlink() or path.exists():
            outcome.removed.append(rel)
    return outcome


def _remove_if_ours(tree: _Tree, rel: str, recorded: set[str]) -> bool:
    """Remove a stale output if it is a regular file whose bytes opgen wrote (a recorded digest)."""
    try:
        tree.check_parents(rel)
    except BuildError:
        return False
    path = tree.root / rel
    data = tree.read(rel)
    if data is None:
        if path.is_symlink():  # a link where opgen wrote a file: not opgen's, leave it
            return False
        return True  # already gone
    if mf.digest(data) not in recorded:
        return False
    path.unlink()
    _prune_empty_dirs(path.parent, tree.root)
    return True


def _atomic_write(path: Path, data: bytes, made: set[str] | None = None) -> None:
    """Write via a temporary file and rename (opgen.files), so an interrupted build leaves no half-written file.
    `made`: folders known to exist (a full build writes 3 000 files into a few dozen folders)."""
    folder = os.path.dirname(path)
    if made is None or folder not in made:
        path.parent.mkdir(parents=True, exist_ok=True)
        if made is not None:
            made.add(folder)
    write_atomically(str(path), data)


def _prune_empty_dirs(folder: Path, stop: Path) -> None:
    """Remove folders the removal emptied (a __pycache__ alone counts as empty), up to `stop`."""
    while folder != stop and not folder.is_symlink() and folder.is_dir() and \
            not any(p for p in folder.iterdir() if p.name != "__pycache__"):
        for cache in folder.glob("__pycache__"):
            if cache.is_symlink():
                return
            for f in cache.iterdir():
                f.unlink()
            cache.rmdir()
        folder.rmdir()
        folder = folder.parent
