"""Incremental Sphinx builds with book/ext/book_site.py: what is read and what is written.

A three-page Sphinx project is built once, then again after each kind of change: a page that
the build names (``book_reread_docs``: its quiz or catalogue changed) is read again although
its file did not change; a prose edit writes that page (and the root, whose table of contents
holds it) but not the others; a new title writes every page, since the others show it.
"""

from __future__ import annotations

import io
import os
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from sphinx.application import Sphinx
from sphinx.util.docutils import docutils_namespace

from book.ext import book_site

# Its own source_suffix: Sphinx 7.4 merges the extensions' suffixes into the *default* dict,
# so an earlier app in this process (myst_parser's ".md": "markdown") would leak into this one.
CONF = """\
source_suffix = {".rst": "restructuredtext"}
extensions = ["myst_nb", "book.ext.book_site"]
nb_execution_mode = "off"
book_parallel_jobs = 1
html_theme = "basic"
"""
PAGES = {
    "index.md": "# Index\n\n```{toctree}\na\nb\n```\n",
    "a.md": "(a-section)=\n# Title A\n\nSome prose.\n",
    "b.md": "# Title B\n\nSee {ref}`a-section`.\n",
}


class Book:
    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "conf.py").write_text(CONF)
        for name, text in PAGES.items():
            (root / name).write_text(text)

    def edit(self, name: str, old: str, new: str) -> None:
        path = self.root / name
        path.write_text(path.read_text().replace(old, new))

    def build(self, reread: list[str] | None = None) -> tuple[set[str], set[str]]:
        """Build; return the pages read and the pages written."""
        warnings = io.StringIO()
        with docutils_namespace():  # Sphinx's node registrations end with the build
            return self._build(warnings, reread)

    def _build(self, warnings: io.StringIO, reread: list[str] | None) -> tuple[set[str], set[str]]:
        app = Sphinx(
            str(self.root),
            str(self.root),
            str(self.root / "_build" / "html"),
            str(self.root / "_build" / ".doctrees"),
            "html",
            confoverrides={"book_reread_docs": reread or []},
            status=None,
            warning=warnings,
        )
        read: set[str] = set()
        written: set[str] = set()
        app.connect("env-before-read-docs", lambda app, env, docnames: read.update(docnames))
        app.connect(
            "html-page-context",
            lambda app, page, template, context, doctree: (
                written.add(page) if doctree is not None else None
            ),
        )
        app.build()
        assert app.statuscode == 0, warnings.getvalue()
        return read, written

    def page(self, name: str) -> str:
        return (self.root / "_build" / "html" / f"{name}.html").read_text()


@pytest.fixture
def book(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Book:
    monkeypatch.delenv("BOOK_JOBS", raising=False)
    built = Book(tmp_path)
    assert built.build() == ({"index", "a", "b"}, {"index", "a", "b"})
    return built


def test_nothing_changed_reads_nothing(book: Book) -> None:
    assert book.build() == (set(), set())


def test_a_named_page_is_read_again(book: Book) -> None:
    """Its quiz or catalogue changed, which Sphinx may not see by itself."""
    read, written = book.build(reread=["a"])
    assert read == {"a"}
    assert written == {"a", "index"}


def test_a_prose_edit_writes_its_page_alone(book: Book) -> None:
    book.edit("a.md", "Some prose.", "Some other prose.")
    read, written = book.build()
    assert read == {"a"}
    assert written == {"a", "index"}  # the root is always written
    assert "Some other prose." in book.page("a")


@pytest.mark.parametrize(
    ("old", "new"),
    [("# Title A", "# Renamed A"), ("(a-section)=", "(a-part)=\n(a-section)=")],
    ids=["a title", "a label"],
)
def test_a_changed_outline_writes_every_page(book: Book, old: str, new: str) -> None:
    book.edit("a.md", old, new)
    read, written = book.build()
    assert read == {"a"}
    assert written == {"index", "a", "b"}
    if "Renamed" in new:
        assert "Renamed A" in book.page("b")  # b's reference shows a's new title


def test_the_pages_written_are_this_editions_own(tmp_path: Path) -> None:
    """The English build's after-steps leave the Chinese edition published inside its folder
    alone: that edition's own build may be writing it at the same time."""
    site = tmp_path / "html"
    for name in ("new.html", "old.html", "zh_CN/.buildinfo", "zh_CN/new.html", "a/b.html"):
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text("<html></html>")
    os.utime(site / "old.html", (1_000_000, 1_000_000))
    app = SimpleNamespace(outdir=str(site), _book_started=time.time() - 1)
    assert sorted(book_site.written_pages(app)) == [site / "a" / "b.html", site / "new.html"]
