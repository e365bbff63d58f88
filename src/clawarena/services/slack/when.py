"""Reminder times: Unix seconds, seconds from now, ISO times and a little natural language."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

_UNITS = {"s": 1, "sec": 1, "second": 1, "m": 60, "min": 60, "minute": 60, "h": 3600, "hr": 3600, "hour": 3600,
          "d": 86400, "day": 86400, "w": 604800, "week": 604800}  # fmt: skip
_DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_TOD = r"(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<ap>am|pm)?"
_AT = r"(?:\s+at\s+" + _TOD + ")?"


class CannotParse(ValueError):
    pass


def _at(match: re.Match[str], default_hour: int = 9) -> tuple[int, int]:
    if match.group("h") is None:
        return default_hour, 0
    hour, minute = int(match.group("h")), int(match.group("m") or 0)
    ap = match.group("ap")
    if ap == "pm" and hour < 12:
        hour += 12
    if ap == "am" and hour == 12:
        hour = 0
    if hour > 23 or minute > 59:
        raise CannotParse("bad time of day")
    return hour, minute


def parse_when(value: str, now: int) -> tuple[int, bool, str | None]:
    """(Unix time, recurring, recurrence) for a reminder's `time` argument, or CannotParse."""
    text = str(value).strip().lower()
    if not text:
        raise CannotParse("empty")
    if re.fullmatch(r"\d+(\.\d+)?", text):
        n = int(float(text))
        return (now + n if n <= 86400 else n), False, None
    start = datetime.fromtimestamp(now, tz=timezone.utc)
    m = re.fullmatch(r"in\s+(?:(?P<n>\d+|an?|one)\s+)?(?P<u>[a-z]+?)s?", text)
    if m and m.group("u") in _UNITS:
        n = m.group("n") or "1"
        count = 1 if n in ("a", "an", "one") else int(n)
        return now + count * _UNITS[m.group("u")], False, None
    m = re.fullmatch(r"(?P<d>today|tomorrow)" + _AT, text) or re.fullmatch(r"(?P<d>)at\s+" + _TOD, text)
    if m:
        hour, minute = _at(m)
        day = start + timedelta(days=1 if m.group("d") == "tomorrow" else 0)
        moment = day.replace(hour=hour, minute=minute, second=0, microsecond=0)
        if not m.group("d") and moment.timestamp() <= now:
            moment += timedelta(days=1)
        return int(moment.timestamp()), False, None
    m = re.fullmatch(r"(?:next\s+|on\s+)?(?P<wd>" + "|".join(_DAYS) + ")" + _AT, text)
    if m:
        return _next_weekday(start, _DAYS.index(m.group("wd")), *_at(m)), False, None
    m = re.fullmatch(r"every\s+(?P<what>day|weekday|week|" + "|".join(_DAYS) + ")" + _AT, text)
    if m:
        hour, minute = _at(m)
        what = m.group("what")
        if what in _DAYS:
            when = _next_weekday(start, _DAYS.index(what), hour, minute)
        else:
            moment = start.replace(hour=hour, minute=minute, second=0, microsecond=0)
            if moment.timestamp() <= now:
                moment += timedelta(days=1)
            while what == "weekday" and moment.weekday() >= 5:
                moment += timedelta(days=1)
            when = int(moment.timestamp())
        return when, True, f"every {what}"
    try:
        from clawarena.world.clock import parse_time

        return int(parse_time(value).timestamp()), False, None
    except ValueError:
        raise CannotParse(value) from None


def _next_weekday(start: datetime, weekday: int, hour: int, minute: int) -> int:
    days = (weekday - start.weekday()) % 7
    moment = (start + timedelta(days=days)).replace(hour=hour, minute=minute, second=0, microsecond=0)
    if moment <= start:
        moment += timedelta(days=7)
    return int(moment.timestamp())
