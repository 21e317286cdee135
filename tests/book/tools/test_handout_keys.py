"""Which handouts a run reprints (book/tools/build_handouts.py): those whose print changed.

A handout's key is its page's article and the files its stylesheets, scripts and images are
read from, and how the script prints; not the rest of the page, nor the script's other code.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from book.tools import build_handouts as tool

PAGES = ("intro", "chapters/01_first", "chapters/02_second")


def _page(docname: str, article: str) -> str:
    up = "../" * docname.count("/")
    return (
        "<html><head>"
        f'<link rel="stylesheet" href="{up}_static/handout.css?v=1">'
        f'<script src="{up}_static/handout.js"></script>'
        f'<script src="{up}searchindex.js"></script>'
        '<style media="print">@page { @top-left { content: "T"; } }</style>'
        "</head><body><nav>sidebar</nav>"
        f'<div id="jb-print-docs-body"><h1>{docname}</h1></div>'
        f'<article class="bd-article">{article}</article><footer>next</footer></body></html>'
    )


ARTICLES = {
    "intro": '<p>Read <a href="chapters/01_first.html">the first</a>.</p>',
    "chapters/01_first": '<p>One.</p><img src="../_images/one.png">',
    "chapters/02_second": '<p>Two.</p><img src="data:image/png;base64,AAAA">',
}


@pytest.fixture
def site(tmp_path: Path) -> Path:
    site = tmp_path / "html"
    for name, text in {
        "index.html": "<html></html>",
        "_static/handout.css": "@media print { nav { display: none; } }",
        "_static/handout.js": "window.bookHandout = {};",
        "_images/one.png": "PNG1",
        "searchindex.js": "Search.setIndex({terms: {one: 1}})",
    }.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)
    for docname, article in ARTICLES.items():
        (site / f"{docname}.html").parent.mkdir(parents=True, exist_ok=True)
        (site / f"{docname}.html").write_text(_page(docname, article))
    # every page printed once, with the keys of now (the prints as chromium made them lie
    # beside the cache; the published ones in pdf/)
    raw = _raw(site)
    raw.mkdir()
    cache = {}
    for docname in PAGES:
        (raw / f"{tool.handout_stem(docname)}.pdf").write_bytes(b"%PDF")
        cache[docname] = {
            "key": tool.page_key(site, docname),
            "title": docname,
            "headings": [],
            "pages": 1,
            "anchors": {},
        }
    tool.cache_path(site).write_text(json.dumps(cache))
    tool._content_digest.cache_clear()
    return site


def _raw(site: Path) -> Path:
    cache = tool.cache_path(site)
    return cache.with_name(cache.name.replace(tool.CACHE_NAME, tool.RAW_FOLDER))


def _reprinted(site: Path) -> list[str]:
    tool._content_digest.cache_clear()  # a new run reads the files again
    return tool.plan_site(site, list(PAGES), force=False).todo


def _edit(site: Path, name: str, old: str, new: str) -> None:
    path = site / name
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_an_unchanged_site_reprints_nothing(site: Path) -> None:
    assert _reprinted(site) == []
    assert tool.plan_site(site, list(PAGES), force=True).todo == list(PAGES)


def test_a_page_written_again_with_the_same_article_keeps_its_handout(site: Path) -> None:
    _edit(site, "chapters/01_first.html", "sidebar", "another sidebar")
    _edit(site, "chapters/01_first.html", "next", "next chapter")
    assert _reprinted(site) == []


def test_an_edited_page_alone_is_reprinted(site: Path) -> None:
    _edit(site, "chapters/02_second.html", "Two.", "Two, edited.")
    assert _reprinted(site) == ["chapters/02_second"]


def test_a_changed_image_reprints_the_page_that_shows_it(site: Path) -> None:
    (site / "_images" / "one.png").write_text("PNG2")  # same name, new content
    assert _reprinted(site) == ["chapters/01_first"]


def test_a_linked_page_is_not_part_of_the_key(site: Path) -> None:
    """The intro links to chapter 1; a new chapter 1 does not reprint the intro."""
    _edit(site, "chapters/01_first.html", "One.", "One, edited.")
    assert _reprinted(site) == ["chapters/01_first"]


@pytest.mark.parametrize("asset", ["_static/handout.css", "_static/handout.js"])
def test_a_changed_stylesheet_or_script_reprints_every_page(site: Path, asset: str) -> None:
    (site / asset).write_text((site / asset).read_text() + "\n/* changed */")
    assert _reprinted(site) == list(PAGES)


def test_a_new_search_index_reprints_nothing(site: Path) -> None:
    """Every page loads it and any page's text changes it; none of it prints."""
    (site / "searchindex.js").write_text("Search.setIndex({terms: {one: 1, two: 2}})")
    assert _reprinted(site) == []


def test_a_changed_print_style_reprints_that_page(site: Path) -> None:
    _edit(site, "intro.html", 'content: "T"', 'content: "Title"')
    assert _reprinted(site) == ["intro"]


def test_a_missing_handout_is_printed(site: Path) -> None:
    (_raw(site) / "01_first.pdf").unlink()
    assert _reprinted(site) == ["chapters/01_first"]


def test_a_changed_way_of_printing_reprints_every_page(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The script's print settings are part of every key (but not, say, its docstring: the
    key is not a digest of the script's file, whose every edit would reprint the book)."""
    settings = tool.print_settings()
    monkeypatch.setattr(tool, "PDF_OPTIONS", {**tool.PDF_OPTIONS, "scale": 0.9})
    tool.print_settings.cache_clear()
    try:
        assert tool.print_settings() != settings
        assert _reprinted(site) == list(PAGES)
    finally:
        tool.print_settings.cache_clear()
