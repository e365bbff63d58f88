"""Times as Calendar speaks them: RFC 3339 instants, all-day dates and IANA zones.

An event time is either all-day (`{"date": "2026-03-05"}`, floating: read in
the calendar's zone) or timed (`{"dateTime": ..., "timeZone": ...}`). Stored
timed values are normalized to UTC; responses render them in the zone asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone, tzinfo
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from clawarena.services.base import ServiceError

UTC = timezone.utc


@lru_cache(maxsize=256)
def _zone(name: str) -> ZoneInfo | None:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None


def valid_zone(name: str | None) -> bool:
    return bool(name) and _zone(str(name)) is not None


def zone(name: str | None) -> tzinfo:
    """The zone called `name`; UTC when unknown or empty."""
    return (_zone(name) if name else None) or UTC


def bad_request(message: str = "Bad Request", reason: str = "badRequest") -> ServiceError:
    return ServiceError(400, message, reason=reason)


def parse_rfc3339(text: str, what: str = "") -> datetime:
    """An instant with a mandatory offset ('Z' or ±hh:mm), as timeMin/timeMax require."""
    try:
        moment = datetime.fromisoformat(str(text).strip().replace("z", "Z").replace("Z", "+00:00"))
    except ValueError:
        raise bad_request() from None
    if moment.tzinfo is None:
        raise bad_request()
    return moment.astimezone(UTC)


def fmt_rfc3339(moment: datetime, tz: tzinfo | None = None) -> str:
    """`2026-03-02T09:00:00-05:00`, or `...Z` when the offset is zero."""
    local = moment.astimezone(tz or UTC)
    text = local.strftime("%Y-%m-%dT%H:%M:%S")
    offset = local.utcoffset() or timedelta(0)
    if offset == timedelta(0):
        return text + "Z"
    total = int(offset.total_seconds())
    sign = "+" if total >= 0 else "-"
    total = abs(total)
    return f"{text}{sign}{total // 3600:02d}:{(total % 3600) // 60:02d}"


def fmt_ms(ms: int) -> str:
    """Server timestamps (created, updated): `2026-03-02T09:00:01.000Z`."""
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def to_ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def from_ms(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


@dataclass(frozen=True)
class When:
    """One end of an event: an all-day date, or an instant with an optional zone."""

    day: date | None = None
    instant: datetime | None = None  # aware, UTC
    tz: str | None = None

    @property
    def all_day(self) -> bool:
        return self.day is not None

    def moment(self, cal_tz: tzinfo) -> datetime:
        """The instant this time stands for; an all-day date starts at midnight in `cal_tz`."""
        if self.day is not None:
            return datetime.combine(self.day, time(0), tzinfo=cal_tz).astimezone(UTC)
        assert self.instant is not None
        return self.instant

    def stored(self) -> dict[str, Any]:
        if self.day is not None:
            return {"date": self.day.isoformat()}
        assert self.instant is not None
        out: dict[str, Any] = {"dateTime": fmt_rfc3339(self.instant)}
        if self.tz:
            out["timeZone"] = self.tz
        return out

    def render(self, out_tz: tzinfo) -> dict[str, Any]:
        if self.day is not None:
            return {"date": self.day.isoformat()}
        assert self.instant is not None
        out: dict[str, Any] = {"dateTime": fmt_rfc3339(self.instant, out_tz)}
        if self.tz:
            out["timeZone"] = self.tz
        return out

    def local(self) -> datetime | date:
        """Wall-clock value in the event's own zone (what recurrence expands)."""
        if self.day is not None:
            return self.day
        assert self.instant is not None
        return self.instant.astimezone(zone(self.tz))


def when_from_stored(value: dict[str, Any]) -> When:
    if value.get("date"):
        return When(day=date.fromisoformat(value["date"]))
    moment = datetime.fromisoformat(value["dateTime"].replace("Z", "+00:00")).astimezone(UTC)
    return When(instant=moment, tz=value.get("timeZone"))


def when_from_body(value: Any, which: str) -> When:
    """Parse an EventDateTime from a request body, with the real API's errors."""
    if not isinstance(value, dict) or not (value.get("date") or value.get("dateTime")):
        raise bad_request(f"Missing {which} time.", "required")
    tz_name = value.get("timeZone")
    if tz_name and not valid_zone(tz_name):
        raise bad_request(f"Invalid time zone definition for {which} time.", "invalid")
    if value.get("date") and value.get("dateTime"):
        raise bad_request(f"Invalid {which} time.", "invalid")
    if value.get("date"):
        text = str(value["date"])
        try:
            if len(text) != 10:
                raise ValueError(text)
            return When(day=date.fromisoformat(text))
        except ValueError:
            raise bad_request(f"Invalid {which} time.", "invalid") from None
    text = str(value["dateTime"]).strip().replace("z", "Z").replace("Z", "+00:00")
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise bad_request(f"Invalid {which} time.", "invalid") from None
    if moment.tzinfo is None:
        if not tz_name:
            raise bad_request(f"Missing time zone definition for {which} time.", "required")
        moment = moment.replace(tzinfo=zone(tz_name))
    return When(instant=moment.astimezone(UTC), tz=tz_name or None)


def parse_loose(text: str, tz_name: str | None) -> When:
    """A fixture time: a date, or an ISO date-time (naive ones read in `tz_name`, else UTC)."""
    text = text.strip()
    if len(text) == 10:
        return When(day=date.fromisoformat(text))
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=zone(tz_name))
    return When(instant=moment.astimezone(UTC), tz=tz_name)
