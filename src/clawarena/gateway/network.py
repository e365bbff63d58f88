"""Routing between principals: peer messages with attachments, and approvals as world objects.

A message is a `network_messages` row, a `message` event that wakes the recipient's agents, and
a `delivery` (so flow checks and policies see what it carried). An approval is a
`network_approvals` row: requested (pending), decided by the approver's agent, or at once by a
principal with no agent under test (the task's scripted reply, else the policy: approve what only
this approver's approval stands in the way of, deny the rest), and consumed by the call it covers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from clawarena.gateway import governance as gov
from clawarena.services.base import Delivery, ServiceError
from clawarena.services.network import APPROVALS, MESSAGES, Attachment
from clawarena.spec import catalog
from clawarena.world import approvals
from clawarena.world.ledger import LedgerEvent

if TYPE_CHECKING:
    from clawarena.gateway.core import Gateway
    from clawarena.gateway.peer import PeerContext


def _row_view(row: dict[str, Any], columns: tuple[str, ...]) -> dict[str, Any]:
    return {c: row[c] for c in columns if c in row}


class Network:
    """The gateway's routing of peer messages and approvals."""

    def __init__(self, gateway: "Gateway"):
        self.gw = gateway

    @property
    def world(self):
        return self.gw.world

    # ---- messages -----------------------------------------------------------------------
    def _target(self, who: str) -> tuple[str, list[str]]:
        """(principal id, agents to wake) of an agent id or principal id."""
        directory = self.world.directory
        if who in directory.agents:
            return directory.agents[who].principal, [who]
        if who in directory.principals:
            return who, directory.agents_of(who)
        known = sorted(set(directory.agents) | set(directory.principals))
        raise ServiceError(404, f"no agent or principal named {who!r}; known: {', '.join(known)}")

    def route_message(self, ctx: "PeerContext", to: str, text: str, attachments: list[Attachment], reply_to: str | None) -> dict[str, Any]:
        if self.gw.options.isolated:
            raise ServiceError(403, "peer messaging is cut in this run (the isolation control)", denied=True)
        target, agents = self._target(to)
        sender = ctx.principal.id
        if target != sender and not self.world.directory.allows(sender, target, "message"):
            raise ServiceError(403, f"{sender} may not message {target}: no edge allows it", denied=True)
        refs = []
        for i, a in enumerate(attachments):  # whether the recipient may have it is the policy's call (a `disclose` decision)
            if a.type not in catalog.resources():
                raise ServiceError(400, f"attachments[{i}].type: unknown resource type {a.type!r} (known: {', '.join(sorted(catalog.resources()))})")
            if not self._exists(a.type, a.id):
                raise ServiceError(404, f"attachments[{i}]: no {a.type} {a.id!r}")
            refs.append({"type": a.type, "id": a.id})
        if reply_to is not None and self.world.store.get(MESSAGES.name, {"id": reply_to}) is None:
            raise ServiceError(404, f"reply_to: no message {reply_to!r}")
        message_id = self.world.ids.next("msg", 12)
        self.world.store.insert(MESSAGES.name, {
            "id": message_id, "sender": sender, "recipient": target, "text": text, "attachments": refs,
            "sent_ms": self.world.clock.now_ms(), "reply_to": reply_to,
        })  # fmt: skip
        payload = {"message_id": message_id, "from": sender, "from_agent": ctx.actor, "to": target, "text": text, "attachments": refs}
        event = self.gw._record(ctx.actor, "message", payload, parents=self.gw.cursors.get(ctx.actor, []))
        for agent_id in agents:
            self.gw.inboxes[agent_id].append(event)
        ctx.deliver(Delivery("peer", sender, (target,), "", text, ref=message_id, attachments=tuple(refs)))
        return {"ok": True, "message_id": message_id, "to": target}

    def _exists(self, type_name: str, row_id: str) -> bool:
        entry = catalog.resources()[type_name]
        return self.world.store.get(entry.resource.table, {entry.key[0]: row_id}) is not None

    def list_messages(self, ctx: "PeerContext", with_: str | None, limit: int) -> dict[str, Any]:
        me = ctx.principal.id
        other = self._target(with_)[0] if with_ else None
        rows = [r for r in self.world.store.select(MESSAGES.name, order_by="sent_ms") if me in (r["sender"], r["recipient"])]
        if other is not None:
            rows = [r for r in rows if other in (r["sender"], r["recipient"])]
        rows = sorted(rows, key=lambda r: (r["sent_ms"], r["id"]))[-limit:]
        return {"messages": [_row_view(r, ("id", "sender", "recipient", "text", "attachments", "sent_ms", "reply_to")) for r in rows]}

    def attachment_ref(self, principal: str, message_id: str, index: int) -> dict[str, str]:
        """The attachment a reader names, if the message is theirs (sent or received)."""
        row = self.world.store.get(MESSAGES.name, {"id": message_id})
        if row is None or principal not in (row["sender"], row["recipient"]):
            raise ServiceError(404, f"no message {message_id!r}", denied=row is not None)
        if index >= len(row["attachments"]):
            raise ServiceError(404, f"message {message_id} has {len(row['attachments'])} attachment(s); index {index} is past them")
        return row["attachments"][index]

    def read_attachment(self, ctx: "PeerContext", message_id: str, index: int) -> dict[str, Any]:
        ref = self.attachment_ref(ctx.principal.id, message_id, index)
        entry = catalog.resources().get(ref["type"])
        found = self.world.store.get(entry.resource.table, {entry.key[0]: ref["id"]}) if entry else None
        if found is None:
            raise ServiceError(404, f"the attached {ref['type']} {ref['id']!r} no longer exists")
        return {"message_id": message_id, "type": ref["type"], "id": ref["id"], "resource": found}

    def deliver_waiting(self) -> None:
        """Messages in the store when the episode starts reach their recipients' agents."""
        rows = sorted(self.world.store.select(MESSAGES.name), key=lambda r: (r["sent_ms"], r["id"]))
        for row in rows:
            agents = self.world.directory.agents_of(row["recipient"])
            if not agents:
                continue
            payload = {"message_id": row["id"], "from": row["sender"], "to": row["recipient"], "text": row["text"], "attachments": row["attachments"]}
            event = self.gw._record(row["sender"], "message", payload, taint=self.gw._materials_in([row["text"]]))
            for agent_id in agents:
                self.gw.inboxes[agent_id].append(event)

    # ---- approvals ----------------------------------------------------------------------
    def route_approval_request(
        self, ctx: "PeerContext", approver: str, action: str, details: str, *, args: dict[str, Any], limits: dict[str, int], resource: str | None
    ) -> dict[str, Any]:
        directory = self.world.directory
        if approver not in directory.principals:
            raise ServiceError(404, f"unknown principal {approver!r}; principals: {', '.join(sorted(directory.principals))}")
        requester = ctx.principal.id
        if self.gw.options.isolated and approver != requester:
            raise ServiceError(403, "peer messaging is cut in this run (the isolation control): no approval requests to other principals", denied=True)
        request_id = f"apr-{len(self.world.store.select(APPROVALS.name)) + 1}"
        self.world.store.insert(APPROVALS.name, {
            "id": request_id, "requester": requester, "approver": approver, "action": action, "args": args, "limits": limits,
            "resource": resource, "details": details, "status": "pending", "uses_left": 0, "note": "",
            "requested_ms": self.world.clock.now_ms(), "decided_ms": None, "used_by": [],
        })  # fmt: skip
        payload = {"request_id": request_id, "requester": requester, "approver": approver, "action": action, "details": details, "args": args, "limits": limits, "resource": resource}
        event = self.gw._record(ctx.actor, "approval_request", payload, parents=self.gw.cursors.get(ctx.actor, []))
        if approver != requester:  # the details reach another person: a delivery, seen by the leak checks and the flow rules
            ctx.deliver(Delivery("approval", requester, (approver,), action, details, ref=request_id))
        # A principal answers its own agent in person (simulated): a delegate cannot approve for its principal.
        if approver != requester and directory.has_agent(approver):
            self.gw.notify(approver, event)
            return {"ok": True, "request_id": request_id, "status": "pending"}
        decision, note, uses = self._simulated_decision(requester, approver, action, args, limits, resource)
        self._decide(approver, approver, request_id, decision, note, uses, parent=event, notify=False)  # the answer is this call's result
        return {"ok": True, "request_id": request_id, "status": self.world.store.get(APPROVALS.name, {"id": request_id})["status"], "note": note}

    def _simulated_decision(self, requester: str, approver: str, action: str, args: dict[str, Any], limits: dict[str, int], resource: str | None) -> tuple[str, str, int]:
        """How a principal with no agent under test answers: a scripted reply, else its policy."""
        import fnmatch

        for reply in self.world.scenario.task.replies:
            if reply.approver == approver and fnmatch.fnmatchcase(requester, reply.requester) and fnmatch.fnmatchcase(action, reply.action):
                return reply.decision, reply.note, reply.uses
        # The tool asked for, or every tool of the requester's agents in the action group asked for.
        agents = self.world.directory.agents_of(requester)
        tools = [self.gw.tools[action]] if action in self.gw.tools else sorted(
            {t.name: t for a in agents for t in self.gw.agent_tools(a) if t.action == action}.values(), key=lambda t: t.name
        )
        if self.world.policy is None or not tools:
            return "deny", f"{approver} has no rule that lets them approve {action!r}", 1
        if len(tools) > 1:  # a group: judge the tools the requested scope can be a call of
            scoped = approvals.with_limits(args, limits)
            tools = [t for t in tools if all(n in scoped or (resource and t.resource and t.resource[0] == n) for n, f in t.args_model.model_fields.items() if f.is_required())] or tools
        verdicts = [self._policy_verdict(requester, approver, tool, args, limits, resource) for tool in tools]
        denied = [v for v in verdicts if v is not None]
        if denied:
            return "deny", denied[0], 1
        return "approve", f"within what {approver} may approve", 1

    def _policy_verdict(self, requester: str, approver: str, tool, args: dict[str, Any], limits: dict[str, int], resource: str | None) -> str | None:
        """None when the approver's policy lets the requested call go ahead (at the bound of any
        limit: the largest call the approval would cover), else why not."""
        call_args = approvals.with_limits(args, limits)
        if resource and tool.resource:
            call_args.setdefault(tool.resource[0], resource)
        decision = self.world.policy.decide(gov.call_request(self.world, requester, tool, call_args))
        if decision.allowed or (decision.needs_approval_only and all(s.approval in (approver, "owner") for s in decision.liftable)):
            return None
        return f"forbidden by {', '.join(decision.names()) or 'policy'}"

    def route_approval_decision(self, ctx: "PeerContext", request_id: str, decision: str, note: str, uses: int) -> dict[str, Any]:
        row = self.world.store.get(APPROVALS.name, {"id": request_id})
        if row is None:
            raise ServiceError(404, f"no approval request {request_id!r}")
        if row["approver"] != ctx.principal.id:
            raise ServiceError(403, f"request {request_id} is not addressed to {ctx.principal.id}", denied=True)
        if row["status"] not in ("pending", "more_info"):
            raise ServiceError(409, f"request {request_id} is already {row['status']}")
        parent = next((e for e in reversed(self.world.ledger.of_kind("approval_request")) if e.payload.get("request_id") == request_id), None)
        self._decide(ctx.actor, ctx.principal.id, request_id, decision, note, uses, parent=parent)
        return {"ok": True, "request_id": request_id, "decision": decision}

    def _decide(self, actor: str, approver: str, request_id: str, decision: str, note: str, uses: int, parent: LedgerEvent | None, notify: bool = True) -> None:
        row = self.world.store.get(APPROVALS.name, {"id": request_id})
        status = {"approve": "approved", "deny": "denied", "more_info": "more_info", "escalate": "escalated"}[decision]
        self.world.store.update(APPROVALS.name, {"id": request_id}, {
            "status": status, "uses_left": uses if status == "approved" else 0, "note": note, "decided_ms": self.world.clock.now_ms(),
        })  # fmt: skip
        parents = self.gw.cursors.get(actor, []) + ([parent.id] if parent else [])
        payload = {"request_id": request_id, "approver": approver, "requester": row["requester"], "action": row["action"], "decision": decision, "note": note}
        event = self.gw._record(actor, "approval_decision", payload, parents=parents)
        if status == "approved":  # the grant the `approval_before` check reads
            grant = {k: payload[k] for k in ("request_id", "approver", "requester", "action")}
            event = self.gw._record(actor, "approval_grant", grant, parents=[event.id])
        if notify:
            self.gw.notify(row["requester"], event)

    def list_approvals(self, ctx: "PeerContext", status: str | None) -> dict[str, Any]:
        me = ctx.principal.id
        rows = [r for r in self.world.store.select(APPROVALS.name, order_by="id") if me in (r["requester"], r["approver"])]
        if status:
            rows = [r for r in rows if r["status"] == status]
        return {"approvals": rows}


def _attachment_of(world, principal: str, args: dict[str, Any]) -> tuple[str, str] | None:
    """read_attachment acts on the attached row (its ResourceArg is ANY_RESOURCE)."""
    row = world.store.get(MESSAGES.name, {"id": str(args.get("message_id"))})
    index = args.get("index") or 0
    if row is None or principal not in (row["sender"], row["recipient"]) or not isinstance(index, int) or index >= len(row["attachments"]):
        return None
    ref = row["attachments"][index]
    return ref["type"], ref["id"]


gov.RESOLVERS.register("read_attachment", _attachment_of)
