"""Limits that keep a hostile or broken model file from exhausting time or memory, and the error
every reader raises when a file cannot be read (the CLI turns it into exit status 2).

The defaults are the named constants below (README, "Hostile or broken files", lists them). Every
limit that bounds memory is checked before the thing it bounds is materialised: file sizes before a
byte is read, list lengths and the per-file element budget before attribute values are converted,
nesting before a recursive parser or validator sees the document.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from ..files import open_regular

MAX_ONNX_FILE_BYTES = 2**31 - 1  # protobuf's own limit for one message
# JSON and YAML documents grow ~10x as Python objects; 256 MiB of text is far above any real graph
# (a 100 000-op oneDNN graph is ~60 MB) and still fits in memory once parsed.
MAX_TEXT_FILE_BYTES = 256 * 2**20
MAX_NODES = 10_000_000  # in all graphs together
MAX_GRAPH_DEPTH = 16  # nested graphs (If/Loop bodies, Map computations, ...)
MAX_ATTRIBUTE_ELEMENTS = 1_000_000  # elements of one list attribute
# Elements of all list attributes of a file together (every use counted): many lists each under the
# per-list limit would otherwise still take gigabytes once converted to Python values.
MAX_TOTAL_ATTRIBUTE_ELEMENTS = 10_000_000
MAX_RANK = 64
MAX_DIM = 2**48  # larger dimensions are taken as corruption, not as a tensor
MAX_JSON_DEPTH = 120  # nesting of JSON/YAML containers
MAX_CONSTANT_ELEMENTS = 4096  # constants larger than this are checked by dtype and shape only

from ..errors import OpgenError


class ModelReadError(OpgenError):
    """The file cannot be read as a model: truncated, corrupted, of an unknown kind, or beyond a limit."""


@dataclass(frozen=True)
class Limits:
    max_onnx_file_bytes: int = MAX_ONNX_FILE_BYTES
    max_text_file_bytes: int = MAX_TEXT_FILE_BYTES
    max_nodes: int = MAX_NODES
    max_graph_depth: int = MAX_GRAPH_DEPTH
    max_attribute_elements: int = MAX_ATTRIBUTE_ELEMENTS
    max_total_attribute_elements: int = MAX_TOTAL_ATTRIBUTE_ELEMENTS
    max_rank: int = MAX_RANK
    max_dim: int = MAX_DIM
    max_json_depth: int = MAX_JSON_DEPTH
    max_constant_elements: int = MAX_CONSTANT_ELEMENTS


DEFAULT_LIMITS = Limits()
# `opgen run` and read_model: every constant keeps its value (the runner needs them all).
RUN_LIMITS = Limits(max_constant_elements=sys.maxsize)


def check_shape(shape: Sequence[int | None] | None, limits: Limits, what: str) -> None:
    """Raise ModelReadError for a shape no real tensor has (None entries are unknown dimensions)."""
    if shape is None:
        return
    if len(shape) > limits.max_rank:
        raise ModelReadError(f"{what}: rank {len(shape)} exceeds the limit of {limits.max_rank}")
    for axis, d in enumerate(shape):
        if d is not None and not 0 <= d <= limits.max_dim:
            raise ModelReadError(f"{what}: dimension {d} is outside [0, {limits.max_dim}] (axis {axis})")


class AttributeBudget:
    """Counts list-attribute elements as a reader meets them, before it converts them, and stops the
    reading when one list or the whole file goes over its limit."""

    __slots__ = ("limits", "total")

    def __init__(self, limits: Limits):
        self.limits = limits
        self.total = 0

    def take(self, count: int, what: str | Callable[..., str]) -> None:
        """One list of `count` elements; `what` locates it in errors (a callable: built only then)."""
        if count > self.limits.max_attribute_elements:
            raise ModelReadError(f"{_text(what)}: {count} elements exceed the limit of "
                                 f"{self.limits.max_attribute_elements}")
        self.add(count, what)

    def add(self, count: int, what: str | Callable[[], str]) -> None:
        """Elements of lists already taken once (a repeated use read from a cache)."""
        self.total += count
        if self.total > self.limits.max_total_attribute_elements:
            raise ModelReadError(f"{_text(what)}: list attributes hold more than "
                                 f"{self.limits.max_total_attribute_elements} elements in all (the limit per file)")


def _text(what: str | Callable[[], str]) -> str:
    return what() if callable(what) else what


def read_model_file(path: Path, max_bytes: int) -> bytes:
    """The bytes of a model file, or ModelReadError (missing, unreadable, or larger than max_bytes).

    The size is checked before reading (a sparse file of gigabytes costs nothing to refuse), and the
    read stops past max_bytes in case the size changes or the file system reports none. Only a regular
    file is read, opened without blocking: a named pipe waited for a writer forever (`opgen run`)."""
    try:
        with open_regular(path) as f:
            size = os.fstat(f.fileno()).st_size
            if size > max_bytes:
                raise ModelReadError(f"file of {size} bytes exceeds the limit of {max_bytes} for this kind of file")
            data = f.read(max_bytes + 1)
    except OSError as exc:
        raise ModelReadError(f"cannot read file: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise ModelReadError(f"file of more than {max_bytes} bytes exceeds the limit for this kind of file")
    return data
