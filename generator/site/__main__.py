"""python -m opgen.site [--out site] [--work build/site] [--force]: build the documentation site."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..paths import project_root
from .build import SiteError, build_site


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m opgen.site", description=__doc__)
    parser.add_argument("--out", type=Path, default=None, help="site folder (default: <project>/site)")
    parser.add_argument("--work", type=Path, default=None, help="sources and caches (default: <project>/build/site)")
    parser.add_argument("--force", action="store_true", help="run MkDocs even where no source changed")
    args = parser.parse_args(argv)
    root = project_root()
    try:
        report = build_site(root, args.out or root / "site", args.work or root / "build" / "site", args.force)
    except SiteError as exc:
        print(exc, file=sys.stderr)
        return 1
    pages = ", ".join(f"{lang}: {n}" for lang, n in report.pages.items())
    print(f"site: {pages} pages; MkDocs ran for {', '.join(report.rebuilt) or 'none (no source changed)'}; "
          f"examples run {report.examples_run} (failed {len(report.example_failures)}); plots drawn "
          f"{report.plots_drawn}, reused {report.plots_reused}; {report.seconds:.1f} s")
    for failure in report.example_failures:
        print(f"  example did not run: {failure}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
