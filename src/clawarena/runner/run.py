"""Plan a run into work units, execute the unfinished ones, and store each result as it lands."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from clawarena.agents.registry import SCRIPTED_HARNESS, agent_kind, agent_model
from clawarena.agents.scaffolding import Condition
from clawarena.llm.config import ModelConfig, ModelConfigError, load_models, resolve
from clawarena.llm.preflight import check_endpoint
from clawarena.records import TrialRecord
from clawarena.runner.executors import EXECUTORS
from clawarena.runner.store import RunConfig, RunStore
from clawarena.runner.trial import role_of, run_trial_async, unknown_roles
from clawarena.runner.units import WorkUnit, derive_seed
from clawarena.scoring.evidence import EvidenceBounds
from clawarena.services import services, world_factory
from clawarena.spec.loader import SpecError, load_suite
from clawarena.spec.models import Scenario


@dataclass
class RunPlan:
    scenarios: dict[str, Scenario]
    units: list[WorkUnit]


def select_scenarios(scenarios: list[Scenario], patterns: list[str]) -> list[Scenario]:
    if not patterns:
        return scenarios
    chosen = [s for s in scenarios if any(fnmatch.fnmatchcase(s.id, p) or fnmatch.fnmatchcase(s.task.id, p) for p in patterns)]
    if not chosen:
        raise SpecError([f"--task: no scenario matches {patterns} (ids look like {scenarios[0].id!r})"])
    return chosen


def _all_agents(config: RunConfig) -> list[str]:
    """Every agent spec a run uses: the plain agents and those assigned to roles."""
    return list(dict.fromkeys([*config.agents, *config.roles.values()]))


def plan_run(config: RunConfig) -> RunPlan:
    models = load_models(config.models_file) if config.models_file else None
    for agent in _all_agents(config):
        kind = agent_kind(agent)
        try:
            agent_model(agent, models, config.base_url)  # fail before the run starts, naming the flag
            if kind.check is not None:
                kind.check()  # e.g. the harness is installed
        except ValueError as exc:
            raise ModelConfigError(str(exc)) from None
    scenarios = select_scenarios(load_suite(config.suite), config.tasks)
    unknown = unknown_roles(config.roles, scenarios)
    if unknown:
        known = sorted({role_of(s, a.id) for s in scenarios for a in s.task.agents})
        raise SpecError([f"--agent: no delegate agent plays role {unknown[0]!r} in the selected scenarios (roles: {', '.join(known)})"])
    parsed = [Condition.parse(c) for c in config.conditions]
    if config.detector is None and any(d.split(":")[0] == "injection-detector" for c in parsed for d in c.defenses):
        raise ModelConfigError("--defense injection-detector needs a detector model: --detector openai:MODEL (or anthropic:MODEL, model:NAME)")
    conditions = [c.id for c in parsed]
    units = [
        WorkUnit(
            scenario_id=s.id, agent=agent, condition=cond, trial=t, seed=derive_seed(config.seed, s.id, t),
            roles={r: spec for r, spec in config.roles.items() if r in {role_of(s, a.id) for a in s.task.agents}}, policy_mode=config.policy_mode,
        )  # fmt: skip
        for agent in config.agents
        for cond in conditions
        for s in scenarios
        for t in range(config.trials)
    ]
    return RunPlan({s.id: s for s in scenarios}, units)


def model_endpoints(config: RunConfig) -> dict[str, ModelConfig]:
    """The model config behind each agent that calls a model (model agents and harnesses such as
    OpenClaw), by agent name."""
    models = load_models(config.models_file) if config.models_file else None
    out: dict[str, ModelConfig] = {}
    for agent in _all_agents(config):
        model = agent_model(agent, models, config.base_url)
        if model is not None:
            out[agent] = model
    if config.detector:
        out[f"--detector {config.detector}"] = detector_model(config, models)
    return out


def preflight(config: RunConfig, check: Callable[[ModelConfig, str], None] = check_endpoint) -> None:
    """Fail before any trial when a model agent's key is missing or its endpoint does not answer
    (llm.preflight.EndpointUnavailable, one line). Each distinct endpoint is probed once."""
    seen: set[tuple[str, str | None, str | None]] = set()
    for agent, model in model_endpoints(config).items():
        key = (model.provider, model.base_url, model.api_key_env)
        if key not in seen:
            seen.add(key)
            check(model, agent)


def detector_model(config: RunConfig, models: dict[str, ModelConfig] | None) -> ModelConfig:
    """The injection-detector defense's model endpoint (`--detector`); errors name the flag."""
    try:
        return resolve(str(config.detector).strip(), models, config.base_url)
    except ModelConfigError as exc:
        raise ModelConfigError(str(exc).replace("--agent", "--detector", 1)) from None


def agent_options(config: RunConfig) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if config.base_url:
        options["base_url"] = config.base_url
    if config.models_file:
        options["models"] = load_models(config.models_file)
    if config.detector:
        options["detector"] = detector_model(config, options.get("models"))
    return options


# Below this many trials a process pool's start-up (a forkserver importing clawarena) costs more than it saves.
POOL_MIN_TRIALS = 48


def default_workers() -> int:
    """The cores this process may run on (a container's or taskset's limit, not the machine's)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def default_executor(config: RunConfig, workers: int, trials: int | None = None) -> str:
    """`process` for several workers when every agent is scripted (CPU-bound, the GIL would serialise
    threads) and the run has `POOL_MIN_TRIALS` trials or more; else `thread`: model agents wait on
    the network, and one process's event loop holds many waits."""
    scripted = all(agent_kind(a).harness == SCRIPTED_HARNESS for a in _all_agents(config))  # CPU-bound: worker processes help
    big_enough = trials is None or trials >= POOL_MIN_TRIALS
    return "process" if workers > 1 and scripted and big_enough else "thread"


def check_executor(name: str | None) -> None:
    if name is not None and name not in EXECUTORS:
        raise ValueError(f"--executor: unknown executor {name!r} (known: {', '.join(EXECUTORS.names())})")


# Executors whose workers are separate processes: each gets an equal part of an endpoint's limit.
SPLIT_LIMIT_EXECUTORS = ("process", "ray")


def limit_sharers(executor: str, workers: int) -> int:
    """How many workers share each model endpoint's `max_concurrency` (one loop holds a thread run's trials)."""
    return workers if executor in SPLIT_LIMIT_EXECUTORS else 1


def check_endpoint_shares(config: RunConfig, executor: str, workers: int) -> None:
    """Refuse worker processes that could not each have a call slot of an endpoint, rather than
    exceed the endpoint's limit (the limit is split between processes, not locked across them)."""
    sharers = limit_sharers(executor, workers)
    for agent, model in model_endpoints(config).items():
        if model.max_concurrency < sharers:
            raise ValueError(
                f"--workers: {workers} {executor} workers would exceed the max_concurrency of {model.max_concurrency} "
                f"of {agent}'s endpoint (each worker gets an equal part); use --workers {model.max_concurrency} or fewer "
                f"with --max-concurrency for more trials per worker, or raise max_concurrency in the models file"
            )


@dataclass
class TrialJob:
    """One trial per work unit, picklable: it travels once to each worker process, which builds its
    own services and worlds in `setup`. It returns the record and the trace; the caller writes both."""

    scenarios: dict[str, Scenario]
    options: dict[str, Any] | None
    evidence: EvidenceBounds
    _built: tuple[Any, Any] | None = field(default=None, repr=False)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_built": None}  # worlds stay where they were built

    def setup(self) -> None:
        if self._built is None:
            self._built = (world_factory(), services())

    def affinity(self, unit: WorkUnit) -> str:
        return unit.scenario_id  # a worker builds each scenario's world template once, then reuses it

    async def acall(self, unit: WorkUnit) -> tuple[TrialRecord, dict[str, Any]]:
        self.setup()
        worlds, service_list = self._built  # type: ignore[misc]
        result = await run_trial_async(unit, self.scenarios[unit.scenario_id], worlds, service_list, self.options, evidence=self.evidence)
        return result.record, result.trace


def execute_run(
    store: RunStore,
    plan: RunPlan,
    workers: int = 1,
    on_record: Callable[[TrialRecord], None] | None = None,
    executor: str = "thread",
    options: dict[str, Any] | None = None,
    retry_errors: bool = False,
    evidence_events: int = 200,
    address: str | None = None,
    max_concurrency: int = 1,
) -> list[TrialRecord]:
    """Run every unit not already in trials.jsonl (and errored ones with `retry_errors`); return the run's records.
    This process is the one writer: each trace, then its record, as the trial comes back.
    Each worker holds up to `max_concurrency` trials at once on its event loop."""
    done = store.finished(repair=True, retry_errors=retry_errors)
    todo = [u for u in plan.units if u.id not in done]
    if not todo:
        return _records_of(store, plan)
    needed = {u.scenario_id for u in todo}  # a worker receives only the scenarios it may run
    options = {**(options or {}), "endpoint_workers": limit_sharers(executor, workers)}
    job = TrialJob({k: v for k, v in plan.scenarios.items() if k in needed}, options, EvidenceBounds(max_events=evidence_events))
    stems = {u.id: u.file_stem for u in todo}
    for record, trace in EXECUTORS[executor](workers, address=address, concurrency=max_concurrency).map_unordered(job, todo):
        record.trace = store.write_trace(stems[record.unit_id], trace)
        store.append(record)
        if on_record is not None:
            on_record(record)
    return _records_of(store, plan)


def _records_of(store: RunStore, plan: RunPlan) -> list[TrialRecord]:
    wanted = {u.id for u in plan.units}
    return [r for r in store.records() if r.unit_id in wanted]
