"""The chapter 1 explorer: controls change the picture; static HTML holds each distinct one."""

import html
import json
import re

import pytest
import torch

from book.demos.attention import toy_attention_layer, word_vectors
from book.explorers.attention import RANDOM, SHUFFLES, permutation_explorer
from book.figures.attention import SENTENCE


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
    assert html.count("data:image/png;base64,") == 1, "a live explorer stores its default only"
    assert ex.live == "permutation" and ex.reshuffle == ("shuffle", RANDOM)


def test_the_page_gets_the_layer_and_the_word_vectors_exactly():
    ex = permutation_explorer()
    data = ex.live_data
    layer = toy_attention_layer(16, seed=0)
    assert data["words"] == list(SENTENCE) and data["dim"] == 16
    assert data["wordVectors"] == word_vectors(list(SENTENCE), 16).tolist()
    assert data["qkvWeight"] == layer.qkv.weight.detach().reshape(-1).tolist()
    assert data["qkvBias"] == layer.qkv.bias.detach().tolist()
    assert data["outWeight"] == layer.out.weight.detach().reshape(-1).tolist()
    assert data["outBias"] == layer.out.bias.detach().tolist()
    # float32 values survive JSON exactly
    page = ex.static_html()
    found = re.search(r'data-live-data="([^"]*)"', page)
    assert json.loads(html.unescape(found.group(1))) == data
    # a repeated word has one vector
    twice = permutation_explorer(("a", "b", "a"), {"id": (0, 1, 2)}).live_data
    assert twice["wordVectors"][0] == twice["wordVectors"][2]
    assert permutation_explorer(("a", "b"), {"id": (0, 1)}).reshuffle is None


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
