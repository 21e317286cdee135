"""Every page of both editions on a phone (390×844), as a reader holds it.

Each page is opened once at 390×844 in a fresh context, after MathJax has typeset it, and
photographed (``_build/screenshots/phone-*.png``). The suite fails on

* a display equation that neither fits its box nor scrolls inside it with the scroll cue, the
  shadow at the side that has more (a cue on a box that fits fails too). The scrollbar is not
  what tells: a phone's browser shows it only while scrolling, and so does headless chromium
  (playwright starts it with ``--hide-scrollbars``);
* a page that scrolls sideways;
* a chapter-list or contents button that does not open its panel when clicked;
* a chapter-list or contents panel that stays open over the page once an entry is chosen;
* a cell's figure that loses its shape (more than 2% off the PNG's aspect ratio), whose
  smallest text falls under ``PHONE_TEXT_PX`` CSS px, or that is wider than the screen and
  cannot scroll or shows no cue;
* an explorer figure whose smallest text is under ``PHONE_TEXT_PX`` CSS px, or that is wider
  than the screen and cannot scroll or shows no cue;
* a table, a code listing or an output wider than the screen that cannot scroll or shows no
  cue, and a table squeezed until its inline code breaks across lines;
* a line that starts with the punctuation after inline math (", whatever its column");
* inline math cut at the screen's edge (in the text, a solution or an optional box);
* a contents entry that, chosen, does not bring its heading to the top of the screen, and a
  tooltip left over the page after the menus were used.

The cue of a figure, an explorer or a table is a shadow its frame draws over it on each side
that has more: read at both ends of the box's scroll (``reading.py``).

The same page at 1366×768 (equations that fit, alt text, listings, axe-core) is read in
``test_site.py``'s one visit, and the decks in ``test_slides.py`` (``reading.py``).
"""

from __future__ import annotations

from typing import Any

import pytest

from book.explorers.explorer import PHONE_TEXT_PX

from .conftest import SCREENSHOTS, edition_pages, record
from .reading import (
    EQUATIONS,
    EXPLORERS,
    FIGURES,
    INLINE_MATH_CUT,
    LISTINGS,
    OPEN_BOXES,
    PAGE_OVERFLOW,
    PHONE,
    PUNCTUATION_BREAKS,
    SQUEEZED_TABLE_CODE,
    TABLES,
    TYPESET,
    summary,
)
from .test_site import EXPLORER_PAGES

PAGES = edition_pages()

_MENU = """(kind) => {
  const dialog = document.getElementById(`pst-${kind}-sidebar-modal`);
  const links = dialog ? Array.from(dialog.querySelectorAll('a')).filter(a => {
    const r = a.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.top < window.innerHeight;
  }) : [];
  return {open: !!(dialog && dialog.open), links: links.length};
}"""

# Choose the first entry of the open contents panel that points into the page (as a reader
# taps a heading); whether the panel is still open after it.
_CHOOSE = """async (kind) => {
  const dialog = document.getElementById(`pst-${kind}-sidebar-modal`);
  const link = dialog && Array.from(dialog.querySelectorAll('a[href^="#"]')).find(a => {
    const r = a.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  });
  if (!link) return null;
  link.click();
  await new Promise(r => setTimeout(r, 400));
  const target = document.getElementById(decodeURIComponent(link.hash.slice(1)));
  return {open: dialog.open, top: target ? target.getBoundingClientRect().top : null};
}"""

# Tooltips left on screen (a tapped button's, say).
_TOOLTIPS = """() => Array.from(document.querySelectorAll('.tooltip')).filter(t => {
  const style = getComputedStyle(t);
  return t.getClientRects().length && style.display !== 'none' && Number(style.opacity) > 0;
}).map(t => t.innerText)"""


def _open_menu(page: Any, kind: str) -> dict[str, Any]:
    """Click the visible ``kind`` button (primary: the chapter list, secondary: the page's
    contents) as a reader would; whether its panel opened, with links on screen."""
    buttons = page.locator(f"button.{kind}-toggle:visible")
    if buttons.count() == 0:
        return {"button": False}
    buttons.first.click()
    page.wait_for_timeout(300)
    state = page.evaluate(_MENU, kind)
    if state["open"] and kind == "secondary":
        state["choice"] = page.evaluate(_CHOOSE, kind)
    if page.evaluate(_MENU, kind)["open"]:
        page.keyboard.press("Escape")
        page.wait_for_timeout(150)
    state["tooltips"] = page.evaluate(_TOOLTIPS)
    return {"button": True, **state}


_READINGS: dict[str, dict[str, Any]] = {}


def _phone(browser: Any, site_url: str, name: str) -> dict[str, Any]:
    """Load a page once at 390×844 (cached for the session) and read it."""
    if name in _READINGS:
        return _READINGS[name]
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    try:
        page.goto(f"{site_url}/{name}.html", wait_until="load")
        page.evaluate(TYPESET)
        page.wait_for_timeout(100)  # reader.js marks the boxes that scroll once typeset
        reading = {
            "screen": "phone",
            "equations": page.evaluate(EQUATIONS),
            "explorers": page.evaluate(EXPLORERS),
            "figures": page.evaluate(FIGURES),
            "tables": page.evaluate(TABLES),
            "listings": page.evaluate(LISTINGS),
            "punctuation": page.evaluate(PUNCTUATION_BREAKS),
            "squeezed": page.evaluate(SQUEEZED_TABLE_CODE),
            "page_overflow": page.evaluate(PAGE_OVERFLOW),
        }
        page.evaluate(OPEN_BOXES)
        page.wait_for_timeout(400)
        reading["inline_math_cut"] = page.evaluate(INLINE_MATH_CUT)
        page.evaluate("() => window.scrollTo(0, 0)")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"phone__{name.replace('/', '__')}.png"))
        reading["menus"] = {kind: _open_menu(page, kind) for kind in ("primary", "secondary")}
    finally:
        context.close()
    record(name, **summary(reading))
    _READINGS[name] = reading
    return reading


@pytest.mark.parametrize("name", PAGES)
def test_equations_fit_or_scroll_with_a_cue(browser: Any, site_url: str, name: str) -> None:
    reading = _phone(browser, site_url, name)
    cut = [
        e["id"] for e in reading["equations"] if e["overflows"] and not (e["scrolls"] and e["cue"])
    ]
    assert cut == [], "wider than their box, with no scrolling or no shadow cue"
    misleading = [e["id"] for e in reading["equations"] if e["cue"] and not e["overflows"]]
    assert misleading == [], "a scroll cue on an equation that fits"


@pytest.mark.parametrize("name", PAGES)
def test_page_does_not_scroll_sideways(browser: Any, site_url: str, name: str) -> None:
    overflow = _phone(browser, site_url, name)["page_overflow"]
    assert overflow <= 1, f"the page is {overflow} px wider than the phone"


@pytest.mark.parametrize("name", PAGES)
def test_menu_buttons_open_their_panels(browser: Any, site_url: str, name: str) -> None:
    menus = _phone(browser, site_url, name)["menus"]
    chapters = menus["primary"]
    assert chapters["button"], "no visible chapter-list button"
    assert chapters["open"] and chapters["links"] >= 10, f"the chapter list: {chapters}"
    contents = menus["secondary"]
    if contents["button"]:
        assert contents["open"] and contents["links"] >= 1, f"the contents: {contents}"
        choice = contents["choice"]
        assert choice and choice["open"] is False, "the contents stay open over the page"
        # the chosen heading at the top of the screen, under the header (64 px)
        assert choice["top"] is not None and 0 <= choice["top"] <= 150, (
            f"the chosen heading landed {choice['top']} px down the screen"
        )
    left = {kind: menus[kind].get("tooltips") for kind in menus if menus[kind].get("tooltips")}
    assert left == {}, "tooltips left over the page after using the menus"


@pytest.mark.parametrize("name", PAGES)
def test_figures_keep_their_shape_and_readable_text(browser: Any, site_url: str, name: str) -> None:
    figures = _phone(browser, site_url, name)["figures"]
    squashed = [(f["alt"], round(f["shape"], 3)) for f in figures if abs(f["shape"] - 1) > 0.02]
    assert squashed == [], "figures off their aspect ratio (shown / drawn)"
    small = [
        (f["alt"], round(f["text_px"], 2)) for f in figures if f["text_px"] < PHONE_TEXT_PX - 0.05
    ]
    assert small == [], f"figure text under {PHONE_TEXT_PX} CSS px"
    unframed = [f["alt"] for f in figures if not f["framed"]]
    assert unframed == [], "figures outside a scroll frame"
    stuck = [f["alt"] for f in figures if f["overflows"] and not (f["scrolls"] and f["cue"])]
    assert stuck == [], "figures wider than the phone with no scroll or no cue"
    wrong = [f["alt"] for f in figures if not f["overflows"] and not f["cue"]]
    assert wrong == [], "a scroll cue on a figure that fits"


@pytest.mark.parametrize("name", PAGES)
def test_wide_listings_scroll_with_a_cue(browser: Any, site_url: str, name: str) -> None:
    listings = _phone(browser, site_url, name)["listings"]
    stuck = [t["text"] for t in listings if t["overflows"] and not (t["scrolls"] and t["cue"])]
    assert stuck == [], "code or output wider than the phone with no scroll or no cue"
    wrong = [t["text"] for t in listings if not t["overflows"] and not t["cue"]]
    assert wrong == [], "a scroll cue on a listing that fits"


@pytest.mark.parametrize("name", PAGES)
def test_punctuation_stays_with_its_math(browser: Any, site_url: str, name: str) -> None:
    broken = _phone(browser, site_url, name)["punctuation"]
    assert broken == [], "a line starts with the punctuation that follows inline math"


@pytest.mark.parametrize("name", PAGES)
def test_inline_math_stays_on_the_screen(browser: Any, site_url: str, name: str) -> None:
    # boxes opened: the formulas of solutions and optional boxes count too
    cut = _phone(browser, site_url, name)["inline_math_cut"]
    assert cut == [], "inline math cut at the screen's edge (make it a display equation)"


@pytest.mark.parametrize("name", PAGES)
def test_wide_tables_scroll_with_a_cue(browser: Any, site_url: str, name: str) -> None:
    tables = _phone(browser, site_url, name)["tables"]
    stuck = [t["text"] for t in tables if t["overflows"] and not (t["scrolls"] and t["cue"])]
    assert stuck == [], "tables wider than the phone with no scroll or no cue"
    wrong = [t["text"] for t in tables if not t["overflows"] and not t["cue"]]
    assert wrong == [], "a scroll cue on a table that fits"
    squeezed = _phone(browser, site_url, name)["squeezed"]
    assert squeezed == [], "inline code broken across lines in a squeezed table column"


@pytest.mark.parametrize("name", EXPLORER_PAGES)
def test_explorer_text_stays_readable(browser: Any, site_url: str, name: str) -> None:
    explorers = _phone(browser, site_url, name)["explorers"]
    assert explorers, "no explorer found on a page that has one"
    # the frames' text sizes are stored to 0.01 px, and widths round to whole pixels
    small = [round(e["text_px"], 2) for e in explorers if not e["text_px"] >= PHONE_TEXT_PX - 0.05]
    assert small == [], f"explorer text under {PHONE_TEXT_PX} CSS px"
    stuck = [e["alt"][:50] for e in explorers if e["overflows"] and not (e["scrolls"] and e["cue"])]
    assert stuck == [], "explorer figures wider than the phone with no scroll or no cue"
    wrong = [e["alt"][:50] for e in explorers if not e["overflows"] and not e["cue"]]
    assert wrong == [], "a scroll cue on an explorer figure that fits"
