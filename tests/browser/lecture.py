"""What a lecturer sees of a deck at 1920×1080: every slide measured as the projector shows it.

:data:`AUDIT` visits every slide of an open deck (``Reveal.slide``), lets the deck fit it as it
does when presenting, and measures it in screen pixels:

- ``over``: px of content below the slide's bottom or past its right edge (a slide that
  overflows);
- ``shrunk``: the deck had to shrink the slide's text below its normal size to fit it;
- ``cut_math``: display equations wider than the slide, or reaching past its edges;
- ``title``: whether the slide has a heading (``h1``–``h3``);
- ``words``: the prose on the slide, title, math, figures, tables, explorers, captions and
  quiz choices left out (a Chinese character counts as half a word);
- ``colon``: the slide's last text ends with a colon, so its continuation is not on it;
- ``figures``: each figure's text size at 1080p (``data-text-px``, the smallest text of the
  figure at its 1× size, times the scale it is shown at) and the scale itself
  (shown width / 1× width).

:data:`PRINT_AUDIT` measures the ``?print-pdf`` layout: pages whose slide runs past the page.

Run it on a built site to see the table (``python -m tests.browser.lecture [SITE]``). The
browser suite (``test_slides.py``) fails on overflowing slides, shrunk text, cut equations,
untitled slides, slides over the word limit, colon lead-ins, shrunk figures and clipped print
pages.
"""

from __future__ import annotations

import statistics
from typing import Any

PROJECTOR = {"width": 1920, "height": 1080}
MAX_WORDS = 60  # prose words on a slide
MIN_FIGURE_TEXT_PX = 24  # the smallest figure text at 1080p

AUDIT = """async () => {
  const wait = ms => new Promise(r => setTimeout(r, ms));
  const leaves = Array.from(document.querySelectorAll('.reveal .slides section'))
    .filter(s => !s.querySelector('section'));
  const cjk = /[\\u3400-\\u9fff\\uf900-\\ufaff]/g;
  const skip = 'aside.notes, mjx-container, h1, h2, h3, table, .posenc-explorer, '
    + '.deck-caption, .deck-quiz ol, .deck-quiz details, .jp-OutputArea-output pre, script, style';
  function words(text) {
    const han = (text.match(cjk) || []).length;
    const latin = text.replace(cjk, ' ').split(/\\s+/).filter(w => /[A-Za-z0-9]/.test(w)).length;
    return latin + han / 2;
  }
  function prose(slide) {
    const walker = document.createTreeWalker(slide, NodeFilter.SHOW_TEXT, {
      acceptNode: n => n.parentElement.closest(skip)
        ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
    });
    const parts = [];
    while (walker.nextNode()) parts.push(walker.currentNode.textContent);
    return parts.join(' ');
  }
  function lastText(slide) {
    const blocks = Array.from(slide.querySelectorAll('p, li, h1, h2, h3, td, th, .deck-caption'))
      .filter(b => !b.closest('aside.notes') && !b.querySelector('p, li')
               && b.innerText && b.innerText.trim());
    return blocks.length ? blocks[blocks.length - 1].innerText.trim() : '';
  }
  const scale = Reveal.getScale();
  const out = [];
  for (const slide of leaves) {
    const at = Reveal.getIndices(slide);
    Reveal.slide(at.h, at.v || 0);
    await wait(60);
    if (window.fitSlide) window.fitSlide(slide);
    await wait(20);
    const box = slide.getBoundingClientRect();
    const cells = slide.querySelectorAll('.jp-RenderedHTMLCommon');
    const shrunk = Array.from(cells).some(c => c.style.fontSize && parseFloat(c.style.fontSize) < 30);
    let right = 0;
    slide.querySelectorAll('p, li, h1, h2, h3, img, table, mjx-math, pre').forEach(e => {
      if (e.closest('aside.notes')) return;
      const r = e.getBoundingClientRect();
      if (r.width && r.height) right = Math.max(right, r.right - box.right);
    });
    const below = slide.scrollHeight - slide.clientHeight;
    const cut = Array.from(slide.querySelectorAll('mjx-container[display="true"]')).filter(c => {
      const math = c.querySelector('mjx-math') || c;
      const r = math.getBoundingClientRect();
      return r.right > box.right + 1 || r.left < box.left - 1 || math.scrollWidth > c.clientWidth + 1;
    }).map(c => (c.textContent || '').slice(0, 40));
    const figures = Array.from(slide.querySelectorAll('img')).map(img => {
      const r = img.getBoundingClientRect();
      const oneX = parseFloat(img.getAttribute('width')) || img.naturalWidth / 2;
      const shown = r.width / scale;  // in the slide's own px
      const textPx = parseFloat(img.dataset.textPx || 'NaN');
      return {
        src: (img.getAttribute('alt') || '').slice(0, 50),
        explorer: !!img.closest('.posenc-explorer'),
        ratio: shown / oneX,
        text1080: isNaN(textPx) ? null : textPx * (r.width / oneX) * (1080 / window.innerHeight),
      };
    });
    // the smallest text of the slide's tables (a result table's ranges are <small>), at 1080p
    const tableText = Array.from(slide.querySelectorAll('table td, table th, table caption, table small'))
      .filter(e => !e.closest('aside.notes') && e.innerText && e.innerText.trim())
      .map(e => parseFloat(getComputedStyle(e).fontSize) * scale * (1080 / window.innerHeight));
    out.push({
      h: at.h + 1, v: at.v || 0,
      table_text: tableText.length ? Math.min(...tableText) : null,
      over: Math.max(below, right / scale),
      shrunk,
      cut_math: cut,
      title: !!slide.querySelector('h1, h2, h3'),
      words: words(prose(slide)),
      colon: /[:：]$/.test(lastText(slide)),
      figures,
      quiz: !!slide.querySelector('.deck-quiz'),
    });
  }
  Reveal.slide(0, 0);
  return out;
}"""

PRINT_AUDIT = """() => Array.from(document.querySelectorAll('.pdf-page')).map((p, i) => {
  const s = p.querySelector('section');
  return {page: i + 1, over: s ? s.scrollHeight - p.clientHeight : 0};
}).filter(p => p.over > 2)"""


def shrunk_figure(figure: dict[str, Any]) -> bool:
    """Whether :data:`AUDIT`'s ``figure`` shows below its 1× size or with its smallest text
    under :data:`MIN_FIGURE_TEXT_PX` at 1080p (an explorer's frame never counts)."""
    if figure["explorer"]:
        return False
    small_text = figure["text1080"] is not None and figure["text1080"] < MIN_FIGURE_TEXT_PX
    return figure["ratio"] < 0.98 or small_text


def deck_counts(slides: list[dict[str, Any]]) -> dict[str, Any]:
    """A deck's counts from :data:`AUDIT`'s slides: what the lecturer would stumble on."""
    words = [s["words"] for s in slides if not s["quiz"]] or [0]
    figures = [f for s in slides for f in s["figures"] if not f["explorer"]]
    return {
        "slides": len(slides),
        "overflowing": sum(s["over"] > 2 for s in slides),
        "shrunk_text": sum(s["shrunk"] for s in slides),
        "cut_equations": sum(len(s["cut_math"]) for s in slides),
        "untitled": sum(not s["title"] for s in slides),
        "over_words": sum(s["words"] > MAX_WORDS for s in slides if not s["quiz"]),
        "words_max": round(max(words)),
        "words_median": round(statistics.median(words)),
        "colon": sum(s["colon"] for s in slides),
        "shrunk_figures": sum(shrunk_figure(f) for f in figures),
        "table_text_min": min(
            (round(s["table_text"], 1) for s in slides if s["table_text"] is not None),
            default=None,
        ),
        "figure_text_min": min(
            (round(f["text1080"], 1) for f in figures if f["text1080"] is not None),
            default=None,
        ),
    }


def main(argv: list[str] | None = None) -> int:
    """Print the counts of every deck of a built site (default ``_build/html``)."""
    import shutil
    import sys
    from pathlib import Path

    from playwright.sync_api import sync_playwright

    from book.tools.build_handouts import serve

    from .conftest import CHROMIUM_FLAGS

    argv = sys.argv[1:] if argv is None else argv
    site = Path(argv[0] if argv else "_build/html").resolve()
    decks = sorted(site.glob("slides/*.slides.html")) + sorted(site.glob("*/slides/*.slides.html"))
    keys = None
    with serve(site) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_FLAGS)
        for deck in decks:
            page = browser.new_page(viewport=PROJECTOR)
            page.goto(f"{url}/{deck.relative_to(site).as_posix()}", wait_until="load")
            page.wait_for_function("() => window.Reveal && Reveal.isReady()")
            page.wait_for_function("() => window.MathJax && MathJax.startup")
            page.evaluate("() => MathJax.startup.promise")
            counts = deck_counts(page.evaluate(AUDIT))
            page.close()
            if keys is None:
                keys = list(counts)
                print("| deck | " + " | ".join(keys) + " |")
                print("|" + "---|" * (len(keys) + 1))
            name = (
                deck.relative_to(site).as_posix().replace("slides/", "").replace(".slides.html", "")
            )
            print(f"| {name} | " + " | ".join(str(counts[k]) for k in keys) + " |", flush=True)
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
