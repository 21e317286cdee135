"""The reader extension's text helpers: listings without test markers, alt text from captions."""

import pytest

from book.ext.reader import (
    figure_alt,
    first_sentence,
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
