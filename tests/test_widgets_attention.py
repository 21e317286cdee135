"""The chapter 1 explorer: controls change the picture; static HTML holds each distinct one."""

import re

from posenc.widgets.attention import SHUFFLES, permutation_explorer


def test_controls_and_static_html():
    ex = permutation_explorer()
    assert [c.name for c in ex.controls] == ["shuffle", "positions"]
    assert [c.kind for c in ex.controls] == ["select", "checkbox"]
    assert ex.n_combinations == 2 * len(SHUFFLES) <= 60
    pngs = {
        ex.png(shuffle=perm, positions=pos) for perm in SHUFFLES.values() for pos in (False, True)
    }
    assert len(pngs) == ex.n_combinations  # every combination draws a different picture
    html = ex.static_html()
    images = set(re.search(r'"images": \[(.*?)\]', html).group(1).split(","))
    assert len(images) == len(pngs)


def test_positions_toggle_changes_image():
    ex = permutation_explorer(shuffles={"rev": (5, 4, 3, 2, 1, 0), "id": (0, 1, 2, 3, 4, 5)})
    assert ex.png(positions=False) != ex.png(positions=True)
    assert ex.figure().axes[2].patches[0].get_height() < 1e-5
