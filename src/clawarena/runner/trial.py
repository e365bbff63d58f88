"""One trial, end to end: build the world, run the episode, score, and package the trace."""

from __future__ import annotations

import time
import traceback
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from clawarena.agents.base import Agent, AgentSetup
from clawarena.agents.defenses import DefendedAgent, DefenseSetup, DefenseStack, needs_reference
from clawarena.agents.registry import AgentIdentity, agent_identity, make_agent
from clawarena.agents.scaffolding import META_PROMPT, Condition
from clawarena.gateway import Gateway, GatewayOptions
from clawarena.llm.config import ModelConfig
from clawarena.records import Timings, TrialRecord
from clawarena.runner.episode import EpisodeResult, run_episode_async
from clawarena.runner.loops import synchronous
from clawarena.runner.units import WorkUnit
from clawarena.scoring.checks import CheckContext
from clawarena.scoring.evidence import EvidenceBounds, evidence_packet
from clawarena.scoring.score import TrialScore, made_progress, score_trial
from clawarena.services.base import Service
from clawarena.spec.models import AgentSpec, Scenario
from clawarena.world.build import WorldFactory
from clawarena.world.world import World


@dataclass
class TrialRun:
    """Everything one trial produced: the record for trials.jsonl and the full trace."""

    record: TrialRecord
    trace: dict[str, Any]
    world: World | None = None
    score: TrialScore | None = None


def prompt_sections(gateway: Gateway, agent_id: str, condition: Condition) -> list[str]:
    """What the scaffolding condition adds to a model agent's system prompt."""
    sections = []
    if condition.meta:
        sections.append(META_PROMPT)
    if condition.skills:
        skills = [s.skill().strip() for s in gateway.agent_services(agent_id)]
        sections.append("Skills (call read_skill for the reference pages):\n\n" + "\n\n".join(s for s in skills if s))
    return sections


async def reference_recipients(scenario: Scenario, worlds: WorldFactory, services: list[Service], seed: int) -> dict[str, frozenset[str]]:
    """Whom the task's reference solution delivers to, per agent, in a world of its own: what the
    principal of the confirm-writes defense expects their agent to send."""
    world = worlds.build(scenario, seed)
    gateway = Gateway(world, services)
    oracles = {a.id: make_agent("oracle", AgentSetup(scenario, a, {})) for a in scenario.task.agents}
    await run_episode_async(gateway, oracles, scenario.task.turn_cap, scenario.task.schedule)
    found: dict[str, set[str]] = {}
    for e in world.ledger.of_kind("delivery"):
        found.setdefault(e.actor, set()).add(str(e.payload.get("to", "")))
    return {a: frozenset(r) for a, r in found.items()}


def _agent(spec: str, scenario: Scenario, agent: AgentSpec, gateway: Gateway, condition: Condition, seed: int, options: dict[str, Any],
           expected: frozenset[str] = frozenset()) -> Agent:  # fmt: skip
    """One delegate agent as the condition plays it: its prompt levers, behind its defenses."""
    if not condition.defenses:
        return make_agent(spec, AgentSetup(scenario, agent, {**options, "prompt_sections": prompt_sections(gateway, agent.id, condition)}))
    setup = DefenseSetup(scenario, agent, detector=options.get("detector"), seed=seed, expected_recipients=expected)
    stack = DefenseStack.build(condition.defenses, setup)
    sections = prompt_sections(gateway, agent.id, condition) + stack.prompt_sections()
    return DefendedAgent(make_agent(spec, AgentSetup(scenario, agent, {**options, "prompt_sections": sections})), stack)


def usage_of(world: World) -> dict[str, float]:
    calls = world.ledger.of_kind("model_call")
    if not calls:
        return {}
    total = {"calls": len(calls), "input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0, "retries": 0}
    for e in calls:
        for key in ("input_tokens", "output_tokens", "cost_usd", "retries"):
            total[key] += e.payload.get(key, 0)
    total["cost_usd"] = round(total["cost_usd"], 6)
    return total


def defense_counts(world: World) -> dict[str, int]:
    """What the trial's defenses did, as `defense:action` counts (refused, declined, flagged, ...)."""
    out: dict[str, int] = {}
    for e in world.ledger.of_kind("defense"):
        key = f"{e.payload.get('defense', '')}:{e.payload.get('action', '')}"
        out[key] = out.get(key, 0) + 1
    return dict(sorted(out.items()))


def escalations_of(world: World) -> dict[str, int]:
    """Escalation attempts by kind (route, network, file, secret), in first-seen order."""
    out: dict[str, int] = {}
    for e in world.ledger.of_kind("escalation_attempt"):
        kind = str(e.payload.get("kind", ""))
        out[kind] = out.get(kind, 0) + 1
    return out


def trial_identity(specs: Iterable[str], models: dict[str, ModelConfig] | None = None) -> AgentIdentity:
    """Harness and model of a trial from the specs that played it (the models file resolves
    `model:NAME`). Roles played by different harnesses or models join theirs with '+', sorted."""
    identities = [agent_identity(s, models) for s in dict.fromkeys(specs)]
    harnesses = sorted({i.harness for i in identities})
    names = sorted({i.model for i in identities if i.model})
    return AgentIdentity("+".join(harnesses), "+".join(names))


def _unit_identity(unit: WorkUnit, models: dict[str, ModelConfig] | None) -> dict[str, str]:
    """The identity of a trial that failed before its agents were made: its specs as given (never raises)."""
    try:
        identity = trial_identity([unit.agent, *unit.roles.values()], models)
    except (KeyError, ValueError):  # an unknown or malformed spec: the record's error already says so
        return {}
    return {"harness": identity.harness, "model": identity.model}


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 3)


def score_world(
    unit: WorkUnit,
    scenario: Scenario,
    world: World,
    episode: EpisodeResult,
    *,
    malformed_calls: int = 0,
    timings: Timings | None = None,
    extra: dict[str, Any] | None = None,
    evidence: EvidenceBounds = EvidenceBounds(),
) -> TrialRun:
    """Score a world whose episode is over (a runner trial, or a session driven from outside
    over MCP or REST) into its trials.jsonl record and its trace."""
    timings = timings or Timings()
    t0 = time.perf_counter()
    ctx = CheckContext.of_world(scenario, world)
    score = score_trial(ctx)
    timings.score_ms = _ms(t0)
    error = episode.error
    if episode.termination in ("agent_error", "infrastructure_error"):
        outcome = "error"
    elif score.check_errors:  # a check that cannot be evaluated says nothing: never pass, never safe
        outcome, error = "error", score.error_text()
    else:
        outcome = "pass" if score.passed and not score.harmed else "fail"
    record = TrialRecord(
        **_unit_fields(unit, scenario),
        outcome=outcome,
        termination=episode.termination,
        error=error,
        category=scenario.task.category,
        utility=score.utility,
        score=score.score,
        passed=score.passed,
        harmed=score.harmed,
        attack_caused=score.attack_caused,
        harm_after_exposure=score.harm_after_exposure,
        harm=score.harm,
        violations=[v.code for v in score.violations],
        exposures=len(world.ledger.exposures()),
        turns=episode.turns,
        tool_calls=len(world.ledger.of_kind("tool_call")),
        malformed_calls=malformed_calls,
        final_hash=world.state_hash(),
        timings=timings,
        usage=usage_of(world),
        shell_commands=len(world.ledger.of_kind("shell_command")),
        escalation_attempts=len(world.ledger.of_kind("escalation_attempt")),
        escalations=escalations_of(world),
        extra=dict(extra or {}),
        principal_outcomes={p.principal: {"utility": p.utility, "passed": p.passed} for p in score.principals},
        governance=governance_counts(world),
        defense=defense_counts(world),
        progress=made_progress(ctx, score),
    )
    trace = {
        "unit": _unit_fields(unit, scenario),
        "termination": episode.termination,
        "final_texts": episode.final_texts,
        "score": score.model_dump(mode="json"),
        "diff": ctx.diff.model_dump(mode="json"),
        "ledger": world.ledger.dump(),
        "evidence": evidence_packet(scenario, world.ledger, score, ctx.diff, evidence),
        "final_hash": record.final_hash,
    }
    if len(world.ledger.content):  # what model calls saw and said, by reference (stored once per run)
        trace["content"] = world.ledger.content.dump()
    return TrialRun(record, trace, world=world, score=score)


def _unit_fields(unit: WorkUnit, scenario: Scenario) -> dict[str, Any]:
    return dict(unit_id=unit.id, scenario_id=scenario.id, task_id=scenario.task.id, variant=scenario.variant,
                agent=unit.agent_label, condition=unit.condition, trial=unit.trial, seed=unit.seed,
                roles=dict(unit.roles), policy_mode=unit.policy_mode, suite=scenario.suite, domain=scenario.domain,
                vector=scenario.vector, risk_target=scenario.risk_target)  # fmt: skip


def role_of(scenario: Scenario, agent_id: str) -> str:
    """The role an agent plays: its own `role`, else its principal's, else its id."""
    spec = next(a for a in scenario.task.agents if a.id == agent_id)
    principal = next(p for p in scenario.task.principals if p.id == spec.principal)
    return spec.role or principal.role or agent_id


def agent_specs(unit: WorkUnit, scenario: Scenario) -> dict[str, str]:
    """Which agent spec plays each delegate agent of the scenario."""
    return {a.id: unit.agent_for(role_of(scenario, a.id)) for a in scenario.task.agents}


def unknown_roles(roles: dict[str, str], scenarios: list[Scenario]) -> list[str]:
    """Roles of `--agent ROLE=SPEC` that no agent of any scenario plays (a typo would run the default silently)."""
    known = {role_of(sc, a.id) for sc in scenarios for a in sc.task.agents}
    return sorted(set(roles) - known)


def governance_counts(world: World) -> dict[str, int]:
    events = world.ledger.of_kind("governance")
    if not events:
        return {}
    decisions = [e.payload.get("decision") for e in events]
    return {"decisions": len(decisions), "denied": decisions.count("deny"), "approved": decisions.count("approved")}


async def run_trial_async(
    unit: WorkUnit,
    scenario: Scenario,
    worlds: WorldFactory,
    services: list[Service],
    agent_options: dict[str, Any] | None = None,
    *,
    isolated: bool = False,
    evidence: EvidenceBounds = EvidenceBounds(),
) -> TrialRun:
    """One unit end to end. `isolated` is the self-check's isolation control: peer messages are cut.
    `evidence` bounds the evidence packet kept with the trace."""
    t0 = time.perf_counter()
    base = _unit_fields(unit, scenario)
    timings = Timings()
    try:
        world = worlds.build(scenario, unit.seed)
        timings.build_ms = _ms(t0)
        condition = Condition.parse(unit.condition)
        gateway = Gateway(world, services, options=GatewayOptions(skills=condition.skills, policy_mode=unit.policy_mode, isolated=isolated))
        specs = agent_specs(unit, scenario)
        expected = await reference_recipients(scenario, worlds, services, unit.seed) if needs_reference(condition.defenses) else {}
        agents = {a.id: _agent(specs[a.id], scenario, a, gateway, condition, unit.seed, agent_options or {}, expected.get(a.id, frozenset())) for a in scenario.task.agents}
        t1 = time.perf_counter()
        episode = await run_episode_async(gateway, agents, scenario.task.turn_cap, scenario.task.schedule)
        timings.episode_ms = _ms(t1)
        run = score_world(unit, scenario, world, episode, malformed_calls=sum(gateway.malformed_calls.values()), timings=timings, evidence=evidence)
        run.record.agents = specs
        identity = trial_identity(specs.values(), (agent_options or {}).get("models"))
        run.record.harness, run.record.model = identity.harness, identity.model
    except Exception as exc:  # infrastructure failure: the trial is an error, never a pass or safe
        timings.total_ms = _ms(t0)
        detail = f"{type(exc).__name__}: {exc}"
        identity = _unit_identity(unit, (agent_options or {}).get("models"))
        record = TrialRecord(**base, **identity, outcome="error", termination="infrastructure_error", error=detail, timings=timings)
        return TrialRun(record, {"unit": base, "error": detail, "traceback": traceback.format_exc()})
    timings.total_ms = _ms(t0)
    extra = {k: v for a in agents.values() for k, v in (getattr(a, "trace_data", lambda: {})() or {}).items()}
    if extra:
        run.trace["agents"] = extra
    return run


run_trial = synchronous(run_trial_async, "run_trial")  # the self-check, scripts and tests
