"""The gateway's core: every call of an agent or client, decided, run and recorded.

It resolves the acting principal, checks the tool is the agent's, asks the policy engine
about the call (and, after it ran, about every flow it made), runs the service function in a
transaction, and writes every step to the ledger: the call, the governance decisions, the
result, what left a workspace (deliveries, which wake the recipients' agents), and exposures
to attack material in what came back.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from clawarena.gateway import governance as gov
from clawarena.gateway.guards import CallGuard, CallReview, GuardVerdict
from clawarena.gateway.network import Network
from clawarena.gateway.peer import GATEWAY_TOOLS, PeerContext, read_skill
from clawarena.services.base import Delivery, Service, ServiceContext, ServiceError
from clawarena.spec.models import PrincipalSpec
from clawarena.tools.core import Tool, ToolArgsError, ToolKind, select_tools
from clawarena.tools.limits import argument_problem
from clawarena.world import approvals as approvals_rule
from clawarena.world.harness_events import EscalationAttempt, ShellCommand
from clawarena.world.ledger import LedgerEvent
from clawarena.world.normalise import decoded_strings, mentions
from clawarena.world.policy import POLICY_MODES, PolicyDecision, PolicyRequest
from clawarena.world.world import World



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


@dataclass(frozen=True)
class GatewayOptions:
    """How a gateway runs: the levers and controls that are not the world's own."""

    skills: bool = False  # the skills lever: read_skill joins every agent's tools
    policy_mode: str = "monitor"  # monitor: record decisions and let them happen; enforce: refuse what policies deny
    isolated: bool = False  # the isolation control: peer messages are cut (a cross-user task must then fail)


@dataclass
class _Deferred:
    actor: str
    tool: str
    args: Any
    call_id: str


# Event kinds handed to an agent whose payload may carry attack material (exposures are recorded).
INBOX_KINDS = ("message", "notification", "approval_request", "approval_grant", "approval_decision")


class Gateway:
    """Every action of a world goes through here and lands in its ledger."""

    def __init__(self, world: World, services: list[Service], skills: bool = False, options: GatewayOptions | None = None):
        self.world = world
        self.options = options or GatewayOptions(skills=skills)
        if self.options.policy_mode not in POLICY_MODES:
            raise ValueError(f"policy mode {self.options.policy_mode!r}: expected one of {', '.join(POLICY_MODES)}")
        self.services = {s.name: s for s in services}
        self.skills = self.options.skills
        self.tools: dict[str, Tool] = {t.name: t for s in services for t in s.tools}
        for t in GATEWAY_TOOLS:
            self.tools[t.name] = t
        self.cursors: dict[str, list[str]] = {}
        self.steps: dict[str, str] = {}  # agent -> the model call whose reply its next calls come from
        self.inboxes: dict[str, list[LedgerEvent]] = {a: [] for a in world.directory.agents}
        self.malformed_calls: dict[str, int] = {}
        self.fault: str | None = None  # set when a tool crashed: the trial is an error
        self._agent_tools: dict[str, list[Tool]] = {}
        self.network = Network(self)
        self.deferring = False  # a simultaneous round: agents' writes wait for the round's end
        self._deferred: list[_Deferred] = []
        self.guards: dict[str, list[CallGuard]] = {}  # agent -> the call guards its defenses installed
        self.monitored: set[str] = set()  # agents under the policy reference monitor: what a policy denies is refused

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
        for material in self._materials_in(decoded_strings(content)):
            attack = next(a for a in self.world.attacks if a.id == material)
            ev = self._record(
                actor, "exposure", {"material": material, "channel": attack.channel, "via": via, "source": source.id},
                parents=[source.id], taint=[material],
            )  # fmt: skip
            ids.append(ev.id)
        return ids

    # ---- agents: tools, turns, inboxes ------------------------------------------
    def agent_tools(self, agent_id: str) -> list[Tool]:
        """The agent's tools (its patterns resolved once: every call asks)."""
        found = self._agent_tools.get(agent_id)
        if found is None:
            spec = self.world.directory.agents[agent_id]
            chosen = select_tools((t for t in self.tools.values() if t is not read_skill), spec.tools, owner=f"agent {agent_id}")
            found = self._agent_tools[agent_id] = chosen + [read_skill] if self.skills else chosen
        return list(found)

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

    def open_inboxes(self) -> None:
        """Before the first turn: messages already waiting (seeded, or scripted from external
        actors) become events of their recipients' agents, oldest first."""
        self.network.deliver_waiting()

    def notify(self, principal_id: str, event: LedgerEvent) -> None:
        """Wake every agent of `principal_id` with `event` (an inbox push)."""
        for agent_id in self.world.directory.agents_of(principal_id):
            self.inboxes[agent_id].append(event)

    def has_pending(self, agent_id: str) -> bool:
        return bool(self.inboxes[agent_id])

    def begin_turn(self, agent_id: str, turn: int) -> list[LedgerEvent]:
        """Hand the agent its new events; record the turn start and exposures in them."""
        pending, self.inboxes[agent_id] = self.inboxes[agent_id], []
        start = self._record(agent_id, "turn_start", {"turn": turn}, parents=[e.id for e in pending] + self.cursors.get(agent_id, []))
        exposures: list[str] = []
        for ev in pending:
            if ev.kind in INBOX_KINDS:
                exposures += self._expose(agent_id, ev, ev.payload, via=ev.kind)
        self.cursors[agent_id] = [start.id] + exposures
        self.steps.pop(agent_id, None)
        return pending

    def end_turn(self, agent_id: str, turn: int, final_text: str | None) -> None:
        ev = self._record(agent_id, "turn_end", {"turn": turn, "text": final_text or ""}, parents=self.cursors.get(agent_id, []))
        self.cursors[agent_id] = [ev.id]
        self.steps.pop(agent_id, None)

    def record_model_call(self, agent_id: str, record: dict[str, Any], decides: bool = True) -> LedgerEvent:
        """One model call of the agent. When it `decides` the calls that follow (a model agent's step),
        every call its reply makes names it as a parent, so the trace links each tool call to the step
        that decided it (and the step to what the model had seen). A harness reports its usage after
        the turn, having made its own model calls: that record decides nothing."""
        ev = self._record(agent_id, "model_call", record, parents=self.cursors.get(agent_id, []))
        if decides:
            self.cursors[agent_id] = [ev.id]
            self.steps[agent_id] = ev.id
        return ev

    def _call_parents(self, actor: str) -> list[str]:
        """What an agent's call follows: what it last saw, and the model call that decided it."""
        step = self.steps.get(actor)
        return [*self.cursors.get(actor, []), *([step] if step else [])]

    def add_guard(self, agent_id: str, guard: CallGuard) -> None:
        """A defense's check on every call of the agent (gateway/guards.py)."""
        self.guards.setdefault(agent_id, []).append(guard)

    def record_defense(self, agent_id: str, payload: dict[str, Any], parents: Iterable[str] | None = None) -> LedgerEvent:
        """What a defense did (a `defense` event): screened, marked, flagged, refused, confirmed."""
        return self._record(agent_id, "defense", payload, parents=self.cursors.get(agent_id, []) if parents is None else parents)

    def _guard(self, actor: str, call: LedgerEvent, review: CallReview, phase: str) -> str | None:
        """Every guard of the actor on the call at `phase`; the first refusal wins (the rest still see it)."""
        refusal = None
        for guard in self.guards.get(actor, ()):
            verdict: GuardVerdict | None = getattr(guard, phase)(review)
            if verdict is None:
                continue
            payload = {"defense": guard.name, "action": verdict.action, "tool": review.tool.name, "phase": phase}
            if verdict.detail:
                payload["detail"] = verdict.detail
            if verdict.refusal is not None:
                payload["refusal"] = verdict.refusal
                refusal = refusal or f"{guard.name}: {verdict.refusal}"
            self._record(actor, "defense", payload, parents=[call.id])
        return refusal

    def record_shell_command(self, agent_id: str, payload: dict[str, Any] | ShellCommand) -> LedgerEvent:
        """A command a sandboxed harness ran; the payload is validated (an unknown field is an error)."""
        command = ShellCommand.model_validate(payload)
        return self._record(agent_id, "shell_command", command.model_dump(mode="json"), parents=self.cursors.get(agent_id, []))

    def record_escalation_attempt(self, agent_id: str, payload: dict[str, Any] | EscalationAttempt) -> LedgerEvent:
        """An attempt of a harness to reach beyond its model and MCP endpoints; validated like a shell command."""
        attempt = EscalationAttempt.model_validate(payload)
        return self._record(agent_id, "escalation_attempt", attempt.model_dump(mode="json"), parents=self.cursors.get(agent_id, []))

    # ---- calls ---------------------------------------------------------------------
    def call(self, agent_id: str, tool_name: str, args: Any) -> ToolOutcome:
        """An agent's tool call (in-process or over MCP). Raises ToolFault when the tool crashed."""
        allowed = {t.name for t in self.agent_tools(agent_id)}
        principal = self.world.directory.principal_of(agent_id)
        tool_ = self.tools.get(tool_name)
        if self.deferring and tool_ is not None and tool_name in allowed and tool_.kind != ToolKind.READ:
            return self._defer(agent_id, principal, tool_name, args)
        outcome = self._invoke(agent_id, principal, tool_name, args, source="agent", allowed=allowed)
        if self.fault is not None:
            raise ToolFault(self.fault)
        return outcome

    def call_as_principal(self, principal_id: str, tool_name: str, args: Any, source: str = "rest", base_url: str | None = None) -> ToolOutcome:
        """A call from a client holding the principal's token (REST): wire-only parameters allowed."""
        principal = self.world.directory.principal(principal_id)
        return self._invoke(principal_id, principal, tool_name, args, source=source, allowed=None, base_url=base_url)

    # ---- simultaneous rounds: writes wait for the round's end ----------------------------
    def _defer(self, agent_id: str, principal: PrincipalSpec, tool_name: str, args: Any) -> ToolOutcome:
        self.world.clock.tick()
        call = self._record(
            agent_id, "tool_call", {"tool": tool_name, "args": args, "principal": principal.id, "source": "agent", "deferred": True},
            parents=self._call_parents(agent_id),
        )  # fmt: skip
        self._deferred.append(_Deferred(agent_id, tool_name, args, call.id))
        note = "queued: this is a simultaneous round; your move applies when every agent has moved, and its result comes as a new event"
        result = {"queued": True, "call_id": call.id, "note": note}
        ev = self._record(agent_id, "tool_result", {"tool": tool_name, "ok": True, "result": result}, parents=[call.id])
        self.cursors[agent_id] = [ev.id]
        return ToolOutcome(ok=True, result=result, call_id=call.id, result_id=ev.id)

    def flush_deferred(self) -> None:
        """End a simultaneous round: apply every queued move in the order made; each agent is told its result."""
        queued, self._deferred, self.deferring = self._deferred, [], False
        for move in queued:
            principal = self.world.directory.principal_of(move.actor)
            allowed = {t.name for t in self.agent_tools(move.actor)}
            self.cursors[move.actor] = [move.call_id]
            outcome = self._invoke(move.actor, principal, move.tool, move.args, source="round", allowed=allowed)
            payload = {"round_result": move.tool, "call_id": move.call_id, "ok": outcome.ok, "result": outcome.result, "error": outcome.error}
            ev = self._record(move.actor, "notification", payload, parents=[outcome.result_id or move.call_id])
            self.inboxes[move.actor].append(ev)
            if self.fault is not None:
                return

    def _invoke(
        self, actor: str, principal: PrincipalSpec, tool_name: str, args: Any, *, source: str, allowed: set[str] | None, base_url: str | None = None
    ) -> ToolOutcome:
        self.world.clock.tick()
        problem = argument_problem(args)
        if problem and not problem.recordable:  # recorded without the arguments: not safe to walk or serialize
            args = {"_refused": f"arguments {problem.message}"}
        call = self._record(
            actor, "tool_call", {"tool": tool_name, "args": args, "principal": principal.id, "source": source},
            parents=self._call_parents(actor) if source == "agent" else self.cursors.get(actor, []),
        )  # fmt: skip
        tool_ = self.tools.get(tool_name)
        if tool_ is None or (allowed is not None and tool_name not in allowed):
            self.malformed_calls[actor] = self.malformed_calls.get(actor, 0) + 1
            return self._fail(actor, call, 404, f"unknown tool {tool_name!r}; available: {sorted(allowed or self.tools)}", kind="tool_result")
        if problem or not isinstance(args, dict):
            self.malformed_calls[actor] = self.malformed_calls.get(actor, 0) + 1
            return self._fail(actor, call, 400, f"arguments of {tool_name} {problem.message if problem else 'must be a JSON object'}")
        if source in ("agent", "round"):  # agents get the tool's schema: wire-only parameters are not theirs to set
            wire_only = sorted(tool_.wire_only_names() & set(args))
            if wire_only:
                self.malformed_calls[actor] = self.malformed_calls.get(actor, 0) + 1
                return self._fail(actor, call, 400, f"invalid arguments for {tool_name}: {', '.join(wire_only)}: unknown argument (not in the tool's schema)")
        guarded = actor in self.guards
        if guarded:
            refusal = self._guard(actor, call, CallReview(actor, tool_, args), "before")
            if refusal is not None:
                return self._fail(actor, call, 403, refusal, kind="refused")
        approvals: list[dict[str, Any]] = []
        if self.world.policy is not None:
            try:
                parsed = tool_.validate(args)
            except ToolArgsError as exc:
                self.malformed_calls[actor] = self.malformed_calls.get(actor, 0) + 1
                return self._fail(actor, call, 400, str(exc))
            verdict = self._govern_call(actor, principal, tool_, parsed.model_dump(), call)
            if verdict.refusal is not None:
                return self._fail(actor, call, 403, verdict.refusal, kind="refused")
            approvals = verdict.approvals
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
        if self.world.policy is not None and ctx.deliveries:
            refusal = self._govern_flows(actor, principal, call, ctx.deliveries, approvals)
            if refusal is not None:  # enforced: the content never leaves, the call's writes are undone
                self._rollback(savepoint)
                return self._fail(actor, call, 403, refusal, kind="refused")
        if guarded:
            refusal = self._guard(actor, call, CallReview(actor, tool_, args, tuple(ctx.deliveries)), "after")
            if refusal is not None:  # nothing is committed and nothing leaves
                self._rollback(savepoint)
                return self._fail(actor, call, 403, refusal, kind="refused")
        for approval in approvals:  # spent by the call a policy needed it for
            approvals_rule.use(self.world.store, approval, call.id)
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

    # ---- governance: every call and every flow decided by the task's policies ---------------
    def _enforcing(self, decision: PolicyDecision, actor: str) -> bool:
        """A denial is refused in enforce mode, for an enforced policy, or for an agent under the
        policy-monitor defense (the same engine as a reference monitor for that agent alone)."""
        return self.options.policy_mode == "enforce" or decision.enforced or actor in self.monitored

    def _record_decision(self, actor: str, parent: str, request: PolicyRequest, decision: PolicyDecision, outcome: str, **extra: Any) -> LedgerEvent:
        payload = {
            "principal": request.principal, "action": request.action, "resource": f"{request.resource.type}::{request.resource.id}",
            "owner": request.resource.attrs.get("owner", ""), "decision": outcome, "policies": decision.names(),
            "mode": self.options.policy_mode, "enforced": outcome == "deny" and self._enforcing(decision, actor), **extra,
        }  # fmt: skip
        if decision.errors:
            payload["errors"] = list(decision.errors)
        return self._record(actor, "governance", payload, parents=[parent])

    def _govern_call(self, actor: str, principal: PrincipalSpec, tool_: Tool, args: dict[str, Any], call: LedgerEvent) -> "_CallVerdict":
        request = gov.call_request(self.world, principal.id, tool_, args)
        decision = self.world.policy.decide(request)
        if decision.allowed:
            self._record_decision(actor, call.id, request, decision, "allow", tool=tool_.name, group=tool_.action)
            return _CallVerdict()
        lifted = gov.lift(self.world, decision, requester=principal.id, action=gov.Act(tool_.name, tool_.action), args=args, resource=request.resource)
        if decision.needs_approval_only and lifted.complete:
            ids = [a["id"] for a in lifted.approvals]
            self._record_decision(actor, call.id, request, decision, "approved", tool=tool_.name, group=tool_.action, approvals=ids)
            return _CallVerdict(approvals=lifted.approvals)
        reason = f"needs an approval from {', '.join(lifted.missing)}" if decision.needs_approval_only else "forbidden by policy"
        ev = self._record_decision(actor, call.id, request, decision, "deny", tool=tool_.name, group=tool_.action, reason=reason)
        for statement in decision.determining or ():
            self._record(actor, "policy_violation", {"rule": statement.name, "tool": tool_.name, "reason": reason, "enforced": self._enforcing(decision, actor)}, parents=[ev.id])
        if self._enforcing(decision, actor):
            names = ", ".join(decision.names()) or "default deny"
            return _CallVerdict(refusal=f"policy {names}: {tool_.name} {reason}")
        return _CallVerdict()

    def _govern_flows(self, actor: str, principal: PrincipalSpec, call: LedgerEvent, deliveries: list[Delivery], approvals: list[dict[str, Any]]) -> str | None:
        """`disclose` decisions for each fact a delivery states and each resource it attaches,
        per recipient (an approval of action `disclose` for that resource, and optionally
        `args: {recipient: ...}`, lifts an approval-lifted forbid; it is added to `approvals`,
        spent with the call); the refusal text when an enforced one denies."""
        refusal = None
        for d in deliveries:
            text = f"{d.subject}\n{d.body}"
            resources = [gov.row_entity(self.world, a["type"], a["id"]) for a in d.attachments]
            facts = [f for f in self.world.scenario.facts if mentions(text, f, affirmed=False)]
            for recipient in self._recipients(d):
                for resource in [self.world.policy.fact_entity(f) for f in facts] + resources:
                    request = gov.flow_request(self.world, principal.id, resource, recipient, channel=d.channel, tool=call.payload["tool"])
                    decision = self.world.policy.decide(request)
                    lifted = gov.lift(self.world, decision, requester=principal.id, action=gov.Act("disclose"), args={"recipient": request.context["recipient"]}, resource=resource)
                    if decision.needs_approval_only and lifted.complete:  # consent to this flow, e.g. a patient's to share a record
                        approvals.extend(a for a in lifted.approvals if all(a["id"] != b["id"] for b in approvals))
                        self._record_decision(actor, call.id, request, decision, "approved", recipient=recipient.to, channel=d.channel, approvals=[a["id"] for a in lifted.approvals])
                        continue
                    outcome = "allow" if decision.allowed else "deny"
                    ev = self._record_decision(actor, call.id, request, decision, outcome, recipient=recipient.to, channel=d.channel)
                    if not decision.allowed:
                        for statement in decision.determining:
                            self._record(actor, "policy_violation", {"rule": statement.name, "tool": call.payload["tool"], "reason": f"{request.resource.id} to {recipient.to}", "enforced": self._enforcing(decision, actor)}, parents=[ev.id])
                        if self._enforcing(decision, actor) and refusal is None:
                            names = ", ".join(decision.names()) or "default deny"
                            refusal = f"policy {names}: {request.resource.type} {request.resource.id} may not go to {recipient.to}"
        return refusal

    def _recipients(self, d: Delivery) -> list[gov.Recipient]:
        directory = self.world.directory
        out = []
        for to in d.recipients:
            target = directory.resolve(to)
            external = target is None and not to.startswith("#") and not directory.internal_address(to)
            out.append(gov.Recipient(to, target.id if target else None, external or bool(target and target.kind == "external")))
        return out

    def _rollback(self, savepoint: int) -> None:
        if self.world.store.conn.total_changes != savepoint:
            self.world.store.rollback()  # the change log rolls back with the writes

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
        acting = directory.principals.get(actor) or (directory.principal_of(actor) if actor in directory.agents else None)
        for recipient in d.recipients:
            target = directory.resolve(recipient)
            # Inside: a principal, a "#channel" of the workspace, or an address at an organisation's own domain
            # (a colleague the world does not model). Outside: any other address or domain, "anyone", an external actor.
            external = (target is None and not recipient.startswith("#") and not directory.internal_address(recipient)) or bool(target and target.kind == "external")
            payload = {
                "channel": d.channel, "sender": d.sender, "to": recipient,
                "to_principal": target.id if target else None, "external": external,
                "subject": d.subject, "body": d.body, "ref": d.ref,
            }  # fmt: skip
            if d.attachments:
                payload["attachments"] = list(d.attachments)
            ev = self._record(actor, "delivery", payload, parents=[call.id], taint=self._materials_in([d.subject, d.body]))
            # A peer message or an approval request woke its recipient already (its own event is the content).
            if d.channel not in ("peer", "approval") and target is not None and (acting is None or target.id != acting.id) and directory.has_agent(target.id):
                self._notify_delivery(actor, target.id, d, ev)

    def _notify_delivery(self, actor: str, principal_id: str, d: Delivery, delivery: LedgerEvent) -> None:
        """The recipient's agent wakes with a notification: the channel, sender, subject and a
        reference, as an inbox push would (a peer message carries its text: it is the content)."""
        payload: dict[str, Any] = {"channel": d.channel, "from": d.sender, "to": principal_id, "subject": d.subject, "ref": d.ref, "delivery": delivery.id}
        if d.channel in ("peer", "approval"):
            payload["text"] = d.body
        if d.attachments:
            payload["attachments"] = list(d.attachments)
        ev = self._record(actor, "notification", payload, parents=[delivery.id], taint=self._materials_in([d.subject, d.body if "text" in payload else ""]))
        self.notify(principal_id, ev)


@dataclass
class _CallVerdict:
    refusal: str | None = None
    approvals: list[dict[str, Any]] = field(default_factory=list)


__all__ = ["GATEWAY_TOOLS", "Gateway", "GatewayOptions", "PeerContext", "ToolFault", "ToolOutcome"]
