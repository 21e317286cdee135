"""What the live explorers' browser tests share: a page per explorer, and the explorers to test.

A live explorer (``book.explorers.explorer``, ``explorer(live=...)``) is written into a page of
its own with the scripts every page of the book loads (``book/ext/twin.py``: posenc.js,
plot.js, the drawers, explorers.js), ``reader.css`` and ``handout.js``, laid out like the book's
column, so its tests need no rebuilt site. :data:`CASES` names, for each drawer, the explorer
that uses it, values no pre-rendered frame had (one per live control at least), and the
largest values of its ranges (for the text-size and redraw-time checks);
``tests/browser/test_live_explorers.py`` runs the same checks on each, and
``benchmarks/live_explorers.py`` times them.

The ``test_live_<drawer>.py`` modules share the rest: their fixtures (:func:`live_fixtures`),
reading what a drawer computed (:func:`drawn`) and painted (:func:`pixels`,
:func:`cell_pixels`), and trying its controls as a reader would (:func:`enter_new_values`,
:func:`press_sliders`, :func:`slide`, :func:`refused`, :func:`on_a_phone`).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from book.explorers.explorer import Explorer
from book.ext.twin import DRAWERS, SCRIPTS, STATIC

from .conftest import ROOT

__all__ = [
    "CASES",
    "LAPTOP",
    "PIXELS",
    "REDRAWS",
    "STATE",
    "LiveCase",
    "Watched",
    "cell_pixels",
    "drawn",
    "enter",
    "enter_new_values",
    "enter_values",
    "live_fixtures",
    "live_page",
    "on_a_phone",
    "opened",
    "pixels",
    "press_sliders",
    "refused",
    "settle",
    "slide",
    "state",
    "toggle",
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


def _permutation() -> Explorer:
    from book.explorers.attention import permutation_explorer

    return permutation_explorer()


def _sinusoidal() -> Explorer:
    from book.explorers.sinusoidal import sinusoidal_explorer

    return sinusoidal_explorer()


def _absolute_2d() -> Explorer:
    from book.explorers.absolute_2d import absolute_2d_explorer

    return absolute_2d_explorer()


def _shaw() -> Explorer:
    from book.explorers.shaw import shaw_index_explorer

    return shaw_index_explorer()


def _alibi() -> Explorer:
    from book.explorers.alibi import alibi_explorer

    return alibi_explorer()


def _window_bias() -> Explorer:
    from book.explorers.window import window_bias_explorer

    return window_bias_explorer()


def _rotary() -> Explorer:
    from book.explorers.rotary import rotary_explorer

    return rotary_explorer()


def _rotary_grid() -> Explorer:
    from book.explorers.rotary_nd import rotary_grid_explorer

    return rotary_grid_explorer()


def _t5() -> Explorer:
    from book.explorers.t5 import t5_explorer

    return t5_explorer()


def _rotary_stretch() -> Explorer:
    from book.explorers.rotary import rotary_stretch_explorer

    return rotary_stretch_explorer()


def _window_3d() -> Explorer:
    from book.explorers.window_3d import window_3d_explorer

    return window_3d_explorer()


def _numeric() -> Explorer:
    from book.explorers.numeric import numeric_explorer

    return numeric_explorer()


CASES: dict[str, LiveCase] = {
    # chapter 1: the shuffles were five fixed ones (the "New random order" button is tried in
    # test_live_permutation.py)
    "permutation": LiveCase(
        _permutation,
        {
            "positions": [True],
            "shuffle": [
                (0, 5, 2, 3, 4, 1),
                (2, 3, 4, 5, 0, 1),
                (4, 0, 5, 2, 1, 3),
                (0, 1, 2, 3, 4, 5),
            ],
        },
        {"positions": True},
    ),
    # chapter 3: dims were {16, 64}, bases {100, 1000, 10000}, lengths {128, 512}
    "sinusoidal": LiveCase(
        _sinusoidal,
        {"dim": [128], "base": [500], "positions": [300]},
        {"dim": 256, "base": 1000000, "positions": 1024},
    ),
    # chapter 5: heights were {24, 12}, widths {24, 16}, dims {16, 64}, bases {10, 10000};
    # normalize off/on; channel fastest/middle pair (slowest added with the live version)
    "absolute_2d": LiveCase(
        _absolute_2d,
        {
            "height": [17],
            "width": [9],
            "dim": [32],
            "base": [500],
            "normalize": [True, False],
            "channel": ["middle", "slowest", "fastest"],
        },
        {"height": 24, "width": 24, "dim": 256, "base": 1000000, "channel": "slowest"},
    ),
    # chapter 6: lengths were {8, 16, 32}, k {0, 1, 2, 4, 8}, the query fixed at the middle
    # (a query past the end, 100 > n − 1 = 49, is drawn as the last)
    "shaw": LiveCase(
        _shaw,
        {"n": [50], "k": [5], "query": [20, 100]},
        {"n": 128, "k": 32, "query": 127},
    ),
    # chapter 9: heads were {4, 8, 12, 16}, causal off/on, the tokens fixed at 41
    "alibi": LiveCase(
        _alibi,
        {"heads": [24, 5], "causal": [False, True], "tokens": [101]},
        {"heads": 64, "tokens": 401},
    ),
    # chapter 7: windows were {2×3, 3×4, 4×3, 7×7} (now Wh and Ww, each 1 to 7), queries
    # {top-left, centre, bottom-right}, signs {swin, shaw}
    "window_bias": LiveCase(
        _window_bias,
        {
            "Wh": [5],
            "Ww": [6],
            "query": ["top-left", "bottom-right", "centre"],
            "sign": ["shaw", "swin"],
        },
        {"Wh": 7, "Ww": 7},
    ),
    # chapter 9 (RoPE): dims were {16, 128}, bases {100, 10000, 500000}, the context 4096 alone
    "rotary": LiveCase(
        _rotary,
        {"dim": [64], "base": [2000], "context": [8192]},
        {"dim": 256, "base": 1000000, "context": 32768},
    ),
    # chapter 12: the query was one of (8, 8), (3, 12), (14, 2) (now a row and a column, 0 to
    # 63), the grid 16 × 16 and the base 10⁴ alone (now live: side 2 to 64, any base above 1);
    # pairs: the four sharings (a query beyond the grid is drawn at its nearest place)
    "rotary_grid": LiveCase(
        _rotary_grid,
        {
            "pairs": [
                "M-RoPE 8/12/12 (Qwen2-VL's shares)",
                "M-RoPE 0/16/16 (no time)",
                "M-RoPE 8/4/20",
                "axial 2-D (16 + 16)",
            ],
            "row": [5],
            "column": [11],
            "side": [24],
            "base": [500],
        },
        {"row": 63, "column": 63, "side": 64, "base": 1000000},
    ),
    # chapter 9: num_buckets were {8, 32, 64}, max_distance {64, 128}, bidirectional off/on,
    # the tokens fixed at 48
    "t5": LiveCase(
        _t5,
        {
            "num_buckets": [20, 6],
            "max_distance": [40, 300],
            "bidirectional": [False, True],
            "tokens": [20],
        },
        {"num_buckets": 64, "max_distance": 1024, "tokens": 256},
    ),
    # chapter 11 (stretching RoPE): factors were {2, 4, 8, 16}, for each of the five methods
    "rotary_stretch": LiveCase(
        _rotary_stretch,
        {
            "factor": [3, 1.5, 40],
            "method": ["linear", "ntk", "dynamic", "llama3", "yarn"],
        },
        {"method": "dynamic", "factor": 64},
    ),
    # chapter 8: query frames were {4, 6, 7}, key frames {2, 3, 4}, windows {2×2, 3×3} (now
    # Wh and Ww), highlighted frame {middle, last}; D2 = 9 > D1 = 8 is drawn with 8 key frames
    "window_3d": LiveCase(
        _window_3d,
        {
            "D1_query_frames": [8],
            "D2_key_frames": [5, 9],
            "Wh": [4],
            "Ww": [1],
            "highlighted_query_frame": ["last", "middle"],
        },
        {"D1_query_frames": 10, "D2_key_frames": 10, "Wh": 7, "Ww": 7},
    ),
    # chapter 2: alphas were {0.5, 2, 8, 32}, lengths T {20, 60}, encodings sine/circle; the
    # heaviest drawing is the circle at T = 1000 with α = 1 (dots all over the panel)
    "numeric": LiveCase(
        _numeric,
        {"encoding": ["circle", "sine"], "alpha": [1, 160], "T": [1000, 45]},
        {"encoding": "circle", "alpha": 1, "T": 1000},
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
    shutil.copytree(DRAWERS, folder / "drawers", dirs_exist_ok=True)  # explorers.js loads one
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


@contextmanager
def opened(browser: Any, url: str, **options: Any) -> Iterator[Watched]:
    """``url`` open in a new page of ``browser`` (``options``: ``browser.new_page``'s), closed
    after."""
    watched = Watched(browser, url, **options)
    try:
        yield watched
    finally:
        watched.close()


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
              const i = values.findIndex(v => JSON.stringify(v) === JSON.stringify(value));
              if (i < 0) throw new Error('no value ' + JSON.stringify(value) + ' in ' + el.dataset.values);
              if (el.type === 'checkbox') el.checked = i === 1; else el.value = String(i);
              el.dispatchEvent(new Event('input', {bubbles: true}));
              el.dispatchEvent(new Event('change', {bubbles: true}));
            }""",
            value,
        )
    settle(watched)


# -- what the test_live_<drawer>.py modules share ---------------------------------------------

LAPTOP = {"width": 1366, "height": 768}  # the viewport of the pages the modules share


def live_fixtures(name: str) -> tuple[Any, Any, Any]:
    """The module-scoped fixtures of drawer ``name``'s tests, to be assigned at the top of its
    module (``folder, page_url, laptop = live_fixtures("shaw")``): ``folder``, a folder for the
    module's pages; ``page_url``, the page of :data:`CASES`'s explorer of the drawer;
    ``laptop``, that page open at 1366 × 768 for the whole module (one reader moving its
    controls from test to test)."""

    @pytest.fixture(scope="module")
    def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
        return tmp_path_factory.mktemp(f"live_{name}")

    @pytest.fixture(scope="module")
    def page_url(folder: Path) -> str:
        return live_page(folder / "page", CASES[name].make().static_html()).as_uri()

    @pytest.fixture(scope="module")
    def laptop(browser: Any, page_url: str) -> Iterator[Watched]:
        with opened(browser, page_url, viewport=LAPTOP) as watched:
            yield watched

    return folder, page_url, laptop


# ``canvas.posencData`` (or only the keys asked for) as plain JSON: typed arrays as lists,
# functions as null
DRAWN = """(keys) => {
  const plain = (v) => (typeof v === 'function' ? null
    : ArrayBuffer.isView(v) ? Array.from(v)
    : Array.isArray(v) ? v.map(plain)
    : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(
        ([k, x]) => [k, plain(x)]))
    : v);
  const d = document.querySelector('canvas.posenc-explorer-canvas').posencData;
  return plain(keys.length ? Object.fromEntries(keys.map((k) => [k, d[k]])) : d);
}"""


def drawn(watched: Watched, *keys: str) -> dict[str, Any]:
    """What the drawer computed for the drawing shown (``canvas.posencData``, or only ``keys``
    of it), typed arrays as lists."""
    return watched.page.evaluate(DRAWN, list(keys))


# The RGB of the canvas at data points (x, y) of axes k: the device pixel nearest each, or
# (floor) the one holding it.
PIXELS_AT = """([k, points, floor]) => {
  const c = document.querySelector('canvas.posenc-explorer-canvas');
  const ax = c.posencPlot.axes[k], dpr = c.posencPlot.dpr, ctx = c.getContext('2d');
  const device = floor ? Math.floor : Math.round;
  return points.map(([x, y]) => {
    const px = ax.left + (x - ax.xlim[0]) / (ax.xlim[1] - ax.xlim[0]) * ax.width;
    const py = ax.top + ax.height - (y - ax.ylim[0]) / (ax.ylim[1] - ax.ylim[0]) * ax.height;
    return Array.from(ctx.getImageData(device(px * dpr), device(py * dpr), 1, 1).data
      .slice(0, 3));
  });
}"""


def pixels(
    watched: Watched, axes: int, points: list[tuple[float, float]], *, floor: bool = False
) -> list[list[int]]:
    """The RGB of the canvas at data points (x, y) of axes number ``axes`` (in the order the
    drawer made them, ``canvas.posencPlot.axes``): the device pixel nearest each point, or with
    ``floor`` the one it lies in."""
    return watched.page.evaluate(PIXELS_AT, [axes, [list(p) for p in points], floor])


# The RGB of the canvas at fractions (fx, fy) of cell (r, c) of axes k, an axes over a grid of
# cells centred on integers (row 0 at the top): [[k, r, c, fx, fy]]
CELL_PIXELS = """(picks) => {
  const c = document.querySelector('canvas.posenc-explorer-canvas');
  const dpr = c.posencPlot.dpr, ctx = c.getContext('2d');
  return picks.map(([k, r, col, fx, fy]) => {
    const ax = c.posencPlot.axes[k];
    const cw = ax.width / (ax.xlim[1] - ax.xlim[0]), ch = ax.height / (ax.ylim[0] - ax.ylim[1]);
    const x = ax.left + (col + fx) * cw, y = ax.top + (r + fy) * ch;
    return Array.from(ctx.getImageData(Math.floor(x * dpr), Math.floor(y * dpr), 1, 1).data
      .slice(0, 3));
  });
}"""


def cell_pixels(watched: Watched, picks: list[list[float]]) -> list[list[int]]:
    """The RGB of the canvas at fractions (fx, fy) of cell (r, c) of axes k, for each pick
    [k, r, c, fx, fy] (an axes over a grid of cells, row 0 at the top)."""
    return watched.page.evaluate(CELL_PIXELS, picks)


def enter_values(watched: Watched, values: Mapping[str, Any]) -> None:
    """Enter each of ``values`` (control name -> value) in turn, as :func:`enter` does."""
    for name, value in values.items():
        enter(watched, name, value)


def enter_new_values(
    watched: Watched, values: Mapping[str, Any], *, sliders: bool = False
) -> dict[str, Any]:
    """Enter each of ``values`` (control name -> value, values no pre-rendered frame had) in
    turn: each is taken with no message, and each changes the drawing; with ``sliders``, each
    control's slider moves to the value too. Returns the state after the last."""
    for name, value in values.items():
        before = watched.page.evaluate(PIXELS)
        enter(watched, name, value)
        s = state(watched)
        assert s["values"][name] == value, name
        assert s["message"] == "", s["message"]
        assert not sliders or s["sliders"][name] == str(value), name
        assert watched.page.evaluate(PIXELS) != before, f"{name} = {value} changed nothing"
    return state(watched)


def toggle(watched: Watched, name: str) -> dict[str, Any]:
    """Click checkbox ``name``, as a reader does; the drawing changes. Returns the state."""
    before = watched.page.evaluate(PIXELS)
    watched.page.locator(f'[data-role="index"][data-name="{name}"]').click()
    settle(watched)
    assert watched.page.evaluate(PIXELS) != before, name
    return state(watched)


def press_sliders(watched: Watched, moves: Mapping[str, tuple[str, Any]]) -> None:
    """Press a key on each slider, as a reader does: ``moves`` maps a control's name to the
    key and the value it moves to; the value and the number box follow, and the drawing
    changes."""
    for name, (key, value) in moves.items():
        before = watched.page.evaluate(PIXELS)
        slider = watched.page.locator(f'[data-role="slider"][data-name="{name}"]')
        slider.focus()
        slider.press(key)
        settle(watched)
        s = state(watched)
        assert s["values"][name] == value and s["entries"][name] == str(value), name
        assert watched.page.evaluate(PIXELS) != before, name


def slide(watched: Watched, name: str, position: float) -> dict[str, Any]:
    """Move slider ``name`` to ``position`` (on its own scale: log10 of the value on a log
    slider) as dragging it does; the drawing changes. Returns the state."""
    before = watched.page.evaluate(PIXELS)
    watched.page.locator(f'[data-role="slider"][data-name="{name}"]').evaluate(
        "(el, position) => { el.value = String(position); el.dispatchEvent(new Event('input')); }",
        position,
    )
    settle(watched)
    assert watched.page.evaluate(PIXELS) != before, f"{name} slid to {position}"
    return state(watched)


def refused(
    watched: Watched, name: str, entered: object, drawn: object = None, rule: str | None = None
) -> dict[str, Any]:
    """Enter ``entered``, a value control ``name`` refuses: the message says so, with ``rule``
    (what is allowed) when given; with ``drawn``, the value drawn instead, which the message
    names and the control and its number box hold. Returns the state."""
    enter(watched, name, entered)
    s = state(watched)
    said = f"{name}: {entered} is not allowed"
    if rule is not None:
        said += f" ({rule})" + ("" if drawn is None else f"; drawn with {drawn}.")
    assert said in s["message"], s["message"]
    if drawn is not None:
        assert s["values"][name] == drawn and s["entries"][name] == str(drawn), name
    return s


def on_a_phone(watched: Watched, wide: Mapping[str, Any], width: int = 390) -> dict[str, Any]:
    """The drawing's ``canvas.posencPlot`` once the viewport narrows to ``width`` px (a phone)
    and the canvas has redrawn: narrower than ``wide`` (the plot before), and within the
    phone's width."""
    watched.page.set_viewport_size({"width": width, "height": 900})
    watched.page.wait_for_timeout(200)
    settle(watched)
    narrow = state(watched)["plot"]
    assert narrow["width"] < wide["width"] and narrow["width"] <= width
    return narrow
