"""Paired comparison of two agents or conditions on the same base tasks, and Holm's correction."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from clawarena.scoring.stats.bootstrap import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    Interval,
    cluster_bootstrap_ci,
)

# Per-task scores are means of utilities, so b - a carries floating-point noise (0.8 - 0.6 vs
# 0.6 - 0.4); rounding before ranking keeps true zeros zero and true ties tied.
_RANK_DECIMALS = 12


@dataclass(frozen=True)
class PairedComparison:
    difference: Interval  # mean over pairs of (b - a); bootstrap over pairs (each key is a cluster)
    p_wilcoxon: float | None  # two-sided Wilcoxon signed-rank on the paired differences
    pairs: int


def paired_comparison(
    a: Mapping[str, float],
    b: Mapping[str, float],
    *,
    level: float = DEFAULT_LEVEL,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> PairedComparison:
    """Compare per-base-task scores `a` and `b` (keyed by base task id) on the keys both have.

    The difference is b - a per key, its mean with a bootstrap that resamples whole pairs. The
    p-value is scipy's two-sided Wilcoxon signed-rank test with Wilcoxon's zero handling (pairs
    with no difference are discarded) and its "auto" method (the exact null distribution for up
    to 50 pairs without ties or zeros, exhaustive permutation for up to 13 with them, else the
    normal approximation).
    `p_wilcoxon` is None when no difference is nonzero: once zeros are discarded there is nothing
    to rank and the test is undefined (scipy would answer nan or an uninformative 1).
    """
    keys = sorted(a.keys() & b.keys(), key=repr)
    differences = [_score(b, k, "b") - _score(a, k, "a") for k in keys]
    difference = cluster_bootstrap_ci(differences, keys, level=level, resamples=resamples, seed=seed)
    return PairedComparison(difference=difference, p_wilcoxon=wilcoxon_p(differences), pairs=len(keys))


def wilcoxon_p(differences: Sequence[float]) -> float | None:
    """Two-sided Wilcoxon signed-rank p-value of paired differences; None when none is nonzero."""
    rounded = np.round(np.asarray(differences, dtype=float), _RANK_DECIMALS)
    if not np.any(rounded != 0):
        return None
    from scipy.stats import wilcoxon  # here: importing scipy.stats costs a run's summary ~1.4 s

    return float(wilcoxon(rounded, zero_method="wilcox", alternative="two-sided", method="auto").pvalue)


def _score(scores: Mapping[str, float], key: str, side: str) -> float:
    value = scores[key]
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{side}[{key!r}] is {value!r}, not a number") from None
    if not math.isfinite(number):
        raise ValueError(f"{side}[{key!r}] is {value!r}, not a finite number")
    return number


def holm(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm-Bonferroni adjusted p-values, in the order given.

    With the m present p-values sorted ascending, p_(1) <= ... <= p_(m), the i-th adjusted value is
    max over j <= i of min(1, (m - j + 1) p_(j)): step-down, monotone, capped at 1. A None (a test
    that could not be run) stays None and does not count towards m.
    """
    present: list[tuple[int, float]] = []
    for i, p in enumerate(pvalues):
        if p is None:
            continue
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
            raise ValueError(f"pvalues[{i}] is {p!r}, not a probability in [0, 1]")
        present.append((i, float(p)))
    adjusted: list[float | None] = [None] * len(pvalues)
    m = len(present)
    running = 0.0
    for rank, (i, p) in enumerate(sorted(present, key=lambda item: item[1])):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[i] = running
    return adjusted
