"""book.demos.attention against the layer run by hand in float64 (chapter 1's word demos) and
float64 transcriptions of the logit's four terms and of the offset's share (chapter 9)."""

import pytest
import torch

from book.demos.attention import (
    LOGIT_TERMS,
    absolute_logit_terms,
    offset_variance_share,
    permutation_matrix,
    sentence_attention,
    sentence_vectors,
    shuffled_attention,
    toy_attention_layer,
    word_vectors,
)
from posenc.attention import SelfAttention, attention_weights
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


# -- the four terms of an absolute logit (chapter 9's bridge) ---------------------------------


def _four_terms_by_hand(x, p, w_q, w_k):
    """Float64 transcription: each term as a sum over channels, one query-key pair at a time."""
    x, p, w_q, w_k = (t.double() for t in (x, p, w_q, w_k))
    n, d_x = x.shape
    a = [[sum(w_q[c, r] * w_k[c, s] for c in range(w_q.shape[0])) for s in range(d_x)]
         for r in range(d_x)]  # fmt: skip
    out = torch.zeros(4, n, n, dtype=torch.float64)
    for i in range(n):
        for j in range(n):
            for t, (left, right) in enumerate(((x, x), (x, p), (p, x), (p, p))):
                out[t, i, j] = sum(
                    left[i, r] * a[r][s] * right[j, s] for r in range(d_x) for s in range(d_x)
                )
    return out


def test_absolute_logit_terms_match_a_float64_transcription():
    g = torch.Generator().manual_seed(3)
    x, p = torch.randn(2, 5, 6, generator=g, dtype=torch.float64)  # [n, d_x] each
    w_q, w_k = torch.randn(2, 4, 6, generator=g, dtype=torch.float64)  # [d, d_x] each
    terms = absolute_logit_terms(x, p, w_q, w_k)
    assert terms.shape == (4, 5, 5) and len(LOGIT_TERMS) == 4
    torch.testing.assert_close(terms, _four_terms_by_hand(x, p, w_q, w_k), rtol=1e-12, atol=1e-12)
    # in float32 too, against the same transcription
    terms32 = absolute_logit_terms(x.float(), p.float(), w_q.float(), w_k.float())
    assert terms32.dtype == torch.float32
    torch.testing.assert_close(terms32.double(), terms, rtol=1e-5, atol=1e-5)


def test_absolute_logit_terms_sum_to_the_logit_of_attention():
    g = torch.Generator().manual_seed(4)
    x = torch.randn(3, 7, 8, generator=g, dtype=torch.float64)  # [b, n, d_x]
    p = torch.randn(7, 8, generator=g, dtype=torch.float64)  # [n, d_x]: broadcast over b
    w_q, w_k = torch.randn(2, 4, 8, generator=g, dtype=torch.float64)  # [d, d_x] each
    terms = absolute_logit_terms(x, p, w_q, w_k)  # [4, b, n, n]
    assert terms.shape == (4, 3, 7, 7)
    q, k = (x + p) @ w_q.T, (x + p) @ w_k.T  # [b, n, d]
    torch.testing.assert_close(terms.sum(0), q @ k.transpose(-2, -1), rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(
        torch.softmax(terms.sum(0) / 2.0, -1), attention_weights(q, k), rtol=1e-12, atol=1e-12
    )
    # each batch element alone gives the same terms as in the batch
    torch.testing.assert_close(absolute_logit_terms(x[1], p, w_q, w_k), terms[:, 1])


def test_sinusoidal_position_term_is_relative_only_with_matching_projections():
    p = sinusoidal_encoding(16, 8, dtype=torch.float64)  # [n, d]
    x = torch.zeros_like(p)
    eye = torch.eye(8, dtype=torch.float64)
    pos_pos = absolute_logit_terms(x, p, eye, eye)[3]  # [n, n]: sum_i cos((j - i) w_i)
    offsets = torch.arange(16.0, dtype=torch.float64)
    omega = 10000.0 ** (-torch.arange(0, 8, 2, dtype=torch.float64) / 8)  # [d/2]
    angles = (offsets[None, :] - offsets[:, None])[..., None] * omega  # [n, n, d/2]
    torch.testing.assert_close(pos_pos, angles.cos().sum(-1))  # sum_i cos((j - i) w_i)
    assert offset_variance_share(pos_pos).item() == pytest.approx(1.0, abs=1e-12)
    g = torch.Generator().manual_seed(0)
    w_q, w_k = torch.randn(2, 8, 8, generator=g, dtype=torch.float64)
    mixed = absolute_logit_terms(x, p, w_q, w_k)[3]
    assert offset_variance_share(mixed).item() < 0.9  # random projections mix the pairs


def test_absolute_logit_terms_refuse_bad_input_by_name():
    x, w = torch.zeros(5, 6), torch.zeros(4, 6)
    with pytest.raises(TypeError, match=r"^x must be a floating-point tensor"):
        absolute_logit_terms(x.long(), x, w, w)
    with pytest.raises(TypeError, match=r"^p must be a torch.Tensor"):
        absolute_logit_terms(x, x.tolist(), w, w)
    with pytest.raises(ValueError, match=r"^w_q must have 2 dimensions"):
        absolute_logit_terms(x, x, w[None], w)
    with pytest.raises(ValueError, match=r"^w_q and w_k must both be \[d, d_x\]"):
        absolute_logit_terms(x, x, w, torch.zeros(3, 6))
    with pytest.raises(ValueError, match=r"d_x = x.shape\[-1\] = 6"):
        absolute_logit_terms(x, x, torch.zeros(4, 5), torch.zeros(4, 5))
    with pytest.raises(ValueError, match=r"with d >= 1"):
        absolute_logit_terms(x, x, w[:0], w[:0])
    with pytest.raises(ValueError, match=r"^p must broadcast to the shape of x \(5, 6\)"):
        absolute_logit_terms(x, torch.zeros(2, 5, 6), w, w)
    with pytest.raises(ValueError, match=r"^x must have at least 2 dimensions"):
        absolute_logit_terms(torch.zeros(6), torch.zeros(6), w, w)
    with pytest.raises(TypeError, match=r"must have one dtype"):
        absolute_logit_terms(x, x.double(), w, w)
    with pytest.raises(ValueError, match=r"must be on one device"):
        absolute_logit_terms(x, x, w, w.to("meta"))


def test_offset_variance_share_matches_a_float64_transcription():
    g = torch.Generator().manual_seed(5)
    maps = torch.randn(2, 3, 4, 6, generator=g, dtype=torch.float64)  # [..., n_q, n_k]
    maps[0, 0] += 3 * torch.arange(6.0)[None, :] - 2 * torch.arange(4.0)[:, None]
    shares = offset_variance_share(maps)
    assert shares.shape == (2, 3)
    for index in ((0, 0), (0, 2), (1, 1)):
        m = maps[index].tolist()
        groups: dict[int, list[float]] = {}
        for i in range(4):
            for j in range(6):
                groups.setdefault(j - i, []).append(m[i][j])
        means = {r: sum(v) / len(v) for r, v in groups.items()}
        mean = sum(sum(row) for row in m) / 24
        residual = sum((m[i][j] - means[j - i]) ** 2 for i in range(4) for j in range(6))
        total = sum((m[i][j] - mean) ** 2 for i in range(4) for j in range(6))
        assert shares[index].item() == pytest.approx(1 - residual / total, rel=1e-12)
    assert shares[0, 0] > shares[0, 1]  # the offset trend explains most of the first map


def test_offset_variance_share_is_one_for_offset_maps_and_refuses_bad_input():
    toeplitz = torch.randn(9)[torch.arange(5)[None, :] - torch.arange(5)[:, None] + 4]  # [5, 5]
    assert offset_variance_share(toeplitz).item() == pytest.approx(1.0, abs=1e-6)
    assert offset_variance_share(torch.full((3, 3), 2.0)).item() == 1.0  # constant map
    assert offset_variance_share(torch.zeros(1, 1)).item() == 1.0
    with pytest.raises(TypeError, match=r"^logits must be a floating-point tensor"):
        offset_variance_share(torch.zeros(3, 3, dtype=torch.long))
    with pytest.raises(ValueError, match=r"^logits must be maps \[..., n_q, n_k\]"):
        offset_variance_share(torch.zeros(3))
    with pytest.raises(ValueError, match=r"n_q, n_k >= 1"):
        offset_variance_share(torch.zeros(0, 3))


def test_bridge_functions_keep_the_meta_device():
    meta = torch.device("meta")
    x, w = torch.empty(2, 5, 6, device=meta), torch.empty(4, 6, device=meta)
    terms = absolute_logit_terms(x, x[0], w, w)
    assert terms.device == meta and terms.shape == (4, 2, 5, 5)
    shares = offset_variance_share(terms)
    assert shares.device == meta and shares.shape == (4, 2)
