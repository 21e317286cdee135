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
from typing import Any

from matplotlib.figure import Figure

from book._checks import check_defaults
from book.figures.measure import smallest_points
from book.figures.png import palette_png, png_size
from posenc._checks import check_int

__all__ = ["Control", "Explorer", "explorer"]

WIDGET_VIEW_MIME = "application/vnd.jupyter.widget-view+json"
COLUMN_PX = 680
"""CSS px of the book's column: a wider figure is shown this wide, so rendered no wider."""
PHONE_TEXT_PX = 9.0
"""The smallest text, in CSS px, an explorer's figure may shrink to on a narrow screen."""
_PAGE_IDS = itertools.count()


@dataclass(frozen=True)
class Control:
    """One named parameter of an explorer and the values it can take.

    Numbers are shown as a slider over the listed values, booleans as a checkbox, anything
    else as a drop-down list. ``labels`` are the texts shown for each value (default
    ``str(value)``); ``default`` is the value selected first (default: the first one).
    """

    name: str
    values: tuple[Any, ...]
    labels: tuple[str, ...]
    default_index: int

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
    """Equal, and both or neither a bool (so that ``1`` does not select ``True``)."""
    return isinstance(a, bool) == isinstance(b, bool) and a == b


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


class Explorer:
    """A figure with controls; see :func:`explorer`, which builds it.

    Attributes:
        controls: the controls, in display order.
        dpi: CSS pixels per inch of the figure as shown.
        pixel_ratio: PNG pixels per CSS pixel (the PNG is rendered at ``dpi * pixel_ratio``).
        colors: the palette size of the static page's PNGs (:func:`palette_png`).
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
    ) -> None:
        self.render = render
        self.controls = tuple(controls)
        self.title = title
        self.dpi = dpi
        self.pixel_ratio = pixel_ratio
        self.colors = colors
        n = self.n_combinations
        if n > max_combinations:
            raise ValueError(
                f"the controls give {n} combinations, more than max_combinations="
                f"{max_combinations}: the static book pre-renders every one, so offer fewer values"
            )
        self._cache: dict[tuple[int, ...], bytes] = {}
        self._text_px: dict[tuple[int, ...], float] = {}
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
        unknown = set(values) - {c.name for c in self.controls}
        if unknown:
            raise ValueError(f"unknown control(s) {sorted(unknown)}")
        out = []
        for c in self.controls:
            if c.name not in values:
                out.append(c.default_index)
                continue
            v = values[c.name]
            matches = [i for i, x in enumerate(c.values) if _same(x, v)]
            if not matches:
                raise ValueError(f"{c.name} must be one of {c.values}, got {v!r}")
            out.append(matches[0])
        return tuple(out)

    def figure(self, **values: Any) -> Figure:
        """Draw the figure for the given control values (others at their defaults)."""
        return self.render(**self._values(self._indices(values)))

    def png(self, **values: Any) -> bytes:
        """Return the PNG bytes for the given control values, rendering once and caching."""
        key = self._indices(values)
        if key not in self._cache:
            fig = self.render(**self._values(key))
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
        return self._text_px[self._indices(values)]

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
        key = self._indices(values)
        shown = ", ".join(f"{c.name} {c.labels[i]}" for c, i in zip(self.controls, key))
        return f"{self.title or 'Explorer'} ({shown})"

    def shown_size(self, data: bytes) -> tuple[int, int]:
        """The CSS ``(width, height)`` a PNG of :meth:`png` is shown at (its pixels / ratio)."""
        width, height = png_size(data)
        return round(width / self.pixel_ratio), round(height / self.pixel_ratio)

    def all_indices(self) -> list[tuple[int, ...]]:
        """Every combination of control indices, row-major (the last control varies fastest)."""
        return list(itertools.product(*(range(len(c.values)) for c in self.controls)))

    # -- static version ----------------------------------------------------------------------
    def static_html(self) -> str:
        """Return self-contained HTML: controls, every pre-rendered figure, and the switcher."""
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
            if c.kind == "checkbox":
                inputs.append(w.Checkbox(value=c.values[c.default_index], description=c.name))
            elif c.kind == "slider":
                inputs.append(
                    w.SelectionSlider(
                        options=options, value=c.values[c.default_index], description=c.name
                    )
                )
            else:
                inputs.append(
                    w.Dropdown(options=options, value=c.values[c.default_index], description=c.name)
                )
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
        return f"Explorer({self.title!r}: {spec})"


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
    return Explorer(
        render,
        built,
        title=title,
        dpi=dpi,
        pixel_ratio=pixel_ratio,
        colors=colors,
        max_combinations=max_combinations,
    )
