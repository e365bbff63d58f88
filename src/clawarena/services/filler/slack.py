"""Slack filler: eight channels with a few days of everyday chatter, some of it in threads."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from clawarena.services.filler import FillerContext, register_filler
from clawarena.services.filler.content import PROJECTS, RISKS, WEEKDAYS

# Names reserved for filler; tasks use other channel names.
CHANNELS = (("team-eng", False, "Engineering chatter"), ("design-crit", False, "Design reviews"),
            ("random", False, "Anything goes"), ("support-queue", False, "Customer tickets"),
            ("sales-wins", False, "Deals and leads"), ("finance-ops", True, "Finance team only"),
            ("office-life", False, "Office news"), ("book-club", False, "What we read"))  # fmt: skip
LINES = ("Has anyone looked at the {project} numbers yet?", "Standup moved to {hour}:30 today.",
         "Reminder: {risk} is still open, who owns it?", "Shipping the {project} fix this afternoon.",
         "Thanks for the review! Merged.", "Can someone cover support on {weekday}?",
         "New doc for the {project} is up, comments welcome.", "Lunch order closes at noon.",
         "FYI the staging deploy is flaky again.", "Great demo yesterday on the {project}.",
         "Who has the latest version of the {project} deck?", "Out sick today, back {weekday}.")  # fmt: skip


@register_filler("slack")
def slack_filler(ctx: FillerContext) -> dict[str, Any]:
    c = ctx.corpus
    domain = ctx.everyone[0].email.split("@")[-1]
    people = []
    for i in range(10):
        p = c.colleague(domain)
        handle = p.email.split("@")[0].replace(".", "")[:20] + f"{i}"
        people.append({"id": handle, "name": p.name, "email": p.email, "title": c.pick(("Engineer", "Designer", "PM", "Analyst", "Support lead"))})
    handles = [u["id"] for u in people]
    principal_ids = [p.id for p in ctx.principals]
    channels, messages = [], []
    per_channel = max(6, ctx.count * 2)
    for name, private, purpose in CHANNELS:
        members = principal_ids + handles[: 6 if private else 10]
        channels.append({"name": name, "private": private, "purpose": purpose, "members": members})
        minutes = 0
        last_parent = None
        for j in range(per_channel):
            minutes += c.number(7, 240)
            values = {"project": c.pick(PROJECTS), "risk": c.pick(RISKS), "weekday": c.pick(WEEKDAYS), "hour": str(c.number(9, 11))}
            msg: dict[str, Any] = {
                "id": f"f-{name}-{j}", "channel": name, "user": c.pick(members), "text": c.pick(LINES).format(**values),
                "at": (ctx.now - timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ"),
            }
            messages.append(msg)
        # a few replies in threads under earlier messages
        for j in range(0, per_channel, 5):
            parent = f"f-{name}-{j + 1}" if j + 1 < per_channel else None
            if parent and parent != last_parent:
                messages.append({"id": f"f-{name}-r{j}", "channel": name, "user": c.pick(members), "text": "+1, on it.", "thread": parent,
                                 "at": (ctx.now - timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%SZ")})  # fmt: skip
                last_parent = parent
    return {"users": people, "channels": channels, "messages": sorted(messages, key=lambda m: m["at"])}
