"""Shared fixtures and helpers of the Gmail conformance tests."""

from __future__ import annotations

import base64
import copy
import io
from email.message import EmailMessage

import pytest
from googleapiclient.errors import HttpError
from googleapiclient.http import MediaIoBaseUpload

CSV = "region,amount\nnorth,1200\nsouth,900\n"

WORLD = {
    "gmail": {
        "labels": [{"id": "Label_projects", "owner": "alice", "name": "Projects"}],
        "messages": [
            {"id": "a1", "owner": "alice", "from": "Carol Diaz <carol@northwind.example>", "to": ["alice@northwind.example"],
             "subject": "Q3 budget", "body": "Numbers attached. BUDGET-4417", "labels": ["INBOX", "UNREAD"], "thread": "t-budget",
             "at": "2026-03-01T10:00:00Z", "attachments": [{"filename": "budget.csv", "mime_type": "text/csv", "text": CSV}],
             "headers": {"Message-ID": "<a1@northwind.example>"}},
            {"id": "a2", "owner": "alice", "from": "Alice Chen <alice@northwind.example>", "to": ["carol@northwind.example"],
             "subject": "Re: Q3 budget", "body": "Thanks, looks right.", "labels": ["SENT"], "thread": "t-budget",
             "at": "2026-03-01T11:00:00Z", "headers": {"In-Reply-To": "<a1@northwind.example>"}},
            {"id": "a3", "owner": "alice", "from": "Dana Wu <dana@partner.example>", "subject": "Lunch on Friday",
             "body": "Shall we meet at noon?", "labels": ["INBOX", "STARRED"], "at": "2026-02-27T12:00:00Z"},
            {"id": "a4", "owner": "alice", "from": "Northwind Weekly <news@northwind.example>", "subject": "Weekly digest",
             "body": "", "html": "<h1>Digest</h1><p>Parking rules changed.</p>", "labels": ["INBOX", "CATEGORY_UPDATES"],
             "at": "2026-02-20T08:00:00Z", "headers": {"List-Id": "<weekly.northwind.example>"}},
            {"id": "a5", "owner": "alice", "from": "Promo <deals@shop.example>", "subject": "Huge sale", "body": "Buy now",
             "labels": ["TRASH"], "at": "2026-02-25T08:00:00Z"},
            {"id": "a6", "owner": "alice", "from": "Bob Ortiz <bob@northwind.example>", "subject": "Launch plan",
             "body": "Plan v2 is ready.", "labels": ["INBOX", "Label_projects"], "at": "2026-02-28T15:00:00Z", "cc": ["carol@northwind.example"]},
            {"id": "b1", "owner": "bob", "from": "Eve <eve@northwind.example>", "subject": "Bob only", "body": "for bob's eyes",
             "labels": ["INBOX"], "thread": "t-bob", "at": "2026-03-01T09:00:00Z",
             "attachments": [{"filename": "secret.txt", "mime_type": "text/plain", "text": "BOB-SECRET-1"}]},
        ],
        "drafts": [
            {"id": "rdraft1", "message_id": "d1", "owner": "alice", "to": ["bob@northwind.example"], "subject": "Draft plan",
             "body": "Work in progress", "at": "2026-03-02T08:00:00Z"},
            {"id": "rdraftbob", "message_id": "db1", "owner": "bob", "to": ["alice@northwind.example"], "subject": "Bob draft",
             "body": "bob's draft"},
        ],
    }
}  # fmt: skip


def world(**extra) -> dict:
    """A fresh copy of WORLD, with extra gmail fixture keys merged in (lists appended)."""
    out = copy.deepcopy(WORLD)
    for key, value in extra.items():
        out["gmail"][key] = out["gmail"].get(key, []) + value if isinstance(value, list) else value
    return out


def message(to="bob@northwind.example", subject="Hello", body="Hi there", *, sender=None, cc=None, bcc=None, html=None,
            attachments=(), headers=None) -> EmailMessage:  # fmt: skip
    msg = EmailMessage()
    if sender:
        msg["From"] = sender
    if to:
        msg["To"] = to
    if cc:
        msg["Cc"] = cc
    if bcc:
        msg["Bcc"] = bcc
    msg["Subject"] = subject
    for k, v in (headers or {}).items():
        msg[k] = v
    msg.set_content(body)
    if html:
        msg.add_alternative(html, subtype="html")
    for filename, mime_type, data in attachments:
        maintype, subtype = mime_type.split("/")
        msg.add_attachment(data if isinstance(data, bytes) else data.encode(), maintype=maintype, subtype=subtype, filename=filename)
    return msg


def raw(*args, **kwargs) -> str:
    return base64.urlsafe_b64encode(message(*args, **kwargs).as_bytes()).decode()


def upload(*args, **kwargs) -> MediaIoBaseUpload:
    return MediaIoBaseUpload(io.BytesIO(message(*args, **kwargs).as_bytes()), mimetype="message/rfc822")


def b64d(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def http_error(request) -> HttpError:
    with pytest.raises(HttpError) as info:
        request.execute()
    return info.value


def refusals(world) -> list[tuple[str, int, str]]:
    return [(e.actor, e.payload["status"], e.payload["tool"]) for e in world.ledger.of_kind("refused")]


def deliveries(world) -> list[tuple[str, str, str]]:
    return [(e.payload["sender"], e.payload["to"], e.payload["subject"]) for e in world.ledger.of_kind("delivery")]


def headers(resource: dict) -> dict[str, str]:
    return {h["name"]: h["value"] for h in resource["payload"]["headers"]}


def rows(world, **where) -> list[dict]:
    return world.store.select("gmail_messages", where)
