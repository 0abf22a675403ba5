"""What `opgen validate` does with a model file, shared by the click command (opgen.cli) and the console
script's fast path (opgen.entry), which runs a plain `opgen validate FILE` without importing click: on a
model of a few hundred nodes, importing the command line is about a tenth of the whole process."""
from __future__ import annotations

from pathlib import Path
from typing import Protocol


class Echo(Protocol):
    def __call__(self, message: str, *, err: bool = False) -> None: ...


def validate_command(model: Path, fmt: str, allow_unknown_ops: bool, specs: Path | None, echo: Echo) -> int:
    """Check the model, print its report (text lines or one JSON document) and return the exit status:
    0 valid, 1 problems found, 2 a file that cannot be read or checked (never a traceback for a file,
    whatever it holds)."""
    from . import ModelReadError, validate_model

    try:
        report = validate_model(model, allow_unknown_ops=allow_unknown_ops, specs=specs)
    except ModelReadError as exc:
        return _unreadable(model, str(exc), fmt, echo)
    except Exception as exc:  # noqa: BLE001 - a file's content must not end in a traceback
        return _unreadable(model, f"cannot be checked ({type(exc).__name__}: {exc})", fmt, echo)
    echo(report.to_json() if fmt == "json" else report.to_text())
    return report.exit_code


def _unreadable(model: Path, message: str, fmt: str, echo: Echo) -> int:
    from .report import dump_json, printable

    if fmt == "json":
        echo(dump_json({"file": str(model), "error": message}))
    # The message may quote the file's own text: printable keeps it one line, free of escape codes.
    echo(printable(f"opgen validate: {model}: {message}"), err=True)
    return 2
