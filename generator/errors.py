"""Source locations and the error type every stage reports through."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple

Severity = Literal["error", "warning"]


class Location(NamedTuple):
    """A position in a spec file (1-based line and column). A named tuple, not a dataclass: the
    loader makes one for every value of every spec, and a tuple is several times cheaper to build."""

    file: str
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        if self.line:
            return f"{self.file}:{self.line}:{self.column}"
        return self.file


MAX_MESSAGE = 400  # characters of one message shown (a hostile spec can make a message huge)


@dataclass(frozen=True)
class SpecError:
    """One problem in the specs: where, which op@version, which field, what was expected."""

    location: Location
    message: str
    op: str = ""  # "domain.Op@version" or "domain.Op"
    field: str = ""  # dotted field path, e.g. versions[1].attributes.alpha.default
    severity: Severity = "error"

    def __str__(self) -> str:
        parts = [str(self.location)]
        if self.op:
            parts.append(self.op)
        if self.field:
            parts.append(self.field)
        prefix = ": ".join(parts)
        tag = "" if self.severity == "error" else f"{self.severity}: "
        message = self.message if len(self.message) <= MAX_MESSAGE else \
            f"{self.message[:MAX_MESSAGE]}... ({len(self.message) - MAX_MESSAGE} more characters)"
        return f"{prefix}: {tag}{message}"


class OpgenError(Exception):
    """Base of the errors opgen reports to its user as a message (never as a traceback)."""


class SpecErrors(OpgenError):
    """Raised with every error of a run, so all of them are reported together."""

    def __init__(self, errors: list[SpecError]) -> None:
        self.errors = sorted(errors, key=_sort_key)
        super().__init__("\n".join(str(e) for e in self.errors))


def _sort_key(e: SpecError) -> tuple[str, int, int, str]:
    return (e.location.file, e.location.line, e.location.column, e.message)
