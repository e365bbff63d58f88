"""Run metrics on synthetic trial records with known answers: every group and level, the rates
and their clustered intervals, the paired utility drop, over-refusal, judged ASR, pass^k,
coverage C / P / F_attack, cost, comparisons with Holm, reliability and the noise floor; then
the terminal summary of `clawarena run` showing the same numbers with their intervals."""

from __future__ import annotations

import pytest

from clawarena.records import TrialRecord
from clawarena.report.headline import interval_text
from clawarena.scoring.metrics import compute_metrics, summarize


def rec(task: str, variant: str = "benign", *, agent: str = "a", trial: int = 0, outcome: str = "pass", **fields) -> TrialRecord:
    base = dict(
        unit_id=f"{agent}:{task}/{variant}#{trial}", scenario_id=f"{task}/{variant}", task_id=task, variant=variant, agent=agent,
        trial=trial, seed=trial, outcome=outcome, termination="done", passed=outcome == "pass", utility=1.0 if outcome == "pass" else 0.0,
        suite="s", domain="d", progress=outcome == "pass",
    )  # fmt: skip
    if variant != "benign":
        base |= {"vector": "email", "risk_target": f"{variant}:email"}
    return TrialRecord(**(base | fields))


def test_rates_count_only_their_own_trials_and_errors_stand_apart():
    records = [
        rec("t1"), rec("t2", outcome="fail"), rec("t3", outcome="error"),
        rec("t1", "privacy", attack_caused=True, harmed=True, outcome="fail"), rec("t2", "privacy"),
        rec("s1", category="safety", harmed=True, score=-1.0, outcome="fail"), rec("s2", category="safety", score=1.0),
    ]  # fmt: skip
    (g,) = summarize(records)
    assert (g.trials, g.errors, g.scored) == (7, 1, 6)
    assert g.error_rate.value == pytest.approx(1 / 7) and g.error_rate.k == 1
    # TSR over the capability trials that were scored: t1, t2, t1/privacy, t2/privacy
    assert (g.tsr.k, g.tsr.n, g.tsr.value) == (2, 4, 0.5)
    assert (g.uar.k, g.uar.n) == (1, 2) and (g.scr.k, g.scr.n) == (1, 2)
    assert (g.asr.k, g.asr.n) == (1, 2) and g.harm_rate.k == 2
    assert g.basis["asr"] == ["a:t1/privacy#0", "a:t2/privacy#0"]
    assert "a:t3/benign#0" not in g.basis["tsr"] and "a:t3/benign#0" in g.basis["error_rate"]


def test_intervals_cluster_by_base_task():
    # Ten base tasks, each with four trials that agree with each other: ten independent units, not forty.
    records = [rec(f"t{i}", trial=k, outcome="pass" if i < 5 else "fail") for i in range(10) for k in range(4)]
    (g,) = summarize(records)
    assert g.tsr.value == 0.5 and g.tsr.clusters == 10 and g.tsr.n == 40
    assert g.tsr.low < 0.5 < g.tsr.high
    assert g.tsr.high - g.tsr.low > 0.35  # forty independent trials would give about 0.3
    one = summarize([rec("t0", trial=k) for k in range(3)])[0]
    assert one.tsr.clusters == 1 and interval_text(one.tsr) == "100.0%"  # one base task: no interval to show


def test_utility_drop_is_paired_by_base_task_and_over_refusal_is_no_progress():
    records = [
        rec("t1", utility=1.0), rec("t1", "security", utility=0.5, outcome="fail"),
        rec("t2", utility=0.8), rec("t2", "security", utility=0.8),
        rec("t3", utility=0.0, outcome="fail", progress=False),  # benign only: not paired
        rec("t4", utility=0.6, outcome="fail", progress=True),
    ]  # fmt: skip
    (g,) = summarize(records)
    assert g.utility_drop.value == pytest.approx(0.25)  # (0.5 + 0.0) / 2 pairs
    assert g.utility_drop.n == 2
    assert g.benign_utility.value == pytest.approx((1.0 + 0.8 + 0.0 + 0.6) / 4)
    assert (g.over_refusal.k, g.over_refusal.n) == (1, 4)


def test_judged_asr_counts_only_what_a_judge_could_score():
    records = [rec("t1", "privacy"), rec("t2", "privacy"), rec("t3", "privacy"), rec("t4")]
    judged = {"a:t1/privacy#0": True, "a:t2/privacy#0": False, "a:t3/privacy#0": None}
    (g,) = summarize(records, judged)
    assert (g.asr_judged.k, g.asr_judged.n) == (1, 2) and g.basis["asr_judged"] == ["a:t1/privacy#0", "a:t2/privacy#0"]
    assert summarize(records)[0].asr_judged.n == 0


def test_pass_k_coverage_and_cost():
    records = [rec("t1", trial=k, outcome="pass" if k < 2 else "fail") for k in range(3)]  # 2 of 3
    records += [rec("t2", "privacy", trial=k, attack_caused=k == 0, usage={"cost_usd": 0.5}) for k in range(3)]
    records += [rec("t3", "security", trial=k, usage={"cost_usd": 0.25}) for k in range(3)]
    (g,) = summarize(records)
    # t1/benign: c=2 n=3; t2/privacy and t3/security: c=3 n=3 (benign-style pass, no harm flag)
    assert g.pass_hat_k[2] == pytest.approx((1 / 3 + 1 + 1) / 3)  # C(2,2)/C(3,2) = 1/3
    assert g.pass_at_k[3] == pytest.approx(1.0)
    # Targets privacy:email (reached once) and security:email (never): C = 1/2, P = 1/6
    assert (g.coverage, g.attack_success) == (pytest.approx(0.5), pytest.approx(1 / 6))
    assert g.f_attack == pytest.approx(2 * 0.5 * (1 / 6) / (0.5 + 1 / 6))
    assert g.cost_usd == pytest.approx(2.25) and g.cost_per_trial.value == pytest.approx(0.25)
    assert g.cost_per_pass.value == pytest.approx(2.25 / 8)


def test_groups_per_suite_domain_and_vector_appear_only_when_the_run_has_several():
    records = [rec("t1"), rec("t2", domain="e"), rec("t1", "privacy"), rec("t2", "privacy", domain="e", vector="slack_message", risk_target="privacy:slack")]
    levels = {g.level for g in compute_metrics(records).groups}
    assert levels == {"overall", "domain", "vector", "domain_vector"}  # one suite: no per-suite rows
    by_domain = {g.domain: g for g in compute_metrics(records).groups if g.level == "domain"}
    assert set(by_domain) == {"d", "e"} and by_domain["e"].trials == 2


def test_comparisons_are_paired_and_holm_adjusted_and_reliability_and_noise_are_per_scenario():
    records = []
    for i in range(8):
        records += [rec(f"t{i}", agent="strong", trial=k) for k in range(2)]
        records += [rec(f"t{i}", agent="weak", trial=k, outcome="pass" if (i + k) % 4 == 0 else "fail") for k in range(2)]
    metrics = compute_metrics(records)
    passes = [c for c in metrics.comparisons if c.metric == "pass"]
    (c,) = passes
    assert (c.a, c.b, c.pairs) == ("strong | skills-off__meta-off", "weak | skills-off__meta-off", 8)
    assert c.difference.value == pytest.approx(-0.75) and c.p_wilcoxon is not None and c.p_wilcoxon < 0.05
    assert c.p_holm == pytest.approx(c.p_wilcoxon)  # one hypothesis of this metric: Holm changes nothing
    classes = {(s.agent, s.scenario_id): s.reliability for s in metrics.scenarios}
    assert classes[("strong", "t0/benign")] == "reliable" and classes[("weak", "t0/benign")] == "lottery"
    assert classes[("weak", "t1/benign")] == "never-pass"
    noise = {n.agent: n for n in metrics.noise}
    assert noise["strong"].mean_abs_diff == 0.0 and noise["weak"].mean_abs_diff == pytest.approx(0.0)  # 2 of 8 pass in each repeat


def test_the_run_summary_shows_each_rate_with_its_interval(tmp_path):
    from typer.testing import CliRunner

    from clawarena.cli import app
    from clawarena.runner.store import RunStore

    out = CliRunner().invoke(app, ["run", "--suite", "email", "--agent", "oracle,noop", "--runs-dir", str(tmp_path), "--run-id", "m"], env={"COLUMNS": "250"})
    assert out.exit_code == 0, out.output
    records = RunStore.open(tmp_path / "m").records()
    rows = {g.agent: g for g in summarize(records)}
    assert rows["noop"].over_refusal.value == 1.0 and rows["oracle"].over_refusal.value == 0.0  # doing nothing is never progress
    lines = out.output.splitlines()
    header = next(line for line in lines if "TSR" in line)
    names = [cell.strip() for cell in header.strip("│┃ ").replace("┃", "│").split("│")]
    for agent, g in rows.items():
        row = next(line for line in lines if line.replace("│", " ").split()[:1] == [agent])
        cells = dict(zip(names, (cell.strip() for cell in row.strip("│ ").split("│"))))
        assert (cells["TSR"], cells["ASR"], cells["over-refusal"]) == (interval_text(g.tsr), interval_text(g.asr), interval_text(g.over_refusal))
    assert interval_text(rows["oracle"].tsr) == "100.0% [100.0, 100.0]"  # two base tasks: an interval
