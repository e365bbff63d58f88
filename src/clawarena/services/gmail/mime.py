"""RFC 2822 both ways and the Gmail `Message` resource, from a message row and its attachments.

A stored message is structured: headers in columns, a text body, an optional
HTML alternative and attachment rows. `layout` turns that into one MIME tree
(multipart/mixed around multipart/alternative around the text parts, as mail
clients build it); the `payload` of format=full and the RFC 2822 text of
format=raw are both rendered from that tree, with deterministic boundaries.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email import policy
from email.message import EmailMessage, MIMEPart
from email.parser import BytesParser
from email.utils import format_datetime, getaddresses, parsedate_to_datetime
from html.parser import HTMLParser
from typing import Any

from clawarena.services.base import invalid

Row = dict[str, Any]


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
    return [addr for _, addr in getaddresses([str(v) for v in values]) if addr]


def address_of(value: str) -> str:
    found = addresses([value])
    return found[0].lower() if found else value.strip().lower()


def snippet(body: str) -> str:
    return " ".join(body.split())[:200]


class _TextOfHtml(HTMLParser):
    BREAKS = {"br", "p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "table", "ul", "ol"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in ("script", "style", "head"):
            self.skip += 1
        elif tag in self.BREAKS:
            self.out.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "head"):
            self.skip = max(0, self.skip - 1)
        elif tag in self.BREAKS:
            self.out.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.out.append(data)


def html_to_text(html: str) -> str:
    parser = _TextOfHtml()
    parser.feed(html)
    parser.close()
    lines = [" ".join(line.split()) for line in "".join(parser.out).splitlines()]
    text = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


# ---- parsing what clients send ----------------------------------------------------------
_MODELLED = {
    "from", "to", "cc", "bcc", "subject", "date", "message-id", "in-reply-to", "mime-version",
    "content-type", "content-transfer-encoding", "content-disposition",
}  # fmt: skip


@dataclass
class Attachment:
    filename: str
    mime_type: str
    data: bytes
    content_id: str | None = None


@dataclass
class Parsed:
    """The parts of an RFC 2822 message the mailbox stores."""

    sender: str = ""
    to: list[str] = field(default_factory=list)
    cc: list[str] = field(default_factory=list)
    bcc: list[str] = field(default_factory=list)
    subject: str = ""
    text: str = ""
    html: str | None = None
    attachments: list[Attachment] = field(default_factory=list)
    message_id: str | None = None
    in_reply_to: str | None = None
    date_ms: int | None = None
    extra: list[list[str]] = field(default_factory=list)

    @property
    def recipients(self) -> list[str]:
        return list(dict.fromkeys(self.to + self.cc + self.bcc))

    @property
    def references(self) -> list[str]:
        for name, value in self.extra:
            if name.lower() == "references":
                return value.split()
        return []


def parse_bytes(data: bytes) -> EmailMessage:
    if not data.strip():
        raise invalid("'raw' RFC822 payload message string or uploading message via /upload/* URL required")
    return BytesParser(policy=policy.default).parsebytes(data)  # type: ignore[return-value]


def parse_raw(raw: str) -> EmailMessage:
    """Parse a base64url RFC 2822 message as a client sends it."""
    return parse_bytes(b64url_decode(raw))


def _content_text(part: Any) -> str:
    try:
        text = str(part.get_content())
    except (LookupError, KeyError, ValueError):
        payload = part.get_payload(decode=True) or b""
        text = payload.decode("utf-8", "replace")
    return text.replace("\r\n", "\n")


def text_body(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain", "html")) if msg.is_multipart() else msg
    if part is None:
        return ""
    return _content_text(part).rstrip("\n")


def _leaves(part: Any):
    if part.get_content_maintype() == "multipart":
        for sub in part.iter_parts():
            yield from _leaves(sub)
    else:
        yield part


def _part_bytes(part: Any) -> bytes:
    if part.get_content_maintype() == "message":
        inner = part.get_payload()
        if isinstance(inner, list) and inner:
            return inner[0].as_bytes()
        return str(inner or "").encode()
    return part.get_payload(decode=True) or b""


def parse(msg: EmailMessage) -> Parsed:
    """Headers, text, HTML and attachments of a parsed message."""
    ctype = msg.get_content_type()
    plain = msg.get_body(preferencelist=("plain",)) if ctype.startswith(("multipart/", "text/plain")) else None
    html_part = msg.get_body(preferencelist=("html",)) if ctype.startswith(("multipart/", "text/html")) else None
    html = _content_text(html_part).rstrip("\n") if html_part is not None else None
    if plain is not None:
        text = _content_text(plain).rstrip("\n")
    elif html is not None:
        text = html_to_text(html)
    else:
        text = ""
    attachments = []
    for leaf in _leaves(msg):
        if leaf is plain or leaf is html_part:
            continue
        if leaf is msg and ctype.startswith("text/") and plain is None and html_part is None:
            text = _content_text(msg).rstrip("\n")  # a text/* body of another subtype (text/calendar, ...)
            continue
        cid = leaf.get("Content-ID")
        attachments.append(Attachment(leaf.get_filename() or "", leaf.get_content_type(), _part_bytes(leaf), str(cid) if cid else None))
    date_ms = None
    if msg.get("Date"):
        try:
            moment = parsedate_to_datetime(str(msg["Date"]))
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=timezone.utc)
            date_ms = int(moment.timestamp() * 1000)
        except (TypeError, ValueError, IndexError):
            date_ms = None
    extra = [[str(k), str(v)] for k, v in msg.items() if k.lower() not in _MODELLED]
    return Parsed(
        sender=str(msg.get("From", "") or ""),
        to=addresses(msg.get_all("To", [])),
        cc=addresses(msg.get_all("Cc", [])),
        bcc=addresses(msg.get_all("Bcc", [])),
        subject=str(msg.get("Subject", "") or ""),
        text=text,
        html=html,
        attachments=attachments,
        message_id=str(msg["Message-ID"]).strip() if msg.get("Message-ID") else None,
        in_reply_to=str(msg["In-Reply-To"]).strip() if msg.get("In-Reply-To") else None,
        date_ms=date_ms,
        extra=extra,
    )


# ---- the Message resource ---------------------------------------------------------------
def headers_of(row: Row) -> list[dict[str, str]]:
    hdrs = [
        ("From", row["sender"]),
        ("To", ", ".join(row["to_addrs"])),
        ("Cc", ", ".join(row["cc_addrs"])),
        ("Bcc", ", ".join(row.get("bcc_addrs") or [])),
        ("Subject", row["subject"]),
        ("Date", rfc2822_date(row["date_ms"])),
        ("Message-ID", row["message_id_header"]),
        ("In-Reply-To", row["in_reply_to"] or ""),
    ]
    out = [{"name": n, "value": v} for n, v in hdrs if v]
    out += [{"name": n, "value": v} for n, v in (row.get("headers") or [])]
    return out


def _boundary(kind: str, row: Row) -> str:
    return f"clawarena-{kind}-" + hashlib.sha1(str(row["id"]).encode()).hexdigest()[:20]


def layout(row: Row, attachments: list[Row]) -> dict[str, Any]:
    """The MIME tree of a stored message."""
    node: dict[str, Any] = {"mime": "text/plain", "data": row["body"].encode()}
    if row.get("html") is not None:
        html = {"mime": "text/html", "data": row["html"].encode()}
        node = {"mime": "multipart/alternative", "boundary": _boundary("alt", row), "children": [node, html]}
    if attachments:
        atts = [{"mime": a["mime_type"], "att": a} for a in sorted(attachments, key=lambda a: a["position"])]
        node = {"mime": "multipart/mixed", "boundary": _boundary("mix", row), "children": [node, *atts]}
    return node


def _content_headers(node: dict[str, Any]) -> list[dict[str, str]]:
    if "children" in node:
        return [{"name": "Content-Type", "value": f'{node["mime"]}; boundary="{node["boundary"]}"'}]
    if "att" in node:
        a = node["att"]
        out = [
            {"name": "Content-Type", "value": f'{a["mime_type"]}; name="{a["filename"]}"'},
            {"name": "Content-Disposition", "value": f'attachment; filename="{a["filename"]}"'},
            {"name": "Content-Transfer-Encoding", "value": "base64"},
        ]
        if a.get("content_id"):
            out.append({"name": "Content-ID", "value": a["content_id"]})
        return out
    return [{"name": "Content-Type", "value": f'{node["mime"]}; charset="UTF-8"'}]


def _payload(node: dict[str, Any], part_id: str, top_headers: list[dict[str, str]] | None = None) -> dict[str, Any]:
    headers = (top_headers or []) + _content_headers(node)
    out: dict[str, Any] = {"partId": part_id, "mimeType": node["mime"], "filename": "", "headers": headers}
    if "children" in node:
        out["body"] = {"size": 0}
        out["parts"] = [_payload(c, f"{part_id}.{i}" if part_id else str(i)) for i, c in enumerate(node["children"])]
    elif "att" in node:
        a = node["att"]
        out["filename"] = a["filename"]
        out["body"] = {"attachmentId": a["id"], "size": a["size"]}
    else:
        out["body"] = {"size": len(node["data"]), "data": b64url_encode(node["data"])}
    return out


def _mime_part(node: dict[str, Any], part: Any) -> Any:
    if "children" in node:
        part["Content-Type"] = node["mime"]
        part.set_boundary(node["boundary"])
        for child in node["children"]:
            part.attach(_mime_part(child, MIMEPart(policy=policy.SMTP)))
    elif "att" in node:
        a = node["att"]
        data = base64.b64decode(a["data"])
        maintype, _, subtype = a["mime_type"].partition("/")
        extra: dict[str, Any] = {"disposition": "attachment", "filename": a["filename"] or None}
        if a.get("content_id"):
            extra["cid"] = a["content_id"]
        if maintype == "message" or maintype == "multipart":
            maintype, subtype = "application", "octet-stream"  # keep the bytes as they are
        part.set_content(data, maintype, subtype or "octet-stream", **extra)
    else:
        part.set_content(node["data"].decode(), subtype=node["mime"].split("/")[1])
    return part


def to_email(row: Row, attachments: list[Row] | None = None) -> EmailMessage:
    msg = EmailMessage(policy=policy.SMTP)
    for h in headers_of(row):
        msg[h["name"]] = h["value"]
    msg["MIME-Version"] = "1.0"
    _mime_part(layout(row, attachments or []), msg)
    return msg


def size_estimate(row: Row, attachments: list[Row]) -> int:
    """About the size of the RFC 2822 text (Gmail's is an estimate too); cheap enough for a whole mailbox."""
    fields = [row["sender"], row["subject"], row["message_id_header"], row.get("in_reply_to") or "",
              *row["to_addrs"], *row["cc_addrs"], *(row.get("bcc_addrs") or [])]  # fmt: skip
    size = 80 + sum(len(f.encode()) + 4 for f in fields) + len(row["body"].encode())
    size += sum(len(n) + len(v.encode()) + 4 for n, v in row.get("headers") or [])
    if row.get("html") is not None:
        size += len(row["html"].encode()) + 200
    size += sum(a["size"] * 4 // 3 + 200 for a in attachments)
    return size


def message_resource(row: Row, fmt: str = "full", metadata_headers: list[str] | None = None, attachments: list[Row] | None = None) -> dict[str, Any]:
    """The Gmail Message resource for a row in the given format."""
    atts = attachments or []
    out: dict[str, Any] = {
        "id": row["id"],
        "threadId": row["thread_id"],
        "labelIds": list(row["label_ids"]),
        "snippet": snippet(row["body"]),
        "historyId": str(row["history_id"]),
        "internalDate": str(row["date_ms"]),
        "sizeEstimate": size_estimate(row, atts),
    }
    if fmt == "minimal":
        return out
    if fmt == "raw":
        out["raw"] = b64url_encode(to_email(row, atts).as_bytes())
        return out
    headers = headers_of(row)
    tree = layout(row, atts)
    if fmt == "metadata":
        if metadata_headers:
            wanted = {h.lower() for h in metadata_headers}
            headers = [h for h in headers if h["name"].lower() in wanted]
        out["payload"] = {"mimeType": tree["mime"], "headers": headers}
        return out
    out["payload"] = _payload(tree, "", headers)
    return out
