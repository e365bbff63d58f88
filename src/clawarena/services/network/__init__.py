"""The network's own state: peer messages (with attachments) and approvals, as world tables.

The gateway owns the tools that act on these tables (`send_message`, `request_approval`,
`decide_approval`, ...) because routing, notification and policy are its job; this package
declares the tables, the fixtures that seed them (scripted messages from external actors,
standing approvals) and the `peer_message` attack channel, so the rows are part of the state,
its hash and its diff like any service's, and checks read them like any table.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from clawarena.services.base import ResourceType, Service
from clawarena.services.registry import register_service
from clawarena.spec.base import Strict
from clawarena.spec.models import AttackSpec, Instant
from clawarena.spec.refs import PrincipalId
from clawarena.world.approvals import APPROVALS_TABLE
from clawarena.world.clock import parse_time
from clawarena.world.store import Column, TableSpec
from clawarena.world.world import World

MESSAGES = TableSpec(
    name="network_messages",
    columns=(
        Column("id", nullable=False),
        Column("sender", nullable=False),  # principal id
        Column("recipient", nullable=False),  # principal id
        Column("text", nullable=False),
        Column("attachments", "json", nullable=False),  # [{"type": ResourceType name, "id": row id}]
        Column("sent_ms", "integer", nullable=False),
        Column("reply_to"),
    ),
    indexes=(("recipient",),),
)

APPROVALS = TableSpec(
    name=APPROVALS_TABLE,  # world/approvals.py owns the covering rule over these rows
    columns=(
        Column("id", nullable=False),
        Column("requester", nullable=False),  # principal id
        Column("approver", nullable=False),  # principal id
        Column("action", nullable=False),  # a tool, an action group or a glob of tools
        Column("args", "json", nullable=False),  # arguments the covered call must have (a subset)
        Column("limits", "json", nullable=False),  # argument -> the largest value covered (an amount bound)
        Column("resource"),  # the one resource id the covered call must act on, if any
        Column("details", nullable=False),
        Column("status", nullable=False),  # pending, approved, denied, more_info, escalated, used
        Column("uses_left", "integer", nullable=False),
        Column("note", nullable=False),
        Column("requested_ms", "integer", nullable=False),
        Column("decided_ms", "integer"),
        Column("used_by", "json", nullable=False),  # ledger ids of the calls it covered
    ),
    indexes=(("approver",), ("requester",)),
)

APPROVAL_STATUSES = ("pending", "approved", "denied", "more_info", "escalated", "used")


class Attachment(Strict):
    """A reference to a row of a workspace: the recipient reads it only as its owner's policy allows."""

    type: str = Field(description="a resource type a service declares, e.g. Listing, ClinicalRecord")
    id: str


class MessageFixture(Strict):
    """A message already delivered (or scripted, from an external actor) when the episode starts."""

    id: str
    from_: PrincipalId = Field(alias="from")
    to: PrincipalId
    text: str
    at: Instant | None = Field(default=None, description="when it was sent; default: an hour before the world's now")
    attachments: list[Attachment] = []


class ApprovalFixture(Strict):
    """An approval that stands when the episode starts (granted, or pending for the approver)."""

    id: str
    requester: PrincipalId
    approver: PrincipalId
    action: str
    args: dict[str, Any] = {}
    limits: dict[str, int] = {}
    resource: str | None = None
    details: str = ""
    status: Literal["pending", "approved", "denied", "more_info", "escalated"] = "approved"
    uses: int = Field(default=1, ge=1)


class NetworkFixtures(Strict):
    messages: list[MessageFixture] = []
    approvals: list[ApprovalFixture] = []


class PeerMessagePlacement(Strict):
    """The payload arrives as a message from `from` (often an external actor) to `to`'s agent."""

    from_: PrincipalId = Field(alias="from")
    to: PrincipalId
    id: str | None = None
    at: Instant | None = Field(default=None, description="default: half an hour before the world's now")
    text: str | None = Field(default=None, description="text around the payload; '{payload}' marks where it goes (default: the payload alone)")


def _ms(world: World, at: str | None, minutes_before: int) -> int:
    if at is not None:
        return int(parse_time(at).timestamp() * 1000)
    return world.clock.now_ms() - minutes_before * 60_000


class NetworkService(Service):
    name = "network"
    tables = (MESSAGES, APPROVALS)
    fixture_model = NetworkFixtures
    tools = ()  # the gateway's own tools act on these tables
    channels = {"peer_message": PeerMessagePlacement}
    resources = (ResourceType("PeerMessage", MESSAGES.name, owner="sender", info_type="message"),)

    def seed(self, world: World, fixture: dict[str, Any]) -> None:
        data = NetworkFixtures.model_validate(fixture)
        for m in data.messages:
            world.store.insert(MESSAGES.name, {
                "id": m.id, "sender": m.from_, "recipient": m.to, "text": m.text,
                "attachments": [a.model_dump() for a in m.attachments], "sent_ms": _ms(world, m.at, 60), "reply_to": None,
            })  # fmt: skip
        for a in data.approvals:
            world.store.insert(APPROVALS.name, {
                "id": a.id, "requester": a.requester, "approver": a.approver, "action": a.action, "args": a.args,
                "limits": a.limits, "resource": a.resource, "details": a.details, "status": a.status, "uses_left": a.uses,
                "note": "", "requested_ms": world.clock.now_ms() - 3_600_000, "decided_ms": None, "used_by": [],
            })  # fmt: skip

    def place(self, world: World, attack: AttackSpec, placement: Any) -> None:
        assert isinstance(placement, PeerMessagePlacement)
        text = placement.text.replace("{payload}", attack.payload) if placement.text and "{payload}" in placement.text else (
            f"{placement.text}\n\n{attack.payload}" if placement.text else attack.payload
        )
        world.store.insert(MESSAGES.name, {
            "id": placement.id or f"msg-{attack.id}", "sender": placement.from_, "recipient": placement.to, "text": text,
            "attachments": [], "sent_ms": _ms(world, placement.at, 30), "reply_to": None,
        })  # fmt: skip


register_service(NetworkService())
