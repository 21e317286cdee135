"""What a model without any position information can reach on ``"shift"``: the order-free guess.

* :func:`frequency_guess_position_accuracy` gives the expected accuracy, position by position,
  of guessing the most frequent token among those a query may attend to;
* :func:`frequency_guess_accuracy` averages it over the answered positions.

Both are exact (no sampling): chapter 10 draws them under the accuracies of trained models.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from posenc._checks import check_bool, check_int

__all__ = ["frequency_guess_accuracy", "frequency_guess_position_accuracy"]


def _expected_max_counts(max_tokens: int, vocab_size: int) -> Tensor:
    """``E[max_v c_v]`` for ``m = 0..max_tokens`` tokens drawn uniformly from ``V`` values.

    ``c_v`` counts the tokens equal to ``v``. Uses ``E[M] = Σ_{c>=0} P(M > c)`` and, for each
    ``c``, the probability that no value occurs more than ``c`` times, built one value at a
    time: among ``t`` tokens spread over ``s`` values, the first value's count is
    ``Binomial(t, 1/s)`` and the rest spread over ``s − 1`` values. Float64 throughout; all
    terms are probabilities, so nothing cancels. Several ``c`` at once, until ``P(M > c)``
    is negligible for every ``m``.
    """
    t = torch.arange(max_tokens + 1, dtype=torch.float64)  # [T]: numbers of tokens
    expected = torch.zeros(max_tokens + 1, dtype=torch.float64)  # [T]
    chunk = 8  # values of c per pass; most lengths need one or two passes
    for first in range(0, max_tokens + 1, chunk):
        c = torch.arange(first, min(first + chunk, max_tokens + 1))  # [C]
        j = torch.arange(int(c[-1]) + 1, dtype=torch.float64)  # [J]: count of one value
        rest = (t[:, None] - j[None, :]).clamp(min=0)  # [T, J]: tokens left for the others
        allowed = (j[None, :] <= t[:, None]) & (j[None, None, :] <= c[:, None, None])  # [C, T, J]
        log_choose = (
            torch.lgamma(t + 1)[:, None] - torch.lgamma(j + 1)[None, :] - torch.lgamma(rest + 1)
        )  # [T, J]: log C(t, j)
        fits = (t[None, :] <= c[:, None]).double()  # [C, T]: one value, at most c tokens
        index = rest.long().expand(len(c), -1, -1)  # [C, T, J]
        for values in range(2, vocab_size + 1):
            q = 1.0 / values
            pmf = torch.exp(log_choose + j * math.log(q) + rest * math.log1p(-q))  # [T, J]
            others = fits.gather(1, index.flatten(1)).view_as(index)  # [C, T, J]: the rest fit
            fits = (pmf * others * allowed).sum(-1)  # [C, T]
        exceed = (1.0 - fits).clamp(min=0.0)  # [C, T]: P(M > c)
        expected += exceed.sum(0)
        if float(exceed[-1].max()) < 1e-11:  # later terms are smaller still (rounding: ~1e-13)
            break
    return expected  # [T]


def frequency_guess_position_accuracy(
    length: int, *, vocab_size: int = 16, k: int = 2, causal: bool = True
) -> Tensor:
    """Expected accuracy on ``"shift"``, position by position, of a guess that ignores order.

    The guess at position ``p`` is the most frequent token among those the query may attend
    to, other than its own: ``x_0 … x_{p−1}`` for a decoder (causal), all tokens but ``x_p``
    for an encoder. The tokens are independent and uniform, so given that bag of ``m``
    tokens the answer ``x_{p−k}`` is any one of them with equal probability, and

    .. math::

        a_p = \\frac{\\mathbb{E}\\big[\\max_v c_v\\big]}{m}, \\qquad
        m = \\begin{cases} p & \\text{causal} \\\\ n - 1 & \\text{otherwise} \\end{cases}

    where ``c_v`` counts the tokens equal to ``v`` among the ``m`` (computed exactly, not
    sampled). No function of the query's own token and of the bag of tokens it can attend
    to, without their order, does better on average: this is the ceiling of a model that
    has no position information at all, e.g. a one-layer decoder without encoding. A model
    above it must be getting order from somewhere (a deeper decoder can get some from the
    causal mask).

    Args:
        length: ``n``, the sequence length.
        vocab_size: ``V``.
        k: the shift (``1 <= k < n``).
        causal: ``True`` for a decoder, ``False`` for an encoder.

    Returns:
        ``[n]`` float64 expected accuracies; ``nan`` at the first ``k`` positions (no answer),
        as in :func:`toy_position_accuracy`.

    Shapes:
        ``n``: positions.
    """
    length = check_int("length", length)
    vocab_size = check_int("vocab_size", vocab_size, minimum=2)
    k = check_int("k", k)
    if k >= length:
        raise ValueError(f"k must be smaller than length, got k={k}, length={length}")
    causal = check_bool("causal", causal)
    expected = _expected_max_counts(length - 1, vocab_size)  # [n]: E[max count] of m = 0..n−1
    p = torch.arange(length)  # [n]
    tokens = p if causal else torch.full_like(p, length - 1)  # [n]: m, the size of the bag
    accuracy = expected[tokens] / tokens.clamp(min=1)  # [n]
    accuracy[:k] = math.nan
    return accuracy  # [n]


def frequency_guess_accuracy(
    length: int, *, vocab_size: int = 16, k: int = 2, causal: bool = True
) -> float:
    """Expected accuracy on ``"shift"`` of the order-blind guess, over all answered positions.

    .. math::

        \\bar a = \\frac{1}{n - k} \\sum_{p=k}^{n-1} a_p

    with ``a_p`` from :func:`frequency_guess_position_accuracy` (the same average as
    :func:`toy_accuracy`'s, whose answered positions all have the same number of answers).

    Args:
        length, vocab_size, k, causal: as in :func:`frequency_guess_position_accuracy`.

    Returns:
        the expected accuracy, in ``[1/V, 1]``.
    """
    per_position = frequency_guess_position_accuracy(
        length, vocab_size=vocab_size, k=k, causal=causal
    )  # [n]
    return float(per_position[k:].mean())
