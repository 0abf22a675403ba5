"""How `opgen build` reports what it did: spec errors and warnings (located, in colour on a terminal),
files kept or stale, the summary line and the kernel coverage. Both the click command (opgen.cli) and
the console command's own build path (opgen.entry) use it; it does not import click, which would cost
an edit's build about a tenth of its time."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import OpgenError

if TYPE_CHECKING:  # `opgen validate` and `opgen run` report through opgen.cli without importing the build
    from .build import BuildResult
    from .errors import SpecError

_COLOURS = {"red": 31, "yellow": 33}


def _echo(text: str, err: bool = False) -> None:
    """click.echo for text: one line (or several) to stdout or stderr, flushed."""
    stream = sys.stderr if err else sys.stdout
    stream.write(f"{text}\n")
    stream.flush()


def _style(text: str, fg: str, bold: bool = False) -> str:
    """click.style's ANSI codes for a foreground colour (used only when stderr is a terminal)."""
    return f"\x1b[{_COLOURS[fg]}m" + ("\x1b[1m" if bold else "") + f"{text}\x1b[0m"


def report_errors(errors: list[SpecError]) -> int:
    """Spec errors on stderr, one per fault: an error inside a YAML anchor that several versions share
    is one error naming every version. On a terminal, in colour and with the spec line and a caret."""
    from .errors import merge_shared

    tty = sys.stderr.isatty()
    shown = merge_shared(sorted(errors, key=lambda e: (e.location.file, e.location.line, e.location.column)))
    for e in shown:
        e = e.relative_to(Path.cwd())
        if not tty:
            _echo(str(e), err=True)
            continue
        colour = "red" if e.severity == "error" else "yellow"
        _echo(_style(str(e), fg=colour, bold=True), err=True)
        source = _source_line(e.location.file, e.location.line)
        if source is not None and e.location.column:
            _echo(f"    {source}\n    {' ' * (e.location.column - 1)}{_style('^', fg=colour)}", err=True)
    return len(shown)


def _source_line(file: str, line: int) -> str | None:
    try:
        with open(file, encoding="utf-8") as handle:
            for number, text in enumerate(handle, 1):
                if number == line:
                    return text.rstrip("\n")[:200]
    except (OSError, UnicodeDecodeError):
        return None
    return None


def echo_json(doc: Any) -> None:
    import json

    _echo(json.dumps(doc, ensure_ascii=False, indent=2))


def error_record(e: SpecError) -> dict[str, Any]:
    return {"file": e.location.file, "line": e.location.line, "column": e.location.column, "op": e.op,
            "field": e.field, "severity": e.severity, "message": e.message}


def report_build(result: BuildResult | OpgenError, out_dir: Path, check: bool, as_json: bool = False) -> None:
    """Say what a build did (or why it could not run), and exit 1 when it failed or, with --check, found
    stale files."""
    if as_json and check:
        _report_check_json(result, out_dir)
    if isinstance(result, OpgenError):
        _echo(f"opgen build: {result}", err=True)
        sys.exit(1)
    if result.outcome is None:
        count = report_errors(result.errors)
        _echo(f"{count} error(s) in the specs; nothing was generated.", err=True)
        sys.exit(1)
    report_errors(result.errors)  # warnings
    outcome = result.outcome
    if check:
        for rel in outcome.written:
            _echo(f"stale: {rel}")
        for rel in outcome.removed:
            _echo(f"no longer generated: {rel}")
        _echo(f"opgen build --check: {outcome.summary(check=True)}")
        if outcome.written or outcome.removed:
            _echo(f"{out_dir} is out of date: run `opgen build` and commit the result.", err=True)
            sys.exit(1)
        return
    for rel in outcome.kept:
        _echo(f"kept: {rel} (no longer generated, but edited since opgen wrote it: remove it by hand)")
    from .build import build_summary

    _echo(build_summary(result))
    if result.coverage:
        _echo(result.coverage)


def _report_check_json(result: BuildResult | OpgenError, out_dir: Path) -> None:
    """`build --check --format json`: {"fresh", "stale", "removed", "errors", ...}; exit 1 unless fresh."""
    if isinstance(result, OpgenError):
        echo_json({"output": str(out_dir), "fresh": False, "error": str(result)})
        sys.exit(1)
    doc: dict[str, Any] = {"output": str(out_dir), "errors": [error_record(e) for e in result.errors]}
    if result.outcome is None:
        doc["fresh"] = False
    else:
        doc.update(fresh=not (result.outcome.written or result.outcome.removed),
                   stale=list(result.outcome.written), removed=list(result.outcome.removed),
                   summary=result.outcome.summary(check=True))
    echo_json(doc)
    sys.exit(0 if doc["fresh"] else 1)


