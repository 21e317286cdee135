"""Learned absolute position embeddings (BERT, GPT-2, ViT): one trainable vector per position."""

from __future__ import annotations

from typing import Literal

import torch
from torch import Tensor, nn

from ._checks import check_int, check_positive_float, check_tensor

Init = Literal["trunc_normal", "normal", "zeros"]


class LearnedPositionalEmbedding(nn.Module):
    """Add a trainable table of position vectors to a batch of sequences.

    .. math::

        y_{b,p} = x_{b,p} + P_p, \\qquad P \\in \\mathbb{R}^{N_{\\max} \\times d}
        \\text{ learned}

    The table is an ``nn.Embedding`` (``self.embedding.weight``), as in BERT's
    ``position_embeddings``. It has one row per position seen in training and nothing beyond:
    a sequence longer than ``num_positions`` raises a ``ValueError``, because there is no
    row to look up (a learned table cannot extrapolate).

    Args:
        num_positions: ``N_max``, the longest sequence the table covers.
        dim: ``d``, the model width.
        init: ``"trunc_normal"`` (BERT's and ViT's truncated normal, ``std=0.02``, cut at two
            standard deviations), ``"normal"`` (GPT-2's ``N(0, 0.02²)``) or ``"zeros"`` (what
            the seed articles do; the table then starts with no position information at all).
        std: standard deviation for the normal initialisations.

    Shapes:
        ``x``: ``[b, n, d]`` → ``[b, n, d]`` with ``n <= N_max``.

    Matches: BERT (Devlin et al., 2019; ``BertEmbeddings.position_embeddings``) and ViT
    (Dosovitskiy et al., 2021; ``pos_embed`` initialised with ``trunc_normal_(std=.02)``).
    """

    def __init__(
        self, num_positions: int, dim: int, *, init: Init = "trunc_normal", std: float = 0.02
    ) -> None:
        super().__init__()
        self.num_positions = check_int("num_positions", num_positions)
        self.dim = check_int("dim", dim)
        self.std = check_positive_float("std", std)
        if init not in ("trunc_normal", "normal", "zeros"):
            raise ValueError(f"init must be 'trunc_normal', 'normal' or 'zeros', got {init!r}")
        self.init = init
        self.embedding = nn.Embedding(self.num_positions, self.dim)
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

    @property
    def table(self) -> Tensor:
        """The learned table, ``[N_max, d]`` (a view of the parameter)."""
        return self.embedding.weight

    def forward(self, x: Tensor) -> Tensor:
        check_tensor("x", x, ndim=3)
        n, d = x.shape[-2:]
        if d != self.dim:
            raise ValueError(f"x must have {self.dim} channels in its last dimension, got {d}")
        if n > self.num_positions:
            raise ValueError(
                f"sequence length {n} exceeds num_positions={self.num_positions}: a learned "
                f"table has no row for positions {self.num_positions}..{n - 1}, so it cannot "
                "extrapolate (use a longer table, resample it, or a formula-based encoding)"
            )
        positions = torch.arange(n, device=x.device)  # [n]
        return x + self.embedding(positions).to(x.dtype)  # [b, n, d]
