"""posenc.t5 against golden buckets, transformers' T5Attention, an exact-arithmetic case and properties."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers import T5Config
from transformers.models.t5.modeling_t5 import T5Attention

from book.toy import TinyTransformer
from posenc.t5 import T5RelativePositionBias, t5_bucket_index, t5_bucket_starts, t5_relative_bucket

hf_bucket = T5Attention._relative_position_bucket


def hf_attention(num_heads, num_buckets, max_distance, is_decoder, seed=0):
    torch.manual_seed(seed)
    config = T5Config(
        d_model=16,
        d_kv=4,
        num_heads=num_heads,
        relative_attention_num_buckets=num_buckets,
        relative_attention_max_distance=max_distance,
        is_decoder=is_decoder,
    )
    attn = T5Attention(config, has_relative_attention_bias=True, layer_idx=0)
    torch.nn.init.normal_(attn.relative_attention_bias.weight)
    return attn


def copied(attn, bidirectional):
    """Our module with the T5 attention's table loaded through its state dict (same parameter name)."""
    mod = T5RelativePositionBias(
        attn.n_heads,
        bidirectional=bidirectional,
        num_buckets=attn.relative_attention_num_buckets,
        max_distance=attn.relative_attention_max_distance,
    )
    table = {k: v for k, v in attn.state_dict().items() if k.startswith("relative_attention_bias.")}
    mod.load_state_dict(table, strict=True)
    return mod


# -- buckets ----------------------------------------------------------------------------------


def test_golden_buckets():
    # REFERENCES.md §2: transformers' T5 buckets for relative positions −10..10 (bidirectional)
    golden = [8, 8, 8, 7, 6, 5, 4, 3, 2, 1, 0, 17, 18, 19, 20, 21, 22, 23, 24, 24, 24]
    assert t5_relative_bucket(torch.arange(-10, 11)).tolist() == golden
    # decoder (16 exact buckets): keys before the query count back from 0; keys after it share bucket 0
    expected = list(range(10, -1, -1)) + [0] * 10
    assert t5_relative_bucket(torch.arange(-10, 11), bidirectional=False).tolist() == expected


@pytest.mark.parametrize(
    ("bidirectional", "num_buckets", "max_distance"),
    [
        (True, 32, 128),
        (False, 32, 128),
        (True, 64, 256),
        (False, 16, 64),
        (True, 4, 2),
        (False, 2, 2),
        (False, 7, 20),
        (True, 10, 1000),
        # parameters where a float64 logarithm would put one offset in the other bucket
        (True, 18, 128),
        (True, 34, 27),
        (False, 10, 160),
        (False, 48, 81),
    ],
)
def test_matches_transformers_bucket_function(bidirectional, num_buckets, max_distance):
    rel = torch.arange(-3 * max_distance - 5, 3 * max_distance + 6)
    theirs = hf_bucket(
        rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    ours = t5_relative_bucket(
        rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    assert ours.dtype == torch.long
    assert torch.equal(ours, theirs)


def test_float32_logarithm_as_in_t5():
    # bidirectional, 18 buckets: B = 9 per side, E = 4 exact, max_distance 128. Offset −64:
    # (B − E)·ln(64/4)/ln(128/4) = 5·ln 16/ln 32 = 5·4/5 = 4 exactly, so the bucket is E + 4 = 8.
    # T5's float32 arithmetic gets 8; the same formula in float64 rounds to 3.999… and gets 7.
    assert t5_relative_bucket(torch.tensor([-64]), num_buckets=18, max_distance=128).item() == 8
    float64_formula = 4 + int(math.log(64 / 4) / math.log(128 / 4) * 5)
    assert float64_formula == 7


def transcription(r, bidirectional, num_buckets, max_distance):
    """Raffel et al. §2.1 as written in Mesh TensorFlow, one Python int at a time (float64 log)."""
    per_side = num_buckets // 2 if bidirectional else num_buckets
    offset = per_side if (bidirectional and r > 0) else 0
    d = abs(r) if bidirectional else max(-r, 0)
    exact = per_side // 2
    if d < exact:
        return offset + d
    return offset + min(
        per_side - 1,
        exact + int(math.log(d / exact) / math.log(max_distance / exact) * (per_side - exact)),
    )


@pytest.mark.parametrize("bidirectional", [True, False])
def test_matches_float64_transcription_for_t5_settings(bidirectional):
    rel = list(range(-600, 601))
    expected = [transcription(r, bidirectional, 32, 128) for r in rel]
    assert t5_relative_bucket(torch.tensor(rel), bidirectional=bidirectional).tolist() == expected


@settings(max_examples=60)
@given(
    bidirectional=st.booleans(),
    half=st.integers(2, 40),
    max_distance=st.integers(1, 400),
)
def test_bucket_properties(bidirectional, half, max_distance):
    num_buckets = 2 * half
    per_side = half if bidirectional else num_buckets
    exact = per_side // 2
    max_distance = max(max_distance, exact + 1)
    kw = {"bidirectional": bidirectional, "num_buckets": num_buckets, "max_distance": max_distance}
    dist = torch.arange(0, 3 * max_distance + 2)
    back = t5_relative_bucket(-dist, **kw)  # keys before the query
    assert back.min() >= 0 and back.max() <= per_side - 1
    assert (back[1:] >= back[:-1]).all()  # monotone in the distance
    assert back[:exact].tolist() == list(range(exact))  # the exact buckets: one per offset
    assert (back[max_distance:] == per_side - 1).all()  # far keys share the last bucket
    assert (back[exact:] >= exact).all()
    forward = t5_relative_bucket(dist, **kw)  # keys after the query
    if bidirectional:
        torch.testing.assert_close(forward[1:], back[1:] + per_side, rtol=0, atol=0)
        assert forward[0] == 0
        everything = t5_relative_bucket(torch.arange(-3 * max_distance, 3 * max_distance + 1), **kw)
        assert per_side not in everything.tolist()  # bucket "+0" (16 for T5) never used
    else:
        assert (forward == 0).all()  # the future shares the query's own bucket


def test_default_buckets_all_used():
    used = set(t5_relative_bucket(torch.arange(-200, 201)).tolist())
    assert used == set(range(32)) - {16}
    assert set(t5_relative_bucket(torch.arange(-200, 1), bidirectional=False).tolist()) == set(
        range(32)
    )


@pytest.mark.parametrize(
    ("bidirectional", "num_buckets", "max_distance"),
    [(True, 32, 128), (False, 32, 128), (True, 64, 20), (False, 8, 300), (True, 16, 64)],
)
def test_bucket_starts_by_brute_force_on_transformers(bidirectional, num_buckets, max_distance):
    dist = torch.arange(0, 4 * max_distance)
    past = hf_bucket(
        -dist, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    per_side = num_buckets // 2 if bidirectional else num_buckets
    expected = [int(dist[past == b].min()) if (past == b).any() else -1 for b in range(per_side)]
    got = t5_bucket_starts(
        bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    assert got.tolist() == expected
    if (
        bidirectional
    ):  # the keys after the query use buckets B + b from the same distances on (b >= 1)
        future = hf_bucket(
            dist, bidirectional=True, num_buckets=num_buckets, max_distance=max_distance
        )
        for b in range(1, per_side):
            hit = future == per_side + b
            assert (int(dist[hit].min()) if hit.any() else -1) == expected[b]


def test_bucket_starts_golden():
    assert t5_bucket_starts().tolist() == [0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 23, 32, 46, 64, 91]
    # 64 buckets with max_distance 20: 16 exact buckets, then 16 log buckets for 5 distances
    starts = t5_bucket_starts(num_buckets=64, max_distance=20).tolist()
    assert starts[:17] == list(range(17)) and starts.count(-1) == 11
    with pytest.raises(ValueError, match="max_distance must be greater than the 8 exact buckets"):
        t5_bucket_starts(max_distance=8)


# -- the bias ---------------------------------------------------------------------------------


@pytest.mark.parametrize("is_decoder", [False, True])
@pytest.mark.parametrize(("n_q", "n_k"), [(1, 1), (6, 6), (3, 9), (40, 40), (1, 150)])
def test_module_matches_t5_compute_bias(is_decoder, n_q, n_k):
    attn = hf_attention(3, 32, 128, is_decoder)
    mod = copied(attn, bidirectional=not is_decoder)
    with torch.no_grad():
        # transformers places queries at past_seen_tokens.. (0 by default); ours at the end by default
        at_end = attn.compute_bias(n_q, n_k, past_seen_tokens=n_k - n_q)[0]  # [h, n_q, n_k]
        at_start = attn.compute_bias(n_q, n_k)[0]
        torch.testing.assert_close(mod(n_q, n_k), at_end, rtol=0, atol=0)
        torch.testing.assert_close(mod(n_q, n_k, query_offset=0), at_start, rtol=0, atol=0)


def test_module_with_other_bucket_settings_matches_t5():
    attn = hf_attention(2, 10, 20, is_decoder=False, seed=1)
    mod = copied(attn, bidirectional=True)
    with torch.no_grad():
        torch.testing.assert_close(mod(30), attn.compute_bias(30, 30)[0], rtol=0, atol=0)
    assert list(mod.state_dict()) == ["relative_attention_bias.weight"]
    assert mod.relative_attention_bias.weight.shape == (10, 2)


def test_bucket_index_and_table_lookup():
    idx = t5_bucket_index(4, 4)
    assert idx.tolist() == [[0, 17, 18, 19], [1, 0, 17, 18], [2, 1, 0, 17], [3, 2, 1, 0]]
    assert t5_bucket_index(2, 4).tolist() == idx[2:].tolist()  # queries are the last positions
    mod = T5RelativePositionBias(2)
    table = mod.relative_attention_bias.weight  # [buckets, h]
    torch.testing.assert_close(mod(4), table[idx].permute(2, 0, 1), rtol=0, atol=0)
    # gradients reach exactly the rows of the buckets in use
    mod(4).sum().backward()
    used = (mod.relative_attention_bias.weight.grad.abs().sum(1) > 0).nonzero().flatten().tolist()
    assert used == [0, 1, 2, 3, 17, 18, 19]


def test_module_plugs_into_the_tiny_transformer():
    torch.manual_seed(0)
    model = TinyTransformer(10, 16, 2, 1, attention_bias=T5RelativePositionBias(2))
    tokens = torch.randint(0, 10, (3, 9))
    assert model(tokens).shape == (3, 9, 10)
    # the bias reaches every length, also ones beyond max_distance
    assert model(torch.randint(0, 10, (1, 200))).shape == (1, 200, 10)


# -- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"num_buckets": 31}, ValueError, "num_buckets must be even when bidirectional"),
        ({"num_buckets": 2}, ValueError, "num_buckets must be >= 4"),
        ({"num_buckets": 1, "bidirectional": False}, ValueError, "num_buckets must be >= 2"),
        ({"num_buckets": 32.0}, TypeError, "num_buckets must be an integer"),
        ({"max_distance": 8}, ValueError, "max_distance must be greater than the 8 exact buckets"),
        (
            {"max_distance": 16, "bidirectional": False},
            ValueError,
            "max_distance must be greater than the 16",
        ),
        ({"max_distance": 0}, ValueError, "max_distance must be positive"),
    ],
)
def test_bucket_errors_name_the_argument(kwargs, error, message):
    with pytest.raises(error, match=message):
        t5_relative_bucket(torch.arange(3), **kwargs)
    with pytest.raises(error, match=message):
        T5RelativePositionBias(2, **kwargs)


def test_other_errors_name_the_argument():
    with pytest.raises(TypeError, match="relative_position must be an integer tensor"):
        t5_relative_bucket(torch.arange(3.0))
    with pytest.raises(TypeError, match="relative_position must be a torch.Tensor"):
        t5_relative_bucket([1, 2])
    with pytest.raises(ValueError, match="n_q must be <= n_k when query_offset is not given"):
        t5_bucket_index(5, 3)
    with pytest.raises(ValueError, match="num_heads must be positive"):
        T5RelativePositionBias(0)
    with pytest.raises(ValueError, match="query_offset must be >= 0"):
        T5RelativePositionBias(2)(2, 2, query_offset=-3)


# -- strict inputs -----------------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["False", 0, 1, None, torch.tensor(True)])
def test_bidirectional_must_be_a_bool(flag):
    for call in (
        lambda: t5_relative_bucket(torch.arange(3), bidirectional=flag),
        lambda: t5_bucket_index(3, 3, bidirectional=flag),
        lambda: t5_bucket_starts(bidirectional=flag),
        lambda: T5RelativePositionBias(2, bidirectional=flag),
    ):
        with pytest.raises(TypeError, match=r"^bidirectional must be a bool"):
            call()


@pytest.mark.parametrize("bidirectional", [True, False])
def test_extreme_int64_offsets_get_the_last_bucket_of_their_direction(bidirectional):
    info = torch.iinfo(torch.int64)
    values = [info.min, info.min + 1, -(10**18), -129, -128, -127, 127, 128, 10**18, info.max]
    got = t5_relative_bucket(torch.tensor(values), bidirectional=bidirectional).tolist()
    assert got == [transcription(r, bidirectional, 32, 128) for r in values]
    # and other integer dtypes give what int64 gives
    small = torch.tensor([-100, -5, 0, 5, 100])
    for dtype in (torch.int8, torch.int16, torch.int32):
        assert torch.equal(
            t5_relative_bucket(small.to(dtype), bidirectional=bidirectional),
            t5_relative_bucket(small, bidirectional=bidirectional),
        )


def test_uint64_offsets_are_refused():
    with pytest.raises(TypeError, match=r"^relative_position must not be uint64"):
        t5_relative_bucket(torch.tensor([1], dtype=torch.uint64))


@pytest.mark.parametrize(("buckets", "heads"), [(16, 4), (32, 2)])
def test_loading_a_table_of_another_size_names_the_table_and_both_sizes(buckets, heads):
    saved = T5RelativePositionBias(heads, num_buckets=buckets).state_dict()
    words = (
        rf"^state dict entry 'relative_attention_bias.weight' has shape \({buckets}, {heads}\), "
        r"but this module's table has shape \(32, 4\)"
    )
    with pytest.raises(ValueError, match=words):
        T5RelativePositionBias(4).load_state_dict(saved)


@pytest.mark.parametrize("value", [True, 32.0])
def test_sizes_must_be_ints(value):
    with pytest.raises(TypeError, match=r"^num_buckets must be an integer"):
        T5RelativePositionBias(2, num_buckets=value)
    with pytest.raises(TypeError, match=r"^num_heads must be an integer"):
        T5RelativePositionBias(value)


def test_empty_offsets_give_empty_buckets():
    assert t5_relative_bucket(torch.zeros(0, 3, dtype=torch.long)).shape == (0, 3)


def test_meta_device():
    meta = torch.device("meta")
    outs = {
        "bucket": (t5_relative_bucket(torch.empty(3, 4, dtype=torch.long, device=meta)), (3, 4)),
        "index": (t5_bucket_index(3, 5, device=meta), (3, 5)),
        "starts": (t5_bucket_starts(bidirectional=False, device=meta), (32,)),
        "module": (T5RelativePositionBias(4).to(meta)(3, 5), (4, 3, 5)),
    }
    for name, (out, shape) in outs.items():
        assert out.device == meta and out.shape == shape, name
