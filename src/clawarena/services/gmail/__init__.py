"""Gmail: messages and labels over the world store, on the real /gmail/v1 paths."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from clawarena.services.base import Service, ServiceContext
from clawarena.services.gmail import tools as gmail_tools
from clawarena.services.gmail.mime import addresses
from clawarena.services.gmail.tables import LABELS, MESSAGES, GmailFixtures
from clawarena.services.registry import register_service
from clawarena.spec.models import AttackSpec
from clawarena.world.clock import parse_time
from clawarena.world.world import World

class GmailService(Service):
    name = "gmail"
    tables = (MESSAGES, LABELS)
    fixture_model = GmailFixtures
    tools = gmail_tools.TOOLS
    channels = ("email",)

    def _ctx(self, world: World, owner: str) -> ServiceContext:
        if owner not in world.directory.principals:
            raise ValueError(f"unknown principal {owner!r}")
        return ServiceContext(world=world, principal=world.directory.principal(owner))

    def seed(self, world: World, fixture: dict[str, Any]) -> None:
        data = GmailFixtures.model_validate(fixture)
        for label in data.labels:
            self._ctx(world, label.owner)
            world.store.insert(LABELS.name, {"owner": label.owner, "id": label.id, "name": label.name, "type": "user"})
        now = world.clock.now()
        for i, m in enumerate(data.messages):
            ctx = self._ctx(world, m.owner)
            at = parse_time(m.at) if m.at else now - timedelta(hours=len(data.messages) - i)
            gmail_tools.insert_message(
                ctx,
                m.owner,
                {
                    "id": m.id, "thread_id": m.thread, "label_ids": m.labels, "sender": m.sender,
                    "to_addrs": addresses(m.to) or [ctx.principal.email], "cc_addrs": addresses(m.cc),
                    "subject": m.subject, "body": m.body, "date_ms": int(at.timestamp() * 1000),
                },
            )  # fmt: skip

    def place(self, world: World, attack: AttackSpec) -> None:
        """Email channel: the payload is appended to an existing mail (`placement.message`),
        or arrives as a new mail in `placement.mailbox` from `placement.from`."""
        p = dict(attack.placement)
        if "message" in p:
            unknown = set(p) - {"message", "mode"}
            if unknown:
                raise ValueError(f"unknown placement field(s) {sorted(unknown)} with placement.message (allowed: message, mode)")
            row = world.store.get(MESSAGES.name, {"id": p["message"]})
            if row is None:
                raise ValueError(f"placement.message: no message {p['message']!r} in the fixtures")
            mode = p.get("mode", "append")
            if mode not in ("append", "replace"):
                raise ValueError(f"placement.mode: unknown mode {mode!r} (expected append or replace)")
            body = attack.payload if mode == "replace" else f"{row['body']}\n\n{attack.payload}"
            world.store.update(MESSAGES.name, {"id": row["id"]}, {"body": body})
            return
        allowed = {"mailbox", "from", "subject", "labels", "at", "id", "thread", "to"}
        unknown = set(p) - allowed
        if unknown:
            raise ValueError(f"unknown placement field(s) {sorted(unknown)} for channel email (allowed: {sorted(allowed)})")
        if "mailbox" not in p or "from" not in p:
            raise ValueError("channel email needs placement.mailbox (a principal id) and placement.from")
        ctx = self._ctx(world, p["mailbox"])
        at = parse_time(p["at"]) if p.get("at") else world.clock.now() - timedelta(minutes=30)
        gmail_tools.insert_message(
            ctx,
            ctx.principal.id,
            {
                "id": p.get("id"), "thread_id": p.get("thread"), "label_ids": p.get("labels", ["INBOX", "UNREAD"]),
                "sender": p["from"], "to_addrs": p.get("to", [ctx.principal.email]), "subject": p.get("subject", ""),
                "body": attack.payload, "date_ms": int(at.timestamp() * 1000),
            },
        )  # fmt: skip


register_service(GmailService())
