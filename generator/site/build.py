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
from ..model import Domain
from ..render.docs import CATEGORIES, category_title
from .examples import ExampleRunner, kernel_digest
from .pages import OpExtras, changelog_page, checker_page, errata_page, home_page, index_page, op_page
from .plots import Plotter
from .strings import STRINGS

LANGS = ("en", "zh")
SITE_TEMPLATES = Path(__file__).resolve().parent.parent.parent / "templates" / "site"
# Chinese text is cut into words by jieba when the search index is built (Material's search plugin,
# joined by U+200B), so the index splits at U+200B as well as at spaces and punctuation.
NAV_FEATURES = ["navigation.tabs", "navigation.indexes", "navigation.prune"]
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
    unchanged: bool = False  # nothing the site is made from changed since the last build: nothing done


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


def _domain_nav(domain: Domain, lang: str) -> list[Any]:
    """A domain's navigation: its index (the section's own page), errata and changelog, then one
    collapsible group per category holding its op pages."""
    S = STRINGS[lang]
    d = domain.name
    nav: list[Any] = [f"{d}/index.md", {S["errata"]: f"{d}/errata.md"}, {S["changelog"]: f"{d}/changelog.md"}]
    for category in CATEGORIES:
        ops = [o for o in domain.ops if o.category == category]
        if ops:
            nav.append({category_title(category, lang): [{o.name: f"{d}/{o.name}.md"} for o in ops]})
    return nav


def mkdocs_config(lang: str, domains: list[Domain], out: Path) -> dict[str, Any]:
    S = STRINGS[lang]
    other = "zh" if lang == "en" else "en"
    nav: list[Any] = [{S["home"]: "index.md"}]
    nav += [{d.name: _domain_nav(d, lang)} for d in domains]
    nav.append({S["checker_title"]: "beyond-checker.md"})
    return {
        "site_name": S["site_name"], "docs_dir": "docs", "site_dir": str(out / lang), "use_directory_urls": False,
        "theme": {"name": "material", "language": lang, "custom_dir": str(SITE_TEMPLATES / "overrides"),
                  "font": False,  # the system fonts: Google's font service is not reachable offline
                  # A tab per domain; its sidebar lists the categories, each collapsible, with their op
                  # pages. Pruned: a page's HTML holds only its own domain's open category, the other
                  # categories being links to their first op; the whole tree (~450 entries) on each of
                  # ~900 pages would multiply the build time and the site's size (see NAV_FEATURES).
                  "features": NAV_FEATURES + ["navigation.top", "search.highlight", "content.code.copy"]},
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
    for lang in LANGS:
        docs = work / lang / "docs"
        written: set[Path] = set()
        _write(docs / "index.md", home_page(specs, lang), written)
        _write(docs / "beyond-checker.md", checker_page(lang), written)
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
        config = mkdocs_config(lang, list(specs.domains), out.resolve())
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


# What the site is made from: a change to any file here (or to the versions of the packages that
# build it) makes the next build regenerate the sources; otherwise the build stops after hashing.
INPUT_FOLDERS = ("specs", "templates", "generator", "generated/python")
SITE_PACKAGES = ("mkdocs", "mkdocs-material", "jieba", "matplotlib", "numpy", "django-static-mathjax")


def inputs_digest(root: Path, out: Path) -> str:
    """A digest of everything the site is built from: the spec, template, generator and kernel files
    (not Python's bytecode caches), the site packages' versions and the output folder."""
    from importlib.metadata import PackageNotFoundError, version

    h = hashlib.sha256(str(out.resolve()).encode())
    for name in SITE_PACKAGES:
        try:
            h.update(f"{name}=={version(name)}".encode())
        except PackageNotFoundError:
            h.update(f"{name} missing".encode())
    for folder in INPUT_FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                h.update(path.relative_to(root).as_posix().encode() + b"\0")
                h.update(path.read_bytes())
    return h.hexdigest()


def _unchanged(work: Path, out: Path, digest: str) -> bool:
    """The last build finished from the same inputs and its output is still there."""
    stamp = work / ".inputs"
    return (stamp.exists() and stamp.read_text() == digest and (out / "index.html").exists()
            and all((work / lang / ".built").exists() and (out / lang / "index.html").exists() for lang in LANGS))


def build_site(root: Path, out: Path, work: Path, force: bool = False) -> SiteReport:
    start = time.perf_counter()
    digest = inputs_digest(root, out)
    if not force and _unchanged(work, out, digest):
        # Nothing the site is made from changed: loading and checking the specs alone would take
        # most of a no-change rebuild's time.
        report = SiteReport(pages={lang: sum(1 for _ in (work / lang / "docs").rglob("*.md")) for lang in LANGS},
                            unchanged=True)
        report.seconds = time.perf_counter() - start
        return report
    (work / ".inputs").unlink(missing_ok=True)
    report = generate_sources(root, work, out)
    jobs: dict[str, subprocess.Popen[bytes]] = {}
    for lang in LANGS:
        stamp = work / lang / ".built"
        sources = _sources_digest(work / lang)
        if not force and stamp.exists() and stamp.read_text() == sources and (out / lang / "index.html").exists():
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
    (work / ".inputs").write_text(digest)
    report.seconds = time.perf_counter() - start
    return report
