"""Calendar filler: meetings, 1:1s, focus blocks and a weekly standup around the world's now."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from clawarena.services.filler import FillerContext, register_filler
from clawarena.services.filler.content import PROJECTS, TEAMS

KINDS = ("{project} sync", "1:1 with {person}", "Focus time", "{team} planning", "Review: {project}",
         "Lunch with {person}", "Interview: {team} candidate", "{project} retro", "Customer call ({company})")  # fmt: skip


@register_filler("calendar")
def calendar_filler(ctx: FillerContext) -> dict[str, Any]:
    c = ctx.corpus
    events: list[dict[str, Any]] = []
    day0 = ctx.now.replace(hour=0, minute=0, second=0, microsecond=0)
    span = max(30, ctx.count // 3)  # days before and after now
    for owner in ctx.principals:
        domain = owner.email.split("@")[-1]
        colleagues = [p.email for p in ctx.everyone if p.id != owner.id]
        events.append({
            "calendar": owner.id, "summary": "Team standup", "start": (day0 + timedelta(days=-28, hours=9)).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "end": (day0 + timedelta(days=-28, hours=9, minutes=15)).strftime("%Y-%m-%dT%H:%M:%SZ"), "time_zone": "UTC",
            "recurrence": ["RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=36"], "description": "Daily-ish standup. Keep it short.",
        })  # fmt: skip
        for _ in range(ctx.count - 1):
            day = c.number(-span, span)
            start = day0 + timedelta(days=day, hours=c.number(8, 17), minutes=c.pick((0, 30)))
            if start.weekday() >= 5:
                start -= timedelta(days=start.weekday() - 4)
            minutes = c.pick((30, 30, 45, 60, 60, 90))
            person = c.person()
            summary = c.pick(KINDS).format(project=c.pick(PROJECTS), team=c.pick(TEAMS), person=person.first, company=person.company)
            attendees: list[str] = []
            if not summary.startswith("Focus"):
                attendees = [owner.email, c.colleague(domain).email]
                if colleagues and c.number(0, 3) == 0:
                    attendees.append(c.pick(colleagues))
                if summary.startswith(("Customer", "Lunch")):
                    attendees.append(person.email)
            events.append({
                "calendar": owner.id, "summary": summary, "start": start.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "end": (start + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "description": f"Agenda: {c.fields(owner.name.split()[0], person.first, person.company)['project']} and open items.",
                "location": c.pick(("Room 2.14", "Room 3.01", "Video call", "Cafe downstairs", "")),
                "attendees": attendees, "organizer": owner.email,
            })  # fmt: skip
    return {"events": events}
