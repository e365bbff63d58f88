"""The one rule for points in time in task files and worlds: ISO 8601, "Z" for UTC, a naive time is UTC."""

from __future__ import annotations

from datetime import datetime, timezone


def parse_time(value: str) -> datetime:
    """Parse an ISO-8601 instant; a naive value is taken as UTC."""
    text = value.strip().replace("Z", "+00:00")
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
