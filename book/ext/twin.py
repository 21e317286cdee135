"""posenc's JavaScript twin on every page: ``window.posenc`` for the live explorers.

``twin_static/posenc.js`` computes, in the reader's browser, what posenc's closed-form
functions compute (sinusoidal tables, relative index grids, Shaw's clipping, T5's buckets,
ALiBi's slopes, RoPE's angles and its stretched frequencies), so that an explorer can draw any
value a reader picks without a kernel. PyTorch has no WebAssembly build, so the page cannot run
posenc itself; the twin is held to it by golden values (``tests/data/posenc_twin_golden.json``,
written from the Python functions by :mod:`book.tools.twin_golden`, and checked in chromium by
``tests/browser/test_twin.py``).

The file is served from the site (``_static/posenc.js``), never from a CDN, and loaded with
``defer`` before the scripts that use it: ``plot.js`` (``window.posencPlot``, a tiny canvas
plotting helper with matplotlib's colormaps) and ``explorers.js``, which sets up every live
explorer of the page and loads its drawer (``drawers/<name>.js``, ``window.posencExplorers``;
see :mod:`book.explorers.explorer`). Deferred scripts run in the order they are added, before
``DOMContentLoaded``; the whole folder is the site's ``_static``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

__all__ = ["DRAWERS", "SCRIPTS", "STATIC", "setup"]

STATIC = Path(__file__).parent / "twin_static"
DRAWERS = STATIC / "drawers"
SCRIPTS = ("posenc.js", "plot.js", "explorers.js")
"""The twin, then what uses it, in the order the page runs them. ``explorers.js`` sets the
page's live explorers up, and loads the drawer each needs from ``drawers/<name>.js`` (one file
per live explorer, each adding ``window.posencExplorers[name]``), so a page loads only the
drawers it shows."""


def _add_static(app: Sphinx, config: Any) -> None:
    config.html_static_path.append(str(STATIC))


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _add_static)
    for script in SCRIPTS:
        app.add_js_file(script, defer="defer", priority=400)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
