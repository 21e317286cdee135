"""book.demos.mla: the fold of the key projection holds exactly without RoPE and with decoupled
RoPE, and no fixed matrix (the least-squares best) fits RoPE on the rebuilt keys."""

from __future__ import annotations

import pytest

from book.demos.mla import decoupled_rope_scores


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_fold_holds_without_rope_and_with_decoupled_rope_only(seed):
    errors = decoupled_rope_scores(n=30, dim=12, latent=6, rope_dim=4, seed=seed)
    assert errors["no RoPE: folded query"] < 1e-12
    assert errors["decoupled RoPE: folded query"] < 1e-12
    assert errors["RoPE on the keys: best fixed fold"] > 0.05


def test_a_fold_with_as_many_unknowns_as_scores_would_fit_anything():
    with pytest.raises(ValueError, match="n² > dim · latent"):
        decoupled_rope_scores(n=4, dim=8, latent=4, rope_dim=4)
    with pytest.raises(ValueError, match="must be even"):
        decoupled_rope_scores(n=40, dim=9, latent=4, rope_dim=4)
