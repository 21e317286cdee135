"""Keep the chapters' notebooks in their committed form.

    python -m book nb strip chapters/*.ipynb     # clear outputs, keep checked cells
    python -m book nb execute chapters/03_*.ipynb  # run, then strip (refreshes checks)
    python -m book nb check chapters/*.ipynb     # exit 1 if a notebook is not stripped

A committed notebook has no outputs and no execution counts, except in the cells whose
source contains ``# NBVAL_CHECK_OUTPUT``: nbval compares those cells' fresh output with the
stored one, so they keep both (``execute`` refreshes them from a clean kernel run).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

MARK = "NBVAL_CHECK_OUTPUT"


def is_checked(cell: nbformat.NotebookNode) -> bool:
    return cell.cell_type == "code" and MARK in cell.source


def strip(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Clear outputs and counts of every unchecked code cell; drop volatile metadata."""
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type != "code":
            continue
        if not is_checked(cell):
            cell.outputs = []
            cell.execution_count = None
    nb.metadata.pop("widgets", None)
    nb.metadata.get("language_info", {}).pop("version", None)
    return nb


def problems(nb: nbformat.NotebookNode) -> list[str]:
    """What keeps ``nb`` from being in committed form."""
    out = []
    for k, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if is_checked(cell) and not cell.outputs:
            out.append(f"cell {k} is marked {MARK} but has no stored output")
        if not is_checked(cell) and (cell.outputs or cell.execution_count is not None):
            out.append(f"cell {k} keeps output or an execution count without {MARK}")
    if "widgets" in nb.metadata:
        out.append("notebook metadata keeps widget state")
    return out


def execute(path: Path) -> None:
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    nbformat.write(strip(nb), path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("command", choices=["strip", "execute", "check"])
    parser.add_argument("notebooks", nargs="+", type=Path)
    args = parser.parse_args(argv)
    status = 0
    for path in args.notebooks:
        if args.command == "execute":
            execute(path)
        elif args.command == "strip":
            nbformat.write(strip(nbformat.read(path, as_version=4)), path)
        else:
            for problem in problems(nbformat.read(path, as_version=4)):
                print(f"{path}: {problem}")
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
