"""The `opgen` console command.

`opgen build` is what people run most (after every edit, from make, from an editor's save hook), and
most often it has nothing to do. That is first asked of the no-op stamp (opgen.build_stamp: file
statuses only, nothing else imported); failing that, the build runs here without importing click,
which costs about a fifth of a no-op; only a build with something to say (files written, warnings,
errors) imports the command line (opgen.cli) to report it. Every other command goes straight to the
command line, except a plain `opgen validate FILE`, which runs without click too (opgen.validate.command).
The console script (console) then leaves a build or that check without the interpreter's teardown."""
from __future__ import annotations

import sys


def console() -> None:
    """The `opgen` console script: main(), and after a build or a plain `opgen validate FILE`, leave
    without tearing the interpreter down. A build ends with everything written, closed and saved
    (outputs, manifest, caches), a check with its report printed and flushed; what is left is freeing
    modules and objects one by one (a tenth of an edit's build, of a small model's check). Other commands
    exit the usual way (their libraries may have exit handlers); main() itself, which tests call in
    their own process, never cuts the process short."""
    if sys.argv[1:] != ["build"] and not _plain_validate(sys.argv[1:]):
        main()
        return
    try:
        main()
    except SystemExit as exc:
        _leave(exc.code)
    except BrokenPipeError:
        # Whoever read the report stopped early (`opgen build | head -1`); the build itself is done. Status 1
        # and no traceback, as click gives its own commands.
        _leave(1)
    except KeyboardInterrupt:
        # Ctrl-C: no file is half-written (each is renamed into place whole) and the manifest's journal
        # lets the next build finish the job; say so in one line, with the shell's status for SIGINT.
        print("opgen build: interrupted; the next `opgen build` completes the output", file=sys.stderr)
        _leave(130)
    _leave(0)


def _leave(code: object) -> None:
    """os._exit with the status sys.exit would give, once what was printed is flushed."""
    import os

    if isinstance(code, str):  # sys.exit("message"): printed, status 1
        print(code, file=sys.stderr)
    status = 0 if code is None else code if isinstance(code, int) else 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe: nothing more can be said
        status = status or 1
    os._exit(status)


def main() -> None:
    if sys.argv[1:] == ["build"]:
        import os

        from .build_stamp import noop_line, project_specs

        found = project_specs(os.getcwd())
        if found is not None:
            line = noop_line(os.path.join(os.path.dirname(found), "generated"))
            if line is not None:
                print(line)
                return
        _build()
        return
    if _plain_validate(sys.argv[1:]):
        _validate(sys.argv[2])
        return
    from .cli import main as cli

    cli()


def _build() -> None:
    import gc

    # The build's imports and model allocate hundreds of thousands of objects that live to the end
    # of this short process: the cycle collector would scan them again and again for nothing
    # (opgen.build.run turns it off for the build itself; here the imports are spared it too).
    gc.disable()
    from .build_parallel import single_threaded_blas

    single_threaded_blas()
    from .build import BuildResult, build_summary, run
    from .errors import OpgenError
    from .paths import project_specs
    from .render import RenderError
    from .render.writer import BuildError

    found = project_specs()
    if found is None:  # the command line says where specs are looked for
        from .cli import main as cli

        cli()
        return
    specs = found
    out = specs.parent / "generated"
    try:
        result: BuildResult | OpgenError = run(specs, out)
    except (BuildError, RenderError) as exc:
        result = exc
    if isinstance(result, BuildResult) and result.noop:
        print(build_summary(result))
        return
    from .build_report import report_build

    report_build(result, out, check=False)


def _plain_validate(args: list[str]) -> bool:
    """`opgen validate FILE` and nothing else: the fast path (an option, or a FILE that looks like one,
    goes to the command line, which parses it)."""
    return len(args) == 2 and args[0] == "validate" and not args[1].startswith("-")


def _validate(model: str) -> None:
    """`opgen validate FILE` as the command line runs it (the same function, output and exit status),
    without importing click. Ctrl-C and a reader that stops early end as click ends its commands."""
    from pathlib import Path

    from .validate.command import validate_command

    def echo(message: str, *, err: bool = False) -> None:
        print(message, file=sys.stderr if err else sys.stdout, flush=True)

    try:
        code = validate_command(Path(model), "text", False, None, echo)
    except KeyboardInterrupt:
        print("\nAborted!", file=sys.stderr)
        code = 1
    except BrokenPipeError:
        code = 1
    sys.exit(code)
