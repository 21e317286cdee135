"""Chapter 2 figures carry the data they claim to show."""

import numpy as np
import pytest
from matplotlib.figure import Figure

from posenc.numeric import closest_distinct_pair, periodic_encoding
from posenc.plotting.numeric import encoding_table, naive_encodings_figure, numeric_codes_figure


def test_naive_figure_lines():
    fig = naive_encodings_figure((11, 101), alpha=5.0)
    assert isinstance(fig, Figure) and len(fig.axes) == 3
    raw, norm, sine = fig.axes
    assert raw.lines[1].get_ydata().max() == 100.0  # unbounded: grows to T - 1
    assert norm.lines[0].get_ydata().max() == pytest.approx(1.0)
    assert norm.lines[1].get_ydata().max() == pytest.approx(1.0)
    assert np.abs(sine.lines[0].get_ydata()).max() <= 1.0
    assert "p = 2 or p = 20" in norm.get_title()
    with pytest.raises(ValueError, match="two sequence lengths"):
        naive_encodings_figure((10,))


@pytest.mark.parametrize("kind", ["index", "normalized", "sine", "circle"])
def test_codes_figure_marks_closest_pair(kind):
    fig = numeric_codes_figure(kind, 1.0, 50)
    i, j, d = closest_distinct_pair(encoding_table(kind, 50, alpha=1.0))
    assert f"positions {i} and {j}" in fig.axes[0].get_title()
    dmat = np.asarray(fig.axes[1].get_images()[0].get_array())
    assert dmat.shape == (50, 50)
    assert dmat[i, j] == pytest.approx(d, abs=1e-6)


def test_codes_figure_circle_collision_and_table_errors():
    fig = numeric_codes_figure("circle", 1.0, 50)
    assert "positions 4 and 48" in fig.axes[0].get_title()
    assert len([ln for ln in fig.axes[0].lines if ln.get_label() in ("sin(p/α)", "cos(p/α)")]) == 2
    np.testing.assert_array_equal(encoding_table("sine", 7, alpha=2.0), periodic_encoding(7, alpha=2.0))
    with pytest.raises(ValueError, match="kind must be one of"):
        encoding_table("cosine", 5)
