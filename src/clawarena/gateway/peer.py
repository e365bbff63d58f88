"""The gateway's own tools: peer messages with attachments, approvals, and skill pages.

Each is one function serving agents, REST-less MCP clients and the scripted controls alike; the
routing (who may write to whom, who is woken, how a principal with no agent under test answers
an approval) is the gateway's (`core.Gateway`), the rows are `network_messages` and
`network_approvals` (services/network), so checks and the diff see them like any table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from clawarena.services.base import ServiceContext
from clawarena.services.network import Attachment
from clawarena.spec import catalog
from clawarena.tools.core import ANY_RESOURCE, ResourceArg, Tool, ToolKind, tool

if TYPE_CHECKING:
    from clawarena.gateway.core import Gateway


@dataclass
class PeerContext(ServiceContext):
    """Context of the gateway's own tools: who is acting, and the gateway to route through."""

    actor: str = ""
    gateway: "Gateway | None" = None

    @property
    def gw(self) -> "Gateway":
        assert self.gateway is not None
        return self.gateway


@tool(ToolKind.SEND, name="send_message")
def send_message(ctx: PeerContext, to: str, text: str, attachments: list[Attachment] = [], reply_to: str | None = None) -> dict[str, Any]:
    """Send a message to another person's delegate agent (it is woken to read it).

    Args:
        to: the agent id or principal id to write to.
        text: the message.
        attachments: resources of your workspace to attach, each {"type": a resource type such as "Listing", "id": its id}; the recipient reads them with read_attachment, as your principal's policy allows.
        reply_to: the id of the message you answer, if any.
    """
    return ctx.gw.network.route_message(ctx, to, text, attachments, reply_to)


@tool(ToolKind.READ, name="list_messages")
def list_messages(ctx: PeerContext, with_: str | None = Field(default=None, alias="with"), limit: int = Field(default=50, ge=1, le=500)) -> dict[str, Any]:
    """List peer messages you sent or received, oldest first.

    Args:
        with_: only those exchanged with this principal or agent id.
        limit: at most this many (the newest ones).
    """
    return ctx.gw.network.list_messages(ctx, with_, limit)


@tool(ToolKind.READ, name="read_attachment")
def read_attachment(ctx: PeerContext, message_id: Annotated[str, ResourceArg(ANY_RESOURCE)], index: int = Field(default=0, ge=0)) -> dict[str, Any]:
    """Read a resource attached to a message you received or sent.

    Args:
        message_id: the message's id.
        index: which attachment (0 is the first).
    """
    return ctx.gw.network.read_attachment(ctx, message_id, index)


@tool(ToolKind.SEND, name="request_approval", action="request")
def request_approval(
    ctx: PeerContext,
    approver: str,
    action: str,
    details: str = "",
    args: dict[str, Any] = {},
    limits: dict[str, int] = {},
    resource: str | None = None,
) -> dict[str, Any]:
    """Ask a principal to approve an action before you take it. An approval covers one call (unless the approver says more) that matches its scope.

    Args:
        approver: principal id of the person whose approval is needed.
        action: the tool you want to call (e.g. 'market_accept_offer'), or its action group (e.g. 'bid').
        details: what exactly you want to do and why.
        args: arguments the approved call will have (the approval covers only calls with these values).
        limits: upper bounds the approved call stays within, e.g. {"amount": 5000}.
        resource: the id of the one resource the approved call acts on, if any.
    """
    return ctx.gw.network.route_approval_request(ctx, approver, action, details, args=args, limits=limits, resource=resource)


@tool(ToolKind.WRITE, name="decide_approval", action="approve")
def decide_approval(ctx: PeerContext, request_id: str, decision: Literal["approve", "deny", "more_info", "escalate"], note: str = "", uses: int = Field(default=1, ge=1, le=100)) -> dict[str, Any]:
    """Answer an approval request addressed to your principal.

    Args:
        request_id: the id of the approval request.
        decision: approve, deny, more_info (ask the requester for more) or escalate.
        note: your reason or question, sent to the requester.
        uses: with approve, how many calls the approval covers (1 unless your principal said more).
    """
    return ctx.gw.network.route_approval_decision(ctx, request_id, decision, note, uses)


@tool(ToolKind.WRITE, name="grant_approval", action="approve")
def grant_approval(ctx: PeerContext, request_id: str) -> dict[str, Any]:
    """Grant an approval request addressed to your principal (decide_approval with approve).

    Args:
        request_id: the id of the approval request.
    """
    return ctx.gw.network.route_approval_decision(ctx, request_id, "approve", "", 1)


@tool(ToolKind.READ, name="list_approvals")
def list_approvals(ctx: PeerContext, status: str | None = None) -> dict[str, Any]:
    """List approval requests you made or that await your principal's decision.

    Args:
        status: only these: pending, approved, denied, more_info, escalated or used.
    """
    return ctx.gw.network.list_approvals(ctx, status)


@tool(ToolKind.READ, name="read_skill")
def read_skill(ctx: PeerContext, service: str, page: str = "") -> dict[str, Any]:
    """Read a skill page: reference documentation for one of your services' tools.

    Args:
        service: the service, e.g. 'gmail'.
        page: the page name; leave empty to list the pages.
    """
    return ctx.gw.skill_page(ctx, service, page)


GATEWAY_TOOLS: tuple[Tool, ...] = (
    send_message, list_messages, read_attachment, request_approval, decide_approval, grant_approval, list_approvals, read_skill,
)  # fmt: skip
for _t in GATEWAY_TOOLS:  # in the task catalog; read_skill comes with the skills lever, never from agents[i].tools
    catalog.register_tool(_t, owner="gateway", selectable=_t is not read_skill)
