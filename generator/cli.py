"""The `opgen` command line: build, list, show, lint, validate, run (opgen.cli_run), import."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .build import BuildResult, build_summary
from .errors import OpgenError, SpecError
from .paths import project_root as _project_root

if TYPE_CHECKING:  # the model's dataclasses cost ~30 ms to create: starting the command never needs them
    from .model import SpecSet




def _load(specs_dir: Path) -> SpecSet:
    from .parse import load_specs

    specs, errors = load_specs(specs_dir)
    real = [e for e in errors if e.severity == "error"]
    if real:
        _report(real)
        click.echo(f"{len(real)} error(s) in the specs; nothing was generated.", err=True)
        sys.exit(1)
    return specs


def _report(errors: list[SpecError]) -> None:
    for e in sorted(errors, key=lambda e: (e.location.file, e.location.line, e.location.column)):
        click.echo(str(e), err=True)


specs_option = click.option("--specs", "specs_dir", type=click.Path(path_type=Path), default=None,
                            help="Spec folder (default: ./specs of the project).")


class _Group(click.Group):
    """Every user-facing opgen error ends as a one-line message (exit 1), never as a traceback;
    anything else escaping a command is a bug and keeps its traceback."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except OpgenError as exc:
            raise click.ClickException(str(exc)) from None


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="opgen")
def main() -> None:
    """opgen: generate validators, NumPy and C kernels, docs and tests from operator specs."""


@main.command()
@specs_option
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=None,
              help="Output folder (default: the folder `generated` beside the spec folder).")
@click.option("--check", is_flag=True, help="Change nothing; exit 1 and list stale files if any.")
def build(specs_dir: Path | None, out_dir: Path | None, check: bool) -> None:
    """Regenerate what the specs changed since the last build (only files whose bytes change are written).

    The output goes to --out, or else to `generated/` beside the spec folder (so `--specs DIR`
    alone never writes into another project's output). Only files opgen wrote and nobody has
    edited since are ever removed.
    """
    from .build import run
    from .render import RenderError
    from .render.writer import BuildError

    specs_dir = specs_dir or _project_root() / "specs"
    out_dir = out_dir or specs_dir.parent / "generated"
    try:
        result: BuildResult | OpgenError = run(specs_dir, out_dir, check=check)
    except (BuildError, RenderError) as exc:
        result = exc
    report_build(result, out_dir, check)


def report_build(result: BuildResult | OpgenError, out_dir: Path, check: bool) -> None:
    """Say what a build did (or why it could not run), and exit 1 when it failed or, with --check, found
    stale files. Also used by the console command's no-op fast path (opgen.entry)."""
    if isinstance(result, OpgenError):
        click.echo(f"opgen build: {result}", err=True)
        sys.exit(1)
    if result.outcome is None:
        _report(result.errors)
        click.echo(f"{len(result.errors)} error(s) in the specs; nothing was generated.", err=True)
        sys.exit(1)
    _report(result.errors)  # warnings
    outcome = result.outcome
    if check:
        for rel in outcome.written:
            click.echo(f"stale: {rel}")
        for rel in outcome.removed:
            click.echo(f"no longer generated: {rel}")
        click.echo(f"opgen build --check: {outcome.summary(check=True)}")
        if outcome.written or outcome.removed:
            click.echo(f"{out_dir} is out of date: run `opgen build` and commit the result.", err=True)
            sys.exit(1)
        return
    for rel in outcome.kept:
        click.echo(f"kept: {rel} (no longer generated, but edited since opgen wrote it: remove it by hand)")
    click.echo(build_summary(result))
    if result.coverage:
        click.echo(result.coverage)


@main.command(name="list")
@specs_option
@click.option("--domain", default=None, help="Only this domain.")
@click.option("--kernels", is_flag=True, help="Per op version: its NumPy kernel and the element types of its C kernels.")
def list_ops(specs_dir: Path | None, domain: str | None, kernels: bool) -> None:
    """List the ops of every domain with their versions."""
    specs = _load(specs_dir or _project_root() / "specs")
    if kernels:
        from .render.c_code import type_plan

        for v in (v for d in specs.domains if not domain or d.name == domain for o in d.ops for v in o.versions):
            numpy = "formula" if v.elementwise else f"runtime {v.kernel}" if v.kernel else "none"
            plan = type_plan(v) if v.elementwise and all(p.option == "single" for p in v.inputs) else []
            c_types = ", ".join(elem_in.name for elem_in, _, _ in plan) or "stub (OPGEN_ERR_NOT_IMPLEMENTED)"
            click.echo(f"{v.key}  numpy: {numpy}  C: {c_types}")
        return
    for d in specs.domains:
        if domain and d.name != domain:
            continue
        for op in d.ops:
            versions = ", ".join(str(v.since_version) for v in op.versions)
            tag = "" if op.provenance.documented else "  (undocumented in source)"
            tag += f"  (extension: {op.extension})" if op.extension else ""
            click.echo(f"{d.name}.{op.name}  [{versions}]  {op.category}{tag}")


@main.command()
@specs_option
@click.argument("ref")
@click.option("--lang", type=click.Choice(["en", "zh"]), default="en", show_default=True)
def show(specs_dir: Path | None, ref: str, lang: str) -> None:
    """Show one op version, e.g. `opgen show onnx.PRelu@9` (no @version: the newest)."""
    from .show import describe, parse_ref

    specs = _load(specs_dir or _project_root() / "specs")
    try:
        domain, name, version = parse_ref(ref)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="REF") from None
    op = specs.find(domain, name)
    if op is None:
        raise click.ClickException(f"no op {domain}.{name}; try `opgen list`")
    v = op.resolve(version) if version is not None else op.versions[0]
    if v is None:
        raise click.ClickException(f"{domain}.{name} has no version <= {version}")
    click.echo(describe(op, v, lang))


@main.command()
@specs_option
def lint(specs_dir: Path | None) -> None:
    """Check the specs and report every text lacking its English or Chinese form."""
    from .lint import missing_translations

    specs = _load(specs_dir or _project_root() / "specs")
    problems = missing_translations(specs)
    _report(problems)
    click.echo(f"opgen lint: {len(problems)} missing translation(s) in {len(specs.ops())} ops")
    if problems:
        sys.exit(1)


@main.command()
@click.argument("model", type=click.Path(path_type=Path, dir_okay=True))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Report as text lines or as JSON records.")
@click.option("--allow-unknown-ops", is_flag=True, help="An op without a spec is a warning, not an error.")
@click.option("--specs", "specs_dir", type=click.Path(path_type=Path), default=None,
              help="Check against the specs in this folder (rendered in memory) instead of the generated package.")
def validate(model: Path, fmt: str, allow_unknown_ops: bool, specs_dir: Path | None) -> None:
    """Check a model (ONNX .onnx, oneDNN Graph .json, hlir graph .json/.yaml) against the specs.

    Exit status: 0 valid, 1 problems found, 2 unreadable file or bad usage.
    """
    from .validate import ModelReadError, validate_model

    try:
        report = validate_model(model, allow_unknown_ops=allow_unknown_ops, specs=specs_dir)
    except ModelReadError as exc:
        _unreadable(model, str(exc), fmt)
    except Exception as exc:  # never a traceback for a file, whatever it holds
        _unreadable(model, f"cannot be checked ({type(exc).__name__}: {exc})", fmt)
    if fmt == "json":
        click.echo(report.to_json())
    else:
        click.echo(report.to_text())
    sys.exit(report.exit_code)


def _unreadable(model: Path, message: str, fmt: str) -> None:
    from .validate.report import dump_json, printable

    if fmt == "json":
        click.echo(dump_json({"file": str(model), "error": message}))
    # The message may quote the file's own text: printable keeps it one line, free of escape codes.
    click.echo(printable(f"opgen validate: {model}: {message}"), err=True)
    sys.exit(2)


@main.group(name="import")
def import_() -> None:
    """Write specs from another operator set's own definitions (today: the onnx package)."""


@import_.command(name="onnx")
@click.option("--op", "ops", multiple=True, metavar="NAME",
              help="An ONNX operator to import (repeat, or separate names by commas).")
@click.option("--all", "all_ops", is_flag=True, help="Every operator of the default domain (hand-written specs "
              "are left alone).")
@click.option("--category", default=None, help="Documentation category of new specs (e.g. activation).")
@click.option("--texts", "texts_dir", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="A folder of <Op>.yaml text files (slots summary, attributes.<name>, ...) to take texts from.")
@specs_option
def import_onnx(ops: tuple[str, ...], all_ops: bool, category: str | None, texts_dir: Path | None,
                specs_dir: Path | None) -> None:
    """Write specs/onnx/<Op>.yaml for the named ops from the installed onnx package (all versions).

    A new import refreshes the facts and keeps texts, constraints, formulas and examples; hand-written
    specs are never overwritten. Texts missing everywhere are ONNX's English (`opgen lint` lists them).
    """
    from .importer import ImportFailed
    from .importer import import_onnx as run_import

    if not ops and not all_ops:
        raise click.UsageError("name the operators with --op NAME, or give --all")
    names = [n.strip() for item in ops for n in item.split(",") if n.strip()]
    try:
        result = run_import(names, specs_dir or _project_root() / "specs", category, texts_dir, all_ops)
    except ImportFailed as exc:
        raise click.ClickException(str(exc)) from None
    for note in result.notes:
        click.echo(note)
    for path in result.written:
        click.echo(f"wrote {path}")
    if result.skipped:
        click.echo(f"left alone (hand-written): {', '.join(result.skipped)}")
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    for error in result.errors:
        click.echo(f"error: {error}", err=True)
    if result.missing_texts:
        click.echo(f"{result.missing_texts} text(s) lack Chinese (or English); `opgen lint` lists them")
    click.echo(f"opgen import onnx: {len(result.written)} spec(s) written, {len(result.errors)} error(s)")
    if result.errors:
        sys.exit(1)


def _register_run() -> None:
    from .cli_run import run

    main.add_command(run)


_register_run()


if __name__ == "__main__":
    main()
