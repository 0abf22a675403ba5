"""`make docs`: the site's sources generated from the specs into a build folder, then MkDocs
(Material theme) builds one static site per language into site/<lang>/, both in parallel.

Rebuilds are incremental where it pays: example outputs and plots are cached by what they depend
on, a source file is only rewritten when its text changes, and a language whose sources did not
change is not rebuilt by MkDocs at all."""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import OpgenError
from .examples import ExampleRunner, kernel_digest
from .pages import OpExtras, changelog_page, checker_page, errata_page, home_page, index_page, op_page
from .plots import Plotter
from .strings import STRINGS

LANGS = ("en", "zh")
SITE_TEMPLATES = Path(__file__).resolve().parent.parent.parent / "templates" / "site"
# Chinese text is cut into words by jieba when the search index is built (Material's search plugin,
# joined by U+200B), so the index splits at U+200B as well as at spaces and punctuation.
SEARCH_SEPARATOR = r'[\s\u200b\-_,:!=\[\]()"`/，。：；、（）]+|\.(?!\d)'


class SiteError(OpgenError, RuntimeError):
    """The site could not be built (the specs have errors, or MkDocs failed)."""


@dataclass
class SiteReport:
    pages: dict[str, int] = field(default_factory=dict)
    rebuilt: list[str] = field(default_factory=list)
    examples_run: int = 0
    example_failures: list[str] = field(default_factory=list)
    plots_drawn: int = 0
    plots_reused: int = 0
    seconds: float = 0.0


def _write(path: Path, text: str | bytes, written: set[Path]) -> None:
    data = text.encode("utf-8") if isinstance(text, str) else text
    written.add(path)
    if path.exists() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _mathjax_script() -> Path:
    """MathJax's single-file SVG build, from the django-static-mathjax package (served from the site:
    no CDN)."""
    import mathjax  # django-static-mathjax: data only (no types; see pyproject's mypy overrides)

    return Path(mathjax.__file__).parent / "static" / "mathjax" / "es5" / "tex-svg.js"


def mkdocs_config(lang: str, specs_domains: list[str], out: Path) -> dict[str, Any]:
    S = STRINGS[lang]
    other = "zh" if lang == "en" else "en"
    nav: list[Any] = [{S["home"]: "index.md"}]
    for d in specs_domains:
        nav.append({d: [{STRINGS[lang]["domain_title"].format(domain=d): f"{d}/index.md"},
                        {S["errata"]: f"{d}/errata.md"}, {S["changelog"]: f"{d}/changelog.md"}]})
    nav.append({S["checker_title"]: "beyond-checker.md"})
    return {
        "site_name": S["site_name"], "docs_dir": "docs", "site_dir": str(out / lang), "use_directory_urls": False,
        "theme": {"name": "material", "language": lang, "custom_dir": str(SITE_TEMPLATES / "overrides"),
                  "font": False,  # the system fonts: Google's font service is not reachable offline
                  "features": ["navigation.tabs", "navigation.top", "search.highlight", "content.code.copy"]},
        "plugins": [{"search": {"lang": "en", "separator": SEARCH_SEPARATOR}}],
        "markdown_extensions": ["tables", "attr_list", "md_in_html", "admonition", "pymdownx.details",
                                {"pymdownx.arithmatex": {"generic": True}}, "pymdownx.superfences",
                                {"pymdownx.highlight": {"use_pygments": True}}, {"toc": {"permalink": True}}],
        "extra_javascript": ["assets/mathjax-config.js", "assets/mathjax/tex-svg.js"],
        "extra_css": ["assets/opgen.css"],
        "extra": {"alternate": [{"name": STRINGS[other]["language_name"], "lang": other, "link": f"../{other}/"}],
                  "opgen_other": {"lang": other, "name": STRINGS[other]["language_name"],
                                  "title": STRINGS[other]["switch_title"]}},
        "nav": nav,
        # Op pages are reached from the indexes, not listed in the navigation: a sidebar of ~350
        # entries on each of ~700 pages would multiply the build time and page size.
        "not_in_nav": "/*/*.md\n",
        "validation": {"links": {"anchors": "warn"}},
    }


def generate_sources(root: Path, work: Path, out: Path) -> SiteReport:
    """Write both languages' Markdown, assets and mkdocs.yml into `work`; stale files are removed."""
    from ..parse import load_specs

    report = SiteReport()
    specs, errors = load_specs(root / "specs")
    real = [e for e in errors if e.severity == "error"]
    if real:
        raise SiteError("\n".join(str(e) for e in real) + f"\n{len(real)} error(s) in the specs; no site built.")
    digest = kernel_digest(root)
    runner = ExampleRunner(work / "cache" / "examples.json", digest)
    plotter = Plotter(work / "plots", work / "cache" / "plots", digest)
    extras: dict[str, OpExtras] = {}
    for op in specs.ops():
        spec_text = Path(op.location.file).read_text("utf-8") if Path(op.location.file).exists() else op.key
        extras[op.key] = OpExtras(plotter.plots(op, spec_text),
                                  {v.since_version: runner.examples(v) for v in op.versions if v.has_kernel})
    runner.save()
    report.examples_run, report.example_failures = runner.ran, runner.failed
    report.plots_drawn, report.plots_reused = plotter.drawn, plotter.reused
    readme = (root / "README.md").read_text("utf-8") if (root / "README.md").exists() else ""
    for lang in LANGS:
        docs = work / lang / "docs"
        written: set[Path] = set()
        _write(docs / "index.md", home_page(specs, lang), written)
        _write(docs / "beyond-checker.md", checker_page(readme, lang), written)
        for domain in specs.domains:
            _write(docs / domain.name / "index.md", index_page(domain, lang), written)
            _write(docs / domain.name / "errata.md", errata_page(domain, lang), written)
            _write(docs / domain.name / "changelog.md", changelog_page(domain, lang), written)
            for op in domain.ops:
                _write(docs / domain.name / f"{op.name}.md", op_page(op, domain, lang, extras[op.key]), written)
        for svg in sorted((work / "plots").glob("*.svg")):
            _write(docs / "assets" / "plots" / svg.name, svg.read_bytes(), written)
        _write(docs / "assets" / "mathjax" / "tex-svg.js", _mathjax_script().read_bytes(), written)
        for asset in ("mathjax-config.js", "opgen.css"):
            _write(docs / "assets" / asset, (SITE_TEMPLATES / "assets" / asset).read_bytes(), written)
        for stale in [p for p in docs.rglob("*") if p.is_file() and p not in written]:
            stale.unlink()
        config = mkdocs_config(lang, [d.name for d in specs.domains], out.resolve())
        _write(work / lang / "mkdocs.yml", json.dumps(config, ensure_ascii=False, indent=1), written)
        report.pages[lang] = sum(1 for _ in docs.rglob("*.md"))
    return report


def _sources_digest(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.name != ".built"):
        h.update(path.relative_to(folder).as_posix().encode())
        h.update(path.read_bytes())
    for path in sorted((SITE_TEMPLATES / "overrides").rglob("*")):
        if path.is_file():
            h.update(path.read_bytes())
    return h.hexdigest()


def build_site(root: Path, out: Path, work: Path, force: bool = False) -> SiteReport:
    start = time.perf_counter()
    report = generate_sources(root, work, out)
    jobs: dict[str, subprocess.Popen[bytes]] = {}
    for lang in LANGS:
        stamp = work / lang / ".built"
        digest = _sources_digest(work / lang)
        if not force and stamp.exists() and stamp.read_text() == digest and (out / lang / "index.html").exists():
            continue
        stamp.unlink(missing_ok=True)
        jobs[lang] = subprocess.Popen([sys.executable, "-m", "mkdocs", "build", "--quiet", "--clean",
                                       "-f", str(work / lang / "mkdocs.yml")],
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    for lang, job in jobs.items():
        output, _ = job.communicate()
        if job.returncode != 0:
            raise SiteError(f"mkdocs build ({lang}) failed:\n{output.decode(errors='replace')}")
        (work / lang / ".built").write_text(_sources_digest(work / lang))
        report.rebuilt.append(lang)
    out.mkdir(parents=True, exist_ok=True)
    (out / "index.html").write_text(
        '<!doctype html><html><head><meta charset="utf-8"><title>opgen</title>'
        '<meta http-equiv="refresh" content="0; url=en/index.html"></head>'
        '<body><a href="en/index.html">English</a> · <a href="zh/index.html">中文</a></body></html>\n', "utf-8")
    report.seconds = time.perf_counter() - start
    return report
