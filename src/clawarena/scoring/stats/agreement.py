"""Agreement between two raters (judges, or a judge and the deterministic detector)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from fractions import Fraction

from clawarena.scoring.stats.inputs import same_length


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    """Cohen's kappa of two raters over the same items, any labels: (p_o - p_e) / (1 - p_e).

    p_o is the share of items both label alike; p_e = sum over labels of (share a gives it) x
    (share b gives it), the agreement two independent raters with these marginals would reach.
    None when there are no items. When p_e == 1 (both raters constant and equal) kappa is 0/0;
    we return 1.0, since the raters agree on every item. Exact rational arithmetic, so
    agreement at chance is exactly 0.
    """
    same_length(a=a, b=b)
    n = len(a)
    if n == 0:
        return None
    observed = Fraction(sum(x == y for x, y in zip(a, b, strict=True)), n)
    counts_a, counts_b = Counter(a), Counter(b)
    expected = sum((Fraction(counts_a[label] * counts_b[label], n * n) for label in counts_a), Fraction(0))
    if expected == 1:
        return 1.0
    return float((observed - expected) / (1 - expected))
