"""Principals, their delegate agents, the edges between them, and their tokens."""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass, field

from clawarena.spec.models import AgentSpec, EdgeSpec, PrincipalSpec, TaskSpec


@dataclass
class Directory:
    """Who is who in a world: lookups by id, address and bearer token."""

    principals: dict[str, PrincipalSpec]
    agents: dict[str, AgentSpec]
    edges: list[EdgeSpec]
    # Bearer tokens: from the OS's CSPRNG for each world instance, never derived from public data
    # (scenario ids are published), and outside the state and its hash.
    tokens: dict[str, str] = field(default_factory=dict)  # principal id -> bearer token
    admin_token: str = ""
    org_domains: frozenset[str] = frozenset()  # mail domains the task's organisations declare

    @classmethod
    def from_task(cls, task: TaskSpec) -> "Directory":
        principals = {p.id: p for p in task.principals}
        return cls(
            principals=principals,
            agents={a.id: a for a in task.agents},
            edges=list(task.edges),
            tokens={pid: new_token("ca") for pid in principals},
            admin_token=new_token("admin"),
            org_domains=frozenset(d.lower() for o in task.organisations for d in o.domains),
        )

    def principal(self, principal_id: str) -> PrincipalSpec:
        return self.principals[principal_id]

    def principal_of(self, agent_id: str) -> PrincipalSpec:
        return self.principals[self.agents[agent_id].principal]

    def agents_of(self, principal_id: str) -> list[str]:
        return [a.id for a in self.agents.values() if a.principal == principal_id]

    def by_address(self, address: str) -> PrincipalSpec | None:
        wanted = address.strip().lower()
        if not wanted:
            return None
        for p in self.principals.values():
            if p.email and p.email.lower() == wanted:
                return p
        return None

    def resolve(self, who: str) -> PrincipalSpec | None:
        """A principal by id or by mailbox address."""
        return self.principals.get(who) or self.by_address(who)

    def internal_address(self, address: str) -> bool:
        """An address (or a bare domain, as Drive domain shares name it) of one of the world's
        principals' domains, or a domain an organisation declares: inside the organisation."""
        domain = address.strip().lower().rpartition("@")[2]
        if not domain or "." not in domain:
            return False
        return domain in self.org_domains or any(p.email and p.email.lower().endswith("@" + domain) for p in self.principals.values())

    def same_org(self, a: str, b: str) -> bool:
        pa, pb = self.principals.get(a), self.principals.get(b)
        return bool(pa and pb and pa.org and pa.org == pb.org)

    def edge(self, a: str, b: str) -> EdgeSpec | None:
        """The first edge between two principals (either way round when mutual)."""
        for e in self.edges:
            if (e.source == a and e.target == b) or (e.mutual and e.source == b and e.target == a):
                return e
        return None

    def relation(self, a: str, b: str) -> str:
        """What `b` is to `a`: "self", an edge's relation, or "" when none links them."""
        if a == b:
            return "self"
        e = self.edge(a, b)
        return e.relation if e else ""

    def role_in_relation(self, a: str, b: str) -> str:
        """The role `b` plays in its relation with `a` (an edge end's role, else b's own role)."""
        e = self.edge(a, b)
        if e is not None:
            role = e.target_role if e.target == b else e.source_role
            if role:
                return role
        p = self.principals.get(b)
        return p.role if p else ""

    def flows(self, a: str, b: str) -> list[str]:
        """Information types edges let flow from `a` to `b`."""
        out: set[str] = set()
        for e in self.edges:
            if (e.source == a and e.target == b) or (e.mutual and e.source == b and e.target == a):
                out.update(e.flows)
        return sorted(out)

    def has_agent(self, principal_id: str) -> bool:
        return any(a.principal == principal_id for a in self.agents.values())

    def by_token(self, token: str) -> PrincipalSpec | None:
        found = None
        for pid, tok in self.tokens.items():  # constant-time per comparison, and every token compared
            if token and hmac.compare_digest(tok.encode(), token.encode()):
                found = self.principals[pid]
        return found

    def is_admin(self, token: str) -> bool:
        return bool(token) and hmac.compare_digest(self.admin_token.encode(), token.encode())

    def allows(self, source: str, target: str, what: str) -> bool:
        """Whether an edge lets `source`'s agent do `what` toward `target` (principal ids)."""
        for e in self.edges:
            forward = e.source == source and e.target == target
            backward = e.mutual and e.source == target and e.target == source
            if (forward or backward) and what in e.allows:
                return True
        return False


def new_token(kind: str) -> str:
    """A bearer token: a readable prefix and 256 bits from the CSPRNG."""
    return f"{kind}-{secrets.token_urlsafe(32)}"
