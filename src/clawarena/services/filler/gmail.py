"""Gmail filler: a mailbox of everyday mail from colleagues, vendors and newsletters."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from clawarena.services.filler import FillerContext, register_filler


@register_filler("gmail")
def gmail_filler(ctx: FillerContext) -> dict[str, Any]:
    c = ctx.corpus
    messages = []
    for owner in ctx.principals:
        domain = owner.email.split("@")[-1]
        minutes = 0
        for i in range(ctx.count):
            minutes += c.number(20, 600)
            sender = c.colleague(domain) if c.number(0, 2) == 0 else c.person()
            subject, body = c.mail(owner.name.split()[0], sender)
            labels = ["INBOX"]
            if minutes < 60 * 36 and c.number(0, 1):
                labels.append("UNREAD")
            if c.number(0, 9) == 0:
                labels.append("STARRED")
            if "digest" in subject.lower() or "shipped" in subject.lower():
                labels = ["INBOX", "CATEGORY_UPDATES"]
            messages.append({
                "id": f"f-{owner.id}-{i:04d}", "owner": owner.id, "from": sender.address, "to": [owner.email],
                "subject": subject, "body": body, "labels": labels,
                "at": (ctx.now - timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ"),
            })  # fmt: skip
    return {"messages": messages}
