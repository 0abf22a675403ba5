"""Source locations and the error type every stage reports through."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Literal, NamedTuple

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

    def relative_to(self, folder: Path) -> "SpecError":
        """The same error with its file named relative to `folder` when it lies below it."""
        try:
            rel = Path(self.location.file).resolve().relative_to(folder.resolve())
        except (ValueError, OSError):
            return self
        return dataclasses.replace(self, location=self.location._replace(file=rel.as_posix()))

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


def merge_shared(errors: list[SpecError]) -> list[SpecError]:
    """One error per fault: the same message at the same place for several versions of an op (a text or
    entry shared through a YAML anchor is checked once per version that uses it) becomes one error
    naming every version, e.g. "onnx.Foo@13, @11, @6"."""
    merged: dict[tuple[Location, str, str], list[SpecError]] = {}
    for e in errors:
        op = e.op.split("@", 1)[0]
        merged.setdefault((e.location, op, e.message), []).append(e)
    out = []
    for group in merged.values():
        first = group[0]
        versions = [e.op.split("@", 1)[1] for e in group if "@" in e.op]
        if len(group) > 1 and len(versions) == len(group):
            first = dataclasses.replace(first, op=f"{first.op.split('@', 1)[0]}@" + ", @".join(versions),
                                        field=_common_field([e.field for e in group]))
        out.append(first)
    return out


def _common_field(fields: list[str]) -> str:
    """The field path the errors share, with the version index left out when it differs."""
    import re

    unindexed = {re.sub(r"^versions\[\d+\]\.?", "", f) for f in fields}
    return unindexed.pop() if len(unindexed) == 1 else fields[0]


class OpgenError(Exception):
    """Base of the errors opgen reports to its user as a message (never as a traceback)."""


class SpecErrors(OpgenError):
    """Raised with every error of a run, so all of them are reported together."""

    def __init__(self, errors: list[SpecError]) -> None:
        self.errors = sorted(errors, key=_sort_key)
        super().__init__("\n".join(str(e) for e in self.errors))


def _sort_key(e: SpecError) -> tuple[str, int, int, str]:
    return (e.location.file, e.location.line, e.location.column, e.message)


def suggest(word: str, choices: Iterable[str]) -> str:
    """" (did you mean 'x'?)" for the closest of `choices`, or "" when none is close."""
    import difflib

    close = difflib.get_close_matches(word, list(choices), n=2, cutoff=0.6)
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
