"""RFC 2822 both ways and the Gmail `Message` resource, from a message row."""

from __future__ import annotations

import base64
import binascii
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import format_datetime, getaddresses
from datetime import datetime, timezone
from typing import Any

from clawarena.services.base import invalid


def b64url_encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def b64url_decode(text: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError) as exc:
        raise invalid("Invalid value for ByteString") from exc


def rfc2822_date(ms: int) -> str:
    return format_datetime(datetime.fromtimestamp(ms / 1000, tz=timezone.utc))


def addresses(values: list[str]) -> list[str]:
    """Bare addresses from 'Name <addr>' forms."""
    return [addr for _, addr in getaddresses(values) if addr]


def headers_of(row: dict[str, Any]) -> list[dict[str, str]]:
    hdrs = [
        ("From", row["sender"]),
        ("To", ", ".join(row["to_addrs"])),
        ("Cc", ", ".join(row["cc_addrs"])),
        ("Subject", row["subject"]),
        ("Date", rfc2822_date(row["date_ms"])),
        ("Message-ID", row["message_id_header"]),
        ("In-Reply-To", row["in_reply_to"] or ""),
    ]
    return [{"name": n, "value": v} for n, v in hdrs if v]


def to_email(row: dict[str, Any]) -> EmailMessage:
    msg = EmailMessage(policy=policy.SMTP)
    for h in headers_of(row):
        msg[h["name"]] = h["value"]
    msg.set_content(row["body"])
    return msg


def snippet(body: str) -> str:
    return " ".join(body.split())[:200]


def message_resource(row: dict[str, Any], fmt: str = "full", metadata_headers: list[str] | None = None) -> dict[str, Any]:
    """The Gmail Message resource for a row in the given format."""
    body_bytes = row["body"].encode()
    headers = headers_of(row)
    # Gmail's sizeEstimate is approximate too; building the RFC 2822 text costs ~2 ms, so estimate it.
    size = sum(len(h["name"]) + len(h["value"].encode()) + 4 for h in headers) + 2 + len(body_bytes)
    out: dict[str, Any] = {
        "id": row["id"],
        "threadId": row["thread_id"],
        "labelIds": list(row["label_ids"]),
        "snippet": snippet(row["body"]),
        "historyId": str(row["history_id"]),
        "internalDate": str(row["date_ms"]),
        "sizeEstimate": size,
    }
    if fmt == "minimal":
        return out
    if fmt == "raw":
        out["raw"] = b64url_encode(to_email(row).as_bytes())
        return out
    if fmt == "metadata":
        if metadata_headers:
            wanted = {h.lower() for h in metadata_headers}
            headers = [h for h in headers if h["name"].lower() in wanted]
        out["payload"] = {"mimeType": "text/plain", "headers": headers}
        return out
    out["payload"] = {
        "partId": "",
        "mimeType": "text/plain",
        "filename": "",
        "headers": headers + [{"name": "Content-Type", "value": 'text/plain; charset="UTF-8"'}],
        "body": {"size": len(body_bytes), "data": b64url_encode(body_bytes)},
    }
    return out


def parse_raw(raw: str) -> EmailMessage:
    """Parse a base64url RFC 2822 message as a client sends it."""
    parsed = BytesParser(policy=policy.default).parsebytes(b64url_decode(raw))
    return parsed  # type: ignore[return-value]


def text_body(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain", "html")) if msg.is_multipart() else msg
    if part is None:
        return ""
    try:
        return str(part.get_content()).rstrip("\n")
    except (LookupError, KeyError):
        payload = part.get_payload(decode=True) or b""
        return payload.decode("utf-8", "replace").rstrip("\n")
