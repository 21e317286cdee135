"""Printable handouts: the print stylesheet of the book's pages and links to their PDFs.

``book/tools/build_handouts.py`` prints every page of ``_toc.yml`` with chromium into
``_build/html/pdf/<stem>.pdf`` (``<stem>`` is the file's name without folder and suffix) and
joins them into ``_build/html/pdf/book.pdf``. This extension makes the pages print well, for
that script and for a reader who prints a page from the browser:

* ``handouts_static/handout.css`` (``media="print"``) drops the sidebars, header buttons and
  navigation, sets A4 pages with the book's title and page numbers in the margins, keeps
  figures, explorers, equations and code cells whole on a page, wraps long code lines, and
  says under each explorer that the web page is interactive.
* ``handouts_static/handout.js`` runs before printing (``beforeprint``, or
  ``bookHandout.prepare()`` from the script): it sets every explorer back to its default
  state, moves the solutions of the exercises to a "Solutions" section at the end of the
  chapter (before the references) with a link from each exercise, adds the answers of the
  self-check quiz there, and undoes all of it after printing.
* Each page gets its title (with its chapter number, as in the page's heading) in the top
  margin of its printed pages and the book's title in the bottom margin: a small inline print
  style, as CSS cannot read the page's heading into a page margin.
* The theme's download menu offers "Handout (PDF)" (``../pdf/<stem>.pdf``, relative) and
  "Whole book (PDF)" (``pdf/book.pdf``); its ".pdf" entry, which opens the browser's print
  dialog, is renamed "Print".
* A page holding the placeholder ``<div class="handout-list"></div>`` (the intro) gets a list
  of every handout, the whole book first, in reading order, and a link to the lecturers'
  ``pdf/solutions.pdf`` (every exercise's solution, joined by build_handouts.py).
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

from book.ext.editions import (
    HANDOUT_CSS_WORDS,
    HANDOUT_JS_WORDS,
    LICENCE_SHORT,
    PAGE_COUNTER,
    language_of,
    translate_text,
    ui_text,
)

STATIC = Path(__file__).parent / "handouts_static"
PDF_FOLDER = "pdf"  # under the site's root; the names build_handouts.py prints to
BOOK_STEM = "book"
SOLUTIONS_STEM = "solutions"  # the lecturers' PDF of every solution


def handout_stem(docname: str) -> str:
    """The file stem of a page's handout: ``chapters/03_sinusoidal`` -> ``03_sinusoidal``."""
    return docname.rsplit("/", 1)[-1]


def css_string(text: str) -> str:
    """``text`` as a double-quoted CSS string, safe inside a ``<style>`` element.

    Backslashes and quotes are escaped, line breaks become spaces, and ``<`` is written as the
    CSS escape ``\\3c`` so that the string can never close the element.
    """
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("<", "\\3c ")
    return '"' + re.sub(r"[\r\n]+", " ", escaped) + '"'


def css_counter(text: str) -> str:
    """``text`` as CSS ``content`` with ``{page}`` and ``{pages}`` as the page counters:
    ``"page " counter(page) " of " counter(pages)`` for ``"page {page} of {pages}"``."""
    return " ".join(
        css_string(part) if i % 2 == 0 else f"counter({part})"
        for i, part in enumerate(re.split(r"\{(page|pages)\}", text))
        if part
    )


def running_title(title: str) -> str:
    """A page's HTML title as plain text (Sphinx puts the chapter's number in a ``<span>``)."""
    return html.unescape(re.sub(r"<[^>]+>", "", title)).strip()


def reading_order(app: Sphinx) -> list[str]:
    """Every document of the book in reading order (the root, then each "next" page)."""
    relations = app.env.collect_relations()
    order = [app.config.root_doc]
    while len(order) <= len(relations):
        following = relations.get(order[-1], [None, None, None])[2]
        if following is None or following in order:
            break
        order.append(following)
    return order


def numbered_title(app: Sphinx, docname: str) -> str:
    """A document's title with its chapter number, as the sidebar shows it: "3. The ..."."""
    title = app.env.titles[docname].astext() if docname in app.env.titles else docname
    numbers = app.env.toc_secnumbers.get(docname, {}).get("")
    return (".".join(str(n) for n in numbers) + ". " + title) if numbers else title


# The line before each chapter's quiz, which handout.js hides on paper (English text; a
# translated page has its catalogue's translation of it).
PICK_LINE = (
    "Pick an answer (or type a number) to see whether it is right and why; nothing is sent "
    "anywhere."
)

HANDOUT_LIST = '<div class="handout-list"></div>'


def _fill_handout_list(app: Sphinx, pagename: str, context: dict[str, Any]) -> None:
    body = context.get("body", "")
    if HANDOUT_LIST not in body:
        return
    pathto = context["pathto"]
    language = language_of(app)
    links = [(f"{PDF_FOLDER}/{BOOK_STEM}.pdf", ui_text(language, "The whole book"))] + [
        (
            f"{PDF_FOLDER}/{handout_stem(doc)}.pdf",
            ui_text(language, "Introduction")
            if doc == app.config.root_doc
            else numbered_title(app, doc),
        )
        for doc in reading_order(app)
    ]
    items = "".join(
        f'<li><a class="reference external" href="{html.escape(pathto(url, 1))}">'
        f"{html.escape(text)}</a></li>"
        for url, text in links
    )
    solutions = (
        f'<p class="handout-solutions-link"><a class="reference external" '
        f'href="{html.escape(pathto(f"{PDF_FOLDER}/{SOLUTIONS_STEM}.pdf", 1))}">'
        f"{html.escape(ui_text(language, 'For lecturers: every exercise with its worked solution, in one PDF'))}"
        "</a></p>"
    )
    context["body"] = body.replace(
        HANDOUT_LIST, f'<ul class="handout-list">{items}</ul>{solutions}'
    )


def _add_static(app: Sphinx, config: Any) -> None:
    config.html_static_path.append(str(STATIC))


def _page_context(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    if doctree is None or pagename not in app.env.all_docs:
        return
    title = running_title(context.get("title", ""))
    book = app.config.html_title or app.config.project
    language = language_of(app)
    footer = f"{book} · {ui_text(language, LICENCE_SHORT)}"  # the printed page's foot
    variables = " ".join(
        f"{name}: {css_string(ui_text(language, english))};"
        for name, english in HANDOUT_CSS_WORDS.items()
    )
    style = (
        f'<style media="print">@page {{ @top-left {{ content: {css_string(title)}; }} '
        f"@bottom-left {{ content: {css_string(footer)}; }} "
        f"@bottom-right {{ content: {css_counter(ui_text(language, PAGE_COUNTER))}; }} }} "
        f":root {{ {variables} }}</style>"
    )
    # handout.js's words, and the page's "Pick an answer" line as this edition writes it
    words = {key: ui_text(language, key) for key in HANDOUT_JS_WORDS}
    words["pick"] = translate_text(PICK_LINE, language, pagename)
    script = f"<script>window.bookHandoutWords = {json.dumps(words, ensure_ascii=False)};</script>"
    context["metatags"] = context.get("metatags", "") + "\n" + style + "\n" + script
    _fill_handout_list(app, pagename, context)
    pathto = context["pathto"]
    for group in context.get("header_buttons", []):
        if group.get("label") != "download-buttons":
            continue
        for button in group["buttons"]:
            if button.get("label") == "download-pdf-button":  # the theme's window.print()
                button["text"] = ui_text(language, "Print")
                button["tooltip"] = ui_text(
                    language, "Print this page (same layout as its handout)"
                )
                button["icon"] = "fas fa-print"
        group["buttons"].extend(
            [
                {
                    "type": "link",
                    "url": pathto(f"{PDF_FOLDER}/{handout_stem(pagename)}.pdf", 1),
                    "text": ui_text(language, "Handout (PDF)"),
                    "tooltip": ui_text(language, "Printable handout of this page (A4)"),
                    "icon": "fas fa-file-pdf",
                    "label": "download-handout-button",
                },
                {
                    "type": "link",
                    "url": pathto(f"{PDF_FOLDER}/{BOOK_STEM}.pdf", 1),
                    "text": ui_text(language, "Whole book (PDF)"),
                    "tooltip": ui_text(language, "The whole book as one printable PDF (A4)"),
                    "icon": "fas fa-book",
                    "label": "download-book-pdf-button",
                },
            ]
        )


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _add_static)
    app.add_css_file("handout.css", media="print")
    app.add_js_file("handout.js", defer="defer")
    # after sphinx-book-theme's add_header_buttons (priority 501) has built the download menu
    app.connect("html-page-context", _page_context, priority=600)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
