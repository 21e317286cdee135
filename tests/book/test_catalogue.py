"""book.catalogue: names exist, counts match hand formulas and transformers, extrapolation claims."""

import importlib
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from torch import nn
from transformers import T5Config
from transformers.models.swin.modeling_swin import SwinRelativePositionBias
from transformers.models.t5.modeling_t5 import T5Attention

from book.catalogue import (
    ENCODINGS,
    CatalogueSize,
    Encoding,
    ToyOptions,
    ToyPlugIn,
    get_encoding,
    learned_parameter_count,
    markdown_table,
    overview_rows,
    posenc_rows,
    position_parameter_count,
    reach_rows,
    runs_beyond,
    toy_encodings,
)
from posenc.shaw import shaw_relative_index
from posenc.t5 import t5_relative_bucket
from posenc.window import WindowAttention

ROOT = Path(__file__).resolve().parents[2]
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
        "swin_v2": 3 * 512 + 512 * s.h,  # cpb_mlp: Linear(2, 512), Linear(512, h, no bias)
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
        "swin_v2",
        "rope_grid",
        "rope",
        "rope_scaled",
        "alibi",
        "t5",
    ]
    assert {e.kind.split()[0] for e in ENCODINGS} == {"none", "absolute", "relative"}
    axes = [set(e.dims.split(", ")) for e in ENCODINGS]
    assert all(a == {"any"} or a <= {"1-D", "2-D", "3-D"} for a in axes)
    assert set().union(*axes) == {"any", "1-D", "2-D", "3-D"}
    assert get_encoding("rope_grid").dims == "2-D, 3-D"  # axial 2-D and M-RoPE


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
    with pytest.raises(ValueError, match="key must be one of.*rope.*no encoding 'xpos'"):
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
        "swin_v2": 5632,
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


# -- strict inputs ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: get_encoding(3), TypeError, "key must be a str"),
        (lambda: learned_parameter_count(3), TypeError, "encoding must be an Encoding"),
        (
            lambda: learned_parameter_count("rope", (1, 2)),
            TypeError,
            "size must be a CatalogueSize",
        ),
        (lambda: runs_beyond("rope", factor=True), TypeError, "factor must be an integer"),
        (lambda: runs_beyond("rope", factor=0), ValueError, "factor must be positive"),
        (lambda: reach_rows(factor=2.0), TypeError, "factor must be an integer"),
        (lambda: overview_rows(["rope"]), TypeError, r"encodings\[0\] must be an Encoding"),
        (lambda: posenc_rows(get_encoding("rope")), TypeError, "iterable of Encoding"),
        (lambda: markdown_table("ab", []), TypeError, "header must be"),
        (lambda: markdown_table(["a"], [[1]]), TypeError, r"rows\[0\]\[0\] must be a str"),
        (lambda: markdown_table(["a"], ["x"]), TypeError, r"rows\[0\] must be a sequence"),
        (lambda: ToyOptions(causal="False"), TypeError, "causal must be a bool"),
        (lambda: ToyOptions(dim=True), TypeError, "dim must be an integer"),
        (lambda: ToyOptions(rope_base=1.0), ValueError, "rope_base"),
        (lambda: ToyOptions(rope_base=float("nan")), ValueError, "rope_base"),
        (lambda: ToyOptions(dim=30, num_heads=4), ValueError, "num_heads must divide dim"),
        (lambda: ToyOptions(shaw_max_relative_position=-1), ValueError, "shaw_max_relative"),
        (lambda: ToyOptions(t5_num_buckets=2.0), TypeError, "t5_num_buckets"),
        (
            lambda: replace(get_encoding("rope"), posenc=["posenc.rotary.apply_rotary"]),
            TypeError,
            "posenc must be a tuple",
        ),
        (lambda: replace(get_encoding("rope"), toy=3), TypeError, "toy must be callable"),
    ],
)
def test_public_functions_refuse_bad_input_naming_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()


# -- every place a family must appear (CONTRIBUTING: "Adding an encoding family") ----------------
# The checks below are the mechanical part of that checklist: a family missing from one of
# these places fails here.

FAMILY_MODULES = sorted({n.rsplit(".", 2)[1] for e in ENCODINGS for n in e.posenc})


def test_family_modules_are_the_books():
    # a new family module appears here by its catalogue entry; the list pins what the book has
    assert FAMILY_MODULES == [
        "absolute_2d",
        "alibi",
        "attention",
        "learned",
        "numeric",
        "rotary",
        "rotary_nd",
        "shaw",
        "sinusoidal",
        "t5",
        "window",
        "window_v2",
    ]


@pytest.mark.parametrize("name", sorted({n for e in ENCODINGS for n in e.posenc}))
def test_every_posenc_name_is_exported_by_its_module(name):
    """posenc's top level holds the model-builder names only; every name of the catalogue is in
    its family module's ``__all__``, defined there, and the same object wherever it is exported."""
    import posenc

    module, _, attr = name.rpartition(".")
    family = importlib.import_module(module)
    assert attr in getattr(family, "__all__", []), f"{attr} not in {module}.__all__"
    obj = getattr(family, attr)
    assert getattr(obj, "__module__", module) == module, f"{name} is defined in {obj.__module__}"
    if attr in posenc.__all__:
        assert getattr(posenc, attr) is obj, f"posenc.{attr} is not {name}"


@pytest.mark.parametrize("module", FAMILY_MODULES)
def test_every_family_module_has_tests_figures_and_explorers(module):
    for path in (
        f"posenc/{module}.py",
        f"tests/posenc/test_{module}.py",
        f"book/figures/{module}.py",
        f"tests/book/figures/test_{module}.py",
        f"book/explorers/{module}.py",
        f"tests/book/explorers/test_{module}.py",
    ):
        assert (ROOT / path).is_file(), f"{module}: {path} is missing"
    for package in ("posenc", "book.figures", "book.explorers"):
        exports = getattr(importlib.import_module(f"{package}.{module}"), "__all__", None)
        assert isinstance(exports, list), f"{package}.{module} has no __all__ list"


@pytest.mark.parametrize("encoding", ENCODINGS, ids=lambda e: e.key)
def test_every_entry_is_taught_by_a_chapter_that_calls_it(encoding):
    path = ROOT / "chapters" / f"{encoding.chapter}.ipynb"
    assert path.is_file(), f"{encoding.key}: no chapter {path.name}"
    text = path.read_text()
    modules = {n.rsplit(".", 1)[0] for n in encoding.posenc}
    assert any(f"from {m} import" in text for m in modules), (
        f"{encoding.chapter} imports none of {sorted(modules)}"
    )
    assert "from book.figures." in text and "from book.explorers." in text  # figure, explorer


def test_the_appendix_builds_its_tables_from_the_whole_catalogue():
    text = (ROOT / "appendix" / "which_encoding.ipynb").read_text()
    for call in ("overview_rows()", "reach_rows(", "posenc_rows()"):
        assert call in text, f"the appendix does not call {call}"


def test_toy_encodings_are_the_entries_with_a_toy_form():
    assert toy_encodings() == tuple(e.key for e in ENCODINGS if e.toy is not None)
    assert set(toy_encodings()) == {
        "none",
        "sinusoidal",
        "learned",
        "shaw",
        "t5",
        "alibi",
        "rope",
        "swin_v2",
        "rope_grid",
    }
    assert get_encoding("swin").toy is None  # needs an image: no toy form


@pytest.mark.parametrize("key", toy_encodings())
@pytest.mark.parametrize("causal", [True, False])
def test_every_toy_form_builds_a_toy_model_that_runs(key, causal):
    from book.experiments import toy_model
    from book.toy import TinyTransformer, ToyAttention, toy_attention_weights

    plug_in = get_encoding(key).toy(ToyOptions(dim=16, num_heads=2, causal=causal))
    assert isinstance(plug_in, ToyPlugIn)
    model = toy_model(key, dim=16, num_heads=2, num_layers=1, causal=causal, seed=0)
    assert isinstance(model, TinyTransformer)
    assert model.plug_ins == tuple(plug_in.kwargs())  # the plug-in points the entry names
    assert all(isinstance(block.attn, ToyAttention) for block in model.blocks)  # probes work
    tokens = torch.randint(0, 16, (2, 9), generator=torch.Generator().manual_seed(0))
    assert model(tokens).shape == (2, 9, 16)
    assert toy_attention_weights(model, tokens)[0].shape == (2, 2, 9, 9)


@pytest.mark.parametrize("key", toy_encodings())
def test_every_toy_form_is_drawn_and_run_in_a_chapter(key):
    from book.figures.experiment import encoding_style

    assert encoding_style(key, 0) != encoding_style("not an encoding", 0), f"{key} has no style"
    # chapter 10 compares the families taught before it; a later family's toy form is run
    # in its own chapter
    chapter = get_encoding(key).chapter
    stem = "10_length_experiment" if int(chapter[:2]) <= 10 else chapter
    source = (ROOT / "chapters" / f"{stem}.ipynb").read_text()
    assert f'\\"{key}\\"' in source, f"{stem} does not run the toy form of {key!r}"


def test_the_toy_keeps_no_registry_of_its_own():
    import book.experiments
    import book.toy

    assert not hasattr(book.toy, "ENCODINGS")
    assert not hasattr(book.toy, "toy_model")  # built from the catalogue's entries, a layer up
    with pytest.raises(ValueError, match="toy form"):
        book.experiments.toy_model("swin")


def test_importing_posenc_does_not_import_the_toy():
    import subprocess
    import sys

    code = "import sys, posenc, book.catalogue; print('book.toy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
