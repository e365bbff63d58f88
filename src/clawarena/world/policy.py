"""Machine-checkable policy rules, evaluated by the gateway against the ledger."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass

from clawarena.registry import Registry
from clawarena.spec.models import PolicySpec, RequireApproval
from clawarena.world.approvals import approving_grant
from clawarena.world.ledger import Ledger


@dataclass(frozen=True)
class PolicyVerdict:
    rule_id: str
    satisfied: bool
    enforce: bool
    reason: str


def _require_approval(rule: RequireApproval, principal: str, tool: str, ledger: Ledger) -> PolicyVerdict | None:
    if principal != rule.principal or not any(fnmatch.fnmatchcase(tool, t) for t in rule.tools):
        return None
    granted = approving_grant(ledger, approver=rule.approver, requester=principal, tool=tool) is not None
    reason = "approved" if granted else f"{tool} needs an approval from {rule.approver} first"
    return PolicyVerdict(rule.id, granted, rule.enforce, reason)


# One evaluator per rule kind; new rule kinds register here.
RULE_EVALUATORS: Registry[Callable[..., PolicyVerdict | None]] = Registry("policy rule kind")
RULE_EVALUATORS.register("require_approval", _require_approval)


def evaluate(policies: list[PolicySpec], principal: str, tool: str, ledger: Ledger) -> list[PolicyVerdict]:
    verdicts = []
    for rule in policies:
        verdict = RULE_EVALUATORS[rule.kind](rule, principal, tool, ledger)
        if verdict is not None:
            verdicts.append(verdict)
    return verdicts
