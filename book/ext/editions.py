"""The book's editions in other languages: language links, translated notebooks, UI words.

The English notebooks are the single source. A translated edition is the same Sphinx build
with ``language`` set (``book/tools/build_book.py``): Sphinx replaces each paragraph, heading,
caption, list item and table cell by its translation from the page's catalogue,
``locales/<language>/LC_MESSAGES/<page>.po``. This extension adds what Sphinx does not:

* **Language links.** Under each page's title, a link to the same page in every other
  edition (the English site is the root, a translation lives in ``<language>/`` under it), and
  ``<link rel="alternate" hreflang>`` tags for the same pages in the page's head.
* **Translated notebooks.** ``translate_notebook`` puts a catalogue's translations into a
  notebook's markdown cells and figure captions; code cells and outputs are untouched. A
  translated edition's download button serves such a notebook (``_sources/``, written at
  ``build-finished``), and its slide decks (``slides.py``) are built from them.
* **Explorers.** Their pre-rendered HTML comes from the English execution, shared by every
  edition; a translated page gets their titles (and the figure's alt text) and control names
  from ``locales/<language>/LC_MESSAGES/explorers.po`` (``translate_explorers``).
* **Deck-only cells.** Speaker notes and compact slides are cells the page does not show, so
  Sphinx never extracts them; each is one entry of ``slides.po``, translated whole.
* **UI words.** The words the book's own extensions put on pages (the language links, deck
  and handout links, the quiz's buttons, the handouts' printed notes) are listed in
  ``UI_MESSAGES`` and translated in ``locales/<language>/LC_MESSAGES/book_ui.po``
  (``ui_text``). The theme's own words come from the theme's catalogues.
"""

from __future__ import annotations

import functools
import html
import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
LOCALES = ROOT / "locales"
SOURCE_LANGUAGE = "en"
# Every edition, with the name of its language in that language (the link text).
EDITIONS: dict[str, str] = {"en": "English", "zh_CN": "中文"}
UI_DOMAIN = "book_ui"
EXPLORER_DOMAIN = "explorers"  # the titles and control names of the pre-rendered explorers
SLIDES_DOMAIN = "slides"  # speaker notes and slide-only cells, which the pages do not show

# The words handout.js writes into a page when it is printed (handouts.py passes them).
HANDOUT_JS_WORDS: tuple[str, ...] = (
    "Solutions",
    "Answers",
    "Question {n}",
    "Solution",
    "{solution} at the end of the chapter.",
    "Check yourself: answers",
    "{question}: {answer}",
)
# The notes handout.css prints, by the CSS variable that handouts.py sets in the page's language.
HANDOUT_CSS_WORDS: dict[str, str] = {
    "--handout-explorer-note": (
        "Interactive on the web page: change the controls there to redraw the figure; printed "
        "here with its default settings."
    ),
    "--handout-quiz-note": "The answers, with their reasons, are at the end of the chapter.",
}
# The licences, in every page's footer ({cc} and {mit}: links to the licences) and in the
# handouts' page footer (LICENCE_SHORT); LICENSE in the repository says which is which.
LICENCE_FOOTER = "Text, figures and slides: {cc}. Code: {mit}."
LICENCE_SHORT = "text, figures and slides CC BY 4.0, code MIT"
CC_BY_URL = "https://creativecommons.org/licenses/by/4.0/"
MIT_URL = "https://opensource.org/license/mit"
PAGE_COUNTER = "page {page} of {pages}"  # a handout's page footer ({page}, {pages}: CSS counters)
# The English words that the book's extensions and static files show to readers.
UI_MESSAGES: tuple[str, ...] = (
    # editions.py
    "This page in {language}",
    "Search this book...",
    "Positional Encodings in Transformers",  # the book's title (_config.yml)
    # slides.py
    "Slides of this chapter",
    (
        "(reveal.js: arrow keys to move, <kbd>s</kbd> for the speaker notes, <kbd>f</kbd> for "
        "full screen)"
    ),
    "Answer",
    "continued",
    "The table, continued from the previous slide.",
    "Solutions to the exercises",
    "For lecturers: every exercise with its worked solution, in one PDF",
    "Slides",
    "These slides in {language}",
    "Slides (PDF)",
    "These slides as a PDF, one slide per page",
    # gallery.py
    "Files:",
    "Language",
    "Exercise",
    "Admonition",
    "Attention",
    "Note",
    "Tip",
    "Important",
    "Warning",
    "Hint",
    "Caution",
    "Seealso",
    # handouts.py and handout.js / handout.css
    "Print",
    "Print this page (same layout as its handout)",
    "Handout (PDF)",
    "Printable handout of this page (A4)",
    "Whole book (PDF)",
    "The whole book as one printable PDF (A4)",
    "The whole book",
    "Introduction",
    *HANDOUT_JS_WORDS,
    *HANDOUT_CSS_WORDS.values(),
    PAGE_COUNTER,
    LICENCE_FOOTER,
    LICENCE_SHORT,
    # quiz.py
    "Check",
    "Your answer",
    "Correct.",
    "Not quite.",
    "Please type a number.",
    "Please type a number, or a calculation such as 17/32 or 2*6.",
    "Hint:",
    "Show answer",
    "The answer is {answer}.",
)


def language_of(app: Any) -> str:
    """The edition a Sphinx application builds (``en`` when ``language`` is unset)."""
    return app.config.language or SOURCE_LANGUAGE


TRANSLATIONS = tuple(language for language in EDITIONS if language != SOURCE_LANGUAGE)


@functools.cache
def messages(language: str, domain: str) -> dict[str, str]:
    """The translated entries of catalogue ``domain`` (a page or ``book_ui``…) in ``language``,
    English -> translation; fuzzy and empty ones left out, nothing for English."""
    path = catalogue_path(language, domain)
    if language == SOURCE_LANGUAGE or not path.is_file():
        return {}
    import polib

    return {
        e.msgid: e.msgstr
        for e in polib.pofile(str(path))
        if e.msgstr and not e.fuzzy and not e.obsolete
    }


def ui_text(language: str, message: str) -> str:
    """``message`` (one of ``UI_MESSAGES``) in ``language``; English when not yet translated."""
    if message not in UI_MESSAGES:
        raise KeyError(f"{message!r} is not in editions.UI_MESSAGES: add it there first")
    return messages(language, UI_DOMAIN).get(message, message)


# ---------------------------------------------------------------------------------------------
# translated notebooks


def catalogue_path(language: str, docname: str) -> Path:
    """The catalogue of page ``docname`` (``chapters/03_sinusoidal``) in ``language``."""
    return LOCALES / language / "LC_MESSAGES" / f"{docname}.po"


@functools.cache
def translation_table(language: str, docname: str) -> tuple[tuple[re.Pattern[str], str, str], ...]:
    """The entries of a page's catalogue as (pattern, English, translation), longest first.

    An entry stands for a whole block or table cell as written in Markdown, with its line
    breaks turned into spaces. Its pattern finds it in a cell's source with line breaks and
    indentation wherever the entry has a space, starting where a line's markup prefix ends
    (heading ``#``, list marker, quote ``>``, definition ``:``, a directive's name before its
    title, table bar, indentation) and
    ending at a line end or a table bar, so that a short entry ("Summary") never replaces a
    part of a longer sentence.
    """
    pairs = sorted(
        (
            (msgid, msgstr)
            for msgid, msgstr in messages(language, docname).items()
            if msgid != msgstr
        ),
        key=lambda pair: -len(pair[0]),
    )
    prefix = (
        r"(?m)(^[ \t]*(?:[#>]+[ \t]*|[-*+][ \t]+|\d+[.)][ \t]+|:[ \t]+"
        r"|(?:`{3,}|:{3,})\{[\w-]+\}[ \t]+"  # a directive's title: ```{admonition} Title
        r"|(?:[^\n]*\|)?[ \t]*)?)"
    )
    table = []
    for msgid, msgstr in pairs:
        body = r"\s+".join(re.escape(part) for part in msgid.split())
        table.append((re.compile(prefix + body + r"(?=[ \t]*(?:\||$))"), msgid, msgstr))
    return tuple(table)


def translate_text(text: str, language: str, docname: str, used: set[str] | None = None) -> str:
    """``text`` (Markdown of page ``docname``) with every catalogue entry translated."""
    for pattern, msgid, msgstr in translation_table(language, docname):
        if msgid.split()[0] not in text:
            continue
        text, count = pattern.subn(lambda m, s=msgstr: m.group(1) + s, text)
        if count and used is not None:
            used.add(msgid)
    return text


def deck_only(cell: Any) -> bool:
    """A markdown cell that only a slide deck shows: speaker notes, or a compact slide
    (``remove-cell`` keeps it off the page, so Sphinx's gettext never sees it)."""
    tags = cell.get("metadata", {}).get("tags", [])
    return cell.get("cell_type") == "markdown" and "remove-cell" in tags


def translate_notebook(nb: Any, language: str, docname: str) -> set[str]:
    """Translate ``nb``'s markdown cells, figure captions and Markdown outputs (the tables a
    code cell displays) in place, and its deck-only cells (speaker notes, compact slides)
    from ``slides.po``; return the entries used. Code and other outputs stay."""
    used: set[str] = set()
    slides = messages(language, SLIDES_DOMAIN)
    for cell in nb.cells:
        if deck_only(cell):  # translated whole, from slides.po
            source = cell.source.strip()
            if source in slides:
                cell.source = slides[source]
                used.add(source)
        elif cell.cell_type == "markdown":
            cell.source = translate_text(cell.source, language, docname, used)
        figure = cell.get("metadata", {}).get("mystnb", {}).get("figure", {})
        if "caption" in figure:
            figure["caption"] = translate_text(figure["caption"], language, docname, used)
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "text/markdown" in data:
                text = data["text/markdown"]
                text = "".join(text) if isinstance(text, list) else text
                data["text/markdown"] = translate_text(text, language, docname, used)
            if "text/html" in data:
                text = data["text/html"]
                text = "".join(text) if isinstance(text, list) else text
                data["text/html"] = translate_explorers(text, language)
    nb.metadata["language"] = language
    return used


# ---------------------------------------------------------------------------------------------
# the glossary: the term base of the translations, and the search's dictionary

GLOSSARY_NOTEBOOK = ROOT / "appendix" / "which_encoding.ipynb"


def glossary() -> list[tuple[list[str], list[str]]]:
    """(English terms, Chinese names) of each entry of the appendix's glossary, whose term
    lines read ``attention · 注意力`` or ``position bias · 位置偏差; 偏置†``."""
    import json

    cells = json.loads(GLOSSARY_NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    source = next(s for s in sources if s.startswith("## Glossary"))
    entries = []
    for line in source.splitlines():
        if " · " not in line or line.startswith(":"):
            continue
        english, chinese = line.split(" · ", 1)
        english = re.sub(r"\([^)]*\)", "", english)
        chinese = re.sub(r"\([^)]*\)|†", "", chinese)
        entries.append(
            (
                [t.strip() for t in english.split(",") if t.strip()],
                [t.strip() for t in re.split(r"[,;]", chinese) if t.strip()],
            )
        )
    return entries


def write_search_dictionary(path: Path) -> Path:
    """A jieba user dictionary of the glossary's Chinese names, so that the search index keeps
    them whole (正余弦位置编码) besides their parts (位置, 编码)."""
    words = sorted(
        {w for _, names in glossary() for w in names if re.search(r"[\u4e00-\u9fff]", w)}
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{w.replace(' ', '')} 1000 n\n" for w in words), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# explorers: their pre-rendered HTML is an output of the English execution, shared by every
# edition; its title (also the figure's alt text) and control names are translated here.

_EXPLORER_TITLE = re.compile(r'(<div class="posenc-explorer-title">)(.*?)(</div>)', re.DOTALL)
_EXPLORER_ALT = re.compile(r'(<img class="posenc-explorer-figure" alt=")([^"]*)(")')
_EXPLORER_CANVAS = re.compile(
    r'(<canvas class="posenc-explorer-canvas" role="img" aria-label=")([^"]*)(")'
)
_EXPLORER_LABEL = re.compile(r"(<label[^>]*>)([^<]*?)( <(?:input|select))")
# a control's name (data-name, the drawer's key, stays as it is)
_EXPLORER_ARIA = re.compile(
    r'(data-control="\d+"(?: data-role="\w+" data-name="[^"]*")? aria-label=")([^"]*)(")'
)
_EXPLORER_BUTTON = re.compile(
    r'(<button type="button" data-reshuffle="\d+" data-option="\d+" hidden>)([^<]*)(</button>)'
)
# a live explorer's messages (book.explorers.explorer.LIVE_WORDS, RULE_WORDS) and the rule
# each number box states
_EXPLORER_WORDS = re.compile(r'(data-words=")([^"]*)(")')
_EXPLORER_RULE = re.compile(r'(data-rule=")([^"]*)(")')


def _strings(value: Any) -> list[str]:
    """Every string in a JSON value (a live explorer's data-words)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    return []


def explorer_messages(page_html: str) -> list[str]:
    """The translatable words of the explorers in a piece of HTML: titles, control names, and
    a live explorer's button and messages."""
    if "posenc-explorer" not in page_html:
        return []
    found = [html.unescape(m.group(2)) for m in _EXPLORER_TITLE.finditer(page_html)]
    found += [html.unescape(m.group(2)) for m in _EXPLORER_LABEL.finditer(page_html)]
    found += [html.unescape(m.group(2)) for m in _EXPLORER_BUTTON.finditer(page_html)]
    for m in _EXPLORER_WORDS.finditer(page_html):
        found += _strings(json.loads(html.unescape(m.group(2))))
    return [text for text in dict.fromkeys(found) if text.strip()]


def _rule_pattern(template: str) -> re.Pattern[str]:
    """A rule template of RULE_WORDS as a pattern that reads its numbers back."""
    parts = re.split(r"\{(\w+)\}", template)
    pattern = "".join(
        re.escape(part) if i % 2 == 0 else f"(?P<{part}>[^ ,()]+)" for i, part in enumerate(parts)
    )
    return re.compile(f"^{pattern}$")


def translate_explorers(page_html: str, language: str) -> str:
    """``page_html`` with its explorers' titles, control names, buttons and messages in
    ``language``."""
    table = messages(language, EXPLORER_DOMAIN)
    if not table or "posenc-explorer" not in page_html:
        return page_html

    def swap(match: re.Match[str]) -> str:
        text = html.unescape(match.group(2))
        return match.group(1) + html.escape(table.get(text, text), quote=True) + match.group(3)

    rules: list[tuple[re.Pattern[str], str]] = []

    def words(match: re.Match[str]) -> str:
        found = json.loads(html.unescape(match.group(2)))
        for english in found.get("rules", {}).values():
            rules.append((_rule_pattern(english), table.get(english, english)))

        def translated(value: Any) -> Any:
            if isinstance(value, str):
                return table.get(value, value)
            if isinstance(value, dict):
                return {k: translated(v) for k, v in value.items()}
            return value

        text = json.dumps(translated(found), ensure_ascii=False)
        return match.group(1) + html.escape(text, quote=True) + match.group(3)

    def rule(match: re.Match[str]) -> str:
        text = html.unescape(match.group(2))
        for pattern, template in rules:
            read = pattern.match(text)
            if read:
                text = template.format(**read.groupdict())
                break
        return match.group(1) + html.escape(text, quote=True) + match.group(3)

    page_html = _EXPLORER_WORDS.sub(words, page_html)
    page_html = _EXPLORER_RULE.sub(rule, page_html)
    for pattern in (
        _EXPLORER_TITLE,
        _EXPLORER_ALT,
        _EXPLORER_CANVAS,
        _EXPLORER_LABEL,
        _EXPLORER_ARIA,
        _EXPLORER_BUTTON,
    ):
        page_html = pattern.sub(swap, page_html)
    return page_html


# ---------------------------------------------------------------------------------------------
# Sphinx hooks


def edition_href(pagename: str, here: str, there: str) -> str:
    """The relative link from page ``pagename`` of edition ``here`` to it in edition ``there``."""
    depth = pagename.count("/") + (0 if here == SOURCE_LANGUAGE else 1)
    folder = "" if there == SOURCE_LANGUAGE else there + "/"
    return "../" * depth + folder + pagename + ".html"


def _language_links(
    app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    here = language_of(app)
    links, alternates = [], []
    for there, name in EDITIONS.items():
        href = html.escape(edition_href(pagename, here, there))
        hreflang = there.replace("_", "-")
        alternates.append(f'<link rel="alternate" hreflang="{hreflang}" href="{href}">')
        if there != here:
            title = html.escape(ui_text(here, "This page in {language}").format(language=name))
            links.append(
                f'<a class="reference external" href="{href}" hreflang="{hreflang}" '
                f'lang="{hreflang}" title="{title}">{html.escape(name)}</a>'
            )
    context["metatags"] = context.get("metatags", "") + "\n" + "\n".join(alternates)
    if "body" in context and links:
        paragraph = f'<p class="language-links">{" · ".join(links)}</p>'
        body, count = re.subn(r"(</h1>)", r"\1" + paragraph, context["body"], count=1)
        context["body"] = body if count else paragraph + body


def _translated_sources(app: Any, exception: Exception | None) -> None:
    """A translated edition's download button serves the notebook with translated markdown."""
    language = language_of(app)
    if exception is not None or app.builder.format != "html" or language == SOURCE_LANGUAGE:
        return
    import nbformat

    for docname in sorted(app.env.found_docs):
        source = Path(app.srcdir) / f"{docname}.ipynb"
        target = Path(app.outdir) / "_sources" / f"{docname}.ipynb"
        if source.is_file() and target.parent.is_dir():
            nb = nbformat.read(source, as_version=4)
            translate_notebook(nb, language, docname)
            nbformat.write(nb, target)


def _translated_explorers(app: Any, doctree: Any, docname: str) -> None:
    """A translated page's explorers get their titles and control names in its language."""
    language = language_of(app)
    if language == SOURCE_LANGUAGE:
        return
    from docutils import nodes

    for node in list(doctree.findall(nodes.raw)):
        text = node.astext()
        if "posenc-explorer" in text:
            node.replace_self(nodes.raw("", translate_explorers(text, language), format="html"))


def _detach_message_documents(app: Any, doctree: Any) -> None:
    """Drop the links from translated nodes to the scratch documents they were parsed in.

    Sphinx parses each translation as a document of its own (``publish_msgstr``) and moves its
    nodes into the page; each node keeps a ``_document`` link to its scratch document, which
    holds the whole parsing state. Pickling the page then pickles every one of them: a Chinese
    chapter's doctree grew from 0.7 MB to 25 MB, and reading them back took most of the build.
    A node without the link finds its document through its parent, as usual.
    """
    if language_of(app) == SOURCE_LANGUAGE:
        return
    for node in doctree.findall(include_self=False):
        if getattr(node, "_document", None) is not None:
            node._document = None


def licence_footer(language: str) -> str:
    """The footer's licence line in ``language``, with links to the two licences."""
    links = {
        "cc": f'<a href="{CC_BY_URL}" rel="license">CC BY 4.0</a>',
        "mit": f'<a href="{MIT_URL}" rel="license">MIT</a>',
    }
    return f'<p class="pe-licence">{ui_text(language, LICENCE_FOOTER).format(**links)}</p>'


def _configure_edition(app: Any, config: Any) -> None:
    """Every edition: the licence line in the footer. A translated edition: the search box's
    placeholder (Jupyter Book sets it itself, in English) and, for Chinese, the glossary as
    the search's word list."""
    language = config.language or SOURCE_LANGUAGE
    options = dict(config.html_theme_options)
    options["extra_footer"] = licence_footer(language)
    config.html_theme_options = options
    if language == SOURCE_LANGUAGE:
        return
    options["search_bar_text"] = ui_text(language, "Search this book...")
    config.html_theme_options = options
    if config.html_title in UI_MESSAGES:  # the book's title
        config.html_title = ui_text(language, config.html_title)
    if config.html_search_language == "zh":
        words = write_search_dictionary(Path(app.doctreedir).parent / "search_dictionary.txt")
        config.html_search_options = {**config.html_search_options, "dict": str(words)}


def _translate_toctree_captions(app: Any, doctree: Any) -> None:
    """The parts of the table of contents ("Absolute positions") in the edition's language.

    sphinx-external-toc inserts the toctrees (priority 100) after Sphinx has translated the
    page (priority 20), so their captions, which gettext does extract from the root page, are
    translated here, before the toctree collector reads them.
    """
    language = language_of(app)
    if language == SOURCE_LANGUAGE:
        return
    from sphinx import addnodes

    table = messages(language, app.env.docname)
    for node in doctree.findall(addnodes.toctree):
        caption = node.get("caption")
        if caption and caption in table:
            node["caption"] = node["rawcaption"] = table[caption]


_GLUE_BY_PATH: dict[str, dict[str, Any]] = {}
"""Each notebook's glue data (``{glue:text}`` values), by the notebook's resolved path."""


def _glue_in_translated_paragraphs() -> None:
    """Let ``{glue:text}`key``` work inside a translated paragraph.

    Sphinx parses each translated message as a document of its own, and myst-nb keeps a
    notebook's glue data on the page's document only while it parses the notebook, so in a
    translated paragraph every glue role fails ("No key ... found in glue data for this
    document", myst-nb 1.4.0). This records each notebook's glue data when myst-nb reads it
    (``NotebookClientBase.__enter__``) and lets the lookup fall back to it, by the page being
    read. Patched once per process; the English edition, whose roles find their data
    directly, is unaffected.
    """
    from myst_nb.core.execute import base
    from myst_nb.core.variables import RetrievalError, VariableOutput
    from myst_nb.ext.glue import directives, roles, utils

    if getattr(utils, "_book_glue_patched", False):
        return
    enter = base.NotebookClientBase.__enter__

    def __enter__(self: Any) -> Any:
        client = enter(self)
        _GLUE_BY_PATH[str(Path(self._path).resolve())] = self._glue_data
        return client

    original = utils.retrieve_glue_data

    def retrieve(document: Any, key: str) -> Any:
        try:
            return original(document, key)
        except RetrievalError:
            env = getattr(document.settings, "env", None)
            if env is None:
                raise
            data = _GLUE_BY_PATH.get(str(Path(env.doc2path(env.docname)).resolve()), {})
            if key not in data:
                raise
            return VariableOutput(
                data=data[key]["data"],
                metadata=data[key].get("metadata", {}),
                nb_renderer=None,  # type: ignore[arg-type]  # glue:text reads the data only
                vtype="glue",
            )

    base.NotebookClientBase.__enter__ = __enter__  # type: ignore[method-assign]
    for module in (utils, roles, directives):
        module.retrieve_glue_data = retrieve  # type: ignore[attr-defined]
    utils._book_glue_patched = True  # type: ignore[attr-defined]


def setup(app: Any) -> dict[str, Any]:
    _glue_in_translated_paragraphs()
    app.connect("config-inited", _configure_edition)
    app.connect("doctree-read", _translate_toctree_captions, priority=400)
    app.connect("doctree-read", _detach_message_documents)
    app.connect("doctree-resolved", _translated_explorers)
    app.connect("html-page-context", _language_links)
    app.connect("build-finished", _translated_sources)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
