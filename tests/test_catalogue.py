"""posenc.catalogue: names exist, counts match hand formulas and transformers, extrapolation claims."""

import importlib
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from torch import nn
from transformers import T5Config
from transformers.models.swin.modeling_swin import SwinRelativePositionBias
from transformers.models.t5.modeling_t5 import T5Attention

from posenc.catalogue import (
    ENCODINGS,
    CatalogueSize,
    Encoding,
    get_encoding,
    learned_parameter_count,
    markdown_table,
    overview_rows,
    posenc_rows,
    position_parameter_count,
    reach_rows,
    runs_beyond,
)
from posenc.shaw import shaw_relative_index
from posenc.t5 import t5_relative_bucket
from posenc.window import WindowAttention

ROOT = Path(__file__).resolve().parents[1]
# the book's chapters; 09 and 10 are announced in the plan of the book (intro.md)
CHAPTERS = {p.stem for p in (ROOT / "chapters").glob("*.ipynb")}
CHAPTERS |= {"09_rotary_alibi_t5", "10_length_experiment"}

DEFAULT = CatalogueSize()
OTHER = CatalogueSize(
    n=40, d=48, h=4, grid=12, window=(4, 6), frames=3, k=5, num_buckets=16, max_distance=20
)


def hand_count(key: str, s: CatalogueSize) -> int:
    """The learned-parameter formulas, written out from the papers' table shapes."""
    wh, ww = s.window
    return {
        "learned": s.n * s.d,  # one d-vector per position (BERT, GPT-2, ViT)
        "detr_learned": 2 * s.grid * (s.d // 2),  # a row and a column table of F = d/2 channels
        "shaw": 2
        * (2 * s.k + 1)
        * (s.d // s.h),  # w^K and w^V: 2k+1 vectors of d/h, shared by heads
        "swin": (2 * wh - 1) * (2 * ww - 1) * s.h,  # one number per offset and head
        "window_3d": (2 * s.frames - 1) * (2 * wh - 1) * (2 * ww - 1) * s.h,
        "t5": s.num_buckets * s.h,  # one number per bucket and head
    }.get(key, 0)  # everything else is a formula: nothing to learn


# -- the catalogue itself ----------------------------------------------------------------------


def test_every_encoding_of_the_book_is_a_row():
    keys = [e.key for e in ENCODINGS]
    assert keys == [
        "none",
        "numeric",
        "sinusoidal",
        "learned",
        "sincos_2d",
        "detr_sine",
        "detr_learned",
        "shaw",
        "swin",
        "window_3d",
        "rope",
        "alibi",
        "t5",
    ]
    assert {e.kind.split()[0] for e in ENCODINGS} == {"none", "absolute", "relative"}
    assert {e.dims for e in ENCODINGS} == {"any", "1-D", "2-D", "3-D"}


@pytest.mark.parametrize("name", sorted({n for e in ENCODINGS for n in e.posenc}))
def test_every_posenc_name_exists(name):
    module, _, attr = name.rpartition(".")
    assert module.startswith("posenc.")
    assert callable(getattr(importlib.import_module(module), attr))


def test_chapters_are_chapters_of_the_book():
    for e in ENCODINGS:
        assert e.chapter in CHAPTERS, e.key


def test_get_encoding():
    assert get_encoding("rope").name == "RoPE"
    with pytest.raises(KeyError, match="no encoding 'xpos'.*rope"):
        get_encoding("xpos")


# -- learned parameters ------------------------------------------------------------------------


@pytest.mark.parametrize("size", [DEFAULT, OTHER], ids=["default", "other"])
@pytest.mark.parametrize("key", [e.key for e in ENCODINGS])
def test_parameter_counts_match_hand_formulas(key, size):
    assert learned_parameter_count(key, size) == hand_count(key, size)


def test_default_counts_golden():
    # n = 256, d = 64, h = 8, grid 14, window 7×7, 2 frames, k = 16, 32 buckets
    counts = {e.key: learned_parameter_count(e) for e in ENCODINGS if learned_parameter_count(e)}
    assert counts == {
        "learned": 16384,
        "detr_learned": 896,
        "shaw": 528,
        "swin": 1352,
        "window_3d": 4056,
        "t5": 256,
    }


@pytest.mark.parametrize(("window", "heads"), [((7, 7), 3), ((12, 12), 4), ((3, 4), 1)])
def test_swin_count_matches_transformers(window, heads):
    # our entry builds a whole WindowAttention (with its qkv and proj): only the table may count
    theirs = SwinRelativePositionBias(num_heads=heads, window_size=window)
    size = CatalogueSize(d=8 * heads, h=heads, grid=window[0] * window[1], window=window)
    assert learned_parameter_count("swin", size) == theirs.relative_position_bias_table.numel()


@pytest.mark.parametrize(("buckets", "heads"), [(32, 8), (32, 12), (16, 4)])
def test_t5_count_matches_transformers(buckets, heads):
    config = T5Config(d_model=16, d_kv=4, num_heads=heads, relative_attention_num_buckets=buckets)
    theirs = T5Attention(config, has_relative_attention_bias=True, layer_idx=0)
    size = replace(DEFAULT, h=heads, d=8 * heads, num_buckets=buckets)
    assert learned_parameter_count("t5", size) == theirs.relative_attention_bias.weight.numel()


def test_position_parameter_count_rules():
    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(4, 4)  # attention's own projection: not a position parameter
            self.table = nn.Embedding(5, 3)  # 15, learned
            self.bias = nn.Parameter(torch.zeros(2, 7))  # 14, learned
            self.frozen = nn.Parameter(torch.zeros(9), requires_grad=False)  # fixed (MAE's sin/cos)
            self.register_buffer("fixed", torch.zeros(100))
            self.inner = nn.Sequential(nn.Linear(3, 3), nn.Embedding(2, 2))  # 4 more

    assert position_parameter_count(Layer()) == 15 + 14 + 4
    with pytest.raises(TypeError, match="module must be an nn.Module"):
        position_parameter_count(torch.zeros(3))


# -- running beyond the built size ---------------------------------------------------------------


@pytest.mark.parametrize("key", [e.key for e in ENCODINGS])
def test_every_encoding_runs_at_its_built_size(key):
    assert runs_beyond(key, OTHER, factor=1)


@pytest.mark.parametrize("size", [DEFAULT, OTHER], ids=["default", "other"])
def test_only_learned_absolute_tables_refuse_longer_inputs(size):
    refused = {e.key for e in ENCODINGS if not runs_beyond(e, size, factor=4)}
    assert refused == {"learned", "detr_learned"}


def test_refusals_are_the_modules_value_errors():
    learned = get_encoding("learned")
    with pytest.raises(ValueError, match="exceeds max_positions=40"):
        learned.run(learned.build(OTHER), OTHER, 2)
    rowcol = get_encoding("detr_learned")
    with pytest.raises(ValueError, match="exceeds max_positions=12"):
        rowcol.run(rowcol.build(OTHER), OTHER, 2)


def test_outputs_grow_with_the_input():
    # each run really covers factor× the positions: the shape of what comes back
    f = 3
    s = OTHER
    runnable = [e for e in ENCODINGS if e.key not in {"learned", "detr_learned"}]
    shapes = {e.key: tuple(e.run(e.build(s), s, f).shape) for e in runnable}
    n, g, (wh, ww) = s.n * f, s.grid * f, s.window
    assert shapes["none"] == shapes["sinusoidal"] == shapes["shaw"] == (1, n, s.d)
    assert shapes["numeric"] == (n, 1)
    assert shapes["rope"] == (1, s.h, n, s.d // s.h)
    assert shapes["alibi"] == shapes["t5"] == (s.h, n, n)
    assert shapes["sincos_2d"] == (g * g, s.d)
    assert shapes["detr_sine"] == (1, s.d, g, g)
    assert shapes["swin"] == ((g // wh) * (g // ww), wh * ww, s.d)
    assert shapes["window_3d"] == (f * (g // wh) * (g // ww), s.h, s.frames * wh * ww, s.d // s.h)


def test_runs_beyond_returns_false_only_for_refusals_and_non_finite_results():
    def make(run):
        return Encoding(
            key="x",
            name="x",
            kind="absolute",
            enters="input",
            dims="1-D",
            models="",
            chapter="",
            posenc=(),
            parameter_formula="0",
            beyond="",
            build=lambda s: nn.Module(),
            run=run,
        )

    def refuse(m, s, f):
        raise ValueError("too long")

    def broken(m, s, f):
        raise TypeError("a bug")

    assert runs_beyond(make(lambda m, s, f: torch.ones(3)), OTHER) is True
    assert runs_beyond(make(refuse), OTHER) is False
    assert runs_beyond(make(lambda m, s, f: torch.tensor([1.0, float("nan")])), OTHER) is False
    with pytest.raises(TypeError, match="a bug"):
        runs_beyond(make(broken), OTHER)
    with pytest.raises(ValueError, match="factor must be"):
        runs_beyond("rope", OTHER, factor=0)


# -- the "beyond the built size" column, checked -------------------------------------------------


def test_shaw_offsets_beyond_k_share_the_vectors_of_k():
    k = 4
    index = shaw_relative_index(1, 50, k)[0]  # query 0 against keys 0..49: offsets 0..49
    assert (index[k:] == index[k]).all() and index[: k + 1].unique().numel() == k + 1


def test_t5_offsets_beyond_max_distance_share_the_last_bucket():
    far = torch.arange(128, 5000)
    assert t5_relative_bucket(far).unique().tolist() == [31]
    assert t5_relative_bucket(-far).unique().tolist() == [15]


def test_swin_refuses_a_larger_window_but_not_a_larger_image():
    attn = WindowAttention(16, (7, 7), 2)
    with torch.no_grad():
        assert attn(torch.zeros(64, 49, 16)).shape == (64, 49, 16)  # 64 windows: any image size
        with pytest.raises(ValueError, match="x must be"):
            attn(torch.zeros(1, 14 * 14, 16))  # a 14×14 window has offsets the 13×13 table lacks


# -- sizes and tables ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"n": 0}, ValueError, "n must be"),
        ({"h": 2.5}, TypeError, "h must be an integer"),
        ({"window": 7}, TypeError, "window must be a pair"),
        ({"grid": 15}, ValueError, "grid must be a multiple of window"),
        ({"d": 60, "h": 8}, ValueError, "d must be a multiple of 2h"),
        ({"d": 6, "h": 1}, ValueError, "and of 4"),
    ],
)
def test_catalogue_size_rejects_bad_sizes(kwargs, error, match):
    with pytest.raises(error, match=match):
        CatalogueSize(**kwargs)


def test_markdown_table():
    text = markdown_table(["a", "b"], [["1", "x|y"], ["2", "z"]])
    assert text.splitlines() == ["| a | b |", "| --- | --- |", "| 1 | x\\|y |", "| 2 | z |"]
    with pytest.raises(ValueError, match=r"rows\[1\] must have 2 cells"):
        markdown_table(["a", "b"], [["1", "2"], ["3"]])


def test_overview_rows_link_each_chapter_from_the_appendix():
    header, rows = overview_rows()
    assert header[-1] == "chapter" and len(rows) == len(ENCODINGS)
    for e, row in zip(ENCODINGS, rows):
        number = str(int(e.chapter[:2]))
        assert row[-1] == f"[{number}](../chapters/{e.chapter}.ipynb)"
        assert row[:5] == [e.name, e.kind, e.enters, e.dims, e.models]


def test_reach_rows_agree_with_the_functions():
    header, rows = reach_rows(OTHER, factor=2)
    assert header == ["encoding", "learned parameters", "runs at 2×", "beyond the built size"]
    for e, row in zip(ENCODINGS, rows):
        count = learned_parameter_count(e, OTHER)
        assert row[1] == (f"{count:,} = {e.parameter_formula}" if count else "0")
        assert row[2] == ("yes" if runs_beyond(e, OTHER, 2) else "no (ValueError)")
        assert row[3] == e.beyond


def test_posenc_rows_list_every_name():
    header, rows = posenc_rows()
    assert header == ["encoding", "in posenc"]
    for e, row in zip(ENCODINGS, rows):
        assert row[1].split(", ") == [f"`{n[len('posenc.') :]}`" for n in e.posenc]
