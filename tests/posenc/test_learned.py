"""Tests for posenc.learned against transformers' BERT and GPT-2 embeddings and the formulas."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from posenc.learned import LearnedPositionalEmbedding


# -- forward ---------------------------------------------------------------------------------
def test_forward_adds_first_n_rows() -> None:
    torch.manual_seed(0)
    pe = LearnedPositionalEmbedding(10, 6)
    x = torch.randn(3, 7, 6)
    expected = x + pe.embedding.weight.detach()[:7].unsqueeze(0)
    torch.testing.assert_close(pe(x), expected, rtol=0, atol=0)


@given(n=st.integers(1, 12), b=st.integers(1, 3))
@settings(max_examples=25, deadline=None)
def test_forward_property_each_position_gets_its_own_row(n: int, b: int) -> None:
    torch.manual_seed(n)
    pe = LearnedPositionalEmbedding(12, 4, init="normal")
    x = torch.zeros(b, n, 4)
    y = pe(x)
    for p in range(n):
        torch.testing.assert_close(y[:, p], pe.table[p].detach().expand(b, 4), rtol=0, atol=0)


def test_matches_transformers_bert_embeddings() -> None:
    from transformers import BertConfig
    from transformers.models.bert.modeling_bert import BertEmbeddings

    cfg = BertConfig(
        vocab_size=20,
        hidden_size=8,
        max_position_embeddings=16,
        type_vocab_size=2,
        hidden_dropout_prob=0.0,
    )
    torch.manual_seed(0)
    bert = BertEmbeddings(cfg).eval()
    bert.LayerNorm = nn.Identity()  # compare the sum before BERT's LayerNorm
    ours = LearnedPositionalEmbedding(16, 8)
    with torch.no_grad():
        bert.position_embeddings.weight.copy_(ours.table)
    ids = torch.randint(0, 20, (3, 11))
    types = torch.zeros_like(ids)
    x = bert.word_embeddings(ids) + bert.token_type_embeddings(types)  # [b, n, d]
    with torch.no_grad():
        torch.testing.assert_close(ours(x), bert(input_ids=ids, token_type_ids=types))


def test_matches_transformers_gpt2_wpe() -> None:
    from transformers import GPT2Config, GPT2Model

    cfg = GPT2Config(
        vocab_size=20,
        n_positions=16,
        n_embd=8,
        n_layer=1,
        n_head=2,
        embd_pdrop=0.0,
        bos_token_id=0,
        eos_token_id=0,
    )
    torch.manual_seed(0)
    gpt2 = GPT2Model(cfg).eval()
    ours = LearnedPositionalEmbedding(16, 8, init="normal")
    with torch.no_grad():
        gpt2.wpe.weight.copy_(ours.table)
        ids = torch.randint(0, 20, (2, 9))
        hidden = gpt2(input_ids=ids, output_hidden_states=True).hidden_states[0]
        torch.testing.assert_close(ours(gpt2.wte(ids)), hidden)


# -- initialisation ------------------------------------------------------------------------
def _std_of_normal_truncated_at(c: float) -> float:
    """Standard deviation of N(0, 1) conditioned on |z| <= c (textbook formula)."""
    phi = math.exp(-0.5 * c * c) / math.sqrt(2 * math.pi)
    mass = math.erf(c / math.sqrt(2))
    return math.sqrt(1.0 - 2.0 * c * phi / mass)


def test_trunc_normal_init_statistics() -> None:
    torch.manual_seed(0)
    w = LearnedPositionalEmbedding(512, 768).table.detach().double()
    assert w.abs().max() <= 0.04  # cut at two standard deviations
    assert abs(w.mean().item()) < 1e-4
    expected = 0.02 * _std_of_normal_truncated_at(2.0)  # ≈ 0.0176
    assert w.std().item() == pytest.approx(expected, rel=0.01)


def test_normal_init_statistics_and_tails() -> None:
    torch.manual_seed(0)
    w = LearnedPositionalEmbedding(512, 768, init="normal").table.detach().double()
    assert w.std().item() == pytest.approx(0.02, rel=0.01)
    beyond = (w.abs() > 0.04).double().mean().item()
    assert beyond == pytest.approx(1 - math.erf(2 / math.sqrt(2)), rel=0.05)  # ≈ 4.55 %


def test_custom_std_and_zeros_init() -> None:
    torch.manual_seed(0)
    w = LearnedPositionalEmbedding(256, 256, init="normal", std=0.01).table.detach()
    assert w.std().item() == pytest.approx(0.01, rel=0.02)
    z = LearnedPositionalEmbedding(8, 4, init="zeros").table
    assert torch.count_nonzero(z) == 0


def test_construction_draws_only_the_chosen_init() -> None:
    torch.manual_seed(3)
    a = LearnedPositionalEmbedding(8, 4)
    torch.manual_seed(3)
    expected = nn.init.trunc_normal_(torch.empty(8, 4), std=0.02, a=-0.04, b=0.04)
    assert torch.equal(a.table.detach(), expected)
    torch.manual_seed(3)
    a.reset_parameters()
    assert torch.equal(a.table.detach(), expected)


def test_parameter_count_of_bert_base() -> None:
    pe = LearnedPositionalEmbedding(512, 768)
    assert sum(p.numel() for p in pe.parameters()) == 393_216


# -- no extrapolation -------------------------------------------------------------------------
def test_too_long_sequence_raises_value_error_explaining_why() -> None:
    pe = LearnedPositionalEmbedding(8, 4)
    pe(torch.zeros(1, 8, 4))  # the longest allowed
    with pytest.raises(ValueError, match=r"sequence length 9 exceeds max_positions=8") as info:
        pe(torch.zeros(1, 9, 4))
    assert "cannot extrapolate" in str(info.value)
    assert "8..8" in str(info.value)


# -- bad arguments ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "error", "name"),
    [
        ({"max_positions": 0, "dim": 4}, ValueError, "max_positions"),
        ({"max_positions": 2.0, "dim": 4}, TypeError, "max_positions"),
        ({"max_positions": 4, "dim": -1}, ValueError, "dim"),
        ({"max_positions": 4, "dim": True}, TypeError, "dim"),
        ({"max_positions": 4, "dim": 4, "init": "xavier"}, ValueError, "init"),
        ({"max_positions": 4, "dim": 4, "std": 0.0}, ValueError, "std"),
        ({"max_positions": 4, "dim": 4, "std": "big"}, TypeError, "std"),
    ],
)
def test_bad_constructor_arguments(kwargs: dict, error: type, name: str) -> None:
    with pytest.raises(error, match=name):
        LearnedPositionalEmbedding(**kwargs)


def test_bad_forward_inputs() -> None:
    pe = LearnedPositionalEmbedding(8, 4)
    with pytest.raises(ValueError, match="x must have 3 dimensions"):
        pe(torch.zeros(8, 4))
    with pytest.raises(ValueError, match="x must have 4 channels"):
        pe(torch.zeros(1, 3, 5))
    with pytest.raises(TypeError, match="x must be a torch.Tensor"):
        pe([[0.0] * 4])


# -- learning ----------------------------------------------------------------------------------
def test_gradient_reaches_only_the_rows_used() -> None:
    torch.manual_seed(0)
    pe = LearnedPositionalEmbedding(10, 4)
    x = torch.randn(2, 6, 4)
    (pe(x) * torch.randn(2, 6, 4)).sum().backward()
    grad = pe.table.grad
    assert grad is not None
    assert bool((grad[:6].abs().sum(dim=1) > 0).all())
    assert torch.count_nonzero(grad[6:]) == 0


def test_zero_table_gets_nonzero_gradient() -> None:
    pe = LearnedPositionalEmbedding(5, 3, init="zeros")
    target = torch.randn(1, 5, 3)
    ((pe(torch.zeros(1, 5, 3)) - target) ** 2).sum().backward()
    torch.testing.assert_close(pe.table.grad, -2 * target[0])  # d/dP ‖P − t‖² at P = 0


def test_state_dict_holds_the_table() -> None:
    a = LearnedPositionalEmbedding(6, 4)
    state = a.state_dict()
    assert list(state) == ["embedding.weight"]
    assert state["embedding.weight"].shape == (6, 4)
    b = LearnedPositionalEmbedding(6, 4, init="zeros")
    b.load_state_dict(state)
    assert torch.equal(a.table, b.table)
    assert [name for name, _ in a.named_parameters()] == ["embedding.weight"]


# -- strict inputs -------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [torch.int64, torch.bool, torch.complex64])
def test_forward_refuses_non_float_x(dtype: torch.dtype) -> None:
    # an integer x used to be truncated: x + P cast to int64 threw the table away
    with pytest.raises(TypeError, match=rf"^x must be a floating-point tensor, got dtype {dtype}"):
        LearnedPositionalEmbedding(8, 4)(torch.zeros(1, 3, 4, dtype=dtype))


def test_init_must_be_a_str() -> None:
    with pytest.raises(TypeError, match=r"^init must be a str, got list"):
        LearnedPositionalEmbedding(8, 4, init=["zeros"])  # type: ignore[arg-type]


@pytest.mark.parametrize("std", [math.nan, math.inf, -0.1])
def test_std_must_be_finite_and_positive(std: float) -> None:
    with pytest.raises(ValueError, match=r"^std must be a finite number > 0"):
        LearnedPositionalEmbedding(8, 4, std=std)


@pytest.mark.parametrize(("rows", "dim"), [(10, 4), (6, 4), (8, 5)])
def test_loading_a_table_of_another_size_names_the_table_and_both_sizes(
    rows: int, dim: int
) -> None:
    saved = LearnedPositionalEmbedding(rows, dim).state_dict()
    words = (
        rf"^state dict entry 'embedding.weight' has shape \({rows}, {dim}\), but this "
        r"module's table has shape \(8, 4\)"
    )
    with pytest.raises(ValueError, match=words):
        LearnedPositionalEmbedding(8, 4).load_state_dict(saved)
    # inside a bigger model the key carries the prefix
    model = nn.Sequential(nn.Identity(), LearnedPositionalEmbedding(8, 4))
    with pytest.raises(ValueError, match=r"^state dict entry '1.embedding.weight' has shape"):
        model.load_state_dict({"1.embedding.weight": saved["embedding.weight"]})


def test_empty_sequences_give_empty_outputs() -> None:
    assert LearnedPositionalEmbedding(8, 4)(torch.zeros(2, 0, 4)).shape == (2, 0, 4)


def test_meta_device() -> None:
    meta = torch.device("meta")
    pe = LearnedPositionalEmbedding(8, 4).to(meta)
    y = pe(torch.empty(2, 5, 4, device=meta))
    assert y.device == meta and y.shape == (2, 5, 4)
