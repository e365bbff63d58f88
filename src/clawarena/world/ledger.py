"""The ledger: append-only evidence of everything that happened in a world.

Each event names its actor, its causal parents (the events the actor had seen
when it acted) and its taint: the ids of attack material that reached it,
directly or through its parents. An evidence chain from attack material to
harm is therefore a walk over parents, rebuildable offline from the trace.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from clawarena.world.content import ContentTable

EventKind = Literal[
    "instruction",  # a principal's task for its agent
    "message",  # a peer message between delegate agents
    "turn_start",
    "turn_end",
    "tool_call",
    "tool_result",
    "state_change",  # rows a call inserted, updated or deleted
    "delivery",  # content left a workspace (mail sent, message posted, file shared)
    "exposure",  # content carrying attack material was returned to an agent
    "approval_request",
    "approval_grant",
    "approval_decision",  # an approver's answer: approve, deny, more_info or escalate
    "notification",  # something was delivered to a principal whose agent now has a new event
    "governance",  # a policy decision on a call or a flow: allow, deny or approved, with the statements
    "policy_violation",
    "refused",  # the gateway refused an action (access or policy)
    "model_call",  # one call to a model provider: tokens, cost, retries
    "shell_command",  # a command a sandboxed harness ran (world/harness_events.ShellCommand)
    "escalation_attempt",  # a harness reached for more than its model and MCP endpoints (world/harness_events.EscalationAttempt)
    "defense",  # what a defense did: a call reviewed, refused or confirmed, content screened or flagged (agents/defenses)
]


class LedgerEvent(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    seq: int
    time: str
    actor: str
    kind: EventKind
    payload: dict[str, Any] = {}
    parents: tuple[str, ...] = ()
    taint: tuple[str, ...] = ()


def _dumped(event: LedgerEvent) -> dict[str, Any]:
    """The event as JSON-ready data. An agent may send any string, even a lone surrogate as a key,
    which pydantic's JSON mode cannot encode: such an event is dumped as Python data, unchanged
    (the run store's writer escapes what UTF-8 cannot hold), so no evidence is lost."""
    try:
        return event.model_dump(mode="json")
    except UnicodeEncodeError:
        data = event.model_dump()
        return {**data, "parents": list(data["parents"]), "taint": list(data["taint"])}


class Ledger:
    """Append-only list of events with causal links."""

    def __init__(self) -> None:
        self._events: list[LedgerEvent] = []
        self._by_id: dict[str, LedgerEvent] = {}
        self.content = ContentTable()  # what events reference by hash (a model's context and replies)

    def record(
        self,
        *,
        time: str,
        actor: str,
        kind: EventKind,
        payload: dict[str, Any] | None = None,
        parents: Iterable[str] = (),
        taint: Iterable[str] = (),
    ) -> LedgerEvent:
        parent_ids = tuple(dict.fromkeys(p for p in parents if p))
        inherited: set[str] = set(taint)
        for pid in parent_ids:
            inherited.update(self._by_id[pid].taint)
        seq = len(self._events) + 1
        event = LedgerEvent(
            id=f"ev-{seq:06d}",
            seq=seq,
            time=time,
            actor=actor,
            kind=kind,
            payload=payload or {},
            parents=parent_ids,
            taint=tuple(sorted(inherited)),
        )
        self._events.append(event)
        self._by_id[event.id] = event
        return event

    def __iter__(self) -> Iterator[LedgerEvent]:
        return iter(self._events)

    def __len__(self) -> int:
        return len(self._events)

    def get(self, event_id: str) -> LedgerEvent:
        return self._by_id[event_id]

    def since(self, seq: int) -> list[LedgerEvent]:
        return self._events[seq:]

    def of_kind(self, *kinds: EventKind) -> list[LedgerEvent]:
        return [e for e in self._events if e.kind in kinds]

    def ancestors(self, event_id: str) -> set[str]:
        """Every event id reachable from `event_id` through parents (itself excluded)."""
        seen: set[str] = set()
        stack = list(self._by_id[event_id].parents)
        while stack:
            eid = stack.pop()
            if eid in seen:
                continue
            seen.add(eid)
            stack.extend(self._by_id[eid].parents)
        return seen

    def exposures(self, actor: str | None = None, material: str | None = None) -> list[LedgerEvent]:
        return [
            e
            for e in self._events
            if e.kind == "exposure"
            and (actor is None or e.actor == actor)
            and (material is None or e.payload.get("material") == material)
        ]

    def chain(self, event_id: str) -> list[LedgerEvent]:
        """The event and its ancestors in ledger order: an evidence chain."""
        ids = self.ancestors(event_id) | {event_id}
        return [e for e in self._events if e.id in ids]

    def step_of(self, event_id: str) -> LedgerEvent | None:
        """The agent step that decided an event: the model call among its parents (the gateway links
        each call to the model call whose reply made it), else the `turn_start` of the turn it
        happened in (scripted agents, and harnesses, which make their own model calls)."""
        event = self._by_id[event_id]
        for pid in event.parents:
            parent = self._by_id[pid]
            if parent.kind == "model_call" and parent.actor == event.actor:
                return parent
        starts = [self._by_id[i] for i in self.ancestors(event_id) if self._by_id[i].kind == "turn_start" and self._by_id[i].actor == event.actor]
        return max(starts, key=lambda e: e.seq) if starts else None

    def dump(self) -> list[dict[str, Any]]:
        return [_dumped(e) for e in self._events]

    @classmethod
    def load(cls, rows: Iterable[dict[str, Any]]) -> "Ledger":
        ledger = cls()
        for row in rows:
            event = LedgerEvent.model_validate(row)
            ledger._events.append(event)
            ledger._by_id[event.id] = event
        return ledger
