"""The chapter 1 explorer: controls change the picture; static HTML holds each distinct one."""

import re

import pytest
import torch

from book.explorers.attention import SHUFFLES, permutation_explorer


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


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"shuffles": {}}, ValueError, "shuffles must offer at least one permutation"),
        ({"shuffles": [(1, 0)]}, TypeError, "shuffles must be a mapping"),
        ({"shuffles": {"bad": (0, 0, 1, 2, 3, 4)}}, ValueError, r"shuffles\['bad'\] must be a"),
        ({"shuffles": {"short": (1, 0)}}, ValueError, r"shuffles\['short'\] must be a perm"),
        ({"words": ()}, ValueError, "words must hold at least one"),
        ({"words": (1, 2, 3, 4, 5, 6)}, TypeError, r"words\[0\] must be a string"),
        ({"seed": -1}, ValueError, "seed must be >= 0"),
        ({"dim": True}, TypeError, "dim must be an integer, got bool"),
        ({"dim": "3"}, TypeError, "dim must be an integer"),
        ({"dim": 0}, ValueError, "dim must be >= 2"),
        ({"dim": 3}, ValueError, "dim must be even"),
    ],
)
def test_explorer_refuses_bad_values(kwargs, error, match):
    with pytest.raises(error, match=match):
        permutation_explorer(**kwargs)


def test_explorer_accepts_a_tensor_permutation():
    ex = permutation_explorer(("a", "b", "c"), {"swap": torch.tensor([1, 0, 2])})
    assert ex.controls[0].values == ((1, 0, 2),)
