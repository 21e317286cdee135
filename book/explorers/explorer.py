"""The explorer mechanism: one figure, a few controls, live in Jupyter and static in the book.

Every interactive figure of the book goes through :func:`explorer`. It wraps a function that
draws a matplotlib ``Figure`` from a few named parameters, each taking one of a short list of
values, and returns an :class:`Explorer` object whose notebook output carries two versions:

* ``application/vnd.jupyter.widget-view+json``: real ipywidgets controls and an image that is
  redrawn by the kernel when a control moves (what Jupyter, JupyterLab and Colab show);
* ``text/html``: the same controls in plain HTML, with the figure for *every* combination of
  values pre-rendered to PNG and switched by a few lines of inline JavaScript (what the static
  book shows, by giving ``text/html`` the higher priority in ``nb_mime_priority_overrides``).

Both versions draw through the same cached :meth:`Explorer.png`, so what a reader sees in the
book is exactly what the live kernel would draw for those values.

A *live* explorer (``explorer(..., live="sinusoidal", ranges={...})``) draws in the reader's
browser instead, for any value of its ranges: its ``text/html`` holds, for each control with a
:class:`LiveRange`, a slider and a number box kept in step; a ``<canvas>`` that the drawer named
``live`` in ``window.posencExplorers`` (``book/ext/twin_static/drawers/<live>.js``) draws
with posenc's JavaScript twin (``window.posenc``) and ``window.posencPlot`` (``plot.js``); and ONE
pre-rendered PNG, the figure for the default values, shown where the drawing cannot run:
JavaScript off, the twin or the drawer missing (a deck), and in print (``reader.css``).

Each figure is shown at ``dpi`` CSS pixels per inch (100, the scale of the book's static
figures) and rendered with ``pixel_ratio`` times as many pixels (2), so it is sharp on a 2×
screen and on a projector; the ``<img>`` carries the 1× width and height. On a screen narrower
than the figure it shrinks no further than keeps its smallest text at :data:`PHONE_TEXT_PX`
CSS px, and scrolls sideways in its own box (``book/ext/reader.py``). Its alt text is the
title and the values the controls show, updated as they move.
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import itertools
import json
import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from book._checks import check_defaults
from book.figures._base import DIVERGING, SEQUENTIAL, as_colormap
from book.figures.measure import smallest_points
from book.figures.png import palette_png, png_size
from posenc._checks import check_bool, check_int, check_real

__all__ = ["Control", "Explorer", "LiveRange", "colormap_hex", "explorer"]

WIDGET_VIEW_MIME = "application/vnd.jupyter.widget-view+json"
COLUMN_PX = 680
"""CSS px of the book's column: a wider figure is shown this wide, so rendered no wider."""
PHONE_TEXT_PX = 9.0
"""The smallest text, in CSS px, an explorer's figure may shrink to on a narrow screen."""
_PAGE_IDS = itertools.count()
DRAWERS = Path(__file__).parents[1] / "ext" / "twin_static" / "drawers"
LIVE_DRAWERS = tuple(sorted(path.stem for path in DRAWERS.glob("*.js")))
"""The drawers ``explorer(live=...)`` may name: one file each, ``book/ext/twin_static/drawers/
<name>.js``, which adds ``window.posencExplorers[name]`` (``tests/book/explorers/
test_explorer.py`` checks that each file adds the drawer it is named for)."""
LIVE_WORDS = {
    "invalid": "{name}: {entered} is not allowed ({rule}).",
    "replaced": "{name}: {entered} is not allowed ({rule}); drawn with {value}.",
    "unavailable": "The live drawing could not start: this is the figure for the default values.",
    "reshuffle": "New random order",
}
"""The messages a live explorer's page shows (written into the page as ``data-words``, so that
the page, never ``explorers.js``, holds its words)."""
RULE_WORDS = {
    "above": "a number above {above}",
    "real": "a number from {low} to {high}",
    "integer": "an integer from {low} to {high}",
    "even": "an even number from {low} to {high}",
    "odd": "an odd number from {low} to {high}",
    "multiple": "a multiple of {step} from {low} to {high}",
    "offset": "{low} plus a multiple of {step}, up to {high}",
}
"""What a number box of a live explorer takes, in words (:meth:`LiveRange.rule`): written into
the page with :data:`LIVE_WORDS` (``data-words``, under ``"rules"``), so that a translated
page translates each template and, through it, each box's ``data-rule``
(``book.ext.editions.translate_explorers``)."""


LIVE_COLORMAPS = (DIVERGING, SEQUENTIAL)
"""The colormaps ``book/ext/twin_static/plot.js`` carries, by matplotlib's names."""


def colormap_hex(name: str) -> str:
    """The 256 colours of matplotlib's colormap ``name`` as ``plot.js`` stores them.

    Six hex digits (``rrggbb``) per colour, 256 colours: the bytes matplotlib's ``imshow``
    paints for each of the 256 bins of ``[vmin, vmax]`` (``cmap(i, bytes=True)``), so that a
    live explorer's heatmap has the figure's colours exactly. ``tests/book/explorers/
    test_explorer.py`` regenerates them from the installed matplotlib and compares with the
    file.

    Args:
        name: a registered colormap name (``"RdBu_r"``).

    Returns:
        1536 hex digits.
    """
    import numpy as np

    cmap = as_colormap(name)
    lut = cmap(np.arange(256) * cmap.N // 256, bytes=True)[:, :3]  # [256, 3]
    return "".join(f"{r:02x}{g:02x}{b:02x}" for r, g, b in lut.tolist())


@dataclass(frozen=True)
class LiveRange:
    """The values a numeric control of a live explorer takes in the reader's browser.

    The page shows a slider from ``min`` to ``max`` and a number box beside it, kept in step.
    The slider moves by ``step`` (or, with ``log``, evenly in ``log10`` of the value, for a
    base); the number box takes any value of the range on the grid ``min + j·step`` (any real
    when ``step`` is ``None``), and, with ``above``, any finite value ``> above`` too, beyond
    the slider's ends (the slider then rests at its nearer end). A value the box refuses is
    named in a message under the controls and replaced by the nearest allowed one.

    Attributes:
        min, max: the slider's ends (finite, ``min < max``; ``min > 0`` with ``log``).
        step: the grid of allowed values, or ``None`` for any real number (required with
            ``log``).
        log: the slider is logarithmic.
        above: the number box also takes any finite value ``> above`` (``< min``; with
            ``step=None``), or ``None``.
    """

    min: float
    max: float
    step: float | None = 1
    log: bool = False
    above: float | None = None

    def __post_init__(self) -> None:
        low = check_real("min", self.min)
        high = check_real("max", self.max)
        if high <= low:
            raise ValueError(f"max must be > min={low:g}, got {high:g}")
        log = check_bool("log", self.log)
        if self.step is not None:
            step = check_real("step", self.step, minimum=0, inclusive=False)
            if log:
                raise ValueError("step must be None with log=True (a log slider has no grid)")
            if step > high - low:
                raise ValueError(f"step must be <= max - min = {high - low:g}, got {step:g}")
        if log and low <= 0:
            raise ValueError(f"min must be > 0 with log=True, got {low:g}")
        if self.above is not None:
            above = check_real("above", self.above)
            if above >= low:
                raise ValueError(f"above must be < min={low:g}, got {above:g}")
            if self.step is not None:
                raise ValueError("above needs step=None (any value above it, off any grid)")

    @property
    def integer(self) -> bool:
        """Whether every allowed value is an integer (``min`` and ``step`` are)."""
        return (
            self.step is not None and float(self.step).is_integer() and float(self.min).is_integer()
        )

    def admits(self, value: object) -> bool:
        """Whether the number box takes ``value``."""
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            return False
        v = float(value)
        if not math.isfinite(v):
            return False
        if self.above is not None and v > self.above:
            return True
        if not self.min <= v <= self.max:
            return False
        if self.step is None:
            return True
        j = (v - self.min) / self.step
        return abs(j - round(j)) <= 1e-9 * max(1.0, abs(j))

    def rule(self) -> str:
        """The rule in plain words, for the message shown when the box refuses a value (from
        the templates of :data:`RULE_WORDS`, which a translated page translates)."""
        low, high = _number(self.min), _number(self.max)
        step = _number(self.step) if self.step is not None else ""
        if self.above is not None:
            key = "above"
        elif self.step is None:
            key = "real"
        elif self.integer and self.step == 1:
            key = "integer"
        elif self.integer and self.step == 2 and self.min % 2 == 0:
            key = "even"
        elif self.integer and self.step == 2:
            key = "odd"
        elif self.min % self.step == 0:
            key = "multiple"
        else:
            key = "offset"
        above = _number(self.above) if self.above is not None else ""
        return RULE_WORDS[key].format(low=low, high=high, step=step, above=above)

    def as_json(self) -> dict[str, Any]:
        """What the page's script reads (``data-range``)."""
        return {
            "min": self.min,
            "max": self.max,
            "step": self.step,
            "log": self.log,
            "above": self.above,
            "integer": self.integer,
        }


def _frozen(value: object) -> object:
    """``value`` hashable: lists as tuples."""
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    return value


def _plain(value: object) -> bool:
    """Whether the page can hand ``value`` to a drawer as JSON: a finite number, a string, a
    bool, or a list or tuple of them."""
    if isinstance(value, (list, tuple)):
        return all(_plain(v) and not isinstance(v, (list, tuple)) for v in value)
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, (str, bool, int))


def _number(value: float) -> str:
    """``value`` as the page writes it: an integer without ``.0``, else as ``{:g}``."""
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else f"{value:g}"


@dataclass(frozen=True)
class Control:
    """One named parameter of an explorer and the values it can take.

    Numbers are shown as a slider over the listed values, booleans as a checkbox, anything
    else as a drop-down list. ``labels`` are the texts shown for each value (default
    ``str(value)``); ``default`` is the value selected first (default: the first one).
    ``live``: in a live explorer, the range of values the reader's browser takes (a slider
    and a number box; see :class:`LiveRange`), or ``None`` for the listed values only.
    """

    name: str
    values: tuple[Any, ...]
    labels: tuple[str, ...]
    default_index: int
    live: LiveRange | None = None

    @property
    def kind(self) -> str:
        """``"checkbox"``, ``"slider"`` or ``"select"``."""
        # the static checkbox maps unticked/ticked to index 0/1, so the order must be (False, True)
        if all(isinstance(v, bool) for v in self.values) and self.values == (False, True):
            return "checkbox"
        if all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in self.values):
            return "slider"
        return "select"


def _same(a: object, b: object) -> bool:
    """Equal, and both or neither a bool (so that ``1`` does not select ``True``); a list
    equals the tuple of its items (a value back from the page)."""
    return isinstance(a, bool) == isinstance(b, bool) and _frozen(a) == _frozen(b)


def _make_control(name: str, spec: object, default: object) -> Control:
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"control names must be Python identifiers, got {name!r}")
    if isinstance(spec, Mapping):
        labels = tuple(str(k) for k in spec)
        values = tuple(spec.values())
    elif isinstance(spec, Sequence) and not isinstance(spec, str):
        values = tuple(spec)
        labels = tuple(str(v) for v in values)
    else:
        raise TypeError(
            f"control {name!r} must be a sequence of values or a mapping label -> value, "
            f"got {type(spec).__name__}"
        )
    if not values:
        raise ValueError(f"control {name!r} must offer at least one value")
    if len(set(labels)) != len(labels):
        raise ValueError(f"control {name!r} has repeated labels {labels}")
    if default is None:
        index = 0
    else:
        matches = [i for i, v in enumerate(values) if _same(v, default)]
        if not matches:
            raise ValueError(f"default {default!r} of control {name!r} is not one of {values}")
        index = matches[0]
    return Control(name, values, labels, index)


def _live_range(name: str, spec: object, control: Control) -> Control:
    """``control`` with the live range ``spec`` (a :class:`LiveRange` or a mapping of its
    fields), checked against the values it offers."""
    if isinstance(spec, Mapping):
        unknown = set(spec) - {"min", "max", "step", "log", "above"}
        if unknown:
            raise ValueError(f"ranges[{name!r}] has unknown field(s) {sorted(unknown)}")
        if not {"min", "max"} <= set(spec):
            raise ValueError(f"ranges[{name!r}] must give min and max, got {sorted(spec)}")
        spec = LiveRange(**spec)
    if not isinstance(spec, LiveRange):
        raise TypeError(
            f"ranges[{name!r}] must be a LiveRange or a mapping of its fields, "
            f"got {type(spec).__name__}"
        )
    if control.kind != "slider":
        raise ValueError(
            f"ranges[{name!r}]: only a numeric control takes a live range, "
            f"and {name!r} is a {control.kind}"
        )
    outside = [v for v in control.values if not spec.admits(v)]
    if outside:
        raise ValueError(
            f"ranges[{name!r}] must admit every value of the control ({spec.rule()}), got {outside}"
        )
    return Control(control.name, control.values, control.labels, control.default_index, spec)


class Explorer:
    """A figure with controls; see :func:`explorer`, which builds it.

    Attributes:
        controls: the controls, in display order.
        dpi: CSS pixels per inch of the figure as shown.
        pixel_ratio: PNG pixels per CSS pixel (the PNG is rendered at ``dpi * pixel_ratio``).
        colors: the palette size of the static page's PNGs (:func:`palette_png`).
        live: the name of the drawer in ``window.posencExplorers`` that draws it in the
            reader's browser, or ``None`` for pre-rendered frames only.
        live_data: what the drawer receives besides the controls' values (fixed data the
            twin cannot compute, such as a seeded random query), or ``None``.
        reshuffle: ``(control, option)``: the live page's "New random order" button puts a
            fresh random permutation in that option of that drop-down, and selects it; or
            ``None``.
    """

    def __init__(
        self,
        render: Callable[..., Figure],
        controls: Sequence[Control],
        *,
        title: str = "",
        dpi: int = 100,
        pixel_ratio: int = 2,
        colors: int = 256,
        max_combinations: int = 150,
        live: str | None = None,
        live_data: Mapping[str, Any] | None = None,
        reshuffle: tuple[str, str] | None = None,
    ) -> None:
        self.render = render
        self.controls = tuple(controls)
        self.title = title
        self.dpi = dpi
        self.pixel_ratio = pixel_ratio
        self.colors = colors
        self.live = live
        self.live_data = dict(live_data) if live_data is not None else None
        self.reshuffle = reshuffle
        n = self.n_combinations
        if n > max_combinations:
            raise ValueError(
                f"the controls give {n} combinations, more than max_combinations="
                f"{max_combinations}: the static book pre-renders every one, so offer fewer values"
            )
        self._cache: dict[tuple[Any, ...], bytes] = {}
        self._text_px: dict[tuple[Any, ...], float] = {}
        self._widget: Any = None

    # -- rendering ---------------------------------------------------------------------------
    @property
    def n_combinations(self) -> int:
        """How many figures the static version pre-renders."""
        count = 1
        for c in self.controls:
            count *= len(c.values)
        return count

    def _values(self, indices: tuple[int, ...]) -> dict[str, Any]:
        return {c.name: c.values[i] for c, i in zip(self.controls, indices)}

    def _indices(self, values: Mapping[str, Any]) -> tuple[int, ...]:
        """The index of each control's value among those it lists (default: its default)."""
        resolved = self._resolve(values)
        out = []
        for c in self.controls:
            matches = [i for i, x in enumerate(c.values) if _same(x, resolved[c.name])]
            if not matches:
                raise ValueError(f"{c.name} must be one of {c.values}, got {resolved[c.name]!r}")
            out.append(matches[0])
        return tuple(out)

    def _resolve(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """Every control's value: ``values``'s where given, else the default. A control lists
        its values; a live one also takes any value its :class:`LiveRange` admits (what the
        kernel's widget offers, and what the page draws)."""
        unknown = set(values) - {c.name for c in self.controls}
        if unknown:
            raise ValueError(f"unknown control(s) {sorted(unknown)}")
        out = {}
        for c in self.controls:
            if c.name not in values:
                out[c.name] = c.values[c.default_index]
                continue
            v = values[c.name]
            matches = [x for x in c.values if _same(x, v)]
            if matches:
                out[c.name] = matches[0]
            elif c.live is not None and c.live.admits(v):
                out[c.name] = round(float(v)) if c.live.integer else float(v)
            else:
                also = f", or {c.live.rule()}" if c.live is not None else ""
                raise ValueError(f"{c.name} must be one of {c.values}{also}, got {v!r}")
        return out

    def _key(self, values: Mapping[str, Any]) -> tuple[Any, ...]:
        """The cache key of a figure: each control's value and its type (1 is not True)."""
        resolved = self._resolve(values)
        return tuple((type(v).__name__, _frozen(v)) for v in resolved.values())

    def figure(self, **values: Any) -> Figure:
        """Draw the figure for the given control values (others at their defaults)."""
        return self.render(**self._resolve(values))

    def png(self, **values: Any) -> bytes:
        """Return the PNG bytes for the given control values, rendering once and caching."""
        key = self._key(values)
        if key not in self._cache:
            fig = self.render(**self._resolve(values))
            if not isinstance(fig, Figure):
                raise TypeError(f"render must return a matplotlib Figure, got {type(fig).__name__}")
            buf = io.BytesIO()
            # a figure wider than the column is shown shrunk to it: no more pixels than that
            fit = min(1.0, COLUMN_PX / (fig.get_figwidth() * self.dpi))
            # zlib level 1: a third faster than the default 6 at 2x, and hardly larger (the
            # static page re-encodes each frame as a palette PNG anyway)
            fig.savefig(
                buf,
                format="png",
                dpi=self.dpi * self.pixel_ratio * fit,
                pil_kwargs={"compress_level": 1},
            )
            self._cache[key] = buf.getvalue()
            # drawn by savefig: its smallest text in CSS px at the size the PNG is shown
            self._text_px[key] = smallest_points(fig) * self.dpi * fit / 72
        return self._cache[key]

    def text_px(self, **values: Any) -> float:
        """The smallest text of the figure for these values, in CSS px at its shown size."""
        self.png(**values)
        return self._text_px[self._key(values)]

    def min_width(self, **values: Any) -> int:
        """The narrowest CSS width the figure may shrink to: its smallest text stays at
        :data:`PHONE_TEXT_PX` (its shown width if that is narrower)."""
        width, _ = self.shown_size(self.png(**values))
        text = self.text_px(**values)
        if text <= PHONE_TEXT_PX or text == float("inf"):
            return width
        return min(width, math.ceil(width * PHONE_TEXT_PX / text))

    def alt_text(self, **values: Any) -> str:
        """The figure's alt text: its title and what each control shows."""
        resolved = self._resolve(values)
        shown = []
        for c in self.controls:
            v = resolved[c.name]
            listed = [i for i, x in enumerate(c.values) if _same(x, v)]
            shown.append(f"{c.name} {c.labels[listed[0]] if listed else _number(v)}")
        return f"{self.title or 'Explorer'} ({', '.join(shown)})"

    def shown_size(self, data: bytes) -> tuple[int, int]:
        """The CSS ``(width, height)`` a PNG of :meth:`png` is shown at (its pixels / ratio)."""
        width, height = png_size(data)
        return round(width / self.pixel_ratio), round(height / self.pixel_ratio)

    def all_indices(self) -> list[tuple[int, ...]]:
        """Every combination of control indices, row-major (the last control varies fastest)."""
        return list(itertools.product(*(range(len(c.values)) for c in self.controls)))

    # -- static version ----------------------------------------------------------------------
    def static_html(self) -> str:
        """Return self-contained HTML: controls, every pre-rendered figure, and the switcher.

        A live explorer's HTML holds its controls, a canvas and the default figure alone
        (:meth:`live_html`).
        """
        if self.live is not None:
            return self.live_html()
        images: list[str] = []
        sizes: list[tuple[int, int, int, float]] = []  # width, height, min width, text px
        seen: dict[bytes, int] = {}
        table: list[int] = []
        for key in self.all_indices():
            full = self.png(**self._values(key))
            data = palette_png(full, self.colors)
            if data not in seen:
                seen[data] = len(images)
                images.append(base64.b64encode(data).decode("ascii"))
                values = self._values(key)
                text_px = self.text_px(**values)
                sizes.append(
                    (
                        *self.shown_size(full),
                        self.min_width(**values),
                        round(text_px, 2) if math.isfinite(text_px) else 0,
                    )
                )
            table.append(seen[data])
        # unique within a page (a counter), yet the same from one build to the next
        digest = hashlib.sha1(f"{self.title}{next(_PAGE_IDS)}".encode()).hexdigest()[:10]
        uid = f"posenc-explorer-{digest}"
        default = tuple(c.default_index for c in self.controls)
        first_index = table[self.all_indices().index(default)]
        first = images[first_index]
        width, height, min_width, text_px = sizes[first_index]
        alt = html.escape(self.alt_text(**self._values(default)))
        rows = [self._control_html(uid, k, c) for k, c in enumerate(self.controls)]
        payload = json.dumps(
            {
                "shape": [len(c.values) for c in self.controls],
                "images": images,
                "sizes": sizes,
                "table": table,
            }
        )
        title = (
            f'<div class="posenc-explorer-title">{html.escape(self.title)}</div>'
            if self.title
            else ""
        )
        return (
            f'<div class="posenc-explorer" id="{uid}" style="border:1px solid #ccc;'
            'border-radius:6px;padding:8px;margin:8px 0">'
            f"{title}"
            '<div class="posenc-explorer-controls" style="display:flex;flex-wrap:wrap;'
            f'gap:4px 18px;font-size:90%">{"".join(rows)}</div>'
            '<div class="posenc-explorer-scroll">'
            f'<img class="posenc-explorer-figure" alt="{alt}" data-title="'
            f'{html.escape(self.title or "Explorer")}" data-text-px="{text_px}" '
            f'width="{width}" height="{height}" '
            f'style="max-width:100%;min-width:{min_width}px;height:auto" '
            f'src="data:image/png;base64,{first}"></div>'
            f"<script>{_SWITCHER_JS.replace('__UID__', uid).replace('__DATA__', payload)}</script>"
            "</div>"
        )

    @staticmethod
    def _control_html(uid: str, k: int, c: Control) -> str:
        name = html.escape(c.name)
        attrs = (
            f'data-control="{k}" aria-label="{name}" id="{uid}-c{k}" '
            f'data-labels="{html.escape(json.dumps(c.labels))}"'
        )
        if c.kind == "checkbox":
            checked = " checked" if c.values[c.default_index] else ""
            field = f'<input type="checkbox" {attrs}{checked}>'
            shown = ""
        elif c.kind == "slider":
            field = (
                f'<input type="range" {attrs} min="0" max="{len(c.values) - 1}" step="1" '
                f'value="{c.default_index}">'
            )
            shown = f'<output for="{uid}-c{k}">{html.escape(c.labels[c.default_index])}</output>'
        else:
            options = "".join(
                f'<option value="{i}"{" selected" if i == c.default_index else ""}>'
                f"{html.escape(label)}</option>"
                for i, label in enumerate(c.labels)
            )
            field = f"<select {attrs}>{options}</select>"
            shown = ""
        return (
            f'<label style="display:flex;align-items:center;gap:6px">{name} {field} {shown}</label>'
        )

    def live_html(self) -> str:
        """The HTML of a live explorer: controls, a canvas, and the default figure alone.

        Each control with a :class:`LiveRange` is a slider (``data-role="slider"``; over
        ``log10`` of the value when the range is logarithmic) and a number box
        (``data-role="entry"``, with the range in ``data-range`` and its rule in words in
        ``data-rule``); any other control is as in the pre-rendered version, with its values
        in ``data-values``. ``explorers.js`` finds the explorer by ``data-live`` (the drawer's
        name), shows the canvas (hidden until then) and hides the PNG; where it cannot, the
        PNG stays. Print shows the PNG (``reader.css``).
        """
        default = tuple(c.default_index for c in self.controls)
        values = self._values(default)
        full = self.png(**values)
        first = base64.b64encode(palette_png(full, self.colors)).decode("ascii")
        width, height = self.shown_size(full)
        text_px = self.text_px(**values)
        text_px = round(text_px, 2) if math.isfinite(text_px) else 0
        min_width = self.min_width(**values)
        digest = hashlib.sha1(f"{self.title}{next(_PAGE_IDS)}".encode()).hexdigest()[:10]
        uid = f"posenc-explorer-{digest}"
        alt = html.escape(self.alt_text(**values))
        rows = [self._live_control_html(uid, k, c) for k, c in enumerate(self.controls)]
        if self.reshuffle is not None:
            name, option = self.reshuffle
            k = [c.name for c in self.controls].index(name)
            i = self.controls[k].labels.index(option)
            rows.append(
                f'<button type="button" data-reshuffle="{k}" data-option="{i}" hidden>'
                f"{html.escape(LIVE_WORDS['reshuffle'])}</button>"
            )
        title = (
            f'<div class="posenc-explorer-title">{html.escape(self.title)}</div>'
            if self.title
            else ""
        )
        words = html.escape(json.dumps({**LIVE_WORDS, "rules": RULE_WORDS}, ensure_ascii=False))
        data = (
            f' data-live-data="{html.escape(json.dumps(self.live_data, allow_nan=False))}"'
            if self.live_data is not None
            else ""
        )
        return (
            f'<div class="posenc-explorer posenc-explorer-live" id="{uid}" '
            f'data-live="{self.live}"{data} data-words="{words}" style="border:1px solid #ccc;'
            'border-radius:6px;padding:8px;margin:8px 0">'
            f"{title}"
            '<div class="posenc-explorer-controls" style="display:flex;flex-wrap:wrap;'
            f'gap:4px 18px;font-size:90%">{"".join(rows)}</div>'
            '<div class="posenc-explorer-message" role="status" aria-live="polite" '
            'style="color:#a40000;font-size:90%"></div>'
            '<div class="posenc-explorer-scroll">'
            f'<img class="posenc-explorer-figure" alt="{alt}" data-title="'
            f'{html.escape(self.title or "Explorer")}" data-text-px="{text_px}" '
            f'width="{width}" height="{height}" '
            f'style="max-width:100%;min-width:{min_width}px;height:auto" '
            f'src="data:image/png;base64,{first}">'
            f'<canvas class="posenc-explorer-canvas" role="img" aria-label="{alt}" hidden '
            f'width="{width}" height="{height}" '
            f'style="width:100%;max-width:{width}px;vertical-align:top"></canvas>'
            "</div></div>"
        )

    @staticmethod
    def _live_control_html(uid: str, k: int, c: Control) -> str:
        name = html.escape(c.name)
        if c.live is None:
            # as pre-rendered, plus the values the index stands for
            row = Explorer._control_html(uid, k, c)
            values = html.escape(json.dumps(list(c.values)))
            return row.replace(
                f'data-control="{k}" ', f'data-control="{k}" data-role="index" data-name="{name}" '
            ).replace(f'id="{uid}-c{k}"', f'id="{uid}-c{k}" data-values="{values}"', 1)
        live = c.live
        value = c.values[c.default_index]
        if live.log:
            low, high = math.log10(live.min), math.log10(live.max)
            position = min(max(math.log10(value), low), high)
            slider = (
                f'min="{low:.6g}" max="{high:.6g}" step="{(high - low) / 500:.6g}" '
                f'value="{position:.6g}" aria-valuetext="{_number(value)}"'
            )
        else:
            position = min(max(value, live.min), live.max)
            slider = (
                f'min="{_number(live.min)}" max="{_number(live.max)}" '
                f'step="{_number(live.step) if live.step is not None else "any"}" '
                f'value="{_number(position)}"'
            )
        if live.above is not None:
            bounds = 'step="any"'
        else:
            step = _number(live.step) if live.step is not None else "any"
            bounds = f'min="{_number(live.min)}" max="{_number(live.max)}" step="{step}"'
        spec = html.escape(json.dumps(live.as_json()))
        field = (
            f'<input type="range" data-control="{k}" aria-label="{name}" id="{uid}-c{k}" '
            f'data-role="slider" data-name="{name}" {slider} style="flex:1 1 6em;min-width:5em"> '
            f'<input type="number" data-control="{k}" aria-label="{name}" id="{uid}-n{k}" '
            f'data-role="entry" data-name="{name}" {bounds} value="{_number(value)}" '
            f'data-range="{spec}" data-rule="{html.escape(live.rule())}" '
            'inputmode="decimal" style="width:6.5em">'
        )
        return (
            '<label style="display:flex;align-items:center;gap:6px;flex:1 1 16em;'
            f'max-width:26em">{name} {field}</label>'
        )

    # -- live version ------------------------------------------------------------------------
    @property
    def widget(self) -> Any:
        """The ipywidgets version (built on first use): controls above an ``Image``."""
        if self._widget is None:
            self._widget = self._build_widget()
        return self._widget

    def _build_widget(self) -> Any:
        import ipywidgets as w

        inputs = []
        for c in self.controls:
            options = list(zip(c.labels, c.values))
            value = c.values[c.default_index]
            if c.kind == "checkbox":
                inputs.append(w.Checkbox(value=value, description=c.name))
            elif c.live is not None:
                inputs.append(_range_widget(w, c.name, c.live, value))
            elif c.kind == "slider":
                inputs.append(w.SelectionSlider(options=options, value=value, description=c.name))
            else:
                inputs.append(w.Dropdown(options=options, value=value, description=c.name))
        first = self.png()
        image = w.Image(format="png", value=first, width=str(self.shown_size(first)[0]))

        def redraw(_change: object = None) -> None:
            data = self.png(**{c.name: i.value for c, i in zip(self.controls, inputs)})
            image.width = str(self.shown_size(data)[0])
            image.value = data

        for i in inputs:
            i.observe(redraw, names="value")
        header = [w.HTML(f"<b>{html.escape(self.title)}</b>")] if self.title else []
        box = w.VBox([*header, w.HBox(inputs, layout=w.Layout(flex_flow="row wrap")), image])
        box.inputs = inputs  # for tests and for readers who want to drive it from code
        box.image = image
        return box

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, Any]:
        bundle = dict(self.widget._repr_mimebundle_(include=include, exclude=exclude) or {})
        bundle["text/html"] = self.static_html()
        bundle["text/plain"] = repr(self)
        return bundle

    def __repr__(self) -> str:
        spec = ", ".join(f"{c.name}={list(c.labels)}" for c in self.controls)
        live = f", live={self.live!r}" if self.live is not None else ""
        return f"Explorer({self.title!r}: {spec}{live})"


def _range_widget(w: Any, name: str, live: LiveRange, value: float) -> Any:
    """The kernel's widget for a control with a live range: a slider over the range, as the
    page's (logarithmic for a base; the value redraws when the slider is let go)."""
    common = {"description": name, "continuous_update": False}
    if live.log:
        return w.FloatLogSlider(
            value=value,
            base=10,
            min=math.log10(live.min),
            max=math.log10(live.max),
            step=(math.log10(live.max) - math.log10(live.min)) / 500,
            **common,
        )
    if live.integer:
        return w.IntSlider(
            value=int(value), min=int(live.min), max=int(live.max), step=int(live.step), **common
        )
    step = live.step if live.step is not None else (live.max - live.min) / 500
    return w.FloatSlider(value=value, min=live.min, max=live.max, step=step, **common)


_SWITCHER_JS = """
(function () {
  var root = document.getElementById("__UID__");
  if (!root) { return; }
  var data = __DATA__;
  var img = root.querySelector("img.posenc-explorer-figure");
  var inputs = Array.prototype.slice.call(root.querySelectorAll("[data-control]"));
  function update() {
    var flat = 0;
    var shown = [];
    inputs.forEach(function (el, k) {
      var i = el.type === "checkbox" ? (el.checked ? 1 : 0) : parseInt(el.value, 10);
      var label = JSON.parse(el.dataset.labels)[i];
      if (el.type === "range") {
        var out = root.querySelector('output[for="' + el.id + '"]');
        if (out) { out.textContent = label; }
      }
      shown.push(el.getAttribute("aria-label") + " " + label);
      flat = flat * data.shape[k] + i;
    });
    var k = data.table[flat];
    img.width = data.sizes[k][0];
    img.height = data.sizes[k][1];
    img.style.minWidth = data.sizes[k][2] + "px";
    img.dataset.textPx = data.sizes[k][3];
    img.alt = img.dataset.title + " (" + shown.join(", ") + ")";
    img.src = "data:image/png;base64," + data.images[k];
  }
  inputs.forEach(function (el) {
    el.addEventListener("input", update);
    el.addEventListener("change", update);
  });
})();
"""


def explorer(
    render: Callable[..., Figure],
    controls: Mapping[str, object],
    *,
    defaults: Mapping[str, object] | None = None,
    title: str = "",
    dpi: int = 100,
    pixel_ratio: int = 2,
    colors: int = 256,
    max_combinations: int = 150,
    live: str | None = None,
    ranges: Mapping[str, LiveRange | Mapping[str, Any]] | None = None,
    live_data: Mapping[str, Any] | None = None,
    reshuffle: tuple[str, str] | None = None,
) -> Explorer:
    """Make an interactive figure from a drawing function and its controls.

    Args:
        render: ``render(**values) -> matplotlib.figure.Figure``; called with one value per
            control. It should build a fresh ``Figure`` (not use ``pyplot``) and be
            deterministic.
        controls: ``name -> values`` in display order; values is a sequence (numbers give a
            slider, ``[False, True]`` a checkbox, anything else a drop-down) or a mapping
            ``label -> value``.
        defaults: the value of each control shown first (default: each control's first value).
        title: a caption shown above the controls.
        dpi: CSS pixels per inch of the figures as shown (100: a 6.7-inch figure fills the
            book's 670 px column, and 8-point text is 11 px high).
        pixel_ratio: PNG pixels per CSS pixel: the PNGs are rendered at ``dpi * pixel_ratio``
            and shown at ``dpi``, sharp on 2× screens and projectors.
        colors: the palette size of the PNGs the static page stores (2 to 256): fewer
            colours, fewer bytes, for explorers with many large frames of flat colours.
        max_combinations: upper bound on the number of figures to pre-render for the static
            book (keep pages small: each combination is one PNG in the page).
        live: the name of a drawer in ``window.posencExplorers`` (``book/ext/twin_static/
            drawers/<live>.js``): the static book then draws the figure in the reader's browser,
            for any value of ``ranges``, and stores the default figure alone, for print and
            for a page without JavaScript. ``None``: every combination pre-rendered.
        ranges: with ``live``, ``name -> LiveRange`` (or a mapping of its fields) for the
            numeric controls that take any value of a range in the browser (each must admit
            the values the control lists, which the kernel's widget still offers).
        live_data: with ``live``, fixed data the drawer receives as its third argument
            (``draw(canvas, values, data)``): a mapping of JSON values (finite numbers,
            strings, booleans, lists and mappings of them), kept small: it is written into
            the page. For what the twin cannot compute, such as a seeded random query.
        reshuffle: with ``live``, ``(control, option)``: a drop-down control whose values
            are permutations of ``0 … n−1``, and the label of one of its options; the page
            then shows a "New random order" button that puts a fresh random permutation in
            that option and selects it (the kernel's widget keeps the listed ones).

    Returns:
        an :class:`Explorer`; make it the last expression of a notebook cell to display it.

    Example:
        >>> from book.figures.sinusoidal import sinusoidal_heatmap_figure
        >>> ex = explorer(lambda dim: sinusoidal_heatmap_figure(dim=dim), {"dim": [16, 32, 64]})
        >>> ex.n_combinations
        3
    """
    if not callable(render):
        raise TypeError(f"render must be callable, got {type(render).__name__}")
    if not isinstance(title, str):
        raise TypeError(f"title must be a string, got {type(title).__name__}")
    dpi = check_int("dpi", dpi)
    pixel_ratio = check_int("pixel_ratio", pixel_ratio)
    colors = check_int("colors", colors, minimum=2)
    if colors > 256:
        raise ValueError(f"colors must be <= 256 (a PNG palette), got {colors}")
    max_combinations = check_int("max_combinations", max_combinations)
    defaults = check_defaults(defaults)
    if not isinstance(controls, Mapping) or not controls:
        raise ValueError("controls must be a non-empty mapping name -> values")
    unknown = set(defaults) - set(controls)
    if unknown:
        raise ValueError(f"defaults name unknown control(s) {sorted(unknown)}")
    built = [_make_control(name, spec, defaults.get(name)) for name, spec in controls.items()]
    if live is not None:
        if not isinstance(live, str):
            raise TypeError(f"live must be a drawer's name or None, got {type(live).__name__}")
        if live not in LIVE_DRAWERS:
            raise ValueError(
                f"live must name a drawer of book/ext/twin_static/drawers, one of "
                f"{LIVE_DRAWERS}, got {live!r}"
            )
    if ranges is not None:
        if not isinstance(ranges, Mapping):
            raise TypeError(
                f"ranges must be a mapping control name -> LiveRange, got {type(ranges).__name__}"
            )
        if live is None:
            raise ValueError("ranges need live= (the drawer that draws any value of them)")
        names = [c.name for c in built]
        unknown = set(ranges) - set(names)
        if unknown:
            raise ValueError(f"ranges name unknown control(s) {sorted(unknown, key=str)}")
        built = [_live_range(c.name, ranges[c.name], c) if c.name in ranges else c for c in built]
    if live_data is not None:
        if live is None:
            raise ValueError("live_data needs live= (the drawer that receives it)")
        if not isinstance(live_data, Mapping):
            raise TypeError(
                f"live_data must be a mapping of JSON values, got {type(live_data).__name__}"
            )
        try:
            json.dumps(live_data, allow_nan=False)
        except (TypeError, ValueError) as error:
            raise ValueError(
                f"live_data must hold only finite numbers, strings, booleans, lists and "
                f"mappings with string keys: {error}"
            ) from None
    if live is not None:
        for c in built:
            if c.live is None and not all(_plain(v) for v in c.values):
                raise TypeError(
                    f"control {c.name!r} of a live explorer must offer numbers, strings, "
                    f"booleans or lists of them (the page's drawer receives them), got {c.values}"
                )
    if reshuffle is not None:
        if live is None:
            raise ValueError("reshuffle needs live= (the drawer that draws the new order)")
        if (
            not isinstance(reshuffle, tuple)
            or len(reshuffle) != 2
            or not all(isinstance(x, str) for x in reshuffle)
        ):
            raise TypeError(
                f"reshuffle must be a pair (control, option) of strings, got {reshuffle!r}"
            )
        name, option = reshuffle
        found = [c for c in built if c.name == name]
        if not found or found[0].kind != "select":
            raise ValueError(f"reshuffle must name a drop-down control, got {name!r}")
        if option not in found[0].labels:
            raise ValueError(
                f"reshuffle's option {option!r} is not one of {name!r}'s {found[0].labels}"
            )
        perm = found[0].values[found[0].labels.index(option)]
        if not (
            isinstance(perm, (tuple, list))
            and all(isinstance(i, int) and not isinstance(i, bool) for i in perm)
            and sorted(perm) == list(range(len(perm)))
        ):
            raise ValueError(
                f"reshuffle's option {option!r} must hold a permutation of 0..n-1, got {perm!r}"
            )
    return Explorer(
        render,
        built,
        title=title,
        dpi=dpi,
        pixel_ratio=pixel_ratio,
        colors=colors,
        max_combinations=max_combinations,
        live=live,
        live_data=live_data,
        reshuffle=reshuffle,
    )
