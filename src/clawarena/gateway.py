"""The gateway: the single door between agents (or REST clients) and the world.

It resolves the acting principal, checks the tool is the agent's and the call
fits policy, runs the service function, routes peer messages and approvals,
and writes every step to the ledger: the call, the result, what left a
workspace (deliveries), and exposures to attack material in what came back.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from clawarena.services.base import Delivery, Service, ServiceContext, ServiceError
from clawarena.spec import catalog
from clawarena.spec.models import PrincipalSpec
from clawarena.tools.core import Tool, ToolArgsError, ToolKind, select_tools, tool
from clawarena.tools.limits import argument_problem
from clawarena.world.ledger import LedgerEvent
from clawarena.world.policy import evaluate
from clawarena.world.world import World

_B64ISH = re.compile(r"^[A-Za-z0-9_\-+/=]{16,}$")


@dataclass
class ToolOutcome:
    """What a caller gets back: a result, or an error it can read."""

    ok: bool
    result: Any = None
    error: str | None = None
    status: int = 200
    reason: str = ""
    call_id: str = ""
    result_id: str = ""


class ToolFault(Exception):
    """A tool failed with an unexpected exception (a defect, not an API error): its writes were
    rolled back and the trial must end as an `error`, never be scored."""


@dataclass
class PeerContext(ServiceContext):
    """Context of the gateway's own tools: who is acting, and the gateway to route through."""

    actor: str = ""
    gateway: "Gateway | None" = None


# ---- the gateway's own tools: peer messages and approvals ---------------------------
@tool(ToolKind.SEND, name="send_message")
def send_message(ctx: PeerContext, to: str, text: str) -> dict[str, Any]:
    """Send a message to another principal's delegate agent.

    Args:
        to: the agent id or principal id to write to.
        text: the message.
    """
    assert ctx.gateway is not None
    return ctx.gateway.route_message(ctx, to, text)


@tool(ToolKind.SEND, name="request_approval")
def request_approval(ctx: PeerContext, approver: str, action: str, details: str = "") -> dict[str, Any]:
    """Ask a principal (through their agent) to approve an action before you take it.

    Args:
        approver: principal id of the person whose approval is needed.
        action: the tool you want to call, e.g. 'gmail_send_email'.
        details: what exactly you want to do and why.
    """
    assert ctx.gateway is not None
    return ctx.gateway.route_approval_request(ctx, approver, action, details)


@tool(ToolKind.WRITE, name="grant_approval")
def grant_approval(ctx: PeerContext, request_id: str) -> dict[str, Any]:
    """Grant an approval request addressed to your principal.

    Args:
        request_id: the id of the approval request.
    """
    assert ctx.gateway is not None
    return ctx.gateway.route_approval_grant(ctx, request_id)


@tool(ToolKind.READ, name="read_skill")
def read_skill(ctx: PeerContext, service: str, page: str = "") -> dict[str, Any]:
    """Read a skill page: reference documentation for one of your services' tools.

    Args:
        service: the service, e.g. 'gmail'.
        page: the page name; leave empty to list the pages.
    """
    assert ctx.gateway is not None
    return ctx.gateway.skill_page(ctx, service, page)


GATEWAY_TOOLS: tuple[Tool, ...] = (send_message, request_approval, grant_approval, read_skill)
for _t in GATEWAY_TOOLS:  # in the task catalog; read_skill comes with the skills lever, never from agents[i].tools
    catalog.register_tool(_t, owner="gateway", selectable=_t is not read_skill)


def _decoded_strings(value: Any) -> Iterable[str]:
    """Strings inside a result, plus base64url-decoded forms (mail bodies and raw messages)."""
    if isinstance(value, str):
        yield value
        if _B64ISH.match(value):
            try:
                yield base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).decode("utf-8")
            except (binascii.Error, UnicodeDecodeError, ValueError):
                pass
    elif isinstance(value, dict):
        for v in value.values():
            yield from _decoded_strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _decoded_strings(v)


class Gateway:
    """Every action of a world goes through here and lands in its ledger."""

    def __init__(self, world: World, services: list[Service], skills: bool = False):
        self.world = world
        self.services = {s.name: s for s in services}
        self.skills = skills  # the skills lever: read_skill joins every agent's tools
        self.tools: dict[str, Tool] = {t.name: t for s in services for t in s.tools}
        for t in GATEWAY_TOOLS:
            self.tools[t.name] = t
        self.cursors: dict[str, list[str]] = {}
        self.inboxes: dict[str, list[LedgerEvent]] = {a: [] for a in world.directory.agents}
        self.malformed_calls: dict[str, int] = {}
        self.fault: str | None = None  # set when a tool crashed: the trial is an error

    # ---- ledger helpers ---------------------------------------------------------
    def _record(self, actor: str, kind: str, payload: dict[str, Any], parents: Iterable[str] = (), taint: Iterable[str] = ()) -> LedgerEvent:
        return self.world.ledger.record(
            time=self.world.clock.iso(), actor=actor, kind=kind, payload=payload, parents=parents, taint=taint  # type: ignore[arg-type]
        )

    def _materials_in(self, texts: Iterable[str]) -> list[str]:
        found = []
        blob = "\n".join(texts)
        for attack in self.world.attacks:
            if attack.canary in blob:
                found.append(attack.id)
        return found

    def _expose(self, actor: str, source: LedgerEvent, content: Any, via: str) -> list[str]:
        """Record an exposure for each attack material whose canary is in `content`."""
        if not self.world.attacks:  # nothing to look for: skip the walk over the result
            return []
        ids = []
        for material in self._materials_in(_decoded_strings(content)):
            attack = next(a for a in self.world.attacks if a.id == material)
            ev = self._record(
                actor, "exposure", {"material": material, "channel": attack.channel, "via": via, "source": source.id},
                parents=[source.id], taint=[material],
            )  # fmt: skip
            ids.append(ev.id)
        return ids

    # ---- agents: tools, turns, inboxes ------------------------------------------
    def agent_tools(self, agent_id: str) -> list[Tool]:
        spec = self.world.directory.agents[agent_id]
        chosen = select_tools((t for t in self.tools.values() if t is not read_skill), spec.tools, owner=f"agent {agent_id}")
        return chosen + [read_skill] if self.skills else chosen

    def agent_services(self, agent_id: str) -> list[Service]:
        names = sorted({t.service for t in self.agent_tools(agent_id) if t.service})
        return [self.services[n] for n in names]

    def skill_page(self, ctx: PeerContext, service: str, page: str) -> dict[str, Any]:
        allowed = {s.name: s for s in self.agent_services(ctx.actor)} if ctx.actor in self.world.directory.agents else self.services
        if service not in allowed:
            raise ServiceError(404, f"no skill for {service!r}; yours: {sorted(allowed)}")
        pages = allowed[service].skill_pages()
        if not page:
            return {"service": service, "pages": sorted(pages)}
        if page not in pages:
            raise ServiceError(404, f"no page {page!r} for {service}; pages: {sorted(pages)}")
        return {"service": service, "page": page, "text": pages[page]}

    def instruct(self, agent_id: str) -> LedgerEvent | None:
        spec = self.world.directory.agents[agent_id]
        if not spec.instruction:
            return None
        ev = self._record(spec.principal, "instruction", {"to": agent_id, "text": spec.instruction})
        self.inboxes[agent_id].append(ev)
        return ev

    def has_pending(self, agent_id: str) -> bool:
        return bool(self.inboxes[agent_id])

    def begin_turn(self, agent_id: str, turn: int) -> list[LedgerEvent]:
        """Hand the agent its new events; record the turn start and exposures in them."""
        pending, self.inboxes[agent_id] = self.inboxes[agent_id], []
        start = self._record(agent_id, "turn_start", {"turn": turn}, parents=[e.id for e in pending] + self.cursors.get(agent_id, []))
        exposures: list[str] = []
        for ev in pending:
            if ev.kind in ("message", "approval_request", "approval_grant"):
                exposures += self._expose(agent_id, ev, ev.payload, via="message")
        self.cursors[agent_id] = [start.id] + exposures
        return pending

    def end_turn(self, agent_id: str, turn: int, final_text: str | None) -> None:
        ev = self._record(agent_id, "turn_end", {"turn": turn, "text": final_text or ""}, parents=self.cursors.get(agent_id, []))
        self.cursors[agent_id] = [ev.id]

    def record_model_call(self, agent_id: str, record: dict[str, Any]) -> None:
        self._record(agent_id, "model_call", record, parents=self.cursors.get(agent_id, []))

    # ---- calls ---------------------------------------------------------------------
    def call(self, agent_id: str, tool_name: str, args: Any) -> ToolOutcome:
        """An agent's tool call (in-process or over MCP). Raises ToolFault when the tool crashed."""
        allowed = {t.name for t in self.agent_tools(agent_id)}
        principal = self.world.directory.principal_of(agent_id)
        outcome = self._invoke(agent_id, principal, tool_name, args, source="agent", allowed=allowed)
        if self.fault is not None:
            raise ToolFault(self.fault)
        return outcome

    def call_as_principal(self, principal_id: str, tool_name: str, args: Any, source: str = "rest", base_url: str | None = None) -> ToolOutcome:
        """A call from a client holding the principal's token (REST): wire-only parameters allowed."""
        principal = self.world.directory.principal(principal_id)
        return self._invoke(principal_id, principal, tool_name, args, source=source, allowed=None, base_url=base_url)

    def _invoke(
        self, actor: str, principal: PrincipalSpec, tool_name: str, args: Any, *, source: str, allowed: set[str] | None, base_url: str | None = None
    ) -> ToolOutcome:
        self.world.clock.tick()
        problem = argument_problem(args)
        if problem and not problem.recordable:  # recorded without the arguments: not safe to walk or serialize
            args = {"_refused": f"arguments {problem.message}"}
        call = self._record(
            actor, "tool_call", {"tool": tool_name, "args": args, "principal": principal.id, "source": source},
            parents=self.cursors.get(actor, []),
        )  # fmt: skip
        tool_ = self.tools.get(tool_name)
        if tool_ is None or (allowed is not None and tool_name not in allowed):
            self.malformed_calls[actor] = self.malformed_calls.get(actor, 0) + 1
            return self._fail(actor, call, 404, f"unknown tool {tool_name!r}; available: {sorted(allowed or self.tools)}", kind="tool_result")
        if problem or not isinstance(args, dict):
            self.malformed_calls[actor] = self.malformed_calls.get(actor, 0) + 1
            return self._fail(actor, call, 400, f"arguments of {tool_name} {problem.message if problem else 'must be a JSON object'}")
        if source == "agent":  # agents get the tool's schema: wire-only parameters are not theirs to set
            wire_only = sorted(tool_.wire_only_names() & set(args))
            if wire_only:
                self.malformed_calls[actor] = self.malformed_calls.get(actor, 0) + 1
                return self._fail(actor, call, 400, f"invalid arguments for {tool_name}: {', '.join(wire_only)}: unknown argument (not in the tool's schema)")
        for verdict in evaluate(self.world.policies, principal.id, tool_name, self.world.ledger):
            if verdict.satisfied:
                continue
            self._record(actor, "policy_violation", {"rule": verdict.rule_id, "tool": tool_name, "reason": verdict.reason, "enforced": verdict.enforce}, parents=[call.id])
            if verdict.enforce:
                return self._fail(actor, call, 403, f"policy {verdict.rule_id}: {verdict.reason}", kind="refused")
        ctx_cls = PeerContext if tool_name in {t.name for t in GATEWAY_TOOLS} else ServiceContext
        ctx = ctx_cls(world=self.world, principal=principal, base_url=base_url)
        if isinstance(ctx, PeerContext):
            ctx.actor, ctx.gateway = actor, self
        savepoint = self.world.store.conn.total_changes
        try:
            result = tool_.invoke(ctx, args)
        except ToolArgsError as exc:
            self.malformed_calls[actor] = self.malformed_calls.get(actor, 0) + 1
            return self._fail(actor, call, 400, str(exc))
        except ServiceError as exc:
            self._rollback(savepoint)
            return self._fail(actor, call, exc.code, exc.message, kind="refused" if exc.denied else "tool_result", error=exc)
        except Exception as exc:  # a defect in the tool: undo its writes, keep the evidence, end the trial as an error
            self._rollback(savepoint)
            self.fault = f"tool {tool_name} crashed: {type(exc).__name__}: {exc}"
            return self._fail(actor, call, 500, f"internal error in {tool_name}", error=ServiceError(500, self.fault, reason="backendError"))
        changes = self.world.store.drain_changes()
        self.world.store.conn.commit()
        if changes:
            rows = [{"table": t, "key": k, "op": o} for t, k, o in changes]
            self._record(actor, "state_change", {"tool": tool_name, "changes": rows}, parents=[call.id])
        result_ev = self._record(actor, "tool_result", {"tool": tool_name, "ok": True, "result": result}, parents=[call.id])
        for d in ctx.deliveries:
            self._record_delivery(actor, call, d)
        exposures = self._expose(actor, result_ev, result, via=tool_name)
        self.cursors[actor] = [result_ev.id] + exposures
        return ToolOutcome(ok=True, result=result, call_id=call.id, result_id=result_ev.id)

    def _rollback(self, savepoint: int) -> None:
        if self.world.store.conn.total_changes != savepoint:
            self.world.store.conn.rollback()  # the change log rolls back with the writes

    def _fail(self, actor: str, call: LedgerEvent, status: int, message: str, kind: str = "tool_result", error: ServiceError | None = None) -> ToolOutcome:
        payload: dict[str, Any] = {"tool": call.payload["tool"], "ok": False, "status": status, "error": message}
        if error is not None:
            payload["reason"] = error.reason
        ev = self._record(actor, kind, payload, parents=[call.id])
        self.cursors[actor] = [ev.id]
        reason = error.reason if error is not None else ("invalidArgument" if status == 400 else "notFound" if status == 404 else "forbidden")
        return ToolOutcome(ok=False, error=message, status=status, reason=reason, call_id=call.id, result_id=ev.id)

    def _record_delivery(self, actor: str, call: LedgerEvent, d: Delivery) -> None:
        directory = self.world.directory
        for recipient in d.recipients:
            target = directory.by_address(recipient) or directory.principals.get(recipient)
            # Inside: a principal, a "#channel" of the workspace, or an address at a principal's own domain
            # (a colleague the world does not model). Outside: any other address or domain, or "anyone".
            external = target is None and not recipient.startswith("#") and not directory.internal_address(recipient)
            payload = {
                "channel": d.channel, "sender": d.sender, "to": recipient,
                "to_principal": target.id if target else None, "external": external,
                "subject": d.subject, "body": d.body, "ref": d.ref,
            }  # fmt: skip
            self._record(actor, "delivery", payload, parents=[call.id], taint=self._materials_in([d.subject, d.body]))

    # ---- routing of the gateway's own tools ---------------------------------------
    def _resolve_agent(self, who: str) -> str:
        directory = self.world.directory
        if who in directory.agents:
            return who
        agents = directory.agents_of(who)
        if agents:
            return agents[0]
        raise ServiceError(404, f"no agent or principal named {who!r}; known agents: {sorted(directory.agents)}")

    def route_message(self, ctx: PeerContext, to: str, text: str) -> dict[str, Any]:
        target = self._resolve_agent(to)
        target_principal = self.world.directory.agents[target].principal
        if target_principal != ctx.principal.id and not self.world.directory.allows(ctx.principal.id, target_principal, "message"):
            raise ServiceError(403, f"{ctx.principal.id} may not message {target_principal}: no edge allows it")
        msg = self._record(ctx.actor, "message", {"to": target, "text": text}, parents=self.cursors.get(ctx.actor, []))
        self.inboxes[target].append(msg)
        ctx.deliver(Delivery("peer", ctx.principal.email, (self.world.directory.principal(target_principal).email,), "", text, ref=msg.id))
        return {"ok": True, "message_id": msg.id, "to": target}

    def route_approval_request(self, ctx: PeerContext, approver: str, action: str, details: str) -> dict[str, Any]:
        if approver not in self.world.directory.principals:
            raise ServiceError(404, f"unknown principal {approver!r}")
        request_id = f"apr-{len(self.world.ledger.of_kind('approval_request')) + 1}"
        ev = self._record(
            ctx.actor, "approval_request",
            {"request_id": request_id, "requester": ctx.principal.id, "approver": approver, "action": action, "details": details},
            parents=self.cursors.get(ctx.actor, []),
        )  # fmt: skip
        for agent_id in self.world.directory.agents_of(approver):
            self.inboxes[agent_id].append(ev)
        return {"ok": True, "request_id": request_id}

    def route_approval_grant(self, ctx: PeerContext, request_id: str) -> dict[str, Any]:
        request = next((e for e in self.world.ledger.of_kind("approval_request") if e.payload["request_id"] == request_id), None)
        if request is None:
            raise ServiceError(404, f"no approval request {request_id!r}")
        if request.payload["approver"] != ctx.principal.id:
            raise ServiceError(403, f"request {request_id} is not addressed to {ctx.principal.id}")
        ev = self._record(
            ctx.actor, "approval_grant",
            {"request_id": request_id, "approver": ctx.principal.id, "requester": request.payload["requester"], "action": request.payload["action"]},
            parents=self.cursors.get(ctx.actor, []) + [request.id],
        )  # fmt: skip
        for agent_id in self.world.directory.agents_of(request.payload["requester"]):
            self.inboxes[agent_id].append(ev)
        return {"ok": True, "granted": request_id}


__all__ = ["GATEWAY_TOOLS", "Gateway", "PeerContext", "ToolFault", "ToolOutcome"]
