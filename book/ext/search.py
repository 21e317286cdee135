"""The site's search, in both editions: ranking, Chinese queries, excerpts and the search box.

Sphinx's search (``searchtools.js``) runs in the reader's browser over ``searchindex.js``. This
extension changes how it ranks, splits and shows, with one script and one stylesheet from
``search_static/``:

* **Ranking.** Sphinx scores a page 15 when a word of the query is in any of its titles (its
  own or a section's), 5 when it is in its text, and breaks ties alphabetically by title: "window"
  put chapter 12 ("12. Positions on grids…", one heading with a window) above chapter 7 (Swin's
  windows, three headings). ``search.js`` is set as ``html_search_scorer`` (Sphinx inlines it
  into ``language_data.js``, loaded right after ``searchtools.js``), and its ``Scorer.score``
  ranks by where each word stands: in the page's title, in several of its headings, or only in
  its text; the query as written ("length generalisation") in a title or heading counts more.
  Headings found on three pages or more ("Learning objectives", "Summary") do not count, a
  section is listed just below its page, the page's own title found among the section titles is
  not listed twice, and equal scores keep the book's order.
* **Chinese queries.** The Chinese index holds jieba's words (``editions.py`` adds the glossary
  to its dictionary); the query is not split by jieba, so a query the index lacks as one word
  ("长度泛化", chapter 10's title) found nothing. ``search.js`` splits such a run of Han
  characters into the index's words, longest first ("长度", "泛化").
* **Excerpts.** Sphinx shows 240 characters of the ``[role=main]`` text of each page, starting
  120 characters before the first place where a search term (stemmed) occurs. A stem that is not
  a word ("rotary" is stemmed "rotari") is found nowhere, the start becomes ``NaN``, and the
  excerpt is the first text of ``[role=main]``: the article header's download menu, whose
  first item reads ".ipynb" (hence "....ipynb" for every result). Elsewhere it showed the
  in-page table of contents, code, and the raw TeX of inline math (``\\(…\\)``), which MathJax
  only typesets on the page itself. ``search.js`` replaces ``Search.makeSearchSummary``: the
  excerpt is the sentence of the article's prose (paragraphs, list items, captions; not code,
  outputs, explorers, display equations or the header) that matches the query best, its inline
  math as short plain text (``\\(q_i^\\top k_j\\)`` as "qᵢᵀ kⱼ"), cut to 240 characters around the
  match; the same plain math is used in the titles of section results.
* **The search box.** The theme places the magnifier of the search boxes (the search page's and
  the Ctrl+K dialog's) with ``position: absolute`` over the input's left edge, expecting
  ``fontawesome.js`` to replace it by an ``<svg>`` that is laid out in the form's row; the book
  drops ``fontawesome.js`` (``book_site.py``), so the typed text ran under the icon.
  ``search.css`` puts the icon back in the row.

The summary that Sphinx fetches is the page's HTML (``DOCUMENTATION_OPTIONS.FILE_SUFFIX``), not
``_sources/`` (``SOURCELINK_SUFFIX`` plays no part in Sphinx 7.4's search).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

STATIC = Path(__file__).parent / "search_static"
SCORER = STATIC / "search.js"  # inlined by Sphinx into _static/language_data.js
STYLESHEET = STATIC / "search.css"


def _configure(app: Sphinx, config: Any) -> None:
    if not config.html_search_scorer:
        config.html_search_scorer = str(SCORER)
    config.html_static_path.append(str(STYLESHEET))  # the stylesheet alone: the script is inlined


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _configure)
    app.add_css_file("search.css")
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
