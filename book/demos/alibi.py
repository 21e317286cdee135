"""Chapter 9's reading of ALiBi's slopes: how many nearest keys each head attends to.

Not model code: :mod:`posenc.alibi` holds the slopes and the bias a model adds.
:func:`alibi_span` turns a head's slope into the width of the window it looks at, by the bias
alone.
"""

from __future__ import annotations

import torch
from torch import Tensor

from posenc._checks import check_int, check_real
from posenc.alibi import alibi_slopes

__all__ = ["alibi_span"]

Device = torch.device | str | None


def alibi_span(num_heads: int, n: int, *, mass: float = 0.9, device: Device = None) -> Tensor:
    """Return how many of the nearest keys hold ``mass`` of each head's attention, by the bias alone.

    Take the last query of a causal sequence of ``n`` tokens whose content logits
    ``q·k/√d`` are all equal, so that only ALiBi's bias tells the keys apart. The key at
    distance ``r`` then gets the weight ``e^{−m_h r} / Σ_{r'<n} e^{−m_h r'}``, and the span is
    the smallest number ``c`` of nearest keys (distances ``0..c−1``) whose weights add up to
    at least ``mass``:

    .. math::

        c_h = \\min\\Big\\{c : \\frac{1 - e^{-m_h c}}{1 - e^{-m_h n}} \\ge \\text{mass}\\Big\\}
        \\approx \\frac{-\\ln(1 - \\text{mass})}{m_h} \\quad (n \\to \\infty)

    A head's span is a property of its slope alone (about ``2.3/m_h`` keys for 90 %), which
    is the sense in which ALiBi's heads look at windows of different widths. Real queries and
    keys move the weights around; the bias is what they start from.

    Args:
        num_heads: ``h``.
        n: the number of keys the query sees (itself included).
        mass: the share of the attention to cover, in ``(0, 1)``.
        device: where to build the result.

    Returns:
        LongTensor ``[h]``, values in ``1..n``.

    Shapes:
        ``h``: heads.
    """
    n = check_int("n", n)
    mass = check_real("mass", mass, minimum=0, maximum=1, inclusive=False)
    slopes = alibi_slopes(num_heads, device=device)  # [h]
    dist = torch.arange(n, dtype=torch.float64, device=device)  # [n]: distance back from the query
    weights = torch.softmax(-slopes[:, None] * dist, dim=-1)  # [h, n]
    covered = weights.cumsum(-1)  # [h, n]
    count = (covered < mass).sum(-1) + 1  # [h]: keys before the first that reaches mass, plus it
    return count.clamp(max=n)
