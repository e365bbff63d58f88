"""Calendars, the calendar list, sharing rules (ACL), free/busy, settings, colors and notification channels."""

from __future__ import annotations

import hashlib
from typing import Annotated, Any, Literal

from pydantic import Field

from clawarena.services.base import Delivery, ServiceContext, ServiceError
from clawarena.services.calendar import core
from clawarena.services.calendar.bodies import AclRuleBody, CalendarBody, CalendarListEntryBody, Channel, FreeBusyRequest
from clawarena.services.calendar.cancel import delete_event
from clawarena.services.calendar.channels import open_channel
from clawarena.services.calendar.tables import ACL, ADMINS, CALENDAR_LIST, CALENDARS, CHANNELS, EVENTS
from clawarena.services.calendar.times import fmt_ms, fmt_rfc3339, from_ms, parse_rfc3339, to_ms, valid_zone, zone
from clawarena.services.pagination import page
from clawarena.tools.core import RestBinding, ToolKind, WireOnly, tool

BASE = "/calendar/v3"
CAL_PATH = f"{BASE}/calendars/{{calendarId}}"
LIST_PATH = f"{BASE}/users/me/calendarList"
ACL_PATH = f"{CAL_PATH}/acl"
Hidden = WireOnly()
MinRole = Literal["freeBusyReader", "owner", "reader", "writer", "writerWithoutPrivateAccess"]


def _etag(ms: int, salt: str = "") -> str:
    """A quoted version tag that changes with the update time; deterministic."""
    return '"' + hashlib.sha256(f"{ms}/{salt}".encode()).hexdigest()[:16] + '"'


# ---- calendars ---------------------------------------------------------------------------------
def calendar_resource(world, cal: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": "calendar#calendar", "etag": _etag(cal.get("updated_ms") or 0, cal["id"]), "id": cal["id"],
                           "summary": cal["summary"], "timeZone": cal["time_zone"],
                           "conferenceProperties": {"allowedConferenceSolutionTypes": ["hangoutsMeet"]}}  # fmt: skip
    if cal["description"]:
        out["description"] = cal["description"]
    if cal["location"]:
        out["location"] = cal["location"]
    if not cal.get("is_primary"):
        out["dataOwner"] = core.owner_email(world, cal)
    return out


def _apply_calendar_fields(cal: dict[str, Any], fields: dict[str, Any], replace: bool) -> dict[str, Any]:
    out = dict(cal)
    if replace:
        out["description"], out["location"] = "", ""
    for key, col in (("summary", "summary"), ("description", "description"), ("location", "location"), ("timeZone", "time_zone")):
        if key in fields:
            value = fields[key]
            if key == "timeZone":
                if value is None:
                    continue
                if not valid_zone(value):
                    raise core.bad("Invalid time zone.", "invalid")
            if key == "summary" and not value:
                raise core.bad("Missing summary.", "required")
            out[col] = value or ""
    return out


@tool(ToolKind.READ, name="calendar_calendars_get", rest=RestBinding("GET", CAL_PATH))
def calendars_get(ctx: ServiceContext, calendar_id: str = "primary") -> dict[str, Any]:
    """Get a calendar's metadata (summary, description, time zone).

    Args:
        calendar_id: calendar id, or 'primary'.
    """
    cal, _ = core.access(ctx, calendar_id)
    return calendar_resource(ctx.world, cal)


@tool(ToolKind.WRITE, name="calendar_calendars_insert", rest=RestBinding("POST", f"{BASE}/calendars", body="body"))
def calendars_insert(ctx: ServiceContext, body: CalendarBody) -> dict[str, Any]:
    """Create a secondary calendar that you own.

    Args:
        body: {'summary': title (required), 'description', 'location', 'timeZone': IANA zone}.
    """
    fields = body.given()
    if not fields.get("summary"):
        raise core.bad("Missing summary.", "required")
    world = ctx.world
    cal_id = f"c_{world.ids.next('calendar.calendar', 32)}@group.calendar.google.com"
    tz = core.settings_of(world, ctx.principal.id)["timezone"]
    cal = {"id": cal_id, "owner": ctx.principal.id, "summary": "", "description": "", "location": "", "time_zone": tz,
           "is_primary": False, "updated_ms": world.clock.now_ms()}  # fmt: skip
    cal = _apply_calendar_fields(cal, fields, replace=False)
    world.store.insert(CALENDARS.name, cal)
    core.add_list_entry(world, ctx.principal.id, cal_id)
    return calendar_resource(world, cal)


def _change_calendar(ctx: ServiceContext, calendar_id: str, fields: dict[str, Any], replace: bool) -> dict[str, Any]:
    cal, _ = core.access(ctx, calendar_id, "owner")
    if replace and not fields.get("summary"):
        raise core.bad("Missing summary.", "required")
    new = _apply_calendar_fields(cal, fields, replace)
    new["updated_ms"] = ctx.world.clock.now_ms()
    new.pop("_virtual", None)
    core.materialize(ctx.world, cal)
    ctx.store.update(CALENDARS.name, {"id": cal["id"]}, {k: v for k, v in new.items() if k != "id"})
    return calendar_resource(ctx.world, new)


@tool(ToolKind.WRITE, name="calendar_calendars_update", rest=RestBinding("PUT", CAL_PATH, body="body"))
def calendars_update(ctx: ServiceContext, body: CalendarBody, calendar_id: str = "primary") -> dict[str, Any]:
    """Replace a calendar's metadata (you must own it; fields left out are cleared).

    Args:
        body: {'summary' (required), 'description', 'location', 'timeZone'}.
        calendar_id: calendar id, or 'primary'.
    """
    return _change_calendar(ctx, calendar_id, body.given(), replace=True)


@tool(ToolKind.WRITE, name="calendar_calendars_patch", rest=RestBinding("PATCH", CAL_PATH, body="body"))
def calendars_patch(ctx: ServiceContext, body: CalendarBody, calendar_id: str = "primary") -> dict[str, Any]:
    """Change some of a calendar's metadata (you must own it).

    Args:
        body: any of {'summary', 'description', 'location', 'timeZone'}.
        calendar_id: calendar id, or 'primary'.
    """
    return _change_calendar(ctx, calendar_id, body.given(), replace=False)


def _drop_events(ctx: ServiceContext, cal: dict[str, Any]) -> None:
    """Delete every event of a calendar; guests of its events get the cancellation."""
    for row in ctx.store.select(EVENTS.name, {"calendar_id": cal["id"]}):
        if row["status"] != "cancelled" and core.is_organizer_copy(row) and row["attendees"] and not row["recurring_event_id"]:
            delete_event(ctx, cal, row, "none")
    ctx.store.delete(EVENTS.name, {"calendar_id": cal["id"]})


@tool(ToolKind.WRITE, name="calendar_calendars_delete", rest=RestBinding("DELETE", CAL_PATH, status=204))
def calendars_delete(ctx: ServiceContext, calendar_id: str) -> None:
    """Delete a secondary calendar you own, with all its events (use calendars_clear for your primary).

    Args:
        calendar_id: id of the secondary calendar.
    """
    cal, _ = core.access(ctx, calendar_id, "owner")
    if cal.get("is_primary"):
        raise core.bad("Cannot delete a primary calendar; use calendars.clear to delete its events.", "cannotDeletePrimaryCalendar")
    if cal["owner"] != ctx.principal.id:
        raise ServiceError(403, "Only the data owner can delete a calendar.", reason="forbidden")
    _drop_events(ctx, cal)
    ctx.store.delete(ACL.name, {"calendar_id": cal["id"]})
    ctx.store.delete(CALENDAR_LIST.name, {"calendar_id": cal["id"]})
    ctx.store.delete(CALENDARS.name, {"id": cal["id"]})
    return None


@tool(ToolKind.WRITE, name="calendar_calendars_clear", rest=RestBinding("POST", f"{CAL_PATH}/clear", status=204))
def calendars_clear(ctx: ServiceContext, calendar_id: str = "primary") -> None:
    """Delete every event on a primary calendar you own.

    Args:
        calendar_id: 'primary' (or your email).
    """
    cal, _ = core.access(ctx, calendar_id, "owner")
    if not cal.get("is_primary"):
        raise core.bad("Only primary calendars can be cleared; delete a secondary calendar instead.", "invalid")
    _drop_events(ctx, cal)
    return None


@tool(ToolKind.SEND, name="calendar_calendars_transfer_ownership",
      rest=RestBinding("POST", f"{CAL_PATH}/transferOwnership", status=204))  # fmt: skip
def calendars_transfer_ownership(ctx: ServiceContext, calendar_id: str, new_data_owner: str, use_admin_access: bool = False) -> None:
    """Workspace administrators only: make a colleague the data owner of a secondary calendar of your organisation
    (the previous data owner keeps owner access).

    Args:
        calendar_id: id of the secondary calendar.
        new_data_owner: email of the new data owner (a user of the same organisation).
        use_admin_access: must be true: the call runs with your administrator privileges.
    """
    world = ctx.world
    if not use_admin_access:
        raise core.bad("Only admin access is supported: set useAdminAccess to true.", "invalid")
    # Checked before the calendar is looked up, so a refusal says nothing about which calendars exist.
    if ctx.store.get(ADMINS.name, {"principal": ctx.principal.id}) is None:
        raise ServiceError(403, "Not Authorized to access this resource/api", reason="forbidden")
    cal = core.get_calendar(world, core.resolve_id(ctx, calendar_id))
    previous = world.directory.principal(cal["owner"]) if cal is not None else None
    if cal is None or previous is None or previous.org != ctx.principal.org:
        raise core.not_found(denied=cal is not None)
    if cal.get("is_primary"):
        raise core.bad("Cannot transfer the ownership of a primary calendar.", "invalid")
    target = core.principal_by_email(world, new_data_owner)
    if target is None or target.org != previous.org:
        raise core.bad(f"Invalid newDataOwner: {new_data_owner}")
    if target.id == previous.id:
        return None
    now = world.clock.now_ms()
    ctx.store.update(CALENDARS.name, {"id": cal["id"]}, {"owner": target.id, "updated_ms": now})
    ctx.store.update(EVENTS.name, {"calendar_id": cal["id"]}, {"owner": target.id})
    _upsert_rule(ctx, cal["id"], "user", previous.email, "owner")
    ctx.store.delete(ACL.name, {"calendar_id": cal["id"], "rule_id": f"user:{target.email.lower()}"})
    core.add_list_entry(world, target.id, cal["id"])
    ctx.deliver(Delivery("calendar", ctx.principal.email, (target.email,), f"You now own the calendar {cal['summary']}",
                         f"{ctx.principal.name} transferred the calendar '{cal['summary']}' ({cal['id']}) of "
                         f"{previous.name} to you.", ref=cal["id"]))  # fmt: skip
    return None


# ---- calendar list -----------------------------------------------------------------------------
def _entries(ctx: ServiceContext) -> list[tuple[dict[str, Any], dict[str, Any], str]]:
    world = ctx.world
    me = ctx.principal
    out = []
    seen = set()
    own = core.get_calendar(world, me.email)
    assert own is not None
    stored_own = ctx.store.get(CALENDAR_LIST.name, {"principal": me.id, "calendar_id": me.email})
    out.append((stored_own or core.new_list_entry(world, me.id, me.email), own, "owner"))
    seen.add(me.email)
    for entry in ctx.store.select(CALENDAR_LIST.name, {"principal": me.id}):
        if entry["calendar_id"] in seen:
            continue
        cal = core.get_calendar(world, entry["calendar_id"])
        if cal is None:
            continue
        role = core.role_of(world, me, cal)
        if role == "none":
            continue
        out.append((entry, cal, role))
    head, rest = out[:1], sorted(out[1:], key=lambda t: ((t[0]["summary_override"] or t[1]["summary"]).lower(), t[1]["id"]))
    return head + rest


def list_entry_resource(ctx: ServiceContext, entry: dict[str, Any], cal: dict[str, Any], role: str) -> dict[str, Any]:
    own_primary = cal["id"] == ctx.principal.email
    out: dict[str, Any] = {
        "kind": "calendar#calendarListEntry", "etag": _etag(entry["updated_ms"], cal["id"]), "id": cal["id"],
        "summary": cal["summary"], "timeZone": cal["time_zone"], "colorId": entry["color_id"],
        "backgroundColor": entry["background_color"], "foregroundColor": entry["foreground_color"],
        "selected": bool(entry["selected"]), "accessRole": role,
        "defaultReminders": entry["default_reminders"] or core.default_reminders(ctx, cal),
        "conferenceProperties": {"allowedConferenceSolutionTypes": ["hangoutsMeet"]},
    }  # fmt: skip
    if cal["description"]:
        out["description"] = cal["description"]
    if cal["location"]:
        out["location"] = cal["location"]
    if entry["summary_override"]:
        out["summaryOverride"] = entry["summary_override"]
    if entry["hidden"]:
        out["hidden"] = True
    if own_primary:
        out["primary"] = True
        out["notificationSettings"] = {"notifications": entry["notifications"] or [
            {"type": t, "method": "email"} for t in ("eventCreation", "eventChange", "eventCancellation", "eventResponse")]}  # fmt: skip
    elif entry["notifications"]:
        out["notificationSettings"] = {"notifications": entry["notifications"]}
    if not cal.get("is_primary"):
        out["dataOwner"] = core.owner_email(ctx.world, cal)
    return out


@tool(ToolKind.READ, name="calendar_calendar_list_list", rest=RestBinding("GET", LIST_PATH))
def calendar_list_list(
    ctx: ServiceContext,
    max_results: int = Field(default=100, ge=1, le=250),
    page_token: str | None = None,
    min_access_role: MinRole | None = None,
    show_hidden: bool = False,
    show_deleted: bool = False,
    sync_token: Annotated[str | None, Hidden] = None,
    show_own_organization_only: Annotated[bool | None, Hidden] = None,
) -> dict[str, Any]:
    """List the calendars in your calendar list (your primary first) with your access role on each.

    Args:
        max_results: page size (1-250).
        page_token: the nextPageToken of the previous page.
        min_access_role: only calendars where you have at least this role.
        show_hidden: include calendars hidden from the list.
        show_deleted: include deleted entries (there are none to show: deletions are immediate).
    """
    need = core.RANK.get("writer" if min_access_role == "writerWithoutPrivateAccess" else (min_access_role or "freeBusyReader"), 1)
    rows = [t for t in _entries(ctx) if core.RANK[t[2]] >= need and (show_hidden or not t[0]["hidden"])]
    chunk, next_token = page(rows, page_token, max_results)
    newest = max([t[0]["updated_ms"] for t in rows] + [0])
    out: dict[str, Any] = {"kind": "calendar#calendarList", "etag": _etag(newest, "list"),
                           "items": [list_entry_resource(ctx, *t) for t in chunk]}  # fmt: skip
    if next_token:
        out["nextPageToken"] = next_token
    else:
        out["nextSyncToken"] = f"cl{ctx.world.clock.now_ms()}"
    return out


def _entry(ctx: ServiceContext, calendar_id: str) -> tuple[dict[str, Any], dict[str, Any], str]:
    cal_id = core.resolve_id(ctx, calendar_id)
    for t in _entries(ctx):
        if t[1]["id"] == cal_id:
            return t
    core.access(ctx, calendar_id)  # the real error for a calendar that is not shared
    raise core.not_found()


@tool(ToolKind.READ, name="calendar_calendar_list_get", rest=RestBinding("GET", f"{LIST_PATH}/{{calendarId}}"))
def calendar_list_get(ctx: ServiceContext, calendar_id: str = "primary") -> dict[str, Any]:
    """Get one calendar from your calendar list.

    Args:
        calendar_id: calendar id, or 'primary'.
    """
    return list_entry_resource(ctx, *_entry(ctx, calendar_id))


def _apply_entry(entry: dict[str, Any], fields: dict[str, Any], rgb: bool, replace: bool) -> dict[str, Any]:
    out = dict(entry)
    if replace:
        out.update(summary_override=None, hidden=False, selected=True, default_reminders=[], notifications=[])
    if "summaryOverride" in fields:
        out["summary_override"] = fields["summaryOverride"] or None
    if "hidden" in fields and fields["hidden"] is not None:
        out["hidden"] = bool(fields["hidden"])
        if out["hidden"] and "selected" not in fields:
            out["selected"] = False
    if "selected" in fields and fields["selected"] is not None:
        out["selected"] = bool(fields["selected"])
    if fields.get("defaultReminders") is not None:
        out["default_reminders"] = fields["defaultReminders"]
    if fields.get("notificationSettings") is not None:
        out["notifications"] = fields["notificationSettings"].get("notifications") or []
    if rgb and (fields.get("backgroundColor") or fields.get("foregroundColor")):
        for key, col in (("backgroundColor", "background_color"), ("foregroundColor", "foreground_color")):
            value = fields.get(key)
            if value is not None:
                if not (isinstance(value, str) and len(value) == 7 and value.startswith("#")):
                    raise core.bad(f"Invalid value for: {key}")
                out[col] = value.lower()
        out["color_id"] = core.nearest_color(out["background_color"])
    elif fields.get("colorId") is not None:
        if fields["colorId"] not in core.CALENDAR_COLORS:
            raise core.bad("Invalid color id.")
        out["color_id"] = fields["colorId"]
        out["background_color"] = core.CALENDAR_COLORS[fields["colorId"]]
        out["foreground_color"] = "#000000"
    return out


def _save_entry(ctx: ServiceContext, entry: dict[str, Any]) -> None:
    key = {"principal": entry["principal"], "calendar_id": entry["calendar_id"]}
    entry = {**entry, "updated_ms": ctx.world.clock.now_ms()}
    if ctx.store.get(CALENDAR_LIST.name, key) is None:
        ctx.store.insert(CALENDAR_LIST.name, entry)
    else:
        ctx.store.update(CALENDAR_LIST.name, key, {k: v for k, v in entry.items() if k not in key})


@tool(ToolKind.WRITE, name="calendar_calendar_list_insert", rest=RestBinding("POST", LIST_PATH, body="body"))
def calendar_list_insert(ctx: ServiceContext, body: CalendarListEntryBody, color_rgb_format: bool = False) -> dict[str, Any]:
    """Add a calendar shared with you to your calendar list.

    Args:
        body: {'id': calendar id (required), optional 'summaryOverride', 'colorId', 'hidden', 'selected'}.
        color_rgb_format: take backgroundColor/foregroundColor ('#rrggbb') instead of colorId.
    """
    fields = body.given()
    if not fields.get("id"):
        raise core.bad("Missing calendar id.", "required")
    cal, role = core.access(ctx, fields["id"])
    existing = ctx.store.get(CALENDAR_LIST.name, {"principal": ctx.principal.id, "calendar_id": cal["id"]})
    entry = _apply_entry(existing or core.new_list_entry(ctx.world, ctx.principal.id, cal["id"]), fields, color_rgb_format, False)
    _save_entry(ctx, entry)
    return list_entry_resource(ctx, entry, cal, role)


def _change_entry(ctx: ServiceContext, calendar_id: str, fields: dict[str, Any], rgb: bool, replace: bool) -> dict[str, Any]:
    entry, cal, role = _entry(ctx, calendar_id)
    new = _apply_entry(entry, fields, rgb, replace)
    _save_entry(ctx, new)
    return list_entry_resource(ctx, new, cal, role)


@tool(ToolKind.WRITE, name="calendar_calendar_list_update", rest=RestBinding("PUT", f"{LIST_PATH}/{{calendarId}}", body="body"))
def calendar_list_update(ctx: ServiceContext, body: CalendarListEntryBody, calendar_id: str = "primary",
                         color_rgb_format: bool = False) -> dict[str, Any]:  # fmt: skip
    """Replace your settings for a calendar in your list (summaryOverride, color, hidden, reminders).

    Args:
        body: the CalendarListEntry settings.
        calendar_id: calendar id, or 'primary'.
        color_rgb_format: take backgroundColor/foregroundColor ('#rrggbb') instead of colorId.
    """
    return _change_entry(ctx, calendar_id, body.given(), color_rgb_format, True)


@tool(ToolKind.WRITE, name="calendar_calendar_list_patch", rest=RestBinding("PATCH", f"{LIST_PATH}/{{calendarId}}", body="body"))
def calendar_list_patch(ctx: ServiceContext, body: CalendarListEntryBody, calendar_id: str = "primary",
                        color_rgb_format: bool = False) -> dict[str, Any]:  # fmt: skip
    """Change some of your settings for a calendar in your list.

    Args:
        body: any of {'summaryOverride', 'colorId', 'hidden', 'selected', 'defaultReminders'}.
        calendar_id: calendar id, or 'primary'.
        color_rgb_format: take backgroundColor/foregroundColor ('#rrggbb') instead of colorId.
    """
    return _change_entry(ctx, calendar_id, body.given(), color_rgb_format, False)


@tool(ToolKind.WRITE, name="calendar_calendar_list_delete", rest=RestBinding("DELETE", f"{LIST_PATH}/{{calendarId}}", status=204))
def calendar_list_delete(ctx: ServiceContext, calendar_id: str) -> None:
    """Remove a calendar from your calendar list (the calendar itself stays).

    Args:
        calendar_id: calendar id.
    """
    _, cal, _ = _entry(ctx, calendar_id)
    if cal["id"] == ctx.principal.email:
        raise core.bad("Cannot remove the primary calendar from the calendar list.", "cannotRemovePrimaryCalendar")
    ctx.store.delete(CALENDAR_LIST.name, {"principal": ctx.principal.id, "calendar_id": cal["id"]})
    return None


@tool(ToolKind.WRITE, name="calendar_calendar_list_watch", rest=RestBinding("POST", f"{LIST_PATH}/watch", body="body"))
def calendar_list_watch(
    ctx: ServiceContext,
    body: Channel,
    max_results: Annotated[int | None, Hidden] = None,
    page_token: Annotated[str | None, Hidden] = None,
    min_access_role: Annotated[str | None, Hidden] = None,
    show_hidden: Annotated[bool | None, Hidden] = None,
    show_deleted: Annotated[bool | None, Hidden] = None,
    sync_token: Annotated[str | None, Hidden] = None,
    show_own_organization_only: Annotated[bool | None, Hidden] = None,
) -> dict[str, Any]:
    """Watch your calendar list: change notifications (no content) go to a web hook.

    Args:
        body: the channel: {'id', 'type': 'web_hook', 'address': 'https://...'}.
    """
    return open_channel(ctx, body, "https://www.googleapis.com/calendar/v3/users/me/calendarList?alt=json")


# ---- ACL -----------------------------------------------------------------------------------------
def _rule_id(scope_type: str, value: str | None) -> str:
    return "default" if scope_type == "default" else f"{scope_type}:{(value or '').lower()}"


def _rules(ctx: ServiceContext, cal: dict[str, Any]) -> list[dict[str, Any]]:
    owner = core.owner_email(ctx.world, cal)
    out = [{"calendar_id": cal["id"], "rule_id": f"user:{owner.lower()}", "role": "owner", "scope_type": "user",
            "scope_value": owner, "updated_ms": cal.get("updated_ms") or 0, "_owner": True}]  # fmt: skip
    out += [r for r in ctx.store.select(ACL.name, {"calendar_id": cal["id"]}) if r["rule_id"] != out[0]["rule_id"]]
    return out


def rule_resource(rule: dict[str, Any]) -> dict[str, Any]:
    scope: dict[str, Any] = {"type": rule["scope_type"]}
    if rule["scope_type"] != "default":
        scope["value"] = rule["scope_value"]
    return {"kind": "calendar#aclRule", "etag": _etag(rule["updated_ms"], rule["rule_id"]), "id": rule["rule_id"],
            "scope": scope, "role": rule["role"]}  # fmt: skip


def _find_rule(ctx: ServiceContext, cal: dict[str, Any], rule_id: str) -> dict[str, Any]:
    for r in _rules(ctx, cal):
        if r["rule_id"] == rule_id or r["rule_id"] == rule_id.lower():
            return r
    raise core.not_found()


def _recipients(ctx: ServiceContext, cal: dict[str, Any], scope_type: str, value: str | None) -> list[str]:
    world = ctx.world
    owner = core.owner_email(world, cal).lower()
    if scope_type in ("user", "group"):
        return [value] if value and value.lower() not in (owner, ctx.principal.email.lower()) else []
    if scope_type == "domain":
        inside = [p.email for p in sorted(world.directory.principals.values(), key=lambda p: p.id)
                  if p.email.lower().endswith("@" + (value or "").lower()) and p.email.lower() not in (owner, ctx.principal.email.lower())]  # fmt: skip
        return inside or [f"*@{value}"]
    return ["anyone"]


def _upsert_rule(ctx: ServiceContext, cal_id: str, scope_type: str, value: str | None, role: str) -> dict[str, Any]:
    rid = _rule_id(scope_type, value)
    row = {"calendar_id": cal_id, "rule_id": rid, "role": role, "scope_type": scope_type,
           "scope_value": value if scope_type != "default" else None, "updated_ms": ctx.world.clock.now_ms()}  # fmt: skip
    if ctx.store.get(ACL.name, {"calendar_id": cal_id, "rule_id": rid}) is None:
        ctx.store.insert(ACL.name, row)
    else:
        ctx.store.update(ACL.name, {"calendar_id": cal_id, "rule_id": rid}, {"role": role, "scope_value": row["scope_value"], "updated_ms": row["updated_ms"]})
    return row


def _shared_events_text(ctx: ServiceContext, cal: dict[str, Any], role: str) -> str:
    """What a share hands over: a reader (or more) sees every event's details from now on, so the
    delivery carries them (free/busy sees only times, which say nothing of the content)."""
    if core.RANK[role] < core.RANK["reader"]:
        return ""
    tz = core.cal_tz(cal)
    events = ctx.store.select(EVENTS.name, {"calendar_id": cal["id"]}, order_by='"id"')
    return "".join(f"\n\n--- {row['summary'] or '(No title)'} ---\n{core.event_text(row, tz)}" for row in events if row["status"] != "cancelled")


def _write_rule(ctx: ServiceContext, cal: dict[str, Any], scope_type: str, value: str | None, role: str, old_role: str) -> dict[str, Any]:
    world = ctx.world
    if scope_type != "default" and not value:
        raise core.bad("Missing scope value.", "required")
    if scope_type == "default" and value:
        raise core.bad("The default scope takes no value.", "invalid")
    if scope_type in ("user", "group") and not core._EMAIL.match(value or ""):
        raise core.bad("Invalid scope value.", "invalid")
    owner = core.owner_email(world, cal).lower()
    if scope_type == "user" and (value or "").lower() == ctx.principal.email.lower():
        raise ServiceError(403, "Cannot change your own access level.", reason="cannotChangeOwnAcl")
    if scope_type == "user" and (value or "").lower() == owner:
        raise ServiceError(403, "Cannot change the access level of the calendar's data owner.", reason="cannotChangeOwnerAcl")
    rule = _upsert_rule(ctx, cal["id"], scope_type, value, role)
    if core.RANK[role] > core.RANK.get(old_role, 0):
        if scope_type == "user":
            grantee = core.principal_by_email(world, value)
            if grantee is not None:
                core.add_list_entry(world, grantee.id, cal["id"])
        recipients = _recipients(ctx, cal, scope_type, value)
        if recipients:
            text = f"{ctx.principal.name} ({ctx.principal.email}) shared the calendar '{cal['summary']}' ({cal['id']}) with you as {role}."
            if cal["description"]:
                text += f"\n\n{cal['description']}"
            text += _shared_events_text(ctx, cal, role)
            ctx.deliver(Delivery("calendar", ctx.principal.email, tuple(recipients), f"Calendar shared with you: {cal['summary']}", text, ref=cal["id"]))
    return rule


@tool(ToolKind.READ, name="calendar_acl_list", rest=RestBinding("GET", ACL_PATH))
def acl_list(
    ctx: ServiceContext,
    calendar_id: str = "primary",
    max_results: int = Field(default=100, ge=1, le=250),
    page_token: str | None = None,
    show_deleted: bool = False,
    sync_token: Annotated[str | None, Hidden] = None,
) -> dict[str, Any]:
    """List who a calendar is shared with (you must own it).

    Args:
        calendar_id: calendar id, or 'primary'.
        max_results: page size.
        page_token: the nextPageToken of the previous page.
        show_deleted: include rules with role 'none'.
    """
    cal, _ = core.access(ctx, calendar_id, "owner")
    rules = [r for r in _rules(ctx, cal) if show_deleted or r["role"] != "none"]
    chunk, next_token = page(rules, page_token, max_results)
    out: dict[str, Any] = {"kind": "calendar#acl", "etag": _etag(max(r["updated_ms"] for r in rules), "acl"),
                           "items": [rule_resource(r) for r in chunk]}  # fmt: skip
    if next_token:
        out["nextPageToken"] = next_token
    else:
        out["nextSyncToken"] = f"acl{ctx.world.clock.now_ms()}"
    return out


@tool(ToolKind.READ, name="calendar_acl_get", rest=RestBinding("GET", f"{ACL_PATH}/{{ruleId}}"))
def acl_get(ctx: ServiceContext, rule_id: str, calendar_id: str = "primary") -> dict[str, Any]:
    """Get one sharing rule of a calendar you own.

    Args:
        rule_id: the rule id, e.g. 'user:bob@northwind.example', 'domain:northwind.example' or 'default'.
        calendar_id: calendar id, or 'primary'.
    """
    cal, _ = core.access(ctx, calendar_id, "owner")
    return rule_resource(_find_rule(ctx, cal, rule_id))


@tool(ToolKind.SEND, name="calendar_acl_insert", rest=RestBinding("POST", ACL_PATH, body="body"))
def acl_insert(ctx: ServiceContext, body: AclRuleBody, calendar_id: str = "primary", send_notifications: bool = True) -> dict[str, Any]:
    """Share a calendar: give a user, group, domain or everyone (default) a role on it.

    Args:
        body: {'role': 'freeBusyReader'|'reader'|'writer'|'owner'|'none', 'scope': {'type': 'user', 'value': 'bob@...'}}.
        calendar_id: calendar id, or 'primary'.
        send_notifications: email the new reader about it (the access is granted either way).
    """
    cal, _ = core.access(ctx, calendar_id, "owner")
    fields = body.given()
    if not fields.get("role"):
        raise core.bad("Missing role.", "required")
    scope = fields.get("scope") or {}
    if not scope.get("type"):
        raise core.bad("Missing scope.", "required")
    old = ctx.store.get(ACL.name, {"calendar_id": cal["id"], "rule_id": _rule_id(scope["type"], scope.get("value"))})
    return rule_resource(_write_rule(ctx, cal, scope["type"], scope.get("value"), fields["role"], old["role"] if old else "none"))


def _change_rule(ctx: ServiceContext, calendar_id: str, rule_id: str, fields: dict[str, Any], replace: bool) -> dict[str, Any]:
    cal, _ = core.access(ctx, calendar_id, "owner")
    rule = _find_rule(ctx, cal, rule_id)
    scope = fields.get("scope")
    if scope and _rule_id(scope.get("type", ""), scope.get("value")) != rule["rule_id"]:
        raise core.bad("The scope of a rule cannot be changed.", "invalid")
    role = fields.get("role")
    if not role:
        if replace:
            raise core.bad("Missing role.", "required")
        return rule_resource(rule)
    if rule.get("_owner"):
        raise ServiceError(403, "Cannot change your own access level." if rule["scope_value"].lower() == ctx.principal.email.lower()
                           else "Cannot change the access level of the calendar's data owner.", reason="cannotChangeOwnAcl")  # fmt: skip
    return rule_resource(_write_rule(ctx, cal, rule["scope_type"], rule["scope_value"], role, rule["role"]))


@tool(ToolKind.SEND, name="calendar_acl_update", rest=RestBinding("PUT", f"{ACL_PATH}/{{ruleId}}", body="body"))
def acl_update(ctx: ServiceContext, rule_id: str, body: AclRuleBody, calendar_id: str = "primary",
               send_notifications: bool = True) -> dict[str, Any]:  # fmt: skip
    """Replace a sharing rule (its role; the scope cannot change).

    Args:
        rule_id: the rule id, e.g. 'user:bob@northwind.example'.
        body: {'role': ..., 'scope': the rule's scope}.
        calendar_id: calendar id, or 'primary'.
        send_notifications: email the reader about a wider role.
    """
    return _change_rule(ctx, calendar_id, rule_id, body.given(), True)


@tool(ToolKind.SEND, name="calendar_acl_patch", rest=RestBinding("PATCH", f"{ACL_PATH}/{{ruleId}}", body="body"))
def acl_patch(ctx: ServiceContext, rule_id: str, body: AclRuleBody, calendar_id: str = "primary",
              send_notifications: bool = True) -> dict[str, Any]:  # fmt: skip
    """Change the role of a sharing rule.

    Args:
        rule_id: the rule id, e.g. 'user:bob@northwind.example'.
        body: {'role': 'reader'}.
        calendar_id: calendar id, or 'primary'.
        send_notifications: email the reader about a wider role.
    """
    return _change_rule(ctx, calendar_id, rule_id, body.given(), False)


@tool(ToolKind.WRITE, name="calendar_acl_delete", rest=RestBinding("DELETE", f"{ACL_PATH}/{{ruleId}}", status=204))
def acl_delete(ctx: ServiceContext, rule_id: str, calendar_id: str = "primary") -> None:
    """Stop sharing a calendar with someone (delete the rule).

    Args:
        rule_id: the rule id, e.g. 'user:bob@northwind.example'.
        calendar_id: calendar id, or 'primary'.
    """
    cal, _ = core.access(ctx, calendar_id, "owner")
    rule = _find_rule(ctx, cal, rule_id)
    if rule.get("_owner") or (rule["scope_type"] == "user" and rule["scope_value"].lower() == ctx.principal.email.lower()):
        raise ServiceError(403, "Cannot change your own access level.", reason="cannotChangeOwnAcl")
    ctx.store.delete(ACL.name, {"calendar_id": cal["id"], "rule_id": rule["rule_id"]})
    return None


@tool(ToolKind.WRITE, name="calendar_acl_watch", rest=RestBinding("POST", f"{ACL_PATH}/watch", body="body"))
def acl_watch(
    ctx: ServiceContext,
    body: Channel,
    calendar_id: str = "primary",
    max_results: Annotated[int | None, Hidden] = None,
    page_token: Annotated[str | None, Hidden] = None,
    show_deleted: Annotated[bool | None, Hidden] = None,
    sync_token: Annotated[str | None, Hidden] = None,
) -> dict[str, Any]:
    """Watch a calendar's sharing rules: change notifications (no content) go to a web hook.

    Args:
        body: the channel: {'id', 'type': 'web_hook', 'address': 'https://...'}.
        calendar_id: calendar id, or 'primary'.
    """
    cal, _ = core.access(ctx, calendar_id, "owner")
    return open_channel(ctx, body, f"https://www.googleapis.com/calendar/v3/calendars/{cal['id']}/acl?alt=json")


# ---- free/busy ---------------------------------------------------------------------------------
def busy_periods(ctx: ServiceContext, cal: dict[str, Any], lo: int, hi: int) -> list[tuple[int, int]]:
    owner_email = core.owner_email(ctx.world, cal).lower()
    rows = ctx.store.select(EVENTS.name, {"calendar_id": cal["id"]})
    spans = []
    for r in core.expand(ctx.world, cal, rows, lo, hi, False):
        if r["transparency"] == "transparent":
            continue
        mine = next((a for a in r["attendees"] if a["email"].lower() in (owner_email, cal["id"].lower())), None)
        if mine is not None and mine.get("responseStatus") == "declined":
            continue
        s, e = core.span_ms(r, core.cal_tz(cal))
        spans.append((max(s, lo), min(e, hi)))
    merged: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    return merged


@tool(ToolKind.READ, name="calendar_freebusy_query", rest=RestBinding("POST", f"{BASE}/freeBusy", body="body"))
def freebusy_query(ctx: ServiceContext, body: FreeBusyRequest) -> dict[str, Any]:
    """When are these calendars busy between timeMin and timeMax? (needs free/busy access to each)

    Args:
        body: {'timeMin': RFC 3339, 'timeMax': RFC 3339, 'items': [{'id': 'primary'}, {'id': 'bob@northwind.example'}],
            optional 'timeZone' for the answer}.
    """
    lo = to_ms(parse_rfc3339(body.timeMin))
    hi = to_ms(parse_rfc3339(body.timeMax))
    if hi <= lo:
        raise ServiceError(400, "The specified time range is empty.", reason="timeRangeEmpty")
    if body.timeZone is not None and not valid_zone(body.timeZone):
        raise core.bad("Invalid time zone.", "invalid")
    if hi - lo > 366 * 86400 * 1000:
        raise core.bad("The requested time range is too long.", "timeRangeTooLong")
    out_tz = zone(body.timeZone or "UTC")
    calendars: dict[str, Any] = {}
    for item in body.items:
        cal = core.get_calendar(ctx.world, core.resolve_id(ctx, item.id))
        role = core.role_of(ctx.world, ctx.principal, cal) if cal is not None else "none"
        if cal is None or role == "none":
            calendars[item.id] = {"errors": [{"domain": "global", "reason": "notFound"}], "busy": []}
            continue
        calendars[item.id] = {"busy": [{"start": fmt_rfc3339(from_ms(s), out_tz), "end": fmt_rfc3339(from_ms(e), out_tz)}
                                       for s, e in busy_periods(ctx, cal, lo, hi)]}  # fmt: skip
    return {"kind": "calendar#freeBusy", "timeMin": fmt_ms(lo), "timeMax": fmt_ms(hi), "calendars": calendars}


# ---- settings and colors -------------------------------------------------------------------------
def setting_resource(key: str, value: str) -> dict[str, Any]:
    return {"kind": "calendar#setting", "etag": _etag(len(value), key), "id": key, "value": value}


@tool(ToolKind.READ, name="calendar_settings_list", rest=RestBinding("GET", f"{BASE}/users/me/settings"))
def settings_list(
    ctx: ServiceContext,
    max_results: int = Field(default=100, ge=1, le=250),
    page_token: str | None = None,
    sync_token: Annotated[str | None, Hidden] = None,
) -> dict[str, Any]:
    """Your calendar settings: timezone, locale, weekStart, format24HourTime, defaultEventLength...

    Args:
        max_results: page size.
        page_token: the nextPageToken of the previous page.
    """
    values = core.settings_of(ctx.world, ctx.principal.id)
    items = [setting_resource(k, values[k]) for k in sorted(values)]
    chunk, next_token = page(items, page_token, max_results)
    out: dict[str, Any] = {"kind": "calendar#settings", "etag": _etag(len(items), "settings"), "items": chunk}
    if next_token:
        out["nextPageToken"] = next_token
    else:
        out["nextSyncToken"] = f"set{ctx.world.clock.now_ms()}"
    return out


@tool(ToolKind.READ, name="calendar_settings_get", rest=RestBinding("GET", f"{BASE}/users/me/settings/{{setting}}"))
def settings_get(ctx: ServiceContext, setting: str) -> dict[str, Any]:
    """One calendar setting by id, e.g. 'timezone', 'locale', 'weekStart', 'format24HourTime'.

    Args:
        setting: the setting id.
    """
    values = core.settings_of(ctx.world, ctx.principal.id)
    if setting not in values:
        raise core.not_found()
    return setting_resource(setting, values[setting])


@tool(ToolKind.WRITE, name="calendar_settings_watch", rest=RestBinding("POST", f"{BASE}/users/me/settings/watch", body="body"))
def settings_watch(
    ctx: ServiceContext,
    body: Channel,
    max_results: Annotated[int | None, Hidden] = None,
    page_token: Annotated[str | None, Hidden] = None,
    sync_token: Annotated[str | None, Hidden] = None,
) -> dict[str, Any]:
    """Watch your settings: change notifications (no content) go to a web hook.

    Args:
        body: the channel: {'id', 'type': 'web_hook', 'address': 'https://...'}.
    """
    return open_channel(ctx, body, "https://www.googleapis.com/calendar/v3/users/me/settings?alt=json")


@tool(ToolKind.READ, name="calendar_colors_get", rest=RestBinding("GET", f"{BASE}/colors"))
def colors_get(ctx: ServiceContext) -> dict[str, Any]:
    """The color palettes: calendar colors (ids 1-24) and event colors (ids 1-11)."""
    return {
        "kind": "calendar#colors",
        "updated": "2012-02-14T00:00:00.000Z",
        "calendar": {k: {"background": v, "foreground": "#1d1d1d"} for k, v in core.CALENDAR_COLORS.items()},
        "event": {k: {"background": v, "foreground": "#1d1d1d"} for k, v in core.EVENT_COLOR_VALUES.items()},
    }


# ---- notification channels --------------------------------------------------------------------
@tool(ToolKind.WRITE, name="calendar_channels_stop", rest=RestBinding("POST", f"{BASE}/channels/stop", body="body", status=204))
def channels_stop(ctx: ServiceContext, body: Channel) -> None:
    """Stop a notification channel opened by a watch call.

    Args:
        body: {'id': channel id, 'resourceId': the resourceId the watch returned}.
    """
    row = ctx.store.get(CHANNELS.name, {"owner": ctx.principal.id, "id": body.id or ""})
    if row is None or (body.resourceId and body.resourceId != row["resource_id"]):
        elsewhere = row is None and bool(ctx.store.select(CHANNELS.name, {"id": body.id or ""}))
        raise ServiceError(404, f"Channel '{body.id}' not found", reason="notFound", denied=elsewhere)
    ctx.store.delete(CHANNELS.name, {"owner": row["owner"], "id": row["id"]})
    return None


TOOLS = (
    calendars_get, calendars_insert, calendars_update, calendars_patch, calendars_delete, calendars_clear,
    calendars_transfer_ownership,
    calendar_list_list, calendar_list_get, calendar_list_insert, calendar_list_update, calendar_list_patch,
    calendar_list_delete, calendar_list_watch,
    acl_list, acl_get, acl_insert, acl_update, acl_patch, acl_delete, acl_watch,
    freebusy_query, settings_list, settings_get, settings_watch, colors_get, channels_stop,
)  # fmt: skip

__all__ = ["TOOLS"]
