"""Percentile bootstrap intervals that resample whole clusters (base tasks), for means and ratios."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from clawarena.scoring.stats.inputs import bootstrap_options, finite_array, same_length

DEFAULT_LEVEL = 0.95
DEFAULT_RESAMPLES = 2000
# Resamples are drawn in blocks of about this many cluster indices, so memory stays bounded for any
# number of clusters; each block is one vectorised draw (no Python loop over single resamples).
_BLOCK_CELLS = 1_000_000


@dataclass(frozen=True)
class Interval:
    """A point estimate with its percentile bootstrap interval.

    `value` is None when there is no data (or, for a ratio, a zero denominator); `low` and `high`
    are then None too. With a single cluster there is nothing to resample: `low == high == value`.
    """

    value: float | None
    low: float | None
    high: float | None
    n: int  # observations behind it
    clusters: int  # distinct clusters (base tasks) behind it


def cluster_bootstrap_ci(
    values: Sequence[float],
    clusters: Sequence[str],
    *,
    level: float = DEFAULT_LEVEL,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> Interval:
    """The mean of `values` (0/1 for a rate) with a bootstrap that resamples whole clusters.

    A base task's variants and repeats are not independent, so a resample draws clusters with
    replacement and keeps all their observations; its statistic is the ratio estimator
    sum(values in chosen clusters) / count(values in chosen clusters) (clusters differ in size).
    """
    same_length(values=values, clusters=clusters)
    numerators = finite_array(values, "values")
    return _ratio_interval(numerators, np.ones_like(numerators), clusters, level, resamples, seed)


def ratio_ci(
    numerators: Sequence[float],
    denominators: Sequence[float],
    clusters: Sequence[str],
    *,
    level: float = DEFAULT_LEVEL,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> Interval:
    """sum(numerators) / sum(denominators) with the same cluster bootstrap (cost per passed trial:
    numerators = cost, denominators = passed 0/1).

    `value` is None when the denominators sum to 0. Denominators are counts or weights, so a
    negative one is an error. Resamples whose denominators sum to 0 have no ratio and are dropped.
    """
    same_length(numerators=numerators, denominators=denominators, clusters=clusters)
    nums = finite_array(numerators, "numerators")
    dens = finite_array(denominators, "denominators")
    negative = np.flatnonzero(dens < 0)
    if negative.size:
        i = int(negative[0])
        raise ValueError(f"denominators[{i}] is {denominators[i]!r}: a denominator is a count or weight, never negative")
    return _ratio_interval(nums, dens, clusters, level, resamples, seed)


def _cluster_index(clusters: Sequence[Hashable]) -> tuple[int, np.ndarray]:
    """(number of clusters, each observation's cluster index), clusters in sorted order.

    Sorting makes the interval independent of the order trials were stored in (a resumed or
    parallel run stores them in another order): the same data and seed give the same interval.
    """
    labels = sorted(dict.fromkeys(clusters), key=repr)
    position = {label: i for i, label in enumerate(labels)}
    return len(labels), np.fromiter((position[c] for c in clusters), dtype=np.intp, count=len(clusters))


def _ratio_interval(
    nums: np.ndarray, dens: np.ndarray, clusters: Sequence[Hashable], level: float, resamples: int, seed: int
) -> Interval:
    bootstrap_options(level, resamples, seed)
    n = len(nums)
    if n == 0:
        return Interval(None, None, None, 0, 0)
    k, index = _cluster_index(clusters)
    cluster_nums = np.bincount(index, weights=nums, minlength=k)
    cluster_dens = np.bincount(index, weights=dens, minlength=k)
    total = cluster_dens.sum()
    if total == 0:
        return Interval(None, None, None, n, k)
    value = float(cluster_nums.sum() / total)
    if k == 1:
        return Interval(value, value, value, n, 1)
    ratios = _resampled_ratios(cluster_nums, cluster_dens, resamples, np.random.default_rng(seed))
    if ratios.size == 0:  # every resample drew only zero-denominator clusters (only with tiny B)
        return Interval(value, value, value, n, k)
    tail = (1 - level) / 2
    low, high = np.quantile(ratios, [tail, 1 - tail])
    # Summation order can put the estimate a rounding error outside bounds that should touch it.
    return Interval(value, min(float(low), value), max(float(high), value), n, k)


def _resampled_ratios(cluster_nums: np.ndarray, cluster_dens: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """The ratio estimator on `resamples` cluster resamples; resamples with denominator 0 dropped."""
    k = cluster_nums.size
    block = max(1, _BLOCK_CELLS // k)
    out = []
    for start in range(0, resamples, block):
        chosen = rng.integers(0, k, size=(min(block, resamples - start), k))
        num = cluster_nums[chosen].sum(axis=1)
        den = cluster_dens[chosen].sum(axis=1)
        keep = den > 0
        out.append(num[keep] / den[keep])
    return np.concatenate(out)
