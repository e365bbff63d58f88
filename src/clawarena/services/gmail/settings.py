"""Gmail mailbox settings: filters, send-as aliases, forwarding, delegates, vacation, IMAP, POP, language.

Settings act on mail as it arrives (`mailbox.receive`): filters label and
forward, auto-forwarding forwards, the vacation responder replies.
"""

from __future__ import annotations

import re
from typing import Any

from clawarena.services.base import ServiceContext, ServiceError, invalid, not_found
from clawarena.services.gmail import mailbox as mb
from clawarena.services.gmail.mailbox import NOT_FOUND, check_user
from clawarena.services.gmail.models import (
    BASE, AutoForwardingBody, DelegateBody, FilterBody, ForwardingAddressBody, ImapBody, LanguageBody, PopBody,
    SendAsBody, UserId, VacationBody, compact,
)  # fmt: skip
from clawarena.services.gmail.search import compile_query
from clawarena.services.gmail.tables import DELEGATES, FILTERS, FORWARDING, SEND_AS
from clawarena.tools.core import RestBinding, ToolKind, tool

S = f"{BASE}/settings"
_ADDRESS = re.compile(r"^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$")


def _address(value: str | None, what: str) -> str:
    if not value or not _ADDRESS.match(value.strip()):
        raise invalid(f"Invalid {what}")
    return value.strip().lower()


def _exists() -> ServiceError:
    return ServiceError(409, "Requested entity already exists", reason="alreadyExists")


# ---- filters -------------------------------------------------------------------------------
def filter_resource(row: dict[str, Any]) -> dict[str, Any]:
    return {"id": row["id"], "criteria": dict(row["criteria"]), "action": dict(row["action"])}


def validate_filter(ctx: ServiceContext, owner: str, criteria: dict[str, Any], action: dict[str, Any]) -> None:
    """A filter needs criteria and an action; labels must exist; forwarding needs an accepted address."""
    if not criteria:
        raise invalid("Filter doesn't have any criteria")
    if not action:
        raise invalid("Filter doesn't have any actions")
    if criteria.get("size") is not None and criteria.get("sizeComparison") not in ("smaller", "larger"):
        raise invalid("Filter size criteria needs sizeComparison smaller or larger")
    query = mb.criteria_query(criteria)
    if query:
        compile_query(query, ctx.world.clock.now_ms(), mb.label_names(ctx, owner), ctx.principal.email)
    mb.check_labels(ctx, owner, list(action.get("addLabelIds") or []) + list(action.get("removeLabelIds") or []))
    if action.get("forward") and not mb.accepted_forwarding(ctx, owner, action["forward"]):
        raise invalid("Unrecognized forwarding address")


def _own_filter(ctx: ServiceContext, owner: str, filter_id: str) -> dict[str, Any]:
    row = ctx.store.get(FILTERS.name, {"id": filter_id})
    if row is None:
        raise not_found(NOT_FOUND)
    if row["owner"] != owner:
        raise ServiceError(404, NOT_FOUND, denied=True)
    return row


@tool(ToolKind.READ, name="gmail_settings_filters_list", rest=RestBinding("GET", f"{S}/filters"))
def filters_list(ctx: ServiceContext, user_id: UserId = "me") -> dict[str, Any]:
    """List the mailbox's filters (applied, in this order, to mail as it arrives)."""
    owner = check_user(ctx, user_id)
    rows = mb.filter_rows(ctx, owner)
    return {"filter": [filter_resource(r) for r in rows]} if rows else {}


@tool(ToolKind.READ, name="gmail_settings_filters_get", rest=RestBinding("GET", f"{S}/filters/{{id}}"))
def filters_get(ctx: ServiceContext, id: str, user_id: UserId = "me") -> dict[str, Any]:
    """Get one filter.

    Args:
        id: the filter id.
    """
    owner = check_user(ctx, user_id)
    return filter_resource(_own_filter(ctx, owner, id))


@tool(ToolKind.WRITE, name="gmail_settings_filters_create", rest=RestBinding("POST", f"{S}/filters", body="body"))
def filters_create(ctx: ServiceContext, body: FilterBody, user_id: UserId = "me") -> dict[str, Any]:
    """Create a filter for arriving mail: criteria (from, to, subject, query, negatedQuery, hasAttachment, size) and
    action (addLabelIds, removeLabelIds, forward to an accepted forwarding address).

    Args:
        body: {"criteria": {"from": ..., "subject": ...}, "action": {"addLabelIds": [...], "removeLabelIds": ["INBOX"], "forward": ...}}.
    """
    owner = check_user(ctx, user_id)
    criteria = compact(body.criteria) if body.criteria else {}
    action = compact(body.action) if body.action else {}
    action = {k: v for k, v in action.items() if v not in ([], "")}
    validate_filter(ctx, owner, criteria, action)
    rows = mb.filter_rows(ctx, owner)
    if any(r["criteria"] == criteria and r["action"] == action for r in rows):
        raise invalid("Filter already exists")
    row = {
        "id": ctx.world.ids.next("gmail.filter", 16), "owner": owner,
        "position": max((r["position"] for r in rows), default=0) + 1, "criteria": criteria, "action": action,
    }  # fmt: skip
    ctx.store.insert(FILTERS.name, row)
    return filter_resource(row)


@tool(ToolKind.WRITE, name="gmail_settings_filters_delete", rest=RestBinding("DELETE", f"{S}/filters/{{id}}", status=204))
def filters_delete(ctx: ServiceContext, id: str, user_id: UserId = "me") -> None:
    """Delete a filter.

    Args:
        id: the filter id.
    """
    owner = check_user(ctx, user_id)
    _own_filter(ctx, owner, id)
    ctx.store.delete(FILTERS.name, {"id": id})


# ---- send-as aliases -------------------------------------------------------------------------
def _send_as_rows(ctx: ServiceContext) -> list[dict[str, Any]]:
    me = ctx.principal
    rows = [r for r in mb.send_as_rows(ctx, me.id) if r["email"].lower() != me.email.lower()]
    return [mb.primary_identity(ctx, me)] + rows


def send_as_resource(ctx: ServiceContext, row: dict[str, Any], rows: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    me = ctx.principal
    primary = row["email"].lower() == me.email.lower()
    others = rows if rows is not None else _send_as_rows(ctx)
    default = row["is_default"] or (primary and not any(r["is_default"] for r in others if r["email"].lower() != me.email.lower()))
    out: dict[str, Any] = {
        "sendAsEmail": row["email"],
        "displayName": row.get("display_name") or (me.name if primary else ""),
        "replyToAddress": row.get("reply_to") or "",
        "signature": row.get("signature") or "",
        "isPrimary": primary,
        "isDefault": bool(default),
    }
    if not primary:
        out["treatAsAlias"] = bool(row["treat_as_alias"])
        out["verificationStatus"] = row["verification_status"]
    return out


def _find_send_as(ctx: ServiceContext, email: str) -> dict[str, Any]:
    for row in _send_as_rows(ctx):
        if row["email"].lower() == email.strip().lower():
            return row
    raise not_found(NOT_FOUND)


def _save_send_as(ctx: ServiceContext, row: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    me = ctx.principal
    new = {**row, **changes}
    if changes.get("is_default"):
        if not new["is_primary"] and new["verification_status"] != "accepted":
            raise invalid("A send-as alias must be verified before it can be the default")
        for other in mb.send_as_rows(ctx, me.id):
            if other["email"] != new["email"] and other["is_default"]:
                ctx.store.update(SEND_AS.name, {"owner": me.id, "email": other["email"]}, {"is_default": False})
    if new["is_primary"]:
        new["is_default"] = False  # the primary is the default whenever no alias is
    where = {"owner": me.id, "email": new["email"]}
    if ctx.store.get(SEND_AS.name, where) is None:
        ctx.store.insert(SEND_AS.name, new)
    else:
        ctx.store.update(SEND_AS.name, where, {k: v for k, v in new.items() if k not in where})
    return send_as_resource(ctx, new)


@tool(ToolKind.READ, name="gmail_settings_send_as_list", rest=RestBinding("GET", f"{S}/sendAs"))
def send_as_list(ctx: ServiceContext, user_id: UserId = "me") -> dict[str, Any]:
    """List the addresses the mailbox can send as: the primary address first, then aliases."""
    check_user(ctx, user_id)
    rows = _send_as_rows(ctx)
    return {"sendAs": [send_as_resource(ctx, r, rows) for r in rows]}


@tool(ToolKind.READ, name="gmail_settings_send_as_get", rest=RestBinding("GET", f"{S}/sendAs/{{sendAsEmail}}"))
def send_as_get(ctx: ServiceContext, send_as_email: str, user_id: UserId = "me") -> dict[str, Any]:
    """Get one send-as address.

    Args:
        send_as_email: the address.
    """
    check_user(ctx, user_id)
    return send_as_resource(ctx, _find_send_as(ctx, send_as_email))


@tool(ToolKind.WRITE, name="gmail_settings_send_as_create", rest=RestBinding("POST", f"{S}/sendAs", body="body"))
def send_as_create(ctx: ServiceContext, body: SendAsBody, user_id: UserId = "me") -> dict[str, Any]:
    """Add a send-as alias; it stays `pending` until the address's owner verifies it.

    Args:
        body: {"sendAsEmail": ..., "displayName": ..., "replyToAddress": ..., "signature": ..., "treatAsAlias": true}.
    """
    owner = check_user(ctx, user_id)
    email = _address(body.sendAsEmail, "sendAsEmail")
    if any(r["email"].lower() == email for r in _send_as_rows(ctx)):
        raise _exists()
    if body.isDefault:
        raise invalid("A send-as alias must be verified before it can be the default")
    row = {
        "owner": owner, "email": email, "display_name": body.displayName, "reply_to": body.replyToAddress,
        "signature": body.signature, "is_primary": False, "is_default": False,
        "treat_as_alias": True if body.treatAsAlias is None else body.treatAsAlias, "verification_status": "pending",
    }  # fmt: skip
    ctx.store.insert(SEND_AS.name, row)
    return send_as_resource(ctx, row)


def _send_as_changes(body: SendAsBody, replace: bool) -> dict[str, Any]:
    fields = {"display_name": body.displayName, "reply_to": body.replyToAddress, "signature": body.signature,
              "treat_as_alias": body.treatAsAlias, "is_default": body.isDefault}  # fmt: skip
    if replace:
        out = {k: v for k, v in fields.items() if k not in ("treat_as_alias", "is_default")}
        if body.treatAsAlias is not None:
            out["treat_as_alias"] = body.treatAsAlias
        if body.isDefault:
            out["is_default"] = True
        return out
    out = {k: v for k, v in fields.items() if v is not None}
    if out.get("is_default") is False:
        out.pop("is_default")  # the default is changed by making another address the default
    return out


@tool(ToolKind.WRITE, name="gmail_settings_send_as_update", rest=RestBinding("PUT", f"{S}/sendAs/{{sendAsEmail}}", body="body"))
def send_as_update(ctx: ServiceContext, send_as_email: str, body: SendAsBody, user_id: UserId = "me") -> dict[str, Any]:
    """Replace a send-as address's settings (display name, reply-to, signature, default).

    Args:
        send_as_email: the address.
        body: the SendAs resource.
    """
    check_user(ctx, user_id)
    return _save_send_as(ctx, _find_send_as(ctx, send_as_email), _send_as_changes(body, replace=True))


@tool(ToolKind.WRITE, name="gmail_settings_send_as_patch", rest=RestBinding("PATCH", f"{S}/sendAs/{{sendAsEmail}}", body="body"))
def send_as_patch(ctx: ServiceContext, send_as_email: str, body: SendAsBody, user_id: UserId = "me") -> dict[str, Any]:
    """Change some settings of a send-as address.

    Args:
        send_as_email: the address.
        body: the SendAs fields to change.
    """
    check_user(ctx, user_id)
    return _save_send_as(ctx, _find_send_as(ctx, send_as_email), _send_as_changes(body, replace=False))


@tool(ToolKind.WRITE, name="gmail_settings_send_as_delete", rest=RestBinding("DELETE", f"{S}/sendAs/{{sendAsEmail}}", status=204))
def send_as_delete(ctx: ServiceContext, send_as_email: str, user_id: UserId = "me") -> None:
    """Remove a send-as alias (the primary address cannot be removed).

    Args:
        send_as_email: the alias.
    """
    owner = check_user(ctx, user_id)
    row = _find_send_as(ctx, send_as_email)
    if row["is_primary"] or row["email"].lower() == ctx.principal.email.lower():
        raise invalid("Cannot delete primary send-as")
    ctx.store.delete(SEND_AS.name, {"owner": owner, "email": row["email"]})


@tool(ToolKind.WRITE, name="gmail_settings_send_as_verify", rest=RestBinding("POST", f"{S}/sendAs/{{sendAsEmail}}/verify", status=204))
def send_as_verify(ctx: ServiceContext, send_as_email: str, user_id: UserId = "me") -> None:
    """Send the verification request for a pending alias again (Google mails the alias address).

    Args:
        send_as_email: the alias.
    """
    check_user(ctx, user_id)
    row = _find_send_as(ctx, send_as_email)
    if row["is_primary"] or row["email"].lower() == ctx.principal.email.lower():
        raise invalid("Cannot verify primary send-as")
    if row["verification_status"] != "pending":
        raise ServiceError(400, "Send-as address is not pending verification", reason="failedPrecondition", status="FAILED_PRECONDITION")


# ---- forwarding addresses ----------------------------------------------------------------------
def _forwarding_resource(row: dict[str, Any]) -> dict[str, Any]:
    return {"forwardingEmail": row["email"], "verificationStatus": row["verification_status"]}


def _own_forwarding(ctx: ServiceContext, owner: str, email: str) -> dict[str, Any]:
    row = ctx.store.get(FORWARDING.name, {"owner": owner, "email": email.strip().lower()})
    if row is None:
        raise not_found(NOT_FOUND)
    return row


@tool(ToolKind.READ, name="gmail_settings_forwarding_addresses_list", rest=RestBinding("GET", f"{S}/forwardingAddresses"))
def forwarding_list(ctx: ServiceContext, user_id: UserId = "me") -> dict[str, Any]:
    """List the addresses mail may be forwarded to, with their verification status."""
    owner = check_user(ctx, user_id)
    rows = ctx.store.select(FORWARDING.name, {"owner": owner})
    return {"forwardingAddresses": [_forwarding_resource(r) for r in rows]} if rows else {}


@tool(ToolKind.READ, name="gmail_settings_forwarding_addresses_get", rest=RestBinding("GET", f"{S}/forwardingAddresses/{{forwardingEmail}}"))
def forwarding_get(ctx: ServiceContext, forwarding_email: str, user_id: UserId = "me") -> dict[str, Any]:
    """Get one forwarding address.

    Args:
        forwarding_email: the address.
    """
    owner = check_user(ctx, user_id)
    return _forwarding_resource(_own_forwarding(ctx, owner, forwarding_email))


@tool(ToolKind.WRITE, name="gmail_settings_forwarding_addresses_create", rest=RestBinding("POST", f"{S}/forwardingAddresses", body="body"))
def forwarding_create(ctx: ServiceContext, body: ForwardingAddressBody, user_id: UserId = "me") -> dict[str, Any]:
    """Add a forwarding address. An address of this organisation's directory is accepted at once;
    any other stays `pending` until its owner confirms it (forwarding to it is refused until then).

    Args:
        body: {"forwardingEmail": ...}.
    """
    owner = check_user(ctx, user_id)
    email = _address(body.forwardingEmail, "forwarding address")
    if email == ctx.principal.email.lower():
        raise invalid("Invalid forwarding address")
    if ctx.store.get(FORWARDING.name, {"owner": owner, "email": email}) is not None:
        raise _exists()
    status = "accepted" if ctx.world.directory.by_address(email) is not None else "pending"
    row = {"owner": owner, "email": email, "verification_status": status}
    ctx.store.insert(FORWARDING.name, row)
    return _forwarding_resource(row)


@tool(ToolKind.WRITE, name="gmail_settings_forwarding_addresses_delete", rest=RestBinding("DELETE", f"{S}/forwardingAddresses/{{forwardingEmail}}", status=204))
def forwarding_delete(ctx: ServiceContext, forwarding_email: str, user_id: UserId = "me") -> None:
    """Remove a forwarding address; auto-forwarding to it stops.

    Args:
        forwarding_email: the address.
    """
    owner = check_user(ctx, user_id)
    row = _own_forwarding(ctx, owner, forwarding_email)
    ctx.store.delete(FORWARDING.name, {"owner": owner, "email": row["email"]})
    auto = mb.get_setting(ctx, owner, "autoForwarding")
    if (auto.get("emailAddress") or "").lower() == row["email"]:
        mb.put_setting(ctx, owner, "autoForwarding", {"enabled": False})


# ---- delegates -----------------------------------------------------------------------------------
def _delegate_resource(row: dict[str, Any]) -> dict[str, Any]:
    return {"delegateEmail": row["email"], "verificationStatus": row["verification_status"]}


def _own_delegate(ctx: ServiceContext, owner: str, email: str) -> dict[str, Any]:
    row = ctx.store.get(DELEGATES.name, {"owner": owner, "email": email.strip().lower()})
    if row is None:
        raise not_found(NOT_FOUND)
    return row


@tool(ToolKind.READ, name="gmail_settings_delegates_list", rest=RestBinding("GET", f"{S}/delegates"))
def delegates_list(ctx: ServiceContext, user_id: UserId = "me") -> dict[str, Any]:
    """List the people who may read and send mail on this mailbox's behalf."""
    owner = check_user(ctx, user_id)
    rows = ctx.store.select(DELEGATES.name, {"owner": owner})
    return {"delegates": [_delegate_resource(r) for r in rows]} if rows else {}


@tool(ToolKind.READ, name="gmail_settings_delegates_get", rest=RestBinding("GET", f"{S}/delegates/{{delegateEmail}}"))
def delegates_get(ctx: ServiceContext, delegate_email: str, user_id: UserId = "me") -> dict[str, Any]:
    """Get one delegate.

    Args:
        delegate_email: the delegate's address.
    """
    owner = check_user(ctx, user_id)
    return _delegate_resource(_own_delegate(ctx, owner, delegate_email))


@tool(ToolKind.WRITE, name="gmail_settings_delegates_create", rest=RestBinding("POST", f"{S}/delegates", body="body"))
def delegates_create(ctx: ServiceContext, body: DelegateBody, user_id: UserId = "me") -> dict[str, Any]:
    """Give a colleague of the same organisation delegated access to this mailbox.

    Args:
        body: {"delegateEmail": ...}.
    """
    owner = check_user(ctx, user_id)
    email = _address(body.delegateEmail, "delegate")
    me = ctx.principal.email.lower()
    if email == me:
        raise invalid("Cannot delegate to yourself")
    if ctx.world.directory.by_address(email) is None or email.split("@")[-1] != me.split("@")[-1]:
        raise invalid("Invalid delegate: the delegate must be a user of the same organization")
    if ctx.store.get(DELEGATES.name, {"owner": owner, "email": email}) is not None:
        raise _exists()
    row = {"owner": owner, "email": email, "verification_status": "accepted"}
    ctx.store.insert(DELEGATES.name, row)
    return _delegate_resource(row)


@tool(ToolKind.WRITE, name="gmail_settings_delegates_delete", rest=RestBinding("DELETE", f"{S}/delegates/{{delegateEmail}}", status=204))
def delegates_delete(ctx: ServiceContext, delegate_email: str, user_id: UserId = "me") -> None:
    """Remove a delegate.

    Args:
        delegate_email: the delegate's address.
    """
    owner = check_user(ctx, user_id)
    row = _own_delegate(ctx, owner, delegate_email)
    ctx.store.delete(DELEGATES.name, {"owner": owner, "email": row["email"]})


# ---- single settings -------------------------------------------------------------------------------
def normalize_vacation(value: dict[str, Any]) -> dict[str, Any]:
    out = dict(value)
    for key in ("startTime", "endTime"):
        if key in out:
            text = str(out[key])
            if not text.isdigit():
                raise invalid(f"Invalid {key}: milliseconds since the epoch expected")
            out[key] = text
    if "startTime" in out and "endTime" in out and int(out["startTime"]) >= int(out["endTime"]):
        raise invalid("Vacation start time must be before its end time")
    out.setdefault("enableAutoReply", False)
    if out["enableAutoReply"] and not (out.get("responseBodyPlainText") or out.get("responseBodyHtml") or out.get("responseSubject")):
        raise invalid("Vacation responder needs a response subject or body")
    return out


def normalize_auto_forwarding(ctx: ServiceContext, owner: str, value: dict[str, Any]) -> dict[str, Any]:
    out = dict(value)
    out.setdefault("enabled", False)
    if out.get("emailAddress"):
        out["emailAddress"] = out["emailAddress"].strip().lower()
    if out["enabled"]:
        if not out.get("emailAddress") or not mb.accepted_forwarding(ctx, owner, out["emailAddress"]):
            raise invalid("Unrecognized forwarding address")
        if out.get("disposition") in (None, "dispositionUnspecified"):
            out["disposition"] = "leaveInInbox"
    return out


@tool(ToolKind.READ, name="gmail_settings_get_vacation", rest=RestBinding("GET", f"{S}/vacation"))
def get_vacation(ctx: ServiceContext, user_id: UserId = "me") -> dict[str, Any]:
    """The vacation responder (auto-reply) settings."""
    return mb.get_setting(ctx, check_user(ctx, user_id), "vacation")


@tool(ToolKind.WRITE, name="gmail_settings_update_vacation", rest=RestBinding("PUT", f"{S}/vacation", body="body"))
def update_vacation(ctx: ServiceContext, body: VacationBody, user_id: UserId = "me") -> dict[str, Any]:
    """Set the vacation responder: while enabled (and within startTime..endTime, ms since epoch) each sender
    gets one automatic reply.

    Args:
        body: {"enableAutoReply": true, "responseSubject": ..., "responseBodyPlainText": ..., "restrictToContacts": bool, "restrictToDomain": bool, "startTime": ms, "endTime": ms}.
    """
    owner = check_user(ctx, user_id)
    value = normalize_vacation(compact(body))
    mb.put_setting(ctx, owner, "vacation", value)
    return value


@tool(ToolKind.READ, name="gmail_settings_get_auto_forwarding", rest=RestBinding("GET", f"{S}/autoForwarding"))
def get_auto_forwarding(ctx: ServiceContext, user_id: UserId = "me") -> dict[str, Any]:
    """The auto-forwarding settings."""
    return mb.get_setting(ctx, check_user(ctx, user_id), "autoForwarding")


@tool(ToolKind.WRITE, name="gmail_settings_update_auto_forwarding", rest=RestBinding("PUT", f"{S}/autoForwarding", body="body"))
def update_auto_forwarding(ctx: ServiceContext, body: AutoForwardingBody, user_id: UserId = "me") -> dict[str, Any]:
    """Turn auto-forwarding of all arriving mail on or off (the address must be an accepted forwarding address).

    Args:
        body: {"enabled": true, "emailAddress": ..., "disposition": leaveInInbox|archive|trash|markRead}.
    """
    owner = check_user(ctx, user_id)
    value = normalize_auto_forwarding(ctx, owner, compact(body))
    mb.put_setting(ctx, owner, "autoForwarding", value)
    return value


def _merged(ctx: ServiceContext, owner: str, key: str, changes: dict[str, Any]) -> dict[str, Any]:
    value = {**mb.SETTING_DEFAULTS[key], **changes}
    mb.put_setting(ctx, owner, key, value)
    return value


@tool(ToolKind.READ, name="gmail_settings_get_imap", rest=RestBinding("GET", f"{S}/imap"))
def get_imap(ctx: ServiceContext, user_id: UserId = "me") -> dict[str, Any]:
    """The IMAP settings."""
    return mb.get_setting(ctx, check_user(ctx, user_id), "imap")


@tool(ToolKind.WRITE, name="gmail_settings_update_imap", rest=RestBinding("PUT", f"{S}/imap", body="body"))
def update_imap(ctx: ServiceContext, body: ImapBody, user_id: UserId = "me") -> dict[str, Any]:
    """Set the IMAP settings (fields left out take their defaults).

    Args:
        body: {"enabled": bool, "autoExpunge": bool, "expungeBehavior": archive|trash|deleteForever, "maxFolderSize": n}.
    """
    owner = check_user(ctx, user_id)
    if body.maxFolderSize is not None and body.maxFolderSize not in (0, 1000, 2000, 5000, 10000):
        raise invalid("Invalid maxFolderSize: 0, 1000, 2000, 5000 or 10000")
    return _merged(ctx, owner, "imap", compact(body))


@tool(ToolKind.READ, name="gmail_settings_get_pop", rest=RestBinding("GET", f"{S}/pop"))
def get_pop(ctx: ServiceContext, user_id: UserId = "me") -> dict[str, Any]:
    """The POP settings."""
    return mb.get_setting(ctx, check_user(ctx, user_id), "pop")


@tool(ToolKind.WRITE, name="gmail_settings_update_pop", rest=RestBinding("PUT", f"{S}/pop", body="body"))
def update_pop(ctx: ServiceContext, body: PopBody, user_id: UserId = "me") -> dict[str, Any]:
    """Set the POP settings.

    Args:
        body: {"accessWindow": disabled|fromNowOn|allMail, "disposition": leaveInInbox|archive|trash|markRead}.
    """
    owner = check_user(ctx, user_id)
    return _merged(ctx, owner, "pop", compact(body))


@tool(ToolKind.READ, name="gmail_settings_get_language", rest=RestBinding("GET", f"{S}/language"))
def get_language(ctx: ServiceContext, user_id: UserId = "me") -> dict[str, Any]:
    """The display language."""
    return mb.get_setting(ctx, check_user(ctx, user_id), "language")


_LANG = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$")


@tool(ToolKind.WRITE, name="gmail_settings_update_language", rest=RestBinding("PUT", f"{S}/language", body="body"))
def update_language(ctx: ServiceContext, body: LanguageBody, user_id: UserId = "me") -> dict[str, Any]:
    """Set the display language (an RFC 3066 tag such as en, en-GB, fr).

    Args:
        body: {"displayLanguage": ...}.
    """
    owner = check_user(ctx, user_id)
    if not body.displayLanguage or not _LANG.match(body.displayLanguage):
        raise invalid("Invalid displayLanguage")
    return _merged(ctx, owner, "language", {"displayLanguage": body.displayLanguage})


SETTINGS_TOOLS = (
    filters_list, filters_get, filters_create, filters_delete,
    send_as_list, send_as_get, send_as_create, send_as_update, send_as_patch, send_as_delete, send_as_verify,
    forwarding_list, forwarding_get, forwarding_create, forwarding_delete,
    delegates_list, delegates_get, delegates_create, delegates_delete,
    get_vacation, update_vacation, get_auto_forwarding, update_auto_forwarding,
    get_imap, update_imap, get_pop, update_pop, get_language, update_language,
)  # fmt: skip
