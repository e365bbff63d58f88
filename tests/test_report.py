"""`clawarena report`: report.html (self-contained, checked in headless Chromium), report.md and
results.csv over real runs made with the CLI, with and without judgments, pooled and alone."""

from __future__ import annotations

import csv
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clawarena.cli import app
from clawarena.report.headline import interval_text
from clawarena.runner.judging import JUDGMENTS_FILE, load_judgments
from clawarena.runner.store import RunStore, json_bytes
from clawarena.scoring.judges.agreement import agreement, judged_attack_success
from clawarena.scoring.judges.verdict import JudgeVerdict, Judgment
from clawarena.scoring.metrics import GroupMetrics, RunMetrics, compute_metrics

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]  # fmt: skip
AGREEING, CONTRARY = "openai:judge-agree", "anthropic:judge-contrary"


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def make_run(runs_dir: Path, run_id: str, *args: str) -> Path:
    result = invoke("run", "--runs-dir", str(runs_dir), "--run-id", run_id, *args)
    assert result.exit_code == 0, result.output
    return runs_dir / run_id


def write_judgments(root: Path) -> None:
    """Two scripted judges on every attacked trial's attacked surface: one agrees with the detector;
    the other says the opposite on the first two and cannot score the third."""
    lines = []
    attacked = [r for r in RunStore.open(root).records() if r.variant != "benign" and r.outcome != "error"]
    for n, r in enumerate(attacked):
        for judge, flip, unscorable in ((AGREEING, False, False), (CONTRARY, n < 2, n == 2)):
            harm = r.harm.get(r.variant, False) != flip
            attributed = harm and r.attack_caused != flip
            verdict = JudgeVerdict(harm=harm, attributed=attributed, surface=r.variant, evidence_ids=[], reason="scripted")
            lines.append(Judgment(
                unit_id=r.unit_id, scenario_id=r.scenario_id, task_id=r.task_id, variant=r.variant, agent=r.agent, condition=r.condition,
                trial=r.trial, seed=r.seed, surface=r.variant, judge=judge, provider=judge.split(":")[0], model=judge.split(":")[1],
                prompt_version="test-1", status="unscorable" if unscorable else "scored",
                verdict=None if unscorable else verdict, attempts=3 if unscorable else 1,
                problems=["not JSON"] * 3 if unscorable else [],
                usage={"calls": 1.0, "input_tokens": 100.0, "output_tokens": 20.0, "cost_usd": 0.001},
                deterministic_harm=r.harm.get(r.variant, False), deterministic_attack=r.attack_caused,
                judged_checks=["paraphrased-leak"] if n == 0 else [],
            ))  # fmt: skip
    (root / JUDGMENTS_FILE).write_bytes(b"".join(json_bytes(j.model_dump(mode="json")) + b"\n" for j in lines))


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("runs")


@pytest.fixture(scope="module")
def email_run(runs) -> Path:
    root = make_run(runs, "email", "--suite", "email", "--agent", "oracle,noop,naive", "--trials", "2")
    write_judgments(root)
    return root


@pytest.fixture(scope="module")
def workspace_run(runs) -> Path:
    """Safety tasks in two domains and three attack vectors, naive in two conditions (no judgments)."""
    tasks = ["cal-injection-in-description", "gmail-injection-in-body", "slack-injection-in-message", "gmail-destructive-over-action"]
    task_args = [a for t in tasks for a in ("--task", t)]
    conditions = ["--conditions", "skills-off__meta-off,skills-on__meta-on"]
    return make_run(runs, "ws", "--suite", "workspace", *task_args, "--agent", "naive", *conditions)


def metrics_of(root: Path) -> RunMetrics:
    """What the report must show, computed here from the run's own files through the public API."""
    return compute_metrics(RunStore.open(root).records(), judged_attack_success(load_judgments(root)))


@pytest.fixture(scope="module")
def email_report(email_run, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("email-report")
    result = invoke("report", str(email_run), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert result.stdout.split() == [str(out / "report.html"), str(out / "report.md"), str(out / "results.csv")]
    return out


@pytest.fixture(scope="module")
def workspace_report(workspace_run) -> Path:
    result = invoke("report", str(workspace_run))  # no --out: the run folder itself
    assert result.exit_code == 0, result.output
    return workspace_run


# ---- reading the page back ----------------------------------------------------------------------


class Page(HTMLParser):
    """Tables (by id) as rows of (text, href) cells, the column names, every id, and each trial list's links."""

    def __init__(self, text: str):
        super().__init__()
        self.tables: dict[str, list[list[tuple[str, str]]]] = {}
        self.columns: dict[str, list[str]] = {}
        self.row_ids: dict[str, list[str]] = {}
        self.ids: list[str] = []
        self.lists: dict[str, list[tuple[str, str]]] = {}
        self._table = self._list = None
        self._cell: list[str] | None = None
        self._href = ""
        self._in_list_link = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "table" and a.get("id", "").startswith("tbl-"):
            self._table = a["id"][4:]
            self.tables[self._table], self.columns[self._table], self.row_ids[self._table] = [], [], []
        elif tag == "tr" and self._table:
            self.row_ids[self._table].append(a.get("id", ""))
            self.tables[self._table].append([])
        elif tag in ("td", "th") and self._table:
            self._cell, self._href = [], ""
        elif tag == "a" and self._cell is not None:
            self._href = a.get("href", "")
        elif tag == "div" and "trials" in (a.get("class") or "").split():
            self._list = a["id"]
            self.lists[self._list] = []
        elif tag == "a" and self._list and a.get("class") == "u":
            self.lists[self._list].append(("", a["href"]))
            self._in_list_link = True

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        elif self._in_list_link:
            text, href = self.lists[self._list][-1]
            self.lists[self._list][-1] = (text + data, href)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            value = ("".join(self._cell).strip(), self._href)
            if tag == "th":
                self.columns[self._table].append(value[0])
            else:
                self.tables[self._table][-1].append(value)
            self._cell = None
        elif tag == "table":
            self._table = None
        elif tag == "div":
            self._list = None
        elif tag == "a":
            self._in_list_link = False

    def rows(self, table: str) -> list[dict[str, tuple[str, str]]]:
        return [dict(zip(self.columns[table], cells, strict=True)) for cells in self.tables[table] if cells]

    def trial_of(self, href: str) -> str:
        """The unit id in the first cell of the trials-table row an href points at."""
        anchor = href.lstrip("#")
        index = self.row_ids["trials"].index(anchor)
        return self.tables["trials"][index][0][0]

    def trials_behind(self, href: str) -> list[str]:
        """The unit ids a number's link leads to: its trial list, or the one trial row."""
        key = href.lstrip("#")
        if key in self.lists:
            return [self.trial_of(h) for _, h in self.lists[key]]
        return [self.trial_of(href)]


def page_of(out: Path) -> Page:
    return Page((out / "report.html").read_text(encoding="utf-8"))


def overall(m: RunMetrics) -> dict[str, GroupMetrics]:
    return {g.agent if len({x.condition for x in m.overall()}) == 1 else f"{g.agent} | {g.condition}": g for g in m.overall()}


# ---- the files ----------------------------------------------------------------------------------


def test_report_html_is_self_contained(email_report):
    html = (email_report / "report.html").read_text(encoding="utf-8")
    assert html.startswith("<!doctype html>") and '<meta charset="utf-8">' in html
    assert "<script" not in html.lower() and "<link" not in html.lower() and "@import" not in html
    assert not re.findall(r"""src\s*=\s*["']?\s*(?:https?:)?//""", html, re.I)  # nothing fetched
    outside = re.findall(r"""href\s*=\s*["']?\s*((?:https?:)?//[^"' >]*)""", html, re.I)
    assert outside and all(u.startswith("http://127.0.0.1:8765/runs/") for u in outside)  # links out only to the local trace viewer
    assert not re.findall(r"url\(\s*['\"]?(?:https?:)?//", html, re.I)
    assert html.count("<svg") >= 2  # the scatter and a heatmap, inline
    page = Page(html)
    duplicates = {i for i in page.ids if page.ids.count(i) > 1}
    assert not duplicates, sorted(duplicates)[:10]  # several inline SVGs, one id space


def test_headline_table_shows_the_computed_intervals_and_links_each_to_its_trials(email_run, email_report):
    m = metrics_of(email_run)
    page = page_of(email_report)
    rows = {row["agent"][0]: row for row in page.rows("headline")}
    assert set(rows) == {"oracle", "noop", "naive"}
    for agent, g in overall(m).items():
        row = rows[agent]
        for column, estimate in (("TSR", g.tsr), ("ASR", g.asr), ("ASR (judged)", g.asr_judged), ("over-refusal", g.over_refusal)):
            assert row[column][0] == interval_text(estimate), (agent, column)
        assert row["trials"][0] == str(g.trials) and row["errors"][0] == str(g.errors)
        # each number leads to exactly the trials in its denominator
        assert sorted(page.trials_behind(row["TSR"][1])) == sorted(g.basis["tsr"])
        assert sorted(page.trials_behind(row["ASR (judged)"][1])) == sorted(g.basis["asr_judged"])
        assert sorted(page.trials_behind(row["trials"][1])) == sorted(g.basis["error_rate"])  # a count: every trial
    assert overall(m)["naive"].tsr.value == pytest.approx(2 / 7)  # the run is what it should be: naive passes the benign tasks only


def test_results_csv_rows_equal_the_metrics(email_run, email_report):
    m = metrics_of(email_run)
    with open(email_report / "results.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(m.groups)
    by_key = {tuple(r[c] for c in ("level", "agent", "condition", "suite", "domain", "vector")): r for r in rows}

    def number(text: str) -> float | None:
        return None if text == "" else float(text)

    for g in m.groups:
        row = by_key[(g.level, g.agent, g.condition, g.suite, g.domain, g.vector)]
        for metric in ("tsr", "asr", "asr_judged", "error_rate", "cost_per_trial"):
            e = getattr(g, metric)
            assert number(row[metric]) == e.value and number(row[f"{metric}_low"]) == e.low and number(row[f"{metric}_high"]) == e.high
            assert int(row[f"{metric}_n"]) == e.n
        assert int(row["trials"]) == g.trials and number(row["pass_hat_2"]) == g.pass_hat_k[2]


def test_report_md_has_the_same_tables_as_the_html(email_run, email_report):
    md = (email_report / "report.md").read_text(encoding="utf-8")
    page = page_of(email_report)
    header = "| " + " | ".join(page.columns["headline"]) + " |"
    assert header in md and "TSR" in header and "ASR (judged)" in header
    for cells in page.tables["headline"]:
        if cells:
            assert "| " + " | ".join(text for text, _ in cells) + " |" in md
    g = overall(metrics_of(email_run))["naive"]
    assert f"| naive | {g.trials} | {interval_text(g.tsr)} |" in md
    sections = ("## Headline", "## ASR by domain and attack vector", "## Judges", "## Cost", "## Errors", "### Reliability per scenario")
    for section in sections:
        assert section in md


# ---- the sections -------------------------------------------------------------------------------


def test_judge_agreement_and_judged_asr_are_shown(email_run, email_report):
    judgments = load_judgments(email_run)
    pairs = agreement(judgments)
    page = page_of(email_report)
    shown = {(r["a"][0], r["b"][0]): r for r in page.rows("agreement")}
    assert len(shown) == len(pairs) == 3  # the two judges, and each against the detector
    for p in pairs:
        row = shown[(p.a, p.b)]
        assert row["kappa"][0] == ("-" if p.kappa is None else f"{p.kappa:.3f}")
        assert row["items"][0] == str(p.items) and row["disagreements"][0] == str(len(p.disagreements))
    contrary = next(p for p in pairs if p.a == CONTRARY and p.b == "deterministic")
    assert contrary.kappa is not None and contrary.kappa < 1 and len(contrary.disagreements) == 2
    listed = {row["trial"][0]: row for row in page.rows("disagreements")}
    assert {item.rpartition("/")[0] for item in contrary.disagreements} <= set(listed)
    agree = next(p for p in pairs if p.a == AGREEING and p.b == "deterministic")
    assert agree.kappa == 1.0 and agree.disagreements == []
    asr = {r["agent"][0]: r for r in page.rows("judged-asr")}
    for agent, g in overall(metrics_of(email_run)).items():
        assert asr[agent]["ASR (deterministic)"][0] == interval_text(g.asr)
        assert asr[agent]["ASR (judged)"][0] == interval_text(g.asr_judged)
    # the first attacked trial has a `judged` check: the panel (one harm, one opposite: a tie is harm) beside the bound
    first = next(r for r in RunStore.open(email_run).records() if r.variant != "benign" and r.outcome != "error")
    [judged] = page.rows("judged-checks")
    assert (judged["trial"][0], judged["surface"][0], judged["judged checks"][0]) == (first.unit_id, first.variant, "paraphrased-leak")
    assert judged["deterministic (lower bound)"][0] == ("harm" if first.harm[first.variant] else "no harm")
    assert judged["judges (majority)"][0] == "harm"  # agreeing and contrary judges tie: a split panel is not called safe
    verdicts = {r["judge"][0]: r for r in page.rows("judge-verdicts")}
    assert verdicts[CONTRARY]["unscorable"][0] == "1" and verdicts[AGREEING]["unscorable"][0] == "0"
    # judge cost apart from the agents'
    cost = {r["judge"][0]: r for r in page.rows("cost-judges")}
    each = len([j for j in judgments if j.judge == AGREEING])
    assert cost[AGREEING]["input tokens"][0] == str(100 * each) and cost[AGREEING]["cost"][0] == f"${0.001 * each:.4f}"
    assert {r["agent"][0] for r in page.rows("cost-agents")} == {"oracle", "noop", "naive"}


def test_per_scenario_reliability_and_pass_k(email_run, email_report):
    m = metrics_of(email_run)
    page = page_of(email_report)
    rows = {r["scenario"][0]: r for r in page.rows("scenarios")}
    assert len(rows) == 7
    for s in m.scenarios:
        text, href = rows[s.scenario_id][s.agent]
        assert text == f"{s.reliability} {s.passes}/{s.repeats}"
        assert sorted(page.trials_behind(href)) == sorted(s.unit_ids)
    assert rows["email-triage-summary/benign"]["oracle"][0] == "reliable 2/2"
    assert rows["email-triage-summary/privacy"]["naive"][0] == "never-pass 0/2"
    pass_k = {r["agent"][0]: r for r in page.rows("pass-k")}
    assert pass_k["oracle"]["pass^2"][0] == "100.0%" and pass_k["noop"]["pass@2"][0] == "0.0%"


def test_no_judgments_is_said_and_conditions_are_compared(workspace_run, workspace_report):
    html = (workspace_report / "report.html").read_text(encoding="utf-8")
    md = (workspace_report / "report.md").read_text(encoding="utf-8")
    assert "No judgments" in html and "No judgments" in md
    page = Page(html)
    m = metrics_of(workspace_run)
    by_condition = {r["condition"][0]: r for r in page.rows("conditions-0")}
    assert set(by_condition) == {"skills-off__meta-off", "skills-on__meta-on"}
    for g in m.overall():
        assert by_condition[g.condition]["ASR"][0] == interval_text(g.asr)
    compared = page.rows("comparisons-same-agent")
    assert len(compared) == len(m.comparisons) > 0
    for shown, c in zip(compared, m.comparisons, strict=True):
        assert shown["metric"][0] == c.metric and shown["b - a"][0] == interval_text(c.difference)
        assert shown["p (Holm)"][0] == ("-" if c.p_holm is None else f"{c.p_holm:.3g}")
    # no capability tasks: the scatter plots benign utility against ASR
    assert "benign utility (%)" in html


def test_heatmap_cells_come_from_the_domain_vector_groups(workspace_run, workspace_report):
    m = metrics_of(workspace_run)
    html = (workspace_report / "report.html").read_text(encoding="utf-8")
    page = Page(html)
    first = m.overall()[0]
    cells = [g for g in m.groups if g.level == "domain_vector" and (g.agent, g.condition) == (first.agent, first.condition)]
    assert len({g.domain for g in cells}) == 2 and len({g.vector for g in cells}) >= 2
    assert len(re.findall(r'id="heatmap-0-cell-\d+-\d+"', html)) == len(cells)
    table = {r["domain"][0]: r for r in page.rows("heatmap-0")}
    for g in cells:
        text, href = table[g.domain][g.vector]
        assert text == f"{interval_text(g.asr)} (n={g.asr.n})"
        assert sorted(page.trials_behind(href)) == sorted(g.basis["asr"])


def test_errors_are_shown_and_never_folded_into_a_rate(email_run, tmp_path):
    root = tmp_path / "with-error"
    shutil.copytree(email_run, root)
    lines = (root / "trials.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    assert first["agent"] == "oracle" and first["outcome"] == "pass"
    first.update(outcome="error", termination="error", error="model endpoint unreachable\nTraceback ...", passed=False)
    (root / "trials.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n", encoding="utf-8")
    assert invoke("report", str(root)).exit_code == 0
    page = page_of(root)
    errored = page.rows("errored")
    assert [(r["trial"][0], r["error"][0]) for r in errored] == [(first["unit_id"], "model endpoint unreachable")]
    oracle = {r["agent"][0]: r for r in page.rows("headline")}["oracle"]
    assert oracle["errors"][0] == "1" and oracle["TSR"][0] == "100.0% [100.0, 100.0]"  # 13 of 13 scored, not 13 of 14
    rate = {r["agent"][0]: r for r in page.rows("error-rate")}["oracle"]
    assert rate["error rate"][0].startswith("7.1%")  # 1 of 14
    with open(root / "results.csv", newline="", encoding="utf-8") as fh:
        row = next(r for r in csv.DictReader(fh) if r["level"] == "overall" and r["agent"] == "oracle")
    assert row["tsr_n"] == "13" and float(row["error_rate"]) == pytest.approx(1 / 14)


def test_two_runs_with_the_same_units_are_pooled_apart(email_run, tmp_path):
    again = tmp_path / "email-again"
    shutil.copytree(email_run, again)
    (again / JUDGMENTS_FILE).unlink()
    out = tmp_path / "pooled"
    result = invoke("report", str(email_run), str(again), "--out", str(out))
    assert result.exit_code == 0, result.output
    page = page_of(out)
    units = [cells[0][0] for cells in page.tables["trials"] if cells]
    assert len(units) == len(set(units)) == 84
    assert {u.split("/", 1)[0] for u in units} == {"email", "email-again"}
    headline = {r["agent"][0]: r for r in page.rows("headline")}
    assert headline["naive"]["trials"][0] == "28"
    rows = {r["scenario"][0]: r for r in page.rows("scenarios")}
    assert rows["email-triage-summary/benign"]["oracle"][0] == "reliable 4/4"  # the second run's trials are further repeats
    assert "pass^4" in page.columns["pass-k"]
    noise = {r["agent"][0]: r for r in page.rows("noise")}
    assert noise["oracle"]["repeats"][0] == "4"
    assert "prefixed with its run" in (out / "report.md").read_text(encoding="utf-8")


def test_figures_are_deterministic_svg_with_ids_of_their_own():
    from clawarena.report.model import ScatterPlot, ScatterPoint
    from clawarena.report.plots import render
    from clawarena.scoring.metrics import Estimate

    e = Estimate(value=0.5, low=0.25, high=0.75, n=8, k=4, clusters=4)
    points = [ScatterPoint("a", e, e, 0, 0, "h-0"), ScatterPoint("b", e, Estimate(value=0.1, low=None, high=None, n=1), 1, 0, "h-1")]
    plot = ScatterPlot("fig-x", "t", "x", "y", points)
    first, second = render(plot, lambda trials: None), render(plot, lambda trials: None)
    assert first == second and first.startswith("<svg")  # no date, no random id salt
    assert len(re.findall(r'id="fig-x-marker-\d+"', first)) == 2 and 'xlink:href="#h-1"' in first
    group_ids = re.findall(r'<g id="([^"]+)"', first)
    assert group_ids and all(i.startswith("fig-x-") for i in group_ids)  # matplotlib's figure_1, axes_1, ... made unique
    other = render(ScatterPlot("fig-y", "t", "x", "y", points), lambda trials: None)
    assert not set(re.findall(r'id="([^"]+)"', first)) & set(re.findall(r'id="([^"]+)"', other))


def test_each_trial_links_to_its_page_in_the_viewer(email_run, email_report, tmp_path):
    from clawarena.view.links import trial_url

    rows = Page((email_report / "report.html").read_text(encoding="utf-8")).rows("trials")
    stored = {r.unit_id for r in RunStore.open(email_run).records()}
    assert {row["trial"][0] for row in rows} == stored
    assert all(row["view"] == ("view", trial_url("http://127.0.0.1:8765", "email", row["trial"][0])) for row in rows)
    other = invoke("report", str(email_run), "--out", str(tmp_path), "--viewer", "http://127.0.0.1:9000/")
    assert other.exit_code == 0 and "http://127.0.0.1:9000/runs/email/trials/" in (tmp_path / "report.html").read_text(encoding="utf-8")
    bad = invoke("report", str(email_run), "--out", str(tmp_path), "--viewer", "javascript:alert(1)")
    assert bad.exit_code == 2 and "--viewer" in bad.stderr


# ---- the command's errors -------------------------------------------------------------------------


def test_bad_run_dirs_and_an_unwritable_out_exit_2_naming_the_argument(email_run, tmp_path):
    missing = invoke("report", str(tmp_path / "nope"))
    assert missing.exit_code == 2 and "RUN-DIR" in missing.stderr and "no such folder" in missing.stderr
    assert "Traceback" not in missing.output
    empty = tmp_path / "empty"
    empty.mkdir()
    shutil.copy(email_run / "run.json", empty / "run.json")
    result = invoke("report", str(empty))
    assert result.exit_code == 2 and "RUN-DIR" in result.stderr and "no trial records" in result.stderr
    not_a_run = invoke("report", str(tmp_path))
    assert not_a_run.exit_code == 2 and "RUN-DIR" in not_a_run.stderr and "not a run folder" in not_a_run.stderr
    twice = invoke("report", str(email_run), str(email_run))
    assert twice.exit_code == 2 and "given twice" in twice.stderr
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    unwritable = invoke("report", str(email_run), "--out", str(blocker))
    assert unwritable.exit_code == 2 and "--out" in unwritable.stderr
    none = invoke("report")
    assert none.exit_code == 2 and "RUN-DIR" in none.stderr


# ---- in a browser -----------------------------------------------------------------------------------


def test_the_report_renders_in_headless_chromium(email_run, email_report, tmp_path):
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: scripts/install-chromium.sh installs Debian's chromium")
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    m = metrics_of(email_run)
    with sync_playwright() as p:
        try:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        except PlaywrightError as exc:
            pytest.skip(f"playwright cannot launch {CHROMIUM}: {str(exc).splitlines()[0]}")
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto((email_report / "report.html").as_uri())
            figures = page.locator("figure svg")
            assert figures.count() >= 2
            for i in range(figures.count()):
                box = figures.nth(i).bounding_box()
                assert box and box["width"] > 0 and box["height"] > 0
            markers = page.locator('#fig-scatter [id^="scatter-marker-"]')
            assert markers.count() == len(m.overall()) == 3  # one point per agent
            for i in range(markers.count()):
                box = markers.nth(i).bounding_box()
                assert box and box["width"] > 0 and box["height"] > 0
            labels = [page.locator(f"#scatter-label-{i}").text_content().strip() for i in range(3)]
            assert sorted(labels) == ["naive", "noop", "oracle"]
            columns = [t.strip() for t in page.locator("#tbl-headline thead th").all_inner_texts()]
            for n, g in enumerate(m.overall()):
                cells = [t.strip() for t in page.locator(f"#tbl-headline tr#h-{n} td").all_inner_texts()]
                shown = dict(zip(columns, cells, strict=True))
                assert shown["agent"] == g.agent
                assert shown["TSR"] == interval_text(g.tsr) and shown["ASR"] == interval_text(g.asr)
                assert shown["ASR (judged)"] == interval_text(g.asr_judged)
            # a number's link shows the trials behind it (CSS :target, no script)
            naive = next(n for n, g in enumerate(m.overall()) if g.agent == "naive")
            link = page.locator(f"#tbl-headline tr#h-{naive} td").nth(columns.index("TSR")).locator("a")
            target = page.locator(link.get_attribute("href"))
            assert not target.is_visible()
            link.click()
            assert target.is_visible()
            assert target.locator("a.u").count() == len(m.overall()[naive].basis["tsr"])
            shot = tmp_path / "report.png"
            page.screenshot(path=str(shot), full_page=False)
            assert shot.stat().st_size > 10_000
        finally:
            browser.close()
