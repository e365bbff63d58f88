"""Repeated trials: pass^k and pass@k, reliability classes, and the noise floor of a run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
import math
from itertools import combinations
from statistics import fmean
from typing import Literal


from clawarena.scoring.stats.inputs import finite_array, pass_count, positive_k


def pass_hat_k_by_task(outcomes: Mapping[str, Sequence[bool]], k: int) -> dict[str, float]:
    """Per task, C(c, k) / C(n, k): the chance that k repeats drawn without replacement from its n
    (c of them passes) all pass. Tasks with n < k are left out."""
    return _per_task(outcomes, k, lambda n, c: Fraction(_comb(c, k), _comb(n, k)))


def pass_at_k_by_task(outcomes: Mapping[str, Sequence[bool]], k: int) -> dict[str, float]:
    """Per task, 1 - C(n - c, k) / C(n, k): the chance that at least one of k repeats drawn from
    its n passes. Tasks with n < k are left out."""
    return _per_task(outcomes, k, lambda n, c: 1 - Fraction(_comb(n - c, k), _comb(n, k)))


def pass_hat_k(outcomes: Mapping[str, Sequence[bool]], k: int) -> float | None:
    """tau-bench's pass^k: the mean over tasks of C(c, k) / C(n, k) (n repeats, c passes).

    Tasks with fewer than k repeats are left out; None when no task has k. k < 1 -> ValueError.
    """
    return _mean(pass_hat_k_by_task(outcomes, k))


def pass_at_k(outcomes: Mapping[str, Sequence[bool]], k: int) -> float | None:
    """pass@k: the mean over tasks of 1 - C(n - c, k) / C(n, k), with pass_hat_k's rules."""
    return _mean(pass_at_k_by_task(outcomes, k))


def _comb(n: int, k: int) -> int:
    """n choose k, 0 outside 0 <= k <= n (as scipy's exact comb; math's would raise on a negative)."""
    return math.comb(n, k) if 0 <= k <= n else 0


def _per_task(outcomes: Mapping[str, Sequence[bool]], k: int, estimate) -> dict[str, float]:
    positive_k(k)
    out: dict[str, float] = {}
    for task, repeats in outcomes.items():
        passes = pass_count(repeats, f"outcomes[{task!r}]")
        if len(repeats) >= k:
            out[task] = float(estimate(len(repeats), passes))
    return out


def _mean(per_task: Mapping[str, float]) -> float | None:
    return fmean(per_task.values()) if per_task else None


Reliability = Literal["reliable", "lottery", "never-pass", "unrepeated"]


def reliability_class(outcomes: Sequence[bool]) -> Reliability:
    """A task's class over its repeats: every repeat passes -> reliable, none -> never-pass, some ->
    lottery; fewer than 2 repeats -> unrepeated (one trial says nothing about reliability)."""
    passes = pass_count(outcomes, "outcomes")
    if len(outcomes) < 2:
        return "unrepeated"
    if passes == len(outcomes):
        return "reliable"
    return "never-pass" if passes == 0 else "lottery"


@dataclass(frozen=True)
class NoiseFloor:
    mean_abs_diff: float | None  # mean over pairs of repeats (i < j) of |rate_i - rate_j|
    max_abs_diff: float | None
    pairs: int  # pairs of repeats compared


def noise_floor(by_repeat: Mapping[int, Mapping[str, float]]) -> NoiseFloor:
    """How far two single runs of the same agent differ.

    `by_repeat`: repeat index -> {scenario id: score (0/1 or utility)}. Each repeat's rate is its
    mean over the scenarios every repeat has (so a repeat that lost a trial to an error is compared
    on the same ground); the floor is the mean and the largest |rate_i - rate_j| over all pairs of
    repeats i < j. No pairs (fewer than 2 repeats, or no scenario common to all) -> None.
    """
    repeats = sorted(by_repeat)
    common = set.intersection(*(set(by_repeat[r]) for r in repeats)) if repeats else set()
    if len(repeats) < 2 or not common:
        return NoiseFloor(mean_abs_diff=None, max_abs_diff=None, pairs=0)
    scenarios = sorted(common, key=repr)
    rates = {}
    for r in repeats:
        scores = finite_array([by_repeat[r][s] for s in scenarios], f"by_repeat[{r!r}]")
        rates[r] = float(scores.mean())
    gaps = [abs(rates[i] - rates[j]) for i, j in combinations(repeats, 2)]
    return NoiseFloor(mean_abs_diff=fmean(gaps), max_abs_diff=max(gaps), pairs=len(gaps))
