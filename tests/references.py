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


def pil_bicubic_reference(image, out_h, out_w, a=-0.5):
    """PIL-style antialiased bicubic (what ``antialias=True`` selects) in NumPy float64.

    Keys' kernel with a = −0.5, stretched by the shrink factor when shrinking, evaluated at
    pixel centres, truncated at the borders and renormalised (no index clamping).
    """

    def kernel(x):
        x = abs(x)
        if x < 1:
            return ((a + 2) * x - (a + 3)) * x * x + 1
        if x < 2:
            return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
        return 0.0

    def resize_axis(arr, n_out, axis):
        n_in = arr.shape[axis]
        scale = n_in / n_out
        support = 2 * max(scale, 1.0)
        inv = 1 / max(scale, 1.0)
        out = []
        for o in range(n_out):
            centre = scale * (o + 0.5)
            lo = max(int(centre - support + 0.5), 0)
            hi = min(int(centre + support + 0.5), n_in)
            w = np.array([kernel((j + lo - centre + 0.5) * inv) for j in range(hi - lo)])
            w /= w.sum()
            out.append(
                np.tensordot(w, np.take(arr, np.arange(lo, hi), axis=axis), axes=([0], [axis]))
            )
        return np.moveaxis(np.stack(out), 0, axis)

    return resize_axis(resize_axis(image, out_h, 0), out_w, 1)


def torch_bicubic_reference(image, out_h, out_w, a=-0.75):
    """PyTorch's bicubic (align_corners=False, no antialias) written out in NumPy float64.

    Source coordinate (o + 0.5)·in/out − 0.5, Keys' cubic convolution with a = −0.75 on the
    four neighbours, indices clamped at the borders.
    """

    def weights(t):
        def near(x):  # |x| <= 1
            return ((a + 2) * x - (a + 3)) * x * x + 1

        def far(x):  # 1 < |x| < 2
            return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

        return np.array([far(t + 1), near(t), near(1 - t), far(2 - t)])

    def resize_axis(arr, n_out, axis):
        n_in = arr.shape[axis]
        out = []
        for o in range(n_out):
            src = (o + 0.5) * n_in / n_out - 0.5
            base = math.floor(src)
            w = weights(src - base)
            idx = np.clip(np.arange(base - 1, base + 3), 0, n_in - 1)
            out.append(np.tensordot(w, np.take(arr, idx, axis=axis), axes=([0], [axis])))
        return np.moveaxis(np.stack(out), 0, axis)

    return resize_axis(resize_axis(image, out_h, 0), out_w, 1)


def roformer_loop(x, positions, base=10000.0, interleaved=True):
    """RoFormer's R^d_{Θ,m} x one pair at a time with math.cos/math.sin, in float64 NumPy.

    x: [n, d] array; positions: n numbers. Pair i is (2i, 2i+1) or (i, i + d/2).
    """
    x = np.asarray(x, dtype=np.float64)
    _n, d = x.shape
    out = np.empty_like(x)
    for row, m in enumerate(positions):
        for i in range(d // 2):
            a, b = (2 * i, 2 * i + 1) if interleaved else (i, i + d // 2)
            phi = m * base ** (-2.0 * i / d)
            out[row, a] = x[row, a] * math.cos(phi) - x[row, b] * math.sin(phi)
            out[row, b] = x[row, a] * math.sin(phi) + x[row, b] * math.cos(phi)
    return out


def official_get_slopes(n):
    """get_slopes of ofirpress/attention_with_linear_biases (fairseq/models/transformer.py), in floats."""

    def power_of_two(k):
        start = 2 ** (-(2 ** -(math.log2(k) - 3)))
        return [start * start**i for i in range(k)]

    if math.log2(n).is_integer():
        return power_of_two(n)
    low = 2 ** math.floor(math.log2(n))
    return power_of_two(low) + official_get_slopes(2 * low)[0::2][: n - low]


def loop_reference(q, k, v, rel_k, rel_v, mask=None):
    """z_i = Σ_j softmax_j(q_i·(k_j + a^K_ij)/√d)(v_j + a^V_ij), one (i, j) at a time in float64."""
    q, k, v, rel_k, rel_v = (np.asarray(t, dtype=np.float64) for t in (q, k, v, rel_k, rel_v))
    n_q, n_k, d = q.shape[0], k.shape[0], q.shape[1]
    max_k = (rel_k.shape[0] - 1) // 2
    out = np.zeros((n_q, v.shape[1]))
    for i in range(n_q):
        logits = np.full(n_k, -np.inf)
        for j in range(n_k):
            if mask is None or mask[i, j]:
                r = min(max(j - i, -max_k), max_k) + max_k
                logits[j] = q[i] @ (k[j] + rel_k[r]) / math.sqrt(d)
        w = np.exp(logits - logits.max())
        w /= w.sum()
        for j in range(n_k):
            r = min(max(j - i, -max_k), max_k) + max_k
            out[i] += w[j] * (v[j] + rel_v[r])
    return out


def swin_index(wh, ww):
    """microsoft/Swin-Transformer WindowAttention.__init__."""
    coords = torch.stack(torch.meshgrid(torch.arange(wh), torch.arange(ww), indexing="ij"))
    flat = torch.flatten(coords, 1)
    rel = (flat[:, :, None] - flat[:, None, :]).permute(1, 2, 0).contiguous()
    rel[:, :, 0] += wh - 1
    rel[:, :, 1] += ww - 1
    rel[:, :, 0] *= 2 * ww - 1
    return rel.sum(-1)


def video_swin_index(wd, wh, ww):
    """SwinTransformer/Video-Swin-Transformer WindowAttention3D.__init__."""
    coords = torch.stack(
        torch.meshgrid(torch.arange(wd), torch.arange(wh), torch.arange(ww), indexing="ij")
    )
    flat = torch.flatten(coords, 1)
    rel = (flat[:, :, None] - flat[:, None, :]).permute(1, 2, 0).contiguous()
    rel[:, :, 0] += wd - 1
    rel[:, :, 1] += wh - 1
    rel[:, :, 2] += ww - 1
    rel[:, :, 0] *= (2 * wh - 1) * (2 * ww - 1)
    rel[:, :, 1] *= 2 * ww - 1
    return rel.sum(-1)
