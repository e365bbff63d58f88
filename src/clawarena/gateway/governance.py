"""Governance at the gateway: the policy request of a call or a flow, and the approvals that lift
a forbid.

A call's request names the actor, the tool (a Cedar action in its action group), the resource
its `ResourceArg` parameter names (loaded from the store with its owner, information type and
sensitivity), the arguments and the relation between actor and owner. A flow's request is
`disclose` of a fact (or an attached resource) to one recipient, with the relation, the
information types edges let flow, and whether the recipient is outside. Approvals are rows of
`network_approvals`: scoped to an action, arguments, bounds and a resource, single-use unless
stated (the covering rule and its use are world/approvals.py's).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from clawarena.registry import Registry

from clawarena.spec import catalog
from clawarena.tools.core import ANY_RESOURCE, Tool
from clawarena.world import approvals
from clawarena.world.policy import SENSITIVITY, EntityRef, PolicyDecision, PolicyRequest
from clawarena.world.world import World


# Tools whose ResourceArg is ANY_RESOURCE: how each finds, from its arguments, the row it acts on.
RESOLVERS: Registry[Callable[[World, str, dict[str, Any]], "tuple[str, str] | None"]] = Registry("resource resolver")


def resource_of(world: World, principal: str, tool: Tool, args: dict[str, Any]) -> EntityRef:
    """The entity a call acts on: the row its ResourceArg names, else its service."""
    if tool.resource is None or args.get(tool.resource[0]) in (None, ""):
        return EntityRef("Service", tool.service or "gateway")
    if tool.resource[1] == ANY_RESOURCE:
        found = RESOLVERS.get(tool.name)(world, principal, args) if tool.name in RESOLVERS else None
        return row_entity(world, *found) if found else EntityRef("Service", tool.service or "gateway")
    return row_entity(world, tool.resource[1], str(args[tool.resource[0]]))


def row_entity(world: World, type_name: str, row_id: str) -> EntityRef:
    """A resource row as a Cedar entity (a missing row has no owner: policies see owner "")."""
    entry = catalog.resources().get(type_name)
    if entry is None:
        return EntityRef(type_name, row_id, {"id": row_id, "owner": "", "info_type": "", "sensitivity": 1})
    r = entry.resource
    row = world.store.get(r.table, {entry.key[0]: row_id}) if len(entry.key) == 1 else None
    info_type = r.info_type or type_name.lower()
    if row is None:
        return EntityRef(type_name, row_id, {"id": row_id, "owner": "", "info_type": info_type, "sensitivity": SENSITIVITY.get(r.sensitivity, 1)})
    if r.info_type_column and row.get(r.info_type_column):
        info_type = str(row[r.info_type_column])
    level = str(row.get(r.sensitivity_column) or r.sensitivity) if r.sensitivity_column else r.sensitivity
    attrs: dict[str, Any] = {"id": row_id, "owner": str(row.get(r.owner) or ""), "info_type": info_type, "sensitivity": SENSITIVITY.get(level, 1)}
    for column in r.attributes:
        value = row.get(column)
        kind = entry.column_types.get(column)
        if value is None or kind not in ("text", "integer", "bool"):
            continue
        attrs[column] = bool(value) if kind == "bool" else int(value) if kind == "integer" else str(value)
    return EntityRef(type_name, row_id, attrs)


def call_request(world: World, principal: str, tool: Tool, args: dict[str, Any]) -> PolicyRequest:
    resource = resource_of(world, principal, tool, args)
    owner = str(resource.attrs.get("owner") or "")
    directory = world.directory
    context: dict[str, Any] = {
        "args": world.policy.context_args(tool.name, args),
        "tool": tool.name,
        "same_org": bool(owner) and directory.same_org(principal, owner),
    }
    if owner:
        context["relation"] = directory.relation(principal, owner)
        context["owner_role"] = directory.role_in_relation(principal, owner)
    return PolicyRequest(principal, tool.name, resource, context)


@dataclass(frozen=True)
class Recipient:
    """Where a flow goes: a principal of the world, or an address / channel outside it."""

    to: str
    principal: str | None
    external: bool


def flow_request(world: World, principal: str, resource: EntityRef, recipient: Recipient, *, channel: str, tool: str) -> PolicyRequest:
    directory = world.directory
    target = recipient.principal
    context: dict[str, Any] = {
        "recipient": target or recipient.to,
        "relation": directory.relation(principal, target) if target else "",
        "flows": directory.flows(principal, target) if target else [],
        "external": recipient.external,
        "same_org": bool(target) and directory.same_org(principal, target),
        "channel": channel,
        "tool": tool,
    }
    if target:
        p = directory.principals[target]
        if p.org:
            context["recipient_org"] = p.org
        context["recipient_role"] = directory.role_in_relation(principal, target)
    return PolicyRequest(principal, "disclose", resource, context)


# ---- approvals ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Act:
    """What an approval must cover: a tool and its action group, or `disclose` (a flow)."""

    name: str
    group: str = ""


def covering(world: World, *, requester: str, action: Act, args: dict[str, Any], resource: EntityRef, approver: str | None = None) -> dict[str, Any] | None:
    resource_id = resource.id if resource.type != "Service" else None
    return approvals.covering_approval(world.store, requester=requester, tool=action.name, group=action.group, args=args, resource_id=resource_id, approver=approver)


@dataclass
class ApprovalLift:
    """The approvals that lift a decision's forbids, or what is still missing."""

    approvals: list[dict[str, Any]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # approvers with no covering approval

    @property
    def complete(self) -> bool:
        return not self.missing


def lift(world: World, decision: PolicyDecision, *, requester: str, action: Act, args: dict[str, Any], resource: EntityRef) -> ApprovalLift:
    out = ApprovalLift()
    if not decision.needs_approval_only:
        return out
    for statement in decision.liftable:
        approver = str(resource.attrs.get("owner") or "") if statement.approval == "owner" else statement.approval
        found = covering(world, requester=requester, approver=approver, action=action, args=args, resource=resource) if approver else None
        if found is None:
            out.missing.append(approver or "the owner")
        elif all(a["id"] != found["id"] for a in out.approvals):
            out.approvals.append(found)
    return out
