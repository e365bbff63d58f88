"""Principals, their delegate agents, the edges between them, and their tokens."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from clawarena.spec.models import AgentSpec, EdgeSpec, PrincipalSpec, TaskSpec


@dataclass
class Directory:
    """Who is who in a world: lookups by id, address and bearer token."""

    principals: dict[str, PrincipalSpec]
    agents: dict[str, AgentSpec]
    edges: list[EdgeSpec]
    tokens: dict[str, str] = field(default_factory=dict)  # principal id -> bearer token
    admin_token: str = ""

    @classmethod
    def from_task(cls, task: TaskSpec, salt: str) -> "Directory":
        def token(kind: str, who: str) -> str:
            return f"{kind}-{who}-" + hashlib.sha256(f"{salt}/{kind}/{who}".encode()).hexdigest()[:20]

        principals = {p.id: p for p in task.principals}
        return cls(
            principals=principals,
            agents={a.id: a for a in task.agents},
            edges=list(task.edges),
            tokens={pid: token("ca", pid) for pid in principals},
            admin_token=token("admin", "world"),
        )

    def principal(self, principal_id: str) -> PrincipalSpec:
        return self.principals[principal_id]

    def principal_of(self, agent_id: str) -> PrincipalSpec:
        return self.principals[self.agents[agent_id].principal]

    def agents_of(self, principal_id: str) -> list[str]:
        return [a.id for a in self.agents.values() if a.principal == principal_id]

    def by_address(self, address: str) -> PrincipalSpec | None:
        wanted = address.strip().lower()
        for p in self.principals.values():
            if p.email.lower() == wanted:
                return p
        return None

    def internal_address(self, address: str) -> bool:
        """An address (or a bare domain, as Drive domain shares name it) of one of the world's
        principals' domains: inside the organisation."""
        domain = address.strip().lower().rpartition("@")[2]
        return bool(domain) and "." in domain and any(p.email.lower().endswith("@" + domain) for p in self.principals.values())

    def by_token(self, token: str) -> PrincipalSpec | None:
        for pid, tok in self.tokens.items():
            if tok == token:
                return self.principals[pid]
        return None

    def allows(self, source: str, target: str, what: str) -> bool:
        """Whether an edge lets `source`'s agent do `what` toward `target` (principal ids)."""
        for e in self.edges:
            forward = e.source == source and e.target == target
            backward = e.mutual and e.source == target and e.target == source
            if (forward or backward) and what in e.allows:
                return True
        return False
