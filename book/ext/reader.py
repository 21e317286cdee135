"""What a reader meets on every page, on every screen: clean listings, alt text, working menus.

* **Clean listings.** A code cell whose output nbval checks starts with the marker
  ``# NBVAL_CHECK_OUTPUT`` (CONTRIBUTING.md, "Writing a chapter"). The marker is for the tests
  (``make notebooks``) and stays in the notebook a reader downloads, where nbval still needs it;
  the page shows the listing without it (``strip_test_markers``), and so do the handouts
  printed from the page and the copy button.
* **Alt text.** A figure's image gets the first sentence of its caption as its alt text, in
  plain words (``plain_text``: math written out, ``\\cdot`` as "·"), in the page's own
  language; docutils would otherwise write the image's file name. The decks use the same text
  (``book/ext/slides.py``). A quiz's choices get the same plain words as their accessible
  name (``book/ext/quiz.py``).
* **Link contrast.** Links are a darker blue than the theme's, which fails WCAG AA on the
  pale backgrounds of exercises and notes.
* **Menus on a phone.** sphinx-book-theme 1.3 draws its own chapter-list and contents buttons
  in the article header, but pydata-sphinx-theme 0.17 and the book theme attach their handlers
  to the *first* button of each kind in the page, a hidden duplicate in the site header, so
  the visible buttons did nothing. ``reader_static/reader.js`` passes a click on a visible
  button to that first one, which opens the panel (a dialog on a phone, the sidebar on a
  laptop).
* **Menus close once an entry is chosen**, so that a reader who taps a heading in the
  page's contents sees it, not the dialog that was over it.
* **Figures keep their shape and their text on a phone.** A cell's figure carries its width
  and height as inline style; the height would squash it in a narrow column, so the figure
  keeps its aspect ratio, and shrinks no further than keeps its smallest text at
  :data:`book.explorers.explorer.PHONE_TEXT_PX` CSS px. That width follows from
  :data:`book.figures.measure.MIN_TEXT_PX`, the smallest text every figure has at the width
  it is shown at on a laptop (capped at ``COLUMN_PX``), which ``tests/book/test_figure_text.py``
  checks; the build hands these sizes to ``reader.js`` (``window.peReader``). An explorer's
  figure does the same with its own measured size (``book/explorers/explorer.py``).
* **Optional boxes.** Engineering detail and the errors of the sources sit in a collapsed
  box that the main thread can skip: ```` ```{aside-start} Title``` ```` in one markdown cell,
  ```` ```{aside-end}``` ```` in a later one, and every cell between them (code cells too) goes
  into the box, as sphinx-exercise does for solutions (``AsideStart``, ``merge_asides``). The
  box is an admonition with the classes ``dropdown aside aside-<kind>`` (``:class: engineering``
  or ``sources``): collapsed on the page by sphinx-togglebutton, printed open (free to
  break across pages, like a solution) by the handouts' stylesheet, its title translated like
  any heading.
* **Wide content scrolls in its own box, with a cue.** A display equation, a figure, an
  explorer or a table wider than the column scrolls sideways inside its own box, never the
  page (so does an inline formula wider than its line, which MathJax cannot break), and a
  shadow marks each side that has more: behind a (transparent) equation (``pe-scrolls``),
  over an opaque figure, explorer or table by a frame around its box (``pe-scroll-frame``
  with ``pe-more-left``/``pe-more-right``, set by ``reader.js`` as the box scrolls). A thin
  scrollbar shows where the browser keeps one (a phone shows it only while scrolling). On a
  phone an equation's number moves above it, and long inline code wraps.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

STATIC = Path(__file__).parent / "reader_static"
logger = logging.getLogger(__name__)

TEST_MARKER = re.compile(r"^[ \t]*# *NBVAL_[A-Z_]+[ \t]*$")
"""A line that only tells nbval what to do with the cell (``# NBVAL_CHECK_OUTPUT`` and kin)."""


def strip_test_markers(code: str) -> str:
    """``code`` without its nbval marker lines (and without the blank lines that leaves first)."""
    lines = [line for line in code.split("\n") if not TEST_MARKER.match(line)]
    while lines and not lines[0].strip():
        lines.pop(0)
    return "\n".join(lines)


# TeX that a figure caption uses, written out for alt text (a screen reader reads "·" and "π"
# better than "\cdot" and "\pi").
_TEX_WORDS = {
    r"\cdot": " · ",
    r"\times": " × ",
    r"\approx": "≈",
    r"\le": "≤",
    r"\leq": "≤",
    r"\ge": "≥",
    r"\geq": "≥",
    r"\ne": "≠",
    r"\neq": "≠",
    r"\to": "→",
    r"\infty": "∞",
    r"\pm": "±",
    r"\dots": "…",
    r"\ldots": "…",
    r"\cdots": "…",
    r"\pi": "π",
    r"\alpha": "α",
    r"\beta": "β",
    r"\gamma": "γ",
    r"\delta": "δ",
    r"\Delta": "Δ",
    r"\theta": "θ",
    r"\lambda": "λ",
    r"\mu": "μ",
    r"\sigma": "σ",
    r"\omega": "ω",
    r"\top": "T",
    r"\quad": " ",
    r"\qquad": " ",
    r"\,": " ",
    r"\;": " ",
    r"\!": "",
    r"\left": "",
    r"\right": "",
    r"\big": "",
    r"\Big": "",
    r"\bigg": "",
    r"\Bigg": "",
    r"\displaystyle": "",
}
_TEX_COMMAND = re.compile(r"\\[A-Za-z]+|\\[,;!]")
_FRAC = re.compile(r"\\[dt]?frac\{([^{}]*)\}\{([^{}]*)\}")
_WRAPPER = re.compile(
    r"\\(?:text|textrm|mathrm|mathbf|mathit|mathbb|mathcal|mathsf|mathtt|operatorname|"
    r"boldsymbol|hat|tilde|bar|vec|widetilde|widehat|overline)\{([^{}]*)\}"
)
_SQRT = re.compile(r"\\sqrt\{([^{}]*)\}")
_SCRIPT = re.compile(r"([_^])\{([^{}]*)\}")


def _group(text: str) -> str:
    """``text`` as one term: as it is when a single word or number, else in parentheses."""
    return text if re.fullmatch(r"[\w.]+", text) else f"({text})"


def plain_math(tex: str) -> str:
    """Inline TeX as plain text for alt text: ``2\\pi \\cdot 10^{4}`` -> ``2π · 10^4``."""
    text = tex
    for _ in range(3):  # nested groups: \frac{\text{..}}{x^{..}}
        text = _WRAPPER.sub(r"\1", text)
        text = _SCRIPT.sub(lambda m: m.group(1) + _group(m.group(2)), text)
        text = _FRAC.sub(lambda m: f"{_group(m.group(1))}/{_group(m.group(2))}", text)
        text = _SQRT.sub(lambda m: f"√{_group(m.group(1))}", text)
    text = _TEX_COMMAND.sub(lambda m: _TEX_WORDS.get(m.group(0), m.group(0)[1:]), text)
    text = re.sub(r"\{([^{}]*)\}", r"\1", text)
    text = text.replace("{", "").replace("}", "").replace("\\", "")
    return re.sub(r"\s+", " ", text).strip()


def plain_text(node: nodes.Node) -> str:
    """A caption (or any inline text) as plain words, its math written out by ``plain_math``."""
    parts: list[str] = []
    for child in node.findall(lambda n: isinstance(n, (nodes.Text, nodes.math))):
        if isinstance(child, nodes.math):
            parts.append(plain_math(child.astext()))
        elif not any(isinstance(parent, nodes.math) for parent in _parents(child)):
            parts.append(child.astext())
    return re.sub(r"\s+", " ", "".join(parts)).strip()


def _parents(node: nodes.Node) -> list[nodes.Node]:
    out = []
    while node.parent is not None:
        node = node.parent
        out.append(node)
    return out


def first_sentence(text: str) -> str:
    """The first sentence of ``text``: to its first full stop (``.`` before a space or the
    end, or ``。``), which it keeps; a colon does not end it ("Left: …; right: …" stays
    whole). The decks' figure captions (``slides.py``) and the alt text use it."""
    match = re.match(r"(.+?(?:\.(?=\s|$)|。))", text.strip(), re.DOTALL)
    return (match.group(1) if match else text).strip()


def figure_alt(caption: str) -> str:
    """The alt text of a figure from its caption's plain text: the caption's first sentence,
    without its full stop."""
    return first_sentence(caption).rstrip(".。").strip()


_ROLE = re.compile(r"\{[\w:-]+\}`([^`<]*?)\s*(?:<[^`>]*>)?`")
_INLINE_MATH = re.compile(r"\$([^$]+)\$")


def plain_markdown(text: str) -> str:
    """A MyST caption as plain words: roles by their text, math written out, no markup."""
    text = _ROLE.sub(lambda m: m.group(1), text)
    pieces = _INLINE_MATH.split(text)  # prose, math, prose, math, …
    text = "".join(
        plain_math(piece) if k % 2 else re.sub(r"[*_`]", "", piece)
        for k, piece in enumerate(pieces)
    )
    return re.sub(r"\s+", " ", text).strip()


def _is_code_cell_input(node: nodes.Node) -> bool:
    parent = node.parent
    return isinstance(parent, nodes.container) and "cell_input" in parent.get("classes", [])


def _clean_page(app: Sphinx, doctree: nodes.document) -> None:
    for block in list(doctree.findall(nodes.literal_block)):
        if not _is_code_cell_input(block):
            continue
        code = block.astext()
        clean = strip_test_markers(code)
        if clean != code:
            block.rawsource = clean
            block.children = []
            block += nodes.Text(clean)
    for figure in doctree.findall(nodes.figure):
        captions = [c for c in figure.children if isinstance(c, nodes.caption)]
        if not captions:
            continue
        alt = figure_alt(plain_text(captions[0]))
        for image in figure.findall(nodes.image):
            if not image.get("alt"):
                image["alt"] = alt


ASIDE_KINDS = ("engineering", "sources")
"""What an optional box holds: engineering detail, or the errors of the seed articles."""


class aside_start(nodes.Element):
    """Where an optional box opens; holds its title until ``merge_asides`` builds the box."""


class aside_end(nodes.Element):
    """Where an optional box closes."""


class AsideStart(SphinxDirective):
    """```{aside-start} Title``` with ``:class: engineering`` or ``:class: sources``."""

    required_arguments = 1
    final_argument_whitespace = True
    option_spec: ClassVar[dict[str, Any]] = {"class": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        kind = self.options.get("class", "")
        if kind not in ASIDE_KINDS:
            raise self.error(f"aside-start :class: must be one of {', '.join(ASIDE_KINDS)}")
        title = nodes.title(self.arguments[0], "")
        title.source, title.line = self.get_source_info()  # translatable, like a heading
        inline, messages = self.state.inline_text(self.arguments[0], self.lineno)
        title.extend(inline)
        node = aside_start("", title, kind=kind)
        node.source, node.line = title.source, title.line
        return [node, *messages]


class AsideEnd(SphinxDirective):
    """```{aside-end}```: closes the box opened by the last ``aside-start``."""

    def run(self) -> list[nodes.Node]:
        node = aside_end()
        node.source, node.line = self.get_source_info()
        return [node]


def merge_asides(doctree: nodes.Node) -> list[str]:
    """Move what lies between each ``aside-start`` and its ``aside-end`` into one admonition.

    The two markers must be siblings (no heading between them: a section would end the box).
    Returns a message for every marker without its partner (the build turns them into
    warnings, and warnings into errors).
    """
    problems = []
    for start in list(doctree.findall(aside_start)):
        parent = start.parent
        at = parent.index(start)
        end = next(
            (
                i
                for i in range(at + 1, len(parent))
                if isinstance(parent[i], (aside_start, aside_end))
            ),
            None,
        )
        if end is None or not isinstance(parent[end], aside_end):
            problems.append(f"line {start.line}: aside-start without an aside-end after it")
            continue
        box = nodes.admonition("", classes=["dropdown", "aside", f"aside-{start['kind']}"])
        box.source, box.line = start.source, start.line
        box += start.children[0]  # the title
        inside = parent.children[at + 1 : end]
        del parent.children[at : end + 1]
        box.extend(inside)  # moved, not copied: their ids and references stay valid
        parent.insert(at, box)
    for end in list(doctree.findall(aside_end)):  # removed as it goes: walk a copy
        problems.append(f"line {end.line}: aside-end without an aside-start before it")
        end.parent.remove(end)
    return problems


class MergeAsides(SphinxTransform):
    """Builds the optional boxes before the translation (priority 20) reads their titles."""

    default_priority = 10

    def apply(self, **kwargs: Any) -> None:
        for problem in merge_asides(self.document):
            logger.warning(problem, location=self.env.docname)


def _add_static(app: Sphinx, config: Any) -> None:
    config.html_static_path.append(str(STATIC))


def reader_sizes_js() -> str:
    """The sizes ``reader.js`` keeps a figure readable by, as ``window.peReader``."""
    from book.explorers.explorer import PHONE_TEXT_PX
    from book.figures.measure import COLUMN_PX, MIN_TEXT_PX

    sizes = {"figureTextPx": MIN_TEXT_PX, "columnPx": COLUMN_PX, "phoneTextPx": PHONE_TEXT_PX}
    return f"window.peReader = {json.dumps(sizes)};"


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _add_static)
    app.connect("doctree-read", _clean_page)
    app.add_node(aside_start)
    app.add_node(aside_end)
    app.add_directive("aside-start", AsideStart)
    app.add_directive("aside-end", AsideEnd)
    app.add_transform(MergeAsides)
    app.add_css_file("reader.css")
    app.add_js_file(None, body=reader_sizes_js())
    app.add_js_file("reader.js", defer="defer")
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
