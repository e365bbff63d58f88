"""Hand-written trajectories against the bundled suites: what an imperfect agent would plausibly
do, replayed by the oracle through the real runner and scorer (no model).

A red-team test names a scenario, builds a trajectory from its reference (drop, replace or add
calls) or writes one from scratch, and asserts the verdict: a shortcut or wrong answer fails
utility, a harmful route is flagged (and attributed only when the attack caused it), an
alternative legitimate route still passes.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable
from dataclasses import dataclass
from email.message import EmailMessage
from functools import lru_cache
from typing import Any

from clawarena.runner.mutants import with_reference
from clawarena.runner.trial import TrialRun, run_trial
from clawarena.runner.units import WorkUnit
from clawarena.services import services, world_factory
from clawarena.spec.loader import load_suite
from clawarena.spec.models import Scenario, ToolCall

Call = dict[str, Any]


@lru_cache(maxsize=None)
def _suite(name: str) -> dict[str, Scenario]:
    return {s.id: s for s in load_suite(name)}


def scenario(scenario_id: str, suite: str = "workspace") -> Scenario:
    return _suite(suite)[scenario_id]


def reference(s: Scenario, agent: str | None = None) -> list[Call]:
    """The scenario's reference calls of one agent (default: the only one), as plain dicts."""
    agent = agent or _only_agent(s)
    return [c.model_dump(exclude_defaults=True) for c in s.task.reference.get(agent, [])]


def _only_agent(s: Scenario) -> str:
    (agent,) = [a.id for a in s.task.agents]
    return agent


def without(calls: list[Call], *tools_or_indexes: str | int) -> list[Call]:
    """The calls minus the given indexes, or minus every call of the given tools."""
    return [c for i, c in enumerate(calls) if i not in tools_or_indexes and c["tool"] not in tools_or_indexes]


def replacing(calls: list[Call], index: int, **updates: Any) -> list[Call]:
    """A copy with call `index` changed: `tool=...` and/or `args=...` (args are merged in)."""
    out = [dict(c) for c in calls]
    call = out[index]
    if "args" in updates:
        call["args"] = {**call.get("args", {}), **updates.pop("args")}
    call.update(updates)
    return out


@dataclass(frozen=True)
class Verdict:
    run: TrialRun

    @property
    def passed(self) -> bool:
        return self.run.record.passed

    @property
    def utility(self) -> float:
        return self.run.record.utility

    @property
    def codes(self) -> set[str]:
        return {v.code for v in self.run.score.violations} if self.run.score else set()

    @property
    def attributed(self) -> set[str]:
        return {v.code for v in self.run.score.violations if v.attributed} if self.run.score else set()

    @property
    def clean_pass(self) -> bool:
        """Utility passed, no harm, nothing errored: what a correct trajectory must get."""
        return self.run.record.outcome == "pass"

    def explain(self) -> str:
        r = self.run
        if r.score is None:
            return f"no score: {r.record.error}"
        failed = [o.describe() for o in r.score.checks if not o.passed]
        harms = [f"{v.code} (attributed={v.attributed}): {v.detail}" for v in r.score.violations]
        return f"outcome={r.record.outcome} utility={r.record.utility:.2f} failed={failed} harm={harms} error={r.record.error}"


def replay(s: Scenario, calls: Iterable[Call] | dict[str, Iterable[Call]]) -> Verdict:
    """Run the oracle with `calls` (one agent's list, or {agent id: list}) instead of the reference."""
    by_agent = calls if isinstance(calls, dict) else {_only_agent(s): calls}
    trajectory = {a: [ToolCall.model_validate(c) for c in cs] for a, cs in by_agent.items()}
    unit = WorkUnit(scenario_id=s.id, agent="oracle", trial=0, seed=0)
    return Verdict(run_trial(unit, with_reference(s, trajectory), world_factory(), services()))


# ---- mail, as trajectories write it ------------------------------------------------------------------
def raw_mail(
    to: list[str] | str,
    subject: str,
    body: str,
    *,
    cc: list[str] | None = None,
    in_reply_to: str | None = None,
    attachment: tuple[str, str] | None = None,
) -> str:
    """An RFC 2822 message as Gmail's `raw` field carries it (base64url); `attachment` is (name, text)."""
    msg = EmailMessage()
    msg["To"] = to if isinstance(to, str) else ", ".join(to)
    if cc:
        msg["Cc"] = ", ".join(cc)
    msg["Subject"] = subject
    if in_reply_to:
        msg["In-Reply-To"] = in_reply_to
        msg["References"] = in_reply_to
    msg.set_content(body)
    if attachment is not None:
        name, text = attachment
        msg.add_attachment(text.encode(), maintype="text", subtype="plain", filename=name)
    return base64.urlsafe_b64encode(msg.as_bytes()).decode()


def send(to: list[str], subject: str, body: str, **extra: Any) -> Call:
    """A gmail_send_email call."""
    return {"tool": "gmail_send_email", "args": {"to": to, "subject": subject, "body": body, **extra}}
