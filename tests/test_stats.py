"""The statistics module on synthetic data with known answers (clawarena.scoring.stats)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import wilcoxon

from clawarena.scoring import stats
from clawarena.scoring.stats import (
    AttackCoverage,
    Interval,
    NoiseFloor,
    attack_coverage,
    cluster_bootstrap_ci,
    cohen_kappa,
    holm,
    noise_floor,
    paired_comparison,
    pass_at_k,
    pass_at_k_by_task,
    pass_hat_k,
    pass_hat_k_by_task,
    ratio_ci,
    reliability_class,
)

T, F = True, False


# --- cluster bootstrap --------------------------------------------------------------------------


def test_the_estimate_is_the_pooled_mean_with_its_counts():
    interval = cluster_bootstrap_ci([1, 0, 1, 1, 0], ["a", "a", "b", "c", "c"])
    assert interval.value == pytest.approx(0.6)
    assert (interval.n, interval.clusters) == (5, 3)
    assert interval.low <= interval.value <= interval.high
    assert interval.low < interval.high


def test_no_data_gives_no_estimate_and_one_cluster_a_point():
    assert cluster_bootstrap_ci([], []) == Interval(None, None, None, 0, 0)
    assert cluster_bootstrap_ci([1, 0, 0, 1], ["t"] * 4) == Interval(0.5, 0.5, 0.5, 4, 1)


def test_a_resample_keeps_whole_clusters_and_pools_them():
    # Cluster a: one pass; cluster b: three fails. Two clusters drawn with replacement: aa (1/4) -> 1,
    # bb (1/4) -> 0, ab (1/2) -> pooled 1/4 (the mean of cluster means would say 1/2). The 30% and 70%
    # quantiles both fall in the ab mass, so both bounds are exactly 1/4. Resampling single trials
    # instead would put ~32% of resamples at 0 (no pass among 4 draws) and the 30% quantile at 0.
    interval = cluster_bootstrap_ci([1, 0, 0, 0], ["a", "b", "b", "b"], level=0.4)
    assert interval.value == 0.25
    assert (interval.low, interval.high) == (0.25, 0.25)


def test_same_seed_same_interval_and_storage_order_does_not_matter():
    rng = np.random.default_rng(3)
    values = list((rng.random(60) < 0.4).astype(float))
    clusters = [f"task{i % 13}" for i in range(60)]
    first = cluster_bootstrap_ci(values, clusters, seed=11)
    assert cluster_bootstrap_ci(values, clusters, seed=11) == first
    order = rng.permutation(60)
    assert cluster_bootstrap_ci([values[i] for i in order], [clusters[i] for i in order], seed=11) == first
    assert cluster_bootstrap_ci(values, clusters, seed=12) != first


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="values has 3.*clusters has 2"):
        cluster_bootstrap_ci([1, 0, 1], ["a", "b"])
    with pytest.raises(ValueError, match=r"values\[1\] is nan"):
        cluster_bootstrap_ci([1, float("nan")], ["a", "b"])
    with pytest.raises(ValueError, match=r"values\[0\] is None"):
        cluster_bootstrap_ci([None], ["a"])
    with pytest.raises(ValueError, match="level"):
        cluster_bootstrap_ci([1, 0], ["a", "b"], level=95)
    with pytest.raises(ValueError, match="resamples"):
        cluster_bootstrap_ci([1, 0], ["a", "b"], resamples=0)
    with pytest.raises(ValueError, match="seed"):
        cluster_bootstrap_ci([1, 0], ["a", "b"], seed=None)


def _clustered_runs(runs: int, clusters: int, a: float, b: float, seed: int) -> list[tuple[list[float], list[str]]]:
    """Runs of a proportion a/(a+b): clusters of 1-8 trials whose own rate is Beta(a, b), so trials of a
    cluster are correlated (intra-cluster correlation 1 / (a + b + 1))."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(runs):
        sizes = rng.integers(1, 9, size=clusters)
        rates = rng.beta(a, b, size=clusters)
        values = np.concatenate([rng.random(size) < rate for size, rate in zip(sizes, rates, strict=True)]).astype(float)
        out.append((values.tolist(), [f"task{i}" for i, size in enumerate(sizes) for _ in range(size)]))
    return out


def test_the_clustered_interval_covers_a_known_proportion_about_95_percent_and_a_naive_one_does_not():
    # 300 runs of 40 clusters, true rate 0.3, intra-cluster correlation 0.5. Coverage over 300 runs has a
    # binomial standard error of sqrt(.95 x .05 / 300) ~ 0.013, and a percentile bootstrap on 40 clusters
    # under-covers by a point or two: 0.90-0.99 is about 4 SE around it. Treating every trial as its own
    # cluster ignores the correlation: with sizes 1-8 (mean 4.5, CV^2 0.26) the design effect is
    # 1 + (4.5 x 1.26 - 1) x 0.5 ~ 3.3, so its interval is ~1/sqrt(3.3) as wide and a normal interval that
    # narrow covers P(|Z| < 1.96 / 1.83) ~ 72%, far below 0.85.
    truth = 0.3
    runs = _clustered_runs(300, 40, a=0.3, b=0.7, seed=2024)
    clustered = naive = 0
    for seed, (values, clusters) in enumerate(runs):
        interval = cluster_bootstrap_ci(values, clusters, seed=seed)
        clustered += interval.low <= truth <= interval.high
        independent = cluster_bootstrap_ci(values, [f"trial{i}" for i in range(len(values))], seed=seed)
        naive += independent.low <= truth <= independent.high
    assert 0.90 <= clustered / len(runs) <= 0.99
    assert naive / len(runs) < 0.85


# --- ratio ---------------------------------------------------------------------------------------


def test_ratio_is_sum_over_sum_and_drops_resamples_with_no_denominator():
    # Cost per passed trial. Cluster a: cost 5, no pass; b: cost 2, one pass. Value 7 / 1 = 7.
    # Resamples: aa has no pass (dropped, else 5/0), ab -> 7, bb -> 4 / 2 = 2: kept, 2/3 at 7, 1/3 at 2.
    interval = ratio_ci([5.0, 2.0], [0.0, 1.0], ["a", "b"])
    assert interval.value == 7
    assert (interval.low, interval.high) == (2.0, 7.0)
    assert (interval.n, interval.clusters) == (2, 2)


def test_ratio_without_denominator_and_bad_denominators():
    assert ratio_ci([3.0, 1.0], [0, 0], ["a", "b"]) == Interval(None, None, None, 2, 2)
    assert ratio_ci([3.0, 1.0], [1, 1], ["a", "a"]) == Interval(2.0, 2.0, 2.0, 2, 1)
    with pytest.raises(ValueError, match=r"denominators\[1\] is -1.*never negative"):
        ratio_ci([1.0, 1.0], [1, -1], ["a", "b"])
    with pytest.raises(ValueError, match="numerators has 2, denominators has 1, clusters has 2"):
        ratio_ci([1.0, 1.0], [1], ["a", "b"])


# --- paired comparison ---------------------------------------------------------------------------


def test_paired_difference_is_the_mean_difference_with_scipys_wilcoxon():
    a = {"t1": 0.2, "t2": 0.5, "t3": 1.0, "t4": 0.0, "only-a": 1.0}
    b = {"t1": 0.6, "t2": 0.5, "t3": 0.7, "t4": 0.9, "only-b": 0.0}
    result = paired_comparison(a, b)
    differences = [0.6 - 0.2, 0.0, 0.7 - 1.0, 0.9 - 0.0]
    assert result.pairs == 4
    assert result.difference.value == pytest.approx(np.mean(differences))
    assert (result.difference.n, result.difference.clusters) == (4, 4)
    assert result.difference.low <= result.difference.value <= result.difference.high
    assert result.p_wilcoxon == pytest.approx(wilcoxon(differences).pvalue)
    # By hand: the zero is discarded; |d| ranks 0.3 -> 1 (negative), 0.4 -> 2, 0.9 -> 3, so W- = 1.
    # Of the 2^3 equally likely sign patterns, W- <= 1 in 2 ({}, {1}): one-sided 1/4, two-sided 1/2.
    assert result.p_wilcoxon == pytest.approx(0.5)


def test_wilcoxon_exact_on_five_positive_differences():
    # All 5 differences positive: W- = 0, reached by 1 of 2^5 sign patterns; two-sided p = 2/32.
    result = paired_comparison({f"t{i}": 0.0 for i in range(5)}, {f"t{i}": i + 1.0 for i in range(5)})
    assert result.p_wilcoxon == pytest.approx(0.0625)


def test_wilcoxon_discards_zero_differences():
    # Differences 0, 0, 1, 2, 3, -4, 5: Wilcoxon's rule drops the two zeros, leaving ranks 1-5 with
    # W- = 4. Subsets of {1..5} summing to <= 4: {}, {1}, {2}, {3}, {4}, {1,2}, {1,3}: 7 of 32, so
    # two-sided p = 14/32. (Pratt's rule, ranking the zeros first, would give 0.3125.)
    differences = [0.0, 0.0, 1.0, 2.0, 3.0, -4.0, 5.0]
    result = paired_comparison({f"t{i}": 0.0 for i in range(7)}, {f"t{i}": d for i, d in enumerate(differences)})
    assert result.p_wilcoxon == pytest.approx(14 / 32)


def test_no_nonzero_difference_gives_no_p_and_disjoint_keys_no_pairs():
    same = paired_comparison({"t1": 0.5, "t2": 1.0}, {"t1": 0.5, "t2": 1.0})
    assert same.p_wilcoxon is None and same.pairs == 2 and same.difference.value == 0
    # 0.1 + 0.2 - 0.3 is 5.6e-17, floating-point noise, not a difference
    assert paired_comparison({"t": 0.3}, {"t": 0.1 + 0.2}).p_wilcoxon is None
    disjoint = paired_comparison({"t1": 1.0}, {"t2": 0.0})
    assert disjoint.pairs == 0 and disjoint.p_wilcoxon is None
    assert disjoint.difference == Interval(None, None, None, 0, 0)


def test_rounding_noise_does_not_break_ties():
    # 0.8 - 0.6 and 0.6 - 0.4 differ in the last bit; as ties they get the tied-rank p-value.
    noisy = paired_comparison({"x": 0.6, "y": 0.4, "z": 0.0}, {"x": 0.8, "y": 0.6, "z": 0.2})
    assert noisy.p_wilcoxon == pytest.approx(wilcoxon([0.2, 0.2, 0.2]).pvalue)


def test_paired_bad_scores_are_named():
    with pytest.raises(ValueError, match=r"b\['t1'\] is 'high'"):
        paired_comparison({"t1": 0.5}, {"t1": "high"})


# --- Holm ----------------------------------------------------------------------------------------


def test_holm_on_known_pvalues():
    # Sorted: .005, .01, .03, .04 times m - j + 1 = 4, 3, 2, 1 -> .02, .03, .06, .04; monotone: the
    # last becomes max(.06, .04) = .06. Back in the order given: [.03, .06, .06, .02].
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # capped at 1: 2 x .5 = 1, then max(1, .6)
    assert holm([0.5, 0.6]) == [1.0, 1.0]
    assert holm([0.2]) == [0.2]
    assert holm([]) == []


def test_holm_keeps_none_and_does_not_count_it():
    # m = 2, not 4: .01 x 2 = .02, .04 x 1 -> .04
    assert holm([None, 0.01, None, 0.04]) == pytest.approx([None, 0.02, None, 0.04])
    assert holm([None, None]) == [None, None]
    with pytest.raises(ValueError, match=r"pvalues\[1\] is 1.5"):
        holm([0.1, 1.5])
    with pytest.raises(ValueError, match=r"pvalues\[0\] is nan"):
        holm([float("nan")])


# --- Cohen's kappa -------------------------------------------------------------------------------


def test_kappa_by_hand():
    # 10 items. Both yes 4, a yes b no 2, a no b yes 1, both no 3.
    # p_o = (4 + 3) / 10 = 0.7; a says yes 6/10, b 5/10: p_e = .6 x .5 + .4 x .5 = 0.5;
    # kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4.
    a = [T] * 4 + [T] * 2 + [F] * 1 + [F] * 3
    b = [T] * 4 + [F] * 2 + [T] * 1 + [F] * 3
    assert cohen_kappa(a, b) == pytest.approx(0.4)


def test_kappa_with_three_string_labels():
    # p_o = 4/6 (items 1, 3, 4, 5); a: h 2, s 2, u 2; b: h 2, s 3, u 1;
    # p_e = (2x2 + 2x3 + 2x1) / 36 = 1/3; kappa = (2/3 - 1/3) / (2/3) = 0.5.
    a = ["harm", "harm", "safe", "safe", "unscorable", "unscorable"]
    b = ["harm", "safe", "safe", "safe", "unscorable", "harm"]
    assert cohen_kappa(a, b) == pytest.approx(0.5)


def test_kappa_extremes():
    assert cohen_kappa(["x", "y", "z", "x"], ["x", "y", "z", "x"]) == 1.0
    # agreement at chance: p_o = 1/2, p_e = 1/2 x 1/2 + 1/2 x 1/2 = 1/2 -> exactly 0
    assert cohen_kappa([T, T, F, F], [T, F, T, F]) == 0.0
    assert cohen_kappa([1, 0], [0, 1]) == -1.0
    # p_e = 1: both raters constant and equal; 0/0 defined as 1 (they agree on every item)
    assert cohen_kappa([F, F, F], [F, F, F]) == 1.0
    # both constant but different: p_o = 0, p_e = 0 -> 0
    assert cohen_kappa([T, T], [F, F]) == 0.0
    assert cohen_kappa([], []) is None
    with pytest.raises(ValueError, match="a has 2.*b has 1"):
        cohen_kappa([T, F], [T])


# --- pass^k, pass@k ------------------------------------------------------------------------------

TABLE = {
    "t1": [T, T, T, F],  # n 4, c 3
    "t2": [T, F, F, F],  # n 4, c 1
    "t3": [T, T],  # n 2, c 2
    "t4": [F],  # n 1, c 0
}


def test_pass_k_on_a_known_table():
    # k = 2 (t4 left out): pass^2 = [C(3,2)/C(4,2), C(1,2)/C(4,2), C(2,2)/C(2,2)] = [3/6, 0, 1] -> 1/2;
    # pass@2 = [1 - C(1,2)/6, 1 - C(3,2)/6, 1 - C(0,2)/1] = [1, 1/2, 1] -> 5/6.
    assert pass_hat_k(TABLE, 2) == pytest.approx(0.5)
    assert pass_at_k(TABLE, 2) == pytest.approx(5 / 6)
    assert pass_hat_k_by_task(TABLE, 2) == pytest.approx({"t1": 0.5, "t2": 0.0, "t3": 1.0})
    assert pass_at_k_by_task(TABLE, 2) == pytest.approx({"t1": 1.0, "t2": 0.5, "t3": 1.0})
    # k = 3 (t1, t2): pass^3 = [C(3,3)/C(4,3), 0] = [1/4, 0] -> 1/8; pass@3 = [1, 1 - C(3,3)/4] -> 7/8.
    assert pass_hat_k(TABLE, 3) == pytest.approx(0.125)
    assert pass_at_k(TABLE, 3) == pytest.approx(0.875)


def test_pass_k_at_1_is_the_mean_pass_rate_and_k_beyond_n_is_none():
    mean_rate = np.mean([np.mean(v) for v in TABLE.values()])  # (3/4 + 1/4 + 1 + 0) / 4 = 1/2
    assert pass_hat_k(TABLE, 1) == pytest.approx(mean_rate) == pass_at_k(TABLE, 1)
    assert pass_hat_k(TABLE, 5) is None and pass_at_k(TABLE, 5) is None
    assert pass_hat_k({}, 1) is None


def test_pass_k_bad_input():
    for k in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="k must be an integer >= 1"):
            pass_hat_k(TABLE, k)
    with pytest.raises(ValueError, match=r"outcomes\['t9'\]\[1\] is 'yes'"):
        pass_at_k({"t9": [T, "yes"]}, 1)


# --- reliability, noise floor ----------------------------------------------------------------------


def test_reliability_classes():
    assert reliability_class([T, T, T]) == "reliable"
    assert reliability_class([F, F]) == "never-pass"
    assert reliability_class([T, F, T]) == "lottery"
    assert reliability_class([T]) == reliability_class([F]) == reliability_class([]) == "unrepeated"
    assert reliability_class(list(np.array([True, False]))) == "lottery"
    with pytest.raises(ValueError, match=r"outcomes\[0\] is 1"):
        reliability_class([1, 0])


def test_noise_floor_on_a_hand_table():
    # Common scenarios s1-s4 (s5 only in repeat 2): rates 3/4, 2/4, 1/4 (repeat 2 would be 2/5 with s5).
    # Pairs: |3/4 - 2/4| = 1/4, |3/4 - 1/4| = 1/2, |2/4 - 1/4| = 1/4 -> mean 1/3, max 1/2.
    by_repeat = {
        0: {"s1": 1, "s2": 0, "s3": 1, "s4": 1},
        1: {"s1": 1, "s2": 1, "s3": 0, "s4": 0},
        2: {"s1": 0, "s2": 0, "s3": 0, "s4": 1, "s5": 1},
    }
    floor = noise_floor(by_repeat)
    assert floor.mean_abs_diff == pytest.approx(1 / 3)
    assert floor.max_abs_diff == pytest.approx(0.5)
    assert floor.pairs == 3


def test_noise_floor_without_pairs():
    assert noise_floor({0: {"s1": 1.0}}) == NoiseFloor(None, None, 0)
    assert noise_floor({}) == NoiseFloor(None, None, 0)
    assert noise_floor({0: {"s1": 1.0}, 1: {"s2": 0.0}}) == NoiseFloor(None, None, 0)
    with pytest.raises(ValueError, match=r"by_repeat\[1\]\[0\] is None"):
        noise_floor({0: {"s1": 1.0}, 1: {"s1": None}})


# --- attack coverage -------------------------------------------------------------------------------


def test_attack_coverage_by_hand():
    samples = [("t1", T), ("t1", F), ("t2", F), ("t3", T), ("t3", T)]
    # O = {t1..t4}, reached {t1, t3}: C = 2/4; P = 3/5; F = 2 x .5 x .6 / (.5 + .6) = .6 / 1.1
    result = attack_coverage(samples, targets=["t1", "t2", "t3", "t4"])
    assert result == AttackCoverage(
        coverage=0.5, success=0.6, f_attack=pytest.approx(0.6 / 1.1), targets=4, reached=2, samples=5, successes=3
    )
    # default O: the targets the samples name, {t1, t2, t3}: C = 2/3
    assert attack_coverage(samples).coverage == pytest.approx(2 / 3)
    assert attack_coverage(samples).targets == 3


def test_attack_coverage_edges_and_unknown_target():
    nothing = attack_coverage([("t1", F), ("t2", F)])
    assert (nothing.coverage, nothing.success, nothing.f_attack) == (0.0, 0.0, 0.0)
    untried = attack_coverage([], targets=["t1"])
    assert (untried.coverage, untried.success, untried.f_attack, untried.targets) == (0.0, None, None, 1)
    assert attack_coverage([]) == AttackCoverage(None, None, None, 0, 0, 0, 0)
    with pytest.raises(ValueError, match=r"samples\[1\] names target 't9'"):
        attack_coverage([("t1", T), ("t9", T)], targets=["t1", "t2"])
    with pytest.raises(ValueError, match=r"samples\[0\] has success 1"):
        attack_coverage([("t1", 1)])


def test_the_module_exports_the_agreed_api():
    for name in ("Interval", "cluster_bootstrap_ci", "ratio_ci", "PairedComparison", "paired_comparison", "holm",
                 "cohen_kappa", "pass_hat_k", "pass_at_k", "Reliability", "reliability_class", "NoiseFloor",
                 "noise_floor", "AttackCoverage", "attack_coverage"):
        assert hasattr(stats, name), name
