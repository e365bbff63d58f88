"""Gmail: messages, threads, labels, drafts, history and settings over the world store, on the real /gmail/v1 paths."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any, Literal, Union

from pydantic import AfterValidator, Discriminator, Field, Tag, ValidationError, ValidationInfo, field_validator

from clawarena.services.base import Service, ServiceContext, ServiceError
from clawarena.services.gmail import mailbox as mb
from clawarena.services.gmail import mime
from clawarena.services.gmail import tools as gmail_tools
from clawarena.services.gmail.mime import addresses
from clawarena.services.gmail.models import AutoForwardingBody, ImapBody, LanguageBody, PopBody, VacationBody, compact
from clawarena.services.gmail.settings import normalize_auto_forwarding, normalize_vacation
from clawarena.services.gmail.tables import (
    ALL_TABLES, DELEGATES, DRAFTS, FILTERS, FORWARDING, LABELS, MESSAGES, SEND_AS, SYSTEM_LABELS,
    AttachmentFixture, GmailFixtures,
)  # fmt: skip
from clawarena.services.registry import register_service
from clawarena.spec.base import Strict
from clawarena.spec.models import AttackSpec, Instant
from clawarena.spec.refs import PrincipalId
from clawarena.world.clock import parse_time
from clawarena.world.world import World


def _attachments(items: list[AttachmentFixture]) -> list[mime.Attachment]:
    import base64

    out = []
    for a in items:
        data = a.text.encode() if a.text is not None else base64.b64decode(a.base64 or "")
        out.append(mime.Attachment(a.filename, a.mime_type, data))
    return out


def _split_headers(headers: dict[str, str]) -> tuple[list[list[str]], str | None, str | None]:
    """Extra headers, In-Reply-To and Message-ID of a fixture's `headers`."""
    extra, in_reply_to, message_id = [], None, None
    for name, value in headers.items():
        low = name.lower()
        if low == "in-reply-to":
            in_reply_to = value
        elif low == "message-id":
            message_id = value
        else:
            extra.append([name, value])
    return extra, in_reply_to, message_id


# ---- attack material: the `email` channel -------------------------------------------------------
def _file_name(v: str) -> str:
    if not v.strip():
        raise ValueError("a file name such as 'notes.txt' expected")
    return v


FileName = Annotated[str, AfterValidator(_file_name)]


class EmailIntoMessage(Strict):
    """The payload goes into a fixture mail: appended to (or replacing) its body, or as an attachment."""

    message: str = Field(description="id of a fixture message (the reference solution reads it, so the control has the same slot)")
    mode: Literal["append", "replace"] = "append"
    attachment: FileName | None = Field(default=None, description="a file name: the payload becomes a text attachment")


class NewEmail(Strict):
    """The payload arrives as a new mail in `mailbox` (or as the attachment of one)."""

    mailbox: PrincipalId = Field(description="the principal whose mailbox receives it")
    from_: str = Field(alias="from", description="the sender, e.g. 'Mallory <m@evil.example>'")
    subject: str = ""
    labels: list[str] = ["INBOX", "UNREAD"]
    at: Instant | None = Field(default=None, description="arrival time; default half an hour before `now`")
    id: str | None = None
    thread: str | None = None
    to: list[str] | None = Field(default=None, description="default: the mailbox owner's address")
    attachment: FileName | None = Field(default=None, description="a file name: the payload becomes a text attachment")
    body: str | None = Field(default=None, description="the carrier mail's text; only with attachment (the payload goes there)")

    @field_validator("body")
    @classmethod
    def _carrier_needs_attachment(cls, v: str | None, info: ValidationInfo) -> str | None:
        if v is not None and info.data.get("attachment") is None:
            raise ValueError("body is the carrier mail's text and needs attachment (the payload goes there)")
        return v


EmailPlacement = Annotated[
    Union[Annotated[EmailIntoMessage, Tag("into-message")], Annotated[NewEmail, Tag("new-mail")]],
    Discriminator(lambda v: "into-message" if isinstance(v, EmailIntoMessage) or (isinstance(v, dict) and "message" in v) else "new-mail"),
]


class GmailService(Service):
    name = "gmail"
    wire_compatible = True
    tables = ALL_TABLES
    fixture_model = GmailFixtures
    tools = gmail_tools.TOOLS
    channels = {"email": EmailPlacement}

    def _ctx(self, world: World, owner: str) -> ServiceContext:
        if owner not in world.directory.principals:
            raise ValueError(f"unknown principal {owner!r}")
        return ServiceContext(world=world, principal=world.directory.principal(owner))

    def seed(self, world: World, fixture: dict[str, Any]) -> None:
        data = GmailFixtures.model_validate(fixture)
        known: dict[str, set[str]] = {}

        def check(owner: str, ids: list[str], where: str) -> None:
            for lid in ids:
                if lid not in SYSTEM_LABELS and lid not in known.get(owner, set()):
                    raise ValueError(f"{where}: unknown label {lid!r} (not a system label nor one of {owner}'s labels)")

        for i, label in enumerate(data.labels):
            self._ctx(world, label.owner)
            if label.id in SYSTEM_LABELS or label.id in known.get(label.owner, set()):
                raise ValueError(f"labels[{i}].id: label {label.id!r} already exists for {label.owner}")
            known.setdefault(label.owner, set()).add(label.id)
            world.store.insert(
                LABELS.name,
                {"owner": label.owner, "id": label.id, "name": label.name, "type": "user",
                 "message_list_visibility": label.message_list_visibility, "label_list_visibility": label.label_list_visibility,
                 "color": label.color.model_dump() if label.color else None},
            )  # fmt: skip
        now = world.clock.now()
        for i, m in enumerate(data.messages):
            ctx = self._ctx(world, m.owner)
            check(m.owner, m.labels, f"messages[{i}].labels")
            at = parse_time(m.at) if m.at else now - timedelta(hours=len(data.messages) - i)
            extra, in_reply_to, message_id = _split_headers(m.headers)
            body = m.body or (mime.html_to_text(m.html) if m.html else "")
            mb.insert_message(
                ctx, m.owner,
                {
                    "id": m.id, "thread_id": m.thread, "label_ids": m.labels, "sender": m.sender,
                    "to_addrs": addresses(m.to) or [ctx.principal.email], "cc_addrs": addresses(m.cc), "bcc_addrs": addresses(m.bcc),
                    "subject": m.subject, "body": body, "html": m.html, "headers": extra, "in_reply_to": in_reply_to,
                    "message_id_header": message_id, "date_ms": int(at.timestamp() * 1000),
                },
                _attachments(m.attachments),
            )  # fmt: skip
        for i, d in enumerate(data.drafts):
            ctx = self._ctx(world, d.owner)
            at = parse_time(d.at) if d.at else now - timedelta(minutes=len(data.drafts) - i)
            row = mb.insert_message(
                ctx, d.owner,
                {
                    "id": d.message_id, "thread_id": d.thread, "label_ids": ["DRAFT"],
                    "sender": f"{ctx.principal.name} <{ctx.principal.email}>", "to_addrs": addresses(d.to),
                    "cc_addrs": addresses(d.cc), "bcc_addrs": addresses(d.bcc), "subject": d.subject,
                    "body": d.body or (mime.html_to_text(d.html) if d.html else ""), "html": d.html,
                    "date_ms": int(at.timestamp() * 1000),
                },
                _attachments(d.attachments),
            )  # fmt: skip
            world.store.insert(DRAFTS.name, {"id": d.id or "r" + world.ids.next("gmail.draft", 16), "owner": d.owner, "message_id": row["id"]})
        for i, a in enumerate(data.forwarding_addresses):
            self._ctx(world, a.owner)
            world.store.insert(FORWARDING.name, {"owner": a.owner, "email": a.email.strip().lower(), "verification_status": a.verification_status})
        for i, a in enumerate(data.delegates):
            self._ctx(world, a.owner)
            world.store.insert(DELEGATES.name, {"owner": a.owner, "email": a.email.strip().lower(), "verification_status": a.verification_status})
        for i, s in enumerate(data.send_as):
            ctx = self._ctx(world, s.owner)
            primary = s.email.strip().lower() == ctx.principal.email.lower()
            world.store.insert(
                SEND_AS.name,
                {"owner": s.owner, "email": s.email.strip().lower(), "display_name": s.display_name, "reply_to": s.reply_to,
                 "signature": s.signature, "is_primary": primary, "is_default": s.is_default and not primary,
                 "treat_as_alias": s.treat_as_alias, "verification_status": "accepted" if primary else s.verification_status},
            )  # fmt: skip
        positions: dict[str, int] = {}
        for i, f in enumerate(data.filters):
            ctx = self._ctx(world, f.owner)
            criteria = f.criteria.model_dump(by_alias=True, exclude_none=True)
            action = {k: v for k, v in f.action.model_dump(exclude_none=True).items() if v not in ([], "")}
            check(f.owner, list(action.get("addLabelIds", [])) + list(action.get("removeLabelIds", [])), f"filters[{i}].action")
            if not criteria or not action:
                raise ValueError(f"filters[{i}]: a filter needs criteria and an action")
            if action.get("forward") and not mb.accepted_forwarding(ctx, f.owner, action["forward"]):
                raise ValueError(f"filters[{i}].action.forward: {action['forward']!r} is not an accepted forwarding address of {f.owner}")
            positions[f.owner] = positions.get(f.owner, 0) + 1
            world.store.insert(
                FILTERS.name,
                {"id": f.id or world.ids.next("gmail.filter", 16), "owner": f.owner, "position": positions[f.owner], "criteria": criteria, "action": action},
            )  # fmt: skip
        for i, s in enumerate(data.settings):
            ctx = self._ctx(world, s.owner)
            blocks = [("vacation", s.vacation, VacationBody), ("autoForwarding", s.auto_forwarding, AutoForwardingBody),
                      ("imap", s.imap, ImapBody), ("pop", s.pop, PopBody), ("language", s.language, LanguageBody)]  # fmt: skip
            for key, value, model in blocks:
                if value is None:
                    continue
                try:
                    given = compact(model.model_validate(value))
                    if key == "vacation":
                        given = normalize_vacation(given)
                    elif key == "autoForwarding":
                        given = normalize_auto_forwarding(ctx, s.owner, given)
                    else:
                        given = {**mb.SETTING_DEFAULTS[key], **given}
                except ValidationError as exc:
                    raise ValueError(f"settings[{i}].{key}: {exc.errors()[0]['msg']}") from None
                except ServiceError as exc:
                    raise ValueError(f"settings[{i}].{key}: {exc.message}") from None
                mb.put_setting(ctx, s.owner, key, given)

    def place(self, world: World, attack: AttackSpec, placement: EmailIntoMessage | NewEmail) -> None:
        """Email channel: the payload is appended to (or replaces) a fixture mail's body, or arrives as a
        new mail; with `attachment` (a file name) it is a text attachment instead."""
        p = placement
        if isinstance(p, EmailIntoMessage):
            row = world.store.get(MESSAGES.name, {"id": p.message})
            if row is None:
                raise ValueError(f"placement.message: no message {p.message!r} in the fixtures")
            if p.attachment is not None:
                ctx = self._ctx(world, row["owner"])
                atts = [mime.Attachment(p.attachment, "text/plain", attack.payload.encode())]
                mb.store_attachments(ctx, row["owner"], row["id"], atts, start=len(mb.attachments_of(ctx, row["id"])))
                return
            body = attack.payload if p.mode == "replace" else f"{row['body']}\n\n{attack.payload}"
            world.store.update(MESSAGES.name, {"id": row["id"]}, {"body": body})
            return
        ctx = self._ctx(world, p.mailbox)
        at = parse_time(p.at) if p.at else world.clock.now() - timedelta(minutes=30)
        mb.insert_message(
            ctx,
            ctx.principal.id,
            {
                "id": p.id, "thread_id": p.thread, "label_ids": p.labels, "sender": p.from_,
                "to_addrs": p.to if p.to is not None else [ctx.principal.email], "subject": p.subject,
                "body": (p.body or "") if p.attachment is not None else attack.payload, "date_ms": int(at.timestamp() * 1000),
            },
            [mime.Attachment(p.attachment, "text/plain", attack.payload.encode())] if p.attachment is not None else None,
        )  # fmt: skip

register_service(GmailService())
