"""`clawarena run`: plan, check, execute and summarise a run; `--resume` finishes one."""

from __future__ import annotations

import json
import signal
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Optional

import typer
from rich.console import Console
from rich.table import Table

from clawarena.commands.base import (
    DEFAULT_SUITE,
    FORMAT_HELP,
    SUITE_HELP,
    OutputFormat,
    console,
    err,
    fail,
    progress_bar,
    quoted,
    show_table,
    split,
    writable_dir,
)
from clawarena.commands.judge import make_judges

DEFAULT_AGENTS = ["oracle", "noop", "naive"]
OnOff = Literal["on", "off"]
PolicyModeChoice = Literal["monitor", "enforce"]  # world.policy.POLICY_MODES


def conditions_of(skills: str, meta: str, conditions: str | None, defenses: list[str] | None = None) -> list[str]:
    """The run's condition ids. With `--defense` (repeatable, each a stack NAME[,NAME...]), every
    condition runs undefended and behind each stack, so each defense pairs with no defense."""
    from clawarena.agents.defenses import DefenseError, parse_stack
    from clawarena.agents.scaffolding import GRID, Condition

    if conditions is None:
        base = [Condition(skills=skills == "on", meta=meta == "on")]
    elif conditions.strip() == "grid":
        base = list(GRID)
    else:
        base = [Condition.parse(c) for c in split([conditions])]
    if not defenses:
        return [c.id for c in base]
    try:
        stacks = [()] + [parse_stack(d) for d in defenses]
    except DefenseError as exc:
        raise ValueError(str(exc)) from None
    arms = [c.undefended.defended(stack) if stack else c for c in base for stack in stacks]
    return list(dict.fromkeys(c.id for c in arms))


def summary_table(records: Iterable[Any], title: str = "clawarena summary", judged_attack: Any = None) -> Table:
    """Per agent (and condition), each rate with its 95% interval clustered by base task; only the
    columns the run has data for. The report's headline table is built from the same metrics."""
    from clawarena.report.headline import headline_columns
    from clawarena.scoring.metrics import summarize

    records = list(records)
    rows = summarize(records, judged_attack)
    columns = headline_columns(records, rows)
    table = Table(title=title, title_justify="left")
    for column in columns:
        table.add_column(column.name, justify="left" if column.text else "right", no_wrap=True)
    for s in rows:
        table.add_row(*(column.cell(s) for column in columns))
    return table


def harness_table(records: Iterable[Any]) -> Table | None:
    """One model under different harnesses, paired trial by trial (None when the run has no such pairs)."""
    from clawarena.report.headline import HARNESS_COLUMNS, harness_cells
    from clawarena.scoring.metrics import harness_comparisons

    rows = harness_comparisons(list(records))
    if not rows:
        return None
    table = Table(title="harness comparison (same model, paired by scenario, seed, condition, repeat)", title_justify="left")
    for n, column in enumerate(HARNESS_COLUMNS):
        table.add_column(column, justify="left" if n < 4 else "right", no_wrap=True)
    for c in rows:
        table.add_row(*harness_cells(c))
    return table


def summary_json(records: Iterable[Any], judged_attack: Any = None, **about: Any) -> str:
    from clawarena.scoring.metrics import harness_comparisons, summarize

    records = list(records)
    rows = summarize(records, judged_attack)
    paired = [c.model_dump(mode="json", exclude={"basis"}) for c in harness_comparisons(records)]
    return json.dumps({**about, "summary": [s.model_dump(mode="json", exclude={"basis"}) for s in rows], "harness_comparisons": paired}, indent=2)


def judge_after_run(store: Any, judges: list[Any], out: Console) -> dict[str, bool | None]:
    """`run --judge`: the judges of `clawarena judge` on the run just finished; unit id -> judged attack success."""
    from clawarena.runner.judging import JUDGMENTS_FILE, judge_run
    from clawarena.scoring.judges import judged_attack_success

    try:
        result = judge_run(store, judges)
    except OSError as exc:
        fail(f"cannot write {store.root / JUDGMENTS_FILE}: {exc.strerror or exc}; the trials are saved, judge them with clawarena judge {store.root}", 1)
    out.print(f"judged {result.trials} trial(s): {result.asked} question(s) asked -> {store.root / JUDGMENTS_FILE}", highlight=False, soft_wrap=True)
    return judged_attack_success(result.judgments)


@dataclass(frozen=True)
class Given:
    """An option of `run` as typed, to compare with what a resumed run stored."""

    flag: str
    param: str
    value: Any
    stored: Any

    def shown(self, value: Any) -> str:
        if value is None or value == []:
            return "(none)"
        return ",".join(map(str, value)) if isinstance(value, list) else str(value)


def _given(ctx: typer.Context, param: str) -> bool:
    source = ctx.get_parameter_source(param)
    return source is not None and source.name != "DEFAULT"


def _resolved(path: Any) -> str | None:
    return None if path is None else str(Path(path).resolve())


def agents_and_roles(values: list[str] | None) -> tuple[list[str], dict[str, str]]:
    """`--agent` values: plain agents (every delegate agent runs them) and ROLE=SPEC assignments."""
    agents: list[str] = []
    roles: dict[str, str] = {}
    for item in split(values):
        if "=" not in item:
            agents.append(item)
            continue
        role, _, spec = (part.strip() for part in item.partition("="))
        if not role or not spec:
            raise typer.BadParameter(f"{item!r}: expected ROLE=AGENT, e.g. buyer=openai:gpt-4o", param_hint="--agent")
        if role in roles and roles[role] != spec:
            raise typer.BadParameter(f"role {role!r} is given twice ({roles[role]}, {spec})", param_hint="--agent")
        roles[role] = spec
    if roles and not agents:
        agents = ["oracle"]  # agents whose role is not assigned play the reference
    return agents or list(DEFAULT_AGENTS), roles


def _agent_words(agents: list[str], roles: dict[str, str]) -> list[str]:
    return [*agents, *(f"{r}={spec}" for r, spec in sorted(roles.items()))]


def resume_conflicts(ctx: typer.Context, stored: Any, resume: Path, options: dict[str, Any]) -> list[str]:
    """Options given with --resume that contradict the stored run; equal ones (or absent ones) are fine."""
    conflicts: list[Given] = [
        Given("--suite", "suite", options["suite"], stored.suite),
        Given("--agent", "agent", _agent_words(*agents_and_roles(options["agent"])), _agent_words(stored.agents, stored.roles)),
        Given("--policy-mode", "policy_mode", options["policy_mode"], stored.policy_mode),
        Given("--trials", "trials", options["trials"], stored.trials),
        Given("--seed", "seed", options["seed"], stored.seed),
        Given("--task", "task", split(options["task"]), stored.tasks),
        Given("--base-url", "base_url", options["base_url"], stored.base_url),
        Given("--detector", "detector", options["detector"], stored.detector),
        Given("--models", "models", _resolved(options["models"]), _resolved(stored.models_file)),
        Given("--run-id", "run_id", options["run_id"], resume.name),
    ]
    problems = [
        f"{g.flag}: the run was made with {g.shown(g.stored)}, not {g.shown(g.value)}"
        for g in conflicts
        if _given(ctx, g.param) and g.value != g.stored
    ]
    if _given(ctx, "runs_dir") and Path(options["runs_dir"]).resolve() != resume.resolve().parent:
        problems.append(f"--runs-dir: the run folder is {resume}, not under {options['runs_dir']}")
    levers = [f for f, p in (("--skills", "skills"), ("--meta", "meta"), ("--conditions", "conditions"), ("--defense", "defense")) if _given(ctx, p)]
    if levers:
        wanted = conditions_of(options["skills"], options["meta"], options["conditions"], options["defense"])
        if wanted != stored.conditions:
            problems.append(f"{'/'.join(levers)}: the run was made with conditions {','.join(stored.conditions)}, not {','.join(wanted)}")
    return problems


def run(
    ctx: typer.Context,
    suite: str = typer.Option(DEFAULT_SUITE, "--suite", metavar="SUITE", help=SUITE_HELP),
    agent: Optional[list[str]] = typer.Option(None, "--agent", metavar="AGENT", help="agent(s), repeatable or comma-separated: oracle, noop, naive, openai:MODEL, anthropic:MODEL, model:NAME, openclaw:PROVIDER/MODEL, claude-code:MODEL, codex:MODEL, gemini-cli:MODEL (sandboxed harnesses); ROLE=AGENT runs AGENT for the delegate agents that play ROLE (buyer=openai:MODEL) [default: oracle,noop,naive]"),
    evidence_events: int = typer.Option(200, "--evidence-events", min=1, metavar="N", help="the evidence packet of each trace keeps at most N ledger events (anchors first)"),
    policy_mode: PolicyModeChoice = typer.Option("monitor", "--policy-mode", help="monitor: record each policy decision and let the action happen (harm is measured); enforce: refuse what the policies deny"),
    trials: int = typer.Option(1, "--trials", min=1, metavar="N", help="trials per scenario, agent and condition"),
    workers: Optional[int] = typer.Option(None, "--workers", min=1, metavar="N", help="workers running trials concurrently: processes or Ray actors (with --executor thread, trials in flight per --max-concurrency) (may differ on --resume) [default: the number of cores]"),
    max_concurrency: int = typer.Option(1, "--max-concurrency", min=1, metavar="N", help="trials in flight per worker, on its event loop: model agents await the network meanwhile; each model endpoint's max_concurrency still bounds its calls across all workers (may differ on --resume)"),
    executor: Optional[str] = typer.Option(None, "--executor", metavar="NAME", help="how trials run concurrently: thread, process or ray (may differ on --resume) [default: process with --workers > 1 and only scripted agents, else thread]"),
    address: Optional[str] = typer.Option(None, "--address", metavar="ADDR", help="with --executor ray: the Ray cluster to run on, auto (a head started on this machine by `ray start`) or ray://HOST:PORT (may differ on --resume) [default: a new local Ray instance]"),
    seed: int = typer.Option(0, "--seed", metavar="N", help="base seed; each unit's seed derives from it"),
    task: Optional[list[str]] = typer.Option(None, "--task", metavar="GLOB", help="only scenarios whose id (or task id) matches these globs, repeatable"),
    runs_dir: Path = typer.Option(Path("runs"), "--runs-dir", metavar="DIR", help="where run folders are created"),
    resume: Optional[Path] = typer.Option(None, "--resume", metavar="RUN-DIR", help="a run folder to finish with its stored options: finished trials are skipped"),
    run_id: Optional[str] = typer.Option(None, "--run-id", metavar="NAME", help="name of the new run folder [default: a time stamp and the suite]"),
    base_url: Optional[str] = typer.Option(None, "--base-url", metavar="URL", help="endpoint for model agents (e.g. a local vLLM or Ollama /v1)"),
    models: Optional[Path] = typer.Option(None, "--models", metavar="FILE", help="a models file (YAML) of named agent configs, for --agent model:NAME"),
    retry_errors: bool = typer.Option(False, "--retry-errors", help="with --resume: run errored trials again"),
    skills: OnOff = typer.Option("off", "--skills", help="tier-1 skill text in the prompt and a read_skill tool"),
    meta: OnOff = typer.Option("off", "--meta", help="the meta prompt of safety and execution rules"),
    conditions: Optional[str] = typer.Option(None, "--conditions", metavar="IDS", help="'grid' for the 2x2 skills x meta grid, or condition ids such as skills-on__meta-off,... (instead of --skills/--meta)"),
    defense: Optional[list[str]] = typer.Option(None, "--defense", metavar="NAME[,NAME...]", help="a defense stack to run every condition behind, besides no defense (repeatable: each stack is compared with no defense): spotlight[:datamark|delimit|encode], tool-filter[:K], policy-monitor, injection-detector, confirm-writes[:send]; see docs/defenses.md"),
    detector: Optional[str] = typer.Option(None, "--detector", metavar="SPEC", help="the injection-detector defense's model: openai:MODEL, anthropic:MODEL, model:NAME (from --models)"),
    output: OutputFormat = typer.Option("table", "--format", help=FORMAT_HELP),
    judge_specs: Optional[list[str]] = typer.Option(None, "--judge", metavar="SPEC", help="judge the attacked and safety trials after the run (as `clawarena judge` does), repeatable: openai:MODEL, anthropic:MODEL, model:NAME (from --models)"),
) -> None:
    """Run scenarios with agents; write runs/<run-id>/ and print a summary.

    Exits 1 when every trial ended in error (an unreachable model, say), 130 when interrupted.
    """
    from clawarena.llm.config import ModelConfigError
    from clawarena.runner.run import agent_options, check_endpoint_shares, check_executor, default_executor, default_workers, execute_run, plan_run, preflight
    from clawarena.runner.executors import EXECUTORS, ExecutorError
    from clawarena.runner.store import RunConfig, RunStore, RunStoreError
    from clawarena.spec.loader import SpecError

    # In json mode stdout carries the JSON only: everything for people goes to stderr.
    out: Console = err if output == "json" else console
    try:
        if resume is not None:
            try:
                store = RunStore.open(resume)
                config = store.config()
            except RunStoreError as exc:
                fail(f"--resume: {exc}")
            typed = dict(suite=suite, agent=agent, trials=trials, seed=seed, task=task, base_url=base_url, models=models,
                         run_id=run_id, runs_dir=runs_dir, skills=skills, meta=meta, conditions=conditions, policy_mode=policy_mode,
                         defense=defense, detector=detector)  # fmt: skip
            conflicts = resume_conflicts(ctx, config, resume, typed)
            if conflicts:
                fail("; ".join(conflicts) + " (--resume keeps the stored options; start a new run to change them)")
            if workers is not None:
                config = config.model_copy(update={"workers": workers})
            if max_concurrency != 1:
                config = config.model_copy(update={"max_concurrency": max_concurrency})
            if executor is not None:
                config = config.model_copy(update={"executor": executor})
        else:
            agents, roles = agents_and_roles(agent)
            config = RunConfig(
                suite=suite, agents=agents, roles=roles, policy_mode=policy_mode, evidence_events=evidence_events, trials=trials, seed=seed, workers=workers or default_workers(),
                max_concurrency=max_concurrency, executor=executor, tasks=split(task), base_url=base_url, models_file=str(models) if models else None,
                conditions=conditions_of(skills, meta, conditions, defense), detector=detector,
            )  # fmt: skip
        check_executor(config.executor)
        plan = plan_run(config)
        chosen = config.executor or default_executor(config, config.workers, len(plan.units))
        EXECUTORS[chosen](config.workers, address=address)  # a bad --address, or no ray, before a run folder exists
        check_endpoint_shares(config, chosen, config.workers)
        options = agent_options(config)
        preflight(config)
    except (SpecError, RunStoreError, KeyError, ModelConfigError, ValueError) as exc:
        fail(quoted(exc))
    judges = make_judges(split(judge_specs), models, base_url, attempts=3) if judge_specs else []
    if resume is None:
        writable_dir(runs_dir, "--runs-dir")
        try:
            store = RunStore.create(runs_dir, config, run_id)
        except OSError as exc:
            fail(f"--runs-dir: cannot create a run folder in {runs_dir}: {exc.strerror or exc}")
    else:
        writable_dir(store.root, "--resume")
    done = store.finished(repair=True, retry_errors=retry_errors) & {u.id for u in plan.units}
    out.print(f"run [bold]{store.run_id}[/]: {len(plan.units)} trial(s), {len(done)} already finished -> {store.root}", highlight=False, soft_wrap=True)
    # SIGTERM ends the run like Ctrl-C: in-flight trials finish, the rest is left for --resume.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    progress = progress_bar(out, transient=False)
    try:
        with progress:
            bar = progress.add_task("trials", total=len(plan.units), completed=len(done))
            records = execute_run(store, plan, workers=config.workers, on_record=lambda r: progress.advance(bar), options=options, retry_errors=retry_errors,
                                  evidence_events=config.evidence_events, executor=chosen, address=address, max_concurrency=config.max_concurrency)  # fmt: skip
    except KeyboardInterrupt:
        err.print(f"interrupted: finished trials are saved; resume with [bold]clawarena run --resume {store.root}[/]", highlight=False, soft_wrap=True)
        raise typer.Exit(130)
    except ExecutorError as exc:
        fail(f"--executor {chosen}: {exc}; finished trials are saved, resume with clawarena run --resume {store.root}", 1)
    except OSError as exc:  # the disk filled up or the folder went away mid-run
        fail(f"cannot write to the run folder {store.root}: {exc.strerror or exc}; finished trials are saved, resume with clawarena run --resume {store.root}", 1)
    judged = judge_after_run(store, judges, out) if judges else None
    if output == "json":
        print(summary_json(records, judged, run_id=store.run_id, root=str(store.root), trials=str(store.trials_path)))
    else:
        show_table(summary_table(records, judged_attack=judged))
        harnesses = harness_table(records)
        if harnesses is not None:
            show_table(harnesses)
        console.print(f"trials: {store.trials_path}", highlight=False, soft_wrap=True)
    errored = [r for r in records if r.outcome == "error"]
    if records and len(errored) == len(records):
        first = (errored[0].error or errored[0].termination or "?").strip().splitlines()[0][:300]
        fail(f"every trial ended in error (the first: {first}); see {store.trials_path}", 1)
