"""Slide decks: every notebook marks its deck with standard metadata, and the MyST converter works.

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
# the deck selection, read from the metadata alone

OBJECTIVES = "```{admonition} Learning objectives"
MIN_SLIDES, MAX_SLIDES = 10, 30
# CONTRIBUTING.md asks for two to five sentences of notes, but about half of the notes have one:
# the checker asks for at least one until those are written out. It does not count a slide's
# words: most slides that show a page cell as it is are far longer than a compact slide.
MIN_SENTENCES, MAX_SENTENCES = 1, 5
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|et al|cf|vs)\.")
_SENTENCE_END = re.compile(r"[.!?]+[\"')\]*_]*(?=\s|$)")
_NOT_PLAIN = re.compile(r"\{[\w:-]+\}`|^ {0,3}#|^ {0,3}(?:```|:::)", re.MULTILINE)
_LABELLED_MATH = re.compile(r"\$\$[ \t]*\([\w:.-]+\)")


def sentences(text: str) -> int:
    """The number of sentences of ``text`` (ends of sentences; "e.g." and "et al." are none)."""
    return len(_SENTENCE_END.findall(_ABBREVIATION.sub("", text.strip())))


def _starts(cell: nbformat.NotebookNode, text: str) -> bool:
    return cell.cell_type == "markdown" and cell.source.lstrip().startswith(text)


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
    deck = [i for i, k in enumerate(kinds) if k in SLIDE_TYPES and k != "skip"]
    starts = [i for i in deck if kinds[i] in STARTS]
    if not MIN_SLIDES <= len(starts) <= MAX_SLIDES:
        problems.append(f"{len(starts)} slides, not {MIN_SLIDES} to {MAX_SLIDES}")
    in_deck = {i for i in deck if starts and i >= starts[0]}  # cells shown on some slide

    title = next((i for i, c in enumerate(cells) if _starts(c, "# ")), None)
    if title is None:
        problems.append("no title cell (a markdown cell starting with '# ')")
    elif kinds[title] != "slide" or deck[:1] != [title]:
        problems.append(f"cell {title}: the title is not the deck's first slide")
    wanted = [("quiz", lambda c: _has_line(c, "## Check yourself"), in_deck, "in the deck")]
    if chapter:
        wanted += [
            ("objectives", lambda c: _starts(c, OBJECTIVES), set(starts), "a slide"),
            ("summary", lambda c: _has_line(c, "## Summary"), set(starts), "a slide"),
        ]
    for what, matches, allowed, where in wanted:
        found = [i for i, c in enumerate(cells) if matches(c)]
        if not found:
            problems.append(f"no {what} cell")
        problems += [f"cell {i}: the {what} cell is not {where}" for i in found if i not in allowed]
    for i, cell in enumerate(cells):
        if shows_an_explorer(cell) and kinds[i] not in STARTS:
            problems.append(f"cell {i}: an explorer not on a slide of its own")

    for i, cell in enumerate(cells):
        tags = cell.metadata.get("tags", [])
        if kinds[i] == "notes":
            n = sentences(cell.source)
            if cell.cell_type != "markdown" or "remove-cell" not in tags:
                problems.append(f"cell {i}: notes need a markdown cell tagged remove-cell")
            if _NOT_PLAIN.search(cell.source):
                problems.append(f"cell {i}: notes are plain sentences (no roles, headings)")
            if not MIN_SENTENCES <= n <= MAX_SENTENCES:
                problems.append(
                    f"cell {i}: notes of {n} sentences, not {MIN_SENTENCES} to {MAX_SENTENCES}"
                )
        elif cell.cell_type == "markdown" and "remove-cell" in tags and i in deck:
            if kinds[i] != "slide" or not cell.source.startswith("### "):
                problems.append(f"cell {i}: a slide-only cell is a 'slide' with a ### heading")
            if _LABELLED_MATH.search(cell.source):
                problems.append(f"cell {i}: a slide-only cell has labelled math")

    notes = [i for i in deck if kinds[i] == "notes"]
    problems += [f"cell {i}: notes before the first slide" for i in notes if i not in in_deck]
    for start, end in zip(starts, [*starts[1:], len(cells)]):
        count = sum(start < i < end for i in notes)
        if count != 1:
            problems.append(f"cell {start}: a slide with {count} notes cells, not one")
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_cell_carries_a_slide_type(path: Path) -> None:
    nb = _read(path)
    untagged = [i for i, c in enumerate(nb.cells) if slide_type(c) is None]
    assert untagged == [], f"cells without metadata.slideshow.slide_type: {untagged}"
    wrong = [(i, slide_type(c)) for i, c in enumerate(nb.cells) if slide_type(c) not in SLIDE_TYPES]
    assert wrong == [], "unknown slide types"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_deck_has_the_shape_of_a_lecture(path: Path) -> None:
    nb = _read(path)
    assert has_slides(nb), "no cell starts a slide"
    slides = _slides(nb)
    assert 10 <= len(slides) <= 30, f"{len(slides)} slides"
    first = next(c for c in nb.cells if slide_type(c) not in (None, "skip"))
    assert first.cell_type == "markdown" and first.source.lstrip().startswith("# "), (
        "the deck starts with the title cell"
    )
    text = ["\n".join(c.source for c in s if slide_type(c) != "notes") for s in slides]
    assert (
        any(re.search(r"objectives", t, re.IGNORECASE) for t in text)
        or path.parent.name == "appendix"
    ), "the objectives are on a slide"
    assert (
        any(re.search(r"^## Summary", t, re.MULTILINE) for t in text)
        or path.parent.name == "appendix"
    ), "the summary is on a slide"
    assert any("{quiz}" in t for t in text), "a slide with check questions"
    for cell in nb.cells:
        if cell.cell_type == "code" and re.search(
            r"_explorer\(", cell.source.splitlines()[-1] if cell.source else ""
        ):
            assert slide_type(cell) in STARTS, (
                f"explorer not on its own slide: {cell.source[:60]!r}"
            )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_slide_has_speaker_notes_kept_off_the_page(path: Path) -> None:
    nb = _read(path)
    for cell in nb.cells:
        if slide_type(cell) == "notes":
            assert cell.cell_type == "markdown", "notes are markdown cells"
            assert "remove-cell" in cell.metadata.get("tags", []), "notes need the remove-cell tag"
            assert not re.search(r"\{[a-z:]+\}`|^#{1,2} ", cell.source, re.MULTILINE), "plain notes"
    bare = [s[0].source[:50] for s in _slides(nb) if not any(slide_type(c) == "notes" for c in s)]
    assert bare == [], "slides without speaker notes"


@pytest.mark.parametrize("docname", DOCNAMES)
def test_the_deck_selection_follows_the_rules(docname: str) -> None:
    """Title, objectives, explorers, quiz and summary on slides; one plain note per slide."""
    nb = _read(ROOT / f"{docname}.ipynb")
    assert deck_problems(nb, chapter=docname.startswith("chapters/")) == []


# each rule broken once, on an in-memory copy of chapter 1: the checker must say so


def _title(cell: nbformat.NotebookNode) -> bool:
    return _starts(cell, "# ")


def _objectives(cell: nbformat.NotebookNode) -> bool:
    return _starts(cell, OBJECTIVES)


def _summary(cell: nbformat.NotebookNode) -> bool:
    return _has_line(cell, "## Summary")


def _quiz(cell: nbformat.NotebookNode) -> bool:
    return _has_line(cell, "## Check yourself")


def _compact(cell: nbformat.NotebookNode) -> bool:
    return "remove-cell" in cell.metadata.get("tags", []) and slide_type(cell) == "slide"


Find = Callable[[nbformat.NotebookNode], bool]


def _find(nb: nbformat.NotebookNode, find: Find) -> nbformat.NotebookNode:
    return next(c for c in nb.cells if find(c))


def _notes(nb: nbformat.NotebookNode, find: Find) -> int:
    """The index of the notes cell of the slide that ``find`` finds."""
    start = nb.cells.index(_find(nb, find))
    return next(i for i in range(start + 1, len(nb.cells)) if slide_type(nb.cells[i]) == "notes")


def _retype(cell: nbformat.NotebookNode, kind: str) -> None:
    cell.metadata["slideshow"]["slide_type"] = kind


def _new(source: str, kind: str, tags: tuple[str, ...] = ()) -> nbformat.NotebookNode:
    metadata = {"slideshow": {"slide_type": kind}} | ({"tags": list(tags)} if tags else {})
    return nbformat.v4.new_markdown_cell(source, metadata=metadata)


def _rewrite_notes(nb: nbformat.NotebookNode, source: str) -> None:
    nb.cells[_notes(nb, _title)].source = source


def _thirty_one_slides(nb: nbformat.NotebookNode) -> None:
    while sum(slide_type(c) in STARTS for c in nb.cells) < MAX_SLIDES + 1:
        nb.cells += [_new("### More", "slide"), _new("Say more.", "notes", ("remove-cell",))]


def _nine_slides(nb: nbformat.NotebookNode) -> None:
    plain = [c for c in nb.cells if slide_type(c) in STARTS and c.cell_type == "code"]
    for cell in plain[: sum(slide_type(c) in STARTS for c in nb.cells) - (MIN_SLIDES - 1)]:
        _retype(cell, "skip")


NOTE = ("remove-cell",)
MUTATIONS: dict[str, tuple[Callable[[nbformat.NotebookNode], object], str]] = {
    "title skipped": (lambda nb: _retype(_find(nb, _title), "skip"), "the title is not"),
    "title a subslide": (lambda nb: _retype(_find(nb, _title), "subslide"), "the title is not"),
    "a slide before the title": (lambda nb: nb.cells.insert(0, _new("x", "slide")), "title is not"),
    "objectives skipped": (
        lambda nb: _retype(_find(nb, _objectives), "skip"),
        "the objectives cell is not a slide",
    ),
    "objectives a fragment": (
        lambda nb: _retype(_find(nb, _objectives), "fragment"),
        "the objectives cell is not a slide",
    ),
    "summary continues a slide": (
        lambda nb: _retype(_find(nb, _summary), "-"),
        "the summary cell is not a slide",
    ),
    "quiz skipped": (
        lambda nb: _retype(_find(nb, _quiz), "skip"),
        "the quiz cell is not in the deck",
    ),
    "explorer skipped": (
        lambda nb: _retype(_find(nb, shows_an_explorer), "skip"),
        "an explorer not on a slide",
    ),
    "explorer a fragment": (
        lambda nb: _retype(_find(nb, shows_an_explorer), "fragment"),
        "an explorer not on a slide",
    ),
    "notes of the title removed": (
        lambda nb: nb.cells.pop(_notes(nb, _title)),
        "a slide with 0 notes cells",
    ),
    "notes of a slide-only cell removed": (
        lambda nb: nb.cells.pop(_notes(nb, _compact)),
        "a slide with 0 notes cells",
    ),
    "notes of the summary skipped": (
        lambda nb: _retype(nb.cells[_notes(nb, _summary)], "skip"),
        "a slide with 0 notes cells",
    ),
    "notes before the first slide": (
        lambda nb: nb.cells.insert(0, _new("Say it. Now.", "notes", NOTE)),
        "notes before the first slide",
    ),
    "two notes for one slide": (
        lambda nb: nb.cells.insert(_notes(nb, _title), _new("Say it. Twice.", "notes", NOTE)),
        "a slide with 2 notes cells",
    ),
    "notes with a heading": (
        lambda nb: _rewrite_notes(nb, "## Notes\n\nSay it. Then stop."),
        "notes are plain",
    ),
    "notes with a role": (
        lambda nb: _rewrite_notes(nb, "Point at {eq}`eq-a`. Then stop."),
        "notes are plain",
    ),
    "notes of six sentences": (
        lambda nb: _rewrite_notes(nb, "One. Two. Three. Four. Five. Six."),
        "notes of 6 sentences",
    ),
    "notes left empty": (lambda nb: _rewrite_notes(nb, ""), "notes of 0 sentences"),
    "notes shown on the page": (
        lambda nb: nb.cells[_notes(nb, _title)].metadata.pop("tags"),
        "tagged remove-cell",
    ),
    "slide-only cell without its heading": (
        lambda nb: setattr(_find(nb, _compact), "source", "Just text."),
        "a slide-only cell is a 'slide' with a ### heading",
    ),
    "slide-only cell with labelled math": (
        lambda nb: setattr(_find(nb, _compact), "source", "### M\n\n$$\nx\n$$ (eq-m)"),
        "a slide-only cell has labelled math",
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
    assert "no objectives cell" in deck_problems(nb)


def test_sentences_are_counted_without_abbreviations() -> None:
    assert (
        sentences("Shaw et al. add a vector, e.g. per offset. Ask: why? It is 3.5% (small).") == 3
    )
    assert sentences("One line with no end") == 0


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


def test_the_quiz_shows_two_questions_with_hidden_answers(tmp_path: Path) -> None:
    out = convert_markdown(_ctx(tmp_path), "## Check yourself\n\n```{quiz} 03_x\n```")
    assert out.count('class="deck-question"') == 2
    assert out.count("<details>") == 2 and "Third?" not in out
    assert "<strong>big</strong>" in out and "$x$" in out
    # the answer letter follows the shuffled order: id "a" shows its right choice second
    assert "B. It is." in out and "3. Count." in out
    assert "\n\n" not in out.split("## Check yourself", 1)[1].strip(), "one HTML block"


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
