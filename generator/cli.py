"""The `opgen` command line: build, list, show, lint, validate, run (opgen.cli_run), import."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import click

from .build_report import echo_json as _echo_json
from .build_report import error_record as _error_record
from .build_report import report_build
from .build_report import report_errors as _report
from .errors import OpgenError
from .paths import project_specs, reading_specs

if TYPE_CHECKING:  # the model's dataclasses cost ~30 ms to create: starting the command never needs them
    from .build import BuildResult  # the build's imports: `opgen validate` and `opgen run` never need them
    from .model import SpecSet




def _load(specs_dir: Path) -> SpecSet:
    from .parse import load_specs

    specs, errors = load_specs(specs_dir)
    real = [e for e in errors if e.severity == "error"]
    if real:
        count = _report(real)
        click.echo(f"{count} error(s) in the specs; nothing was generated.", err=True)
        sys.exit(1)
    return specs


specs_option = click.option("--specs", "specs_dir", type=click.Path(path_type=Path), default=None,
                            help="Spec folder (default: the specs/ folder of the current directory or a parent; "
                                 "list, show and lint fall back to the specs opgen ships).")


_F = TypeVar("_F", bound=Callable[..., Any])


def format_option(help_text: str = "Print text lines, or one JSON document.") -> Callable[[_F], _F]:
    return click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
                        help=help_text)


def _domain_or_exit(specs: SpecSet, domain: str | None) -> None:
    from .errors import suggest

    names = [d.name for d in specs.domains]
    if domain is not None and domain not in names:
        raise click.BadParameter(f"no domain {domain!r}{suggest(domain, names)}; the domains: {', '.join(names)}",
                                 param_hint="--domain")


def _project_specs_or_exit(command: str) -> Path:
    """A writing command's spec folder when --specs is not given: the project's, never the bundled one
    (building it would write beside the installed package)."""
    found = project_specs()
    if found is None:
        raise click.UsageError(f"no specs/ folder in the current directory or above it; run `opgen {command}` "
                               "in your project or pass --specs DIR")
    return found


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
@format_option("With --check: the stale files as text lines or as one JSON document.")
def build(specs_dir: Path | None, out_dir: Path | None, check: bool, fmt: str) -> None:
    """Regenerate what the specs changed since the last build (only files whose bytes change are written).

    The output goes to --out, or else to `generated/` beside the spec folder (so `--specs DIR`
    alone never writes into another project's output). Only files opgen wrote and nobody has
    edited since are ever removed.
    """
    from .build_parallel import single_threaded_blas

    single_threaded_blas()
    from .build import run
    from .render import RenderError
    from .render.writer import BuildError

    specs_dir = specs_dir or _project_specs_or_exit("build")
    out_dir = out_dir or specs_dir.parent / "generated"
    try:
        result: BuildResult | OpgenError = run(specs_dir, out_dir, check=check)
    except (BuildError, RenderError) as exc:
        result = exc
    report_build(result, out_dir, check, as_json=fmt == "json")


@main.command(name="list")
@specs_option
@click.option("--domain", default=None, help="Only this domain.")
@click.option("--kernels", is_flag=True, help="Per op version: its NumPy kernel and the element types of its C kernels.")
@format_option()
def list_ops(specs_dir: Path | None, domain: str | None, kernels: bool, fmt: str) -> None:
    """List the ops of every domain with their versions."""
    specs = _load(reading_specs(specs_dir))
    _domain_or_exit(specs, domain)
    if fmt == "json":
        _echo_json(_list_json(specs, domain, kernels))
        return
    if kernels:
        from .render.c_code import type_plan
        from .render.c_structured import structured_types

        for v in (v for d in specs.domains if not domain or d.name == domain for o in d.ops for v in o.versions):
            numpy = "formula" if v.elementwise else f"runtime {v.kernel}" if v.kernel else "none"
            plan = type_plan(v) if v.elementwise and all(p.option == "single" for p in v.inputs) else []
            c_types = ", ".join([elem_in.name for elem_in, _, _ in plan] or structured_types(v)) \
                or "stub (OPGEN_ERR_NOT_IMPLEMENTED)"
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


def _list_json(specs: SpecSet, domain: str | None, kernels: bool) -> list[dict[str, Any]]:
    from .render.c_code import type_plan
    from .render.c_structured import structured_types

    rows = []
    for d in specs.domains:
        if domain and d.name != domain:
            continue
        for op in d.ops:
            row: dict[str, Any] = {"domain": d.name, "op": op.name, "category": op.category,
                                   "versions": [v.since_version for v in op.versions],
                                   "documented": op.provenance.documented}
            if kernels:
                row["kernels"] = [{
                    "version": v.since_version,
                    "numpy": "formula" if v.elementwise else v.kernel,
                    "c": [e.name for e, _, _ in (type_plan(v) if v.elementwise and all(
                        p.option == "single" for p in v.inputs) else [])] or structured_types(v)} for v in op.versions]
            rows.append(row)
    return rows


@main.command()
@specs_option
@click.argument("ref")
@click.option("--lang", type=click.Choice(["en", "zh"]), default="en", show_default=True)
@format_option()
def show(specs_dir: Path | None, ref: str, lang: str, fmt: str) -> None:
    """Show one op version, e.g. `opgen show onnx.PRelu@9` (no @version: the newest): its summary,
    attributes, inputs and outputs with their shapes, type constraints, numbered constraints, kernel,
    notes, examples and sources."""
    from .errors import suggest
    from .parse import load_single_op
    from .show import describe, parse_ref, version_view

    try:
        domain, name, version = parse_ref(ref)
    except ValueError as exc:
        raise click.BadParameter(str(exc) + _domains_having(reading_specs(specs_dir), ref), param_hint="REF") from None
    # Only the domain's file and the op's are read (the whole set takes seconds); a problem in another
    # spec does not keep this one from being shown, one in these files does.
    domains, names, op, errors = load_single_op(reading_specs(specs_dir), domain, name)
    real = [e for e in errors if e.severity == "error"]
    if real:
        count = _report(real)
        click.echo(f"{count} error(s) in the specs; nothing was shown.", err=True)
        sys.exit(1)
    if domain not in domains:
        raise click.BadParameter(f"no domain {domain!r}{suggest(domain, domains)}; the domains: {', '.join(domains)}",
                                 param_hint="REF")
    if op is None:
        by_case = [n for n in names if n.lower() == name.lower()]
        hint = f" (did you mean {by_case[0]!r}?)" if by_case else suggest(name, names)
        raise click.ClickException(f"no op {domain}.{name}{hint}; `opgen list --domain {domain}` lists them")
    v = op.resolve(version) if version is not None else op.versions[0]
    if v is None:
        raise click.ClickException(f"{domain}.{name} has no version <= {version}; its versions: "
                                   + ", ".join(str(x.since_version) for x in op.versions))
    if fmt == "json":
        _echo_json(version_view(op, v, lang))
    else:
        click.echo(describe(op, v, lang))


def _domains_having(specs_dir: Path, ref: str) -> str:
    """For a ref without its domain (`opgen show Relu`): the refs that name an op of that name, as a hint."""
    from .parse import op_files, spec_folders

    name, at, version = ref.partition("@")
    if not name.isidentifier() or not specs_dir.is_dir():
        return ""
    found = [(folder.name, path.stem) for folder in spec_folders(specs_dir)[0] for path in op_files(folder)
             if path.stem.lower() == name.lower()]
    exact = [(domain, op) for domain, op in found if op == name]  # PRelu: not oneDNN's PReLU as well
    refs = [f"{domain}.{op}{at}{version}" for domain, op in exact or found]
    return f"; did you mean {' or '.join(refs)}?" if refs else ""


@main.command()
@specs_option
@format_option()
def lint(specs_dir: Path | None, fmt: str) -> None:
    """Check the specs' texts: every one in English and Chinese, none still a placeholder, Chinese
    punctuation in Chinese sentences."""
    from .lint import chinese_punctuation, missing_translations

    specs = _load(reading_specs(specs_dir))
    problems = missing_translations(specs) + chinese_punctuation(specs)
    if fmt == "json":
        _echo_json({"ops": len(specs.ops()), "problems": [_error_record(e) for e in problems]})
        sys.exit(1 if problems else 0)
    _report(problems)
    click.echo(f"opgen lint: {len(problems)} text problem(s) (missing, placeholder, punctuation) in "
               f"{len(specs.ops())} ops")
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
    """Check a model (ONNX .onnx, oneDNN Graph .json, hlir graph .json/.yaml, StableHLO .mlir/.mlirbc)
    against the specs.

    Exit status: 0 valid, 1 problems found, 2 unreadable file or bad usage.
    """
    from .validate.command import validate_command

    sys.exit(validate_command(model, fmt, allow_unknown_ops, specs_dir, click.echo))


@main.command()
@click.argument("ref", metavar="DOMAIN.OP")
@click.option("--category", required=True, help="Documentation group of the op (e.g. activation, elementwise_math).")
@click.option("--source", default=None, metavar="FILE",
              help="The op's source document in the spec folder's sources/ (default: the one the domain cites most).")
@specs_option
def new(ref: str, category: str, source: str | None, specs_dir: Path | None) -> None:
    """Write a starter spec DOMAIN/OP.yaml: valid, one version, placeholders `opgen lint` reports."""
    from .new import starter_spec
    from .show import parse_ref

    try:
        domain, name, version = parse_ref(ref)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="DOMAIN.OP") from None
    if version is not None:
        raise click.BadParameter("name the op without @version", param_hint="DOMAIN.OP")
    folder = specs_dir or _project_specs_or_exit("new")
    _category_or_exit(folder, category)
    starter = starter_spec(folder, domain, name, category, source)
    try:
        starter.path.write_text(starter.text, encoding="utf-8")
    except OSError as exc:  # a read-only spec folder, a full disk
        raise click.ClickException(f"{starter.path} cannot be written: {exc.strerror or exc}") from None
    click.echo(f"wrote {starter.path}: fill in its TODOs (`opgen lint` lists them), then run `opgen build`")


def _category_or_exit(specs_dir: Path, category: str) -> None:
    import json

    from .errors import suggest
    from .paths import schema_dir

    schema = json.loads((schema_dir(specs_dir) / "op.schema.json").read_text(encoding="utf-8"))
    allowed = schema["properties"]["category"]["enum"]
    if category not in allowed:
        raise click.BadParameter(f"{category!r} is not a category{suggest(category, allowed)}; the categories: "
                                 f"{', '.join(allowed)}", param_hint="--category")


@main.group(name="import")
def import_() -> None:
    """Write specs from another operator set's own definitions (today: the onnx package)."""


@import_.command(name="onnx")
@click.option("--op", "ops", multiple=True, metavar="NAME",
              help="An ONNX operator to import (repeat, or separate names by commas).")
@click.option("--all", "all_ops", is_flag=True, help="Every operator of the default domain (hand-written specs "
              "are left alone).")
@click.option("--category", default=None, help="Documentation category of new specs (e.g. activation); default: "
              "the one most specs of the op's ONNX group (onnx/defs/<group>) have here, else the group's own.")
@click.option("--texts", "texts_dir", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="A folder of <Op>.yaml text files (slots summary, attributes.<name>, ...) to take texts from.")
@click.option("--onnx-domain", default="", metavar="DOMAIN",
              help="The ONNX operator domain of the ops (e.g. ai.onnx.ml); default: the default domain.")
@specs_option
def import_onnx(ops: tuple[str, ...], all_ops: bool, category: str | None, texts_dir: Path | None,
                onnx_domain: str, specs_dir: Path | None) -> None:
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
        result = run_import(names, specs_dir or _project_specs_or_exit("import onnx"), category, texts_dir, all_ops,
                            onnx_domain)
    except ImportFailed as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:  # a spec file that cannot be written (a read-only folder, a full disk)
        where = f"{exc.filename} cannot be written: " if exc.filename else ""
        raise click.ClickException(f"{where}{exc.strerror or exc}") from None
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
