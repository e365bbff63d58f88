"""Approvals: the one rule for "does this approval cover this call?", and its use.

An approval is a row of `network_approvals` (declared by services/network, named here so the
world layer owns the rule): from an approver to a requester, for an `action` (a tool name, a
glob of tools, or a policy action group such as `bid`), scoped by `args` the call must have,
`limits` it stays within and one `resource` id, with `uses_left` (one unless the approver
granted more). When a policy's approval-lifted forbid stands in a call's way, the gateway finds
the covering approval and spends one use of it on that call; the `approval_before` check reads
that use, so the engine and the check cannot disagree. In a world with no policies (nothing
governs a call) the check falls back to the ledger: a grant recorded before the call.
"""

from __future__ import annotations

import fnmatch
from typing import Any

APPROVALS_TABLE = "network_approvals"


def action_covers(action: str, tool: str, group: str = "") -> bool:
    """Does an approved `action` (a tool name, a glob of tool names, or the tool's action group) cover a call of `tool`?"""
    return bool(action) and (fnmatch.fnmatchcase(tool, action) or action == group)


def _subset(wanted: Any, got: Any) -> bool:
    """`wanted` holds in `got`: equal values, or for an object each wanted key holds (a request body too)."""
    if isinstance(wanted, dict):
        return isinstance(got, dict) and all(_subset(v, got.get(k)) for k, v in wanted.items())
    return wanted == got


def _at(args: dict[str, Any], path: str) -> Any:
    """An argument by name, or inside a request body by a dotted path (`body.quantity`)."""
    value: Any = args
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def with_limits(args: dict[str, Any], limits: dict[str, int]) -> dict[str, Any]:
    """The arguments of the largest call an approval with these limits covers (each limited
    argument, or dotted path into the body, at its bound unless given)."""
    out: dict[str, Any] = {k: (dict(v) if isinstance(v, dict) else v) for k, v in args.items()}
    for path, limit in limits.items():
        *parents, last = path.split(".")
        node = out
        for part in parents:
            node = node.setdefault(part, {}) if isinstance(node.get(part, {}), dict) else {}
        node.setdefault(last, limit)
    return out


def scope_covers(approval: dict[str, Any], args: dict[str, Any], resource_id: str | None) -> bool:
    """The call has the approved arguments (nested ones inside its body too), stays within the
    approved limits (an argument or a dotted path into the body), acts on the approved resource."""
    if not _subset(approval.get("args") or {}, args):
        return False
    for path, limit in (approval.get("limits") or {}).items():
        value = _at(args, path)
        if not isinstance(value, (int, float)) or isinstance(value, bool) or value > limit:
            return False
    wanted = approval.get("resource")
    return not wanted or resource_id == wanted


def covering_approval(store: Any, *, requester: str, tool: str, group: str, args: dict[str, Any], resource_id: str | None, approver: str | None = None) -> dict[str, Any] | None:
    """The first standing approval (approved, uses left) to `requester` (from `approver`, if given) that covers the call."""
    where = {"requester": requester, "status": "approved", **({"approver": approver} if approver else {})}
    for row in store.select(APPROVALS_TABLE, where, order_by="id"):
        if row["uses_left"] > 0 and action_covers(row["action"], tool, group) and scope_covers(row, args, resource_id):
            return row
    return None


def use(store: Any, approval: dict[str, Any], call_id: str) -> None:
    """Spend one use of an approval on the call it covered (`used` when none is left)."""
    left = approval["uses_left"] - 1
    store.update(
        APPROVALS_TABLE, {"id": approval["id"]},
        {"uses_left": left, "status": "used" if left <= 0 else "approved", "used_by": [*approval["used_by"], call_id]},
    )  # fmt: skip


def approvals_used_by(state: dict[str, dict[str, dict[str, Any]]], call_id: str) -> list[dict[str, Any]]:
    """The approvals (rows of a final state) that a call used."""
    return [row for row in state.get(APPROVALS_TABLE, {}).values() if call_id in (row.get("used_by") or [])]


def granted_before(ledger: Any, *, approver: str, requester: str, tool: str, before_seq: int) -> bool:
    """For a world with no policies: a grant from `approver` to `requester` covering `tool` was
    recorded before ledger position `before_seq`."""
    for e in ledger.of_kind("approval_grant"):
        if e.seq >= before_seq:
            break
        p = e.payload
        if p.get("approver") == approver and p.get("requester") == requester and action_covers(str(p.get("action", "")), tool):
            return True
    return False
