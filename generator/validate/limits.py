"""Limits that keep a hostile or broken model file from exhausting time or memory, and the error
every reader raises when a file cannot be read (the CLI turns it into exit status 2)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class ModelReadError(Exception):
    """The file cannot be read as a model: truncated, corrupted, of an unknown kind, or beyond a limit."""


@dataclass(frozen=True)
class Limits:
    max_file_bytes: int = 2**31 - 1  # protobuf's own limit for one message
    max_nodes: int = 10_000_000  # in all graphs together
    max_graph_depth: int = 16  # nested graphs (If/Loop bodies, Map computations, ...)
    max_attribute_elements: int = 1_000_000  # elements of one list attribute
    max_rank: int = 64
    max_dim: int = 2**48  # larger dimensions are taken as corruption, not as a tensor
    max_json_depth: int = 120  # nesting of JSON/YAML containers
    max_constant_elements: int = 4096  # constants larger than this are checked by dtype and shape only


DEFAULT_LIMITS = Limits()


def check_shape(shape, limits: Limits, what: str) -> None:
    """Raise ModelReadError for a shape no real tensor has (None entries are unknown dimensions)."""
    if shape is None:
        return
    if len(shape) > limits.max_rank:
        raise ModelReadError(f"{what}: rank {len(shape)} exceeds the limit of {limits.max_rank}")
    for axis, d in enumerate(shape):
        if d is not None and not 0 <= d <= limits.max_dim:
            raise ModelReadError(f"{what}: dimension {d} is outside [0, {limits.max_dim}] (axis {axis})")


def read_model_file(path: Path, limits: Limits) -> bytes:
    """The bytes of a model file, or ModelReadError (missing, unreadable, or larger than the limit)."""
    try:
        size = path.stat().st_size
        if size > limits.max_file_bytes:
            raise ModelReadError(f"file of {size} bytes exceeds the limit of {limits.max_file_bytes}")
        return path.read_bytes()
    except OSError as exc:
        raise ModelReadError(f"cannot read file: {exc.strerror or exc}") from None
