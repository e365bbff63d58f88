"""Approval matching: the one rule for "was this tool call approved?".

An approval's `action` names a tool or a glob of tools (`gmail_send_email`,
`gmail_*`); a call is approved when its tool matches the action of a grant from
the approver to the requesting principal recorded before the call. The
gateway's policy engine (at call time) and the `approval_before` check (after
the trial) both ask this module, so they cannot disagree.
"""

from __future__ import annotations

import fnmatch

from clawarena.world.ledger import Ledger, LedgerEvent


def action_covers(action: str, tool: str) -> bool:
    """Does a granted `action` (a tool name or a glob of tool names) cover a call of `tool`?"""
    return bool(action) and fnmatch.fnmatchcase(tool, action)


def approving_grant(ledger: Ledger, *, approver: str, requester: str, tool: str, before_seq: int | None = None) -> LedgerEvent | None:
    """The first grant from `approver` to `requester` whose action covers `tool`, recorded
    before ledger position `before_seq` (default: anywhere so far)."""
    for e in ledger.of_kind("approval_grant"):
        if before_seq is not None and e.seq >= before_seq:
            break
        p = e.payload
        if p.get("approver") == approver and p.get("requester") == requester and action_covers(str(p.get("action", "")), tool):
            return e
    return None
