"""`opgen run MODEL --input NAME=FILE.npy ... --output-dir DIR`: run a model on the generated kernels.

Exit status: 0 the model ran and every output was written; 1 the model is not valid (nothing runs)
or a node failed (the node is named); 2 bad usage, an unreadable model or input file, or an output
that cannot be written. Outputs are written only once every node has run, each to a temporary file
renamed into place: a failed run leaves no output file behind, complete or partial.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import click

from .files import open_regular, write_atomically

_SAFE = re.compile(r"[^A-Za-z0-9._-]")


def _fail(message: str, code: int) -> None:
    from .validate.report import printable

    click.echo(printable(f"opgen run: {message}"), err=True)
    sys.exit(code)


def _load_input(spec: str) -> tuple[str, Any]:
    """NAME=FILE: a .npy file (a tensor) or a .npz file (a sequence: its arrays in key order)."""
    import numpy as np

    name, sep, file = spec.partition("=")
    if not sep or not name or not file:
        _fail(f"--input {spec!r}: expected NAME=FILE.npy (or NAME=FILE.npz for a sequence)", 2)
    path = Path(file)
    try:
        with open_regular(path) as handle:  # a named pipe is refused, not waited on
            if path.suffix.lower() == ".npz":
                with np.load(handle, allow_pickle=False) as archive:
                    keys = sorted(archive.files, key=lambda k: (len(k), k))
                    return name, [archive[k] for k in keys]
            return name, np.load(handle, allow_pickle=False)
    except (OSError, ValueError) as exc:
        _fail(f"--input {name}: cannot read {file}: {exc}", 2)
    raise AssertionError("unreachable")


def file_names(outputs: list[str]) -> dict[str, str]:
    """A file stem per output name: unsafe characters replaced, clashes numbered."""
    stems: dict[str, str] = {}
    taken: set[str] = set()
    for name in outputs:
        stem = _SAFE.sub("_", name).lstrip(".") or "output"
        candidate, k = stem, 1
        while candidate.lower() in taken:
            k += 1
            candidate = f"{stem}_{k}"
        taken.add(candidate.lower())
        stems[name] = candidate
    return stems


def _write_atomically(path: Path, save: Any) -> None:
    try:
        write_atomically(str(path), save)
    except OSError as exc:  # a read-only folder, a full disk
        _fail(f"{path} cannot be written: {exc.strerror or exc}", 2)


def write_outputs(results: dict[str, Any], out_dir: Path) -> list[str]:
    """Each output as DIR/<name>.npy (a sequence as .npz, an empty optional: no file); lines to print."""
    import numpy as np

    from .runtime.values import OptionalValue, SequenceValue

    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        _fail(f"--output-dir {out_dir} cannot be created: {exc.strerror or exc}", 2)
    lines = []
    for name, stem in file_names(list(results)).items():
        value = results[name]
        if isinstance(value, OptionalValue):
            if value.value is None:
                lines.append(f"{name}: empty optional (no file written)")
                continue
            value = value.value
        if isinstance(value, SequenceValue):
            path = out_dir / f"{stem}.npz"
            arrays = {str(k): a for k, a in enumerate(value)}
            _write_atomically(path, lambda f, arrays=arrays: np.savez(f, **arrays))
            lines.append(f"{name}: sequence of {len(value)} tensor(s) -> {path}")
            continue
        array = np.asarray(value)
        path = out_dir / f"{stem}.npy"
        _write_atomically(path, lambda f, array=array: np.save(f, array, allow_pickle=array.dtype == object))
        lines.append(f"{name}: {array.dtype}{list(array.shape)} -> {path}")
    return lines


@click.command(name="run")
@click.argument("model", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--input", "inputs", multiple=True, metavar="NAME=FILE.npy",
              help="A model input from a .npy file (a sequence input: a .npz file); repeat for each input.")
@click.option("--output-dir", type=click.Path(path_type=Path, file_okay=False), required=True,
              help="Folder for the outputs: one NAME.npy per output (a sequence: NAME.npz).")
def run(model: Path, inputs: tuple[str, ...], output_dir: Path) -> None:
    """Run a model (ONNX .onnx, hlir graph, oneDNN Graph .json, StableHLO .mlir/.mlirbc) on opgen's
    reference kernels.

    The model is validated first (problems: exit 1, nothing runs); each node is checked again as it
    runs. Exit status: 0 done, 1 invalid model or a node failed, 2 bad usage, an unreadable file or an
    output that cannot be written.
    """
    from .run import ModelError, run_model, terminal_progress
    from .runtime.graph_runner import GraphError

    given = [spec.partition("=")[0] for spec in inputs]
    repeated = sorted({name for name in given if name and given.count(name) > 1})
    if repeated:  # which of two files was meant is not for opgen to guess
        _fail(f"--input {', '.join(repeated)}: given more than once", 2)
    feeds = dict(_load_input(spec) for spec in inputs)
    try:
        results = run_model(model, feeds, progress=terminal_progress())
    except ModelError as exc:
        _fail(f"{model}: {exc}", exc.exit_code)
    except GraphError as exc:
        _fail(f"{model}: {exc}", 1)
    for line in write_outputs(results, output_dir):
        click.echo(line)
