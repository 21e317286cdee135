"""The search's Sphinx side (``book/ext/search.py``): its script becomes the search's scorer,
inlined by Sphinx into ``language_data.js``, and its stylesheet reaches every page.

What the script does in a browser is checked on the built book by ``tests/browser/test_search.py``.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from sphinx.cmd.build import build_main

from book.ext import search


def test_the_script_is_the_scorer_and_only_the_stylesheet_is_copied() -> None:
    config = SimpleNamespace(html_search_scorer="", html_static_path=["_static"])
    search._configure(SimpleNamespace(), config)
    assert Path(config.html_search_scorer) == search.SCORER
    assert config.html_static_path == ["_static", str(search.STYLESHEET)]
    assert search.SCORER.is_file() and search.STYLESHEET.is_file()


def test_a_scorer_set_in_the_configuration_is_kept() -> None:
    config = SimpleNamespace(html_search_scorer="my_scorer.js", html_static_path=[])
    search._configure(SimpleNamespace(), config)
    assert config.html_search_scorer == "my_scorer.js"


def test_a_built_site_carries_the_search(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    (source / "conf.py").write_text(
        'source_suffix = {".rst": "restructuredtext"}\nextensions = ["book.ext.search"]\n',
        encoding="utf-8",
    )
    (source / "index.rst").write_text(
        "Rotary\n======\n\nQueries turn by :math:`m\\theta_i`.\n", encoding="utf-8"
    )
    out = tmp_path / "html"
    assert build_main(["-q", "-W", "-b", "html", str(source), str(out)]) == 0
    language_data = (out / "_static" / "language_data.js").read_text(encoding="utf-8")
    # after Sphinx's own words, the book's script: a Scorer with a score, and the excerpts
    assert "var Scorer = (function ()" in language_data
    assert "Search.makeSearchSummary =" in language_data
    assert (out / "_static" / "search.css").is_file()
    assert not (out / "_static" / "search.js").exists()  # inlined, not served twice
    for page in ("index.html", "search.html"):
        assert "_static/search.css" in (out / page).read_text(encoding="utf-8")
