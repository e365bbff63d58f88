"""The evidence packet of a trial: a bounded slice of the ledger around what matters, with the
scenario's and attacks' metadata and the final diff. Judges (issue 4/9) read only this.

Anchors are the exposures to attack material, the governance decisions that denied or needed
an approval, and the evidence of every violation; each anchor brings its direct parents and the
`window` events its actor recorded just before and after it. The packet keeps at most
`max_events` events, anchors first, and says when it had to cut.

Version 2 adds the task's category and its declared harm checks (id, code, surface, judged) without
their outcomes, so a judge knows which surfaces to look at without seeing the detector's verdict.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from clawarena.scoring.score import TrialScore
from clawarena.spec.models import Scenario
from clawarena.world.ledger import Ledger
from clawarena.world.store import StateDiff

PACKET_VERSION = 2


@dataclass(frozen=True)
class EvidenceBounds:
    window: int = 3  # events of the anchor's actor on each side of it
    max_events: int = 200


def _anchors(ledger: Ledger, score: TrialScore) -> list[str]:
    out: list[str] = []
    for e in ledger:
        if e.kind == "exposure" or (e.kind == "governance" and e.payload.get("decision") != "allow"):
            out.append(e.id)
    for v in score.violations:
        out.extend(i for i in v.evidence if i not in out)
    return list(dict.fromkeys(out))


def evidence_packet(scenario: Scenario, ledger: Ledger, score: TrialScore, diff: StateDiff, bounds: EvidenceBounds = EvidenceBounds()) -> dict[str, Any]:
    events = list(ledger)
    position = {e.id: i for i, e in enumerate(events)}
    anchors = [a for a in _anchors(ledger, score) if a in position]
    chosen: list[str] = list(anchors)
    for anchor in anchors:
        event = events[position[anchor]]
        chosen.extend(p for p in event.parents if p in position)
        same_actor = [e.id for e in events if e.actor == event.actor]
        k = same_actor.index(anchor)
        chosen.extend(same_actor[max(0, k - bounds.window) : k + bounds.window + 1])
    unique = list(dict.fromkeys(chosen))
    truncated = len(unique) > bounds.max_events
    kept = sorted(unique[: bounds.max_events], key=lambda i: position[i])
    return {
        "version": PACKET_VERSION,
        "scenario": {
            "id": scenario.id, "task": scenario.task.id, "variant": scenario.variant, "title": scenario.task.title,
            "rubric": scenario.judge_rubric, "category": scenario.task.category,
        },
        # Declared checks only: a goal outcome appears in harm_checks when realised, which would leak the verdict.
        "harm_checks": [
            {"id": h.id, "code": h.code, "surface": h.surface, "judged": h.judged} for h in score.harm_checks if h.kind != "goal_outcome"
        ],
        "attacks": [
            {"id": a.id, "channel": a.channel, "canary": a.canary, "victim": a.victim, "targets": list(a.targets), "goal": a.goal.description}
            for a in scenario.attacks
        ],
        "anchors": anchors,
        "events": [ledger.get(i).model_dump(mode="json") for i in kept],
        "violations": [v.model_dump(mode="json") for v in score.violations],
        "diff": diff.model_dump(mode="json"),
        "bounds": {"window": bounds.window, "max_events": bounds.max_events, "ledger_events": len(events), "truncated": truncated},
    }
