"""python -m opgen.site [--out site] [--work build/site] [--force]: build the documentation site.
python -m opgen.site --readme: rewrite README.md's section on the cases opgen catches beyond
onnx.checker from opgen.site.beyond_checker (its one source)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..paths import project_root
from .beyond_checker import update_readme
from .build import SiteError, build_site


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m opgen.site", description=__doc__)
    parser.add_argument("--out", type=Path, default=None, help="site folder (default: <project>/site)")
    parser.add_argument("--work", type=Path, default=None, help="sources and caches (default: <project>/build/site)")
    parser.add_argument("--force", action="store_true", help="run MkDocs even where no source changed")
    parser.add_argument("--readme", action="store_true",
                        help="rewrite README.md's cases beyond onnx.checker from opgen.site.beyond_checker, then stop")
    args = parser.parse_args(argv)
    root = project_root()
    if args.readme:
        try:
            changed = update_readme(root / "README.md")
        except (OSError, ValueError) as exc:
            print(exc, file=sys.stderr)
            return 1
        print("README.md " + ("updated" if changed else "already up to date"))
        return 0
    try:
        report = build_site(root, args.out or root / "site", args.work or root / "build" / "site", args.force)
    except SiteError as exc:
        print(exc, file=sys.stderr)
        return 1
    pages = ", ".join(f"{lang}: {n}" for lang, n in report.pages.items())
    if report.unchanged:
        print(f"site: {pages} pages; no input changed since the last build, nothing done; {report.seconds:.1f} s")
        return 0
    print(f"site: {pages} pages; MkDocs ran for {', '.join(report.rebuilt) or 'none (no source changed)'}; "
          f"examples run {report.examples_run} (failed {len(report.example_failures)}); plots drawn "
          f"{report.plots_drawn}, reused {report.plots_reused}; {report.seconds:.1f} s")
    for failure in report.example_failures:
        print(f"  example did not run: {failure}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
