"""The reader extension's helpers: listings without test markers, alt text, optional boxes."""

import pytest
from docutils import nodes

from book.ext.reader import (
    aside_end,
    aside_start,
    figure_alt,
    first_sentence,
    merge_asides,
    plain_markdown,
    plain_math,
    strip_test_markers,
)


def test_test_markers_leave_the_listing_and_nothing_else_does():
    code = "# NBVAL_CHECK_OUTPUT\n\nx = 1  # NBVAL_CHECK_OUTPUT stays in a comment\nprint(x)"
    assert strip_test_markers(code) == "x = 1  # NBVAL_CHECK_OUTPUT stays in a comment\nprint(x)"
    assert strip_test_markers("  #NBVAL_IGNORE_OUTPUT\ny = 2") == "y = 2"
    assert strip_test_markers("a = 1\n# NBVAL_SKIP\nb = 2") == "a = 1\nb = 2"
    assert strip_test_markers("# a comment\nz = 3") == "# a comment\nz = 3"


@pytest.mark.parametrize(
    "tex,plain",
    [
        (r"2\pi \cdot 10000", "2π · 10000"),
        (r"\omega_i = \frac{1}{\text{base}^{2i/d}}", "ω_i = 1/(base^(2i/d))"),
        (r"p\cdot 2^{-24}", "p · 2^(-24)"),
        (r"\tfrac{d}{2} - 1", "d/2 - 1"),
        (r"\sqrt{d}", "√d"),
        (r"i = 0, \dots, n", "i = 0, …, n"),
        (r"\mathbb{R}^{d}", "R^d"),
    ],
)
def test_plain_math_writes_inline_tex_out(tex, plain):
    assert plain_math(tex) == plain


def test_a_caption_in_myst_becomes_plain_words():
    caption = (
        r"$PE(p)\cdot PE(p+k)$ against the offset $k$ for $d = 64$ and $\omega_i$, as in "
        r"{doc}`chapter 7 <07_swin_relative_bias>` and **bold**."
    )
    assert plain_markdown(caption) == (
        "PE(p) · PE(p+k) against the offset k for d = 64 and ω_i, as in chapter 7 and bold."
    )


def test_alt_text_is_the_first_sentence_of_the_caption_in_either_language():
    assert (
        figure_alt("The wavelengths with d = 64, base = 10000, on a log axis: a line. More.")
        == "The wavelengths with d = 64, base = 10000, on a log axis: a line"
    )
    assert figure_alt("Accuracy by position. Each row is one model.") == "Accuracy by position"
    assert (
        figure_alt("正弦编码的热图，d = 64。每一行是一个位置的编码。") == "正弦编码的热图，d = 64"
    )
    assert first_sentence("A decimal 0.5 stays. Then more.") == "A decimal 0.5 stays."
    assert first_sentence("Left: the table. Right: its rows.") == "Left: the table."
    assert first_sentence("No full stop at all") == "No full stop at all"
    assert figure_alt("Left: the table. Right: its rows.") == "Left: the table"
    assert figure_alt("左：位置表；右：它的行。更多。") == "左：位置表；右：它的行"


# -- optional boxes --------------------------------------------------------------------------


def _section_with_markers(*children: nodes.Node) -> nodes.section:
    section = nodes.section()
    section.extend(children)
    return section


def _aside_start(title: str, kind: str = "engineering") -> aside_start:
    return aside_start("", nodes.title(title, title), kind=kind)


def test_an_aside_takes_every_node_between_its_markers_and_nothing_else():
    before, inside, code, after = (
        nodes.paragraph(text="before"),
        nodes.paragraph(text="inside"),
        nodes.literal_block(text="x = 1"),
        nodes.paragraph(text="after"),
    )
    section = _section_with_markers(
        before, _aside_start("Engineering: blocks"), inside, code, aside_end(), after
    )
    assert merge_asides(section) == []
    assert [type(child) for child in section] == [
        nodes.paragraph,
        nodes.admonition,
        nodes.paragraph,
    ]
    box = section[1]
    assert box["classes"] == ["dropdown", "aside", "aside-engineering"]
    assert box[0].astext() == "Engineering: blocks" and isinstance(box[0], nodes.title)
    assert list(box.children[1:]) == [inside, code]
    assert inside.parent is box and section[0] is before and section[2] is after


def test_two_asides_in_one_section_stay_apart():
    section = _section_with_markers(
        _aside_start("One"),
        nodes.paragraph(text="a"),
        aside_end(),
        nodes.paragraph(text="between"),
        _aside_start("Two", "sources"),
        nodes.paragraph(text="b"),
        aside_end(),
    )
    assert merge_asides(section) == []
    boxes = [child for child in section if isinstance(child, nodes.admonition)]
    assert [box[0].astext() for box in boxes] == ["One", "Two"]
    assert [box[1].astext() for box in boxes] == ["a", "b"]
    assert boxes[1]["classes"][-1] == "aside-sources"
    assert section[1].astext() == "between"


def test_unmatched_aside_markers_are_reported():
    start = _aside_start("Open")
    start.line = 7
    unclosed = _section_with_markers(start, nodes.paragraph(text="a"))
    assert merge_asides(unclosed) == ["line 7: aside-start without an aside-end after it"]
    end = aside_end()
    end.line = 9
    stray = _section_with_markers(nodes.paragraph(text="a"), end)
    assert merge_asides(stray) == ["line 9: aside-end without an aside-start before it"]
    assert not list(stray.findall(aside_end))
    nested = _section_with_markers(_aside_start("A"), _aside_start("B"), aside_end())
    problems = merge_asides(nested)
    assert len(problems) == 1 and "aside-start without an aside-end" in problems[0]
