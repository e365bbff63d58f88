"""`policy-monitor`: a deterministic reference monitor. The task's policy engine (Cedar, the
same decisions the gateway records in monitor mode) becomes enforcing for this agent alone: a call
or a flow a policy forbids is refused before its writes are committed, with the policy named in
the refusal the agent reads. A task with no policies gives the monitor nothing to refuse."""

from __future__ import annotations

from clawarena.agents.defenses.base import Defense, register_defense
from clawarena.gateway import Gateway


@register_defense
class PolicyMonitor(Defense):
    name = "policy-monitor"
    order = 20
    summary = "the principal's policies enforced for this agent: a forbidden call or flow is refused, naming the policy"

    def install(self, gateway: Gateway, agent_id: str) -> None:
        gateway.monitored.add(agent_id)
        has_policy = gateway.world.policy is not None
        gateway.record_defense(agent_id, {"defense": self.name, "action": "enforcing" if has_policy else "no-policy"})
