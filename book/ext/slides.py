"""A reveal.js slide deck per chapter, built from the executed notebooks, fully offline.

Which cells make the deck is said by Jupyter's standard cell metadata
``metadata.slideshow.slide_type`` (``slide``, ``subslide``, ``fragment``, ``-``, ``skip``,
``notes``), so JupyterLab/RISE shows the same deck live; CONTRIBUTING.md ("Slides") has the
convention. Speaker notes are markdown cells with ``slide_type: notes`` and the myst-nb tag
``remove-cell``, which keeps them off the book page.

At the end of an HTML build (``build-finished``) every notebook of the book that has slides is
read from ``_build/jupyter_execute/`` (myst-nb writes the executed copies there), its MyST is
turned into what nbconvert's Markdown understands (numbered display math, roles as linked
text, admonitions as boxes, the ``{quiz}`` as two questions with click-to-reveal answers,
numbers read from the chapter's built page), and nbconvert's ``SlidesExporter`` writes
``slides/<stem>.slides.html`` with the template in ``slides_template/``. reveal.js 5.2.0 comes
from the pinned ``sphinx-revealjs`` wheel and is copied to ``_static/revealjs/``; the math is
typeset by the site's own MathJax 3 (``_static/mathjax``, see ``book_site.py``). No CDN, no
require.js, jQuery, mermaid or widget manager. Explorers show their pre-rendered
``text/html`` output, which needs no kernel.

Each chapter page gets a link to its deck under its title, and a page holding the placeholder
``<div class="deck-list"></div>`` (the intro) a list of every deck (``html-page-context``).

Rebuild the decks of the last build without a new build::

    python -m book slides _build      # reads _build/jupyter_execute, writes _build/html/slides
    python -m book slides _build/zh_CN . zh_CN    # the Chinese edition's decks
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from book.ext.editions import (
    EDITIONS,
    SOURCE_LANGUAGE,
    edition_href,
    language_of,
    translate_notebook,
    translate_text,
    ui_text,
)
from book.ext.handouts import PDF_FOLDER
from book.ext.quiz import choice_order  # the page's order of a question's choices
from book.ext.reader import figure_alt, first_sentence, plain_markdown

SLIDE_KEY = "slideshow"
SLIDE_TYPES = ("slide", "subslide", "fragment", "-", "skip", "notes")
TEMPLATE_DIR = Path(__file__).parent / "slides_template"
TEMPLATE_NAME = "book_deck"
REVEAL_DISTRIBUTION = "sphinx-revealjs"
REVEAL_FILES = (
    "LICENSE",
    "dist/reveal.js",
    "dist/reveal.css",
    "dist/theme/white.css",
    "dist/theme/fonts/source-sans-pro",
    "plugin/notes/notes.js",
)
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
QUIZ_QUESTIONS: int | None = None  # questions of a chapter's quiz shown in its deck (all)
TABLE_ROWS = 8  # a longer table printed by a chapter goes on several slides


# ---------------------------------------------------------------------------------------------
# which notebooks have a deck


def slide_type(cell: dict[str, Any]) -> str | None:
    """The cell's ``slideshow.slide_type``, or None when it has none."""
    return (cell.get("metadata", {}).get(SLIDE_KEY) or {}).get("slide_type")


def has_slides(notebook: dict[str, Any]) -> bool:
    """True when some cell starts a slide: the notebook gets a deck."""
    return any(slide_type(c) in ("slide", "subslide") for c in notebook.get("cells", []))


def deck_name(stem: str) -> str:
    """File name of the deck of the notebook ``stem`` (``03_sinusoidal.slides.html``)."""
    return f"{stem}.slides.html"


def deck_pdf(stem: str) -> str:
    """File name of the printed deck of the notebook ``stem`` (``03_sinusoidal.slides.pdf``),
    in the site's ``pdf/``: ``book/tools/build_handouts.py`` prints every deck with
    ``?print-pdf``, one slide per page."""
    return f"{stem}.slides.pdf"


# ---------------------------------------------------------------------------------------------
# numbers and titles from the built page


_TAGS = re.compile(r"<[^>]+>")


def _text(fragment: str) -> str:
    return html.unescape(_TAGS.sub("", fragment)).strip()


def page_numbers(page_html: str) -> dict[str, str]:
    """Label -> the text the page shows for it ("(3.2)", "Fig. 3.1", "Exercise 3.1")."""
    found: dict[str, str] = {}
    for label, number in re.findall(
        r'id="equation-([^"]+)">\s*<span class="eqno">(\([^)<]*\))', page_html
    ):
        found[label] = number
    for match in re.finditer(r'<(?:figure|div)[^>]*\bid="([^"]+)"', page_html):
        tail = page_html[match.end() : match.end() + 4000]
        number = re.search(r'class="caption-number">([^<]*)<', tail)
        nxt = re.search(r'\bid="', tail)
        if number and (nxt is None or nxt.start() > number.start() or "fig" in match.group(1)):
            found.setdefault(match.group(1), number.group(1).strip().rstrip("."))
    # references the page itself resolved: href="#label" -> shown text
    for target, inner in re.findall(
        r'<a class="reference internal" href="#([^"]+)"[^>]*>(.*?)</a>', page_html, re.DOTALL
    ):
        label = target.removeprefix("equation-")
        found.setdefault(label, _text(inner))
    return found


def page_title(path: Path) -> str:
    """The first ``# `` heading of a notebook or markdown file (its page title)."""
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
        text = "\n".join(
            "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for c in cells
            if c["cell_type"] == "markdown"
        )
    else:
        text = path.read_text(encoding="utf-8")
    heading = re.search(r"^# (.+)$", text, re.MULTILINE)
    return heading.group(1).strip() if heading else path.stem


# ---------------------------------------------------------------------------------------------
# citations


def load_citations(bibfile: Path) -> dict[str, tuple[str, str]]:
    """Key -> (authors as cited, year) from a BibTeX file."""
    from pybtex.database import parse_file

    cites: dict[str, tuple[str, str]] = {}
    if not bibfile.is_file():
        return cites
    for key, entry in parse_file(str(bibfile)).entries.items():
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        last = [" ".join(p.last_names).replace("{", "").replace("}", "") for p in people]
        if not last:
            who = entry.fields.get("institution", key).replace("{", "").replace("}", "")
        elif len(last) == 1:
            who = last[0]
        elif len(last) == 2:
            who = f"{last[0]} and {last[1]}"
        else:
            who = f"{last[0]} et al."
        cites[key] = (who, entry.fields.get("year", "n.d."))
    return cites


# ---------------------------------------------------------------------------------------------
# MyST -> nbconvert markdown


class Context:
    """What converting one chapter's MyST needs: its page, its numbers, citations, quizzes."""

    def __init__(
        self,
        srcdir: Path,
        docname: str,
        numbers: dict[str, str],
        citations: dict[str, tuple[str, str]],
        title: str = "",
        language: str = "en",
    ) -> None:
        self.title = title
        self.language = language
        self.srcdir = srcdir
        self.docname = docname
        self.numbers = numbers
        self.citations = citations
        self.page = "../" + docname + ".html"  # the chapter page, seen from slides/

    def link(self, text: str, anchor: str = "") -> str:
        href = self.page + (f"#{anchor}" if anchor else "")
        return f"[{text}]({href})"


_ROLE = re.compile(r"\{([a-z]+(?::[a-z]+)?)\}`([^`]*)`")
_EXPLICIT = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.DOTALL)


def _convert_role(ctx: Context, name: str, body: str) -> str:
    explicit = _EXPLICIT.match(body)
    text, target = (explicit.group(1), explicit.group(2)) if explicit else (None, body.strip())
    if name == "eq":
        return ctx.link(ctx.numbers.get(target, f"({target})"), f"equation-{target}")
    if name == "numref":
        shown = ctx.numbers.get(target, target).replace("Fig.", "Figure")
        if text and "%s" in text:
            number = re.sub(r"^\D*", "", shown)
            shown = text.replace("%s", number)
        elif text:
            shown = text
        return ctx.link(shown, target)
    if name == "ref":
        return ctx.link(text or ctx.numbers.get(target, target), target)
    if name == "doc":
        path = os.path.normpath(os.path.join(os.path.dirname(ctx.docname), target))
        if text is None:
            source = next(
                (
                    ctx.srcdir / f"{path}{ext}"
                    for ext in (".ipynb", ".md")
                    if (ctx.srcdir / f"{path}{ext}").is_file()
                ),
                None,
            )
            text = page_title(source) if source else Path(path).name
        return f"[{text}](../{path}.html)"
    if name.startswith(("footcite", "cite")):
        parts = []
        for key in (k.strip() for k in target.split(",")):
            who, year = ctx.citations.get(key, (key, ""))
            parts.append((who, year))
        if name.endswith(":t"):
            return "; ".join(f"{who} ({year})" for who, year in parts)
        return "(" + "; ".join(f"{who}, {year}" for who, year in parts) + ")"
    return text or target  # any other role: its text


def convert_roles(ctx: Context, text: str) -> str:
    """Every ``{role}`target``` as linked plain text."""
    return _ROLE.sub(lambda m: _convert_role(ctx, m.group(1), m.group(2)), text)


_LABELLED_MATH = re.compile(r"\$\$(.+?)\$\$[ \t]*\(([A-Za-z0-9_:.-]+)\)", re.DOTALL)


def convert_math(ctx: Context, text: str) -> str:
    """``$$ … $$ (label)`` as display math carrying the page's number as a ``\\tag``."""

    def one(m: re.Match[str]) -> str:
        number = ctx.numbers.get(m.group(2), "").strip("()")
        tag = f"\n\\tag{{{number}}}" if number else ""
        return f"$$\n{m.group(1).strip()}{tag}\n$$"

    return _LABELLED_MATH.sub(one, text)


_FENCE = re.compile(
    r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[\w:-]+)\}[ \t]*(?P<arg>[^\n]*)\n(?P<body>.*?)^(?P=fence)[ \t]*$",
    re.DOTALL | re.MULTILINE,
)
_BOXES = (
    "admonition",
    "note",
    "tip",
    "hint",
    "important",
    "warning",
    "caution",
    "attention",
    "seealso",
    "exercise",
)


def _split_options(body: str) -> tuple[dict[str, str], str]:
    options: dict[str, str] = {}
    lines = body.split("\n")
    while lines and re.match(r"^:[\w-]+:", lines[0]):
        key, _, value = lines.pop(0)[1:].partition(":")
        options[key] = value.strip()
    return options, "\n".join(lines).strip()


def _inline(text: str) -> str:
    """Tiny inline Markdown (code, bold, italics) to HTML, math left for MathJax."""
    out = html.escape(text.strip(), quote=False)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    out = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", out)
    return re.sub(r"(?<![\w*$\\])\*([^*\n]+)\*(?![\w*])", r"<em>\1</em>", out)


def quiz_inline(ctx: Context, text: str) -> str:
    """A quiz's text as the deck's HTML block shows it: roles as links (``convert_roles``),
    then :func:`_inline`'s Markdown, the roles' Markdown links as ``<a>``."""
    out = _inline(convert_roles(ctx, text))
    return re.sub(r"\[([^\]\n]+)\]\(([^)\s]+)\)", r'<a href="\2">\1</a>', out)


def quiz_questions(ctx: Context, stem: str) -> list[dict[str, Any]]:
    """The questions of quiz ``stem`` in the deck's language (the first :data:`QUIZ_QUESTIONS`,
    all when it is None)."""
    path = ctx.srcdir / "quizzes" / ctx.language / f"{stem}.yaml"
    if not path.is_file():
        return []
    import yaml

    return yaml.safe_load(path.read_text(encoding="utf-8"))["questions"][:QUIZ_QUESTIONS]


def question_html(ctx: Context, question: dict[str, Any], number: int) -> str:
    """One question as the deck shows it: its choices as buttons that say whether they are
    right (``deck_quiz`` in the template), in the order the chapter page shows them
    (``quiz.choice_order``), and the answer with its reason behind a click."""
    q = question
    head = (
        f'<div class="deck-quiz" data-question="{html.escape(q["id"], quote=True)}" '
        f'data-right="{html.escape(ui_text(ctx.language, "Correct."), quote=True)}" '
        f'data-wrong="{html.escape(ui_text(ctx.language, "Not quite."), quote=True)}">'
        f'<p class="deck-question-text"><strong>Q{number}.</strong> {quiz_inline(ctx, q["question"])}</p>'
    )
    parts = [head]
    letters = "ABCDEF"
    if q["type"] == "choice":
        shown = [q["choices"][j] for j in choice_order(q["id"], len(q["choices"]))]
        parts.append('<ol class="deck-choices">')
        parts.extend(
            f'<li><button type="button" class="deck-choice" data-correct='
            f'"{str(bool(c.get("correct"))).lower()}"><span class="deck-letter">{letters[k]}.'
            f"</span> {quiz_inline(ctx, c['text'])}</button></li>"
            for k, c in enumerate(shown)
        )
        parts.append("</ol>")
        right = next(j for j, c in enumerate(shown) if c.get("correct"))
        answer = f"{letters[right]}. {quiz_inline(ctx, shown[right]['why'])}"
    else:
        answer = f"{html.escape(str(q['answer']))}. {quiz_inline(ctx, q['why'])}"
    summary = ui_text(ctx.language, "Answer")
    parts.append(
        f'<details class="deck-answer"><summary>{summary}</summary><p>{answer}</p></details></div>'
    )
    return "".join(parts)  # one HTML block: no blank line inside


def quiz_html(ctx: Context, stem: str) -> str:
    """The first question of quiz ``stem`` (the deck gives each further one a slide of its
    own, :func:`quiz_slides`)."""
    questions = quiz_questions(ctx, stem)
    if not questions:
        return f"*(the self-check questions are on the [chapter page]({ctx.page}))*"
    return question_html(ctx, questions[0], 1)


_QUIZ = re.compile(r"^`{3,}\{quiz\}[ \t]*(\S+)", re.MULTILINE)


def quiz_slides(ctx: Context, stem: str, first: str) -> tuple[str, list[Any]]:
    """The quiz slide ``first`` (its converted source, showing question 1) titled "(1/n)", and
    a slide with its notes (the answer and why) for each further question of quiz ``stem``."""
    import nbformat

    questions = quiz_questions(ctx, stem)
    heading = re.match(r"^(#{1,3}) (.+)$", first, re.MULTILINE)
    if len(questions) < 2 or heading is None:
        return first, []
    level, title = heading.group(1), heading.group(2).strip()
    n = len(questions)
    first = first.replace(heading.group(0), f"{level} {title} (1/{n})", 1)
    extra = []
    for k, question in enumerate(questions[1:], 2):
        extra.append(
            nbformat.v4.new_markdown_cell(
                f"{level} {title} ({k}/{n})\n\n{question_html(ctx, question, k)}",
                metadata={SLIDE_KEY: {"slide_type": "slide"}},
            )
        )
        if question["type"] == "choice":
            shown = [
                question["choices"][j]
                for j in choice_order(question["id"], len(question["choices"]))
            ]
            right = next(j for j, c in enumerate(shown) if c.get("correct"))
            answer = f"{'ABCDEF'[right]}. {convert_roles(ctx, shown[right]['why'])}"
        else:
            answer = f"{question['answer']}. {convert_roles(ctx, question['why'])}"
        extra.append(
            nbformat.v4.new_markdown_cell(
                f"{ui_text(ctx.language, 'Answer')}: {answer}",
                metadata={SLIDE_KEY: {"slide_type": "notes"}},
            )
        )
    return first, extra


def convert_directives(ctx: Context, text: str) -> str:
    """Admonitions as boxes, the quiz as questions; solution markers and bibliography dropped."""

    def one(m: re.Match[str]) -> str:
        name, arg = m.group("name"), m.group("arg").strip()
        options, body = _split_options(m.group("body"))
        if name in ("solution-start", "solution-end", "footbibliography", "bibliography"):
            return ""
        if name == "quiz":
            return quiz_html(ctx, arg)
        if name in _BOXES:
            title = arg or ui_text(ctx.language, name.capitalize())
            if name == "exercise":
                label = options.get("label")
                number = ctx.numbers.get(label or "", ui_text(ctx.language, "Exercise"))
                title = f"{number}" + (f": {arg}" if arg else "")
            kind = html.escape(options.get("class", name), quote=True)
            inner = convert_directives(ctx, body)
            return (
                f'<div class="deck-box {kind}">\n<p class="deck-box-title">{_inline(title)}</p>'
                f"\n\n{inner}\n\n</div>"
            )
        return convert_directives(ctx, body)  # any other directive: its content

    return _FENCE.sub(one, text)


_DOC_LINK = re.compile(r"\]\((?![a-z]+:)([^)\s#]+)\.(?:ipynb|md)(#[^)\s]*)?\)")


def convert_links(ctx: Context, text: str) -> str:
    """Markdown links to the book's sources (``x.ipynb``, ``x.md``) as links to their pages."""

    def one(m: re.Match[str]) -> str:
        path = os.path.normpath(os.path.join(os.path.dirname(ctx.docname), m.group(1)))
        return f"](../{path}.html{m.group(2) or ''})"

    return _DOC_LINK.sub(one, text)


def convert_markdown(ctx: Context, text: str) -> str:
    """A markdown cell's MyST as Markdown and HTML that nbconvert shows as the page does."""
    text = convert_math(ctx, text)
    text = convert_directives(ctx, text)
    text = convert_roles(ctx, text)
    text = convert_links(ctx, text)
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    # the references' heading, left with nothing under it (the deck drops the list itself),
    # in the deck's language
    heading = re.escape(translate_text("References", ctx.language, ctx.docname))
    return re.sub(r"\n+#{1,6} (?:References|" + heading + r")\s*$", "", text)


# ---------------------------------------------------------------------------------------------
# the deck of one notebook


def use_slide_version(output: dict[str, Any]) -> bool:
    """Show a figure output's slide version in the deck, when the figure made one.

    :func:`book.figures._base.retina_palette_png` puts a version drawn for a slide (larger
    text for its size) in the output's ``image/png`` metadata under ``"slide"``; the deck
    shows it instead of the page's PNG, with its own 1× size and text size.

    Returns:
        whether the output now holds the slide version.
    """
    meta = output.get("metadata", {}).get("image/png", {})
    slide = meta.pop("slide", None)
    if not isinstance(slide, dict) or "png" not in slide:
        return False
    output["data"]["image/png"] = slide["png"]
    meta.update({k: slide[k] for k in ("width", "height", "text_px") if k in slide})
    return True


def split_table(markdown: str, rows: int = TABLE_ROWS) -> list[str]:
    """A Markdown table of more than ``rows`` body rows as tables of at most ``rows`` rows each,
    as even as can be, each with the header; any other text (or a short table) as it is."""
    lines = markdown.strip().splitlines()
    if len(lines) < 3 or not re.match(r"^\s*\|?\s*:?-{3,}", lines[1]):
        return [markdown]
    body = lines[2:]
    if len(body) <= rows or not all(line.lstrip().startswith("|") for line in [lines[0], *body]):
        return [markdown]
    parts = -(-len(body) // rows)
    size = -(-len(body) // parts)
    return ["\n".join(lines[:2] + body[k : k + size]) for k in range(0, len(body), size)]


def continued_slides(ctx: Context, heading: str, cell: Any, tables: list[str]) -> list[Any]:
    """The slides that carry on a long table: ``heading`` with "(continued)", the code cell
    ``cell`` showing the next part of the table, and notes saying so."""
    import copy

    import nbformat

    extra = []
    for table in tables:
        part = copy.deepcopy(cell)
        part.outputs = [
            {**o, "data": {"text/markdown": table}}
            for o in part.outputs
            if "text/markdown" in o.get("data", {})
        ]
        extra += [
            nbformat.v4.new_markdown_cell(
                f"{heading} ({ui_text(ctx.language, 'continued')})",
                metadata={SLIDE_KEY: {"slide_type": "slide"}},
            ),
            part,
            nbformat.v4.new_markdown_cell(
                ui_text(ctx.language, "The table, continued from the previous slide."),
                metadata={SLIDE_KEY: {"slide_type": "notes"}},
            ),
        ]
    return extra


def deck_notebook(notebook: Any, ctx: Context) -> Any:
    """The cells of the deck: skipped cells dropped, MyST converted, widget views removed."""
    import nbformat

    cells: list[Any] = []
    pending: list[Any] = []  # further quiz or table slides, after the slide's notes
    heading = ""  # the current slide's title line
    for cell in notebook.cells:
        kind = slide_type(cell)
        if kind in (None, "skip"):
            continue
        if kind in ("slide", "subslide") and pending:
            cells.extend(pending)
            pending = []
        if cell.cell_type == "markdown":
            quiz = _QUIZ.search(cell.source)
            cell.source = convert_markdown(ctx, cell.source)
            if quiz:
                cell.source, pending = quiz_slides(ctx, quiz.group(1), cell.source)
            title = re.search(r"^#{1,3} .+$", cell.source, re.MULTILINE)
            if kind in ("slide", "subslide"):
                heading = title.group(0).strip() if title else ""
            cells.append(cell)
            continue
        if cell.cell_type != "code":
            continue
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_MIME in data and "text/html" in data:
                data.pop(WIDGET_MIME)
            if "text/markdown" in data:  # a table printed by the chapter: links to sources
                data["text/markdown"] = convert_links(
                    ctx, convert_roles(ctx, data["text/markdown"])
                )
                tables = split_table(data["text/markdown"])
                if len(tables) > 1 and heading:
                    data["text/markdown"] = tables[0]
                    pending += continued_slides(ctx, heading, cell, tables[1:])
        outputs = cell.get("outputs", [])
        cell.outputs = [o for o in outputs if o.get("output_type") != "stream"]
        if not cell.outputs:  # a cell on a slide for what it prints: keep that, not stderr
            cell.outputs = [
                o for o in outputs if o.get("output_type") == "stream" and o.get("name") == "stdout"
            ]
        cells.append(cell)
        figure = cell.metadata.get("mystnb", {}).get("figure", {})
        alt = cell.metadata.get("mystnb", {}).get("image", {}).get("alt") or figure_alt(
            plain_markdown(figure.get("caption", ""))
        )
        for output in cell.outputs:  # the deck template writes it (data_png)
            if "image/png" in output.get("data", {}):
                use_slide_version(output)
                if alt:
                    output.setdefault("metadata", {}).setdefault("image/png", {})["alt"] = alt
        if figure.get("name"):
            number = ctx.numbers.get(figure["name"], "").replace("Fig.", "Figure")
            caption = convert_roles(ctx, first_sentence(figure.get("caption", "")))
            shown = ctx.link(number, figure["name"]) + ". " if number else ""
            cells.append(
                nbformat.v4.new_markdown_cell(
                    f'<p class="deck-caption">\n\n{shown}{caption}\n\n</p>',
                    metadata={SLIDE_KEY: {"slide_type": "-"}},
                )
            )
    notebook.cells = cells + pending
    notebook.metadata.pop("widgets", None)
    return notebook


def finish_deck(body: str, ctx: Context, name: str) -> str:
    """What nbconvert's reveal template cannot say: the deck's language (``lang``; nbconvert
    knows ISO 639-1 codes only), its title in that language (nbconvert appends "slides"), and a
    link to the same deck in every other edition, and one to the deck's PDF."""
    lang = ctx.language.replace("_", "-")
    body = re.sub(r"<html lang=\"[^\"]*\">", f'<html lang="{lang}">', body, count=1)
    title = html.escape(f"{ctx.title} · {ui_text(ctx.language, 'Slides')}", quote=False)
    body = re.sub(r"<title>.*?</title>", lambda _: f"<title>{title}</title>", body, count=1)
    links = []
    for there, language_name in EDITIONS.items():
        if there == ctx.language:
            continue
        href = edition_href(f"slides/{name.removesuffix('.html')}", ctx.language, there)
        hreflang = there.replace("_", "-")
        label = ui_text(ctx.language, "These slides in {language}").format(language=language_name)
        links.append(
            f'<a href="{html.escape(href)}" hreflang="{hreflang}" lang="{hreflang}" '
            f'title="{html.escape(label)}">{html.escape(language_name)}</a>'
        )
    pdf = html.escape(f"../{PDF_FOLDER}/{deck_pdf(name.removesuffix('.slides.html'))}")
    pdf_title = html.escape(ui_text(ctx.language, "These slides as a PDF, one slide per page"))
    label = html.escape(ui_text(ctx.language, "Language"))
    nav = f'<nav aria-label="{label}">{" · ".join(links)}</nav> · ' if links else ""
    bar = (
        f'<div class="deck-languages">{nav}<a class="deck-pdf" href="{pdf}" title="{pdf_title}">'
        f"PDF</a></div>\n"
    )
    body = body.replace('<div class="reveal">', bar + '<div class="reveal">', 1)
    return body.replace("</head>", _twin_scripts() + "</head>", 1)


DECK_TEXT_ZOOM = 1.45
"""How much larger a live explorer draws its text in a deck than on a page: a drawer's 12 px
text is 12 × 1.45 px of the 1280 × 720 slide, 25 px on a 1080p screen (the slide is scaled by
1080 / 720 less reveal.js's margin)."""


def _twin_scripts() -> str:
    """posenc's JavaScript twin and the live explorers' scripts (book/ext/twin.py), served by
    the site, for the live explorers a deck shows; their text drawn :data:`DECK_TEXT_ZOOM`
    times larger."""
    from book.ext.twin import SCRIPTS

    tags = "".join(f'<script defer src="../_static/{name}"></script>\n' for name in SCRIPTS)
    zoom = f'document.documentElement.setAttribute("data-posenc-zoom", "{DECK_TEXT_ZOOM}");'
    return f"<script>{zoom}</script>\n{tags}"


def build_deck(executed: Path, target: Path, ctx: Context) -> int:
    """Write the deck of one executed notebook; return its size in bytes."""
    import nbformat
    from nbconvert.exporters import SlidesExporter

    notebook = nbformat.read(executed, as_version=4)
    if ctx.language != SOURCE_LANGUAGE:
        translate_notebook(notebook, ctx.language, ctx.docname)
    notebook = deck_notebook(notebook, ctx)
    exporter = SlidesExporter(
        template_name=TEMPLATE_NAME,
        extra_template_basedirs=[str(TEMPLATE_DIR)],
        exclude_input=True,
        exclude_input_prompt=True,
        exclude_output_prompt=True,
        reveal_url_prefix="../_static/revealjs",
        reveal_theme="white",
        reveal_transition="none",
        reveal_number="c/t",
        reveal_width="1280",
        reveal_height="720",
        reveal_scroll=True,
    )
    body, _ = exporter.from_notebook_node(notebook, resources={"metadata": {"name": ctx.title}})
    body = finish_deck(body, ctx, target.name)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(body, encoding="utf-8")
    return target.stat().st_size


def reveal_source() -> Path:
    """The reveal.js 5 files bundled by the pinned ``sphinx-revealjs`` wheel."""
    from importlib.metadata import distribution

    folder = Path(
        str(distribution(REVEAL_DISTRIBUTION).locate_file("sphinx_revealjs/_static/revealjs"))
    )
    if not (folder / "dist" / "reveal.js").is_file():
        raise FileNotFoundError(
            f"{REVEAL_DISTRIBUTION} is installed but {folder}/dist/reveal.js is missing"
        )
    return folder


def copy_reveal(outdir: Path) -> None:
    """Copy the parts of reveal.js a deck uses to ``_static/revealjs``."""
    source, target = reveal_source(), outdir / "_static" / "revealjs"
    for name in REVEAL_FILES:
        src, dst = source / name, target / name
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst, dirs_exist_ok=True)
        else:
            shutil.copyfile(src, dst)


def build_decks(
    srcdir: Path,
    outdir: Path,
    executed_dir: Path,
    docnames: list[str],
    language: str = SOURCE_LANGUAGE,
) -> dict[str, int]:
    """Build the deck of every notebook in ``docnames`` that has slides; name -> bytes.

    A deck of a translated edition (``language``) has the chapter's markdown in that language
    (``editions.translate_notebook``) and its quiz from ``quizzes/<language>/``.
    """
    citations = load_citations(srcdir / "references.bib")
    built: dict[str, int] = {}
    for docname in docnames:
        source = srcdir / f"{docname}.ipynb"
        executed = executed_dir / f"{docname}.ipynb"
        if not source.is_file() or not executed.is_file():
            continue
        if not has_slides(json.loads(executed.read_text(encoding="utf-8"))):
            continue
        page = outdir / f"{docname}.html"
        numbers = page_numbers(page.read_text(encoding="utf-8")) if page.is_file() else {}
        title = translate_text(page_title(source), language, docname)
        ctx = Context(srcdir, docname, numbers, citations, title, language)
        name = deck_name(Path(docname).name)
        built[name] = build_deck(executed, outdir / "slides" / name, ctx)
    if built:
        copy_reveal(outdir)
    return built


# ---------------------------------------------------------------------------------------------
# Sphinx hooks


def _notebook_has_slides(path: Path) -> bool:
    try:
        return has_slides(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return False


def _add_deck_link(
    app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    source = Path(app.srcdir) / f"{pagename}.ipynb"
    if doctree is None or "body" not in context or not _notebook_has_slides(source):
        return
    href = "../" * pagename.count("/") + "slides/" + deck_name(Path(pagename).name)
    language = language_of(app)
    help_text = ui_text(
        language,
        "(reveal.js: arrow keys to move, <kbd>s</kbd> for the speaker notes, <kbd>f</kbd> for "
        "full screen)",
    )
    pdf = "../" * pagename.count("/") + f"{PDF_FOLDER}/" + deck_pdf(Path(pagename).name)
    link = (
        f'<p class="deck-link"><a class="reference external" href="{href}">'
        f"{ui_text(language, 'Slides of this chapter')}</a> {help_text} · "
        f'<a class="reference external" href="{pdf}">{ui_text(language, "Slides (PDF)")}</a></p>'
    )
    context["body"] = re.sub(r"(</h1>)", r"\1" + link, context["body"], count=1)


_DECK_LIST = '<div class="deck-list"></div>'


def _fill_deck_list(
    app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """Replace the placeholder ``<div class="deck-list"></div>`` by links to every deck and
    its PDF."""
    body = context.get("body", "")
    if _DECK_LIST not in body:
        return
    prefix = "../" * pagename.count("/")
    items = []
    for docname in sorted(app.env.found_docs):
        source = Path(app.srcdir) / f"{docname}.ipynb"
        if _notebook_has_slides(source):
            name = deck_name(Path(docname).name)
            title = html.escape(translate_text(page_title(source), language_of(app), docname))
            pdf = f"{prefix}{PDF_FOLDER}/{deck_pdf(Path(docname).name)}"
            items.append(
                f'<li><a class="reference external" href="{prefix}slides/{name}">{title}</a> '
                f'(<a class="reference external" href="{pdf}">PDF</a>)</li>'
            )
    listing = f'<ul class="deck-list">{"".join(items)}</ul>' if items else ""
    context["body"] = body.replace(_DECK_LIST, listing)


def deck_is_stale(outdir: Path, executed: Path, docname: str) -> bool:
    """Whether the deck of ``docname`` is older than what it is made from: the page this
    build wrote (its numbers, its translation, its quiz) or the executed notebook."""
    deck = outdir / "slides" / deck_name(Path(docname).name)
    if not deck.is_file():
        return True
    sources = [outdir / f"{docname}.html", executed / f"{docname}.ipynb"]
    newest = max((p.stat().st_mtime_ns for p in sources if p.is_file()), default=0)
    return newest >= deck.stat().st_mtime_ns


def _build_finished(app: Any, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    from sphinx.util import logging

    start = time.perf_counter()
    outdir = Path(app.outdir)
    executed = outdir.parent / "jupyter_execute"
    built = build_decks(
        Path(app.srcdir),
        outdir,
        executed,
        [d for d in sorted(app.env.found_docs) if deck_is_stale(outdir, executed, d)],
        language_of(app),
    )
    logging.getLogger(__name__).info(
        f"slides: {len(built)} deck(s) in {time.perf_counter() - start:.1f} s"
    )


def setup(app: Any) -> dict[str, Any]:
    app.connect("html-page-context", _add_deck_link)
    app.connect("html-page-context", _fill_deck_list)
    app.connect("build-finished", _build_finished)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    build = Path(argv[0] if argv else "_build")
    srcdir = Path(argv[1] if len(argv) > 1 else ".")
    language = argv[2] if len(argv) > 2 else SOURCE_LANGUAGE
    executed = build / "jupyter_execute"
    docnames = sorted(
        str(p.relative_to(executed).with_suffix("")) for p in executed.rglob("*.ipynb")
    )
    start = time.perf_counter()
    built = build_decks(srcdir, build / "html", executed, docnames, language)
    for name, size in built.items():
        print(f"{name}: {size / 1e6:.2f} MB")
    print(f"{len(built)} deck(s) in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
