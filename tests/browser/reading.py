"""What a reader touches, read off a loaded page or deck: shared by the suite's modules.

``test_site.py`` reads every page at 1366×768 (a laptop) in its one visit, ``test_reader.py``
at 390×844 (a phone), and ``test_slides.py`` every deck; each calls these helpers on the page
it already has open, so that no page is loaded twice for the same screen.
"""

from __future__ import annotations

import re
from typing import Any

LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
SERIOUS = ("critical", "serious")  # axe-core impacts that fail the suite

TYPESET = """() => new Promise(resolve => {
  const wait = () => (window.MathJax && MathJax.startup && MathJax.startup.promise)
    ? MathJax.startup.promise.then(() => resolve(true)) : resolve(false);
  if (document.readyState === 'complete') { wait(); } else { window.addEventListener('load', wait); }
})"""

EQUATIONS = """() => Array.from(document.querySelectorAll('div.math > mjx-container[display="true"]'))
  .map(m => {
    const style = getComputedStyle(m);
    return {
      id: (m.closest('div.math').id || m.textContent).slice(0, 60),
      overflows: m.scrollWidth > m.clientWidth + 1,
      scrolls: ['auto', 'scroll'].includes(style.overflowX),
      cue: m.classList.contains('pe-scrolls') && style.backgroundImage.includes('gradient'),
    };
  })"""

IMAGES = """() => Array.from(document.images)
  .filter(img => !img.closest('[aria-hidden="true"]') && img.getAttribute('role') !== 'presentation')
  .map(img => ({src: (img.getAttribute('src') || '').slice(0, 60), alt: img.getAttribute('alt')}))"""

SHOWN_TEXT = "() => (document.querySelector('main') || document.body).innerText"

# How a box that scrolls sideways tells it (reader.js, reader.css): its frame's shadow, drawn
# over the content, shows on each side that has more. ``framed(box)`` scrolls the box to its
# end and back, and reads the frame at both ends: whether the box overflows and scrolls, and
# whether the shadow is shown (opaque, over the box) exactly on the sides that have more.
_FRAMED = """async (box) => {
  const frame = box.parentElement;
  const shadow = (side) => {
    const style = getComputedStyle(frame, side);
    return style.content !== 'none' && Number(style.opacity) > 0.5
      && style.backgroundImage.includes('gradient') && style.position === 'absolute'
      && Number(style.zIndex) > 0;
  };
  const read = () => ({left: shadow('::before'), right: shadow('::after')});
  const settle = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 30)));
  const more = box.scrollWidth - box.clientWidth;
  const state = {
    overflows: more > 1,
    scrolls: ['auto', 'scroll'].includes(getComputedStyle(box).overflowX),
    framed: frame.classList.contains('pe-scroll-frame'),
  };
  box.scrollLeft = 0; await settle();
  const start = read();
  box.scrollLeft = more; await settle();
  const end = read();
  box.scrollLeft = 0; await settle();
  // a cue where there is more, none where there is not
  state.cue = state.framed && start.right === state.overflows && !start.left
    && end.left === state.overflows && !end.right;
  return state;
}"""

EXPLORERS = (
    """async () => {
  const framed = """
    + _FRAMED
    + """;
  const out = [];
  for (const img of document.querySelectorAll('img.posenc-explorer-figure')) {
    const box = img.closest('.posenc-explorer-scroll');
    out.push({
      text_px: img.getBoundingClientRect().width / Number(img.getAttribute('width'))
        * Number(img.dataset.textPx),
      alt: img.alt,
      ...(await framed(box)),
    });
  }
  return out;
}"""
)

# A cell's figure (inline width and height from the notebook's metadata): its shape against
# the PNG's, and its smallest text, from the size every figure has at its shown width on a
# laptop (``window.peReader``, reader.py).
FIGURES = (
    """async () => {
  const framed = """
    + _FRAMED
    + """;
  const sizes = window.peReader;
  const out = [];
  for (const img of document.querySelectorAll('.cell_output img, figure img')) {
    const drawn = parseFloat(img.style.width);
    if (img.closest('.posenc-explorer') || !(drawn > 0)) continue;
    if (!img.complete) await new Promise(r => img.addEventListener('load', r, {once: true}));
    const r = img.getBoundingClientRect();
    const box = img.closest('.pe-figure-scroll');
    out.push({
      alt: (img.alt || img.src).slice(0, 60),
      shape: (r.width / r.height) / (img.naturalWidth / img.naturalHeight),
      text_px: sizes ? sizes.figureTextPx * r.width / Math.min(drawn, sizes.columnPx) : 0,
      ...(box ? await framed(box) : {overflows: false, scrolls: false, framed: false, cue: false}),
    });
  }
  return out;
}"""
)

# The theme's tables scroll in their own container.
TABLES = (
    """async () => {
  const framed = """
    + _FRAMED
    + """;
  const out = [];
  for (const box of document.querySelectorAll('.pst-scrollable-table-container')) {
    out.push({text: box.innerText.slice(0, 40), ...(await framed(box))});
  }
  return out;
}"""
)

PAGE_OVERFLOW = "() => document.scrollingElement.scrollWidth - window.innerWidth"

# What a reader must never see: nbval's markers, and a progress bar (tqdm's "100%|█| n/N [")
MARKER = re.compile(r"NBVAL_[A-Z_]+")
PROGRESS = re.compile(r"\d+%\|[^|\n]*\|\s*\d+/\d+ \[|step/s")
_BAD_ALT = re.compile(
    r"\.(png|jpe?g|svg|gif)\b|/_images/|No description has been provided", re.IGNORECASE
)


def alt_problem(alt: str | None) -> str | None:
    """Why ``alt`` cannot say what an image shows (None if it can): missing, a file name,
    nbconvert's placeholder, or under three words (six characters of Chinese)."""
    if alt is None or not alt.strip():
        return "no alt text"
    if _BAD_ALT.search(alt):
        return f"a file name or placeholder: {alt[:60]!r}"
    words = len(alt.split()) if alt.isascii() else len(re.sub(r"\s", "", alt)) // 2
    if words < 3:
        return f"too short to say what it shows: {alt!r}"
    return None


def axe_violations(page: Any, **options: Any) -> list[tuple[str, str, int]]:
    """axe-core's violations on the page as ``(rule, impact, elements)``; axe-core is the copy
    bundled by the pinned ``axe-playwright-python``, injected into the page (no network)."""
    from axe_playwright_python.sync_playwright import Axe

    # no preload: axe would fetch the pages' stylesheets again itself, resolving their
    # @imports against the wrong folder (404s the suite counts as errors)
    run = {"resultTypes": ["violations"], "preload": False, **options}
    response = Axe().run(page, options=run).response
    return [(v["id"], v["impact"] or "", len(v["nodes"])) for v in response["violations"]]


def serious(violations: list[tuple[str, str, int]]) -> list[tuple[str, str, int]]:
    return [v for v in violations if v[1] in SERIOUS]


def read_for_reader(page: Any) -> dict[str, Any]:
    """A typeset page's equations, images, shown text and axe violations."""
    return {
        "equations": page.evaluate(EQUATIONS),
        "images": page.evaluate(IMAGES),
        "text": page.evaluate(SHOWN_TEXT),
        "axe": axe_violations(page),
    }


def print_view_contrast(page: Any) -> list[tuple[str, str, int]]:
    """axe-core's colour-contrast violations in the page's print view: the stylesheet the PDF
    handouts are printed with (the page is left in the screen view)."""
    page.emulate_media(media="print")
    try:
        return axe_violations(page, runOnly=["color-contrast"])
    finally:
        page.emulate_media(media="screen")


def summary(reading: dict[str, Any]) -> dict[str, Any]:
    """What the browser suite's summary lists of a page's reading (conftest.py)."""
    out: dict[str, Any] = {}
    if "axe" in reading:
        out["axe"] = sorted({f"{rule} ({impact})" for rule, impact, _ in reading["axe"]})
        out["no_alt"] = sum(alt_problem(i["alt"]) is not None for i in reading["images"])
    if "equations" in reading:
        out["equations"] = len(reading["equations"])
        key = "wide_on_phone" if reading.get("screen") == "phone" else "clipped_on_laptop"
        out[key] = sum(e["overflows"] for e in reading["equations"])
    return out
