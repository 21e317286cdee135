"""Learned absolute position embeddings (BERT, GPT-2, ViT): one trainable vector per position."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import torch
from torch import Tensor, nn

from ._checks import check_float_tensor, check_int, check_positive_float, check_state_dict_tables

__all__ = ["LearnedPositionalEmbedding"]

Init = Literal["trunc_normal", "normal", "zeros"]


class LearnedPositionalEmbedding(nn.Module):
    """Add a trainable table of position vectors to a batch of sequences.

    .. math::

        y_{b,p} = x_{b,p} + P_p, \\qquad P \\in \\mathbb{R}^{N_{\\max} \\times d}
        \\text{ learned}

    The table is an ``nn.Embedding`` (``self.embedding.weight``), as in BERT's
    ``position_embeddings``. It has one row per position seen in training and nothing beyond:
    a sequence longer than ``max_positions`` raises a ``ValueError``, because there is no
    row to look up (a learned table cannot extrapolate).

    Args:
        max_positions: ``N_max``, the longest sequence the table covers.
        dim: ``d``, the model width.
        init: ``"trunc_normal"``: ``N(0, std²)`` redrawn outside ``±2·std`` (BERT's
            ``tf.truncated_normal_initializer(0.02)``); ``"normal"``: ``N(0, std²)`` (the
            original ViT code, ``normal(stddev=0.02)``; OpenAI's GPT-2 code uses
            ``stddev=0.01`` for ``wpe``; Hugging Face's BERT and GPT-2 use ``0.02``; timm's
            ``trunc_normal_(pos_embed, std=.02)`` cuts at ``±2`` absolute, which for
            ``std=0.02`` is a plain normal); or ``"zeros"`` (what the seed articles do; every
            position then starts with the same vector, i.e. no position information at all).
        std: standard deviation for the normal initialisations.

    Shapes:
        ``x``: ``[b, n, d]`` → ``[b, n, d]`` with ``n <= N_max`` (``x`` floating-point: an
        integer input would be truncated).

    Loading a state dict whose table has another size raises a ``ValueError`` naming the
    key (``embedding.weight``) and both shapes.

    Matches: BERT (transformers 5.23.0 ``BertEmbeddings.position_embeddings``, ``position_ids``
    ``0..n-1``), GPT-2's ``GPT2Model.wpe``, and ViT (google-research/vision_transformer@143bd26cf285
    `vit_jax/models_vit.py` ``AddPositionEmbs``, one row per patch plus one for the class token;
    timm's ``pos_embed``).
    """

    def __init__(
        self, max_positions: int, dim: int, *, init: Init = "trunc_normal", std: float = 0.02
    ) -> None:
        super().__init__()
        self.max_positions = check_int("max_positions", max_positions)
        self.dim = check_int("dim", dim)
        self.std = check_positive_float("std", std)
        if not isinstance(init, str):
            raise TypeError(f"init must be a str, got {type(init).__name__} {init!r}")
        if init not in ("trunc_normal", "normal", "zeros"):
            raise ValueError(f"init must be 'trunc_normal', 'normal' or 'zeros', got {init!r}")
        self.init = init
        weight = torch.empty(self.max_positions, self.dim)  # [N_max, d], filled below
        self.embedding = nn.Embedding(self.max_positions, self.dim, _weight=weight)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-initialise the table according to ``self.init``."""
        weight = self.embedding.weight
        with torch.no_grad():
            if self.init == "zeros":
                weight.zero_()
            elif self.init == "normal":
                weight.normal_(0.0, self.std)
            else:
                nn.init.trunc_normal_(weight, std=self.std, a=-2 * self.std, b=2 * self.std)

    def _load_from_state_dict(
        self, state_dict: Mapping[str, Any], prefix: str, *args: Any, **kwargs: Any
    ) -> None:
        check_state_dict_tables(self, state_dict, prefix)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    @property
    def table(self) -> Tensor:
        """The learned table, ``[N_max, d]`` (a view of the parameter)."""
        return self.embedding.weight

    def forward(self, x: Tensor) -> Tensor:
        check_float_tensor("x", x, ndim=3)
        n, d = x.shape[-2:]
        if d != self.dim:
            raise ValueError(f"x must have {self.dim} channels in its last dimension, got {d}")
        if n > self.max_positions:
            raise ValueError(
                f"sequence length {n} exceeds max_positions={self.max_positions}: a learned "
                f"table has no row for positions {self.max_positions}..{n - 1}, so it cannot "
                "extrapolate (use a longer table, resample it, or a formula-based encoding)"
            )
        positions = torch.arange(n, device=x.device)  # [n]
        return x + self.embedding(positions).to(x.dtype)  # [b, n, d]
