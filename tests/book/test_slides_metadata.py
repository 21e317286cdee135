"""Slide decks (deck v2): every notebook marks its lecture deck with standard metadata, and the MyST converter works.

The notebooks' cell metadata is the one source of each deck: which cells are slides and what the
lecturer says (speaker notes). The browser suite (tests/browser/test_slides.py) checks the built
decks; these tests check the notebooks against the rules of CONTRIBUTING.md ("Slides") and
``book/ext/slides.py``'s conversion of MyST, with no build.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]

from book.ext.slides import (
    SLIDE_TYPES,
    Context,
    convert_links,
    convert_markdown,
    deck_notebook,
    has_slides,
    page_numbers,
    slide_type,
)
from book.tools.build_handouts import toc_pages

DOCNAMES = [d for d in toc_pages() if (ROOT / f"{d}.ipynb").exists()]  # chapters and appendix
NOTEBOOKS = [ROOT / f"{d}.ipynb" for d in DOCNAMES]
STARTS = ("slide", "subslide")


def _read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def _slides(nb: nbformat.NotebookNode) -> list[list[nbformat.NotebookNode]]:
    """The deck's slides, each the list of its cells (skipped cells left out)."""
    slides: list[list[nbformat.NotebookNode]] = []
    for cell in nb.cells:
        kind = slide_type(cell)
        if kind in STARTS:
            slides.append([cell])
        elif kind not in (None, "skip") and slides:
            slides[-1].append(cell)
    return slides


# ---------------------------------------------------------------------------------------------
# deck v2: lecture slides, read from the metadata alone

MIN_SLIDES, MAX_SLIDES = 10, 30
MAX_WORDS = 60  # prose on a slide: title and math not counted, a Chinese character half a word
MAX_FIGURE_WORDS = 15  # a line above a figure, explorer or table
MIN_SENTENCES, MAX_SENTENCES = 3, 8  # what the lecturer says, before the time and question
MINUTES = {"chapter": (30, 60), "appendix": (10, 30)}  # a deck's notes, added up
OBJECTIVES, SUMMARY, QUIZ = "## Learning objectives", "## Summary", "## Check yourself"
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|et al|cf|vs)\.")
_SENTENCE_END = re.compile(r"[.!?]+[\"')\]*_]*(?=\s|$)|[。！？]+[”」）]*")
_NOT_PLAIN = re.compile(r"\{[\w:-]+\}`|^ {0,3}#|^ {0,3}(?:```|:::)|\$", re.MULTILINE)
_LABELLED_MATH = re.compile(r"\$\$[ \t]*\([\w:.-]+\)|\\tag\{")
_TIME_LINE = re.compile(r"^Time: about (\d+(?:\.\d+)?) min\. Ask: .+\?$")
_TIME_LINE_ZH = re.compile(r"^时间：约 (\d+(?:\.\d+)?) 分钟。提问：.+？$")
_QUIZ_DIRECTIVE = re.compile(r"^`{3,}\{quiz\}[ \t]*\S+", re.MULTILINE)
_MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$", re.DOTALL)
_ROLE = re.compile(r"\{[\w:-]+\}`([^`<]*?)\s*(?:<[^>]*>)?`")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def sentences(text: str) -> int:
    """The number of sentences of ``text`` (ends of sentences; "e.g." and "et al." are none)."""
    return len(_SENTENCE_END.findall(_ABBREVIATION.sub("", text.strip())))


def prose_words(source: str) -> float:
    """The words a slide cell shows, its ``#`` title and its math left out; a Chinese
    character counts as half a word (about the space it takes)."""
    lines = [line for line in source.splitlines() if not re.match(r"^#{1,3} ", line)]
    text = _ROLE.sub(
        lambda m: m.group(1) if "<" in m.group(0) else "x", _MATH.sub(" ", "\n".join(lines))
    )
    text = re.sub(r"<[^>]+>|[`*_>#|-]", " ", text)
    han = len(_CJK.findall(text))
    latin = [w for w in _CJK.sub(" ", text).split() if re.search(r"[A-Za-z0-9]", w)]
    return len(latin) + han / 2


def last_text(source: str) -> str:
    """The last line of text a slide cell shows (math, fences and blank lines skipped)."""
    text = _MATH.sub("", source)
    lines = [line.strip() for line in text.splitlines() if line.strip() and "```" not in line]
    return lines[-1] if lines else ""


def notes_minutes(source: str) -> float | None:
    """The minutes the notes' last line gives (``Time: about N min. Ask: …?``), or None."""
    last = source.strip().splitlines()[-1] if source.strip() else ""
    match = _TIME_LINE.match(last) or _TIME_LINE_ZH.match(last)
    return float(match.group(1)) if match else None


def _is_deck_only(cell: nbformat.NotebookNode) -> bool:
    return cell.cell_type == "markdown" and "remove-cell" in cell.metadata.get("tags", [])


def _has_line(cell: nbformat.NotebookNode, line: str) -> bool:
    return cell.cell_type == "markdown" and bool(
        re.search(rf"^{re.escape(line)}\s*$", cell.source, re.MULTILINE)
    )


def shows_an_explorer(cell: nbformat.NotebookNode) -> bool:
    """True for a code cell whose last statement calls a ``*_explorer`` (what it shows)."""
    if cell.cell_type != "code":
        return False
    source = "\n".join(
        line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!"))
    )
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return bool(re.search(r"\w_explorer\(", source))
    last = body[-1] if body else None
    if not (isinstance(last, ast.Expr) and isinstance(last.value, ast.Call)):
        return False
    func = last.value.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    return name.endswith("_explorer")


def page_title(nb: nbformat.NotebookNode) -> str | None:
    """The page's ``# `` heading (from a cell the page shows)."""
    for cell in nb.cells:
        if cell.cell_type == "markdown" and not _is_deck_only(cell):
            match = re.search(r"^# (.+)$", cell.source, re.MULTILINE)
            if match:
                return match.group(1).strip()
    return None


def deck_problems(nb: nbformat.NotebookNode, *, chapter: bool = True) -> list[str]:
    """What breaks the deck rules of CONTRIBUTING.md ("Slides") in ``nb``, from its metadata.

    ``chapter``: a chapter's deck also shows its objectives and summary (the appendix has none).
    Each problem names the cell (its index) it is about; no problem, an empty list.
    """
    cells = nb.cells
    kinds = [slide_type(c) for c in cells]
    problems = [
        f"cell {i}: slide_type {k!r} is none of {SLIDE_TYPES}"
        for i, k in enumerate(kinds)
        if k not in SLIDE_TYPES
    ]
    for i, cell in enumerate(cells):
        if cell.cell_type == "markdown" and not _is_deck_only(cell) and kinds[i] != "skip":
            problems.append(f"cell {i}: a page cell in the deck (the deck has slide-only cells)")
    starts = [i for i, k in enumerate(kinds) if k in STARTS]
    if not MIN_SLIDES <= len(starts) <= MAX_SLIDES:
        problems.append(f"{len(starts)} slides, not {MIN_SLIDES} to {MAX_SLIDES}")
    first_in_deck = next((i for i, k in enumerate(kinds) if k not in (None, "skip")), None)
    if starts and first_in_deck is not None and first_in_deck < starts[0]:
        problems.append(f"cell {first_in_deck}: deck cells before the first slide")
    title = page_title(nb)

    minutes = 0.0
    found = {"objectives": False, "summary": False, "quiz": False}
    for n, (start, end) in enumerate(zip(starts, [*starts[1:], len(cells)])):
        members = [i for i in range(start, end) if kinds[i] not in (None, "skip")]
        head = cells[start]
        if not _is_deck_only(head) or kinds[start] != "slide":
            problems.append(f"cell {start}: a slide starts with a slide-only markdown cell")
            continue
        first_line = head.source.strip().splitlines()[0] if head.source.strip() else ""
        if n == 0:
            if first_line != f"# {title}":
                problems.append(f"cell {start}: the first slide's title is not '# {title}'")
        elif not re.match(r"^## \S", first_line):
            problems.append(f"cell {start}: a slide without a '## ' title")
        notes = [i for i in members if kinds[i] == "notes"]
        body = [i for i in members if kinds[i] != "notes"]
        code = [i for i in body if cells[i].cell_type == "code"]
        shown = [i for i in body if cells[i].cell_type == "markdown"]
        if len(notes) != 1:
            problems.append(f"cell {start}: a slide with {len(notes)} notes cells, not one")
        elif notes[0] != members[-1]:
            problems.append(f"cell {notes[0]}: notes before the end of their slide")
        for i in shown[1:]:
            if kinds[i] != "fragment" or not _is_deck_only(cells[i]):
                problems.append(f"cell {i}: more of a slide is a slide-only 'fragment' cell")
            if re.match(r"^#{1,3} ", cells[i].source.strip()):
                problems.append(f"cell {i}: a fragment with a heading")
        for i in shown:
            if _LABELLED_MATH.search(cells[i].source):
                problems.append(f"cell {i}: a slide cell has labelled or tagged math")
        if len(code) > 1:
            problems.append(f"cell {start}: {len(code)} code cells on one slide")
        for i in code:
            if kinds[i] != "-":
                problems.append(f"cell {i}: a code cell on a slide is '-' after its title cell")
        words = sum(prose_words(cells[i].source) for i in shown)
        quiz = bool(_QUIZ_DIRECTIVE.search(head.source))
        limit = MAX_FIGURE_WORDS if code else MAX_WORDS
        if words > limit and not quiz:
            problems.append(f"cell {start}: {words:g} words on a slide, over {limit}")
        if shown and re.search(r"[:：]$", last_text(cells[shown[-1]].source)):
            problems.append(f"cell {start}: the slide's text ends with a colon")
        if any(shows_an_explorer(cells[i]) for i in code) and len(shown) > 1:
            problems.append(f"cell {start}: an explorer's slide has fragments")
        found["objectives"] |= first_line == OBJECTIVES
        found["summary"] |= first_line == SUMMARY
        if first_line == QUIZ:
            found["quiz"] = True
            if not quiz:
                problems.append(f"cell {start}: the quiz slide has no quiz directive")
        for i in notes:
            note = cells[i]
            if note.cell_type != "markdown" or "remove-cell" not in note.metadata.get("tags", []):
                problems.append(f"cell {i}: notes need a markdown cell tagged remove-cell")
            if _NOT_PLAIN.search(note.source):
                problems.append(f"cell {i}: notes are plain sentences (no roles, headings, math)")
            said = note.source.strip().splitlines()
            count = sentences("\n".join(said[:-1]))
            if not MIN_SENTENCES <= count <= MAX_SENTENCES:
                problems.append(
                    f"cell {i}: notes of {count} sentences, not {MIN_SENTENCES} to {MAX_SENTENCES}"
                )
            spent = notes_minutes(note.source)
            if spent is None:
                problems.append(f"cell {i}: notes end without 'Time: about N min. Ask: …?'")
            else:
                minutes += spent
    for i, cell in enumerate(cells):
        if shows_an_explorer(cell) and kinds[i] != "-":
            problems.append(f"cell {i}: an explorer not on a slide of its own")
    wanted = ["quiz"] + (["objectives", "summary"] if chapter else [])
    problems += [f"no {what} slide" for what in wanted if not found[what]]
    low, high = MINUTES["chapter" if chapter else "appendix"]
    if starts and not low <= minutes <= high:
        problems.append(f"the notes add up to {minutes:g} min, not {low} to {high}")
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_cell_carries_a_slide_type(path: Path) -> None:
    nb = _read(path)
    untagged = [i for i, c in enumerate(nb.cells) if slide_type(c) is None]
    assert untagged == [], f"cells without metadata.slideshow.slide_type: {untagged}"
    wrong = [(i, slide_type(c)) for i, c in enumerate(nb.cells) if slide_type(c) not in SLIDE_TYPES]
    assert wrong == [], "unknown slide types"
    assert has_slides(nb), "no cell starts a slide"


@pytest.mark.parametrize("docname", DOCNAMES)
def test_the_deck_follows_the_rules(docname: str) -> None:
    """Titled slides of at most 60 words, figures alone, one plain note with a time and a
    question per slide; title, objectives, explorers, quiz and summary."""
    nb = _read(ROOT / f"{docname}.ipynb")
    assert deck_problems(nb, chapter=docname.startswith("chapters/")) == []


@pytest.mark.parametrize("docname", DOCNAMES)
def test_the_translated_deck_keeps_to_the_limits(docname: str) -> None:
    """The Chinese of every slide cell: at most 60 words (a character half a word), no colon
    at the end, the same math; notes end with the time and the question."""
    from book.ext.editions import SLIDES_DOMAIN, TRANSLATIONS, deck_only, messages

    nb = _read(ROOT / f"{docname}.ipynb")
    problems = []
    for language in TRANSLATIONS:
        slides = messages(language, SLIDES_DOMAIN)
        for i, cell in enumerate(nb.cells):
            if not deck_only(cell) or slide_type(cell) in (None, "skip"):
                continue
            zh = slides.get(cell.source.strip())
            if zh is None:
                problems.append(f"cell {i}: not translated")
                continue
            if sorted(_MATH.findall(zh)) != sorted(_MATH.findall(cell.source.strip())):
                problems.append(f"cell {i}: math differs from the English")
            if slide_type(cell) == "notes":
                if notes_minutes(zh) != notes_minutes(cell.source):
                    problems.append(f"cell {i}: notes without '时间：约 N 分钟。提问：…？'")
            elif prose_words(zh) > MAX_WORDS and not _QUIZ_DIRECTIVE.search(zh):
                problems.append(f"cell {i}: {prose_words(zh):g} words")
            elif re.search(r"[:：]$", last_text(zh)):
                problems.append(f"cell {i}: ends with a colon")
    assert problems == []


# each rule broken once, on an in-memory copy of chapter 1: the checker must say so


def _head(title: str) -> Callable[[nbformat.NotebookNode], nbformat.NotebookNode]:
    def find(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
        return next(c for c in nb.cells if _is_deck_only(c) and c.source.strip().startswith(title))

    return find


def _first(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    return next(c for c in nb.cells if slide_type(c) in STARTS)


def _notes_of(nb: nbformat.NotebookNode, cell: nbformat.NotebookNode) -> nbformat.NotebookNode:
    start = nb.cells.index(cell)
    return next(c for c in nb.cells[start + 1 :] if slide_type(c) == "notes")


def _retype(cell: nbformat.NotebookNode, kind: str) -> None:
    cell.metadata["slideshow"]["slide_type"] = kind


def _new(source: str, kind: str, tags: tuple[str, ...] = ("remove-cell",)) -> nbformat.NotebookNode:
    metadata = {"slideshow": {"slide_type": kind}} | ({"tags": list(tags)} if tags else {})
    return nbformat.v4.new_markdown_cell(source, metadata=metadata)


def _insert_after(nb: nbformat.NotebookNode, cell: nbformat.NotebookNode, new: object) -> None:
    nb.cells.insert(nb.cells.index(cell) + 1, new)


NOTE = "Say it. Then say why. Then stop.\nTime: about 1 min. Ask: why?"
_explorer = lambda nb: next(c for c in nb.cells if shows_an_explorer(c))
_page = lambda nb: next(c for c in nb.cells if c.cell_type == "markdown" and not _is_deck_only(c))


def _thirty_one_slides(nb: nbformat.NotebookNode) -> None:
    while sum(slide_type(c) in STARTS for c in nb.cells) < MAX_SLIDES + 1:
        nb.cells += [_new("## More", "slide"), _new(NOTE, "notes")]


def _nine_slides(nb: nbformat.NotebookNode) -> None:
    while sum(slide_type(c) in STARTS for c in nb.cells) > MIN_SLIDES - 1:
        last = max(i for i, c in enumerate(nb.cells) if slide_type(c) in STARTS)
        for c in nb.cells[last:]:
            if slide_type(c) not in (None, "skip"):
                _retype(c, "skip")


MUTATIONS: dict[str, tuple[Callable[[nbformat.NotebookNode], object], str]] = {
    "a page cell on a slide": (lambda nb: _retype(_page(nb), "slide"), "a page cell in the deck"),
    "the title changed": (
        lambda nb: setattr(_first(nb), "source", "# Another title\n\nText."),
        "the first slide's title",
    ),
    "an untitled slide": (
        lambda nb: setattr(_head(OBJECTIVES)(nb), "source", "- one\n- two"),
        "without a '## ' title",
    ),
    "a long slide": (
        lambda nb: setattr(_head(OBJECTIVES)(nb), "source", OBJECTIVES + "\n\n" + "word " * 61),
        "61 words on a slide",
    ),
    "a colon lead-in": (
        lambda nb: setattr(_head(OBJECTIVES)(nb), "source", OBJECTIVES + "\n\nThere are two:"),
        "ends with a colon",
    ),
    "a fragment with a heading": (
        lambda nb: _insert_after(nb, _head(OBJECTIVES)(nb), _new("## Again", "fragment")),
        "a fragment with a heading",
    ),
    "labelled math": (
        lambda nb: setattr(_head(OBJECTIVES)(nb), "source", OBJECTIVES + "\n\n$$\nx\n$$ (eq-m)"),
        "labelled or tagged math",
    ),
    "objectives skipped": (
        lambda nb: _retype(_head(OBJECTIVES)(nb), "skip"),
        "no objectives slide",
    ),
    "summary skipped": (lambda nb: _retype(_head(SUMMARY)(nb), "skip"), "no summary slide"),
    "quiz without its directive": (
        lambda nb: setattr(_head(QUIZ)(nb), "source", QUIZ + "\n\nThink about it."),
        "the quiz slide has no quiz directive",
    ),
    "explorer skipped": (
        lambda nb: _retype(_explorer(nb), "skip"),
        "an explorer not on a slide",
    ),
    "notes of the title removed": (
        lambda nb: nb.cells.remove(_notes_of(nb, _first(nb))),
        "a slide with 0 notes cells",
    ),
    "two notes for one slide": (
        lambda nb: _insert_after(nb, _first(nb), _new(NOTE, "notes")),
        "a slide with 2 notes cells",
    ),
    "notes with math": (
        lambda nb: setattr(_notes_of(nb, _first(nb)), "source", "Point at $x$. " + NOTE),
        "notes are plain",
    ),
    "notes of one sentence": (
        lambda nb: setattr(_notes_of(nb, _first(nb)), "source", "One.\n" + NOTE.split("\n")[1]),
        "notes of 1 sentences",
    ),
    "notes without time": (
        lambda nb: setattr(_notes_of(nb, _first(nb)), "source", "One. Two. Three."),
        "without 'Time: about N min",
    ),
    "notes shown on the page": (
        lambda nb: _notes_of(nb, _first(nb)).metadata.pop("tags"),
        "tagged remove-cell",
    ),
    "a cell without a slide type": (
        lambda nb: nb.cells[1].metadata.pop("slideshow"),
        "slide_type None",
    ),
    "nine slides": (_nine_slides, "9 slides, not 10 to 30"),
    "thirty-one slides": (_thirty_one_slides, "31 slides, not 10 to 30"),
}


@pytest.mark.parametrize("mutation", MUTATIONS)
def test_the_checker_finds_a_broken_rule(mutation: str) -> None:
    nb = _read(NOTEBOOKS[0])
    assert deck_problems(nb) == [], "chapter 1 itself follows the rules"
    change, expected = MUTATIONS[mutation]
    change(nb)
    problems = deck_problems(nb)
    assert any(expected in p for p in problems), problems


def test_the_appendix_needs_no_objectives_or_summary() -> None:
    nb = _read(ROOT / "appendix" / "which_encoding.ipynb")
    assert deck_problems(nb, chapter=False) == []
    assert "no objectives slide" in deck_problems(nb)


def test_sentences_words_and_times_are_read_as_a_lecturer_would() -> None:
    assert (
        sentences("Shaw et al. add a vector, e.g. per offset. Ask: why? It is 3.5% (small).") == 3
    )
    assert sentences("One line with no end") == 0
    assert sentences("先看公式。再看图！") == 2
    assert prose_words("## A title\n\n- two words\n- and $x + y$ three") == 4
    assert prose_words("正余弦 encoding") == 2.5
    assert prose_words("See {eq}`eq-a` and {doc}`Chapter 6 <06_shaw_relative>`.") == 5
    assert notes_minutes("Say it.\nTime: about 3 min. Ask: why?") == 3
    assert notes_minutes("说。\n时间：约 2.5 分钟。提问：为什么？") == 2.5
    assert notes_minutes("Time: 3 minutes.") is None
    assert last_text("## T\n\nThe two cases:\n\n$$\nx\n$$\n") == "The two cases:"


# ---------------------------------------------------------------------------------------------
# the MyST converter

PAGE = """
<div class="math notranslate nohighlight" id="equation-eq-a">
<span class="eqno">(3.1)<a class="headerlink" href="#equation-eq-a">#</a></span>\\[x\\]</div>
<figure class="align-default" id="fig-a"><img src="a.png"/>
<figcaption><p><span class="caption-number">Fig. 3.2 </span><span class="caption-text">A.</span></p></figcaption></figure>
<div class="exercise admonition" id="ex-a"><p class="admonition-title"><span class="caption-number">Exercise 3.1 </span></p></div>
"""


def _ctx(tmp_path: Path) -> Context:
    (tmp_path / "quizzes" / "en").mkdir(parents=True)
    (tmp_path / "quizzes" / "en" / "03_x.yaml").write_text(
        "questions:\n"
        "  - {id: a, type: choice, question: 'Is $x$ **big**?', choices: "
        "[{text: 'Yes', correct: true, why: 'It is.'}, {text: 'No', why: 'It is not.'}]}\n"
        "  - {id: b, type: number, question: 'How many?', answer: 3, tolerance: 0, why: 'Count.'}\n"
        "  - {id: c, type: number, question: 'Third?', answer: 1, tolerance: 0, why: 'One.'}\n"
    )
    cites = {"vaswani2017attention": ("Vaswani et al.", "2017")}
    return Context(tmp_path, "chapters/03_x", page_numbers(PAGE), cites, "X")


def test_page_numbers_reads_equations_figures_and_exercises() -> None:
    numbers = page_numbers(PAGE)
    assert numbers["eq-a"] == "(3.1)"
    assert numbers["fig-a"] == "Fig. 3.2"
    assert numbers["ex-a"] == "Exercise 3.1"


def test_labelled_math_keeps_its_number(tmp_path: Path) -> None:
    out = convert_markdown(_ctx(tmp_path), "Text\n\n$$\nx = 1\n$$ (eq-a)\n\nmore")
    assert "$$\nx = 1\n\\tag{3.1}\n$$" in out
    assert "(eq-a)" not in out


def test_roles_become_linked_text(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    out = convert_markdown(
        ctx,
        "See {eq}`eq-a`, {numref}`fig-a`, {ref}`ex-a`, {footcite:p}`vaswani2017attention` "
        "and {footcite:t}`vaswani2017attention`.",
    )
    assert "[(3.1)](../chapters/03_x.html#equation-eq-a)" in out
    assert "[Figure 3.2](../chapters/03_x.html#fig-a)" in out
    assert "[Exercise 3.1](../chapters/03_x.html#ex-a)" in out
    assert "(Vaswani et al., 2017)" in out and "Vaswani et al. (2017)" in out
    assert "{" not in out


def test_links_to_sources_become_links_to_pages(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    out = convert_links(ctx, "[a](04_y.ipynb), [b](../intro.md#top), [c](https://x.org/d.md)")
    assert out == "[a](../chapters/04_y.html), [b](../intro.html#top), [c](https://x.org/d.md)"


def test_admonitions_exercises_and_solutions(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    out = convert_markdown(
        ctx,
        "```{admonition} Learning objectives\n:class: tip\n- one\n- two\n```\n\n"
        ":::{exercise}\n:label: ex-a\nDo it.\n:::\n\n```{solution-start} ex-a\n:class: dropdown\n```\n",
    )
    assert '<div class="deck-box tip">' in out and "Learning objectives" in out
    assert "\n\n- one\n- two\n\n</div>" in out
    assert "Exercise 3.1" in out and "Do it." in out
    assert "solution" not in out and "```" not in out and ":::" not in out


def test_the_quiz_gives_each_question_a_slide_with_choices_to_click(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    quiz = nbformat.v4.new_markdown_cell(
        "## Check yourself\n\n```{quiz} 03_x\n```",
        metadata={"slideshow": {"slide_type": "slide"}, "tags": ["remove-cell"]},
    )
    notes = nbformat.v4.new_markdown_cell(
        "Give them a minute.", metadata={"slideshow": {"slide_type": "notes"}}
    )
    summary = nbformat.v4.new_markdown_cell(
        "## Summary", metadata={"slideshow": {"slide_type": "slide"}}
    )
    nb = nbformat.v4.new_notebook(cells=[quiz, notes, summary])
    cells = deck_notebook(nb, ctx).cells
    kinds = [c.metadata["slideshow"]["slide_type"] for c in cells]
    assert kinds == ["slide", "notes"] * 3 + ["slide"], "every question, each with its notes"
    first, second, third = cells[0].source, cells[2].source, cells[4].source
    assert first.startswith("## Check yourself (1/3)") and second.startswith(
        "## Check yourself (2/3)"
    )
    assert third.startswith("## Check yourself (3/3)") and "Third?" in third
    assert first.count('class="deck-choice"') == 2 and 'data-correct="true"' in first
    assert "<strong>big</strong>" in first and "$x$" in first
    # the answer letter follows the shuffled order: id "a" shows its right choice second
    assert "B. It is." in first and "3. Count." in second and "Third?" not in second
    assert cells[1].source == "Give them a minute." and cells[3].source == "Answer: 3. Count."
    assert cells[5].source == "Answer: 1. One."
    assert "\n\n" not in first.split("(1/3)", 1)[1].strip(), "one HTML block"


def test_a_deck_says_its_language_title_and_links_the_other_edition(tmp_path: Path) -> None:
    from book.ext.slides import finish_deck

    ctx = _ctx(tmp_path)
    ctx.language, ctx.title = "zh_CN", "正余弦"
    body = '<html lang="en">\n<title>X slides</title><div class="reveal">'
    out = finish_deck(body, ctx, "03_x.slides.html")
    assert '<html lang="zh-CN">' in out and "<title>正余弦 · 幻灯片</title>" in out
    assert 'href="../../slides/03_x.slides.html" hreflang="en"' in out
    english = finish_deck(body, _ctx(tmp_path / "en"), "03_x.slides.html")
    assert '<html lang="en">' in english and 'href="../zh_CN/slides/03_x.slides.html"' in english


def test_deck_notebook_drops_skipped_cells_and_widget_views(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["widgets"] = {"state": {}}
    skip = nbformat.v4.new_markdown_cell("gone", metadata={"slideshow": {"slide_type": "skip"}})
    title = nbformat.v4.new_markdown_cell(
        "# T {eq}`eq-a`", metadata={"slideshow": {"slide_type": "slide"}}
    )
    code = nbformat.v4.new_code_cell(
        "explorer()",
        metadata={
            "slideshow": {"slide_type": "slide"},
            "mystnb": {"figure": {"name": "fig-a", "caption": "First. Second."}},
        },
    )
    code.outputs = [
        nbformat.v4.new_output(
            "execute_result",
            data={
                "application/vnd.jupyter.widget-view+json": {"model_id": "x"},
                "text/html": "<div>static</div>",
            },
        ),
        nbformat.v4.new_output("stream", name="stderr", text="noise"),
    ]
    nb.cells = [skip, title, code]
    out = deck_notebook(nb, _ctx(tmp_path))
    assert [c.cell_type for c in out.cells] == ["markdown", "code", "markdown"]
    assert "widgets" not in out.metadata
    assert list(out.cells[1].outputs[0]["data"]) == ["text/html"]
    assert len(out.cells[1].outputs) == 1
    caption = out.cells[2].source
    assert "Figure 3.2" in caption and "First." in caption and "Second" not in caption


def test_a_references_heading_left_empty_is_dropped(tmp_path):
    out = convert_markdown(
        _ctx(tmp_path), "## Summary\n\n- one\n\n## References\n\n```{footbibliography}\n```"
    )
    assert "References" not in out and "- one" in out


def test_a_translated_references_heading_is_dropped_too(tmp_path):
    """A Chinese deck's summary slide loses its 参考文献 heading as the English one does."""
    ctx = Context(tmp_path, "chapters/03_sinusoidal", {}, {}, "", "zh_CN")
    out = convert_markdown(ctx, "## 小结\n\n- 一\n\n## 参考文献\n\n```{footbibliography}\n```")
    assert "参考文献" not in out and "- 一" in out


def test_a_figure_shows_its_slide_version_in_the_deck() -> None:
    from book.ext.slides import use_slide_version

    output = {
        "data": {"image/png": "PAGE"},
        "metadata": {
            "image/png": {
                "width": 670,
                "height": 400,
                "text_px": 11.1,
                "slide": {"png": "SLIDE", "width": 480.5, "height": 290.0, "text_px": 11.1},
            }
        },
    }
    assert use_slide_version(output)
    assert output["data"]["image/png"] == "SLIDE"
    assert output["metadata"]["image/png"] == {"width": 480.5, "height": 290.0, "text_px": 11.1}
    plain = {"data": {"image/png": "PAGE"}, "metadata": {"image/png": {"width": 670}}}
    assert not use_slide_version(plain)
    assert plain == {"data": {"image/png": "PAGE"}, "metadata": {"image/png": {"width": 670}}}


def test_a_long_table_is_split_evenly_with_its_header() -> None:
    from book.ext.slides import split_table

    head = "| a | b |\n|---|---|"
    rows = [f"| {k} | {k * k} |" for k in range(17)]
    parts = split_table("\n".join([head, *rows]), rows=8)
    assert [p.count("\n") - 1 for p in parts] == [6, 6, 5]  # 17 rows: 6 + 6 + 5
    assert all(p.startswith(head) for p in parts)
    assert "\n".join(line for p in parts for line in p.splitlines()[2:]) == "\n".join(rows)
    short = "\n".join([head, *rows[:8]])
    assert split_table(short, rows=8) == [short]
    text = "Not a table\nat all\nreally"
    assert split_table(text, rows=1) == [text]


def test_a_long_table_goes_on_as_many_slides_as_it_needs(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    table = "\n".join(["| a |", "|---|", *[f"| {k} |" for k in range(12)]])
    slide = nbformat.v4.new_markdown_cell(
        "## The table\n\nOne line.", metadata={"slideshow": {"slide_type": "slide"}}
    )
    code = nbformat.v4.new_code_cell("Markdown(t)", metadata={"slideshow": {"slide_type": "-"}})
    code.outputs = [
        nbformat.v4.new_output("display_data", data={"text/markdown": table, "text/plain": "t"})
    ]
    notes = nbformat.v4.new_markdown_cell(
        "Read it.", metadata={"slideshow": {"slide_type": "notes"}}
    )
    after = nbformat.v4.new_markdown_cell(
        "## Next", metadata={"slideshow": {"slide_type": "slide"}}
    )
    nb = nbformat.v4.new_notebook(cells=[slide, code, notes, after])
    cells = deck_notebook(nb, ctx).cells
    kinds = [c.metadata["slideshow"]["slide_type"] for c in cells]
    assert kinds == ["slide", "-", "notes", "slide", "-", "notes", "slide"]
    assert cells[3].source == "## The table (continued)"
    assert cells[5].source == "The table, continued from the previous slide."
    first = cells[1].outputs[0]["data"]["text/markdown"]
    second = cells[4].outputs[0]["data"]["text/markdown"]
    assert first.count("\n") == second.count("\n") == 7  # header, rule and 6 rows each
    assert "| 5 |" in first and "| 6 |" in second


def test_a_slide_keeps_what_its_code_cell_prints_when_that_is_all_it_shows(
    tmp_path: Path,
) -> None:
    ctx = _ctx(tmp_path)
    slide = nbformat.v4.new_markdown_cell(
        "## Pairs", metadata={"slideshow": {"slide_type": "slide"}}
    )
    printed = nbformat.v4.new_code_cell("print(1)", metadata={"slideshow": {"slide_type": "-"}})
    printed.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="pair 0: 6.3\n"),
        nbformat.v4.new_output("stream", name="stderr", text="a warning\n"),
    ]
    figure = nbformat.v4.new_code_cell("fig()", metadata={"slideshow": {"slide_type": "-"}})
    figure.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="progress 100%\n"),
        nbformat.v4.new_output("display_data", data={"text/plain": "<Figure>"}),
    ]
    nb = nbformat.v4.new_notebook(cells=[slide, printed, figure])
    cells = deck_notebook(nb, ctx).cells
    assert [o["text"] for o in cells[1].outputs] == ["pair 0: 6.3\n"]
    assert [o["output_type"] for o in cells[2].outputs] == ["display_data"]
