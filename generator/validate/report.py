"""What `opgen validate` found: one record per problem, a summary line, text and JSON renderings."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# Characters that must not reach a terminal or a log raw: C0/C1 controls (newlines would forge report
# lines, ESC starts ANSI sequences), line/paragraph separators, bidirectional overrides (which reorder
# what is shown) and lone surrogates (which no UTF-8 stream can encode).
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """Text safe to print as (part of) one line: every character a file could use to forge or hide
    output is shown as a backslash escape."""
    return _UNPRINTABLE.sub(_escape, text)


def to_str(value: Any) -> str:
    """A name read from a file as text: protobuf hands out bytes for strings that are not UTF-8.

    surrogateescape keeps distinct byte strings distinct (two bad names stay two values) and never
    equal to a real UTF-8 name; printable() and dump_json() show the surrogates as escapes."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "surrogateescape")
    return str(value)


def dump_json(data: Any, indent: int | None = None) -> str:
    """JSON text that any UTF-8 stream can carry: non-ASCII stays readable, unless a lone surrogate
    (valid in a Python str, not in UTF-8) needs the \\uXXXX escapes that ensure_ascii writes."""
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(data, indent=indent, ensure_ascii=True)
    return text


@dataclass(frozen=True)
class Record:
    """One problem (severity "error") or warning, located at a node or at a graph."""

    severity: str  # "error" | "warning"
    op: str  # "onnx.PRelu@16" for a checked node; "onnx.Foo" for an op without a spec; "" for graph problems
    where: str  # "input 'X'", "attribute 'alpha'", "constraint C1", "op", "graph", ...
    message: str  # what was found and what the spec allows
    node: str | None = None  # node name ("" when the node has none); None for a graph-level record
    index: int | None = None  # node position in its graph
    graph: str = ""  # "" for the main graph; e.g. "node 'loop' (#3) attribute 'body'" for a nested one
    found: Any = None
    expected: Any = None

    @property
    def location(self) -> str:
        if self.index is not None:
            at = f"node {self.node!r} (#{self.index})" if self.node else f"node #{self.index}"
        else:
            at = "graph"
        return f"{at} in {self.graph}" if self.graph else at

    def __str__(self) -> str:
        parts = [self.location]
        if self.op:
            parts.append(self.op)
        parts += [self.where, self.message]
        return ": ".join(p for p in parts if p)

    def to_dict(self) -> dict[str, Any]:
        return {"severity": self.severity, "node": self.node, "index": self.index, "graph": self.graph,
                "op": self.op, "where": self.where, "message": self.message,
                "found": jsonable(self.found), "expected": jsonable(self.expected)}


def jsonable(value: Any) -> Any:
    """Plain JSON data for a found/expected value (numbers, strings, lists; anything else as text)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (bytes, bytearray)):
        return to_str(value)
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray) and value.size <= 64:
        return jsonable(value.tolist())
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    return str(value)


@dataclass
class Report:
    file: str  # the name shown in the output
    kind: str  # onnx | onednn | hlir
    context: str  # e.g. "onnx opset 16"
    nodes: int = 0  # nodes walked, nested graphs included
    records: list[Record] = field(default_factory=list)
    unchecked: dict[str, int] = field(default_factory=dict)  # nodes not checked (their op has no spec), by op

    @property
    def checked(self) -> int:
        """Nodes checked against a spec."""
        return self.nodes - sum(self.unchecked.values())

    @property
    def problems(self) -> list[Record]:
        return [r for r in self.records if r.severity == "error"]

    @property
    def warnings(self) -> list[Record]:
        return [r for r in self.records if r.severity == "warning"]

    @property
    def valid(self) -> bool:
        # A walk that checked nothing does not vouch for the model (every node without a spec).
        return not self.problems and (self.checked > 0 or self.nodes == 0)

    @property
    def exit_code(self) -> int:
        return 0 if self.valid else 1

    def __bool__(self) -> bool:  # a report is truthy when the model is valid
        return self.valid

    def summary(self) -> str:
        problems = self.problems
        bad_nodes = {(r.graph, r.index) for r in problems if r.index is not None}
        text = (f"{self.file}: {_plural(len(problems), 'problem')} in {len(bad_nodes)} of "
                f"{_plural(self.nodes, 'node')}")
        if self.warnings:
            text += f", {_plural(len(self.warnings), 'warning')}"
        if self.unchecked:
            ranked = sorted(self.unchecked.items(), key=lambda kv: (-kv[1], kv[0]))
            shown = ", ".join(f"{op} ×{n}" for op, n in ranked[:6]) + (f" and {len(ranked) - 6} more op(s)"
                                                                       if len(ranked) > 6 else "")
            text += (f"; {self.checked} of {_plural(self.nodes, 'node')} checked, "
                     f"{sum(self.unchecked.values())} not ({shown} have no spec)")
            if self.checked == 0:
                text += "; nothing was checked, so the model is not called valid"
        return f"{text} ({self.context})" if self.context else text

    def to_text(self) -> str:
        # Names come from the file: each line is made printable, so one record is one line.
        lines = [f"{self.file}: {'warning: ' if r.severity == 'warning' else ''}{r}" for r in self.records]
        lines.append(self.summary())
        return "\n".join(map(printable, lines))

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "format": self.kind, "context": self.context, "valid": self.valid,
                "nodes": self.nodes, "checked": self.checked, "unchecked": dict(self.unchecked),
                "problems": len(self.problems), "warnings": len(self.warnings),
                "summary": self.summary(), "records": [r.to_dict() for r in self.records]}

    def to_json(self) -> str:
        return dump_json(self.to_dict(), indent=2)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
