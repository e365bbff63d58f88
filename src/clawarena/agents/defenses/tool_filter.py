"""`tool-filter`: the agent is given only the tools its task needs (AgentDojo's tool filter, with
ToolHub's BM25 retrieval in place of a model call).

The query is the principal's instruction (and standing instructions); the tools kept are the best
`k` of the agent's service tools for it (`tool-filter` keeps 8, `tool-filter:4` 4, ...), plus the
gateway's own tools (peer messages and approvals, which cross-user tasks need). A call to a tool
it removed is refused at the gateway, so an agent that names one anyway gets a readable refusal.
"""

from __future__ import annotations

from clawarena.agents.defenses.base import Defense, register_defense
from clawarena.gateway import Gateway
from clawarena.gateway.guards import CallReview, GuardVerdict
from clawarena.services.toolhub import ToolHubError, hub
from clawarena.tools.core import Tool

DEFAULT_K = 8


@register_defense
class ToolFilter(Defense):
    name = "tool-filter"
    order = 10
    options = ("", "4", "8", "12", "16")
    summary = "only the tools the task needs: ToolHub retrieval over the agent's tools for the principal's instruction"

    def __init__(self, setup):
        super().__init__(setup)
        self.kept: set[str] | None = None  # None: not yet filtered
        self.removed: list[str] = []

    @property
    def k(self) -> int:
        return int(self.setup.option or DEFAULT_K)

    def tools(self, tools: list[Tool]) -> list[Tool]:
        query = "\n".join(t for t in (self.setup.spec.instruction, self.setup.spec.standing) if t.strip())
        catalogue: dict[str, list[Tool]] = {}
        for t in tools:
            if t.service:
                catalogue.setdefault(t.service, []).append(t)
        try:
            hits = hub(catalogue).retrieve(query, k=self.k).hits if catalogue and query else None
        except ToolHubError:  # nothing to search for: the filter cannot tell what the task needs
            hits = None
        if hits is None:
            self.kept = {t.name for t in tools}
            return tools
        chosen = {h.name for h in hits}
        self.kept = {t.name for t in tools if not t.service or t.name in chosen}
        self.removed = sorted(t.name for t in tools if t.name not in self.kept)
        return [t for t in tools if t.name in self.kept]

    def install(self, gateway: Gateway, agent_id: str) -> None:
        gateway.add_guard(agent_id, _KeptTools(self))
        gateway.record_defense(agent_id, {"defense": self.name, "action": "filtered", "k": self.k, "kept": sorted(self.kept or ()), "removed": self.removed})


class _KeptTools:
    name = ToolFilter.name

    def __init__(self, owner: ToolFilter):
        self.owner = owner

    def before(self, review: CallReview) -> GuardVerdict | None:
        kept = self.owner.kept
        if kept is None or review.tool.name in kept:
            return None
        return GuardVerdict("refused", f"{review.tool.name} is not among the tools for this task ({', '.join(sorted(kept))})")

    def after(self, review: CallReview) -> GuardVerdict | None:
        return None
