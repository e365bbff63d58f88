"""Rebuild a run folder's run.json from its trials.jsonl and the options given, so `--resume` works again.

Each record names its scenario, agent, condition, trial index and seed; the seed derives from the
run's base seed (`derive_seed`), so the base seed can be found again. What the records cannot tell
is asked for: the suite always; the task globs when the records cover only part of the suite (a
narrowed run and an interrupted one look alike). Agents, conditions and trials come from the
records unless given (given ones must include every recorded one). Anything that does not fit is
refused with one line naming the option.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

from clawarena.records import TrialRecord
from clawarena.runner.store import RunConfig, RunStore, RunStoreError
from clawarena.runner.units import derive_seed

# Base seeds tried when --seed is not given: every seed a person types, in well under a second.
SEED_SEARCH = range(0, 100_000)


class RecoverError(RunStoreError):
    pass


@dataclass
class RecoverOptions:
    """The options of `clawarena runs recover`: None means "infer it from the records"."""

    suite: str
    agents: list[str] | None = None
    conditions: list[str] | None = None
    trials: int | None = None
    seed: int | None = None
    tasks: list[str] | None = None
    base_url: str | None = None
    models_file: str | None = None
    workers: int = 1


@dataclass
class Recovered:
    config: RunConfig
    records: int
    inferred: list[str] = field(default_factory=list)  # the config fields taken from the records


def _ordered(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


def _superset(flag: str, given: list[str] | None, recorded: list[str], what: str) -> list[str]:
    if given is None:
        return recorded
    missing = [v for v in recorded if v not in given]
    if missing:
        raise RecoverError(f"{flag}: the records hold {what} {', '.join(missing)}, which {flag} leaves out")
    return given


def infer_seed(records: list[TrialRecord], given: int | None) -> int:
    """The base seed every record's seed derives from (checked against all of them)."""
    def fits(base: int) -> TrialRecord | None:
        return next((r for r in records if derive_seed(base, r.scenario_id, r.trial) != r.seed), None)

    if given is not None:
        bad = fits(given)
        if bad is not None:
            raise RecoverError(f"--seed: record {bad.unit_id} has seed {bad.seed}, which does not derive from base seed {given}")
        return given
    first = records[0]
    for base in SEED_SEARCH:
        if derive_seed(base, first.scenario_id, first.trial) == first.seed and fits(base) is None:
            return base
    raise RecoverError(f"--seed: the records' seeds derive from no base seed in {SEED_SEARCH.start}..{SEED_SEARCH.stop - 1}; pass --seed N as the run was made")


def rebuild_config(store: RunStore, options: RecoverOptions) -> Recovered:
    """The run's config from its records and `options`; RecoverError says what cannot be inferred."""
    from clawarena.runner.run import plan_run
    from clawarena.spec.loader import load_suite

    records = store.records()
    if not records:
        raise RecoverError(f"{store.trials_path}: no trial records to rebuild run.json from")
    if any(r.extra.get("session") for r in records):
        raise RecoverError(f"{store.root}: a served session's run folder (serve/mcp) is scored once and never resumed; nothing to recover")
    inferred: list[str] = []
    # A record's `agent` is the unit's label (`oracle+buyer=openai:m`): the plain agent, then its roles.
    agents = _superset("--agent", options.agents, _ordered([r.agent.split("+", 1)[0] for r in records]), "agent(s)")
    roles = {role: spec for r in records for role, spec in sorted(r.roles.items())}
    modes = sorted({r.policy_mode for r in records})
    if len(modes) > 1:
        raise RecoverError(f"the records were made with policy modes {', '.join(modes)}: one run has one --policy-mode")
    conditions = _superset("--conditions", options.conditions, _ordered([r.condition for r in records]), "condition(s)")
    recorded_trials = max(r.trial for r in records) + 1
    if options.trials is not None and options.trials < recorded_trials:
        raise RecoverError(f"--trials: the records hold trial index {recorded_trials - 1}, so the run had at least {recorded_trials} trials")
    inferred += [name for name, given in (("agents", options.agents), ("conditions", options.conditions), ("trials", options.trials)) if given is None]
    suite_ids = [s.id for s in load_suite(options.suite)]
    unknown = sorted({r.scenario_id for r in records} - set(suite_ids))
    if unknown:
        raise RecoverError(f"--suite: the records name scenario(s) not in suite {options.suite!r}: {', '.join(unknown[:3])}")
    tasks = options.tasks
    if tasks is None:
        covered = {r.scenario_id for r in records}
        if covered != set(suite_ids):
            raise RecoverError(
                f"--task: the records cover {len(covered)} of the suite's {len(suite_ids)} scenarios, so the run's task globs "
                "cannot be told apart from an interrupted run; pass --task GLOB as the run was made (--task '*' for the whole suite)"
            )
        tasks = []
        inferred.append("tasks")
    seed = infer_seed(records, options.seed)
    if options.seed is None:
        inferred.append("seed")
    config = RunConfig(
        suite=options.suite, agents=agents, trials=options.trials or recorded_trials, seed=seed, workers=options.workers,
        tasks=[] if tasks == ["*"] else tasks, conditions=conditions, base_url=options.base_url, models_file=options.models_file,
        roles=roles, policy_mode=modes[0],
    )  # fmt: skip
    planned = {u.id for u in plan_run(config).units}
    stray = next((r for r in records if r.unit_id not in planned), None)
    if stray is not None:
        raise RecoverError(f"--task: record {stray.unit_id} is not a trial of the rebuilt run; pass --task globs that include {stray.scenario_id}")
    return Recovered(config, len(records), inferred)


def recover_run(store: RunStore, options: RecoverOptions) -> Recovered:
    """Write run.json from the records; an existing readable run.json is never overwritten."""
    meta_path = store.root / "run.json"
    if meta_path.is_file():
        try:
            store.config()
        except RunStoreError:
            pass  # unreadable: rebuilt below, the old one kept beside it
        else:
            raise RecoverError(f"{meta_path} exists and is readable: nothing to recover (`clawarena run --resume {store.root}`)")
    recovered = rebuild_config(store, options)
    if meta_path.is_file():
        meta_path.replace(meta_path.with_name("run.json.corrupt"))
    now = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    store.traces.mkdir(exist_ok=True)
    store.write_meta(recovered.config, created=now, recovered={"at": now, "records": recovered.records, "inferred": recovered.inferred})
    return recovered
