"""How large is the smallest text of every figure the book shows, at the size it is shown?

Runs each chapter (as the book build does) with a hook that measures every figure the page
displays (matplotlib's inline PNGs) and every frame an explorer renders (``Figure.savefig``),
then prints one row per figure: the smallest text in CSS pixels once the PNG is fitted into the
book's column (about 680 CSS px wide in a 1280 px window; a narrower PNG is shown at its own
size), the text itself, and its size in points.

    px = points · dpi / 72 · min(1, column / png_width_px)

Issue 13 asks for at least 11 px. This script only measures; it fails nothing.

Usage: ``python tools/figure_text_sizes.py [chapters/NN_name.ipynb ...] [--column 680]``
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]

HOOK = r"""
import io as _io, json as _json
import matplotlib.figure as _mfig, matplotlib.text as _mtext
_SIZES = []
_COLUMN = {column}
_RUNNING = [""]  # the source of the cell being run

def _note_cell(info):
    _RUNNING[0] = info.raw_cell
get_ipython().events.register("pre_run_cell", _note_cell)

def _smallest(fig, dpi, tight):
    renderer = fig._get_renderer()  # works for figures made without pyplot too
    fig.draw(renderer)
    width_in = fig.get_tightbbox(renderer).width if tight else fig.get_figwidth()
    png_px = width_in * dpi
    scale = min(1.0, _COLUMN / png_px) if png_px else 1.0
    best = None
    for t in fig.findobj(_mtext.Text):
        if not t.get_visible() or not t.get_text().strip():
            continue
        px = t.get_fontsize() * dpi / 72 * scale
        if best is None or px < best[0]:
            best = (px, t.get_text().strip()[:40], t.get_fontsize())
    return best, png_px

def _record(fig, kind, dpi, tight):
    best, png_px = _smallest(fig, dpi, tight)
    if best is not None:
        _SIZES.append(dict(cell=_RUNNING[0], kind=kind, px=round(best[0], 1),
                           text=best[1], points=best[2], png_px=round(png_px), dpi=dpi))

def _wrap_png(*_):
    # %matplotlib inline (re)registers the PNG printer: wrap whatever is registered now
    fmt = get_ipython().display_formatter.formatters["image/png"]
    try:
        old = fmt.lookup_by_type(_mfig.Figure)
    except KeyError:
        return
    if getattr(old, "_measures", False):
        return
    def png(fig, _old=old):
        _record(fig, "figure", fig.dpi, True)
        return _old(fig)
    png._measures = True
    fmt.for_type(_mfig.Figure, png)

get_ipython().events.register("pre_run_cell", _wrap_png)
get_ipython().events.register("post_run_cell", _wrap_png)

_old_savefig = _mfig.Figure.savefig
def _savefig(self, fname, *args, **kwargs):
    dpi = kwargs.get("dpi") or self.dpi
    _record(self, "explorer frame", dpi, kwargs.get("bbox_inches") == "tight")
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--column", type=int, default=680, help="CSS px of the book's column")
    args = parser.parse_args()
    paths = args.notebooks or sorted((ROOT / "chapters").glob("*.ipynb"))
    print("| chapter | figure | kind | smallest text px | text | pt | dpi | PNG px wide |")
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
                f"{r['points']:g} | {r['dpi']:g} | {r['png_px']} |"
            )
        sys.stdout.flush()
    if worst:
        below = sum(px < 11 for px in worst)
        print(f"\n{len(worst)} figures; smallest text {min(worst)} px; {below} below 11 px")


if __name__ == "__main__":
    main()
