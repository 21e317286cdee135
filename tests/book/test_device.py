"""The book's public names that take tensors keep their input's device, checked on ``meta``.

The same check as ``tests/posenc/test_device.py`` (whose helpers this uses), for
:mod:`book.toy`, :mod:`book.experiments`, :mod:`book.demos` and :mod:`book.catalogue`.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest
import torch
from torch import Tensor

import book.catalogue
import book.demos
import book.experiments
import book.toy
from book.demos.absolute_2d import (
    position_similarity_map,
    resampling_error_map,
    resampling_error_per_pair,
)
from book.demos.attention import absolute_logit_terms, offset_variance_share
from book.demos.learned import cosine_similarity_matrix
from book.demos.numeric import adjacent_distances, magnitude_ratio, pairwise_distances
from book.demos.rotary import rotary_angle_error, rotary_decay_bound, rotary_offset_logits
from book.demos.shaw import shaw_attention_reference
from book.demos.sinusoidal import binary_digits
from tests.posenc.test_device import (
    NO_TENSOR,
    Case,
    P,
    causal,
    check_coverage,
    check_on_cuda,
    check_on_meta,
    on,
    params,
    randn,
    seeded,
)


def demos_names() -> list[str]:
    """``module.name`` for every name in the ``__all__`` of each ``book.demos`` module."""
    names = []
    for info in pkgutil.iter_modules(book.demos.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"book.demos.{info.name}")
        names += [f"{info.name}.{name}" for name in getattr(module, "__all__", [])]
    return names


def toy_case(encoding: str) -> Case:
    def case(dev: torch.device) -> Tensor:
        model = on(dev, book.experiments.toy_model(encoding, num_layers=1, seed=0))
        tokens = on(dev, torch.randint(0, 16, (2, 7), generator=torch.Generator().manual_seed(0)))
        return model(tokens)  # [b, n, vocab]

    return case


def toy_weights_case(encoding: str, function: str) -> Case:
    def case(dev: torch.device) -> object:
        model = on(dev, book.experiments.toy_model(encoding, num_layers=1, seed=0))
        tokens = on(dev, torch.randint(0, 16, (2, 7), generator=torch.Generator().manual_seed(0)))
        return getattr(book.toy, function)(model, tokens)

    return case


def stretched_toy_case(dev: torch.device) -> Tensor:
    """A toy RoPE model given YaRN's frequencies and scale, then run (chapter 11)."""
    model = on(dev, book.experiments.toy_model("rope", num_layers=1, seed=0))
    # CPU frequencies, as RotaryEmbedding(inv_freq=...) takes them: it moves them when it rebuilds
    inv_freq, scale = P.scaled_rotary_frequencies(8, "yarn", factor=4.0, original_max_positions=4)
    book.experiments.stretch_toy_rotary(model, inv_freq, scale)
    tokens = on(dev, torch.randint(0, 16, (2, 7), generator=torch.Generator().manual_seed(0)))
    return model(tokens)  # [b, n, vocab]


TOY_ENCODINGS = (
    "none",
    "sinusoidal",
    "learned",
    "shaw",
    "t5",
    "alibi",
    "rope",
    "rope_grid",
    "swin_v2",
)
TOY_CASES: dict[str, list[Case]] = {
    "TinyTransformer": [toy_case(encoding) for encoding in TOY_ENCODINGS],
    "toy_attention_weights": [
        toy_weights_case(encoding, "toy_attention_weights") for encoding in TOY_ENCODINGS
    ],
    "toy_rotary_pair_logits": [toy_weights_case("rope", "toy_rotary_pair_logits")],
    "ToySelfAttention": [
        lambda dev: on(dev, seeded(lambda: book.toy.ToySelfAttention(8, 2)))(
            on(dev, randn(2, 5, 8)), mask=on(dev, causal(5, 5))
        )
    ],
    "ToyShawAttention": [
        lambda dev: on(dev, seeded(lambda: book.toy.ToyShawAttention(8, 2, 3)))(
            on(dev, randn(2, 5, 8)), mask=on(dev, causal(5, 5))
        )
    ],
    "ToyWindowAttention": [
        lambda dev: on(
            dev,
            seeded(
                lambda: book.toy.ToyWindowAttention(
                    8, 2, rotary=P.RotaryEmbedding(4), window=3, sinks=1
                )
            ),
        )(on(dev, randn(2, 6, 8)), mask=on(dev, causal(6, 6))),
        lambda dev: on(dev, seeded(lambda: book.toy.ToyWindowAttention(8, 2, window=2)))(
            on(dev, randn(2, 5, 8))
        ),
    ],
}
TOY_EXEMPT: dict[str, str] = {
    "Task": "a Literal type of task names",
    "TASKS": "a tuple of task names",
    "ToyAttention": "a typing.Protocol (covered through ToySelfAttention, ToyShawAttention)",
    "IGNORE_INDEX": "an int constant",
    "Adam": "an optimiser over a model's parameters: no tensor input of its own",
    "ToyRun": "a dataclass of training records",
    "toy_batch": "takes a task name and sizes (and a CPU generator): builds its own batch",
    "train_toy": "trains a model on batches it generates itself; returns a ToyRun",
    "toy_accuracy": "evaluates on sequences it generates itself; returns a float",
    "toy_position_accuracy": "evaluates on sequences it generates itself (CPU generator)",
    "frequency_guess_accuracy": "takes sizes only; returns a float",
    "frequency_guess_position_accuracy": NO_TENSOR,
    "passkey_markers": "returns two ints from a vocabulary size",
}


def sentence_case(dev: torch.device) -> object:
    from book.demos.attention import sentence_attention, sentence_vectors, toy_attention_layer

    layer = on(dev, toy_attention_layer(dim=8))
    x = on(dev, sentence_vectors(["the", "dog", "bit", "the", "man"], 8, positions=True))
    return sentence_attention(layer, x)


DEMOS_CASES: dict[str, list[Case]] = {
    "attention.sentence_attention": [sentence_case],
    "attention.absolute_logit_terms": [
        lambda dev: absolute_logit_terms(
            *on(dev, randn(5, 6), randn(5, 6), randn(4, 6), randn(4, 6))
        ),
        lambda dev: absolute_logit_terms(
            *on(dev, randn(2, 5, 6), randn(5, 6), randn(4, 6), randn(4, 6))
        ),
    ],
    "attention.offset_variance_share": [
        lambda dev: offset_variance_share(on(dev, randn(3, 5, 6))),
    ],
    "numeric.adjacent_distances": [lambda dev: adjacent_distances(on(dev, randn(5, 3)))],
    "numeric.magnitude_ratio": [
        lambda dev: magnitude_ratio(*on(dev, randn(5, 1), randn(5, 3))),
        lambda dev: magnitude_ratio(*on(dev, randn(5, 3), randn(5, 3))),
    ],
    "numeric.pairwise_distances": [lambda dev: pairwise_distances(on(dev, randn(5, 3)))],
    "sinusoidal.binary_digits": [
        lambda dev: binary_digits(on(dev, torch.arange(6.0)), 4),
        lambda dev: binary_digits(6, 4, device=dev),
    ],
    "learned.cosine_similarity_matrix": [
        lambda dev: cosine_similarity_matrix(on(dev, randn(5, 8)))
    ],
    "absolute_2d.position_similarity_map": [
        lambda dev: position_similarity_map(on(dev, randn(6, 4)), 2, 3, 1, 2)
    ],
    "absolute_2d.resampling_error_per_pair": [
        lambda dev: resampling_error_per_pair(on(dev, randn(16, 8, dtype=torch.float64)))
    ],
    "absolute_2d.resampling_error_map": [
        lambda dev: resampling_error_map(on(dev, randn(16, 8, dtype=torch.float64)))
    ],
    "shaw.shaw_attention_reference": [
        lambda dev: shaw_attention_reference(
            *on(dev, randn(2, 5, 8), randn(2, 6, 8), randn(2, 6, 4), randn(5, 8), randn(5, 4)),
            mask=on(dev, causal(5, 6)),
        )
    ],
    "rotary.rotary_decay_bound": [lambda dev: rotary_decay_bound(on(dev, torch.arange(5.0)), 8)],
    "rotary.rotary_angle_error": [
        lambda dev: rotary_angle_error(on(dev, torch.arange(5.0)), 8, dtype=torch.bfloat16)
    ],
    "rotary.rotary_offset_logits": [
        lambda dev: rotary_offset_logits(*on(dev, randn(3, 8), randn(3, 8)), 6),
        lambda dev: rotary_offset_logits(
            *on(dev, randn(3, 8), randn(3, 8), torch.arange(-2.0, 3.0))
        ),
    ],
}
DEMOS_EXEMPT: dict[str, str] = {
    "attention.LOGIT_TERMS": "a tuple of the four terms' names",
    "attention.permutation_matrix": "reads the permutation's values (a list or a tensor of ints)",
    "attention.sentence_vectors": "takes words and sizes: builds its own vectors",
    "attention.shuffled_attention": "takes words and a permutation: builds its own vectors",
    "attention.toy_attention_layer": "builds a SelfAttention from options (see SelfAttention)",
    "attention.word_vectors": "takes words and sizes: builds its own vectors",
    "shaw.shaw_attention_timings": "times CPU runs on inputs it builds; returns Python floats",
    "shaw.shaw_intermediate_bytes": "returns byte counts (Python ints) from sizes",
    "grids.BiasTransfer": "a dataclass of experiment results",
    "mla.decoupled_rope_scores": "builds its own random CPU weights from sizes; returns floats",
    "grids.locality_bias_target": "takes a window size: builds its own table (CPU, float64)",
    "grids.multimodal_positions": "takes segment sizes: builds its own positions",
    "grids.window_bias_transfer": "fits and evaluates CPU models it builds from sizes",
    "numeric.closest_distinct_pair": "returns Python numbers (two indices and a distance): needs values",
    "window.IndexCheck": "a NamedTuple of Python counts and lists returned by relative_index_check",
    "window.relative_index_check": "returns Python lists read from the index's values: refuses meta",
    "window.rstt_key_frames": "returns a list of ints",
    "window.spread_key_step": "returns an int",
    **{
        name: NO_TENSOR
        for name in (
            "absolute_2d.sincos_resampling_error",
            "absolute_2d.stretched_sincos_encoding_2d",
            "alibi.alibi_span",
            "window.frame_offset_counts",
        )
    },
}


EXPERIMENTS_CASES: dict[str, list[Case]] = {
    "stretch_toy_rotary": [lambda dev: stretched_toy_case(dev)],
}
EXPERIMENTS_EXEMPT: dict[str, str] = {
    "LengthResults": "a dataclass of experiment results",
    "toy_model": "builds a TinyTransformer from options (covered through TinyTransformer)",
    "length_generalisation": "trains and evaluates models end to end; returns LengthResults",
    "STRETCH_METHODS": "a tuple of method names",
    "StretchResults": "a dataclass of experiment results",
    "rope_stretching": "trains and evaluates a model end to end; returns StretchResults",
    "PHASES": "a tuple of the two moments a model is tested at",
    "SeedSpread": "a dataclass of experiment results",
    "seed_spread": "trains and evaluates models end to end in worker processes",
    "PASSKEY_SETUPS": "a tuple of set-up names",
    "PasskeyResults": "a dataclass of experiment results",
    "passkey_model": "builds a TinyTransformer from options (covered through TinyTransformer)",
    "passkey_retrieval": "trains and evaluates models end to end in worker processes",
}

CATALOGUE_CASES: dict[str, list[Case]] = {
    "position_parameter_count": [
        lambda dev: book.catalogue.position_parameter_count(
            on(dev, seeded(lambda: P.SelfAttention(8, 2)))
        ),
        lambda dev: book.catalogue.position_parameter_count(
            on(dev, seeded(lambda: P.SwinRelativePositionBias((2, 3), 2)))
        ),
    ],
}
CATALOGUE_EXEMPT: dict[str, str] = {
    "CatalogueSize": "a dataclass of sizes, holds no tensor",
    "Encoding": "a catalogue record (names, formulas, builders), holds no tensor",
    "ToyOptions": "a dataclass of sizes and options, holds no tensor",
    "ToyPlugIn": "a record of modules for the toy's plug-in points (covered through the toy)",
    "get_encoding": "looks up a catalogue record by key: takes a string, returns an Encoding",
    "learned_parameter_count": "builds the module itself and returns an int",
    "runs_beyond": "builds the module itself and returns a bool",
    "toy_encodings": "returns the keys of the entries with a toy form",
    "ENCODINGS": "the registry: a tuple of Encoding records",
    "markdown_table": "formats rows of strings as a Markdown table",
    "overview_rows": "rows of strings from the catalogue, for the appendix",
    "posenc_rows": "rows of strings from the catalogue, for the appendix",
    "reach_rows": "builds and runs each entry itself (CPU); returns rows of strings",
}

GROUPS = {
    "book.toy": (TOY_CASES, TOY_EXEMPT),
    "book.experiments": (EXPERIMENTS_CASES, EXPERIMENTS_EXEMPT),
    "book.demos": (DEMOS_CASES, DEMOS_EXEMPT),
    "book.catalogue": (CATALOGUE_CASES, CATALOGUE_EXEMPT),
}
ALL_CASES = [case for group, (cases, _) in GROUPS.items() for case in params(cases, group + ".")]


@pytest.mark.parametrize("case", ALL_CASES)
def test_public_name_keeps_meta(case: Case) -> None:
    check_on_meta(case)


PUBLIC = {
    "book.toy": lambda: set(book.toy.__all__),
    "book.experiments": lambda: set(book.experiments.__all__),
    "book.demos": lambda: set(demos_names()),
    "book.catalogue": lambda: set(book.catalogue.__all__),
}


@pytest.mark.parametrize("group", list(GROUPS))
def test_every_public_name_is_covered_or_exempt(group: str) -> None:
    cases, exempt = GROUPS[group]
    check_coverage(PUBLIC[group](), cases, exempt)


def public_object(group: str, name: str) -> object:
    """The object a group's public name stands for (``module.name`` in ``book.demos``)."""
    if group == "book.demos":
        module, _, attr = name.partition(".")
        return getattr(importlib.import_module(f"book.demos.{module}"), attr)
    return getattr(importlib.import_module(group), name)


@pytest.mark.parametrize("group", list(GROUPS))
def test_exemptions_take_no_tensor_or_return_python_values(group: str) -> None:
    """An exempt function must not have a tensor parameter unless it returns Python values."""
    _, exempt = GROUPS[group]
    for name, reason in exempt.items():
        obj = public_object(group, name)
        if inspect.isclass(obj) or reason != NO_TENSOR:
            continue
        hints = {p.name: str(p.annotation) for p in inspect.signature(obj).parameters.values()}
        tensors = [p for p, annotation in hints.items() if "Tensor" in annotation]
        assert not tensors, f"{group}: {name} is exempt as taking no tensor but has {tensors}"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("case", ALL_CASES)
def test_public_name_matches_the_cpu_on_cuda(case: Case) -> None:
    check_on_cuda(case)
