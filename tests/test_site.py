"""The documentation site (`make docs` builds it into site/) in a real browser: Debian's headless
Chromium driven by Playwright. Pages load without console errors, the language switch lands on the
same page in the other language, the search box finds operators by English and Chinese words, the
formulas are typeset, screenshots are saved for a person to look at (site-screenshots/), and a link
check over every HTML file finds no broken internal link and both language pages of every op."""
from __future__ import annotations

import functools
import http.server
import re
import shutil
import threading
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlsplit

import pytest
from playwright.sync_api import Page, sync_playwright

from opgen.parse import load_specs

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "site"
SHOTS = ROOT / "site-screenshots"
LANGS = ("en", "zh")
# One group: under `--dist loadgroup` the browser tests share one worker (one Chromium) while the
# rest of the suite runs beside them; `-m site` selects them alone.
pytestmark = [pytest.mark.site, pytest.mark.xdist_group("site")]


def _chromium() -> str:
    path = shutil.which("chromium")
    assert path, "Debian's chromium is missing: run `make system-deps`"
    return path


SEARCH_INDEX = "**/search/search_index.json"
EMPTY_INDEX = {"config": {"lang": ["en"], "separator": r"[\s\-]+", "pipeline": [],
                          "fields": {"title": {"boost": 1000.0}, "text": {"boost": 1.0}}}, "docs": []}


@pytest.fixture(scope="module")
def server():
    assert (SITE / "en" / "index.html").exists(), "no site/: run `make docs` first"
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(SITE))
    handler.log_message = lambda *args: None  # type: ignore[attr-defined]
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=_chromium(), args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture()
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    # Every page load makes Material build the whole search index in a worker (seconds for the
    # Chinese one): the tests that do not search get an empty index instead; the search test unroutes.
    context.route(SEARCH_INDEX, lambda route: route.fulfill(json=EMPTY_INDEX))
    pg = context.new_page()
    pg.errors = []  # type: ignore[attr-defined]
    pg.on("console", lambda m: pg.errors.append(m.text) if m.type == "error" else None)  # type: ignore[attr-defined]
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))  # type: ignore[attr-defined]
    yield pg
    context.close()


@pytest.mark.parametrize("path", ["en/index.html", "zh/onnx/index.html", "en/onnx/Elu.html", "zh/hlir/Gelu.html",
                                  "en/onnx/errata.html", "zh/beyond-checker.html"])
def test_page_loads_without_console_errors(page: Page, server: str, path: str) -> None:
    page.goto(f"{server}/{path}", wait_until="networkidle")
    assert page.title(), path
    assert page.errors == [], page.errors  # type: ignore[attr-defined]


def test_language_switch_round_trips(page: Page, server: str) -> None:
    page.goto(f"{server}/en/onnx/Elu.html")
    assert page.locator("html").get_attribute("lang") == "en"
    page.click("#opgen-lang-switch")
    page.wait_for_url("**/zh/onnx/Elu.html")
    assert page.locator("html").get_attribute("lang") == "zh"
    assert "摘要" in page.content() or "概要" in page.content()  # the Chinese headings
    page.click("#opgen-lang-switch")
    page.wait_for_url("**/en/onnx/Elu.html")
    assert page.locator("h2#v22").count() == 1


def _search(page: Page, words: str) -> list[str]:
    """Type into the search box of the page loaded and read the result links."""
    box = page.locator("input.md-search__input")
    box.fill(words)
    box.press("End")  # a key event, as a person's typing gives (Material searches on keyup)
    # Material links each result with ?h=<query>: results of this query, not of the one before (the
    # browser builds the index first, seconds for the Chinese one)
    page.wait_for_function("w => [...document.querySelectorAll('.md-search-result__link')].some("
                           "a => a.href.includes('h=' + encodeURIComponent(w)))", arg=words, timeout=60000)
    return [a.get_attribute("href") or "" for a in page.locator(".md-search-result__link").all()]


@functools.lru_cache(maxsize=1)
def _specs():
    specs, _ = load_specs(ROOT / "specs")
    return specs


def _op_pages(hrefs: list[str]) -> set[str]:
    """The op pages (domain/Op) among search results: not the indexes, errata or changelogs."""
    found = set()
    for h in hrefs:
        m = re.search(r"/(onnx|onednn|hlir)/([A-Za-z0-9_]+)\.html", unquote(h))
        if m and m.group(2) not in ("index", "errata", "changelog"):
            found.add(f"{m.group(1)}.{m.group(2)}")
    return found


# (language, words typed, the ops a result must include one of: by category, or by name)
SEARCHES = [
    ("zh", "激活", "activation", ()), ("zh", "卷积", None, ("hlir.Conv", "onnx.Conv")),
    ("zh", "广播", None, ("hlir.Gemm", "onnx.Expand", "onnx.Add", "hlir.Add")),
    ("en", "activation", "activation", ("onnx.LSTM", "onnx.GRU", "onnx.RNN")),
    ("en", "convolution", None, ("hlir.Conv", "onnx.Conv")),
]


def test_search_finds_ops_by_english_and_chinese_words(page: Page, server: str) -> None:
    """One page load per language (the browser builds the search index once), then each probe typed."""
    page.context.unroute(SEARCH_INDEX)
    missed = []
    for lang in LANGS:
        page.goto(f"{server}/{lang}/index.html", wait_until="networkidle")
        page.click(".md-search__input", force=True)
        for probe_lang, words, category, names in SEARCHES:
            if probe_lang != lang:
                continue
            expected = set(names) | {o.key for o in _specs().ops() if o.category == category}
            found = _op_pages(_search(page, words))
            if not found & expected:
                missed.append((words, sorted(found)[:20]))
    assert missed == []
    assert page.errors == [], page.errors  # type: ignore[attr-defined]


def test_formula_typeset_and_screenshots(page: Page, server: str) -> None:
    # formulas with a string constant, nested cases, min/max, a long polynomial: MathJax draws each
    # without an error node (mjx-merror is how it shows TeX it cannot read)
    for path in ("en/onnx/BitShift.html", "en/hlir/Gelu.html", "zh/onnx/Clip.html"):
        page.goto(f"{server}/{path}", wait_until="networkidle")
        page.wait_for_selector(".arithmatex mjx-container svg", timeout=20000)
        assert page.locator("mjx-merror, [data-mjx-error]").count() == 0, path
    SHOTS.mkdir(exist_ok=True)
    for lang in LANGS:
        page.goto(f"{server}/{lang}/onnx/Elu.html", wait_until="networkidle")
        page.wait_for_selector(".arithmatex mjx-container svg", timeout=20000)  # MathJax drew the maths
        assert page.locator("img[src*='assets/plots/onnx-Elu']").first.evaluate("i => i.naturalWidth") > 0
        page.screenshot(path=str(SHOTS / f"{lang}-onnx-Elu.png"), full_page=False)
    assert page.errors == [], page.errors  # type: ignore[attr-defined]


_LINK = re.compile(r'<(?:a|img|link|script)\b[^>]*?\b(?:href|src)="([^"]*)"')
_ID = re.compile(r'\bid="([^"]*)"')
# a note reference ("see note X", "see Add's note X", "(notes X, Y)", "见说明 X", "(注释 X)"), with the
# ">" that ends an <a ...> tag just before it when it is a link's text
_APOSTROPHE = "(?:'|&#39;|’)"
_SEE_NOTE = re.compile(r'(<a [^>]*href="[^"]*#note-[^"]*">)?(?P<words>(?:\b[Ss]ee (?:[A-Z]\w*' + _APOSTROPHE
                       + r's |its |the )?notes? |(?:参见|见)(?:说明|注释) ?)|(?:\b(?:[A-Z]\w*' + _APOSTROPHE
                       + r's |[Ss]pec |its )?[Nn]otes? |注释 ?|说明 ?))(?:<code>)?(?P<id>[A-Za-z][A-Za-z0-9_]*)')


def _unlinked_note_reference(m: re.Match[str], note_ids: set[str]) -> bool:
    """A reference to a real note that is not a link's text: after "see"/"见" any note id, after a
    bare "note"/"说明" (ordinary words too) an id with an underscore."""
    see = re.match(r"[Ss]ee|参见|见", m.group("words")) is not None
    return not m.group(1) and m.group("id") in note_ids and (see or "_" in m.group("id"))


def test_link_check_whole_site() -> None:
    pages: dict[Path, tuple[list[str], set[str]]] = {}
    for html in SITE.rglob("*.html"):
        if html.name == "404.html":  # served for any missing path, so its links are root-relative by design
            continue
        text = html.read_text("utf-8")
        pages[html.resolve()] = (_LINK.findall(text), set(_ID.findall(text)))
    broken = []
    for html, (links, _) in pages.items():
        for link in links:
            if urlsplit(link).scheme or link.startswith(("//", "mailto:", "data:")):
                continue
            target, fragment = urldefrag(link)
            path = (html.parent / unquote(target)).resolve() if target else html
            if path.is_dir():
                path = path / "index.html"
            if not path.exists():
                broken.append(f"{html.relative_to(SITE)} -> {link}")
            elif fragment and path in pages and unquote(fragment) not in pages[path][1]:
                broken.append(f"{html.relative_to(SITE)} -> {link} (no such anchor)")
    assert broken == [], broken[:20]
    missing = [f"{lang}/{o.domain}/{o.name}.html" for o in _specs().ops() for lang in LANGS
               if not (SITE / lang / o.domain / f"{o.name}.html").exists()]
    assert missing == []
    # every "see note X" (见说明 X) is the text of a link (to the note's anchor, checked above)
    note_ids = {n.id for o in _specs().ops() for n in o.all_notes() if n.id}
    unlinked = [f"{html.relative_to(SITE)}: {m.group(0)}" for html in pages
                for m in _SEE_NOTE.finditer(html.read_text("utf-8")) if _unlinked_note_reference(m, note_ids)]
    assert unlinked == []
    assert 'href="#note-fnuz_infinity"' in (SITE / "en" / "onnx" / "Cast.html").read_text("utf-8")
    # a reference to another op's note links to that op's page
    assert 'href="Add.html#note-xla_broadcasting"' in (SITE / "en" / "hlir" / "Multiply.html").read_text("utf-8")


def _op_html(lang: str, domain: str, name: str) -> str:
    return (SITE / lang / domain / f"{name}.html").read_text("utf-8")


def test_op_pages_are_in_the_sidebar_and_link_back_to_their_index() -> None:
    """Without a browser: the sidebar of an op page lists its domain's categories with the op's own
    category open and the op active in it; every op page has its link back to the domain index."""
    for lang, category in (("en", "Activations"), ("zh", "激活函数")):
        html = _op_html(lang, "onnx", "Elu")
        nav = html[html.index('md-nav--primary'):html.index('md-sidebar--secondary')]
        active = re.search(r'md-nav__item--active md-nav__item--nested">.*?<span class="md-ellipsis">\s*'
                           r'([^<]+?)\s*</span>', nav, re.S)
        assert active and active.group(1) == category, lang
        assert re.search(r'md-nav__link--active[^>]*>\s*<span class="md-ellipsis">\s*Elu\s*<', nav), lang
        assert 'href="Celu.html"' in nav and 'href="../hlir/index.html"' in nav
    no_back = [f"{lang}/{o.domain}/{o.name}" for o in _specs().ops() for lang in LANGS
               if not re.search(r'<a class="opgen-back" href="index.html"|<a href="index.html" class="opgen-back"',
                                _op_html(lang, o.domain, o.name))]
    assert no_back == []


_PRINTED = re.compile(r'<p>(?:It prints:|输出:)</p>\s*<div class="(?:language-text )?highlight"><pre><span></span>'
                      r'<code>(.*?)</code>', re.S)


def test_examples_print_arrays_with_their_dtypes() -> None:
    """Every run example printed each output as `name: dtype, shape (...)` then the NumPy array, and
    its inputs are NumPy arrays with a dtype."""
    import html as html_module

    bad, shown = [], 0
    for o in _specs().ops():
        if not any(v.examples for v in o.versions):
            continue
        for lang in LANGS:
            page = _op_html(lang, o.domain, o.name)
            for block in _PRINTED.findall(page):
                text = html_module.unescape(re.sub(r"<[^>]+>", "", block))
                shown += 1
                if not re.match(r"[\w\[\]]+: [\w.]+, shape \((\d+, ?)*\d*\)\n", text):
                    bad.append((lang, o.key, text[:60]))
    assert shown >= 2 * 270 and bad == []
