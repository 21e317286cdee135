"""What a reader touches, measured on every page and deck of both editions, on a laptop and a phone.

Each page is opened twice, in a fresh context each time: at 1366×768 (a laptop) and at 390×844
(a phone), after MathJax has typeset it. The suite fails on

* a display equation cut off on the laptop (wider than its box), or on the phone one that
  neither fits nor scrolls inside its own box with a visible scrollbar and the scroll cue;
* a page that scrolls sideways on the phone;
* a chapter-list or contents button on the phone that does not open its panel;
* an explorer figure whose smallest text is under ``PHONE_TEXT_PX`` CSS px on the phone;
* an image whose alt text is missing, a file name, or nbconvert's placeholder, and an explorer
  whose alt text does not follow its controls;
* a test marker (``# NBVAL_…``) or a progress bar in what the page shows;
* any critical or serious axe-core violation (WCAG 2.1 AA rules, colour contrast included) in a
  page, in its print view (the handout's stylesheet) or in a deck at 1920×1080.

The terminal summary of the browser suite (and ``_build/screenshots/reader.md``) lists by page
and deck: equations wider than their box per viewport, axe violations by rule, images without
alt text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import pytest

from book.explorers.explorer import PHONE_TEXT_PX

from .conftest import SCREENSHOTS, edition_pages, record
from .test_site import EXPLORER_PAGES
from .test_slides import DECKS, _split

PAGES = edition_pages()
LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
PROJECTOR = {"width": 1920, "height": 1080}
SERIOUS = ("critical", "serious")

_TYPESET = """() => new Promise(resolve => {
  const wait = () => (window.MathJax && MathJax.startup && MathJax.startup.promise)
    ? MathJax.startup.promise.then(() => resolve(true)) : resolve(false);
  if (document.readyState === 'complete') { wait(); } else { window.addEventListener('load', wait); }
})"""

_EQUATIONS = """() => Array.from(document.querySelectorAll('div.math > mjx-container[display="true"]'))
  .map(m => {
    const style = getComputedStyle(m);
    return {
      id: (m.closest('div.math').id || m.textContent).slice(0, 60),
      overflows: m.scrollWidth > m.clientWidth + 1,
      scrolls: ['auto', 'scroll'].includes(style.overflowX),
      cue: m.classList.contains('pe-scrolls'),
      scrollbar: m.offsetHeight - m.clientHeight,
      right: m.getBoundingClientRect().right,
    };
  })"""

_IMAGES = """() => Array.from(document.images)
  .filter(img => !img.closest('[aria-hidden="true"]') && img.getAttribute('role') !== 'presentation')
  .map(img => ({src: (img.getAttribute('src') || '').slice(0, 60), alt: img.getAttribute('alt')}))"""

_SHOWN_TEXT = """() => {
  const main = document.querySelector('main') || document.body;
  return main.innerText;
}"""

_EXPLORERS = """() => Array.from(document.querySelectorAll('img.posenc-explorer-figure')).map(img => {
  const box = img.closest('.posenc-explorer-scroll');
  const shown = img.getBoundingClientRect().width;
  return {
    text_px: shown / Number(img.getAttribute('width')) * Number(img.dataset.textPx),
    overflows: box.scrollWidth > box.clientWidth + 1,
    scrolls: ['auto', 'scroll'].includes(getComputedStyle(box).overflowX),
    cue: box.classList.contains('pe-scrolls'),
    alt: img.alt,
  };
})"""

_PAGE_WIDTH = "() => document.scrollingElement.scrollWidth - window.innerWidth"

# What a reader must never see: nbval's markers, and a progress bar (tqdm's meter: "100%|█| n/N [")
_MARKER = re.compile(r"NBVAL_[A-Z_]+")
_PROGRESS = re.compile(r"\d+%\|[^|\n]*\|\s*\d+/\d+ \[|step/s")
_BAD_ALT = re.compile(
    r"\.(png|jpe?g|svg|gif)\b|/_images/|No description has been provided", re.IGNORECASE
)


def _alt_problem(alt: str | None) -> str | None:
    """Why ``alt`` does not say what an image shows (None if it can)."""
    if alt is None or not alt.strip():
        return "no alt text"
    if _BAD_ALT.search(alt):
        return f"a file name or placeholder: {alt[:60]!r}"
    words = len(alt.split()) if alt.isascii() else len(re.sub(r"\s", "", alt)) // 2
    if words < 3:
        return f"too short to say what it shows: {alt!r}"
    return None


@dataclass
class Reading:
    """What one page (or deck) showed at one screen size."""

    equations: list[dict[str, Any]] = field(default_factory=list)
    images: list[dict[str, Any]] = field(default_factory=list)
    text: str = ""
    explorers: list[dict[str, Any]] = field(default_factory=list)
    explorer_alts: list[tuple[str, str]] = field(default_factory=list)  # before, after a move
    page_overflow: int = 0
    axe: list[tuple[str, str, int]] = field(default_factory=list)  # rule, impact, nodes
    print_axe: list[tuple[str, str, int]] = field(default_factory=list)
    menus: dict[str, Any] = field(default_factory=dict)


_READINGS: dict[tuple[str, str], Reading] = {}


def _axe(page: Any, **options: Any) -> list[tuple[str, str, int]]:
    from axe_playwright_python.sync_playwright import Axe

    run = {"resultTypes": ["violations"], **options}
    response = Axe().run(page, options=run).response
    return [(v["id"], v["impact"] or "", len(v["nodes"])) for v in response["violations"]]


def _open(browser: Any, url: str, viewport: dict[str, int]) -> tuple[Any, Any]:
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.goto(url, wait_until="load")
    page.evaluate(_TYPESET)
    page.wait_for_timeout(100)  # reader.js marks the scrolling boxes once typeset
    return context, page


def _open_menu(page: Any, kind: str) -> dict[str, Any]:
    """Click the visible ``kind`` button (primary: chapters, secondary: contents) as a reader
    would; report whether its panel opened with links in it."""
    buttons = page.locator(f"button.{kind}-toggle:visible")
    if buttons.count() == 0:
        return {"button": False}
    buttons.first.click()
    page.wait_for_timeout(300)
    state = page.evaluate(
        """(kind) => {
          const dialog = document.getElementById(`pst-${kind}-sidebar-modal`);
          const links = dialog ? Array.from(dialog.querySelectorAll('a'))
            .filter(a => a.getBoundingClientRect().width > 0 && a.getBoundingClientRect().height > 0) : [];
          return {open: !!(dialog && dialog.open), links: links.length};
        }""",
        kind,
    )
    page.keyboard.press("Escape")
    page.wait_for_timeout(150)
    return {"button": True, **state}


def _laptop(browser: Any, site_url: str, name: str) -> Reading:
    key = (name, "laptop")
    if key in _READINGS:
        return _READINGS[key]
    reading = _READINGS[key] = Reading()
    context, page = _open(browser, f"{site_url}/{name}.html", LAPTOP)
    try:
        reading.equations = page.evaluate(_EQUATIONS)
        reading.images = page.evaluate(_IMAGES)
        reading.text = page.evaluate(_SHOWN_TEXT)
        reading.axe = _axe(page)
        # the print view: the handout's stylesheet, checked for colour contrast
        page.emulate_media(media="print")
        reading.print_axe = _axe(page, runOnly=["color-contrast"])
        page.emulate_media(media="screen")
        explorers = page.locator(".posenc-explorer")
        for e in range(explorers.count()):
            root = explorers.nth(e)
            img = root.locator("img.posenc-explorer-figure")
            control = root.locator("[data-control]").first
            before = img.get_attribute("alt") or ""
            kind = control.evaluate("e => e.tagName === 'SELECT' ? 'select' : e.type")
            if kind == "checkbox":
                control.click()
            elif kind == "select":
                count = control.locator("option").count()
                control.select_option(index=(int(control.input_value()) + 1) % count)
            else:
                control.focus()
                current = control.input_value()
                control.press("End" if current != control.get_attribute("max") else "Home")
            reading.explorer_alts.append((before, img.get_attribute("alt") or ""))
    finally:
        context.close()
    record(name, **_summary(reading, "laptop"))
    return reading


def _phone(browser: Any, site_url: str, name: str) -> Reading:
    key = (name, "phone")
    if key in _READINGS:
        return _READINGS[key]
    reading = _READINGS[key] = Reading()
    context, page = _open(browser, f"{site_url}/{name}.html", PHONE)
    try:
        reading.equations = page.evaluate(_EQUATIONS)
        reading.explorers = page.evaluate(_EXPLORERS)
        reading.page_overflow = page.evaluate(_PAGE_WIDTH)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"phone-{name.replace('/', '-')}.png"))
        reading.menus = {kind: _open_menu(page, kind) for kind in ("primary", "secondary")}
    finally:
        context.close()
    record(name, **_summary(reading, "phone"))
    return reading


def _summary(reading: Reading, screen: str) -> dict[str, Any]:
    clipped = sum(e["overflows"] for e in reading.equations)
    if screen == "phone":
        return {"equations": len(reading.equations), "wide_on_phone": clipped}
    return {
        "clipped_on_laptop": clipped,
        "axe": sorted({f"{rule} ({impact})" for rule, impact, _ in reading.axe}),
        "no_alt": sum(_alt_problem(i["alt"]) is not None for i in reading.images),
    }


@pytest.mark.parametrize("name", PAGES)
def test_equations_fit_the_column_on_a_laptop(browser: Any, site_url: str, name: str) -> None:
    reading = _laptop(browser, site_url, name)
    clipped = [e["id"] for e in reading.equations if e["overflows"]]
    assert clipped == [], "display equations wider than the column at 1366 px"


@pytest.mark.parametrize("name", PAGES)
def test_equations_fit_or_scroll_with_a_cue_on_a_phone(
    browser: Any, site_url: str, name: str
) -> None:
    reading = _phone(browser, site_url, name)
    bad = [
        e["id"]
        for e in reading.equations
        if e["overflows"] and not (e["scrolls"] and e["cue"] and e["scrollbar"] >= 3)
    ]
    assert bad == [], "equations cut at 390 px: wider than their box, with no scroll and cue"
    assert all(e["cue"] == e["overflows"] for e in reading.equations), "a cue on a box that fits"
    assert reading.page_overflow <= 1, "the page scrolls sideways at 390 px"


@pytest.mark.parametrize("name", PAGES)
def test_phone_menus_open_their_panels(browser: Any, site_url: str, name: str) -> None:
    menus = _phone(browser, site_url, name).menus
    chapters = menus["primary"]
    assert chapters["button"], "no visible chapter-list button at 390 px"
    assert chapters["open"] and chapters["links"] >= 10, (
        f"the chapter list did not open: {chapters}"
    )
    contents = menus["secondary"]
    if contents["button"]:
        assert contents["open"] and contents["links"] >= 1, f"the contents did not open: {contents}"


@pytest.mark.parametrize("name", EXPLORER_PAGES)
def test_explorer_text_stays_readable_on_a_phone(browser: Any, site_url: str, name: str) -> None:
    reading = _phone(browser, site_url, name)
    small = [round(e["text_px"], 1) for e in reading.explorers if e["text_px"] < PHONE_TEXT_PX]
    assert small == [], f"explorer text under {PHONE_TEXT_PX} CSS px at 390 px"
    no_cue = [e["alt"][:50] for e in reading.explorers if e["overflows"] and not e["cue"]]
    assert no_cue == [], "explorer figures wider than the phone with no scroll cue"
    assert all(e["scrolls"] for e in reading.explorers), "explorer figures that cannot scroll"


@pytest.mark.parametrize("name", PAGES)
def test_every_image_says_what_it_shows(browser: Any, site_url: str, name: str) -> None:
    reading = _laptop(browser, site_url, name)
    problems = [f"{i['src']}: {p}" for i in reading.images if (p := _alt_problem(i["alt"]))]
    assert problems == []
    unchanged = [before for before, after in reading.explorer_alts if before == after]
    assert unchanged == [], "explorers whose alt text does not follow their controls"


@pytest.mark.parametrize("name", PAGES)
def test_no_test_markers_or_progress_bars_are_shown(browser: Any, site_url: str, name: str) -> None:
    text = _laptop(browser, site_url, name).text
    assert _MARKER.findall(text) == [], "nbval markers in the page"
    assert _PROGRESS.findall(text) == [], "progress bars in the page"


@pytest.mark.parametrize("name", PAGES)
def test_page_has_no_serious_accessibility_violations(
    browser: Any, site_url: str, name: str
) -> None:
    reading = _laptop(browser, site_url, name)
    assert [v for v in reading.axe if v[1] in SERIOUS] == [], "axe-core: critical/serious"
    assert [v for v in reading.print_axe if v[1] in SERIOUS] == [], "axe-core, print view"


@pytest.mark.parametrize("deck", DECKS)
def test_deck_is_accessible_and_its_images_say_what_they_show(
    browser: Any, site_url: str, deck: str
) -> None:
    folder, stem = _split(deck)
    context, page = _open(browser, f"{site_url}/{folder}slides/{stem}.slides.html", PROJECTOR)
    try:
        page.wait_for_function("() => window.Reveal && Reveal.isReady()")
        images = page.evaluate(_IMAGES)
        violations = _axe(page)
    finally:
        context.close()
    record(
        f"deck:{deck}",
        axe=sorted({f"{rule} ({impact})" for rule, impact, _ in violations}),
        no_alt=sum(_alt_problem(i["alt"]) is not None for i in images),
    )
    problems = [f"{i['src']}: {p}" for i in images if (p := _alt_problem(i["alt"]))]
    assert problems == [], "deck images without a description"
    assert [v for v in violations if v[1] in SERIOUS] == [], "axe-core: critical/serious"
