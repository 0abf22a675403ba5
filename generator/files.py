"""Reading and writing the files opgen reads and makes, safely.

write_atomically: a file whole or not at all: the bytes go to a temporary file beside it, which is then
renamed over it. Used for the generated files (opgen.render.writer), the user's cache (opgen.cache),
the outputs of `opgen run` and the specs `opgen import` writes. The temporary file is created
exclusively and never through a symbolic link, and named here (this process's id and a serial number)
rather than by tempfile.mkstemp, whose random names were half of a full build's writing time. An
exception of any kind, Ctrl-C included, removes it: Ctrl-C is raised at the first check after the
system call that was running, and file creation is where a writer spends its time, so the interrupt
most often arrives as the call that created the file returns, before its result is assigned; that call
is inside the cleanup's reach too.

open_regular, read_regular: a file the user names or a spec tree holds, refused unless it is a regular
file: a named pipe (FIFO) among the specs made `opgen build` and `opgen lint` wait forever for a writer,
as did one given to `opgen run` as its model or an input.
"""
from __future__ import annotations

import contextlib
import errno
import itertools
import os
import stat
from typing import BinaryIO, Callable

_SERIAL = itertools.count()
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def write_atomically(path: str, content: bytes | Callable[[BinaryIO], None], mode: int = 0o644) -> None:
    """Replace `path` (in an existing folder) by `content`: bytes, or a function writing to the open file."""
    folder, name = os.path.split(path)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}-{next(_SERIAL)}")
    try:
        try:
            fd = os.open(tmp, _FLAGS, 0o600)
        except FileExistsError:  # left by a killed process that had this id
            import tempfile

            fd, tmp = tempfile.mkstemp(dir=folder or None, prefix=f".{name}.")
        with os.fdopen(fd, "wb") as handle:
            if isinstance(content, bytes):
                handle.write(content)
            else:
                content(handle)
        if mode != 0o600:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """A regular file opened for reading; OSError (strerror "not a regular file") for anything else.
    Opened without blocking, so that a named pipe is refused rather than waited on."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    handle = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        handle.close()
        raise OSError(errno.EINVAL, "not a regular file", os.fspath(path))
    return handle


def read_regular(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a regular file (open_regular)."""
    with open_regular(path) as handle:
        return handle.read()
