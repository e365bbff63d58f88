"""Unit tests: quickAdd text parsing against a fixed clock."""

from datetime import date, datetime, timezone

import pytest

from clawarena.services.calendar.quickadd import parse_quick_add

NOW = datetime(2026, 3, 2, 15, 0, tzinfo=timezone.utc)  # Monday 10:00 in New York
NY = "America/New_York"


def _parse(text, tz=NY, minutes=60):
    return parse_quick_add(text, NOW, tz, minutes)


def _local(when, tz=NY):
    from zoneinfo import ZoneInfo

    return when.instant.astimezone(ZoneInfo(tz)).strftime("%Y-%m-%d %H:%M")


@pytest.mark.parametrize(
    "text, summary, start, end",
    [
        ("Lunch with Bob tomorrow at 12pm", "Lunch with Bob", "2026-03-03 12:00", "2026-03-03 13:00"),
        ("Standup 9:30 for 15 minutes", "Standup", "2026-03-02 09:30", "2026-03-02 09:45"),
        ("Review 3/5 3-4pm", "Review", "2026-03-05 15:00", "2026-03-05 16:00"),
        ("Call with Dana at 3", "Call with Dana", "2026-03-02 15:00", "2026-03-02 16:00"),
        ("Budget review 2026-03-04 14:00-15:30", "Budget review", "2026-03-04 14:00", "2026-03-04 15:30"),
        ("Flight 11-1pm", "Flight", "2026-03-02 11:00", "2026-03-02 13:00"),
        ("Party tonight", "Party", "2026-03-02 19:00", "2026-03-02 20:00"),
        ("Coffee friday at noon for half an hour", "Coffee", "2026-03-06 12:00", "2026-03-06 12:30"),
        ("Retro next monday 4pm for 2 hours", "Retro", "2026-03-09 16:00", "2026-03-09 18:00"),
        ("Board meeting March 12th, 2026 from 9am to 11am", "Board meeting", "2026-03-12 09:00", "2026-03-12 11:00"),
        ("Dinner 12 March 7:30pm", "Dinner", "2026-03-12 19:30", "2026-03-12 20:30"),
        ("Check-in in 2 days at 8am", "Check-in", "2026-03-04 08:00", "2026-03-04 09:00"),
    ],
)
def test_timed_events(text, summary, start, end):
    ev = _parse(text)
    assert (ev.summary, _local(ev.start), _local(ev.end)) == (summary, start, end)
    assert ev.start.tz == NY


def test_location_after_at():
    ev = _parse("Appointment at Somewhere on June 3rd 10am-10:25am")
    assert (ev.summary, ev.location, _local(ev.start), _local(ev.end)) == ("Appointment", "Somewhere", "2026-06-03 10:00", "2026-06-03 10:25")
    ev = _parse("Dinner at Luigi's friday 7pm")
    assert (ev.summary, ev.location) == ("Dinner", "Luigi's")


def test_all_day_without_a_time():
    ev = _parse("Team offsite March 10")
    assert (ev.summary, ev.start.day, ev.end.day) == ("Team offsite", date(2026, 3, 10), date(2026, 3, 11))
    ev = _parse("Focus block")
    assert ev.start.day == date(2026, 3, 2) and ev.summary == "Focus block"


def test_past_month_day_rolls_to_next_year():
    assert _parse("Anniversary Feb 14").start.day == date(2027, 2, 14)


def test_weekday_today_counts_but_next_skips_a_week():
    assert _parse("Gym monday 6pm").start.instant.astimezone(timezone.utc).day == 2
    assert _local(_parse("Gym next monday 6pm").start) == "2026-03-09 18:00"


def test_default_length_and_zone():
    ev = _parse("Sync tomorrow 10am", tz="Europe/Berlin", minutes=30)
    assert _local(ev.start, "Europe/Berlin") == "2026-03-03 10:00" and _local(ev.end, "Europe/Berlin") == "2026-03-03 10:30"


def test_the_clock_decides_today():
    late = datetime(2026, 3, 3, 4, 30, tzinfo=timezone.utc)  # still Monday 23:30 in New York
    ev = parse_quick_add("Call tomorrow 9am", late, NY)
    assert _local(ev.start) == "2026-03-03 09:00"
