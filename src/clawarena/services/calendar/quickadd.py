"""quickAdd: turn a line like "Lunch with Bob tomorrow at 12pm" into an event, deterministically.

Everything is read against the world clock (`now`) in the calendar's zone.
Understood pieces, removed from the text as they are found:

- dates: today, tonight, tomorrow, day after tomorrow, weekdays ("friday", "on fri",
  "next monday"), "in 3 days" / "in 2 weeks", "March 5" / "5 March" / "Mar 5th, 2026",
  ISO "2026-03-05", US "3/5" or "3/5/2026";
- times: "at 12pm", "3:30pm", "15:00", "noon", "midnight", "at 3" (1-6 read as pm),
  ranges "3pm-4pm", "from 2 to 3:30pm", "10-11am";
- durations: "for 30 minutes", "for 2 hours", "for an hour", "for half an hour";
- location: what follows a remaining " at " / " @ " ("Dinner at Luigi's").

What remains is the summary. With a time the event lasts the range, the
duration, or `default_minutes`; without one it is an all-day event (on today
when no date is given either).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from clawarena.services.calendar.times import UTC, When, zone

MONTHS = {
    "jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4, "may": 5,
    "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8, "sep": 9, "sept": 9, "september": 9,
    "oct": 10, "october": 10, "nov": 11, "november": 11, "dec": 12, "december": 12,
}  # fmt: skip
WEEKDAYS = {
    "monday": 0, "mon": 0, "tuesday": 1, "tue": 1, "tues": 1, "wednesday": 2, "wed": 2, "thursday": 3,
    "thu": 3, "thur": 3, "thurs": 3, "friday": 4, "fri": 4, "saturday": 5, "sat": 5, "sunday": 6, "sun": 6,
}  # fmt: skip
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_WEEKDAY = "|".join(sorted(WEEKDAYS, key=len, reverse=True))
_MER = r"(?:a\.?m\.?|p\.?m\.?)"
_TIME = rf"(?:noon|midnight|\d{{1,2}}(?::\d{{2}})?\s*{_MER}?)"
_DAY_END = r"(?![:\d]|\s*(?:a\.?m|p\.?m)\b)"  # "March 7" but not "March 7:30pm" / "March 7pm"
_WORD_NUM = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "half an": 0.5, "half a": 0.5}


@dataclass(frozen=True)
class QuickEvent:
    summary: str
    start: When
    end: When
    location: str | None = None


def _take(pattern: str, text: str) -> tuple[re.Match[str] | None, str]:
    m = re.search(pattern, text, re.IGNORECASE)
    if not m:
        return None, text
    return m, (text[: m.start()] + " " + text[m.end():])


def _clock(token: str, meridiem_hint: str | None = None) -> tuple[int, int, str | None]:
    """(hour, minute, meridiem) of a time token; meridiem None when the token had none."""
    t = token.strip().lower()
    if t == "noon":
        return 12, 0, "pm"
    if t == "midnight":
        return 0, 0, "am"
    m = re.match(r"(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)?$", t)
    assert m
    hour, minute = int(m.group(1)), int(m.group(2) or 0)
    mer = m.group(3)
    mer = ("am" if mer.startswith("a") else "pm") if mer else None
    return hour, minute, mer


def _to_24(hour: int, mer: str | None) -> int:
    if mer == "am":
        return 0 if hour == 12 else hour
    if mer == "pm":
        return hour if hour == 12 else hour + 12
    return hour


def _guess(hour: int, minute: int, mer: str | None) -> time:
    """A clock time; without am/pm, 1-6 are read as afternoon (as people mean "at 3")."""
    if mer is None and 1 <= hour <= 6:
        mer = "pm"
    h = _to_24(hour, mer)
    if not (0 <= h <= 23 and 0 <= minute <= 59):
        raise ValueError(f"not a time: {hour}:{minute:02d}")
    return time(h, minute)


def _upcoming(today: date, month: int, day: int, year: int | None) -> date:
    if year is not None:
        return date(year if year > 99 else 2000 + year, month, day)
    candidate = date(today.year, month, day)
    return candidate if candidate >= today else date(today.year + 1, month, day)


def _find_date(text: str, today: date) -> tuple[date | None, bool, str]:
    """(date, tonight?, rest of text)."""
    m, rest = _take(r"\b(?:on\s+)?(\d{4})-(\d{2})-(\d{2})\b", text)
    if m:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3))), False, rest
    m, rest = _take(rf"\b(?:on\s+)?({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?{_DAY_END}(?:,?\s+(\d{{4}}))?\b", text)
    if m:
        return _upcoming(today, MONTHS[m.group(1).lower()], int(m.group(2)), int(m.group(3)) if m.group(3) else None), False, rest
    m, rest = _take(rf"\b(?:on\s+)?(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH})\b(?:,?\s+(\d{{4}}))?", text)
    if m:
        return _upcoming(today, MONTHS[m.group(2).lower()], int(m.group(1)), int(m.group(3)) if m.group(3) else None), False, rest
    m, rest = _take(rf"\b(?:on\s+)?(\d{{1,2}})/(\d{{1,2}})(?:/(\d{{2,4}}))?{_DAY_END}", text)
    if m:
        return _upcoming(today, int(m.group(1)), int(m.group(2)), int(m.group(3)) if m.group(3) else None), False, rest
    m, rest = _take(r"\b(day after tomorrow|today|tonight|tomorrow|tmrw)\b", text)
    if m:
        word = m.group(1).lower()
        offset = {"today": 0, "tonight": 0, "tomorrow": 1, "tmrw": 1, "day after tomorrow": 2}[word]
        return today + timedelta(days=offset), word == "tonight", rest
    m, rest = _take(r"\bin\s+(\d+|a|an|one|two|three)\s+(days?|weeks?)\b", text)
    if m:
        n = int(_WORD_NUM.get(m.group(1).lower(), 0) or (int(m.group(1)) if m.group(1).isdigit() else 1))
        return today + timedelta(days=n * (7 if m.group(2).lower().startswith("week") else 1)), False, rest
    m, rest = _take(rf"\b(?:(on|next|this)\s+)?({_WEEKDAY})\b", text)
    if m:
        target = WEEKDAYS[m.group(2).lower()]
        ahead = (target - today.weekday()) % 7
        if m.group(1) and m.group(1).lower() == "next" and ahead == 0:
            ahead = 7
        return today + timedelta(days=ahead), False, rest
    return None, False, text


def _find_times(text: str) -> tuple[time | None, time | None, str]:
    try:
        return _times(text)
    except ValueError:  # "at 34" is no time of day: leave the text as it is
        return None, None, text


def _times(text: str) -> tuple[time | None, time | None, str]:
    m, rest = _take(rf"\b(?:from\s+|at\s+|@\s*)?({_TIME})\s*(?:-|–|to|until|till)\s*({_TIME})(?![\w:])", text)
    if m:
        h1, m1, mer1 = _clock(m.group(1))
        h2, m2, mer2 = _clock(m.group(2))
        end = _guess(h2, m2, mer2)
        if mer1 is None and mer2 is not None:
            start = time(_to_24(h1, mer2), m1) if 0 <= _to_24(h1, mer2) <= 23 else _guess(h1, m1, None)
            if (start.hour, start.minute) >= (end.hour, end.minute):
                other = "am" if mer2 == "pm" else "pm"
                start = time(_to_24(h1, other), m1)
        else:
            start = _guess(h1, m1, mer1)
        return start, end, rest
    # A single time needs am/pm, a colon, noon/midnight, or "at"/"@" before it (so "March 5" is no time).
    m, rest = _take(rf"(?:\b(?:at\s+)?|@\s*)(noon|midnight|\d{{1,2}}(?::\d{{2}})?\s*{_MER})(?![\w:])", text)
    if not m:
        m, rest = _take(r"\b(?:at\s+)?(\d{1,2}:\d{2})(?![\w:])", text)
    if not m:
        m, rest = _take(r"(?:\bat\s+|@\s*)(\d{1,2})(?![\w:/])", text)
    if m:
        h, mi, mer = _clock(m.group(1))
        return _guess(h, mi, mer), None, rest
    return None, None, text


def _find_duration(text: str) -> tuple[timedelta | None, str]:
    m, rest = _take(r"\bfor\s+(\d+(?:\.\d+)?|an?|one|two|three|four|half\s+an?)\s*(hours?|hrs?|h|minutes?|mins?|m)\b", text)
    if not m:
        return None, text
    raw = re.sub(r"\s+", " ", m.group(1).lower())
    amount = float(_WORD_NUM[raw]) if raw in _WORD_NUM else float(raw)
    unit = m.group(2).lower()
    minutes = amount * 60 if unit.startswith("h") else amount
    return timedelta(minutes=minutes), rest


def _tidy(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip(" ,;-–")
    text = re.sub(r"(?:^|\s)(on|at|from|for|in|this)\s*$", "", text, flags=re.IGNORECASE).strip(" ,;-–")
    return text


def parse_quick_add(text: str, now: datetime, tz_name: str | None, default_minutes: int = 60) -> QuickEvent:
    """Parse quickAdd text against `now` (aware) in zone `tz_name`."""
    tz = zone(tz_name)
    today = now.astimezone(tz).date()
    rest = " " + text.strip() + " "
    duration, rest = _find_duration(rest)
    try:
        day, tonight, rest = _find_date(rest, today)
    except ValueError:  # "2/30": no such date, the words stay in the summary
        day, tonight = None, False
    start_t, end_t, rest = _find_times(rest)
    location = None
    m = re.search(r"\s(?:at|@)\s+(.+)$", rest, re.IGNORECASE)
    if m and _tidy(m.group(1)):
        location = _tidy(m.group(1))
        rest = rest[: m.start()]
    summary = _tidy(rest) or text.strip()
    day = day or today
    if start_t is None and tonight:
        start_t = time(19, 0)
    if start_t is None:
        days = max(1, round(duration.total_seconds() / 86400)) if duration and duration >= timedelta(days=1) else 1
        return QuickEvent(summary, When(day=day), When(day=day + timedelta(days=days)), location)
    start = datetime.combine(day, start_t, tzinfo=tz)
    if end_t is not None:
        end = datetime.combine(day, end_t, tzinfo=tz)
        if end <= start:
            end += timedelta(days=1)
    else:
        end = start + (duration or timedelta(minutes=default_minutes))
    return QuickEvent(
        summary,
        When(instant=start.astimezone(UTC), tz=tz_name),
        When(instant=end.astimezone(UTC), tz=tz_name),
        location,
    )
