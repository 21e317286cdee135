"""The pure parts of the handouts: book/tools/build_handouts.py and book/ext/handouts.py.

The PDFs themselves are checked after the build, in tests/browser/test_handouts.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from book.ext import handouts as ext
from book.tools import build_handouts as tool


def test_every_toc_page_has_its_own_stem() -> None:
    pages = tool.toc_pages()
    assert pages[0] == "intro"
    stems = [tool.handout_stem(p) for p in pages]
    assert len(set(stems)) == len(stems), "two pages would print to the same PDF"
    assert tool.BOOK_STEM not in stems
    assert stems == [ext.handout_stem(p) for p in pages]
    assert (tool.PDF_FOLDER, tool.BOOK_STEM) == (ext.PDF_FOLDER, ext.BOOK_STEM)


@pytest.mark.parametrize(
    ("text", "css"),
    [
        ("3. The sinusoidal encoding", '"3. The sinusoidal encoding"'),
        ('Say "hi"', '"Say \\"hi\\""'),
        ("a\\b", '"a\\\\b"'),
        ("two\nlines", '"two lines"'),
        ("</style><script>", '"\\3c /style>\\3c script>"'),
    ],
)
def test_css_string_escapes_what_would_break_the_style(text: str, css: str) -> None:
    assert ext.css_string(text) == css


def test_running_title_is_plain_text() -> None:
    title = '<span class="section-number">7. </span>Swin&#8217;s 2-D relative position bias'
    assert ext.running_title(title) == "7. Swin\u2019s 2-D relative position bias"


def test_heading_titles_repairs_chromium_bookmarks() -> None:
    headings = [
        ("The sinusoidal encoding", "The sinusoidal encoding"),
        ("Wavelengths from  to base", "Wavelengths from 2π to 2π⋅base"),
        ("Explore", "Explore"),
        ("What the papers claim, and what this toy can show", "What the papers claim, and …"),
        ("Solutions", "Solutions"),
    ]
    chromium = [
        "The sinusoidal encoding",
        "Wavelengths from  to base",  # the math is missing
        "ExploreExplore",  # a heading that starts a page, spelled twice
        "What the papers claim, and what this toy canshow",  # wrapped without a space
        "Not a heading of the page",
        "Solutions",
    ]
    assert tool.heading_titles(chromium, headings) == [
        "The sinusoidal encoding",
        "Wavelengths from 2π to 2π⋅base",
        "Explore",
        "What the papers claim, and …",
        "Not a heading of the page",
        "Solutions",
    ]


def test_page_key_ignores_what_does_not_print(tmp_path: Path) -> None:
    def page(widget_state: str, sidebar: str, article: str) -> str:
        return (
            '<html><head><link rel="stylesheet" href="_static/handout.css?v=1">'
            f'<script type="application/vnd.jupyter.widget-state+json">{widget_state}</script>'
            f"</head><body><nav>{sidebar}</nav>"
            f'<div id="jb-print-docs-body"><h1>T</h1></div><article class="bd-article">{article}'
            "</article><footer>next</footer></body></html>"
        )

    def key(text: str) -> str:
        (tmp_path / "p.html").write_text(text)
        return tool.page_key(tmp_path, "p")

    base = key(page("{id: 1}", "1 2 3", "<p>text</p>"))
    assert key(page("{id: 2}", "1 2 3 4", "<p>text</p>")) == base
    assert key(page("{id: 1}", "1 2 3", "<p>other text</p>")) != base
    restyled = page("{id: 1}", "1 2 3", "<p>text</p>").replace("?v=1", "?v=2")
    assert key(restyled) != base
