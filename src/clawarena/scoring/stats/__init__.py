"""Statistics over plain Python data: cluster bootstrap intervals, paired comparisons with Holm's
correction, rater agreement, repeated-trial reliability and SeClaw's attack coverage.

Pure functions on numpy and scipy, deterministic given a seed; `docs/scoring.md` ("Statistics")
defines each estimator.
"""

from clawarena.scoring.stats.agreement import cohen_kappa
from clawarena.scoring.stats.attack import AttackCoverage, attack_coverage
from clawarena.scoring.stats.bootstrap import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    Interval,
    cluster_bootstrap_ci,
    ratio_ci,
)
from clawarena.scoring.stats.paired import (
    PairedComparison,
    holm,
    paired_comparison,
    wilcoxon_p,
)
from clawarena.scoring.stats.repeats import (
    NoiseFloor,
    Reliability,
    noise_floor,
    pass_at_k,
    pass_at_k_by_task,
    pass_hat_k,
    pass_hat_k_by_task,
    reliability_class,
)

__all__ = [
    "DEFAULT_LEVEL",
    "DEFAULT_RESAMPLES",
    "AttackCoverage",
    "Interval",
    "NoiseFloor",
    "PairedComparison",
    "Reliability",
    "attack_coverage",
    "cluster_bootstrap_ci",
    "cohen_kappa",
    "holm",
    "noise_floor",
    "paired_comparison",
    "pass_at_k",
    "pass_at_k_by_task",
    "pass_hat_k",
    "pass_hat_k_by_task",
    "ratio_ci",
    "reliability_class",
    "wilcoxon_p",
]
