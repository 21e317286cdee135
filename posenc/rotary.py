"""Rotary position embedding (RoPE) of Su et al. (RoFormer, arXiv 2021; Neurocomputing 2024).

RoPE does not add anything to the token vectors. It rotates queries and keys: the channels
are grouped into ``d/2`` pairs, and pair ``i`` of the vector at position ``m`` is turned by
the angle ``m·θ_i``, with the frequencies of the sinusoidal encoding,
``θ_i = base^{-2i/d}``. Because a rotation by ``m·θ`` followed by the inverse of a rotation
by ``n·θ`` is a rotation by ``(m − n)·θ``, the attention logit

.. math::

    \\langle R_m q, R_n k \\rangle = \\langle q, R_{n-m} k \\rangle

depends on the two positions only through their offset ``n − m``: absolute rotations,
relative logits.

Two channel layouts are in use, and a checkpoint only works with the one it was trained with:

* ``interleaved=True`` pairs channels ``(2i, 2i+1)``: RoFormer, GPT-J, Meta's original
  Llama code, ``rotary-embedding-torch``;
* ``interleaved=False`` pairs channel ``i`` with ``i + d/2`` ("rotate half"): GPT-NeoX and
  Hugging Face Llama. Hugging Face converts Meta's Llama weights by permuting the rows of
  ``W_q`` and ``W_k`` (:func:`rotary_permutation`; transformers#25199).

A model trained on ``L_0`` positions can be run on longer inputs by rescaling its
frequencies: :func:`scaled_rotary_frequencies` returns those of position interpolation,
NTK-aware and dynamic NTK scaling, YaRN and Llama 3.1 (with the attention scale YaRN adds),
plain RoPE and partial RoPE; pass them as ``inv_freq=`` and ``attention_scale=`` to
:func:`rotary_cos_sin`, :func:`apply_rotary` or :class:`RotaryEmbedding`. It looks each method
up in :data:`ROTARY_SCALINGS`, an open registry like transformers' ``ROPE_INIT_FUNCTIONS``, of
functions with the :class:`RotaryScaling` signature; :func:`rotary_scaling_reads` says which
of the optional arguments each method reads.

Angles are computed in float64 and cast at the end, as in :mod:`posenc.sinusoidal`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import torch
from torch import Tensor

from ._buffers import FixedTables
from ._checks import (
    broadcast_shape,
    check_base,
    check_bool,
    check_choice,
    check_even,
    check_finite,
    check_float_tensor,
    check_floating_dtype,
    check_int,
    check_positive_float,
    check_real,
    check_rotated,
    check_same_dtype,
    check_tensor,
)
from .sinusoidal import sinusoidal_frequencies

__all__ = [
    "ROTARY_SCALINGS",
    "RotaryEmbedding",
    "RotaryScaling",
    "RotaryScalingArgs",
    "apply_rotary",
    "rotary_angles",
    "rotary_cos_sin",
    "rotary_matrix",
    "rotary_permutation",
    "rotary_quarter_turn",
    "rotary_scaling_reads",
    "scaled_rotary_frequencies",
]

Device = torch.device | str | None


def _rotary_positions(name: str, positions: object, device: Device = None) -> Tensor:
    """An int ``n`` (meaning ``0..n-1``) or a tensor ``[..., n]`` of finite real positions,
    as float64 (a tensor keeps its device; ``0..n-1`` is built on ``device``)."""
    if isinstance(positions, Tensor):
        if positions.ndim == 0:
            raise ValueError(f"{name} must have at least 1 dimension [..., n], got a scalar tensor")
        if positions.is_complex() or positions.dtype == torch.bool:
            raise TypeError(f"{name} must hold real numbers, got dtype {positions.dtype}")
        check_finite(name, positions)
        return positions.to(torch.float64)  # a graph through the positions is kept
    n = check_int(name, positions)
    return torch.arange(n, dtype=torch.float64, device=device)


# -- Scaled frequencies: one registry of methods, one function that dispatches --------------------


# what an optional argument is, for "... is required" messages
_MEANINGS = {
    "original_max_positions": "the trained length",
    "rotary_dim": "the channels that rotate",
    "short_factor": "the rescale factor of each pair up to the trained length",
    "long_factor": "the rescale factor of each pair beyond the trained length",
}

# the optional arguments a method may leave unread, each at its unset value
_UNSET: dict[str, float | None] = {
    "factor": 1.0,
    "original_max_positions": None,
    "seq_len": None,
    "rotary_dim": None,
    "short_factor": None,
    "long_factor": None,
    "attention_factor": None,
}


@dataclass(frozen=True, kw_only=True)
class RotaryScalingArgs:
    """The keyword arguments of :func:`scaled_rotary_frequencies`, checked, for one method.

    .. math::

        (\\text{method}, \\text{base}, s, L_0, L, r, \\beta_\\text{fast}, \\beta_\\text{slow},
        \\text{low}, \\text{high}, \\lambda^\\text{short}, \\lambda^\\text{long}, a,
        \\text{device})

    :func:`scaled_rotary_frequencies` checks every argument (types, ranges, ``beta_fast >
    beta_slow``, ``high_freq_factor > low_freq_factor``, ``rotary_dim <= dim``, ``d/2``
    rescale factors), casts the floats to ``float`` and calls the method, a :class:`RotaryScaling`, with ``dim`` and one
    of these. Built by hand (to call a method of :data:`ROTARY_SCALINGS` directly) it is not
    checked; every field is required, by keyword.

    Attributes:
        method: the name the method was called under (one function may be registered under
            several names, e.g. ``"default"`` and ``"plain"``); for error messages.
        base: the base of the plain frequencies ``θ_i = base^{-2i/d}`` (a float ``> 1``).
        factor: ``s``, how many times longer the input may be (a float ``> 0``; 1 if unset).
        original_max_positions: ``L_0``, the trained length (a positive int, or ``None``).
        seq_len: ``L``, the current input length (a positive int, or ``None``).
        rotary_dim: ``r``, the channels that rotate (an even int ``<= d``, or ``None``).
        beta_fast: YaRN's fast ramp end, in turns over ``L_0`` (a float ``> beta_slow``).
        beta_slow: YaRN's slow ramp end, in turns over ``L_0`` (a float ``> 0``).
        low_freq_factor: Llama 3.1's low band end (a float ``> 0``).
        high_freq_factor: Llama 3.1's high band end (a float ``> low_freq_factor``).
        short_factor: LongRoPE's rescale factor of each pair for inputs up to ``L_0``, a float64
            tensor ``[d/2]`` of factors ``> 0``, or ``None``.
        long_factor: the same for inputs longer than ``L_0``, or ``None``.
        attention_factor: LongRoPE's logit scale, a float ``> 0``, or ``None`` for its default.
        device: where to build the frequencies.

    Shapes:
        ``short_factor``, ``long_factor``: ``[d/2]``; the rest scalars and a device.

    Matches: the ``rope_parameters`` of a transformers 5.23.0 config (``rope_theta``,
    ``factor``, ``original_max_position_embeddings``, ``beta_fast``, ``beta_slow``,
    ``low_freq_factor``, ``high_freq_factor``, ``short_factor``, ``long_factor``,
    ``attention_factor``; ``partial_rotary_factor = r/d``) and the ``seq_len`` and ``device``
    of ``ROPE_INIT_FUNCTIONS``.
    """

    method: str
    base: float
    factor: float
    original_max_positions: int | None
    seq_len: int | None
    rotary_dim: int | None
    beta_fast: float
    beta_slow: float
    low_freq_factor: float
    high_freq_factor: float
    short_factor: Tensor | None
    long_factor: Tensor | None
    attention_factor: float | None
    device: Device

    def refuse_unread(self, reads: tuple[str, ...]) -> None:
        """Refuse each optional argument that is set but not in ``reads``, with a ``ValueError``.

        ``reads`` names those of the optional arguments (``factor``, ``original_max_positions``,
        ``seq_len``, ``rotary_dim``, ``short_factor``, ``long_factor``, ``attention_factor``)
        the method reads; each other one that is set (``factor != 1``, the others not
        ``None``) is refused, naming it and :attr:`method`. Every built-in
        method calls it first; a registered method gets the same refusal by calling it.
        """
        if not isinstance(reads, tuple):
            raise TypeError(f"reads must be a tuple of names, got {type(reads).__name__}")
        if not set(reads) <= set(_UNSET):
            raise ValueError(f"reads must name some of {tuple(_UNSET)}, got {reads!r}")
        for name, unset in _UNSET.items():
            if name not in reads and getattr(self, name) != unset:
                hint = f" ({name} is used by method={_ONLY[name]} only)" if name in _ONLY else ""
                raise ValueError(
                    f"{name} is not used by method={self.method!r}{hint}; leave it {unset!r}"
                )


class RotaryScaling(Protocol):
    """The signature of a RoPE scaling method, the values of :data:`ROTARY_SCALINGS`.

    .. math::

        (\\theta', a) = f(d;\\ \\text{base}, s, L_0, L, r, \\dots), \\qquad
        \\theta' \\in \\mathbb{R}^{d/2}

    :func:`scaled_rotary_frequencies` calls ``ROTARY_SCALINGS[method](dim, args)``: ``dim``
    checked, and ``args`` a :class:`RotaryScalingArgs` holding every other argument, each
    already checked. A method reads the fields it needs, refuses with a ``ValueError`` those
    it needs when they are missing, and returns its frequencies on ``args.device``. It refuses
    the optional arguments it does not read when they are set if it declares what it reads:
    as a ``reads`` attribute, a tuple of names, which :func:`rotary_scaling_reads` returns
    and :func:`scaled_rotary_frequencies` enforces (every built-in method carries one), or by
    calling ``args.refuse_unread(reads)``; a method that does neither gets every field,
    ignores those it does not read, and is taken to read them all.

    Args:
        dim: ``d``, channels per head (an even int ``>= 2``).
        args: the other arguments of :func:`scaled_rotary_frequencies`, checked.

    Returns:
        ``(inv_freq, attention_scale)``: a float tensor ``[d/2]`` (finite, float64 for the
        built-in methods) and a float ``> 0``; :func:`scaled_rotary_frequencies` checks both.

    Shapes:
        ``d``: channels per head.

    Matches: transformers 5.23.0 `modeling_rope_utils.py`, whose ``ROPE_INIT_FUNCTIONS``
    values take ``(config, device, seq_len)`` and return ``(inv_freq, attention_factor)``;
    here the config's fields, ``seq_len`` and ``device`` are the fields of ``args``.
    """

    def __call__(self, dim: int, args: RotaryScalingArgs) -> tuple[Tensor, float]: ...


def _require(args: RotaryScalingArgs, name: str) -> Any:
    """The value of the optional argument ``name`` (``original_max_positions``, ``rotary_dim``,
    ``short_factor`` or ``long_factor``), refused when ``None``."""
    value = getattr(args, name)
    if value is None:
        raise ValueError(f"{name} ({_MEANINGS[name]}) is required for method={args.method!r}")
    return value


_Method = Callable[[int, RotaryScalingArgs], tuple[Tensor, float]]


def _reading(*reads: str) -> Callable[[_Method], RotaryScaling]:
    """Declare the optional arguments a built-in method reads, once: the decorated method
    refuses the others (``args.refuse_unread(reads)``, before its body runs, however it is
    called) and carries them as its ``reads`` attribute, which :func:`rotary_scaling_reads`
    returns."""

    def declare(body: _Method) -> RotaryScaling:
        @functools.wraps(body)
        def method(dim: int, args: RotaryScalingArgs) -> tuple[Tensor, float]:
            args.refuse_unread(reads)
            return body(dim, args)

        method.reads = reads  # type: ignore[attr-defined]
        return method

    return declare


@_reading()
def _plain_frequencies(dim: int, args: RotaryScalingArgs) -> tuple[Tensor, float]:
    """``"default"``/``"plain"``: RoPE as trained, ``θ_i = base^{-2i/d}``; reads nothing else."""
    return sinusoidal_frequencies(dim, base=args.base, device=args.device), 1.0  # [d/2]


@_reading("factor")
def _linear_frequencies(dim: int, args: RotaryScalingArgs) -> tuple[Tensor, float]:
    """``"linear"``: position interpolation, ``θ'_i = θ_i / s``."""
    theta = sinusoidal_frequencies(dim, base=args.base, device=args.device)  # [d/2]
    return theta / args.factor, 1.0  # [d/2]


@_reading("factor")
def _ntk_frequencies(dim: int, args: RotaryScalingArgs) -> tuple[Tensor, float]:
    """``"ntk"``: NTK-aware scaling, the larger base ``base · s^{d/(d−2)}``."""
    base = args.base
    stretched = base * args.factor ** (dim / (dim - 2)) if dim > 2 else base  # d = 2: θ_0 = 1
    return sinusoidal_frequencies(dim, base=stretched, device=args.device), 1.0  # [d/2]


@_reading("factor", "original_max_positions", "seq_len")
def _dynamic_frequencies(dim: int, args: RotaryScalingArgs) -> tuple[Tensor, float]:
    """``"dynamic"``: dynamic NTK, a base that grows with ``seq_len`` beyond ``L_0``."""
    trained = _require(args, "original_max_positions")
    factor, base = args.factor, args.base
    length = max(args.seq_len or trained, trained)
    stretch = factor * length / trained - (factor - 1)
    if dim > 2 and stretch != 1.0:  # d = 2: the one frequency is base^0 = 1 for any base
        base = base * stretch ** (dim / (dim - 2))
    return sinusoidal_frequencies(dim, base=base, device=args.device), 1.0  # [d/2]


@_reading("factor", "original_max_positions")
def _yarn_frequencies(dim: int, args: RotaryScalingArgs) -> tuple[Tensor, float]:
    """``"yarn"``: YaRN's ramp between ``beta_fast`` and ``beta_slow`` turns, and its scale."""
    trained = _require(args, "original_max_positions")
    factor, base = args.factor, args.base

    def pair_turning(rotations: float) -> float:  # i(β): the pair that turns β times over L_0
        return dim * math.log(trained / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low = max(math.floor(pair_turning(args.beta_fast)), 0)
    high = min(math.ceil(pair_turning(args.beta_slow)), dim - 1)
    if low == high:
        high += 0.001  # as transformers: avoids 0/0
    theta = sinusoidal_frequencies(dim, base=base, device=args.device)  # [d/2]
    i = torch.arange(dim // 2, dtype=torch.float64, device=theta.device)  # [d/2]
    ramp = ((i - low) / (high - low)).clamp(0, 1)  # [d/2]: 0 keep, 1 interpolate
    scale = 0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0
    return theta * (1 - ramp) + theta / factor * ramp, scale  # [d/2]


@_reading("factor", "original_max_positions")
def _llama3_frequencies(dim: int, args: RotaryScalingArgs) -> tuple[Tensor, float]:
    """``"llama3"``: Llama 3.1's band, kept fast pairs, divided slow ones, blended between."""
    trained = _require(args, "original_max_positions")
    factor, low, high = args.factor, args.low_freq_factor, args.high_freq_factor
    theta = sinusoidal_frequencies(dim, base=args.base, device=args.device)  # [d/2]
    wavelength = 2 * math.pi / theta  # [d/2]
    smooth = (trained / wavelength - low) / (high - low)  # [d/2]
    blended = (1 - smooth) * theta / factor + smooth * theta  # [d/2]
    out = torch.where(wavelength > trained / low, theta / factor, blended)
    out = torch.where(wavelength < trained / high, theta, out)
    return out, 1.0  # [d/2]


@_reading("rotary_dim")
def _partial_frequencies(dim: int, args: RotaryScalingArgs) -> tuple[Tensor, float]:
    """``"partial"``: the frequencies of an ``r``-channel RoPE, then ``(d − r)/2`` zeros."""
    rotated_dim = _require(args, "rotary_dim")
    rotated = sinusoidal_frequencies(rotated_dim, base=args.base, device=args.device)  # [r/2]
    still = torch.zeros((dim - rotated_dim) // 2, dtype=torch.float64, device=rotated.device)
    return torch.cat((rotated, still)), 1.0  # [d/2]


@_reading(
    "factor", "original_max_positions", "seq_len", "short_factor", "long_factor", "attention_factor"
)
def _longrope_frequencies(dim: int, args: RotaryScalingArgs) -> tuple[Tensor, float]:
    """``"longrope"``: each pair's frequency divided by its own searched factor, one set of
    ``d/2`` factors for inputs up to ``L_0`` and one beyond, and a logit scale."""
    trained = _require(args, "original_max_positions")
    short, long = _require(args, "short_factor"), _require(args, "long_factor")
    beyond = args.seq_len is not None and args.seq_len > trained
    theta = sinusoidal_frequencies(dim, base=args.base, device=args.device)  # [d/2]
    rescale = torch.as_tensor(long if beyond else short, dtype=torch.float64, device=theta.device)
    if args.attention_factor is not None:
        scale = args.attention_factor
    elif args.factor > 1:
        if trained < 2:
            raise ValueError(
                "original_max_positions must be >= 2 for method='longrope' with factor > 1 "
                f"(its logit scale divides by log(original_max_positions)), got {trained}"
            )
        scale = math.sqrt(1 + math.log(args.factor) / math.log(trained))
    else:
        scale = 1.0
    return theta / rescale, scale  # [d/2]


ROTARY_SCALINGS: dict[str, RotaryScaling] = {
    "default": _plain_frequencies,
    "plain": _plain_frequencies,
    "linear": _linear_frequencies,
    "ntk": _ntk_frequencies,
    "dynamic": _dynamic_frequencies,
    "yarn": _yarn_frequencies,
    "llama3": _llama3_frequencies,
    "longrope": _longrope_frequencies,
    "partial": _partial_frequencies,
}
"""The methods of :func:`scaled_rotary_frequencies`: method name -> :class:`RotaryScaling`.

Like transformers' ``ROPE_INIT_FUNCTIONS``, it is open: ``ROTARY_SCALINGS["mine"] = my_fn``,
with ``my_fn(dim, args) -> (inv_freq, attention_scale)`` and ``args`` a
:class:`RotaryScalingArgs`, makes ``scaled_rotary_frequencies(dim, "mine", ...)`` call ``my_fn``
(see its example). ``"default"`` (transformers' name) and ``"plain"`` (the book's) are the
same function. Each built-in method declares the optional arguments it reads once, in its
decorator: it carries them as its ``reads`` attribute (which :func:`rotary_scaling_reads`
returns) and refuses the others, wherever it is registered or called from. A registered
function may declare its own ``reads`` the same way, as an attribute; one that does not is
taken to read them all.
"""


def rotary_scaling_reads(method: str) -> tuple[str, ...]:
    """Return the optional arguments of :func:`scaled_rotary_frequencies` that ``method`` reads.

    .. math::

        \\text{reads}(\\text{method}) \\subseteq
        \\{s, L_0, L, r, \\lambda^\\text{short}, \\lambda^\\text{long}, a\\}

    :func:`scaled_rotary_frequencies` refuses each optional argument that is set (``factor !=
    1``, the others not ``None``) and not in these, so a caller that loops over methods builds
    each call's keyword arguments from one full set::

        full = {"factor": 8.0, "original_max_positions": 8192, "seq_len": 65536}
        for method in ("linear", "ntk", "dynamic", "yarn", "llama3"):
            reads = rotary_scaling_reads(method)
            kwargs = {k: v for k, v in full.items() if k in reads}
            inv_freq, scale = scaled_rotary_frequencies(128, method, **kwargs)

    The built-in methods: ``"default"`` and ``"plain"`` read none, ``"linear"`` and ``"ntk"``
    ``factor``, ``"dynamic"`` ``factor``, ``original_max_positions`` and ``seq_len``,
    ``"yarn"`` and ``"llama3"`` ``factor`` and ``original_max_positions``, ``"longrope"``
    those three and ``short_factor``, ``long_factor`` and ``attention_factor``, ``"partial"``
    ``rotary_dim``; each declares them once, and its own refusals use the same declaration. A
    method a user registered in :data:`ROTARY_SCALINGS` declares what it reads by carrying a
    ``reads`` attribute, a tuple of some of the seven names (``fn.reads = ("factor",)``), and
    :func:`scaled_rotary_frequencies` then refuses the others; a registered method without
    one reads all seven (none is refused for it, and all seven are returned). The other
    arguments (``base``, ``beta_fast``, ``beta_slow``, ``low_freq_factor``,
    ``high_freq_factor``, ``device``) have defaults that every method accepts, and are never
    refused.

    Args:
        method: a key of :data:`ROTARY_SCALINGS`, as in :func:`scaled_rotary_frequencies`.

    Returns:
        The names the method reads, a tuple of some of ``"factor"``,
        ``"original_max_positions"``, ``"seq_len"``, ``"rotary_dim"``, ``"short_factor"``,
        ``"long_factor"`` and ``"attention_factor"``, in that order.

    Shapes:
        none: names.

    Matches: transformers 5.23.0 `modeling_rope_utils.py`, whose ``ROPE_INIT_FUNCTIONS``
    read from the config only the ``rope_parameters`` of their ``rope_type`` (and whose
    ``_validate_*_rope_parameters`` list each type's ``required_keys`` and
    ``optional_keys``); here ``original_max_positions`` is
    ``original_max_position_embeddings``, ``rotary_dim / dim`` ``partial_rotary_factor``.
    """
    method = check_choice("method", method, tuple(ROTARY_SCALINGS))
    reads = getattr(ROTARY_SCALINGS[method], "reads", None)
    if reads is None:
        return tuple(_UNSET)
    what = f"ROTARY_SCALINGS[{method!r}].reads"
    if not isinstance(reads, tuple):
        raise TypeError(f"{what} must be a tuple of names, got {type(reads).__name__}")
    if not set(reads) <= set(_UNSET):
        raise ValueError(f"{what} must name some of {tuple(_UNSET)}, got {reads!r}")
    return tuple(name for name in _UNSET if name in reads)


def _sole_readers() -> dict[str, str]:
    """For each optional argument read by one built-in method only, that method's name
    (quoted), for the hint of the "... is not used" messages."""
    readers = {
        name: [m for m in ROTARY_SCALINGS if name in rotary_scaling_reads(m)] for name in _UNSET
    }
    return {name: repr(methods[0]) for name, methods in readers.items() if len(methods) == 1}


# the one built-in method that reads an optional argument (seq_len: 'dynamic', rotary_dim:
# 'partial'), from the declarations, before any user registers a method
_ONLY = _sole_readers()


def _check_scaling_result(method: str, dim: int, result: object) -> tuple[Tensor, float]:
    """The ``(inv_freq, attention_scale)`` a scaling method returned, checked and in float64."""
    what = f"ROTARY_SCALINGS[{method!r}]"
    if not isinstance(result, tuple) or len(result) != 2:
        raise TypeError(
            f"{what} must return a pair (inv_freq, attention_scale), got "
            f"{type(result).__name__} {result!r}"
        )
    inv_freq = _check_inv_freq(dim, result[0], name=f"the inv_freq returned by {what}")
    scale = check_positive_float(f"the attention_scale returned by {what}", result[1])
    return inv_freq.to(torch.float64), scale


def scaled_rotary_frequencies(
    dim: int,
    method: str,
    *,
    base: float = 10000.0,
    factor: float = 1.0,
    original_max_positions: int | None = None,
    seq_len: int | None = None,
    rotary_dim: int | None = None,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
    short_factor: Sequence[float] | Tensor | None = None,
    long_factor: Sequence[float] | Tensor | None = None,
    attention_factor: float | None = None,
    device: Device = None,
) -> tuple[Tensor, float]:
    """Return RoPE's frequencies, plain or scaled beyond the trained length, and the logit scale.

    .. math::

        \\theta_i = \\text{base}^{-2i/d}, \\qquad
        \\theta'_i = \\begin{cases}
          \\theta_i & \\text{default, plain} \\\\
          \\theta_i / s & \\text{linear} \\\\
          \\big(\\text{base}\\, s^{d/(d-2)}\\big)^{-2i/d} & \\text{ntk} \\\\
          \\text{base}'^{-2i/d},\\ \\text{base}' = \\text{base}\\,
            \\big(s L / L_0 - (s - 1)\\big)^{d/(d-2)} & \\text{dynamic} \\\\
          \\big(1 - \\gamma_i\\big)\\,\\theta_i + \\gamma_i\\,\\theta_i / s & \\text{yarn} \\\\
          \\big(1 - \\sigma_i\\big)\\,\\theta_i / s + \\sigma_i\\,\\theta_i & \\text{llama3} \\\\
          \\theta_i / \\lambda_i,\\ \\lambda = \\lambda^\\text{long}\\ (L > L_0),
            \\ \\lambda^\\text{short}\\ (\\text{else}) & \\text{longrope} \\\\
          \\text{base}^{-2i/r}\\ (i < r/2), \\quad 0\\ (i \\ge r/2) & \\text{partial}
        \\end{cases}

    with ``s`` = ``factor``, ``L_0`` = ``original_max_positions``, ``L`` =
    ``max(seq_len, L_0)`` and ``r`` = ``rotary_dim``. The methods, the keys of
    :data:`ROTARY_SCALINGS`:

    * ``"default"`` or ``"plain"``: RoPE as trained; reads nothing else.
    * ``"linear"``: position interpolation (Chen et al. 2023): every frequency divided by
      ``s``, i.e. positions squeezed into the trained range. Reads ``factor``.
    * ``"ntk"``: NTK-aware scaling (/u/bloc97, 2023): a larger base, ``base · s^{d/(d−2)}``,
      chosen so that the slowest pair is divided by exactly ``s`` while the fastest keeps its
      frequency. Reads ``factor``. It is ``"dynamic"`` frozen at one length: ``"dynamic"``
      with ``factor = 1`` and ``seq_len = s·L_0`` gives the same base.
    * ``"dynamic"``: dynamic NTK-aware scaling (/u/bloc97, /u/emozilla): a larger ``base``
      once the input is longer than ``L_0``, so the slow pairs are interpolated and the fast
      ones barely change. Reads ``factor``, ``original_max_positions`` and ``seq_len`` (the
      length the frequencies must cover now; ``None`` or ``<= L_0`` leaves ``base`` as it is).
    * ``"yarn"``: YaRN (Peng et al. 2023): pair ``i`` is interpolated by the ramp
      ``γ_i = clamp((i − lo)/(hi − lo), 0, 1)``, where ``lo = ⌊i(β_fast)⌋``, ``hi = ⌈i(β_slow)⌉``
      and ``i(β) = d·ln(L_0 / (2πβ)) / (2 ln base)`` is the pair that turns ``β`` times over
      ``L_0`` positions: pairs that turn more than ``β_fast`` times keep their frequency, pairs
      that turn fewer than ``β_slow`` times are divided by ``s``. (This ``γ_i`` is 1 for a pair
      that is interpolated; the YaRN paper's ramp, and chapter 11's, is ``1 − γ_i``, 1 for a
      pair that is kept.) The attention scale is ``0.1·ln s + 1`` (``1`` for ``s <= 1``).
      Reads ``factor``, ``original_max_positions``, ``beta_fast``, ``beta_slow``.
    * ``"llama3"``: Llama 3.1's smooth band: with wavelength ``λ_i = 2π/θ_i``, pairs with
      ``λ_i < L_0 / high_freq_factor`` keep their frequency, pairs with
      ``λ_i > L_0 / low_freq_factor`` are divided by ``s``, and between them
      ``σ_i = (L_0/λ_i − low_freq_factor) / (high_freq_factor − low_freq_factor)`` blends the
      two (the formula above holds for every pair with ``σ_i`` clamped to ``[0, 1]``). Reads
      ``factor``, ``original_max_positions``, ``low_freq_factor``, ``high_freq_factor``.
    * ``"longrope"``: LongRoPE (Ding et al. 2024), as Phi-3 uses it: pair ``i`` is divided by
      its own factor ``λ_i``, found by a search rather than by a formula, from
      ``short_factor`` for inputs up to ``L_0`` and from ``long_factor`` once ``seq_len >
      L_0`` (so the frequencies change with the input's length, as with ``"dynamic"``). The
      attention scale is ``attention_factor``, or by default ``sqrt(1 + ln s / ln L_0)``
      (``1`` for ``s <= 1``), with ``s`` the model's length over ``L_0`` (Phi-3-mini-128k:
      131072 / 4096 = 32). Reads ``factor``, ``original_max_positions``, ``seq_len``,
      ``short_factor``, ``long_factor`` and ``attention_factor``.
    * ``"partial"``: partial RoPE (GPT-NeoX's ``rotary_pct``, transformers'
      ``partial_rotary_factor = r/d``): only the first ``r`` channels rotate, with the
      frequencies of an ``r``-channel RoPE; the remaining ``(d − r)/2`` pairs get frequency 0,
      i.e. they are not rotated at all and carry no position. Reads ``rotary_dim``. GPT-NeoX
      rotates the first ``r`` channels in its own layout; frequency 0 on the last pairs of a
      ``d``-channel RoPE is the same up to a fixed permutation of channels, which a model's
      learned ``W_q`` and ``W_k`` absorb. A choice made before training, where the other
      methods are applied to a model trained with plain frequencies.

    A built-in method refuses the arguments it does not read when they are set (``factor !=
    1``, ``original_max_positions``, ``seq_len``, ``rotary_dim``, ``short_factor``,
    ``long_factor`` or ``attention_factor`` not ``None``); :func:`rotary_scaling_reads` names
    those it reads. Only YaRN and LongRoPE return an attention scale other than 1; pass it with the frequencies as
    ``apply_rotary(x, inv_freq=..., attention_scale=...)``, which multiplies the cosine and
    sine tables by it (so each logit of a rotated query and key grows by its square, as in
    transformers).

    The method is looked up in :data:`ROTARY_SCALINGS`, which a user may extend with a
    function of the :class:`RotaryScaling` signature, ``fn(dim, args)``: ``args`` is a
    :class:`RotaryScalingArgs` holding every other argument, already checked, and what the
    function returns is checked in turn. The function gets the built-in methods' refusal of
    the optional arguments it does not read only if it declares what it reads, as its
    ``reads`` attribute (then :func:`rotary_scaling_reads` returns them too) or by calling
    ``args.refuse_unread(reads)`` itself; otherwise it ignores them, and
    :func:`rotary_scaling_reads` says it reads them all:

    .. code-block:: python

        from posenc.sinusoidal import sinusoidal_frequencies

        def halved(dim, args):
            theta = sinusoidal_frequencies(dim, base=args.base, device=args.device)  # [d/2]
            return theta / 2, 1.0

        halved.reads = ()  # reads none of factor, original_max_positions, ...
        ROTARY_SCALINGS["halved"] = halved
        inv_freq, scale = scaled_rotary_frequencies(64, "halved")

    The frequencies are computed and returned in float64 (transformers computes them in
    float32; the two agree to float32 rounding). Transformers calls the frequencies
    ``inv_freq``, ``L_0`` ``original_max_position_embeddings`` (``max_position_embeddings`` for
    ``dynamic``), ``base`` ``rope_theta`` and ``r/d`` ``partial_rotary_factor``.

    Args:
        dim: ``d``, channels per head (even).
        method: a key of :data:`ROTARY_SCALINGS`: ``"default"``, ``"plain"``, ``"linear"``,
            ``"ntk"``, ``"dynamic"``, ``"yarn"``, ``"llama3"``, ``"longrope"``, ``"partial"``,
            or one a user registered.
        base: as in :func:`rotary_angles` (finite, ``> 1``).
        factor: ``s``, how many times longer the input may be (finite, ``> 0``); read by
            ``linear``, ``ntk``, ``dynamic``, ``yarn``, ``llama3`` and ``longrope``.
        original_max_positions: ``L_0``, the length the model was trained on (a positive int);
            required by ``dynamic``, ``yarn``, ``llama3`` and ``longrope``, refused by the others.
        seq_len: ``dynamic`` and ``longrope`` only: the current input length (a positive int,
            or ``None``).
        rotary_dim: ``partial`` only: ``r``, the channels that rotate (even,
            ``2 <= r <= d``); required there.
        beta_fast: ``yarn`` only: rotations over ``L_0`` above which a pair is kept
            (finite, ``> beta_slow``).
        beta_slow: ``yarn`` only: rotations below which a pair is fully interpolated (``> 0``).
        low_freq_factor: ``llama3`` only (finite, ``> 0``).
        high_freq_factor: ``llama3`` only (finite, ``> low_freq_factor``).
        short_factor: ``longrope`` only, required there: ``d/2`` finite factors ``> 0`` (a
            sequence or a 1-D tensor), one per pair, for inputs up to ``L_0``.
        long_factor: ``longrope`` only, required there: the same for inputs beyond ``L_0``.
        attention_factor: ``longrope`` only: the logit scale (finite, ``> 0``), or ``None`` for
            the default above.
        device: where to build the frequencies.

    Returns:
        ``(inv_freq, attention_scale)``: float64 tensor ``[d/2]`` on ``device`` and a Python
        float.

    Shapes:
        ``d``: channels per head.

    Matches: transformers 5.23.0 `modeling_rope_utils.py` ``ROPE_INIT_FUNCTIONS[method]``
    (``_compute_linear_scaling_rope_parameters``, ``_compute_dynamic_ntk_parameters``,
    ``_compute_yarn_parameters`` with ``truncate=True`` and no ``mscale``,
    ``_compute_llama3_parameters``, ``_compute_longrope_parameters`` with ``factor`` given) and ``compute_default_rope_parameters`` of its Llama and
    GPT-NeoX rotary embeddings (``"default"``; ``"partial"`` with ``partial_rotary_factor =
    r/d`` gives its ``r/2`` frequencies, and ``GPTNeoXAttention``'s ``rotary_ndims`` the
    unrotated channels); bloc97, "NTK-Aware Scaled RoPE" (r/LocalLLaMA, June 2023),
    ``base = base * alpha ** (dim / (dim - 2))``.
    """
    method = check_choice("method", method, tuple(ROTARY_SCALINGS))
    dim = check_even("dim", dim)
    base = check_base("base", base)
    factor = check_positive_float("factor", factor)
    if original_max_positions is not None:
        original_max_positions = check_int("original_max_positions", original_max_positions)
    if seq_len is not None:
        seq_len = check_int("seq_len", seq_len)
    if rotary_dim is not None:
        rotary_dim = check_even("rotary_dim", rotary_dim)
        if rotary_dim > dim:
            raise ValueError(f"rotary_dim must be <= dim={dim}, got {rotary_dim}")
    beta_fast = check_positive_float("beta_fast", beta_fast)
    beta_slow = check_positive_float("beta_slow", beta_slow)
    if beta_fast <= beta_slow:
        raise ValueError(f"beta_fast must be > beta_slow, got {beta_fast} and {beta_slow}")
    low_freq_factor = check_positive_float("low_freq_factor", low_freq_factor)
    high_freq_factor = check_positive_float("high_freq_factor", high_freq_factor)
    if high_freq_factor <= low_freq_factor:
        raise ValueError(
            f"high_freq_factor must be > low_freq_factor, got {high_freq_factor} "
            f"and {low_freq_factor}"
        )
    short = _check_rescale("short_factor", short_factor, dim)
    long = _check_rescale("long_factor", long_factor, dim)
    if attention_factor is not None:
        attention_factor = check_positive_float("attention_factor", attention_factor)
    scaling = ROTARY_SCALINGS[method]
    if not callable(scaling):
        raise TypeError(
            f"ROTARY_SCALINGS[{method!r}] must be a function (see RotaryScaling), "
            f"got {type(scaling).__name__} {scaling!r}"
        )
    reads = rotary_scaling_reads(method)
    args = RotaryScalingArgs(
        method=method,
        base=base,
        factor=factor,
        original_max_positions=original_max_positions,
        seq_len=seq_len,
        rotary_dim=rotary_dim,
        beta_fast=beta_fast,
        beta_slow=beta_slow,
        low_freq_factor=low_freq_factor,
        high_freq_factor=high_freq_factor,
        short_factor=short,
        long_factor=long,
        attention_factor=attention_factor,
        device=device,
    )
    args.refuse_unread(reads)  # its declaration's refusals, for a registered method too
    return _check_scaling_result(method, dim, scaling(dim, args))


def _check_rescale(name: str, value: object, dim: int) -> Tensor | None:
    """LongRoPE's ``short_factor`` or ``long_factor``: ``None``, or ``d/2`` finite factors ``> 0``
    (a sequence, or a 1-D real tensor, which stays on its device), as a float64 tensor."""
    if value is None:
        return None
    if isinstance(value, Tensor):
        if value.dim() != 1 or value.is_complex() or value.dtype == torch.bool:
            raise ValueError(
                f"{name} must be a 1-D real tensor of dim/2 = {dim // 2} factors, got "
                f"shape {tuple(value.shape)} and dtype {value.dtype}"
            )
        if value.numel() != dim // 2:
            raise ValueError(f"{name} must hold dim/2 = {dim // 2} factors, got {value.numel()}")
        factors = value.detach().to(torch.float64)  # [d/2]
        if factors.device.type != "meta" and not bool(
            (torch.isfinite(factors) & (factors > 0)).all()
        ):
            raise ValueError(f"{name} must hold finite factors > 0, got {factors.tolist()}")
        return factors
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(
            f"{name} must be a sequence of dim/2 = {dim // 2} factors, got {type(value).__name__}"
        )
    if len(value) != dim // 2:
        raise ValueError(f"{name} must hold dim/2 = {dim // 2} factors, got {len(value)}")
    checked = [check_positive_float(f"{name}[{i}]", v) for i, v in enumerate(value)]
    return torch.tensor(checked, dtype=torch.float64)  # [d/2]


def _check_inv_freq(dim: int, inv_freq: object, *, name: str = "inv_freq") -> Tensor:
    """``inv_freq`` checked as a finite float tensor ``[dim // 2]`` (``dim`` checked first)."""
    dim = check_even("dim", dim)
    check_float_tensor(name, inv_freq, ndim=1)
    if inv_freq.shape[0] != dim // 2:
        raise ValueError(
            f"{name} must hold dim // 2 = {dim // 2} frequencies (one per channel pair), "
            f"got shape {tuple(inv_freq.shape)}"
        )
    return check_finite(name, inv_freq)


def rotary_angles(
    positions: int | Tensor,
    dim: int,
    *,
    base: float = 10000.0,
    device: Device = None,
    inv_freq: Tensor | None = None,
) -> Tensor:
    """Return the rotation angle of every channel pair at every position.

    .. math::

        \\phi_{m,i} = m\\,\\theta_i, \\qquad \\theta_i = \\text{base}^{-2i/d},
        \\qquad i = 0, \\dots, d/2 - 1

    The same frequencies as the sinusoidal encoding
    (:func:`posenc.sinusoidal.sinusoidal_frequencies`): pair 0 turns by one radian per
    position, the last pair by almost ``1/base`` radians.

    Args:
        positions: an int ``n`` (positions ``0..n-1``) or a tensor ``[..., n]`` of positions
            (integer or real; fractional positions are allowed, NaN and infinity are not).
        dim: ``d``, the number of channels (even).
        base: the base of the frequencies (``10000`` in RoFormer; Llama 3 uses ``500000``;
            finite, ``> 1``).
        device: where to build ``0..n-1`` when ``positions`` is an int (a tensor of positions
            keeps its own device).
        inv_freq: ``None`` for ``θ_i = base^{-2i/d}``, or a float tensor ``[d/2]`` of
            frequencies to use in their place (e.g. from :func:`scaled_rotary_frequencies`;
            ``base`` is then not read). Used in float64, on the device of the positions.

    Returns:
        float64 tensor ``[..., n, d/2]``, on the device of ``positions``.

    Shapes:
        ``n``: positions, ``d``: channels.

    Matches: Su et al. (2024), ``Θ = {θ_i = 10000^{-2(i-1)/d}, i = 1..d/2}`` (1-based ``i``).
    """
    if inv_freq is not None:
        _check_inv_freq(dim, inv_freq)
    pos = _rotary_positions("positions", positions, device)  # [..., n]
    if inv_freq is None:
        theta = sinusoidal_frequencies(dim, base=base, device=pos.device)  # [d/2]
    else:
        theta = inv_freq.to(device=pos.device, dtype=torch.float64)  # [d/2]
    return pos[..., None] * theta  # [..., n, d/2]


def rotary_cos_sin(
    positions: int | Tensor,
    dim: int,
    *,
    base: float = 10000.0,
    interleaved: bool = True,
    dtype: torch.dtype = torch.float32,
    device: Device = None,
    inv_freq: Tensor | None = None,
    attention_scale: float = 1.0,
) -> tuple[Tensor, Tensor]:
    """Return the cosine and sine tables that :func:`apply_rotary` multiplies with.

    .. math::

        C_{m,c} = a\\cos(m\\,\\theta_{\\pi(c)}), \\qquad S_{m,c} = a\\sin(m\\,\\theta_{\\pi(c)})

    where ``π(c)`` is the pair of channel ``c``: ``c // 2`` when ``interleaved`` (each angle
    twice in a row, ``θ_0 θ_0 θ_1 θ_1 …``), ``c mod d/2`` otherwise (the ``d/2`` angles, then
    the same ``d/2`` angles again, as Hugging Face's ``cat((freqs, freqs))``), and ``a`` is
    ``attention_scale`` (1 unless the frequencies are YaRN's).

    Args:
        positions: as in :func:`rotary_angles`.
        dim: ``d``, the number of channels (even).
        base: as in :func:`rotary_angles`.
        interleaved: the channel layout (see the module docstring).
        dtype: dtype of the tables, floating point (the angles and their cosines are computed
            in float64).
        device: as in :func:`rotary_angles`.
        inv_freq: as in :func:`rotary_angles` (``None``: ``base``'s frequencies).
        attention_scale: ``a``, multiplying both tables (finite, ``> 0``; the second value
            returned by :func:`scaled_rotary_frequencies`; transformers'
            ``attention_scaling``). Applied in float64, before the cast.

    Returns:
        ``(cos, sin)``, each of shape ``[..., n, d]``.

    Shapes:
        ``n``: positions, ``d``: channels.

    Matches: rotary-embedding-torch 0.9.1 ``RotaryEmbedding.forward``'s ``freqs`` (interleaved,
    ``repeat '... n -> ... (n r)'``) and transformers 5.23.0 ``LlamaRotaryEmbedding``
    (``interleaved=False``), including its ``attention_scaling`` for scaled frequencies.
    """
    interleaved = check_bool("interleaved", interleaved)
    check_floating_dtype("dtype", dtype)
    attention_scale = check_positive_float("attention_scale", attention_scale)
    angles = rotary_angles(
        positions, dim, base=base, device=device, inv_freq=inv_freq
    )  # [..., n, d/2]
    if interleaved:
        angles = angles.repeat_interleave(2, dim=-1)  # [..., n, d]: θ0 θ0 θ1 θ1 …
    else:
        angles = torch.cat((angles, angles), dim=-1)  # [..., n, d]: θ0 θ1 … θ0 θ1 …
    cos, sin = torch.cos(angles), torch.sin(angles)  # [..., n, d] each, float64
    if attention_scale != 1.0:
        cos, sin = cos * attention_scale, sin * attention_scale
    return cos.to(dtype), sin.to(dtype)


def rotary_quarter_turn(x: Tensor, *, interleaved: bool = True) -> Tensor:
    """Return ``x`` with every channel pair turned by 90°: ``(a, b) -> (−b, a)``.

    .. math::

        J\\begin{pmatrix} a \\\\ b \\end{pmatrix} = \\begin{pmatrix} -b \\\\ a \\end{pmatrix},
        \\qquad R(\\phi)\\,v = \\cos\\phi\\; v + \\sin\\phi\\; J v

    The second identity is how RoPE is computed without building rotation matrices: two
    element-wise products and a sum.

    Args:
        x: ``[..., d]``, floating point, with ``d`` even.
        interleaved: pairs ``(2i, 2i+1)`` (GPT-J's ``rotate_every_two``) or ``(i, i + d/2)``
            (Hugging Face's ``rotate_half``).

    Returns:
        tensor of the shape and dtype of ``x``.

    Matches: rotary-embedding-torch 0.9.1 ``rotate_half`` (interleaved, despite its name) and
    transformers 5.23.0 `models/llama/modeling_llama.py` ``rotate_half`` (``interleaved=False``).
    """
    check_float_tensor("x", x)
    interleaved = check_bool("interleaved", interleaved)
    if x.ndim == 0 or x.shape[-1] % 2:
        raise ValueError(
            f"x's last dimension must be even (channels come in pairs), got shape {tuple(x.shape)}"
        )
    if interleaved:
        a, b = x[..., 0::2], x[..., 1::2]  # [..., d/2] each
        return torch.stack((-b, a), dim=-1).flatten(-2)  # [..., d]
    a, b = x.chunk(2, dim=-1)  # [..., d/2] each
    return torch.cat((-b, a), dim=-1)  # [..., d]


def apply_rotary(
    x: Tensor,
    positions: Tensor | None = None,
    *,
    base: float = 10000.0,
    interleaved: bool = True,
    inv_freq: Tensor | None = None,
    attention_scale: float = 1.0,
) -> Tensor:
    """Return ``x`` with each channel pair rotated by its position's angle: RoPE.

    .. math::

        \\begin{pmatrix} y_{m,a} \\\\ y_{m,b} \\end{pmatrix} =
        \\begin{pmatrix} \\cos m\\theta_i & -\\sin m\\theta_i \\\\
                         \\sin m\\theta_i & \\cos m\\theta_i \\end{pmatrix}
        \\begin{pmatrix} x_{m,a} \\\\ x_{m,b} \\end{pmatrix},
        \\qquad \\theta_i = \\text{base}^{-2i/d}

    for every pair ``(a, b)`` of channels with frequency index ``i``: ``(2i, 2i+1)`` when
    ``interleaved``, ``(i, i + d/2)`` otherwise. Computed as
    ``x·cos + rotary_quarter_turn(x)·sin`` with the tables of :func:`rotary_cos_sin`.
    Apply it to queries and keys (never to values); the logit of the pair then depends on
    the offset of the positions only.

    Args:
        x: queries or keys ``[..., n, d]`` (floating point, ``d`` even), e.g. ``[b, h, n, d]``.
        positions: ``None`` for ``0..n-1``, or a tensor ``[n]`` of positions (integer or
            real), or ``[..., n]`` broadcastable against ``x.shape[:-1]`` (one row of
            positions per sequence, e.g. ``[b, 1, n]`` for ``[b, h, n, d]``).
        base: as in :func:`rotary_angles`.
        interleaved: the channel layout (see the module docstring).
        inv_freq: ``None``, or frequencies ``[d/2]`` in place of ``base``'s (e.g. from
            :func:`scaled_rotary_frequencies`), as in :func:`rotary_angles`.
        attention_scale: as in :func:`rotary_cos_sin`: the output is scaled by it (``1``: a
            pure rotation).

    Returns:
        tensor of ``x``'s dtype and of the broadcast shape (``x.shape`` for ``[n]`` positions).
        The cosines and sines are computed in float64 and cast to ``x``'s dtype.

    Shapes:
        ``n``: positions, ``d``: channels per head.

    Matches: Su et al. (2024), the "computationally efficient realization" of ``R^d_{Θ,m} x``;
    rotary-embedding-torch 0.9.1 ``apply_rotary_emb`` (interleaved); transformers 5.23.0 Llama
    ``apply_rotary_pos_emb`` (``interleaved=False``).
    """
    n, d = check_rotated("x", x)
    if positions is None:
        positions = torch.arange(n, device=x.device)  # [n]
    else:
        check_tensor("positions", positions)
        if positions.ndim == 0 or positions.shape[-1] != n:
            raise ValueError(
                f"positions must have x's {n} positions in its last dimension, "
                f"got shape {tuple(positions.shape)}"
            )
        if broadcast_shape(tuple(positions.shape[:-1]), tuple(x.shape[:-2])) is None:
            raise ValueError(
                f"positions' leading dimensions {tuple(positions.shape[:-1])} do not broadcast "
                f"against x's {tuple(x.shape[:-2])}"
            )
    interleaved = check_bool("interleaved", interleaved)
    cos, sin = rotary_cos_sin(
        positions,
        d,
        base=base,
        interleaved=interleaved,
        dtype=x.dtype,
        inv_freq=inv_freq,
        attention_scale=attention_scale,
    )  # [..., n, d], on the device of positions
    return x * cos.to(x.device) + rotary_quarter_turn(x, interleaved=interleaved) * sin.to(x.device)


def rotary_matrix(
    position: float,
    dim: int,
    *,
    base: float = 10000.0,
    interleaved: bool = True,
    device: Device = None,
) -> Tensor:
    """Return the ``d × d`` rotation ``R_m`` that RoPE applies at position ``m``.

    .. math::

        R_m = \\operatorname{diag}\\big(R(m\\theta_0), \\dots, R(m\\theta_{d/2-1})\\big),
        \\qquad R(\\phi) = \\begin{pmatrix} \\cos\\phi & -\\sin\\phi \\\\
                                            \\sin\\phi & \\cos\\phi \\end{pmatrix}

    so that ``apply_rotary(x, m) = x R_mᵀ`` row by row, and ``R_mᵀ R_n = R_{n-m}``
    (Su et al. 2024). Block diagonal for ``interleaved=True``; the same blocks spread
    over channels ``i`` and ``i + d/2`` otherwise. For reading and testing the formula;
    :func:`apply_rotary` never forms it.

    Args:
        position: ``m`` (any finite real number).
        dim: ``d``, the number of channels (even).
        base: as in :func:`rotary_angles`.
        interleaved: the channel layout.
        device: where to build the matrix.

    Returns:
        float64 tensor ``[d, d]`` (orthogonal).

    Shapes:
        ``d``: channels.
    """
    position = check_real("position", position)
    interleaved = check_bool("interleaved", interleaved)
    m = torch.tensor([position], dtype=torch.float64, device=device)  # [1]
    angles = rotary_angles(m, dim, base=base)[0]  # [d/2]
    c, s = torch.cos(angles), torch.sin(angles)  # [d/2] each
    half = dim // 2
    step = 2 if interleaved else 1
    a = torch.arange(0, step * half, step, device=m.device)  # [d/2]: first channel of each pair
    b = a + 1 if interleaved else a + half  # [d/2]: second channel
    r = torch.zeros(dim, dim, dtype=torch.float64, device=m.device)  # [d, d]
    r[a, a] = c
    r[a, b] = -s
    r[b, a] = s
    r[b, b] = c
    return r


def rotary_permutation(dim: int, *, num_heads: int = 1, device: Device = None) -> Tensor:
    """Return the channel permutation from the interleaved to the rotate-half layout.

    .. math::

        \\pi = (0, 2, 4, \\dots, d-2,\\; 1, 3, \\dots, d-1), \\qquad
        \\operatorname{RoPE}_{\\text{half}}(x_{\\pi}) = \\operatorname{RoPE}_{\\text{inter}}(x)_{\\pi}

    Pair ``(2i, 2i+1)`` of the interleaved layout lands on channels ``(i, i + d/2)``, which
    the rotate-half layout rotates by the same angle. Since permuting both queries and keys
    leaves their dot products unchanged, a model trained with one layout runs unchanged
    with the other once the rows of ``W_q`` and ``W_k`` (and their biases) are permuted, head
    by head: ``W_q[rotary_permutation(d, num_heads=h)]``. Without the permutation the
    pairs are wrong and the logits are garbage. The inverse is ``torch.argsort(π)``.

    Args:
        dim: ``d``, channels per head (even).
        num_heads: ``h``; the result permutes ``h·d`` channels, each head's block on its own.
        device: where to build the result.

    Returns:
        LongTensor ``[h·d]``.

    Shapes:
        ``d``: channels per head, ``h``: heads.

    Matches: transformers 5.23.0 ``PermuteForRope`` (`core_model_loading.py`; issue
    transformers#25199) and ``permute`` in huggingface/transformers@6ae9169c77cc
    `src/transformers/models/llama/convert_llama_weights_to_hf.py`; undoes
    meta-llama/llama@8580eb9a896b ``apply_rotary_emb`` pairing.

    Example:
        >>> rotary_permutation(8).tolist()
        [0, 2, 4, 6, 1, 3, 5, 7]
    """
    dim = check_even("dim", dim)
    num_heads = check_int("num_heads", num_heads)
    evens = torch.arange(0, dim, 2, device=device)  # [d/2]
    one = torch.cat((evens, evens + 1))  # [d]
    return (torch.arange(num_heads, device=device)[:, None] * dim + one).flatten()  # [h*d]


class RotaryEmbedding(FixedTables):
    """Rotate queries and keys by their positions (RoPE), with cached cosine and sine tables.

    .. math::

        q_m \\mapsto R_m q_m, \\quad k_n \\mapsto R_n k_n, \\qquad
        \\langle R_m q_m, R_n k_n\\rangle = \\langle q_m, R_{n-m} k_n\\rangle

    ``forward(q, k)`` places keys at positions ``0..n_k−1`` and queries at
    ``query_offset..query_offset+n_q−1``; by default ``query_offset = n_k − n_q``, i.e. the
    queries are the *last* ``n_q`` positions (self-attention when ``n_q = n_k``; decoding with
    a key cache otherwise).

    The tables ``cos_cached`` and ``sin_cached`` (``[L, d]``, non-persistent buffers) hold
    positions ``0..L−1``, computed in float64 and rounded once to the dtype of the inputs.
    RoPE has no maximum length, so the cache **grows on demand**: a call that needs a position
    ``>= L`` rebuilds it for the next power of two; a call in another dtype or on another
    device rebuilds it there. ``max_positions`` is only the initial size. The output is
    exactly :func:`apply_rotary` with the same positions.

    Args:
        dim: ``d``, channels per head (even).
        base: as in :func:`rotary_angles`.
        interleaved: the channel layout (see the module docstring).
        max_positions: the number of positions cached at construction.
        inv_freq: ``None``, or frequencies ``[d/2]`` in place of ``base``'s (e.g. from
            :func:`scaled_rotary_frequencies`, to run a model with scaled RoPE); the module
            keeps a float64 copy and moves it to the device of each rebuild.
        attention_scale: as in :func:`rotary_cos_sin`, multiplying the cached tables.

    Shapes:
        ``q``: ``[..., n_q, d]``, ``k``: ``[..., n_k, d]`` → the same shapes.

    Matches: rotary-embedding-torch 0.9.1 ``RotaryEmbedding(dim).rotate_queries_or_keys``
    (interleaved) and ``rotate_queries_with_cached_keys`` (queries at the end); transformers 5.23.0
    ``LlamaRotaryEmbedding`` + ``apply_rotary_pos_emb`` (``interleaved=False``).
    """

    cos_cached: Tensor
    sin_cached: Tensor

    def __init__(
        self,
        dim: int,
        *,
        base: float = 10000.0,
        interleaved: bool = True,
        max_positions: int = 512,
        inv_freq: Tensor | None = None,
        attention_scale: float = 1.0,
    ) -> None:
        super().__init__()
        self.dim = check_even("dim", dim)
        self.base = check_base("base", base)
        self.interleaved = check_bool("interleaved", interleaved)
        max_positions = check_int("max_positions", max_positions)
        if inv_freq is not None:
            inv_freq = _check_inv_freq(dim, inv_freq).detach().to(torch.float64, copy=True)
        self.inv_freq = inv_freq  # [d/2] float64 or None: not a buffer, so to_empty keeps it
        self.attention_scale = check_positive_float("attention_scale", attention_scale)
        self.register_buffer("cos_cached", torch.empty(0), persistent=False)
        self.register_buffer("sin_cached", torch.empty(0), persistent=False)
        self._precomputed = max_positions  # a cache size, not a limit
        self._build(max_positions, torch.float32, self.cos_cached.device)  # the default device

    def reset_buffers(self) -> None:
        """Rebuild the cos/sin cache in place (after ``to_empty``; ``load_state_dict`` calls it)."""
        self._build(self._precomputed, self._cached_dtype, self.cos_cached.device)

    def _build(self, length: int, dtype: torch.dtype, device: torch.device) -> None:
        cos, sin = rotary_cos_sin(
            length,
            self.dim,
            base=self.base,
            interleaved=self.interleaved,
            dtype=dtype,
            device=device,
            inv_freq=self.inv_freq,
            attention_scale=self.attention_scale,
        )
        self.cos_cached, self.sin_cached = cos, sin  # [L, d] each
        self._cached_dtype = dtype  # what the tables were rounded to (a later .to() may cast them)

    def _tables(self, stop: int, dtype: torch.dtype, device: torch.device) -> tuple[Tensor, Tensor]:
        """``cos`` and ``sin`` for positions ``0..stop-1``, rebuilding the cache if needed."""
        cache = self.cos_cached
        stale = cache.dtype != dtype or self._cached_dtype != dtype or cache.device != device
        if stale or stop > self.cos_cached.shape[0]:
            length = max(stop, self.cos_cached.shape[0])
            self._build(1 << (length - 1).bit_length(), dtype, device)  # next power of two
        return self.cos_cached[:stop], self.sin_cached[:stop]  # [stop, d] each

    def _rotate(self, x: Tensor, cos: Tensor, sin: Tensor) -> Tensor:
        return x * cos + rotary_quarter_turn(x, interleaved=self.interleaved) * sin  # [..., n, d]

    def forward(
        self, q: Tensor, k: Tensor, *, query_offset: int | None = None
    ) -> tuple[Tensor, Tensor]:
        for name, t in (("q", q), ("k", k)):
            check_float_tensor(name, t)
            if t.ndim < 2 or t.shape[-1] != self.dim:
                raise ValueError(f"{name} must be [..., n, {self.dim}], got shape {tuple(t.shape)}")
        check_same_dtype(q=q, k=k)
        if q.device != k.device:
            raise ValueError(f"q and k must be on one device, got {q.device} and {k.device}")
        n_q, n_k = q.shape[-2], k.shape[-2]
        # queries at first..first+n_q-1, keys at 0..n_k-1 (as posenc.attention.query_key_positions)
        if query_offset is None:
            if n_q > n_k:
                raise ValueError(
                    "n_q must be <= n_k when query_offset is not given (queries are the last n_q "
                    f"of the n_k key positions), got n_q={n_q}, n_k={n_k}"
                )
            first = n_k - n_q
        else:
            first = check_int("query_offset", query_offset, minimum=0)
        cos, sin = self._tables(max(n_k, first + n_q), q.dtype, q.device)  # [L, d] each
        q_rot = self._rotate(q, cos[first : first + n_q], sin[first : first + n_q])  # [..., n_q, d]
        k_rot = self._rotate(k, cos[:n_k], sin[:n_k])  # [..., n_k, d]
        return q_rot, k_rot

    def extra_repr(self) -> str:
        text = f"dim={self.dim}, base={self.base}, interleaved={self.interleaved}"
        if self.inv_freq is not None:
            text += ", inv_freq=given"
        if self.attention_scale != 1.0:
            text += f", attention_scale={self.attention_scale}"
        return text
