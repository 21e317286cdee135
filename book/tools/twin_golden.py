"""Golden values for ``book/ext/twin_static/posenc.js``, the JavaScript twin of posenc.

The book's explorers run in the reader's browser, where there is no Python: they compute
encodings with a JavaScript copy of posenc's closed-form functions. A copy drifts unless
something holds it to the original, so this module evaluates the Python functions over a grid
of arguments (edge cases included: ``dim = 2``, one position, positions near ``10^6``, ``k = 0``,
odd head and bucket counts, every scaling method) and over a few bad inputs, and writes what
they return or raise to ``tests/data/posenc_twin_golden.json``::

    .venv/bin/python -m book.tools.twin_golden

The file maps each JavaScript name to its cases, ``{"args": [...], "expected": ...}`` or, for a
bad input, ``{"args": [...], "throws": "RangeError"}`` (posenc's ``ValueError``) or
``"TypeError"``; ``args`` are the JavaScript function's positional arguments, in its order.
``tests/browser/test_twin.py`` runs every case in chromium against the twin, and
``tests/book/tools/test_twin_golden.py`` checks that the committed file is what posenc returns
now, so a change on either side fails a test until the other follows.

Values are posenc's, in float64 (``dtype=torch.float64`` where posenc takes a dtype); where
posenc returns float32 regardless (``numeric_encoding``, ``periodic_encoding``,
``sinusoidal_encoding_2d``) the golden values are those float32 numbers, which the twin
reproduces with ``Math.fround``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from posenc.absolute_2d import sinusoidal_encoding_2d
from posenc.alibi import alibi_distances, alibi_slopes
from posenc.numeric import numeric_encoding, periodic_encoding
from posenc.rotary import rotary_angles, rotary_scaling_reads, scaled_rotary_frequencies
from posenc.rotary_nd import rotary_angles_2d, rotary_angles_nd, rotary_pair_axes
from posenc.shaw import shaw_relative_index
from posenc.sinusoidal import sinusoidal_encoding, sinusoidal_frequencies
from posenc.t5 import t5_bucket_index, t5_bucket_starts, t5_relative_bucket
from posenc.window import relative_position_index, relative_table_size
from posenc.window_v2 import log_spaced_relative_coords

__all__ = [
    "ATOL",
    "BAD",
    "GOLDEN_PATH",
    "GOOD",
    "TWINS",
    "Twin",
    "evaluate",
    "golden",
    "main",
    "serialise",
]

ROOT = Path(__file__).resolve().parents[2]
GOLDEN_PATH = ROOT / "tests" / "data" / "posenc_twin_golden.json"

JSON = Any  # a JSON value: None, bool, int, float, str, list or dict of them
Args = list[JSON]

# posenc's exception classes and the JavaScript classes the twin throws for them
JS_ERRORS: dict[type[Exception], str] = {ValueError: "RangeError", TypeError: "TypeError"}


def _tensor(value: JSON, dtype: torch.dtype) -> Any:
    """A JavaScript array as the tensor posenc takes in its place; anything else unchanged
    (so that posenc, not this adapter, refuses it)."""
    if isinstance(value, list):
        return torch.tensor(value, dtype=dtype)
    return value


def _ints(value: JSON) -> Any:
    """A (nested) array of integers as a LongTensor, as :func:`_tensor`; other arrays are left
    to torch's own conversion, which gives a float tensor for floats (refused by posenc)."""
    if isinstance(value, list):
        return torch.tensor(value)
    return value


def _out(value: Any) -> JSON:
    """A result as JSON: tensors as nested lists (ints stay ints), tuples as lists."""
    if isinstance(value, torch.Tensor):
        return value.tolist()
    if isinstance(value, tuple):
        return [_out(v) for v in value]
    return value


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.capitalize() for word in rest)


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


# -- adapters: the JavaScript signature in front of each Python function ----------------------


def _sinusoidal_frequencies(dim: int, base: float = 10000.0) -> JSON:
    return _out(sinusoidal_frequencies(dim, base=base))


def _sinusoidal_encoding(
    positions: JSON, dim: int, base: float = 10000.0, interleaved: bool = True
) -> JSON:
    table = sinusoidal_encoding(
        _tensor(positions, torch.float64),
        dim,
        base=base,
        interleaved=interleaved,
        dtype=torch.float64,
    )
    return _out(table)


def _sinusoidal_encoding_2d(
    height: int,
    width: int,
    dim: int,
    base: float = 10000.0,
    interleaved: bool = True,
    row_first: bool = True,
) -> JSON:
    table = sinusoidal_encoding_2d(
        height, width, dim, base=base, interleaved=interleaved, row_first=row_first
    )
    return _out(table)


def _numeric_encoding(n_positions: int, normalize: bool = False) -> JSON:
    return _out(numeric_encoding(n_positions, normalize=normalize))


def _periodic_encoding(positions: JSON, alpha: float, cosine: bool = False) -> JSON:
    return _out(periodic_encoding(_tensor(positions, torch.float64), alpha=alpha, cosine=cosine))


def _relative_position_index(
    query_shape: JSON, key_shape: JSON = None, key_step: JSON = None
) -> JSON:
    return _out(relative_position_index(query_shape, key_shape, key_step=key_step))


def _log_spaced_relative_coords(window_size: JSON, pretrained: JSON = None) -> JSON:
    return _out(log_spaced_relative_coords(window_size, pretrained))


def _t5_relative_bucket(
    relative_position: JSON,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> JSON:
    buckets = t5_relative_bucket(
        _ints(relative_position),
        bidirectional=bidirectional,
        num_buckets=num_buckets,
        max_distance=max_distance,
    )
    return _out(buckets)


def _t5_bucket_index(
    n_q: int,
    n_k: int,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
    query_offset: int | None = None,
) -> JSON:
    index = t5_bucket_index(
        n_q,
        n_k,
        bidirectional=bidirectional,
        num_buckets=num_buckets,
        max_distance=max_distance,
        query_offset=query_offset,
    )
    return _out(index)


def _t5_bucket_starts(
    bidirectional: bool = True, num_buckets: int = 32, max_distance: int = 128
) -> JSON:
    starts = t5_bucket_starts(
        bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    return _out(starts)


def _alibi_distances(
    n_q: int, n_k: int, causal: bool = True, query_offset: int | None = None
) -> JSON:
    return _out(alibi_distances(n_q, n_k, causal=causal, query_offset=query_offset))


def _rotary_angles(positions: JSON, dim: int, base: float = 10000.0, inv_freq: JSON = None) -> JSON:
    freqs = _tensor(inv_freq, torch.float64)
    return _out(rotary_angles(_tensor(positions, torch.float64), dim, base=base, inv_freq=freqs))


def _rotary_angles_2d(height: int, width: int, dim: int, base: float = 10000.0) -> JSON:
    return _out(rotary_angles_2d(height, width, dim, base=base))


def _rotary_pair_axes(dim: int, num_axes: int, sections: JSON = None) -> JSON:
    return _out(rotary_pair_axes(dim, num_axes, sections=sections))


def _rotary_angles_nd(
    positions: JSON, dim: int, base: float = 10000.0, sections: JSON = None
) -> JSON:
    angles = rotary_angles_nd(_tensor(positions, torch.float64), dim, base=base, sections=sections)
    return _out(angles)


def _rotary_scaling_reads(method: str) -> JSON:
    return [_camel(name) for name in rotary_scaling_reads(method)]


def _scaled_rotary_frequencies(dim: int, method: str, options: JSON = None) -> JSON:
    keywords = {_snake(key): value for key, value in (options or {}).items()}
    inv_freq, scale = scaled_rotary_frequencies(dim, method, **keywords)
    return {"invFreq": _out(inv_freq), "attentionScale": scale}


@dataclass(frozen=True)
class Twin:
    """A JavaScript function of the twin: its Python original and the adapter that calls it.

    Attributes:
        python: the dotted name of the Python function (``posenc.module.function``), which the
            twin's doc comment names.
        call: takes the JavaScript arguments, calls the Python function, returns JSON.
        atol: for a function whose values are ill-conditioned in float64, the absolute error
            that two correct implementations may differ by, from the arguments (``None``:
            none beyond :data:`ATOL`).
    """

    python: str
    call: Callable[..., JSON]
    atol: Callable[..., float] | None = None


ATOL = 1e-12
"""The absolute tolerance of a value near 0, unless a case carries a larger ``"atol"``."""


def _angle_atol(positions: JSON, *_: JSON) -> float:
    """How far two correct float64 sinusoidal encodings of ``positions`` may differ.

    ``sin(p·ω)`` is ill-conditioned for a large angle: ``ω = base^(−2i/d)`` rounded one ulp
    apart (V8's ``Math.pow`` and glibc's ``pow``, which torch uses, differ by one ulp for some
    arguments) moves the angle ``p·ω <= |p|`` by up to ``|p|·2^−52``, and the sine with it.
    Four times that covers the product's own rounding: about ``9·10^−10`` at ``p = 10^6``.
    """
    if isinstance(positions, list):
        return max((abs(p) for p in positions), default=0) * 2.0**-50
    return (positions - 1) * 2.0**-50  # positions 0..n-1


TWINS: dict[str, Twin] = {
    "sinusoidalFrequencies": Twin(
        "posenc.sinusoidal.sinusoidal_frequencies", _sinusoidal_frequencies
    ),
    "sinusoidalEncoding": Twin(
        "posenc.sinusoidal.sinusoidal_encoding", _sinusoidal_encoding, _angle_atol
    ),
    "sinusoidalEncoding2d": Twin(
        "posenc.absolute_2d.sinusoidal_encoding_2d", _sinusoidal_encoding_2d
    ),
    "numericEncoding": Twin("posenc.numeric.numeric_encoding", _numeric_encoding),
    "periodicEncoding": Twin("posenc.numeric.periodic_encoding", _periodic_encoding),
    "relativeTableSize": Twin("posenc.window.relative_table_size", relative_table_size),
    "relativePositionIndex": Twin(
        "posenc.window.relative_position_index", _relative_position_index
    ),
    "logSpacedRelativeCoords": Twin(
        "posenc.window_v2.log_spaced_relative_coords", _log_spaced_relative_coords
    ),
    "shawRelativeIndex": Twin(
        "posenc.shaw.shaw_relative_index", lambda *a: _out(shaw_relative_index(*a))
    ),
    "t5RelativeBucket": Twin("posenc.t5.t5_relative_bucket", _t5_relative_bucket),
    "t5BucketIndex": Twin("posenc.t5.t5_bucket_index", _t5_bucket_index),
    "t5BucketStarts": Twin("posenc.t5.t5_bucket_starts", _t5_bucket_starts),
    "alibiSlopes": Twin("posenc.alibi.alibi_slopes", lambda n: _out(alibi_slopes(n))),
    "alibiDistances": Twin("posenc.alibi.alibi_distances", _alibi_distances),
    "rotaryAngles": Twin("posenc.rotary.rotary_angles", _rotary_angles),
    "rotaryAngles2d": Twin("posenc.rotary_nd.rotary_angles_2d", _rotary_angles_2d),
    "rotaryPairAxes": Twin("posenc.rotary_nd.rotary_pair_axes", _rotary_pair_axes),
    "rotaryAnglesNd": Twin("posenc.rotary_nd.rotary_angles_nd", _rotary_angles_nd),
    "rotaryScalingReads": Twin("posenc.rotary.rotary_scaling_reads", _rotary_scaling_reads),
    "scaledRotaryFrequencies": Twin(
        "posenc.rotary.scaled_rotary_frequencies", _scaled_rotary_frequencies
    ),
}
"""Each function of ``window.posenc``: the Python function it twins and how to call it."""


# -- the cases ----------------------------------------------------------------------------------

_FAR = [0, 1, 999_999, 1_000_000, 123_456.5, -3, 0.25]  # positions, large ones included
_RELATIVE = [*range(-140, 141), -1000, 1000, -(10**6), 10**6, -(2**40), 2**40]
_METHODS = ("default", "plain", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope", "partial")

GOOD: dict[str, list[Args]] = {
    "sinusoidalFrequencies": [[2], [4], [8, 100], [6, 2.5], [64], [512, 10000]],
    "sinusoidalEncoding": [
        [1, 2],
        [5, 4],
        [7, 6, 10000, False],
        [3, 8, 2],
        [4, 10, 1.5],
        [16, 32],
        [_FAR, 16],
        [_FAR, 12, 10000, False],
        [[1_000_000, 999_999], 64, 500000],
        [[], 4],
    ],
    "sinusoidalEncoding2d": [
        [1, 1, 4],
        [2, 3, 8],
        [3, 2, 8, 100, False, False],
        [4, 4, 16],
        [2, 5, 12, 10000, True, False],
        [3, 1, 4, 2, False, True],
    ],
    "numericEncoding": [[1], [1, True], [3, False], [5], [5, True], [7, True]],
    "periodicEncoding": [
        [1, 0.1],
        [5, 1.0],
        [6, 2.5, True],
        [[0, 1_000_000, -2.5, 3.25], 10, True],
        [[7], 1e-3],
    ],
    "relativeTableSize": [[[7, 7]], [[1]], [[2, 3, 4]], [[7, 4, 4]]],
    "relativePositionIndex": [
        [[1]],
        [[4]],
        [[5], None, None],
        [[2, 2]],
        [[3, 2]],
        [[4, 4]],
        [[2, 3, 2]],
        [[1, 3]],
        [[5], [3], [2]],
        [[4, 3], [2, 3]],
        [[3, 4], [3, 2], [1, 3]],
        [[7, 2, 2], [4, 2, 2], [2, 1, 1]],
    ],
    "logSpacedRelativeCoords": [
        [[1, 1]],
        [[1, 3]],
        [[2, 3]],
        [[4, 4]],
        [[3, 5], [2, 2]],
        [[6, 6], [4, 4]],
        [[3, 1], [2, 2]],
    ],
    "shawRelativeIndex": [
        [1, 1, 0],
        [4, 4, 0],
        [5, 5, 2],
        [3, 7, 1],
        [7, 3, 2],
        [4, 4, 10],
        [6, 6, 3],
        [1, 5, 2],
    ],
    "t5RelativeBucket": [
        [_RELATIVE],
        [_RELATIVE, False],
        [_RELATIVE, True, 32, 128],
        [_RELATIVE, True, 8, 20],
        [_RELATIVE, True, 4, 2],
        [_RELATIVE, True, 10, 50],
        [_RELATIVE, True, 64, 256],
        [_RELATIVE, True, 32, 9],
        [_RELATIVE, False, 7, 30],
        [_RELATIVE, False, 3, 10],
        [_RELATIVE, False, 2, 2],
        [_RELATIVE, False, 33, 1000],
        [_RELATIVE, True, 18, 128],  # float32 puts r = 8, 16, 64 on the other side of a boundary
        [_RELATIVE, False, 9, 128],  # than float64 would
        [[[-3, 0, 2], [5, -130, 7]], True, 16, 64],
        [[0], False],
    ],
    "t5BucketIndex": [
        [4, 4],
        [3, 6],
        [5, 5, False, 16, 64],
        [2, 3, True, 32, 128, 100],
        [1, 8, True, 8, 10, 0],
        [6, 4, True, 32, 128, 2],
    ],
    "t5BucketStarts": [
        [],
        [False],
        [True, 8, 20],
        [False, 7, 30],
        [True, 4, 2],
        [True, 64, 256],
        [False, 32, 17],
        [True, 32, 9],
    ],
    "alibiSlopes": [[1], [2], [3], [5], [6], [8], [12], [16], [20], [31]],
    "alibiDistances": [
        [1, 1],
        [4, 4],
        [3, 6, False],
        [2, 5, True, 1],
        [5, 3, True, 4],
        [3, 3, False, None],
    ],
    "rotaryAngles": [
        [1, 2],
        [5, 4],
        [_FAR, 8],
        [3, 6, 500000],
        [[2.5, 1_000_000], 16, 10000, [1.0, 0.5, 0.25, 0.125, 1e-2, 1e-3, 1e-4, 0.0]],
        [4, 2, 10000, [0.5]],
        [[], 4],
    ],
    "rotaryAngles2d": [[1, 1, 4], [2, 3, 8], [3, 3, 12, 100]],
    "rotaryPairAxes": [
        [12, 3, [1, 2, 3]],
        [12, 3],
        [8, 1],
        [6, 3, [0, 3, 0]],
        [128, 3, [16, 24, 24]],
    ],
    "rotaryAnglesNd": [
        [[[0, 0, 0], [1, 2, 3], [5, 5, 5]], 12, 10000, [1, 2, 3]],
        [[[0, 1], [2, 3.5]], 8],
        [[[1_000_000, 3, 4]], 6, 1_000_000],
        [[[4]], 2],
    ],
    "rotaryScalingReads": [[m] for m in _METHODS],
    "scaledRotaryFrequencies": [
        [2, "default"],
        [16, "default", {"base": 500000}],
        [8, "plain"],
        [16, "linear", {"factor": 4}],
        [16, "linear", {"factor": 0.5}],
        [2, "ntk", {"factor": 8}],
        [32, "ntk", {"factor": 8}],
        [32, "dynamic", {"factor": 2, "originalMaxPositions": 2048, "seqLen": 8192}],
        [32, "dynamic", {"factor": 2, "originalMaxPositions": 2048}],
        [32, "dynamic", {"factor": 2, "originalMaxPositions": 2048, "seqLen": 100}],
        [2, "dynamic", {"factor": 4, "originalMaxPositions": 16, "seqLen": 64}],
        [64, "yarn", {"factor": 16, "originalMaxPositions": 4096}],
        [128, "yarn", {"factor": 4, "originalMaxPositions": 32768, "base": 1_000_000}],
        [32, "yarn", {"factor": 8, "originalMaxPositions": 2048, "betaFast": 16, "betaSlow": 2}],
        [16, "yarn", {"factor": 0.5, "originalMaxPositions": 512}],
        [8, "yarn", {"factor": 2, "originalMaxPositions": 100, "betaFast": 64, "betaSlow": 40}],
        [2, "yarn", {"factor": 2, "originalMaxPositions": 4096}],
        [128, "llama3", {"factor": 8, "originalMaxPositions": 8192, "base": 500000}],
        [
            64,
            "llama3",
            {"factor": 4, "originalMaxPositions": 2048, "lowFreqFactor": 2, "highFreqFactor": 8},
        ],
        *(
            [8, "longrope", {**longrope, **extra}]
            for longrope in [
                {
                    "originalMaxPositions": 4096,
                    "shortFactor": [1.0, 1.1, 1.5, 2.0],
                    "longFactor": [1.0, 2.0, 8.0, 32.0],
                }
            ]
            for extra in [
                {},
                {"factor": 32},
                {"factor": 32, "seqLen": 8192},
                {"factor": 32, "seqLen": 4096},
                {"factor": 0.5, "seqLen": 100_000},
                {"factor": 32, "seqLen": 8192, "attentionFactor": 1.25},
            ]
        ),
        [16, "partial", {"rotaryDim": 8}],
        [16, "partial", {"rotaryDim": 16, "base": 100}],
        [4, "partial", {"rotaryDim": 2}],
    ],
}
"""Arguments of the cases each function must compute as posenc does."""

BAD: dict[str, list[Args]] = {
    "sinusoidalFrequencies": [[3], [0], [4, 1], [4, 0.5], [2.5], ["4"]],
    "sinusoidalEncoding": [
        [4, 3],
        [0, 4],
        [2.5, 4],
        ["3", 4],
        [4, 4, 1],
        [4, 4, 10000, 1],
        [[0, "1"], 4],
    ],
    "sinusoidalEncoding2d": [[2, 2, 6], [0, 2, 4], [2, 2, 4, 10000, "yes"], [2, 2, 4, 1]],
    "numericEncoding": [[0], [True], [3, 1]],
    "periodicEncoding": [[3, 0], [3, -1.0], [3, 1.0, 0], [0, 1.0]],
    "relativeTableSize": [[[]], [[0, 3]], [7], [[2.5]]],
    "relativePositionIndex": [
        [[]],
        [[2, 0]],
        ["7"],
        [[3, 3], [3]],
        [[3], [3], [2]],
        [[4], [3], [1, 1]],
        [[3], [2], [0]],
    ],
    "logSpacedRelativeCoords": [[[3]], [[3, 3], [1, 4]], [[0, 3]], [7], [[2, 2], [2, 2.5]]],
    "shawRelativeIndex": [[0, 3, 1], [3, 3, -1], [3, 3, 1.5], [3, True, 1]],
    "t5RelativeBucket": [
        [[1, 2], True, 31, 128],
        [[1, 2], True, 2, 128],
        [[1, 2], False, 1, 128],
        [[1, 2], True, 32, 8],
        [[1, 2], False, 32, 16],
        [[1.5, 2]],
        [[1, 2], 1],
        ["12"],
    ],
    "t5BucketIndex": [[5, 3], [3, 3, True, 32, 128, -1], [0, 3]],
    "t5BucketStarts": [[True, 6, 1], [True, 32, 0], ["yes"]],
    "alibiSlopes": [[0], [-2], [2.5], [True]],
    "alibiDistances": [[2, 1], [2, 2, 1], [2, 2, True, -1], [0, 1]],
    "rotaryAngles": [[3, 5], [0, 4], [3, 4, 1], [3, 4, 10000, [1.0]], [3, 4, 10000, "x"]],
    "rotaryAngles2d": [[2, 2, 6], [0, 2, 4], [2, 2, 4, 0.5]],
    "rotaryPairAxes": [[12, 5], [12, 3, [1, 2]], [12, 3, [1, 2, 2]], [12, 3, [1, -1, 6]], [7, 1]],
    "rotaryAnglesNd": [[[[0, 0, 0]], 12, 10000, [1, 2]], [[[0, 1]], 6], [[[0, 1]], 7], [7, 8]],
    "rotaryScalingReads": [["nope"], [3]],
    "scaledRotaryFrequencies": [
        [16, "nope"],
        [15, "default"],
        [16, "default", {"base": 1}],
        [16, "default", {"factor": 2}],
        [16, "linear", {"factor": 0}],
        [16, "linear", {"seqLen": 100}],
        [16, "dynamic", {"factor": 2}],
        [16, "yarn", {"originalMaxPositions": 64, "betaFast": 1, "betaSlow": 2}],
        [16, "llama3", {"originalMaxPositions": 64, "lowFreqFactor": 4, "highFreqFactor": 4}],
        [8, "longrope", {"originalMaxPositions": 64, "shortFactor": [1, 1, 1, 1]}],
        [8, "longrope", {"originalMaxPositions": 64, "shortFactor": [1, 1], "longFactor": [1]}],
        [8, "longrope", {"originalMaxPositions": 64, "shortFactor": "1111", "longFactor": None}],
        [
            8,
            "longrope",
            {"factor": 4, "originalMaxPositions": 1, "shortFactor": [1] * 4, "longFactor": [2] * 4},
        ],
        [16, "partial"],
        [16, "partial", {"rotaryDim": 18}],
        [16, "partial", {"rotaryDim": 7}],
        [16, "default", {"nope": 1}],
        [16, "linear", {"factor": "2"}],
    ],
}
"""Arguments of the cases each function must refuse, as posenc refuses them."""


# -- evaluation ---------------------------------------------------------------------------------


def evaluate(name: str, args: Sequence[JSON], *, bad: bool = False) -> dict[str, JSON]:
    """Call the Python twin of the JavaScript function ``name`` with ``args``.

    Args:
        name: a key of :data:`TWINS`.
        args: the JavaScript function's positional arguments (JSON values).
        bad: ``True`` for an input posenc must refuse.

    Returns:
        ``{"args": args, "expected": value}`` for a good case (with ``"atol"``, the absolute
        error allowed, where it exceeds :data:`ATOL`); ``{"args": args, "throws":
        "RangeError" | "TypeError"}`` for a bad one (posenc's ``ValueError`` or ``TypeError``).

    Raises:
        AssertionError: a bad case that posenc accepts, or refuses with another exception.
    """
    twin = TWINS[name]
    if not bad:
        case = {"args": list(args), "expected": twin.call(*args)}
        atol = twin.atol(*args) if twin.atol is not None else 0.0
        if atol > ATOL:
            case["atol"] = float(f"{atol:.3g}")
        return case
    try:
        twin.call(*args)
    except (ValueError, TypeError) as error:
        return {"args": list(args), "throws": JS_ERRORS[_base(error)]}
    raise AssertionError(f"{name}{tuple(args)}: posenc accepts this bad input")


def _base(error: Exception) -> type[Exception]:
    """``ValueError`` or ``TypeError``, whichever a subclass (e.g. torch's) derives from."""
    return ValueError if isinstance(error, ValueError) else TypeError


def golden() -> dict[str, list[dict[str, JSON]]]:
    """Every case of every function, good ones first, in :data:`TWINS` order.

    Returns:
        ``{js_name: [{"args": [...], "expected": ...} | {"args": [...], "throws": ...}]}``.
    """
    with torch.no_grad():
        return {
            name: [evaluate(name, args) for args in GOOD[name]]
            + [evaluate(name, args, bad=True) for args in BAD[name]]
            for name in TWINS
        }


def serialise(cases: dict[str, list[dict[str, JSON]]]) -> str:
    """The golden file's text: one function per key, one case per line (readable diffs).

    Standard JSON only (no NaN or infinity); floats are written by ``repr``, which reads back
    as the same float64 in Python and in JavaScript.
    """
    lines = ["{"]
    names = list(cases)
    for n, name in enumerate(names):
        lines.append(f"  {json.dumps(name)}: [")
        for c, case in enumerate(cases[name]):
            comma = "," if c < len(cases[name]) - 1 else ""
            text = json.dumps(case, allow_nan=False, separators=(",", ":"))
            lines.append(f"    {text}{comma}")
        lines.append("  ]," if n < len(names) - 1 else "  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Write :data:`GOLDEN_PATH` (or the path given as the one argument) and say what it holds."""
    args = list(argv) if argv is not None else []
    path = Path(args[0]) if args else GOLDEN_PATH
    cases = golden()
    text = serialise(cases)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    good = sum("expected" in case for entries in cases.values() for case in entries)
    bad = sum("throws" in case for entries in cases.values() for case in entries)
    print(
        f"{path}: {len(cases)} functions, {good} cases and {bad} bad inputs, "
        f"{math.ceil(len(text.encode()) / 1024)} KB"
    )
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
