"""Every chapter is committed stripped, is in the table of contents, and has the book's shape."""

import re
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
from book.tools import nbtool

CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))
APPENDIX = sorted((ROOT / "appendix").glob("*.ipynb"))


def toc_files():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    found = []

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                found.append(node["file"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(toc)
    return found


def test_every_chapter_is_in_the_toc_and_every_toc_entry_exists():
    listed = {f for f in toc_files() if f.startswith(("chapters/", "appendix/"))}
    present = {f"{p.parent.name}/{p.stem}" for p in CHAPTERS + APPENDIX}
    assert listed == present
    for entry in toc_files():
        assert any((ROOT / f"{entry}{ext}").exists() for ext in (".md", ".ipynb")), entry


CODE_COLUMNS = 77
"""Characters of code a cell shows without a horizontal scrollbar: the code block is 684 CSS px
wide with 32 px of padding at a 1280 px window, and the theme's 14 px monospace is 8.43 px per
character (measured in chromium on the built page, issue 13)."""


@pytest.mark.parametrize("path", CHAPTERS + APPENDIX, ids=lambda p: p.stem)
def test_code_lines_fit_the_column(path):
    nb = nbformat.read(path, as_version=4)
    long = [
        line
        for cell in nb.cells
        if cell.cell_type == "code"
        for line in cell.source.splitlines()
        if len(line) > CODE_COLUMNS
    ]
    assert long == [], f"{len(long)} code lines longer than {CODE_COLUMNS} characters"


@pytest.mark.parametrize("path", CHAPTERS + APPENDIX, ids=lambda p: p.stem)
def test_chapter_is_committed_stripped(path):
    assert nbtool.problems(nbformat.read(path, as_version=4)) == []


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_has_the_book_shape(path):
    nb = nbformat.read(path, as_version=4)
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    assert re.search(r"^# ", markdown, re.MULTILINE), "a title"
    assert re.search(r"objectives", markdown, re.IGNORECASE), "learning objectives"
    assert re.search(r"\$\$\s*\([a-z0-9-]+\)", markdown), "at least one labelled equation"
    assert sum(nbtool.MARK in c for c in code) >= 2, "at least two NBVAL_CHECK_OUTPUT cells"
    assert markdown.count("{exercise}") >= 2, "exercises"
    starts = markdown.count("{solution-start}")
    assert starts >= 2 and starts == markdown.count("{solution-end}"), "worked solutions"
    assert re.search(r"^## Summary", markdown, re.MULTILINE | re.IGNORECASE), "a summary"
    assert "{footbibliography}" in markdown and "{footcite" in markdown, "references"
    assert any(re.search(r"_explorer\(", c) for c in code), "an explorer"
    assert not any(
        re.search(r"^\s*(import matplotlib.pyplot|plt\.)", c, re.MULTILINE) for c in code
    ), "figures come from book.figures, not pyplot in the notebook"
