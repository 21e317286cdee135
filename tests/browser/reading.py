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
# over the content, shows on each side that has more. ``frames(boxes)`` scrolls every box to
# its start, then to its end, then back (all at once: three frames for a page), and reads each
# box's frame at both ends: whether the box overflows and scrolls, whether it is framed, and
# ``cue``: the shadow shows (opaque, over the box) exactly on the sides that have more. A null
# box (content that reader.js did not frame) reads as unframed.
_FRAMES = """async (boxes) => {
  const shadow = (frame, side) => {
    const style = getComputedStyle(frame, side);
    return style.content !== 'none' && Number(style.opacity) > 0.5
      && style.backgroundImage.includes('gradient') && style.position === 'absolute'
      && Number(style.zIndex) > 0;
  };
  const read = (box) => ({
    left: shadow(box.parentElement, '::before'), right: shadow(box.parentElement, '::after'),
  });
  const settle = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 30)));
  const real = boxes.filter(b => b);
  const more = new Map(real.map(b => [b, b.scrollWidth - b.clientWidth]));
  real.forEach(b => { b.scrollLeft = 0; });
  await settle();
  const start = new Map(real.map(b => [b, read(b)]));
  real.forEach(b => { b.scrollLeft = more.get(b); });
  await settle();
  const end = new Map(real.map(b => [b, read(b)]));
  real.forEach(b => { b.scrollLeft = 0; });
  await settle();
  return boxes.map(box => {
    if (!box) return {overflows: false, scrolls: false, framed: false, cue: false};
    const overflows = more.get(box) > 1;
    const framed = box.parentElement.classList.contains('pe-scroll-frame');
    const a = start.get(box), b = end.get(box);
    return {
      overflows,
      scrolls: ['auto', 'scroll'].includes(getComputedStyle(box).overflowX),
      framed,
      cue: framed && a.right === overflows && !a.left && b.left === overflows && !b.right,
    };
  });
}"""


def _framed(select: str) -> str:
    """A page function: ``select`` (JavaScript that gives ``[info, box]`` pairs, ``box`` the
    element that scrolls) read with ``_FRAMES``, each pair as ``{...info, ...frame state}``."""
    return (
        "async () => {\n  const frames = "
        + _FRAMES
        + ";\n  const pairs = await (async () => {"
        + select
        + "})();\n  const states = await frames(pairs.map(p => p[1]));\n"
        + "  return pairs.map((p, i) => ({...p[0], ...states[i]}));\n}"
    )


EXPLORERS = _framed(
    """
  // a pre-rendered frame's text scales with the width it is shown at; a live explorer's
  // canvas draws its text at the CSS px it records (data-text-px), whatever its width
  const shown = (el) => el.getBoundingClientRect().width > 0 && !el.hidden;
  return Array.from(document.querySelectorAll('.posenc-explorer')).map(root => {
    const canvas = root.querySelector('canvas.posenc-explorer-canvas');
    const img = root.querySelector('img.posenc-explorer-figure');
    if (canvas && shown(canvas)) {
      return [{live: true, text_px: Number(canvas.dataset.textPx),
        alt: canvas.getAttribute('aria-label')}, root.querySelector('.posenc-explorer-scroll')];
    }
    return [{live: false, text_px: img.getBoundingClientRect().width
      / Number(img.getAttribute('width')) * Number(img.dataset.textPx), alt: img.alt},
      img.closest('.posenc-explorer-scroll')];
  });"""
)

# A cell's figure (inline width and height from the notebook's metadata): its shape against
# the PNG's, and its smallest text, from the size every figure has at its shown width on a
# laptop (``window.peReader``, reader.py).
FIGURES = _framed(
    """
  const sizes = window.peReader;
  const pairs = [];
  for (const img of document.querySelectorAll('.cell_output img, figure img')) {
    const drawn = parseFloat(img.style.width);
    if (img.closest('.posenc-explorer') || !(drawn > 0)) continue;
    if (!img.complete) await new Promise(r => img.addEventListener('load', r, {once: true}));
    const r = img.getBoundingClientRect();
    pairs.push([{
      alt: (img.alt || img.src).slice(0, 60),
      shape: (r.width / r.height) / (img.naturalWidth / img.naturalHeight),
      text_px: sizes ? sizes.figureTextPx * r.width / Math.min(drawn, sizes.columnPx) : 0,
    }, img.closest('.pe-figure-scroll')]);
  }
  return pairs;"""
)

# The theme's tables scroll in their own container, an experiment's result tables in their
# output (seen: chapter 13's passkey tables running past a phone's edge with no cue).
TABLES = _framed(
    """
  return Array.from(document.querySelectorAll(
      '.pst-scrollable-table-container, div.output.text_html:has(> table.posenc-results)'))
    .map(box => [{text: box.innerText.slice(0, 40)}, box]);"""
)

# Code listings and text outputs: each scrolls in its own <pre>.
LISTINGS = _framed(
    """
  return Array.from(document.querySelectorAll('div.highlight > pre'))
    .filter(pre => pre.getClientRects().length)
    .map(pre => [{text: pre.innerText.split('\\n')[0].slice(0, 50)}, pre]);"""
)

# Inline math whose following punctuation went to the next line (", whatever" starting a
# line), read from the rendered lines, whatever the markup around them.
PUNCTUATION_BREAKS = """() => {
  const AFTER = /^[,.;:!?)\\]\u2019\u201d\uff0c\u3002\uff1b\uff1a\uff01\uff1f\u3001\uff09]/;
  const out = [];
  for (const math of document.querySelectorAll('mjx-container:not([display="true"])')) {
    const box = math.getBoundingClientRect();
    if (!box.width) continue;
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
      acceptNode: n => math.contains(n) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
    });
    walker.currentNode = math;
    let after = walker.nextNode();
    while (after && !after.nodeValue.length) after = walker.nextNode();
    if (!after || !AFTER.test(after.nodeValue)) continue;
    const range = document.createRange();
    range.setStart(after, 0);
    range.setEnd(after, 1);
    const r = range.getBoundingClientRect();
    if (r.height && r.top > box.top + box.height / 2) {
      out.push(math.textContent.slice(0, 30) + ' | ' + after.nodeValue.slice(0, 12));
    }
  }
  return out;
}"""

# Inline math that is cut: wider than its own box (the theme gives ``span.math`` a max-width of
# its line; MathJax does not break an inline formula, so a long one would lose its end on a
# phone) unless that box scrolls with the cue (reader.js), or past an edge of the screen
# outside any box that scrolls. Read
# in the article only (the closed contents panel keeps its own math off screen).
INLINE_MATH_CUT = """() => {
  const root = document.querySelector('article.bd-article') || document.querySelector('main')
    || document.body;
  const screen = document.documentElement.clientWidth;
  const out = [];
  for (const math of root.querySelectorAll('mjx-container:not([display="true"])')) {
    const r = math.getBoundingClientRect();
    if (!r.width) continue;
    const own = math.closest('span.math');
    // a formula wider than its own box may scroll in it (reader.js), with the cue
    const ownScrolls = !!own && ['auto', 'scroll'].includes(getComputedStyle(own).overflowX)
      && own.classList.contains('pe-scrolls') && own.scrollWidth > own.clientWidth;
    let cut = !!own && r.width > own.clientWidth + 1 && !ownScrolls;
    // what must fit the screen: the formula, or the box it scrolls in
    const shown = ownScrolls ? own.getBoundingClientRect() : r;
    let box = (own || math).parentElement, scrolls = false;
    while (box && box !== document.body) {
      const x = getComputedStyle(box).overflowX;
      if ((x === 'auto' || x === 'scroll') && box.scrollWidth > box.clientWidth + 1) {
        scrolls = true;
        break;
      }
      box = box.parentElement;
    }
    if (!scrolls && (shown.right > screen + 1 || shown.left < -1)) cut = true;
    if (cut) out.push(math.textContent.slice(0, 40));
  }
  return out;
}"""

# Open every collapsed box (solutions, optional boxes), as a reader does, by clicking it, so
# that what is inside is laid out too.
OPEN_BOXES = """() => document.querySelectorAll('button.toggle-button.toggle-button-hidden')
  .forEach(button => button.click())"""

# Markdown that did not become markup: "**" left in the shown text (outside code and math), as
# when a translation's emphasis is not recognised ("**附录**用" next to a role).
RAW_MARKDOWN = """() => {
  const root = document.querySelector('main') || document.body;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: n => n.parentElement.closest('pre, code, script, style, mjx-container, .math')
      ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
  });
  const out = [];
  while (walker.nextNode()) {
    const text = walker.currentNode.nodeValue;
    const at = text.indexOf('**');
    if (at >= 0) out.push(text.slice(Math.max(0, at - 20), at + 20));
  }
  return out;
}"""

# Inline code in a table cell that wraps onto a second line (a squeezed column): the table
# should keep it whole and scroll instead.
SQUEEZED_TABLE_CODE = """() => Array.from(document.querySelectorAll('table code'))
  .filter(c => c.getClientRects().length > 1).map(c => c.textContent.slice(0, 40))"""

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
    """A typeset page's equations, images, shown text, listings, inline math's punctuation and
    axe violations."""
    return {
        "equations": page.evaluate(EQUATIONS),
        "images": page.evaluate(IMAGES),
        "text": page.evaluate(SHOWN_TEXT),
        "listings": page.evaluate(LISTINGS),
        "punctuation": page.evaluate(PUNCTUATION_BREAKS),
        "raw_markdown": page.evaluate(RAW_MARKDOWN),
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
