"""Independent transcriptions that several test files compare posenc against."""

import math

import numpy as np
import torch

from posenc.attention import SelfAttention


def reference_self_attention(layer: SelfAttention, x: torch.Tensor) -> torch.Tensor:
    """A float64, loop-over-heads transcription of multi-head self-attention."""
    d, h = layer.dim, layer.num_heads
    w = layer.qkv.weight.detach().double()
    b = layer.qkv.bias.detach().double()
    x = x.double()
    heads = []
    for head in range(h):
        rows = slice(head * d // h, (head + 1) * d // h)
        q = x @ w[:d][rows].T + b[:d][rows]
        k = x @ w[d : 2 * d][rows].T + b[d : 2 * d][rows]
        v = x @ w[2 * d :][rows].T + b[2 * d :][rows]
        logits = q @ k.transpose(-1, -2) / math.sqrt(d // h)
        a = torch.exp(logits - logits.amax(-1, keepdim=True))
        heads.append((a / a.sum(-1, keepdim=True)) @ v)
    z = torch.cat(heads, dim=-1)
    return z @ layer.out.weight.detach().double().T + layer.out.bias.detach().double()


def t2t_relative_positions_matrix(length_q, length_k, max_relative_position):
    """tensor2tensor's _generate_relative_positions_matrix (+ k), in NumPy."""
    range_vec_k = np.arange(length_k)
    range_vec_q = range_vec_k[-length_q:] if length_q <= length_k else np.arange(length_q)
    distance_mat = range_vec_k[None, :] - range_vec_q[:, None]
    clipped = np.clip(distance_mat, -max_relative_position, max_relative_position)
    return clipped + max_relative_position
