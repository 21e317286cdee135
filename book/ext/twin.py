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
plotting helper with matplotlib's colormaps) and the drawers of the live explorers (``drawers/<name>.js``,
``window.posencExplorers``), and ``explorers.js``, which sets up every live explorer of the
page (see :mod:`book.explorers.explorer`). Deferred scripts run in the order they are added, before
``DOMContentLoaded``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

__all__ = ["DRAWERS", "SCRIPTS", "STATIC", "setup"]

STATIC = Path(__file__).parent / "twin_static"
DRAWERS = STATIC / "drawers"
SCRIPTS = (
    "posenc.js",
    "plot.js",
    *(f"drawers/{path.name}" for path in sorted(DRAWERS.glob("*.js"))),
    "explorers.js",
)
"""The twin, then what uses it, in the order the page runs them: the drawers (one file per
live explorer, ``drawers/<name>.js``, each adding ``window.posencExplorers[name]``) before
``explorers.js``, which sets the page's live explorers up."""


def _add_static(app: Sphinx, config: Any) -> None:
    config.html_static_path.append(str(STATIC))


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _add_static)
    for script in SCRIPTS:
        app.add_js_file(script, defer="defer", priority=400)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
