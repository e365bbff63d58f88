"""Mailbox internals every Gmail operation shares: access, rows, labels, history, sending and arrival.

Arrival (`receive`) is where a mailbox's settings act: filters label (and may
forward) what arrives, auto-forwarding forwards it, the vacation responder
answers it. Everything that leaves a mailbox is reported with `ctx.deliver`.
"""

from __future__ import annotations

import base64
from typing import Any

from clawarena.services.base import Delivery, ServiceContext, ServiceError, invalid, not_found
from clawarena.services.gmail import mime
from clawarena.services.gmail.search import compile_query, includes_spam_trash
from clawarena.services.gmail.tables import (
    ATTACHMENTS, DELETED, DRAFTS, FILTERS, FORWARDING, LABELS, MESSAGES, SEND_AS, SETTINGS, SYSTEM_LABELS,
)  # fmt: skip
from clawarena.spec.models import PrincipalSpec
from clawarena.world.store import loads_json

Row = dict[str, Any]
BASE_HISTORY = 1000
MAX_CASCADE = 5  # automatic forwarding hops within one action

NOT_FOUND = "Requested entity was not found."

SETTING_DEFAULTS: dict[str, dict[str, Any]] = {
    "vacation": {"enableAutoReply": False},
    "autoForwarding": {"enabled": False},
    "imap": {"enabled": True, "autoExpunge": True, "expungeBehavior": "archive", "maxFolderSize": 0},
    "pop": {"accessWindow": "disabled", "disposition": "leaveInInbox"},
    "language": {"displayLanguage": "en"},
}


# ---- who may act on which mailbox --------------------------------------------------------
def check_user(ctx: ServiceContext, user_id: str) -> str:
    """`me` or the caller's own address; anything else is another mailbox."""
    if user_id == "me" or user_id.lower() == ctx.principal.email.lower():
        return ctx.principal.id
    raise ServiceError(403, f"Delegation denied for {ctx.principal.email}", reason="forbidden")


def own_message(ctx: ServiceContext, message_id: str) -> Row:
    """A message of the caller's mailbox; one of another mailbox is refused as not found."""
    row = ctx.store.get(MESSAGES.name, {"id": message_id})
    if row is None:
        raise not_found(NOT_FOUND)
    if row["owner"] != ctx.principal.id:
        raise ServiceError(404, NOT_FOUND, denied=True)
    return row


def thread_not_found(ctx: ServiceContext, thread_id: str) -> ServiceError:
    """The 404 for a thread the caller's mailbox does not hold; a refusal (same answer) when another mailbox holds it."""
    return ServiceError(404, NOT_FOUND, denied=ctx.store.get(MESSAGES.name, {"thread_id": thread_id}) is not None)


def own_thread(ctx: ServiceContext, thread_id: str) -> list[Row]:
    rows = ctx.store.select(MESSAGES.name, {"owner": ctx.principal.id, "thread_id": thread_id}, order_by="date_ms, id")
    if rows:
        return rows
    raise thread_not_found(ctx, thread_id)


def next_history(ctx: ServiceContext) -> int:
    """History ids follow the world clock: one per action, increasing, equal across runs."""
    return BASE_HISTORY + ctx.world.clock.ticks


# ---- labels ------------------------------------------------------------------------------
def label_names(ctx: ServiceContext, owner: str) -> dict[str, str]:
    names = {lid: lid for lid in SYSTEM_LABELS}
    for row in ctx.store.select(LABELS.name, {"owner": owner}):
        names[row["id"]] = row["name"]
    return names


def check_labels(ctx: ServiceContext, owner: str, ids: list[str]) -> None:
    known = label_names(ctx, owner)
    for lid in ids:
        if lid not in known:
            raise invalid(f"Invalid label: {lid}")


# ---- rows ----------------------------------------------------------------------------------
def attachments_of(ctx: ServiceContext, message_id: str) -> list[Row]:
    return ctx.store.select(ATTACHMENTS.name, {"message_id": message_id}, order_by="position, id")


def attachments_by_message(ctx: ServiceContext, owner: str) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = {}
    for a in ctx.store.select(ATTACHMENTS.name, {"owner": owner}, order_by="message_id, position, id"):
        out.setdefault(a["message_id"], []).append(a)
    return out


def resource(ctx: ServiceContext, row: Row, fmt: str = "full", metadata_headers: list[str] | None = None) -> dict[str, Any]:
    """The Message resource of a row, with its attachments."""
    return mime.message_resource(row, fmt, metadata_headers, attachments_of(ctx, row["id"]))


def store_attachments(ctx: ServiceContext, owner: str, message_id: str, attachments: list[mime.Attachment], start: int = 0) -> None:
    for i, a in enumerate(attachments, start):
        ctx.store.insert(
            ATTACHMENTS.name,
            {
                "message_id": message_id, "id": ctx.world.ids.next("gmail.attachment", 32), "owner": owner, "position": i,
                "filename": a.filename, "mime_type": a.mime_type, "size": len(a.data),
                "data": base64.b64encode(a.data).decode(), "content_id": a.content_id,
            },
        )  # fmt: skip


def insert_message(ctx: ServiceContext, owner: str, fields: dict[str, Any], attachments: list[mime.Attachment] | None = None) -> Row:
    """Store a message in `owner`'s mailbox; ids come from the world's generator."""
    mid = fields.get("id") or ctx.world.ids.next("gmail.message")
    hid = next_history(ctx)
    labels = list(dict.fromkeys(fields.get("label_ids", ["INBOX"])))
    row = {
        "id": mid,
        "owner": owner,
        "thread_id": fields.get("thread_id") or mid,
        "label_ids": labels,
        "sender": fields["sender"],
        "to_addrs": list(fields.get("to_addrs", [])),
        "cc_addrs": list(fields.get("cc_addrs", [])),
        "bcc_addrs": list(fields.get("bcc_addrs", [])),
        "subject": fields.get("subject", ""),
        "body": fields.get("body", ""),
        "date_ms": fields.get("date_ms") or ctx.world.clock.now_ms(),
        "message_id_header": fields.get("message_id_header") or f"<{mid}@mail.clawarena.local>",
        "in_reply_to": fields.get("in_reply_to"),
        "history_id": hid,
        "html": fields.get("html"),
        "headers": [list(h) for h in fields.get("headers") or []],
        "history": [[hid, "added", [], labels]],
    }
    ctx.store.insert(MESSAGES.name, row)
    if attachments:
        store_attachments(ctx, owner, mid, attachments)
    return row


def set_labels(ctx: ServiceContext, row: Row, add: list[str], remove: list[str], check: bool = True) -> Row:
    """Add and remove labels on a row, recording the change in its history."""
    if check:
        check_labels(ctx, row["owner"], add + remove)
    old = list(row["label_ids"])
    labels = [l for l in old if l not in remove or l in add]
    labels += [l for l in add if l not in labels]
    added = [l for l in labels if l not in old]
    removed = [l for l in old if l not in labels]
    if not added and not removed:
        return row
    hid = next_history(ctx)
    history = list(row.get("history") or [])
    if added:
        history.append([hid, "labelsAdded", added, labels])
    if removed:
        history.append([hid, "labelsRemoved", removed, labels])
    changes = {"label_ids": labels, "history_id": hid, "history": history}
    ctx.store.update(MESSAGES.name, {"id": row["id"]}, changes)
    return {**row, **changes}


def delete_message(ctx: ServiceContext, row: Row) -> None:
    """Delete a message for good: its attachments and draft go too; history keeps a record."""
    hid = next_history(ctx)
    key = {"owner": row["owner"], "message_id": row["id"]}
    ctx.store.delete(DELETED.name, key)
    ctx.store.insert(
        DELETED.name,
        {**key, "thread_id": row["thread_id"], "label_ids": row["label_ids"], "history_id": hid,
         "history": list(row.get("history") or []) + [[hid, "deleted", [], row["label_ids"]]]},
    )  # fmt: skip
    ctx.store.delete(ATTACHMENTS.name, {"message_id": row["id"]})
    ctx.store.delete(DRAFTS.name, {"owner": row["owner"], "message_id": row["id"]})
    ctx.store.delete(MESSAGES.name, {"id": row["id"]})


def enrich(ctx: ServiceContext, owner: str, rows: list[Row], sizes: bool = True) -> list[Row]:
    """Rows with `_attachments` and `_size`, for the search operators that need them."""
    atts = attachments_by_message(ctx, owner)
    out = []
    for r in rows:
        mine = atts.get(r["id"], [])
        extra: Row = {"_attachments": [(a["filename"], a["mime_type"]) for a in mine]}
        if sizes:
            extra["_size"] = mime.size_estimate(r, mine)
        out.append({**r, **extra})
    return out


_LIST_COLUMNS = ("id", "thread_id", "label_ids", "date_ms", "history_id", "body")
_SEARCH_COLUMNS = tuple(c.name for c in MESSAGES.columns if c.name != "history")


def mailbox_rows(ctx: ServiceContext, owner: str, columns: tuple[str, ...] = _SEARCH_COLUMNS) -> list[Row]:
    """The owner's messages, newest first, with only the columns asked for (a mailbox can hold thousands)."""
    json_cols = {c.name for c in MESSAGES.columns if c.type == "json"}
    sql = f'SELECT {", ".join(columns)} FROM "{MESSAGES.name}" WHERE owner = ? ORDER BY date_ms DESC, id DESC'
    out = []
    for values in ctx.store.conn.execute(sql, (owner,)):
        row = {c: (loads_json(v) if c in json_cols and v is not None else v) for c, v in zip(columns, values)}
        row["owner"] = owner
        out.append(row)
    return out


def mailbox_stats(ctx: ServiceContext, owner: str) -> tuple[int, int, int]:
    """(messages, threads, current history id) of a mailbox."""
    conn = ctx.store.conn
    n, threads, top = conn.execute(
        f'SELECT COUNT(*), COUNT(DISTINCT thread_id), MAX(history_id) FROM "{MESSAGES.name}" WHERE owner = ?', (owner,)
    ).fetchone()
    (gone,) = conn.execute(f'SELECT MAX(history_id) FROM "{DELETED.name}" WHERE owner = ?', (owner,)).fetchone()
    return n, threads, max(top or BASE_HISTORY, gone or BASE_HISTORY)


def label_counts(ctx: ServiceContext, owner: str, label_id: str) -> dict[str, int]:
    total, threads, unread, unread_threads = ctx.store.conn.execute(
        f"""SELECT COUNT(*), COUNT(DISTINCT thread_id),
                   SUM(EXISTS (SELECT 1 FROM json_each(m.label_ids) WHERE value = 'UNREAD')),
                   COUNT(DISTINCT CASE WHEN EXISTS (SELECT 1 FROM json_each(m.label_ids) WHERE value = 'UNREAD') THEN thread_id END)
            FROM "{MESSAGES.name}" AS m
            WHERE owner = ? AND EXISTS (SELECT 1 FROM json_each(m.label_ids) WHERE value = ?)""",
        (owner, label_id),
    ).fetchone()
    return {"messagesTotal": total, "messagesUnread": unread or 0, "threadsTotal": threads, "threadsUnread": unread_threads}


def search(ctx: ServiceContext, owner: str, q: str | None, label_ids: list[str] | None, include_spam_trash: bool) -> list[Row]:
    """The owner's messages matching q and carrying all label_ids, newest first."""
    rows = mailbox_rows(ctx, owner, _SEARCH_COLUMNS if q and q.strip() else _LIST_COLUMNS)
    wanted = set(label_ids or [])
    if wanted:
        rows = [r for r in rows if wanted <= set(r["label_ids"])]
    if not include_spam_trash and not wanted & {"SPAM", "TRASH"} and not includes_spam_trash(q):
        rows = [r for r in rows if not {"SPAM", "TRASH"} & set(r["label_ids"])]
    if q and q.strip():
        me = ctx.world.directory.principal(owner).email
        pred = compile_query(q, ctx.world.clock.now_ms(), label_names(ctx, owner), me)
        sizes = any(k in q.lower() for k in ("larger:", "smaller:", "size:"))
        rows = [r for r, e in zip(rows, enrich(ctx, owner, rows, sizes)) if pred(e)]
    return rows


# ---- threading and identities ------------------------------------------------------------
def thread_for(ctx: ServiceContext, owner: str, in_reply_to: str | None, references: list[str]) -> str | None:
    """The thread of the message this one answers, if it is in `owner`'s mailbox."""
    for header in [h for h in [in_reply_to, *reversed(references)] if h]:
        parent = ctx.store.get(MESSAGES.name, {"owner": owner, "message_id_header": header})
        if parent is not None:
            return parent["thread_id"]
    return None


def send_as_rows(ctx: ServiceContext, owner: str) -> list[Row]:
    return ctx.store.select(SEND_AS.name, {"owner": owner}, order_by="email")


def primary_identity(ctx: ServiceContext, principal: PrincipalSpec) -> Row:
    row = ctx.store.get(SEND_AS.name, {"owner": principal.id, "email": principal.email})
    return row or {
        "owner": principal.id, "email": principal.email, "display_name": None, "reply_to": None, "signature": None,
        "is_primary": True, "is_default": False, "treat_as_alias": False, "verification_status": "accepted",
    }  # fmt: skip


def from_identity(ctx: ServiceContext, from_header: str) -> tuple[str, str, str | None]:
    """(From header, address, Reply-To) for a message the caller sends: an accepted alias it names,
    else its default address."""
    me = ctx.principal
    rows = {r["email"].lower(): r for r in send_as_rows(ctx, me.id)}
    primary = primary_identity(ctx, me)
    rows.setdefault(me.email.lower(), primary)
    accepted = {k: r for k, r in rows.items() if r["is_primary"] or k == me.email.lower() or r["verification_status"] == "accepted"}
    wanted = mime.address_of(from_header) if from_header.strip() else ""
    chosen = accepted.get(wanted)
    if chosen is None:
        chosen = next((r for r in accepted.values() if r["is_default"]), accepted[me.email.lower()])
    asked_name = _display_name(from_header) if wanted == chosen["email"].lower() else ""
    name = asked_name or chosen.get("display_name") or me.name  # a name given in From is kept; else the address's, else the account's
    header = f"{name} <{chosen['email']}>" if name else chosen["email"]
    return header, chosen["email"], chosen.get("reply_to")


def _display_name(from_header: str) -> str:
    from email.utils import parseaddr

    return parseaddr(from_header)[0] if from_header else ""


# ---- settings ----------------------------------------------------------------------------
def get_setting(ctx: ServiceContext, owner: str, key: str) -> dict[str, Any]:
    row = ctx.store.get(SETTINGS.name, {"owner": owner, "key": key})
    if row is None:
        return dict(SETTING_DEFAULTS.get(key, {}))
    return dict(row["value"])


def setting_updated_ms(ctx: ServiceContext, owner: str, key: str) -> int:
    row = ctx.store.get(SETTINGS.name, {"owner": owner, "key": key})
    return row["updated_ms"] if row else 0


def put_setting(ctx: ServiceContext, owner: str, key: str, value: dict[str, Any], at_ms: int | None = None) -> None:
    at = ctx.world.clock.now_ms() if at_ms is None else at_ms
    where = {"owner": owner, "key": key}
    if ctx.store.get(SETTINGS.name, where) is None:
        ctx.store.insert(SETTINGS.name, {**where, "value": value, "updated_ms": at})
    else:
        ctx.store.update(SETTINGS.name, where, {"value": value, "updated_ms": at})


def delete_setting(ctx: ServiceContext, owner: str, key: str) -> None:
    ctx.store.delete(SETTINGS.name, {"owner": owner, "key": key})


def accepted_forwarding(ctx: ServiceContext, owner: str, address: str) -> bool:
    row = ctx.store.get(FORWARDING.name, {"owner": owner, "email": address.strip().lower()})
    return row is not None and row["verification_status"] == "accepted"


# ---- filters -----------------------------------------------------------------------------
def criteria_query(criteria: dict[str, Any]) -> str:
    """A filter's criteria as one Gmail query."""
    parts = []
    for key, op in (("from", "from"), ("to", "to"), ("subject", "subject")):
        if criteria.get(key):
            parts.append(f"{op}:({criteria[key]})")
    if criteria.get("query"):
        parts.append(f"({criteria['query']})")
    if criteria.get("negatedQuery"):
        parts.append(f"-({criteria['negatedQuery']})")
    if criteria.get("hasAttachment"):
        parts.append("has:attachment")
    if criteria.get("excludeChats"):
        parts.append("-in:chat")
    if criteria.get("size") is not None and criteria.get("sizeComparison") in ("larger", "smaller"):
        parts.append(f"{criteria['sizeComparison']}:{int(criteria['size'])}")
    return " ".join(parts)


def filter_rows(ctx: ServiceContext, owner: str) -> list[Row]:
    return ctx.store.select(FILTERS.name, {"owner": owner}, order_by="position, id")


def apply_filters(ctx: ServiceContext, principal: PrincipalSpec, candidate: Row, labels: list[str]) -> tuple[list[str], list[str]]:
    """Labels after the owner's filters, and the addresses filters forward to."""
    filters = filter_rows(ctx, principal.id)
    if not filters:
        return labels, []
    names = label_names(ctx, principal.id)
    probe = {**candidate, "label_ids": labels}
    forwards: list[str] = []
    for f in filters:
        q = criteria_query(f["criteria"])
        if not q:
            continue
        try:
            pred = compile_query(q, ctx.world.clock.now_ms(), names, principal.email)
        except ServiceError:
            continue
        if not pred(probe):
            continue
        action = f["action"]
        remove = [l for l in action.get("removeLabelIds") or [] if l in names]
        add = [l for l in action.get("addLabelIds") or [] if l in names]
        labels = [l for l in labels if l not in remove] + [l for l in add if l not in labels]
        probe = {**probe, "label_ids": labels}
        if action.get("forward"):
            forwards.append(action["forward"])
    return labels, forwards


# ---- what leaves a mailbox, and what arrives --------------------------------------------
def delivery_text(body: str, attachments: list[mime.Attachment]) -> str:
    """The text a delivery carries: the body and what can be read of the attachments."""
    out = body
    for a in attachments:
        out += f"\n\n[attachment {a.filename or a.mime_type}]"
        if a.mime_type.startswith(("text/", "message/")) or a.mime_type in ("application/json", "application/xml", "text/csv"):
            out += "\n" + a.data.decode("utf-8", "replace")
    return out


def stored_attachments(ctx: ServiceContext, message_id: str) -> list[mime.Attachment]:
    return [
        mime.Attachment(a["filename"], a["mime_type"], base64.b64decode(a["data"]), a.get("content_id"))
        for a in attachments_of(ctx, message_id)
    ]


def parsed_of_row(ctx: ServiceContext, row: Row) -> mime.Parsed:
    """A stored message as if it had just been parsed (to send a stored draft)."""
    return mime.Parsed(
        sender=row["sender"], to=list(row["to_addrs"]), cc=list(row["cc_addrs"]), bcc=list(row["bcc_addrs"]),
        subject=row["subject"], text=row["body"], html=row.get("html"), attachments=stored_attachments(ctx, row["id"]),
        message_id=row["message_id_header"], in_reply_to=row.get("in_reply_to"), extra=[list(h) for h in row.get("headers") or []],
    )  # fmt: skip


def _auto_submitted(row: Row) -> bool:
    for name, value in row.get("headers") or []:
        low = name.lower()
        if low == "auto-submitted" and value.strip().lower() != "no":
            return True
        if low == "precedence" and value.strip().lower() in ("bulk", "junk", "list"):
            return True
        if low == "list-id":
            return True
    return False


def send(ctx: ServiceContext, parsed: mime.Parsed, thread_id: str | None = None, draft: Row | None = None) -> Row:
    """Send a message from the caller: its SENT copy, copies in principals' mailboxes, a delivery."""
    me = ctx.principal
    recipients = parsed.recipients
    if not recipients:
        raise invalid("Recipient address required")
    header, address, reply_to = from_identity(ctx, parsed.sender)
    extra = [list(h) for h in parsed.extra]
    if reply_to and not any(n.lower() == "reply-to" for n, _ in extra):
        extra.append(["Reply-To", reply_to])
    if thread_id and not ctx.store.select(MESSAGES.name, {"owner": me.id, "thread_id": thread_id}):
        raise thread_not_found(ctx, thread_id)
    refs = parsed.references
    message_id_header = (draft or {}).get("message_id_header") or f"<{ctx.world.ids.next('gmail.msgid', 20)}@mail.clawarena.local>"
    common = {
        "sender": header, "to_addrs": parsed.to, "cc_addrs": parsed.cc, "subject": parsed.subject, "body": parsed.text,
        "html": parsed.html, "message_id_header": message_id_header, "in_reply_to": parsed.in_reply_to, "headers": extra,
    }  # fmt: skip
    to_self = me.email.lower() in {r.lower() for r in recipients}
    labels = ["SENT", "INBOX", "UNREAD"] if to_self else ["SENT"]
    thread = thread_id or (draft or {}).get("thread_id") or thread_for(ctx, me.id, parsed.in_reply_to, refs)
    if draft is not None:
        changes = {**common, "bcc_addrs": parsed.bcc, "thread_id": thread or draft["id"], "date_ms": ctx.world.clock.now_ms()}
        ctx.store.update(MESSAGES.name, {"id": draft["id"]}, changes)
        ctx.store.delete(ATTACHMENTS.name, {"message_id": draft["id"]})
        store_attachments(ctx, me.id, draft["id"], parsed.attachments)
        ctx.store.delete(DRAFTS.name, {"owner": me.id, "message_id": draft["id"]})
        sent = set_labels(ctx, {**draft, **changes}, labels, ["DRAFT"], check=False)
    else:
        sent = insert_message(ctx, me.id, {**common, "bcc_addrs": parsed.bcc, "label_ids": labels, "thread_id": thread}, parsed.attachments)
    ctx.deliver(Delivery("email", address, tuple(recipients), parsed.subject, delivery_text(parsed.text, parsed.attachments), ref=sent["id"]))
    for addr in recipients:
        target = ctx.world.directory.by_address(addr)
        if target is not None and target.id != me.id:
            receive(ctx, target, common, parsed.attachments, chain=())
    return sent


def receive(ctx: ServiceContext, principal: PrincipalSpec, fields: dict[str, Any], attachments: list[mime.Attachment], chain: tuple[str, ...]) -> Row:
    """Mail arriving in `principal`'s mailbox: filters, auto-forwarding and the vacation responder act on it."""
    owner = principal.id
    refs = next((v.split() for n, v in fields.get("headers") or [] if n.lower() == "references"), [])
    candidate = {
        **fields, "id": "", "owner": owner, "label_ids": [], "bcc_addrs": [], "date_ms": ctx.world.clock.now_ms(),
        "_attachments": [(a.filename, a.mime_type) for a in attachments],
        "_size": len(fields.get("body", "").encode()) + sum(len(a.data) for a in attachments),
    }  # fmt: skip
    labels, forwards = apply_filters(ctx, principal, candidate, ["INBOX", "UNREAD"])
    automatic = owner not in chain and len(chain) < MAX_CASCADE
    auto = get_setting(ctx, owner, "autoForwarding")
    targets: list[str] = []
    if automatic and auto.get("enabled") and auto.get("emailAddress") and accepted_forwarding(ctx, owner, auto["emailAddress"]):
        targets.append(auto["emailAddress"])
        disposition = auto.get("disposition", "leaveInInbox")
        if disposition == "archive":
            labels = [l for l in labels if l != "INBOX"]
        elif disposition == "trash":
            labels = labels + ["TRASH"]
        elif disposition == "markRead":
            labels = [l for l in labels if l != "UNREAD"]
    if automatic:
        targets += [f for f in forwards if accepted_forwarding(ctx, owner, f)]
    row = insert_message(
        ctx, owner,
        {**fields, "bcc_addrs": [], "label_ids": labels, "thread_id": thread_for(ctx, owner, fields.get("in_reply_to"), refs)},
        attachments,
    )  # fmt: skip
    for addr in dict.fromkeys(t.strip().lower() for t in targets):
        forward(ctx, principal, fields, attachments, addr, chain + (owner,), ref=row["id"])
    if "SPAM" not in labels and len(chain) < MAX_CASCADE:
        vacation_reply(ctx, principal, row, chain + (owner,))
    return row


def forward(ctx: ServiceContext, principal: PrincipalSpec, fields: dict[str, Any], attachments: list[mime.Attachment], address: str, chain: tuple[str, ...], ref: str) -> None:
    """Automatic forwarding of an arrived mail (message `ref` of `principal`'s mailbox)."""
    ctx.deliver(Delivery("email", principal.email, (address,), fields.get("subject", ""), delivery_text(fields.get("body", ""), attachments), ref=ref))
    target = ctx.world.directory.by_address(address)
    if target is not None and target.id != principal.id:
        headers = [list(h) for h in fields.get("headers") or []] + [["X-Forwarded-For", f"{principal.email} {address}"]]
        receive(ctx, target, {**fields, "headers": headers}, attachments, chain)


def vacation_reply(ctx: ServiceContext, principal: PrincipalSpec, incoming: Row, chain: tuple[str, ...]) -> None:
    """The vacation responder: one reply per sender while the current settings hold."""
    owner = principal.id
    settings = get_setting(ctx, owner, "vacation")
    if not settings.get("enableAutoReply") or _auto_submitted(incoming):
        return
    now = ctx.world.clock.now_ms()
    if settings.get("startTime") and now < int(settings["startTime"]):
        return
    if settings.get("endTime") and now > int(settings["endTime"]):
        return
    sender = mime.address_of(incoming["sender"])
    if not sender or "@" not in sender or sender == principal.email.lower():
        return
    if settings.get("restrictToDomain") and sender.split("@")[-1] != principal.email.lower().split("@")[-1]:
        return
    if settings.get("restrictToContacts") and ctx.world.directory.by_address(sender) is None:
        return
    since = setting_updated_ms(ctx, owner, "vacation")
    for r in ctx.store.select(MESSAGES.name, {"owner": owner}):
        if r["date_ms"] >= since and "SENT" in r["label_ids"] and sender in [a.lower() for a in r["to_addrs"]] and _auto_submitted(r):
            return
    subject = settings.get("responseSubject") or f"Re: {incoming['subject']}"
    html = settings.get("responseBodyHtml")
    text = settings.get("responseBodyPlainText") or (mime.html_to_text(html) if html else "")
    fields = {
        "sender": f"{principal.name} <{principal.email}>", "to_addrs": [sender], "cc_addrs": [], "subject": subject,
        "body": text, "html": html, "message_id_header": f"<{ctx.world.ids.next('gmail.msgid', 20)}@mail.clawarena.local>",
        "in_reply_to": incoming["message_id_header"],
        "headers": [["References", incoming["message_id_header"]], ["Auto-Submitted", "auto-replied"]],
        "date_ms": incoming["date_ms"] + 1,  # just after what it answers, so threads keep their order
    }  # fmt: skip
    reply = insert_message(ctx, owner, {**fields, "bcc_addrs": [], "label_ids": ["SENT"], "thread_id": incoming["thread_id"]})
    ctx.deliver(Delivery("email", principal.email, (sender,), subject, text, ref=reply["id"]))
    target = ctx.world.directory.by_address(sender)
    if target is not None and target.id != owner:
        receive(ctx, target, fields, [], chain)
