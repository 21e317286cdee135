"""The published book in a real browser: every page loads offline, renders, and its explorers work.

Each page is opened in a fresh browser context (cold cache, as a first-time reader sees it) from
the built site served on 127.0.0.1. The suite fails on any console error, uncaught exception,
failed request, request to another host, HTTP error, unrendered or erroneous math, broken image,
a page over 3 MB, an explorer control that does not change its figure, or a chapter without
its self-check quiz (answered question by question in ``test_quiz.py``). A screenshot of each page's first screen (of the whole page with
``BOOK_FULL_SCREENSHOTS=1``) is written to ``_build/screenshots/`` for humans, and the terminal
summary lists each page's transferred size and load time. Every page is checked in every
edition (English at the root, Chinese under ``zh_CN/``), and each page must link to itself in
the other edition.
"""

from __future__ import annotations

import hashlib
import json
import re
import urllib.request
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Error as PlaywrightError

from .conftest import (
    FULL_SCREENSHOTS,
    LANGUAGES,
    SCREENSHOTS,
    SITE,
    SOURCE_LANGUAGE,
    edition,
    edition_folder,
    edition_pages,
    is_chapter,
    record,
)
from .reading import (
    LAPTOP,
    MARKER,
    PROGRESS,
    TYPESET,
    alt_problem,
    print_view_contrast,
    read_for_reader,
    serious,
    summary,
)

MAX_PAGE_BYTES = 3 * 1024 * 1024
PAGES = edition_pages()  # the English pages, then the same pages of each translation
EXPLORER_PAGES = [p for p in PAGES if 'class="posenc-explorer' in (SITE / f"{p}.html").read_text()]

_MATH_STATE = """() => {
  const maths = Array.from(document.querySelectorAll('.math'));
  return {
    count: maths.length,
    raw: maths.filter(e => !e.querySelector('mjx-container')).map(e => e.textContent.slice(0, 80)),
    errors: Array.from(document.querySelectorAll('mjx-merror')).map(e => e.textContent.slice(0, 80)),
  };
}"""

_BROKEN_IMAGES = """() => Array.from(document.images)
  .filter(img => !(img.complete && img.naturalWidth > 0))
  .map(img => (img.getAttribute('src') || '').slice(0, 80))"""

_TRANSFER = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const res = performance.getEntriesByType('resource');
  return {
    bytes: nav.transferSize + res.reduce((s, r) => s + r.transferSize, 0),
    raw_bytes: nav.decodedBodySize + res.reduce((s, r) => s + r.decodedBodySize, 0),
    load_ms: nav.loadEventEnd - nav.startTime,
  };
}"""


@dataclass
class Visit:
    """What happened while one page loaded and typeset its math."""

    page: str
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    off_site: list[str] = field(default_factory=list)
    http_errors: list[str] = field(default_factory=list)
    requests: int = 0
    bytes: int = 0
    raw_bytes: int = 0
    load_ms: float = 0.0
    math_ms: float = 0.0
    math: dict[str, Any] = field(default_factory=dict)
    broken_images: list[str] = field(default_factory=list)
    downloads: list[str] = field(default_factory=list)
    lang: str = ""
    language_links: list[tuple[str, str]] = field(default_factory=list)
    controls: int = 0  # explorer controls found
    stuck: list[str] = field(default_factory=list)  # controls that did not change their figure
    reader: dict[str, Any] = field(default_factory=dict)  # reading.read_for_reader, at 1366 px
    alt_unchanged: list[str] = field(default_factory=list)  # explorers whose alt did not follow
    asides: list[dict[str, Any]] = field(default_factory=list)  # the optional boxes, clicked
    wrapped_cells: list[str] = field(default_factory=list)  # result-table numbers split by a wrap
    twin: list[str] = field(default_factory=list)  # the functions of window.posenc, if loaded


def _watch(page: Any, visit: Visit, origin: str) -> None:
    def on_request(request: Any) -> None:
        visit.requests += 1
        url = request.url
        if not url.startswith(("data:", "blob:", "about:")) and urlsplit(url).netloc != origin:
            visit.off_site.append(url)

    page.on("console", lambda m: visit.console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: visit.page_errors.append(str(e)))
    page.on("request", on_request)
    page.on("requestfailed", lambda r: visit.failed.append(f"{r.url} ({r.failure})"))
    page.on(
        "response",
        lambda r: visit.http_errors.append(f"{r.status} {r.url}") if r.status >= 400 else None,
    )


def _open(
    browser: Any, site_url: str, name: str, *, without_math: bool = False
) -> tuple[Any, Any, Visit]:
    """A page opened at 1366×768, watched; ``without_math`` serves MathJax as an empty script
    (for checks that do not read the math)."""
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    visit = Visit(name)
    if without_math:
        page.route(
            re.compile(r".*/mathjax/.*\.js(\?.*)?$"),
            lambda route: route.fulfill(status=200, content_type="text/javascript", body=""),
        )
    _watch(page, visit, urlsplit(site_url).netloc)
    page.goto(f"{site_url}/{name}.html", wait_until="load")
    return context, page, visit


# Every optional box (book/ext/reader.py: engineering detail, errors in the sources): its title,
# whether its body is hidden when the page loads, and whether a click on its title opens it.
# Each cell of an experiment's result table (``LengthResults``, ``SeedSpread``, ``PasskeyResults``)
# holds a number, or a mean with its range on a line of its own: a cell whose text takes more
# lines than it has line breaks has a number split by the wrap (seen: "(0.80–" / "0.84)").
_WRAPPED_CELLS = """() => [...document.querySelectorAll('table.posenc-results td')].filter(td => {
  const range = document.createRange();
  range.selectNodeContents(td);
  const tops = [...range.getClientRects()].map(r => r.top).sort((a, b) => a - b);
  let lines = 0, last = -1e9;  // boxes whose tops lie within 4 px share a line
  for (const top of tops) { if (top - last > 4) { lines += 1; last = top; } }
  return lines > td.querySelectorAll('br').length + 1;
}).map(td => td.innerText.replace(/\\s+/g, ' '))"""

_ASIDES = """async () => {
  const shown = (box) => Array.from(box.children)
    .filter(c => !c.classList.contains('admonition-title'))
    .some(c => c.getBoundingClientRect().height > 0 && getComputedStyle(c).visibility !== 'hidden');
  const boxes = [];
  for (const box of document.querySelectorAll('.admonition.aside')) {
    const title = box.querySelector('.admonition-title');
    const closed = !shown(box);
    (box.querySelector('button.toggle-button') || title).click();
    await new Promise(r => setTimeout(r, 500));
    boxes.push({title: title ? title.innerText.trim() : '', closed: closed, opens: shown(box),
                kind: Array.from(box.classList).filter(c => c.startsWith('aside-')),
                cells: box.querySelectorAll('.cell').length,
                equations: box.querySelectorAll('.math-wrapper, mjx-container[display="true"]').length});
  }
  return boxes;
}"""

_VISITS: dict[str, Visit] = {}


def _visit(browser: Any, site_url: str, name: str) -> Visit:
    """Load a page once (cached for the session), typeset its math and photograph it, then move
    every explorer control in it, as a reader would.

    One load serves every test of the page (conftest.py keeps them on one worker): loading and
    typesetting a chapter is most of the suite's time.
    """
    if name in _VISITS:
        return _VISITS[name]
    context, page, visit = _open(browser, site_url, name)
    try:
        if page.evaluate("() => !!document.querySelector('script[src*=\"mathjax\"]')"):
            page.wait_for_function(
                "() => window.MathJax && MathJax.startup && MathJax.startup.promise"
            )
            visit.math_ms = page.evaluate(
                "() => MathJax.startup.promise.then(() => performance.now())"
            )
        page.wait_for_load_state("networkidle")
        visit.math = page.evaluate(_MATH_STATE)
        visit.broken_images = page.evaluate(_BROKEN_IMAGES)
        visit.downloads = page.eval_on_selector_all(
            "a.btn-download-source-button", "links => links.map(a => a.href)"
        )
        visit.lang = page.evaluate("() => document.documentElement.lang")
        visit.language_links = [
            tuple(pair)
            for pair in page.eval_on_selector_all(
                ".language-links a[hreflang]", "links => links.map(a => [a.hreflang, a.href])"
            )
        ]
        transfer = page.evaluate(_TRANSFER)
        visit.bytes, visit.raw_bytes, visit.load_ms = (
            transfer["bytes"],
            transfer["raw_bytes"],
            transfer["load_ms"],
        )
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        # The first screen, as a reader lands on it; BOOK_FULL_SCREENSHOTS=1 photographs the
        # whole page (a chapter is 20,000-34,000 px tall: 2.4 s of a 7 s visit, measured).
        shot = SCREENSHOTS / f"{name.replace('/', '__')}.png"
        page.screenshot(path=str(shot), full_page=FULL_SCREENSHOTS)
        # equations, images, listings and axe-core, before any control or answer changes it
        visit.reader = read_for_reader(page)
        visit.asides = page.evaluate(_ASIDES)
        visit.wrapped_cells = page.evaluate(_WRAPPED_CELLS)
        visit.twin = page.evaluate(
            "() => window.posenc ? Object.keys(window.posenc).filter("
            "k => typeof window.posenc[k] === 'function') : []"
        )
        # A control or question the browser cannot work (a timeout, say) fails only its test.
        if name in EXPLORER_PAGES:
            try:
                _move_every_control(page, visit)
            except PlaywrightError as error:
                visit.stuck.append(f"{type(error).__name__}: {error}")
    finally:
        context.close()
    record(
        name,
        kb=round(visit.bytes / 1024),
        raw_kb=round(visit.raw_bytes / 1024),
        requests=visit.requests,
        load_ms=round(visit.load_ms),
        math_ms=round(visit.math_ms),
        math=visit.math.get("count", 0),
        **(
            {"controls": f"{visit.controls - len(visit.stuck)}/{visit.controls}"}
            if visit.controls
            else {}
        ),
        **summary(visit.reader),
    )
    _VISITS[name] = visit
    return visit


@pytest.mark.parametrize("name", PAGES)
def test_page_loads_offline_without_errors(browser: Any, site_url: str, name: str) -> None:
    visit = _visit(browser, site_url, name)
    assert visit.off_site == [], "requests to other hosts"
    assert visit.failed == [], "failed requests"
    assert visit.http_errors == [], "HTTP errors"
    assert visit.console_errors == [], "console errors"
    assert visit.page_errors == [], "uncaught exceptions"


@pytest.mark.parametrize("name", PAGES)
def test_page_renders_math_and_images(browser: Any, site_url: str, name: str) -> None:
    visit = _visit(browser, site_url, name)
    assert visit.math["raw"] == [], "math left as raw TeX"
    assert visit.math["errors"] == [], "MathJax errors"
    assert visit.broken_images == [], "images that did not load"
    if is_chapter(name):
        assert visit.math["count"] > 0, "every chapter has equations; none were found"


@pytest.mark.parametrize("name", PAGES)
def test_result_tables_keep_each_number_on_one_line(browser: Any, site_url: str, name: str) -> None:
    wrapped = _visit(browser, site_url, name).wrapped_cells
    assert wrapped == [], "result-table cells whose numbers wrap at 1366 px"


@pytest.mark.parametrize("name", PAGES)
def test_posencs_javascript_twin_is_on_every_page(browser: Any, site_url: str, name: str) -> None:
    """``window.posenc`` (book/ext/twin.py), served from the site, computes in the page."""
    visit = _visit(browser, site_url, name)
    assert {"sinusoidalEncoding", "shawRelativeIndex", "t5RelativeBucket"} <= set(visit.twin)
    assert {"alibiSlopes", "rotaryAngles", "relativePositionIndex"} <= set(visit.twin)


@pytest.mark.parametrize("name", PAGES)
def test_equations_fit_the_column_on_a_laptop(browser: Any, site_url: str, name: str) -> None:
    equations = _visit(browser, site_url, name).reader["equations"]
    assert [e["id"] for e in equations if e["overflows"]] == [], "cut at 1366 px"


@pytest.mark.parametrize("name", PAGES)
def test_wide_listings_scroll_with_a_cue_on_a_laptop(
    browser: Any, site_url: str, name: str
) -> None:
    listings = _visit(browser, site_url, name).reader["listings"]
    stuck = [t["text"] for t in listings if t["overflows"] and not (t["scrolls"] and t["cue"])]
    assert stuck == [], "code or output wider than the column with no scroll or no cue"
    wrong = [t["text"] for t in listings if not t["overflows"] and not t["cue"]]
    assert wrong == [], "a scroll cue on a listing that fits"


@pytest.mark.parametrize("name", PAGES)
def test_punctuation_stays_with_its_math_on_a_laptop(
    browser: Any, site_url: str, name: str
) -> None:
    broken = _visit(browser, site_url, name).reader["punctuation"]
    assert broken == [], "a line starts with the punctuation that follows inline math"


@pytest.mark.parametrize("name", PAGES)
def test_footer_names_the_licences(name: str) -> None:
    page = (SITE / f"{name}.html").read_text(encoding="utf-8")
    footer = page[page.index('<p class="pe-licence">') :].split("</p>", 1)[0]
    for url in (
        "https://creativecommons.org/licenses/by/4.0/",
        "https://opensource.org/license/mit",
    ):
        assert f'href="{url}" rel="license"' in footer, f"the footer does not link {url}"


@pytest.mark.parametrize("name", PAGES)
def test_no_markdown_is_left_as_text(browser: Any, site_url: str, name: str) -> None:
    raw = _visit(browser, site_url, name).reader["raw_markdown"]
    assert raw == [], "Markdown emphasis shown as asterisks"


@pytest.mark.parametrize("name", PAGES)
def test_every_image_says_what_it_shows(browser: Any, site_url: str, name: str) -> None:
    visit = _visit(browser, site_url, name)
    images = visit.reader["images"]
    assert [f"{i['src']}: {p}" for i in images if (p := alt_problem(i["alt"]))] == []
    assert visit.alt_unchanged == [], "explorers whose alt text does not follow their controls"


@pytest.mark.parametrize("name", PAGES)
def test_optional_boxes_are_closed_and_open_on_a_click(
    browser: Any, site_url: str, name: str
) -> None:
    asides = _visit(browser, site_url, name).asides
    assert [a["title"] for a in asides if not a["title"]] == [], "an optional box without a title"
    assert [a["title"] for a in asides if len(a["kind"]) != 1] == [], "a box of no kind"
    assert [a["title"] for a in asides if not a["closed"]] == [], "shown open on load"
    assert [a["title"] for a in asides if not a["opens"]] == [], "does not open on a click"


SOURCE_BOX_PAGES = [
    p for p in PAGES if edition(p)[1].startswith(tuple(f"chapters/0{n}_" for n in "2345678"))
]


@pytest.mark.parametrize("name", SOURCE_BOX_PAGES)
def test_the_optional_boxes_hold_what_the_chapters_put_in_them(
    browser: Any, site_url: str, name: str
) -> None:
    # Chapters 2 to 8 flag the seed articles' errors in boxes of their own; chapter 6 keeps its
    # blocks, memory count and benchmarks in one box, code and equation included.
    asides = _visit(browser, site_url, name).asides
    assert "aside-sources" in [a["kind"][0] for a in asides], "no box for the sources' errors"
    if edition(name)[1].startswith("chapters/06_"):
        (engineering,) = [a for a in asides if a["kind"] == ["aside-engineering"]]
        assert engineering["cells"] >= 1 and engineering["equations"] >= 1


@pytest.mark.parametrize("name", PAGES)
def test_no_test_markers_or_progress_bars_are_shown(browser: Any, site_url: str, name: str) -> None:
    text = _visit(browser, site_url, name).reader["text"]
    assert MARKER.findall(text) == [], "nbval's markers in the page"
    assert PROGRESS.findall(text) == [], "progress bars in the page"


@pytest.mark.parametrize("name", PAGES)
def test_page_has_no_serious_accessibility_violations(
    browser: Any, site_url: str, name: str
) -> None:
    reader = _visit(browser, site_url, name).reader
    assert serious(reader["axe"]) == [], "axe-core: critical or serious violations"


# The handouts' stylesheet is the same for every page: checked on the pages that use all of it
# (a chapter with exercises, a quiz and an explorer; the intro), in every edition.
PRINT_PAGES = [p for p in PAGES if edition(p)[1] in ("intro", "chapters/03_sinusoidal")]


@pytest.mark.parametrize("name", PRINT_PAGES)
def test_print_view_passes_colour_contrast(browser: Any, site_url: str, name: str) -> None:
    context, page, _ = _open(browser, site_url, name)
    try:
        page.evaluate(TYPESET)
        violations = print_view_contrast(page)
    finally:
        context.close()
    assert serious(violations) == [], "axe-core colour contrast in the handout's print view"


@pytest.mark.parametrize("name", PAGES)
def test_page_is_under_3_mb(browser: Any, site_url: str, name: str) -> None:
    visit = _visit(browser, site_url, name)
    assert 0 < visit.bytes < MAX_PAGE_BYTES, f"{visit.bytes / 2**20:.2f} MB transferred"


# What an explorer shows: a live explorer's canvas (a digest of its pixels, and its label),
# or the PNG of a pre-rendered one (its src, and its alt text).
_SHOWN = """(root) => {
  const canvas = root.querySelector('canvas.posenc-explorer-canvas');
  if (canvas && !canvas.hidden && canvas.width > 0) {
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let h = 2166136261;
    for (let i = 0; i < data.length; i += 7) { h ^= data[i]; h = Math.imul(h, 16777619) >>> 0; }
    return {figure: 'canvas ' + h + ' ' + canvas.width + 'x' + canvas.height,
            label: canvas.getAttribute('aria-label')};
  }
  const img = root.querySelector('img.posenc-explorer-figure');
  return {figure: img.getAttribute('src') || '', label: img.alt};
}"""

# after a control moves, a live explorer redraws on the next animation frame
_FRAME = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


def _shown(root: Any) -> dict[str, str]:
    root.page.evaluate(_FRAME)
    state = root.evaluate(_SHOWN)
    state["figure"] = hashlib.sha1(state["figure"].encode()).hexdigest()
    return state


def _move(control: Any, root: Any) -> bool:
    """Change a control as a reader would (click, choose, arrow keys, type a number); True if
    the figure changed."""
    before = _shown(root)["figure"]
    kind = control.evaluate("e => e.tagName === 'SELECT' ? 'select' : e.type")
    if kind == "checkbox":
        control.click()
        return _shown(root)["figure"] != before
    if kind == "select":
        current = int(control.input_value())
        for i in range(control.locator("option").count()):
            if i != current:
                control.select_option(index=i)
                if _shown(root)["figure"] != before:
                    return True
        return False
    if kind == "range":
        control.focus()
        for key in ["End", "Home", *["ArrowRight"] * 12]:
            control.press(key)
            if _shown(root)["figure"] != before:
                return True
        return False
    if kind == "number":  # a live control's number box: a value of its range, then Enter
        spec = json.loads(control.get_attribute("data-range"))
        current = float(control.input_value())
        # the middle of the range first: at an end, another control may have nothing to show
        # (chapter 5's three channel choices are one pair at d = 4)
        for value in ((spec["min"] + spec["max"]) / 2, spec["max"], spec["min"]):
            if spec["integer"]:
                value = int(value)
            if value != current:
                control.fill(str(value))
                control.press("Enter")
                if _shown(root)["figure"] != before:
                    return True
        return False
    raise AssertionError(f"unknown explorer control kind {kind!r}")


def _move_every_control(page: Any, visit: Visit) -> None:
    explorers = page.locator(".posenc-explorer")
    for e in range(explorers.count()):
        root = explorers.nth(e)
        controls = root.locator("[data-control]")
        for k in range(controls.count()):
            control = controls.nth(k)
            control.scroll_into_view_if_needed()
            visit.controls += 1
            label = _shown(root)["label"]
            name = control.get_attribute("aria-label")
            if not _move(control, root):
                visit.stuck.append(f"explorer {e}: {name} ({control.get_attribute('type')})")
            elif _shown(root)["label"] == label:
                visit.alt_unchanged.append(f"explorer {e}: {name}")


@pytest.mark.parametrize("name", EXPLORER_PAGES)
def test_every_explorer_control_changes_the_figure(browser: Any, site_url: str, name: str) -> None:
    visit = _visit(browser, site_url, name)
    assert visit.controls > 0
    assert visit.stuck == [], "controls that do not change the figure"
    assert visit.console_errors == [] and visit.page_errors == [], "errors while moving controls"


@pytest.mark.parametrize("name", [p for p in PAGES if is_chapter(p)])
def test_chapter_offers_its_notebook_for_download(browser: Any, site_url: str, name: str) -> None:
    visit = _visit(browser, site_url, name)
    assert len(visit.downloads) == 1, "no (or several) download buttons for the chapter's notebook"
    language, docname = edition(name)
    assert visit.downloads[0].endswith(f"/{edition_folder(language)}_sources/{docname}.ipynb")
    with urllib.request.urlopen(visit.downloads[0]) as response:
        notebook = json.loads(response.read())
    assert notebook["nbformat"] == 4 and notebook["cells"], "the download is not a notebook"
    markdown = "".join(
        "".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown"
    )
    chinese = sum("\u4e00" <= ch <= "\u9fff" for ch in markdown)
    if language != SOURCE_LANGUAGE:
        assert chinese > len(markdown) / 10, "the Chinese page serves a notebook in English"
    else:
        assert chinese < len(markdown) / 50, "the English page serves a translated notebook"


@pytest.mark.parametrize("name", PAGES)
def test_page_links_to_itself_in_the_other_edition(browser: Any, site_url: str, name: str) -> None:
    visit = _visit(browser, site_url, name)
    language, page = edition(name)
    assert visit.lang == language.replace("_", "-"), f"<html lang={visit.lang!r}>"
    others = [other for other in LANGUAGES if other != language]
    expected = {
        other.replace("_", "-"): f"{site_url}/{edition_folder(other)}{page}.html"
        for other in others
    }
    assert dict(visit.language_links) == expected
    for href in expected.values():
        with urllib.request.urlopen(href) as response:
            assert response.status == 200
            response.read()  # whole: no broken pipe


def test_every_toc_page_was_built() -> None:
    missing = [p for p in PAGES if not (SITE / f"{p}.html").is_file()]
    assert missing == []


QUIZ_PAGES = [p for p in PAGES if 'class="pe-quiz' in (SITE / f"{p}.html").read_text()]


@pytest.mark.parametrize("name", [p for p in PAGES if is_chapter(p)])
def test_chapter_has_a_self_check_quiz(name: str) -> None:
    assert name in QUIZ_PAGES, "no self-check quiz on this chapter's page"


@pytest.mark.parametrize(
    ("folder", "query", "least"),
    [
        ("", "rotary", 3),
        ("zh_CN/", "位置编码", 10),  # jieba splits the pages' Chinese into words
        ("zh_CN/", "正余弦位置编码", 3),  # a glossary term stays whole (editions.py)
        ("zh_CN/", "注意力", 10),
    ],
)
def test_search_finds_words_of_eachedition(
    browser: Any, site_url: str, folder: str, query: str, least: int
) -> None:
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(f"{site_url}/{folder}search.html?q={query}", wait_until="load")
        # Sphinx writes the summary ("found N pages") once the last result is shown.
        page.wait_for_function(
            "() => /\\S/.test((document.querySelector('#search-results .search-summary')"
            " || {}).textContent || '')"
        )
        found = page.evaluate("() => document.querySelectorAll('#search-results li').length")
    finally:
        context.close()
    assert found >= least, f"{query!r}: {found} pages found"


@pytest.mark.parametrize("name", [p for p in PAGES if edition(p)[0] != SOURCE_LANGUAGE])
def test_translated_page_has_no_english_navigation(name: str) -> None:
    """The parts of the table of contents, the book's title and the search box are translated
    too (Sphinx leaves them to editions.py)."""
    page = (SITE / f"{name}.html").read_text(encoding="utf-8")
    captions = re.findall(
        r'class="caption" role="heading"><span class="caption-text">([^<]*)<', page
    )
    assert captions, "no parts in the sidebar"
    english = [c for c in captions if not re.search(r"[\u4e00-\u9fff]", c)]
    assert english == [], "sidebar parts left in English"
    assert "Positional Encodings in Transformers" not in page.split("<article", 1)[0]
    assert 'placeholder="Search this book' not in page


GLUE_PAGES = [p for p in PAGES if 'class="pasted-text"' in (SITE / f"{p}.html").read_text()]


@pytest.mark.parametrize("name", [p for p in GLUE_PAGES if not p.startswith("zh_CN/")])
def test_glued_numbers_reach_both_editions(name: str) -> None:
    """Every number the English text takes from the run (myst-nb glue) is in the Chinese page
    too: Sphinx parses a translated paragraph on its own, where glue once found no data."""
    english = re.findall(r'class="pasted-text">([^<]*)<', (SITE / f"{name}.html").read_text())
    chinese = (SITE / "zh_CN" / f"{name}.html").read_text()
    assert english and sorted(re.findall(r'class="pasted-text">([^<]*)<', chinese)) == sorted(
        english
    )
