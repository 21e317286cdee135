"""torch_threads sets the intra-op thread count inside a block and always restores it."""

import pytest
import torch

from posenc._threads import torch_threads


def test_sets_and_restores_even_after_an_error():
    before = torch.get_num_threads()
    with torch_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
    with pytest.raises(RuntimeError), torch_threads(1):
        raise RuntimeError("boom")
    assert torch.get_num_threads() == before


def test_none_leaves_the_count_alone_and_bad_counts_are_refused():
    before = torch.get_num_threads()
    with torch_threads(None):
        assert torch.get_num_threads() == before
    with pytest.raises(ValueError, match="threads must be positive"), torch_threads(0):
        pass
    assert torch.get_num_threads() == before
