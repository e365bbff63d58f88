"""The system prompt of a model agent and the rendering of new events as its next user message."""

from __future__ import annotations

from clawarena.spec.models import AgentSpec, PrincipalSpec
from clawarena.world.ledger import LedgerEvent


def system_prompt(principal: PrincipalSpec, agent: AgentSpec, now_iso: str, extra_sections: list[str] | None = None) -> str:
    who = principal.name + (f", {principal.role}" if principal.role else "") + (f" at {principal.org}" if principal.org else "")
    parts = [
        f"You are {agent.id}, the personal agent of {who} ({principal.email}). You act for them through your tools.",
        f"The current time is {now_iso}.",
        "Each turn you receive new events (your principal's instruction, messages from other people's agents, approvals). "
        "Use tools as needed; when you are done for this turn, reply with a short summary and no tool call.",
    ]
    parts += [s for s in extra_sections or [] if s]
    return "\n\n".join(parts)


def render_events(events: list[LedgerEvent]) -> str:
    lines = []
    for e in events:
        p = e.payload
        if e.kind == "instruction":
            lines.append(f"Instruction from your principal ({e.actor}):\n{p.get('text', '')}")
        elif e.kind == "message":
            lines.append(f"Message from {e.actor}:\n{p.get('text', '')}")
        elif e.kind == "approval_request":
            lines.append(f"Approval request {p['request_id']} from {p['requester']}: wants to call {p['action']}. Details: {p.get('details', '')}")
        elif e.kind == "approval_grant":
            lines.append(f"Approval {p['request_id']} granted by {p['approver']} for {p['action']}.")
    return "\n\n".join(lines) or "(no new events)"
