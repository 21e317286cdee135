"""How large is the smallest text of every figure the book shows, at the size it is shown?

Runs each chapter (as the book build does) with a hook that measures every figure the page
displays (matplotlib's inline PNGs) and every frame an explorer renders (``Figure.savefig``),
then prints one row per figure: the smallest text in CSS pixels once the PNG is fitted into the
book's column (680 CSS px by issue 13's rule; measured, a cell's output is 672 wide; a narrower PNG is shown at its own
size), the text itself, and its size in points.

    px = points · css_dpi / 72 · min(1, column / width_css)

``css_dpi`` is the CSS pixels per inch the figure is shown at (an inline figure's ``dpi``; an
explorer's ``dpi``), whatever the PNG's own resolution (twice that: 2× PNGs shown at 1×).
The measurement is :func:`book.figures.measure.smallest_text`, which the tests use too.

Issue 13 asks for at least 11 px. This script only measures; it fails nothing.

Usage: ``python -m book figure-sizes [chapters/NN_name.ipynb ...] [--column 680]``
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]

HOOK = r"""
import io as _io, json as _json, sys as _sys
import matplotlib.figure as _mfig
from book.figures.measure import smallest_text as _smallest_text
_SIZES = []
_COLUMN = {column}
_RUNNING = [""]  # the source of the cell being run
_FRAME_DPI = [None]  # CSS px per inch of the explorer frame being rendered

def _note_cell(info):
    _RUNNING[0] = info.raw_cell
get_ipython().events.register("pre_run_cell", _note_cell)

def _record(fig, kind, css_dpi, png_dpi, tight, pad=0.0):
    px, text, points, width_css = _smallest_text(
        fig, css_dpi=css_dpi, tight=tight, column=_COLUMN, pad_inches=pad
    )
    if text:
        _SIZES.append(dict(cell=_RUNNING[0], kind=kind, px=round(px, 1), text=text,
                           points=points, css_px=round(width_css), dpi=png_dpi))

def _measuring(printer):
    # printer (the PNG printer of a Figure), first recording the figure's text sizes
    if getattr(printer, "_measures", False):
        return printer
    name = getattr(getattr(printer, "func", printer), "__name__", "")
    ratio = 2 if "retina" in name else 1  # 2x PNGs, shown at fig.dpi CSS px per inch
    pad = 0.02 if name == "retina_palette_png" else 0.1  # posenc's margin, else Jupyter's

    def png(fig):
        # an inline figure is shown at fig.dpi CSS px per inch, cropped to its tight box
        _record(fig, "figure", fig.dpi, fig.dpi * ratio, True, pad)
        return printer(fig)

    png._measures = True
    return png

# every printer registered for Figure from now on (%matplotlib inline, book.figures's import)
# is wrapped as it is registered, and so is the one registered now
_fmt = get_ipython().display_formatter.formatters["image/png"]
_for_type = _fmt.for_type
def _wrapping_for_type(typ, func=None):
    if func is not None and typ is _mfig.Figure:
        func = _measuring(func)
    return _for_type(typ, func)
_fmt.for_type = _wrapping_for_type
try:
    _fmt.for_type(_mfig.Figure, _fmt.lookup_by_type(_mfig.Figure))
except KeyError:
    pass

from book.explorers.explorer import Explorer as _Explorer
_old_png = _Explorer.png
def _png(self, **values):
    _FRAME_DPI[0] = self.dpi
    try:
        return _old_png(self, **values)
    finally:
        _FRAME_DPI[0] = None
_Explorer.png = _png

_old_savefig = _mfig.Figure.savefig
def _savefig(self, fname, *args, **kwargs):
    dpi = kwargs.get("dpi") or self.dpi
    if _FRAME_DPI[0] is not None:  # an explorer frame: shown at the explorer's dpi
        _record(self, "explorer frame", _FRAME_DPI[0], dpi, kwargs.get("bbox_inches") == "tight")
    return _old_savefig(self, fname, *args, **kwargs)
_mfig.Figure.savefig = _savefig
"""

DUMP = "print('@@SIZES@@' + _json.dumps(_SIZES))"


def measure(path: Path, column: int) -> list[dict]:
    nb = nbformat.read(path, as_version=4)
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    names = {}
    for cell in code_cells:  # the figure's label, else the cell's last line (the call)
        fig = cell.metadata.get("mystnb", {}).get("figure", {})
        lines = cell.source.strip().splitlines() or [""]
        calls = [ln for ln in lines if "_figure(" in ln or "_explorer(" in ln]
        last = (calls or lines)[-1].strip()[:50]
        names[id(cell)] = fig.get("name") or f"`{last}`"
    nb.cells.insert(0, nbformat.v4.new_code_cell(HOOK.format(column=column)))
    nb.cells.append(nbformat.v4.new_code_cell(DUMP))
    NotebookClient(nb, timeout=600, resources={"metadata": {"path": str(path.parent)}}).execute()
    out = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.get("name") == "stdout")
    sizes = json.loads(out.split("@@SIZES@@", 1)[1])
    by_source = {c.source: names[id(c)] for c in code_cells}
    order = {c.source: i for i, c in enumerate(code_cells)}
    for row in sizes:
        row["name"] = by_source.get(row["cell"], "?")
        row["cell"] = order.get(row["cell"], -1)
    return sizes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument(
        "--column", type=int, default=680, help="CSS px of the book's column for figures"
    )
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted((ROOT / "chapters").glob("*.ipynb"))
    print("| chapter | figure | kind | smallest text px | text | pt | PNG dpi | CSS px wide |")
    print("|---|---|---|---:|---|---:|---:|---:|")
    worst = []
    for path in paths:
        rows = measure(path.resolve(), args.column)
        frames = [r for r in rows if r["kind"] == "explorer frame"]
        figures = [r for r in rows if r["kind"] == "figure"]
        if frames:  # one row per explorer cell: its smallest frame
            by_cell: dict[int, dict] = {}
            for r in frames:
                if r["cell"] not in by_cell or r["px"] < by_cell[r["cell"]]["px"]:
                    by_cell[r["cell"]] = r
            figures += list(by_cell.values())
        for r in sorted(figures, key=lambda r: r["cell"]):
            worst.append(r["px"])
            text = r["text"].replace("|", "/").replace("\n", " ")
            print(
                f"| {path.stem} | {r['name']} | {r['kind']} | {r['px']} | {text} | "
                f"{r['points']:g} | {r['dpi']:g} | {r['css_px']} |"
            )
        sys.stdout.flush()
    if worst:
        below = sum(px < 11 for px in worst)
        print(f"\n{len(worst)} figures; smallest text {min(worst)} px; {below} below 11 px")
    return 0


if __name__ == "__main__":
    sys.exit(main())
