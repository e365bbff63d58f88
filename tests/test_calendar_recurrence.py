"""Unit tests: recurrence expansion (RRULE/EXDATE/RDATE, DST, all-day) and instance keys."""

from datetime import date, datetime, timezone

import pytest

from clawarena.services.calendar import recurrence as rec
from clawarena.services.calendar.times import When, fmt_rfc3339, parse_loose, parse_rfc3339, when_from_body
from clawarena.services.base import ServiceError

UTC = timezone.utc


def _ny(text: str) -> When:
    return parse_loose(text, "America/New_York")


def _utc_starts(lines, start, **kw):
    return [o.astimezone(UTC).strftime("%Y-%m-%dT%H:%MZ") for o in rec.occurrences(lines, start, **kw)]


def test_weekly_keeps_local_time_across_us_dst():
    start = _ny("2026-03-02T09:00:00")
    assert _utc_starts(["RRULE:FREQ=WEEKLY;COUNT=3"], start) == ["2026-03-02T14:00Z", "2026-03-09T13:00Z", "2026-03-16T13:00Z"]


def test_daily_across_fall_back():
    start = _ny("2026-10-31T09:00:00")
    assert _utc_starts(["RRULE:FREQ=DAILY;COUNT=3"], start) == ["2026-10-31T13:00Z", "2026-11-01T14:00Z", "2026-11-02T14:00Z"]


def test_until_in_utc_local_and_date_forms():
    start = _ny("2026-03-02T09:00:00")
    utc = _utc_starts(["RRULE:FREQ=DAILY;UNTIL=20260304T140000Z"], start)
    local = _utc_starts(["RRULE:FREQ=DAILY;UNTIL=20260304T090000"], start)
    day = _utc_starts(["RRULE:FREQ=DAILY;UNTIL=20260304"], start)
    assert utc == local == day == ["2026-03-02T14:00Z", "2026-03-03T14:00Z", "2026-03-04T14:00Z"]


def test_exdate_with_tzid_utc_and_date_value():
    start = _ny("2026-03-02T09:00:00")
    lines = ["RRULE:FREQ=DAILY;COUNT=5", "EXDATE;TZID=America/New_York:20260303T090000", "EXDATE:20260304T140000Z",
             "EXDATE;VALUE=DATE:20260305"]
    assert _utc_starts(lines, start) == ["2026-03-02T14:00Z", "2026-03-06T14:00Z"]


def test_rdate_adds_and_start_is_always_first():
    start = _ny("2026-03-03T09:00:00")  # a Tuesday, the rule says Mondays
    lines = ["RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=2", "RDATE;TZID=America/New_York:20260311T120000"]
    assert _utc_starts(lines, start) == ["2026-03-03T14:00Z", "2026-03-09T13:00Z", "2026-03-11T16:00Z", "2026-03-16T13:00Z"]


def test_window_and_infinite_rule():
    start = _ny("2026-03-02T09:00:00")
    after = rec.local_bound(parse_rfc3339("2027-01-01T00:00:00Z"), start, UTC)
    before = rec.local_bound(parse_rfc3339("2027-01-15T00:00:00Z"), start, UTC)
    got = _utc_starts(["RRULE:FREQ=WEEKLY;BYDAY=MO"], start, after=after, before=before)
    assert got == ["2027-01-04T14:00Z", "2027-01-11T14:00Z"]
    assert len(rec.occurrences(["RRULE:FREQ=DAILY"], start)) == rec.MAX_INSTANCES


def test_all_day_monthly_last_day():
    start = When(day=date(2026, 1, 31))
    occ = rec.occurrences(["RRULE:FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=3"], start)
    assert [o.date() for o in occ] == [date(2026, 1, 31), date(2026, 2, 28), date(2026, 3, 31)]
    assert rec.instance_key(rec.occurrence_when(occ[1], start)) == "20260228"


def test_all_day_until_with_time_is_read_as_a_date():
    start = When(day=date(2026, 3, 2))
    occ = rec.occurrences(["RRULE:FREQ=DAILY;UNTIL=20260304T000000Z"], start)
    assert [o.date() for o in occ] == [date(2026, 3, 2), date(2026, 3, 3), date(2026, 3, 4)]


@pytest.mark.parametrize("line", ["RRULE:FREQ=SOMETIMES", "FOO:BAR", "RRULE:FREQ=DAILY;BYDAY=XX", "EXDATE:notadate"])
def test_bad_lines_raise(line):
    with pytest.raises(rec.RecurrenceError):
        rec.build([line], _ny("2026-03-02T09:00:00"))


def test_instance_keys_round_trip():
    when = _ny("2026-03-09T09:00:00")
    key = rec.instance_key(when)
    assert key == "20260309T130000Z"
    back = rec.parse_instance_key(key, "America/New_York")
    assert back is not None and back.instant == when.instant
    assert rec.parse_instance_key("2026-03-09", None) is None


def test_times_render_with_offsets():
    moment = datetime(2026, 3, 2, 14, 0, tzinfo=UTC)
    assert fmt_rfc3339(moment) == "2026-03-02T14:00:00Z"
    from zoneinfo import ZoneInfo

    assert fmt_rfc3339(moment, ZoneInfo("Asia/Kolkata")) == "2026-03-02T19:30:00+05:30"
    assert fmt_rfc3339(moment, ZoneInfo("America/St_Johns")) == "2026-03-02T10:30:00-03:30"


def test_when_from_body_errors():
    with pytest.raises(ServiceError, match="Missing start time."):
        when_from_body(None, "start")
    with pytest.raises(ServiceError, match="Missing time zone definition for end time."):
        when_from_body({"dateTime": "2026-03-02T10:00:00"}, "end")
    with pytest.raises(ServiceError, match="Invalid time zone definition for start time."):
        when_from_body({"dateTime": "2026-03-02T10:00:00", "timeZone": "Nowhere/City"}, "start")
    assert when_from_body({"dateTime": "2026-03-02T10:00:00+01:00"}, "start").instant == datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
