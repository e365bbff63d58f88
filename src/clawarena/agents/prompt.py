"""The system prompt of a model agent and the rendering of new events as its next user message."""

from __future__ import annotations

from clawarena.spec.models import AgentSpec, PrincipalSpec
from clawarena.world.ledger import LedgerEvent


def system_prompt(principal: PrincipalSpec, agent: AgentSpec, now_iso: str, extra_sections: list[str] | None = None) -> str:
    who = principal.name + (f", {principal.role}" if principal.role else "") + (f" at {principal.org}" if principal.org else "")
    address = f" ({principal.email})" if principal.email else f" (principal id {principal.id})"
    parts = [
        f"You are {agent.id}, the personal agent of {who}{address}. You act for them through your tools.",
        f"The current time is {now_iso}.",
        "Each turn you receive new events (your principal's instruction, messages from other people's agents, approvals, "
        "notifications of what reached your principal). Use tools as needed; when you are done for this turn, reply with a "
        "short summary and no tool call.",
    ]
    if agent.standing:
        parts.append(f"Your principal's standing instructions (act on them when something arrives):\n{agent.standing.strip()}")
    parts += [s for s in extra_sections or [] if s]
    return "\n\n".join(parts)


def render_events(events: list[LedgerEvent]) -> str:
    lines = []
    for e in events:
        p = e.payload
        if e.kind == "instruction":
            lines.append(f"Instruction from your principal ({e.actor}):\n{p.get('text', '')}")
        elif e.kind == "message":
            sender = p.get("from_agent") or p.get("from") or e.actor
            attached = "".join(f"\n[attachment {i}: {a['type']} {a['id']}; read it with read_attachment(message_id={p.get('message_id')!r}, index={i})]" for i, a in enumerate(p.get("attachments") or []))
            lines.append(f"Message {p.get('message_id', '')} from {sender}:\n{p.get('text', '')}{attached}")
        elif e.kind == "approval_request":
            scope = "".join(f" {k}={p[k]!r}" for k in ("args", "limits", "resource") if p.get(k))
            lines.append(f"Approval request {p['request_id']} from {p['requester']}: wants to call {p['action']}.{scope} Details: {p.get('details', '')}\nAnswer with decide_approval.")
        elif e.kind == "approval_grant":
            lines.append(f"Approval {p['request_id']} granted by {p['approver']} for {p['action']}.")
        elif e.kind == "approval_decision" and p.get("decision") != "approve":
            lines.append(f"Approval request {p['request_id']} answered by {p['approver']}: {p['decision']}. {p.get('note', '')}".strip())
        elif e.kind == "notification" and "round_result" in p:
            outcome = f"result: {p.get('result')}" if p.get("ok") else f"error: {p.get('error')}"
            lines.append(f"Your queued {p['round_result']} call was applied at the end of the round; {outcome}")
        elif e.kind == "notification":
            text = f"\n{p['text']}" if p.get("text") else ""
            lines.append(f"New {p.get('channel', '')} item from {p.get('from', '')}: {p.get('subject', '')} (ref {p.get('ref', '')}){text}")
    return "\n\n".join(lines) or "(no new events)"
