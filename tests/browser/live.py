"""What the live explorers' browser tests share: a page per explorer, and the explorers to test.

A live explorer (``book.explorers.explorer``, ``explorer(live=...)``) is written into a page of
its own with the scripts every page of the book loads (``book/ext/twin.py``: posenc.js,
plot.js, the drawers, explorers.js), ``reader.css`` and ``handout.js``, laid out like the book's
column, so its tests need no rebuilt site. :data:`CASES` names, for each drawer, the explorer
that uses it, values no pre-rendered frame had (one per live control at least), and the
largest values of its ranges (for the text-size and redraw-time checks);
``tests/browser/test_live_explorers.py`` runs the same checks on each, and
``benchmarks/live_explorers.py`` times them.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from book.explorers.explorer import Explorer
from book.ext.twin import SCRIPTS, STATIC

from .conftest import ROOT

__all__ = [
    "CASES",
    "PIXELS",
    "REDRAWS",
    "STATE",
    "LiveCase",
    "Watched",
    "enter",
    "live_page",
    "settle",
    "state",
]

READER_CSS = ROOT / "book" / "ext" / "reader_static" / "reader.css"
HANDOUT_JS = ROOT / "book" / "ext" / "handouts_static" / "handout.js"


@dataclass(frozen=True)
class LiveCase:
    """One live explorer under test.

    Attributes:
        make: builds the explorer as its chapter does.
        new_values: control name -> a value no pre-rendered frame had, for every live control
            (a list: each value is entered in turn, and each changes the drawing).
        largest: the values, by control name, that make the largest drawing (text-size and
            redraw-time checks at the ``largest_ms`` target).
        default_ms, largest_ms: the issue's redraw targets (median), in ms.
    """

    make: Callable[[], Explorer]
    new_values: Mapping[str, list[Any]]
    largest: Mapping[str, Any]
    default_ms: float = 16
    largest_ms: float = 50
    extra: Mapping[str, Any] = field(default_factory=dict)


def _sinusoidal() -> Explorer:
    from book.explorers.sinusoidal import sinusoidal_explorer

    return sinusoidal_explorer()


CASES: dict[str, LiveCase] = {
    # chapter 3: dims were {16, 64}, bases {100, 1000, 10000}, lengths {128, 512}
    "sinusoidal": LiveCase(
        _sinusoidal,
        {"dim": [128], "base": [500], "positions": [300]},
        {"dim": 256, "base": 1000000, "positions": 1024},
    ),
    # -- more live explorers: one entry each, in the order of the chapters --
}


def live_page(
    folder: Path, explorer_html: str, scripts: tuple[str, ...] = SCRIPTS, extra: str = ""
) -> Path:
    """Write a page holding ``explorer_html`` (an explorer's ``static_html()``), ``scripts`` of
    the twin, reader.css and handout.js into ``folder``, laid out like the book's column (at
    most 680 px of content)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "drawers").mkdir(exist_ok=True)
    for name in SCRIPTS:
        shutil.copy(STATIC / name, folder / name)
    shutil.copy(READER_CSS, folder / "reader.css")
    shutil.copy(HANDOUT_JS, folder / "handout.js")
    tags = "".join(f'<script defer src="{name}"></script>' for name in scripts)
    page = folder / "index.html"
    page.write_text(
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<link rel="stylesheet" href="reader.css">{tags}{extra}'
        "<style>body{font-family:sans-serif;margin:0}"
        "main{max-width:680px;margin:0 auto;padding:0 14px}</style></head>"
        f"<body><main><h1>An explorer</h1>{explorer_html}<p>After the explorer.</p></main>"
        "</body></html>",
        encoding="utf-8",
    )
    return page


class Watched:
    """A page and the console errors and page errors it has shown."""

    def __init__(self, browser: Any, url: str, **options: Any) -> None:
        self.page = browser.new_page(**options)
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        self.page.goto(url)
        self.page.wait_for_load_state("load")

    def close(self) -> None:
        self.page.close()


STATE = """() => {
  const root = document.querySelector('.posenc-explorer');
  const canvas = root.querySelector('canvas.posenc-explorer-canvas');
  const img = root.querySelector('img.posenc-explorer-figure');
  const shown = (el) => el.getBoundingClientRect().width > 0 && getComputedStyle(el).display !== 'none';
  return {
    canvasShown: shown(canvas), imgShown: shown(img),
    label: canvas.getAttribute('aria-label'), alt: img.alt,
    message: root.querySelector('.posenc-explorer-message').textContent,
    draws: root.posencLive ? root.posencLive.draws : null,
    values: canvas.posencData ? canvas.posencData.values : null,
    plot: canvas.posencPlot || null,
    disabled: Array.from(root.querySelectorAll('[data-control]')).map(el => el.disabled),
    entries: Object.fromEntries(Array.from(root.querySelectorAll('[data-role=entry]'))
      .map(el => [el.dataset.name, el.value])),
    sliders: Object.fromEntries(Array.from(root.querySelectorAll('[data-role=slider]'))
      .map(el => [el.dataset.name, el.value])),
    canvasPx: [canvas.width, canvas.height, canvas.getBoundingClientRect().width],
  };
}"""

# A digest of the canvas's pixels (FNV-1a over every 7th byte): it changes with the drawing.
PIXELS = """() => {
  const c = document.querySelector('canvas.posenc-explorer-canvas');
  const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let h = 2166136261;
  for (let i = 0; i < data.length; i += 7) { h ^= data[i]; h = Math.imul(h, 16777619) >>> 0; }
  return h + ':' + c.width + 'x' + c.height;
}"""

# Time the page's drawer 20 times (after one that warms the JIT) at ``values``: computing,
# drawing, and reading one pixel back (which waits for the pixels).
REDRAWS = """([name, values]) => {
  const root = document.querySelector('.posenc-explorer');
  const canvas = root.querySelector('canvas.posenc-explorer-canvas');
  const draw = window.posencExplorers[name];
  const data = root.dataset.liveData ? JSON.parse(root.dataset.liveData) : null;
  const times = [];
  for (let i = 0; i < 21; i++) {
    const t0 = performance.now();
    draw(canvas, values, data);
    canvas.getContext('2d').getImageData(0, 0, 1, 1);
    times.push(performance.now() - t0);
  }
  return times.slice(1);
}"""


def state(watched: Watched) -> dict[str, Any]:
    return watched.page.evaluate(STATE)


def settle(watched: Watched) -> None:
    """Wait for the redraw a control asked for (one animation frame, and one more)."""
    watched.page.evaluate(
        "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
    )


def enter(watched: Watched, name: str, value: object) -> None:
    """Set control ``name`` to ``value``: type it into its number box and press Enter, or, for
    a control over listed values, pick the value (a checkbox, a drop-down, a slider over
    indices, through its ``data-values``)."""
    page = watched.page
    box = page.locator(f'[data-role="entry"][data-name="{name}"]')
    if box.count():
        box.fill(str(value))
        box.press("Enter")  # commits: a "change" event
    else:
        page.locator(f'[data-role="index"][data-name="{name}"]').evaluate(
            """(el, value) => {
              const values = JSON.parse(el.dataset.values);
              const i = values.findIndex(v => v === value);
              if (i < 0) throw new Error('no value ' + JSON.stringify(value) + ' in ' + el.dataset.values);
              if (el.type === 'checkbox') el.checked = i === 1; else el.value = String(i);
              el.dispatchEvent(new Event('input', {bubbles: true}));
              el.dispatchEvent(new Event('change', {bubbles: true}));
            }""",
            value,
        )
    settle(watched)
