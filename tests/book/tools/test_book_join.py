"""book.pdf joined from kept handouts (read while the others print) and fresh ones
(book/tools/build_handouts.py ``BookJoin``): the same book as a join of them all."""

from __future__ import annotations

from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter

from book.tools import build_handouts as tool

# docname -> (pages, width of its pages: tells them apart in the book)
HANDOUTS = {"intro": (2, 300), "chapters/01_a": (3, 310), "chapters/02_b": (1, 320)}


def _handout(path: Path, pages: int, width: int, title: str) -> tool.Printed:
    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=width, height=400)
    top = writer.add_outline_item(title=title, page_number=0)
    writer.add_outline_item(title="Section", page_number=pages - 1, parent=top)
    with path.open("wb") as f:
        writer.write(f)
    headings = [(title, title), ("Section", "Section")]
    return tool.Printed(path.stem, path, title.upper(), 0.0, headings)


def _book(path: Path) -> tuple[list[int], list]:
    reader = PdfReader(path)
    widths = [round(float(page.mediabox.width)) for page in reader.pages]
    return widths, tool._bookmarks(reader, reader.outline)


@pytest.fixture
def printed(tmp_path: Path) -> dict[str, tool.Printed]:
    found = {}
    for docname, (pages, width) in HANDOUTS.items():
        item = _handout(tmp_path / f"{tool.handout_stem(docname)}.pdf", pages, width, docname)
        item.docname = docname
        found[docname] = item
    return found


@pytest.mark.parametrize("forked", [True, False], ids=["forked", "in-process"])
@pytest.mark.parametrize("fresh", [["chapters/01_a"], ["intro"], ["intro", "chapters/02_b"], []])
def test_a_book_of_kept_and_fresh_handouts_is_the_whole_join(
    tmp_path: Path, printed: dict[str, tool.Printed], fresh: list[str], forked: bool
) -> None:
    docnames = list(HANDOUTS)
    whole = tmp_path / "whole.pdf"
    assert tool.join_book([printed[d] for d in docnames], whole) == 6
    for item in printed.values():
        item.pages = 0
    kept = {d: item for d, item in printed.items() if d not in fresh}
    join = tool.BookJoin(docnames, kept)
    if forked:
        join.start()  # reads the kept handouts while (here: before) the others print
    part = tmp_path / "part.pdf"
    join.submit({d: printed[d] for d in fresh}, part)
    assert join.result() == 6
    assert _book(part) == _book(whole)
    assert [printed[d].pages for d in docnames] == [2, 3, 1]
    widths, marks = _book(part)
    assert widths == [300, 300, 310, 310, 310, 320]
    assert [(depth, title, page) for depth, title, page, _ in marks] == [
        (0, "INTRO", 0),
        (1, "Section", 1),
        (0, "CHAPTERS/01_A", 2),
        (1, "Section", 4),
        (0, "CHAPTERS/02_B", 5),
        (1, "Section", 5),
    ]


def test_a_join_that_fails_says_why(tmp_path: Path, printed: dict[str, tool.Printed]) -> None:
    docnames = list(HANDOUTS)
    printed["intro"].path.write_bytes(b"not a PDF")
    join = tool.BookJoin(docnames, {"intro": printed["intro"]}).start()
    join.submit({d: printed[d] for d in docnames[1:]}, tmp_path / "book.pdf")
    with pytest.raises(RuntimeError, match="book.pdf: "):
        join.result()
    assert not (tmp_path / "book.pdf").exists()


def test_a_join_is_cancelled_when_the_printing_fails(printed: dict[str, tool.Printed]) -> None:
    join = tool.BookJoin(list(HANDOUTS), dict(printed)).start()
    join.cancel()
    assert not join._process.is_alive()
