"""The `opgen` console command.

`opgen build` with nothing to do is what people run most (after every edit, from make, from an
editor's save hook): it is answered here without importing click, which costs about a fifth of such
a run. Anything else, and a build with something to do, goes to the command line in opgen.cli."""
from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:] == ["build"]:
        from .build import noop_summary
        from .paths import project_root

        specs = project_root() / "specs"
        summary = noop_summary(specs, specs.parent / "generated")
        if summary is not None:
            print(summary)
            return
    from .cli import main as cli

    cli()
