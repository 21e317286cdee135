"""Chapter 9 ALiBi figures carry the biases, spans and attention they claim."""

from __future__ import annotations

import math

import numpy as np
import pytest

from book.demos.alibi import alibi_span
from book.figures.alibi import alibi_explorer_figure, alibi_span_figure


def paper_slopes(h: int) -> list[float]:
    """Press et al.'s rule, transcribed: 2^(−8k/h) for a power of two, else interleave with 2h."""
    if math.log2(h).is_integer():
        return [2 ** (-8 * k / h) for k in range(1, h + 1)]
    low = 2 ** math.floor(math.log2(h))
    return paper_slopes(low) + paper_slopes(2 * low)[0::2][: h - low]


def test_span_figure_lines_and_dots():
    heads, n = 8, 300
    fig = alibi_span_figure(heads, n)
    left, right = fig.axes
    slopes = paper_slopes(heads)
    for line, m in zip(left.lines, slopes):
        x, y = line.get_xdata(), line.get_ydata()
        np.testing.assert_allclose(y, -m * x, atol=1e-12)
    curves = right.lines[0::2]  # each head: its weights, then its span dot
    dots = right.lines[1::2]
    spans = alibi_span(heads, n).tolist()
    for curve, dot, m, c in zip(curves, dots, slopes, spans):
        r = curve.get_xdata()
        expected = np.exp(-m * r) / np.exp(-m * np.arange(n)).sum()
        np.testing.assert_allclose(curve.get_ydata(), expected, rtol=1e-10)
        assert dot.get_xdata()[0] == c - 1  # the farthest key inside the span
    assert "90%" in right.get_title()


@pytest.mark.parametrize("causal", [True, False])
def test_explorer_figure_bias_and_attention(causal):
    heads, n = 4, 21
    fig = alibi_explorer_figure(heads, causal, n=n)
    left, right = fig.axes
    offsets = np.arange(n) - n // 2
    (bias_lines,) = left.collections
    (weight_lines,) = right.collections
    for segment, m in zip(bias_lines.get_segments(), paper_slopes(heads)):
        x, y = segment[:, 0], segment[:, 1]
        if causal:  # the masked keys (offsets > 0) are not drawn
            np.testing.assert_array_equal(x, offsets[offsets <= 0])
        else:
            np.testing.assert_array_equal(x, offsets)
        np.testing.assert_allclose(y, -m * np.abs(x), atol=1e-12)
    assert len(weight_lines.get_segments()) == heads
    for segment in weight_lines.get_segments():
        np.testing.assert_array_equal(segment[:, 0], offsets)
        w = segment[:, 1]
        assert w.sum() == pytest.approx(1.0)
        if causal:
            assert np.all(w[offsets > 0] == 0.0)
        else:
            np.testing.assert_allclose(w, w[::-1], atol=1e-12)  # cannot tell left from right
    text = " ".join(" ".join(t.get_text().split()) for t in fig.texts)  # lines joined
    assert "2^-2, 2^-4, 2^-6, 2^-8" in text and ("causal" if causal else "symmetric") in text


def test_explorer_figures_sharing_a_frame_are_independent():
    few = alibi_explorer_figure(4, True, n=21)
    many = alibi_explorer_figure(12, True, n=21)  # the same (n, causal) frame, unpickled anew
    assert few is not many
    assert len(few.axes[0].collections[0].get_segments()) == 4
    assert len(many.axes[0].collections[0].get_segments()) == 12
    assert few.axes[0].get_yticks().tolist() == [-2.0, 0.0]  # −round(m_max · 10), m_max = 1/4
    assert many.axes[0].get_yticks().tolist() == [-7.0, 0.0]  # m_max = 2^-0.5


@pytest.mark.parametrize("causal", ["False", 1, None])
def test_explorer_figure_refuses_a_flag_that_is_not_a_bool(causal):
    with pytest.raises(TypeError, match="causal must be a bool"):
        alibi_explorer_figure(8, causal)
