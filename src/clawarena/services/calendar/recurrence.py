"""Recurring events: RRULE / EXRULE / RDATE / EXDATE lines expanded with dateutil.

Timed events expand on the wall clock of their own zone (`start.timeZone`), so
a 09:00 America/New_York meeting stays at 09:00 local across a DST change (its
UTC time moves by an hour). All-day events expand on dates. As RFC 5545 says,
the start itself is always the first occurrence (unless an EXDATE removes it).
"""

from __future__ import annotations

import re
from datetime import datetime, time, timedelta, tzinfo
from itertools import islice

from dateutil.rrule import rruleset, rrulestr

from clawarena.services.calendar.times import UTC, When, zone

_LINE = re.compile(r"^(RRULE|EXRULE|RDATE|EXDATE)((?:;[^:;]+=[^:;]+)*):(.+)$", re.IGNORECASE)
MAX_INSTANCES = 1000  # per series when the window has no end


class RecurrenceError(ValueError):
    """A recurrence line the API would reject."""


def _params(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in text.split(";"):
        if "=" in part:
            key, _, value = part.partition("=")
            out[key.strip().upper()] = value.strip()
    return out


def _fix_until(rule: str, all_day: bool, tz: tzinfo) -> str:
    """dateutil wants UNTIL in UTC for zoned starts and floating for all-day ones; clients send either."""
    parts = []
    for part in rule.split(";"):
        key, _, value = part.partition("=")
        if key.strip().upper() == "UNTIL":
            value = value.strip().upper()
            if all_day:
                value = value[:8]
            elif not value.endswith("Z"):
                if len(value) == 8:
                    local = datetime.strptime(value, "%Y%m%d").replace(hour=23, minute=59, second=59, tzinfo=tz)
                else:
                    local = datetime.strptime(value, "%Y%m%dT%H%M%S").replace(tzinfo=tz)
                value = local.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
            part = f"UNTIL={value}"
        parts.append(part)
    return ";".join(parts)


def _date_values(value: str, params: dict[str, str], start: datetime, all_day: bool, tz: tzinfo) -> list[datetime]:
    out = []
    for raw in value.split(","):
        v = raw.strip().upper()
        if not v:
            continue
        if params.get("VALUE", "").upper() == "DATE" or len(v) == 8:
            day = datetime.strptime(v[:8], "%Y%m%d").date()
            out.append(datetime.combine(day, time(0)) if all_day else datetime.combine(day, start.timetz()))
            continue
        if v.endswith("Z"):
            moment = datetime.strptime(v[:-1], "%Y%m%dT%H%M%S").replace(tzinfo=UTC)
        else:
            where = zone(params["TZID"]) if params.get("TZID") else tz
            moment = datetime.strptime(v, "%Y%m%dT%H%M%S").replace(tzinfo=where)
        out.append(datetime.combine(moment.astimezone(tz).date(), time(0)) if all_day else moment.astimezone(tz))
    return out


def dtstart_of(start: When) -> datetime:
    """The series' first start as dateutil needs it: naive midnight (all-day) or aware local time."""
    if start.all_day:
        assert start.day is not None
        return datetime.combine(start.day, time(0))
    assert start.instant is not None
    return start.instant.astimezone(zone(start.tz))


def build(lines: list[str], start: When) -> rruleset:
    """The recurrence set of a series starting at `start`; RecurrenceError for a bad line."""
    all_day = start.all_day
    tz = zone(start.tz)
    dtstart = dtstart_of(start)
    rset = rruleset()
    rset.rdate(dtstart)
    for line in lines:
        m = _LINE.match(str(line).strip())
        if not m:
            raise RecurrenceError(f"Invalid recurrence rule: {line!r}")
        kind, params, value = m.group(1).upper(), _params(m.group(2)), m.group(3)
        try:
            if kind in ("RRULE", "EXRULE"):
                rule = rrulestr(f"RRULE:{_fix_until(value, all_day, tz)}", dtstart=dtstart)
                (rset.rrule if kind == "RRULE" else rset.exrule)(rule)  # type: ignore[arg-type]
            else:
                for moment in _date_values(value, params, dtstart, all_day, tz):
                    (rset.rdate if kind == "RDATE" else rset.exdate)(moment)
        except (ValueError, TypeError, KeyError) as exc:
            raise RecurrenceError(f"Invalid recurrence rule: {line!r} ({exc})") from None
    try:
        next(iter(rset), None)
    except (ValueError, TypeError) as exc:
        raise RecurrenceError(f"Invalid recurrence rule ({exc})") from None
    return rset


def occurrences(lines: list[str], start: When, after: datetime | None = None, before: datetime | None = None,
                limit: int = MAX_INSTANCES) -> list[datetime]:  # fmt: skip
    """Occurrence starts (naive dates-at-midnight for all-day, aware local for timed) in [after, before).

    `after`/`before` are instants (aware); for all-day series they are compared as
    dates in UTC-free form by the caller-supplied local values (see `local_bound`).
    """
    rset = build(lines, start)
    source = rset.xafter(after, count=limit, inc=True) if after is not None else islice(iter(rset), limit)
    out = []
    for occ in source:
        if before is not None and occ >= before:
            break
        out.append(occ)
        if len(out) >= limit:
            break
    return out


def local_bound(moment: datetime, start: When, cal_tz: tzinfo) -> datetime:
    """A window bound in the series' own terms: naive local midnight-based for all-day, aware otherwise."""
    if start.all_day:
        return moment.astimezone(cal_tz).replace(tzinfo=None)
    return moment.astimezone(zone(start.tz))


def occurrence_when(occ: datetime, start: When) -> When:
    if start.all_day:
        return When(day=occ.date())
    return When(instant=occ.astimezone(UTC), tz=start.tz)


def instance_key(when: When) -> str:
    """The suffix of an instance id: `20260302T140000Z` (timed, UTC) or `20260302` (all-day)."""
    if when.day is not None:
        return when.day.strftime("%Y%m%d")
    assert when.instant is not None
    return when.instant.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def parse_instance_key(key: str, tz_name: str | None) -> When | None:
    try:
        if len(key) == 8 and key.isdigit():
            return When(day=datetime.strptime(key, "%Y%m%d").date())
        if key.endswith("Z"):
            return When(instant=datetime.strptime(key, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC), tz=tz_name)
    except ValueError:
        return None
    return None


def shift(when: When, delta: timedelta | int) -> When:
    """`when` moved by a duration (timed) or a number of days (all-day)."""
    if when.day is not None:
        days = delta if isinstance(delta, int) else delta.days
        return When(day=when.day + timedelta(days=days))
    assert when.instant is not None and isinstance(delta, timedelta)
    return When(instant=when.instant + delta, tz=when.tz)


def duration(start: When, end: When) -> timedelta | int:
    if start.day is not None and end.day is not None:
        return (end.day - start.day).days
    if start.instant is not None and end.instant is not None:
        return end.instant - start.instant
    return timedelta(0)


__all__ = ["RecurrenceError", "build", "duration", "instance_key", "local_bound", "occurrence_when",
           "occurrences", "parse_instance_key", "shift"]  # fmt: skip
