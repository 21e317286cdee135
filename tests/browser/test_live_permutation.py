"""Chapter 1's live explorer: the page runs the toy layer, and reshuffles on demand.

The generic checks are in ``test_live_explorers.py``. These read back what the drawer
(``book/ext/twin_static/drawers/permutation.js``) computed, against the same layer run in
float64 by torch (the weights written into the page are the layer's float32 values), and
press "New random order" the way a reader would.
"""

from __future__ import annotations

import pytest
import torch

from book.demos.attention import toy_attention_layer, word_vectors
from book.explorers.attention import RANDOM, SHUFFLES
from book.figures.attention import SENTENCE
from posenc.attention import attention_weights
from posenc.sinusoidal import sinusoidal_encoding

from .live import PIXELS, Watched, drawn, enter, live_fixtures, pixels, settle, state

pytestmark = pytest.mark.xdist_group("test_live_permutation")  # one page, on one worker


folder, page_url, laptop = live_fixtures("permutation")


def reference(perm: list[int], positions: bool) -> tuple[torch.Tensor, ...]:
    """A(X), A(PX) and each word's output change, in float64 (an independent transcription of
    book.demos.attention.shuffled_attention)."""
    words = list(SENTENCE)
    layer = toy_attention_layer(16, seed=0).double()
    pe = sinusoidal_encoding(len(words), 16, dtype=torch.float64) * positions  # [n, d]
    x = word_vectors(words, 16).double() + pe  # [n, d]
    x_perm = word_vectors([words[i] for i in perm], 16).double() + pe  # [n, d]

    def run(v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        q, k, val = layer.qkv(v).split(16, dim=-1)  # [n, d] each
        a = attention_weights(q[None, None], k[None, None])[0, 0]  # [n, n]
        return layer.out(a @ val), a  # [n, d], [n, n]

    with torch.no_grad():
        y, a = run(x)
        y_perm, a_perm = run(x_perm)
    inverse = torch.argsort(torch.tensor(perm))
    return a, a_perm, (y_perm[inverse] - y).norm(dim=-1)


@pytest.mark.parametrize("positions", [False, True])
def test_what_is_drawn_is_the_layer_run_in_float64(laptop: Watched, positions: bool) -> None:
    enter(laptop, "positions", positions)
    for perm in SHUFFLES.values():
        enter(laptop, "shuffle", perm)
        got = drawn(laptop)
        assert got["perm"] == list(perm)
        a, a_perm, delta = reference(list(perm), positions)
        assert torch.tensor(got["a"], dtype=torch.float64) == pytest.approx(a, rel=1e-9, abs=1e-12)
        assert torch.tensor(got["aPerm"], dtype=torch.float64) == pytest.approx(
            a_perm, rel=1e-9, abs=1e-12
        )
        assert got["delta"] == pytest.approx(delta.tolist(), rel=1e-7, abs=1e-12)
        if not positions:
            assert max(got["delta"]) < 1e-12, "without positions no output moves"
    assert laptop.errors == []


def test_new_random_order_draws_a_fresh_permutation_and_names_it(laptop: Watched) -> None:
    enter(laptop, "positions", True)
    enter(laptop, "shuffle", SHUFFLES["reversed"])
    button = laptop.page.get_by_role("button", name="New random order")
    assert button.is_visible()
    seen = set()
    for _ in range(4):
        before = laptop.page.evaluate(PIXELS)
        old = tuple(drawn(laptop)["perm"])
        button.click()
        settle(laptop)
        s = state(laptop)
        perm = drawn(laptop)["perm"]
        assert sorted(perm) == list(range(6)) and tuple(perm) != old
        seen.add(tuple(perm))
        select = laptop.page.locator('[data-name="shuffle"]')
        assert select.evaluate("el => el.options[el.selectedIndex].text") == RANDOM
        order = " ".join(map(str, perm))
        assert f"shuffle {RANDOM} ({order}), positions True" in s["label"]
        assert laptop.page.evaluate(PIXELS) != before
        _, a_perm, delta = reference(perm, True)
        assert torch.tensor(drawn(laptop)["aPerm"], dtype=torch.float64) == pytest.approx(
            a_perm, rel=1e-9, abs=1e-12
        )
        assert drawn(laptop)["delta"] == pytest.approx(delta.tolist(), rel=1e-7, abs=1e-12)
    assert len(seen) >= 2
    assert laptop.errors == []


def test_the_bars_are_tab_red_with_positions(laptop: Watched) -> None:
    enter(laptop, "shuffle", SHUFFLES["reversed"])
    enter(laptop, "positions", True)
    bars = len(state(laptop)["plot"]["axes"]) - 1  # the last axes
    delta = drawn(laptop, "delta")["delta"]
    assert pixels(laptop, bars, [(4, 0.5 * delta[4])]) == [[0xD6, 0x27, 0x28]]  # tab:red
