"""Cross-references in the reader's prose are links, and every link lands.

A reader who meets "chapter 9" or "Figure 6.1" should be one click away from it, in both
editions. So a reference to another chapter, a section, a figure, an equation or an exercise is
written as a role, never as typed text: ``{doc}`chapter 9 <09_rotary_alibi_t5>``` (the path
relative to the page, the text as the sentence reads), ``{ref}`ex-length-4```,
``{numref}`fig-sin-heatmap```, ``{eq}`eq-sin-shift``` (CONTRIBUTING.md, "Writing a chapter").
Chinese: ``{doc}`第 9 章 <09_rotary_alibi_t5>```.

What is read (the prose a reader sees):

- the markdown cells of every notebook of ``_toc.yml`` that its page shows, and the figure
  captions (``mystnb.figure.caption`` of code cells);
- ``intro.md``;
- every text of ``quizzes/<language>/*.yaml`` (YAML comments are not read);
- the translation (``msgstr``) of every entry of every page's catalogue.

What is not:

- roles and links themselves (the text of ``{doc}`chapter 9 <…>``` is the link), inline code,
  math, code blocks, link targets, URLs, HTML tags, directive options and ``(label)=`` targets;
- headings: they stay plain text. A heading is also the page's title, its entry in the
  table of contents, the "on this page" list and the deck's slide title; a link inside it
  would be a link inside a link there. Mention the chapter with a link in the first sentence
  under the heading instead;
- cells only a deck shows (tagged ``remove-cell``): speaker notes are plain sentences with no
  MyST by rule (CONTRIBUTING.md, "Slides"), and compact slides are a talk's summary,
  translated whole in ``slides.po``;
- a Chinese chapter number written just before a link to that chapter's title,
  ``第 1 章“{doc}`../chapters/01_why_position`”``: the link is the reference, the number
  labels it (the number must be the linked chapter's);
- unnumbered words such as "this chapter", "the next section", "the figure below".

A plain reference is "chapter 9", "Chapter 9's", "chapters 3 and 4", "chapters 3 to 5",
"ch. 6", "section 3.2", "§3.2", "figure 6.1", "fig. 6.1", "equation (3.1)", "eq. (3.1)",
"exercise 10.4"; in Chinese "第 9 章", "第九章", "第 3、4 章", "第 3.2 节", "图 6.1",
"式 (3.1)", "公式（3.1）", "练习 10.4". The book's numbers always have a chapter part, so
"Figure 7 of the ViT paper" or "a 2-D table 0.6400" is not one (the book numbers no tables).

Every link must land: a ``{doc}`` names a page of ``_toc.yml`` (not the page itself), and a
number in its text ("chapter 9", "第 9 章", "9") is the number of the chapter it names; a
``{ref}``, ``{numref}`` or ``{eq}`` names a label defined somewhere in the book (``{eq}`` an
equation's). A slide deck (``book/ext/slides.py``) takes the numbers and anchors of
``{eq}``/``{numref}``/``{ref}`` from its own chapter's page, so in the cells and captions a
deck shows these roles name labels of that page (``{doc}`` may go anywhere); and it shows
the first questions of the chapter's quiz as plain inline text, so those carry no roles.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import nbformat
import polib
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]

from book.ext.editions import TRANSLATIONS, catalogue_path, deck_only
from book.ext.slides import QUIZ_QUESTIONS, slide_type
from book.tools.build_handouts import toc_pages

DOCNAMES = toc_pages()  # the root first
NOTEBOOKS = [d for d in DOCNAMES if (ROOT / f"{d}.ipynb").is_file()]
MARKDOWN_PAGES = [d for d in DOCNAMES if (ROOT / f"{d}.md").is_file()]
QUIZZES = sorted((ROOT / "quizzes").glob("*/*.yaml"))
CATALOGUES = [(lang, d) for lang in TRANSLATIONS for d in DOCNAMES]


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def chapter_numbers() -> dict[str, int]:
    """docname -> its chapter number: the book numbers the chapters of its numbered parts on,
    across parts (``_toc.yml``; the appendix has none)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    numbers: dict[str, int] = {}
    for part in toc.get("parts", []):
        for entry in part.get("chapters", []):
            if part.get("numbered"):
                numbers[entry["file"]] = len(numbers) + 1
    return numbers


NUMBERS = chapter_numbers()

# ---------------------------------------------------------------------------------------------
# the prose of a text: what is not prose masked out

_ROLE = re.compile(r"\{([\w:-]+)\}`([^`]*)`")
_PROTECTED = re.compile(
    r"\{[\w:-]+\}`[^`]*`"  # a role (a link's text is the link)
    r"|``[^`]+``|`[^`]+`"  # inline code
    r"|\$\$.+?\$\$|\$[^$]+\$"  # math
    r"|\]\([^)]*\)"  # a Markdown link's target
    r"|<?https?://[^\s>]+>?"  # a URL
    r"|<[^>\n]+>",  # an HTML tag
    re.DOTALL,
)
MASK = "\u27e8\u27e9"  # what stands for a masked span: ⟨⟩
_FENCE = re.compile(r"^\s*(`{3,}|:{3,})\s*(\{[\w:-]+\})?")
_CODE_DIRECTIVES = {"{code}", "{code-block}", "{code-cell}", "{math}", "{quiz}", "{toctree}"}


def prose_lines(markdown: str) -> Iterator[tuple[int, str]]:
    """(line number, text) of the prose lines of a MyST document: no code blocks, headings,
    directive options or targets. A directive's body (exercise, admonition) is prose, and
    may hold a code block of its own (a longer or other fence)."""
    fences: list[tuple[str, bool]] = []  # open fences, each with "is code"
    for number, line in enumerate(markdown.split("\n"), 1):
        match = _FENCE.match(line)
        if fences and line.strip() == fences[-1][0]:
            fences.pop()
            continue
        if match and not any(code for _, code in fences):
            code = match.group(2) is None or match.group(2) in _CODE_DIRECTIVES
            fences.append((match.group(1), code))
            continue
        stripped = line.strip()
        if any(code for _, code in fences) or stripped.startswith("#"):
            continue
        if re.match(r"^:[\w-]+:|^\([\w:.-]+\)=$", stripped):
            continue
        yield number, line


def prose(markdown: str) -> str:
    """The prose of a MyST text, its lines joined (a reference may break across them)."""
    return "\n".join(line for _, line in prose_lines(markdown))


# ---------------------------------------------------------------------------------------------
# plain references

_SEP = r"(?:\s*(?:,|&|–|-|\band\b|\bor\b|\bto\b)\s*)+"
_ITEM = rf"(?:\d+|{MASK})"
# a number of the book: chapter, then the item within it ("10.4"; a section may go deeper),
# which "0.6421" or "2.25" are not
_NUMBER = r"(?<![\d.])[1-9]\d?(?:\.\d{1,2})+(?![\d])"
_ENGLISH = [
    re.compile(rf"(?i)\b(?:chapters?|chs?\.)\s+(?:{_ITEM}{_SEP})*\d+\b(?!\.\d)"),
    re.compile(rf"(?i)(?:\bsections?\s*|§\s*){_NUMBER}"),
    re.compile(rf"(?i)\b(?:figures?|figs?\.|exercises?)\s*{_NUMBER}"),
    re.compile(rf"(?i)\b(?:equations?|eqs?\.)\s*\(?\s*{_NUMBER}"),
]
_CN_NUMBER = r"(?:\d+|[一二三四五六七八九十百两]+)"
_CHINESE = [
    re.compile(rf"第\s*{_CN_NUMBER}(?:\s*[、，,和与及至到~–-]\s*(?:第\s*)?{_CN_NUMBER})*\s*章"),
    re.compile(rf"{_NUMBER}\s*节"),
    re.compile(rf"(?<![地试意企视])图\s*{_NUMBER}"),
    re.compile(rf"练习\s*{_NUMBER}"),
    re.compile(rf"(?:公式|方程|等式|式)\s*[（(]\s*{_NUMBER}\s*[)）]"),
]
_TITLE_LINK = re.compile(r"第\s*(\d+)\s*章(?=[“「]?\{doc\}`([^`]*)`)")


def resolve_doc(target: str, docname: str) -> str:
    """The docname a ``{doc}`` target names, read from page ``docname``."""
    if target.startswith("/"):
        return target.lstrip("/")
    return os.path.normpath(os.path.join(os.path.dirname(docname), target)).replace(os.sep, "/")


def _doc_target(body: str) -> str:
    match = re.fullmatch(r"(?s)(.*?)\s*<([^<>]+)>", body)
    return match.group(2) if match else body.strip()


def plain_references(text: str, docname: str) -> list[str]:
    """The plain references in ``text`` (prose of page ``docname``), each with its context."""
    found = []

    def label_of_title_link(m: re.Match[str]) -> str:
        target = resolve_doc(_doc_target(m.group(2)), docname)
        if NUMBERS.get(target) != int(m.group(1)):
            found.append(f"{m.group(0)!r} labels a link to {target}")
        return MASK

    text = _TITLE_LINK.sub(label_of_title_link, text)
    rest = _PROTECTED.sub(MASK, text)
    for pattern in _ENGLISH + _CHINESE:
        for m in pattern.finditer(rest):
            context = rest[max(0, m.start() - 40) : m.end() + 40].replace("\n", " ")
            found.append(f"{m.group(0)!r} in '…{context}…'")
    return found


def test_the_patterns_tell_references_from_other_numbers() -> None:
    plain = [
        "as chapter 3 showed",
        "Chapter 10's model",
        "chapters 3 and 4",
        "Chapters 3 to 5",
        "ch. 6",
        "(ch. 3, 4)",
        "chapters {doc}`3 <03_sinusoidal>` and 4",
        "section 3.2",
        "§3.2",
        "Figure 6.1",
        "fig. 6.1",
        "equation (3.1)",
        "eq. 3.1",
        "Exercise 10.4",
        "见第 3 章",
        "第十章",
        "第 3、4 章",
        "第 3.2 节",
        "图 6.1",
        "式 (3.1)",
        "公式（3.1）",
        "练习 10.4",
    ]
    linked = [
        "as {doc}`chapter 3 <03_sinusoidal>` showed",
        "{doc}`Chapter 10 <10_length_experiment>`'s model",
        "chapters {doc}`3 <03_sinusoidal>` and {doc}`4 <04_learned_absolute>`",
        "(ch. {doc}`3 <03_sinusoidal>`, {doc}`4 <04_learned_absolute>`)",
        "{numref}`fig-sin-heatmap` and {eq}`eq-sin-shift`",
        "a learned 1-D table as in this chapter 0.6421, a learned 2-D table 0.6400",
        "Figure 7 of the ViT paper",
        "`chapter 3` in code, $\\text{chapter } 3$ in math",
        "[the notebook](https://example.org/chapter 3)",
        "见{doc}`第 3 章 <03_sinusoidal>`",
        "第 3 章“{doc}`03_sinusoidal`”",
        "第一层",
        "本章",
    ]
    page = "chapters/05_absolute_2d"
    assert [t for t in plain if not plain_references(t, page)] == []
    myst = (
        "## Back to chapter 10\n\n````{exercise}\n:label: ex-x-1\nAs in chapter 3:\n"
        "```python\nchapter 4\n```\n````\n\n```\nchapter 5\n```\n(sec-x)=\nchapter 6"
    )
    assert re.findall(r"chapter \d", prose(myst)) == ["chapter 3", "chapter 6"]
    assert [t for t in linked if plain_references(t, page)] == []
    assert plain_references("第 4 章“{doc}`03_sinusoidal`”", page) != []  # a wrong number


# ---------------------------------------------------------------------------------------------
# the texts


@cache
def notebook(docname: str) -> nbformat.NotebookNode:
    return nbformat.read(ROOT / f"{docname}.ipynb", as_version=4)


def caption(cell: nbformat.NotebookNode) -> str:
    return ((cell.metadata.get("mystnb") or {}).get("figure") or {}).get("caption", "")


def page_cells(docname: str) -> Iterator[tuple[str, str]]:
    """(where, prose) of every markdown cell that the page shows."""
    for index, cell in enumerate(notebook(docname).cells):
        if cell.cell_type == "markdown" and not deck_only(cell):
            yield f"cell {index} (id {cell.get('id', '?')})", prose(cell.source)


@cache
def headings() -> frozenset[str]:
    """Every heading of the book, as a catalogue entry holds it."""
    found = set()
    texts = [c.source for d in NOTEBOOKS for c in notebook(d).cells if c.cell_type == "markdown"]
    texts += [(ROOT / f"{d}.md").read_text(encoding="utf-8") for d in MARKDOWN_PAGES]
    for text in texts:
        found.update(m.group(1).strip() for m in re.finditer(r"(?m)^#+\s+(.+)$", text))
    return frozenset(found)


@cache
def captions() -> dict[str, tuple[str, str]]:
    """English caption -> (docname, where) for every figure caption of the book."""
    found = {}
    for docname in NOTEBOOKS:
        for index, cell in enumerate(notebook(docname).cells):
            if caption(cell):
                found[caption(cell)] = (docname, f"caption of cell {index} (id {cell.id})")
    return found


def strings(node: object, where: str = "") -> Iterator[tuple[str, str]]:
    """(where, text) of every string of a quiz file but ids and types: "question 'x' choices[2]
    why"."""
    if isinstance(node, dict):
        here = f"question {node['id']!r}" if "id" in node else where
        for key, value in node.items():
            if key not in ("id", "type"):
                yield from strings(value, f"{here} {key}".strip())
    elif isinstance(node, list):
        for index, value in enumerate(node, 1):
            yield from strings(value, f"{where}[{index}]" if where else "")
    elif isinstance(node, str):
        yield where, node


@cache
def quiz_pages() -> dict[str, str]:
    """Quiz stem -> the page whose ``{quiz}`` directive shows it (its {doc} paths start there)."""
    found = {}
    for docname in NOTEBOOKS:
        for cell in notebook(docname).cells:
            for m in re.finditer(r"\{quiz\}\s+([\w-]+)", cell.source):
                found[m.group(1)] = docname
    return found


def catalogue(language: str, docname: str) -> list[polib.POEntry]:
    return [e for e in polib.pofile(str(catalogue_path(language, docname))) if not e.obsolete]


# ---------------------------------------------------------------------------------------------
# no plain references


def _report(problems: list[str]) -> str:
    return f"{len(problems)} plain reference(s): write them as links\n" + "\n".join(problems)


@pytest.mark.parametrize("docname", NOTEBOOKS)
def test_notebook_prose_has_no_plain_reference(docname: str) -> None:
    problems = [
        f"{docname}.ipynb, {where}: {found}"
        for where, text in page_cells(docname)
        for found in plain_references(text, docname)
    ]
    assert problems == [], _report(problems)


@pytest.mark.parametrize("docname", NOTEBOOKS)
def test_captions_have_no_plain_reference(docname: str) -> None:
    """Captions are code-cell metadata; the Chinese one is its catalogue entry."""
    problems = []
    for text, (page, where) in captions().items():
        if page != docname:
            continue
        problems += [f"{docname}.ipynb, {where}: {f}" for f in plain_references(text, docname)]
        for language in TRANSLATIONS:
            for entry in catalogue(language, docname):
                if entry.msgid == text:
                    problems += [
                        f"{_rel(catalogue_path(language, docname))}, {where}: {f}"
                        for f in plain_references(entry.msgstr, docname)
                    ]
    assert problems == [], _report(problems)


@pytest.mark.parametrize("docname", MARKDOWN_PAGES)
def test_markdown_page_has_no_plain_reference(docname: str) -> None:
    text = (ROOT / f"{docname}.md").read_text(encoding="utf-8")
    problems = [
        f"{docname}.md, line {number}: {found}"
        for number, line in prose_lines(text)
        for found in plain_references(line, docname)
    ]
    assert problems == [], _report(problems)


@pytest.mark.parametrize("path", QUIZZES, ids=_rel)
def test_quiz_has_no_plain_reference(path: Path) -> None:
    docname = quiz_pages().get(path.stem, f"chapters/{path.stem}")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    problems = [
        f"{_rel(path)}, {where}: {found}"
        for where, text in strings(data)
        for found in plain_references(prose(text), docname)
    ]
    assert problems == [], _report(problems)


@pytest.mark.parametrize(("language", "docname"), CATALOGUES)
def test_translation_has_no_plain_reference(language: str, docname: str) -> None:
    """Every translation of a page's catalogue (headings and captions have their own rule and
    test)."""
    skip = headings() | captions().keys()
    problems = [
        f"{_rel(catalogue_path(language, docname))}, msgid {entry.msgid[:60]!r}: {found}"
        for entry in catalogue(language, docname)
        if entry.msgid not in skip
        for found in plain_references(entry.msgstr, docname)
    ]
    assert problems == [], _report(problems)


# ---------------------------------------------------------------------------------------------
# every link lands


@cache
def labels() -> dict[str, tuple[str, str]]:
    """Every label of the book -> (the page defining it, its kind: "equation" or "other")."""
    found: dict[str, tuple[str, str]] = {}
    texts = [
        (d, c.source) for d in NOTEBOOKS for c in notebook(d).cells if c.cell_type == "markdown"
    ]
    texts += [(d, (ROOT / f"{d}.md").read_text(encoding="utf-8")) for d in MARKDOWN_PAGES]
    for docname, text in texts:
        for m in re.finditer(r"\$\$[ \t]*\(([\w:.-]+)\)", text):
            found[m.group(1)] = (docname, "equation")
        for m in re.finditer(r"```\{math\}[^\n]*\n(?::[\w-]+:[^\n]*\n)*?:label:\s*(\S+)", text):
            found[m.group(1)] = (docname, "equation")
        for m in re.finditer(r"(?m)^\s*:(?:label|name):\s*(\S+)\s*$", text):
            found.setdefault(m.group(1), (docname, "other"))
        for m in re.finditer(r"(?m)^\(([\w:.-]+)\)=\s*$", text):
            found[m.group(1)] = (docname, "other")
    for docname in NOTEBOOKS:
        for cell in notebook(docname).cells:
            name = ((cell.metadata.get("mystnb") or {}).get("figure") or {}).get("name")
            if name:
                found[name] = (docname, "other")
    return found


def link_problems(text: str, docname: str) -> list[str]:
    """What is wrong with the links of ``text``, a text of page ``docname``."""
    problems = []
    for m in _ROLE.finditer(text):
        role, body = m.group(1), m.group(2)
        target = _doc_target(body)
        if role == "doc":
            page = resolve_doc(target, docname)
            if page not in DOCNAMES:
                problems.append(f"{m.group(0)}: no page {page} in _toc.yml")
            elif page == docname:
                problems.append(f"{m.group(0)}: a link to the page itself")
            shown = body.rpartition("<")[0] if "<" in body else ""
            number = re.search(
                r"(?i)(?:chapters?|ch\.)\s*(\d+)|第\s*(\d+)\s*章|^\s*(\d+)\s*$", shown
            )
            if number and page in DOCNAMES:
                said = int(next(g for g in number.groups() if g))
                if NUMBERS.get(page) != said:
                    problems.append(
                        f"{m.group(0)}: says {said}, but {page} is chapter "
                        f"{NUMBERS.get(page, '(none)')}"
                    )
        elif role in ("ref", "numref", "eq"):
            if target not in labels():
                problems.append(f"{m.group(0)}: no label {target!r} in the book")
            elif role == "eq" and labels()[target][1] != "equation":
                problems.append(f"{m.group(0)}: {target!r} is not an equation's label")
    return problems


def _linked_texts() -> Iterator[tuple[str, str, str]]:
    """(where, docname, text) of every text whose links are checked: all markdown cells and
    captions, the markdown pages, the quizzes and every translation."""
    for docname in NOTEBOOKS:
        for index, cell in enumerate(notebook(docname).cells):
            if cell.cell_type == "markdown":
                yield f"{docname}.ipynb, cell {index}", docname, cell.source
            if caption(cell):
                yield f"{docname}.ipynb, caption of cell {index}", docname, caption(cell)
    for docname in MARKDOWN_PAGES:
        yield f"{docname}.md", docname, (ROOT / f"{docname}.md").read_text(encoding="utf-8")
    for path in QUIZZES:
        docname = quiz_pages().get(path.stem, f"chapters/{path.stem}")
        for where, text in strings(yaml.safe_load(path.read_text(encoding="utf-8"))):
            yield f"{_rel(path)}, {where}", docname, text
    for language, docname in CATALOGUES:
        for entry in catalogue(language, docname):
            yield (
                f"{_rel(catalogue_path(language, docname))}, msgid {entry.msgid[:50]!r}",
                docname,
                entry.msgstr,
            )


def test_every_link_lands() -> None:
    problems = [
        f"{where}: {problem}"
        for where, docname, text in _linked_texts()
        for problem in link_problems(text, docname)
    ]
    assert problems == [], f"{len(problems)} broken link(s)\n" + "\n".join(problems)


def test_the_link_check_finds_broken_links() -> None:
    page = "chapters/12_positions_on_grids"
    assert link_problems("{doc}`chapter 10 <10_length_experiment>` {ref}`ex-length-4`", page) == []
    assert link_problems("{doc}`chapter 9 <10_length_experiment>`", page) != []
    assert link_problems("{doc}`第 9 章 <10_length_experiment>`", page) != []
    assert link_problems("{doc}`chapter 10 <10_length>`", page) != []
    assert link_problems("{doc}`this chapter <12_positions_on_grids>`", page) != []
    assert link_problems("{ref}`ex-length-99`", page) != []
    assert link_problems("{eq}`fig-grid-pairs`", page) != []
    assert link_problems("{doc}`the appendix <../appendix/which_encoding>`", page) == []


# ---------------------------------------------------------------------------------------------
# what a deck can show


@pytest.mark.parametrize("docname", NOTEBOOKS)
def test_deck_links_name_labels_of_their_own_page(docname: str) -> None:
    """slides.py reads a label's number and anchor from the deck's own page: an ``{eq}``,
    ``{numref}`` or ``{ref}`` to another chapter would show the bare label and link to the
    wrong page. (A ``{doc}`` converts to a link anywhere.)"""
    problems = []
    for index, cell in enumerate(notebook(docname).cells):
        if slide_type(cell) in (None, "skip"):
            continue
        texts = [cell.source] if cell.cell_type == "markdown" else [caption(cell)]
        for text in texts:
            for m in _ROLE.finditer(text):
                target = _doc_target(m.group(2))
                if m.group(1) in ("ref", "numref", "eq") and target in labels():
                    page = labels()[target][0]
                    if page != docname:
                        problems.append(f"{docname}.ipynb, cell {index}: {m.group(0)} is on {page}")
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("path", QUIZZES, ids=_rel)
def test_quiz_questions_a_deck_shows_have_their_roles_converted(path: Path) -> None:
    """The deck shows the quiz as an HTML block (``slides.question_html``), where Markdown and
    MyST are not read: ``slides.quiz_inline`` turns each role into its text or a link, and a
    ``{doc}`` link must land on a page of the book."""
    from book.ext.slides import Context, quiz_inline

    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    folder = "appendix" if path.stem == "which_encoding" else "chapters"
    ctx = Context(ROOT, f"{folder}/{path.stem}", {}, {}, "", path.parent.name)
    problems = []
    for where, text in strings(data["questions"][:QUIZ_QUESTIONS]):
        if where.rpartition(" ")[2] not in ("question", "text", "why"):  # what the deck shows
            continue
        shown = quiz_inline(ctx, text)
        problems += [
            f"{_rel(path)}, {where}: {m.group(0)} left as typed" for m in _ROLE.finditer(shown)
        ]
        for href in re.findall(r'<a href="\.\./([^"#]+)\.html', shown):
            if not any((ROOT / f"{href}{ext}").is_file() for ext in (".ipynb", ".md")):
                problems.append(f"{_rel(path)}, {where}: a link to the missing page {href}")
    assert problems == [], "\n".join(problems)
