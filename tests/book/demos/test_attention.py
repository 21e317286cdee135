"""book.demos.attention (chapter 1's word demos) against the layer run by hand in float64."""

import pytest
import torch

from book.demos.attention import (
    permutation_matrix,
    sentence_attention,
    sentence_vectors,
    shuffled_attention,
    toy_attention_layer,
    word_vectors,
)
from posenc.attention import SelfAttention
from posenc.sinusoidal import sinusoidal_encoding
from tests.references import reference_self_attention


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: permutation_matrix([0, 0, 1]), ValueError, "permutation"),
        (lambda: permutation_matrix(torch.tensor([0.0, 1.0])), TypeError, "integers"),
        (lambda: permutation_matrix([]), ValueError, "permutation"),
        (lambda: word_vectors("dog bites man", 4), TypeError, "sequence of strings"),
        (lambda: word_vectors([], 4), ValueError, "at least one word"),
        (lambda: word_vectors(["a", 3], 4), TypeError, "strings"),
        (lambda: word_vectors(["a"], 0), ValueError, "dim must be positive"),
        (
            lambda: sentence_vectors(["a"], 4, positions="False"),
            TypeError,
            "^positions must be a bool",
        ),
        (
            lambda: shuffled_attention(["a", "b"], [1, 0], positions=1),
            TypeError,
            "^positions must be a bool",
        ),
        (lambda: toy_attention_layer(8, seed=-1), ValueError, "^seed must be >= 0"),
        (lambda: toy_attention_layer(True), TypeError, "^dim must be an integer"),
    ],
)
def test_argument_errors(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_permutation_matrix_reorders_rows_and_is_orthogonal():
    perm = [2, 0, 3, 1]
    p = permutation_matrix(perm)
    x = torch.arange(12.0).reshape(4, 3)
    torch.testing.assert_close(p @ x, x[perm])
    torch.testing.assert_close(p @ p.T, torch.eye(4))
    torch.testing.assert_close(permutation_matrix(torch.tensor(perm)), p)
    assert p.tolist() == [[0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 0]]


def test_word_vectors_depend_on_the_word_only():
    a = word_vectors(["dog", "bites", "man"], 8)
    b = word_vectors(["man", "bites", "dog"], 8)
    torch.testing.assert_close(a[[2, 1, 0]], b, rtol=0, atol=0)
    assert a.shape == (3, 8) and a.dtype == torch.float32
    assert not torch.equal(a[0], a[1])
    assert not torch.equal(word_vectors(["dog"], 8, seed=1), word_vectors(["dog"], 8, seed=0))
    # deterministic and independent of the global random state
    torch.manual_seed(123)
    first = word_vectors(["dog"], 8)
    torch.manual_seed(456)
    torch.testing.assert_close(word_vectors(["dog"], 8), first, rtol=0, atol=0)


# -- the toy layer of chapter 1 ----------------------------------------------------------------


def test_toy_layer_is_seeded_and_leaves_global_rng_alone():
    torch.manual_seed(7)
    before = torch.get_rng_state()
    a, b = toy_attention_layer(8, seed=3), toy_attention_layer(8, seed=3)
    assert torch.equal(torch.get_rng_state(), before)
    assert isinstance(a, SelfAttention) and not a.training and a.num_heads == 1
    torch.testing.assert_close(a.qkv.weight, b.qkv.weight, rtol=0, atol=0)
    assert not torch.equal(toy_attention_layer(8, seed=4).qkv.weight, a.qkv.weight)


def test_toy_layer_scales_query_and_key_weights_only():
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(3)
        plain = SelfAttention(8, num_heads=1)
    sharp = toy_attention_layer(8, seed=3, gain=2.5)
    w, w0 = sharp.qkv.weight.detach(), plain.qkv.weight.detach()
    torch.testing.assert_close(w[:16], 2.5 * w0[:16], rtol=0, atol=0)  # queries and keys
    assert torch.equal(w[16:], w0[16:])  # values
    assert torch.equal(sharp.qkv.bias, plain.qkv.bias)
    assert torch.equal(sharp.out.weight, plain.out.weight)
    with pytest.raises(ValueError, match=r"^gain must be a finite number > 0"):
        toy_attention_layer(8, gain=0.0)


def test_sentence_vectors_add_the_sinusoidal_code_of_each_slot():
    words = ["the", "dog", "chased", "a", "ball"]
    plain = sentence_vectors(words, 8)
    assert torch.equal(plain, word_vectors(words, 8))
    with_positions = sentence_vectors(words, 8, positions=True)
    assert with_positions.shape == (5, 8) and with_positions.dtype == torch.float32
    torch.testing.assert_close(with_positions - plain, sinusoidal_encoding(5, 8), rtol=0, atol=1e-6)


def test_sentence_attention_is_the_layer_on_a_batch_of_one():
    layer = toy_attention_layer(8, seed=1)
    x = sentence_vectors(["man", "bites", "dog"], 8)
    y, a = sentence_attention(layer, x)
    assert y.shape == (3, 8) and a.shape == (3, 3) and not y.requires_grad
    expected = reference_self_attention(layer, x[None])[0]
    torch.testing.assert_close(y.double(), expected, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(a.sum(-1), torch.ones(3))
    with pytest.raises(ValueError, match=r"^x must have 2 dimensions"):
        sentence_attention(layer, x[None])


def test_shuffled_attention_against_the_layer_run_by_hand():
    words = ["the", "dog", "chased", "a", "red", "ball"]
    perm = [5, 2, 0, 4, 1, 3]
    for positions in (False, True):
        a, a_perm, delta = shuffled_attention(words, perm, positions=positions, dim=16, seed=0)
        layer = toy_attention_layer(16, seed=0)
        x = word_vectors(words, 16).double()
        x_perm = word_vectors([words[i] for i in perm], 16).double()
        if positions:
            pe = sinusoidal_encoding(6, 16, dtype=torch.float64)
            x, x_perm = x + pe, x_perm + pe
        y, y_perm = (reference_self_attention(layer, t[None])[0] for t in (x, x_perm))
        # the word at slot i of the shuffle is words[perm[i]]: its output moved by this much
        moved = [float((y_perm[i] - y[perm[i]]).norm()) for i in range(6)]
        expected = torch.zeros(6, dtype=torch.float64)
        expected[perm] = torch.tensor(moved, dtype=torch.float64)
        torch.testing.assert_close(delta.double(), expected, atol=1e-5, rtol=1e-4)
        assert a.shape == a_perm.shape == (6, 6)
        if not positions:  # equivariance: the same matrix with rows and columns reordered
            torch.testing.assert_close(a_perm, a[perm][:, perm], atol=1e-6, rtol=0)
            assert float(delta.max()) < 1e-5
        else:
            assert float(delta.min()) > 1e-3


def test_shuffled_attention_rejects_a_bad_permutation():
    with pytest.raises(ValueError, match=r"^perm must be a permutation of 0\.\.2"):
        shuffled_attention(["a", "b", "c"], [0, 1], positions=False)
    with pytest.raises(ValueError, match=r"^perm must be a permutation of 0\.\.2"):
        shuffled_attention(["a", "b", "c"], [0, 1, 1], positions=False)
