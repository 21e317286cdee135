"""Chapter 2 figures carry the data they claim to show."""

import numpy as np
import pytest
from matplotlib.figure import Figure

from book.demos.numeric import closest_distinct_pair
from book.figures._base import SLIDE_BOX, retina_palette_png, text_overlaps
from book.figures.numeric import encoding_table, naive_encodings_figure, numeric_codes_figure
from posenc.numeric import periodic_encoding


def test_naive_figure_lines():
    fig = naive_encodings_figure((11, 101), alpha=5.0)
    assert isinstance(fig, Figure) and len(fig.axes) == 3
    raw, norm, sine = fig.axes
    assert raw.lines[1].get_ydata().max() == 100.0  # unbounded: grows to T - 1
    assert norm.lines[0].get_ydata().max() == pytest.approx(1.0)
    assert norm.lines[1].get_ydata().max() == pytest.approx(1.0)
    assert np.abs(sine.lines[0].get_ydata()).max() <= 1.0
    assert "p = 2 or p = 20" in norm.get_title()
    assert "±3" in " ".join(t.get_text() for t in raw.get_legend().get_texts())
    with pytest.raises(ValueError, match="two sequence lengths"):
        naive_encodings_figure((10,))


@pytest.mark.parametrize("kind", ["index", "normalized", "sine", "circle"])
def test_codes_figure_shows_the_distance_matrix(kind):
    fig = numeric_codes_figure(kind, 1.0, 50)
    table = encoding_table(kind, 50, alpha=1.0).double()
    i, j, d = closest_distinct_pair(table)
    dmat = np.asarray(fig.axes[1].get_images()[0].get_array())
    assert dmat.shape == (50, 50)
    brute = np.array([[float((table[a] - table[b]).norm()) for b in range(50)] for a in range(50)])
    np.testing.assert_allclose(dmat, brute, atol=1e-9)
    assert dmat[i, j] == pytest.approx(d, abs=1e-6)


def red_circles(ax):
    return [ln for ln in ax.lines if ln.get_markeredgecolor() == "tab:red"]


def test_codes_figure_single_closest_pair_is_circled():
    fig = numeric_codes_figure("sine", 1.0, 10)  # the mirror pair 1, 2 (1 + 2 ≈ π)
    assert "closest pair: positions 1 and 2" in fig.axes[0].get_title()
    assert len(red_circles(fig.axes[0])) == 1
    np.testing.assert_array_equal(red_circles(fig.axes[0])[0].get_xdata(), [1, 2])
    assert all(ln.get_linestyle() == "None" for ln in fig.axes[0].lines)  # dots, not a curve


@pytest.mark.parametrize("kind, alpha", [("index", 1.0), ("normalized", 1.0), ("circle", 32.0)])
def test_codes_figure_says_when_all_neighbours_tie(kind, alpha):
    fig = numeric_codes_figure(kind, alpha, 20)
    assert "all 19 neighbour pairs tie for closest" in fig.axes[0].get_title()
    assert not red_circles(fig.axes[0])  # no arbitrary pair is singled out


def test_codes_figure_circle_collision_and_table_errors():
    fig = numeric_codes_figure("circle", 1.0, 50)
    # every pair 44 apart (7 turns) is equally close on the circle: 6 such pairs in 0..49
    assert "all 6 pairs 44 apart tie, e.g. 4 and 48" in fig.axes[0].get_title()
    assert len(red_circles(fig.axes[0])) == 2  # the example pair, on both channels
    legend = fig.axes[0].get_legend()
    assert legend is not None and len(legend.get_texts()) == 2
    assert len([ln for ln in fig.axes[0].lines if ln.get_label() in ("sin(p/α)", "cos(p/α)")]) == 2
    np.testing.assert_array_equal(
        encoding_table("sine", 7, alpha=2.0), periodic_encoding(7, alpha=2.0)
    )
    with pytest.raises(ValueError, match="kind must be one of"):
        encoding_table("cosine", 5)


@pytest.mark.parametrize(
    "call,error,match",
    [
        (lambda: naive_encodings_figure((True, 101)), TypeError, r"lengths\[0\] must be an int"),
        (lambda: naive_encodings_figure((11, 10.5)), TypeError, r"lengths\[1\] must be an int"),
        (lambda: naive_encodings_figure((1, 101)), ValueError, r"lengths\[0\] must be >= 2"),
        (lambda: naive_encodings_figure(()), ValueError, "lengths must hold at least one"),
        (lambda: naive_encodings_figure((11,)), ValueError, "lengths must hold two"),
        (lambda: naive_encodings_figure("11"), TypeError, "lengths must be a sequence"),
        (lambda: naive_encodings_figure(alpha=0.0), ValueError, "alpha must be a finite number"),
        (lambda: naive_encodings_figure(alpha=float("nan")), ValueError, "alpha must be"),
        (lambda: numeric_codes_figure("sine", 2.0, 1), ValueError, "n_positions must be >= 2"),
        (lambda: numeric_codes_figure("sine", 2.0, True), TypeError, "n_positions must be an"),
    ],
)
def test_figures_refuse_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


def slide_text_at_1080p(fig: Figure) -> float:
    """The smallest text of ``fig``'s slide version on a 1080p projector, in px (the slide
    version at most 1180 × 380 CSS px, so that a deck never shows it below its 1× size)."""
    _, shown = retina_palette_png(fig)
    slide = shown["slide"]
    assert slide["width"] <= SLIDE_BOX[0] and slide["height"] <= SLIDE_BOX[1]
    fit = min(SLIDE_BOX[0] / slide["width"], SLIDE_BOX[1] / slide["height"])
    return slide["text_px"] * fit * 1.5


def overlaps(fig: Figure) -> int:
    """Pairs of overlapping texts of ``fig`` (drawn first)."""
    fig.draw_without_rendering()
    return text_overlaps(fig)


def test_naive_figure_has_a_slide_layout_legible_on_a_projector():
    fig = naive_encodings_figure((11, 101), alpha=5.0)  # chapter 2's call
    assert slide_text_at_1080p(fig) >= 24.0
    slide = fig.slide_version()
    assert len(slide.axes) == 3  # the same panels, lines and titles
    for ax, page_ax in zip(slide.axes, fig.axes):
        assert ax.get_title() == page_ax.get_title()
        for line, page_line in zip(ax.get_lines(), page_ax.get_lines()):
            np.testing.assert_array_equal(line.get_xydata(), page_line.get_xydata())
            assert line.get_color() == page_line.get_color()
    # one legend beside the panels instead of one in each
    assert [ax.get_legend() for ax in slide.axes] == [None] * 3
    (legend,) = slide.legends
    assert [t.get_text() for t in legend.get_texts()][:2] == ["T = 11", "T = 101"]
    assert overlaps(slide) <= overlaps(fig)


def test_naive_figure_refuses_a_slide_flag_that_is_not_a_bool():
    with pytest.raises(TypeError, match="slide must be a bool"):
        naive_encodings_figure(slide=1)
