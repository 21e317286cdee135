"""book.demos.learned: the cosine similarity of a table's rows against torch's own."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from book.demos.learned import cosine_similarity_matrix


def test_cosine_similarity_matrix_matches_torch() -> None:
    torch.manual_seed(0)
    table = torch.randn(7, 5)
    expected = F.cosine_similarity(table.double()[:, None, :], table.double()[None, :, :], dim=-1)
    s = cosine_similarity_matrix(table)
    assert s.dtype == torch.float64 and s.shape == (7, 7)
    torch.testing.assert_close(s, expected)
    torch.testing.assert_close(s, s.T)
    torch.testing.assert_close(s.diagonal(), torch.ones(7, dtype=torch.float64))


def test_cosine_similarity_matrix_of_zero_rows_is_undefined() -> None:
    table = torch.tensor([[1.0, 0.0], [0.0, 0.0], [1.0, 1.0]])
    s = cosine_similarity_matrix(table)
    assert bool(s[1].isnan().all()) and bool(s[:, 1].isnan().all())
    assert s[0, 2].item() == pytest.approx(1 / math.sqrt(2))
    assert bool(cosine_similarity_matrix(torch.zeros(4, 3)).isnan().all())


def test_cosine_similarity_matrix_bad_input() -> None:
    with pytest.raises(ValueError, match="table"):
        cosine_similarity_matrix(torch.zeros(2, 3, 4))
    with pytest.raises(TypeError, match="table"):
        cosine_similarity_matrix(torch.zeros(2, 3, dtype=torch.long))


def test_cosine_similarity_matrix_on_the_meta_device() -> None:
    meta = torch.device("meta")
    s = cosine_similarity_matrix(torch.empty(6, 3, device=meta))
    assert s.device == meta and s.shape == (6, 6)
