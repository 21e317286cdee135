"""Slide decks: every notebook marks its deck with standard metadata, and the MyST converter works.

The browser suite (tests/browser/test_slides.py) checks the built decks; these tests check the
notebooks (CONTRIBUTING.md, "Slides") and ``book/ext/slides.py``'s conversion of MyST, with no
build.
"""

from __future__ import annotations

import re
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

NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb")) + sorted(
    (ROOT / "appendix").glob("*.ipynb")
)
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
    assert "A. It is." in out and "3. Count." in out
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
