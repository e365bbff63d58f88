"""A Slack workspace for the conformance tests, and helpers to name its ids.

alice is in #general, #random, #eng, #leads (private), #old-project (archived), her DM with bob and the
group DM with bob and carol. She is not in #finance (private: bob, carol) nor in the bob-carol DM.
"""

from __future__ import annotations

import copy
from typing import Any

from clawarena.services.slack.core import slack_id, user_id_for

NOW = 1772442000  # 2026-03-02T09:00:00Z, the conformance world's clock

WORKSPACE = {
    "slack": {
        "users": [
            {"id": "dana", "name": "Dana Vendor", "email": "dana@vendor.example", "title": "Account manager", "guest": True},
            {"id": "erin", "name": "Erin Gone", "email": "erin@northwind.example", "deleted": True},
            {"id": "bob", "title": "Staff engineer"},
        ],
        "channels": [
            {"name": "random"},
            {"name": "eng", "members": ["alice", "bob"], "topic": "Engineering", "purpose": "Build and ship"},
            {"name": "finance", "private": True, "members": ["bob", "carol"]},
            {"name": "leads", "private": True, "members": ["alice", "carol"]},
            {"name": "old-project", "archived": True, "members": ["alice", "bob"]},
            {"name": "vendors", "members": ["bob", "dana"]},
            {"name": "dm-ab", "type": "im", "members": ["alice", "bob"]},
            {"name": "dm-bc", "type": "im", "members": ["bob", "carol"]},
            {"name": "group-abc", "type": "mpim", "members": ["alice", "bob", "carol"]},
        ],
        "messages": [
            {"id": "g1", "channel": "general", "user": "carol", "text": "Welcome to Northwind! All-hands on Friday.", "at": "2026-02-27T10:00:00Z"},
            {"id": "e1", "channel": "eng", "user": "bob", "text": "The deploy is at 5pm today", "at": "2026-03-02T08:00:00Z"},
            {"id": "e2", "channel": "eng", "user": "alice", "text": "thanks, I will watch the dashboards", "thread": "e1", "at": "2026-03-02T08:05:00Z"},
            {"id": "e3", "channel": "eng", "user": "bob", "text": "rollback plan is in the runbook https://wiki.example/runbook", "thread": "e1", "at": "2026-03-02T08:10:00Z"},
            {"id": "e4", "channel": "eng", "user": "alice", "text": "Budget review notes for the deploy", "at": "2026-03-02T08:20:00Z"},
            {"id": "f1", "channel": "finance", "user": "carol", "text": "Q3 budget is 1.2M, confidential", "at": "2026-03-02T07:00:00Z"},
            {"id": "l1", "channel": "leads", "user": "carol", "text": "Hiring plan: two engineers", "at": "2026-03-01T15:00:00Z"},
            {"id": "d1", "channel": "dm-ab", "user": "bob", "text": "can you review my budget PR?", "at": "2026-03-02T08:30:00Z"},
            {"id": "x1", "channel": "dm-bc", "user": "carol", "text": "salary budget numbers for bob only", "at": "2026-03-02T08:31:00Z"},
            {"id": "m1", "channel": "group-abc", "user": "carol", "text": "lunch on Thursday?", "at": "2026-03-02T08:32:00Z"},
            {"id": "o1", "channel": "old-project", "user": "bob", "text": "project closed", "at": "2026-02-20T10:00:00Z"},
            {"id": "v1", "channel": "vendors", "user": "dana", "text": "Invoice 4411 is due", "at": "2026-03-01T12:00:00Z"},
        ],
        "files": [
            {"id": "plan", "name": "plan.txt", "title": "Launch plan", "user": "bob", "content": "step 1: build\nstep 2: ship", "channels": ["eng"], "at": "2026-03-02T06:00:00Z"},
            {"id": "payroll", "name": "payroll.csv", "user": "carol", "content": "name,salary\nbob,100", "channels": ["finance"], "at": "2026-03-02T06:30:00Z"},
        ],
        "pins": [{"message": "e1", "by": "bob"}],
        "reactions": [{"message": "e1", "name": "rocket", "users": ["alice", "carol"]}, {"message": "g1", "name": "wave", "users": ["bob"]}],
        "reminders": [
            {"user": "alice", "text": "submit expenses", "time": "2026-03-03T09:00:00Z", "id": "RmALICE1"},
            {"user": "bob", "text": "bob's secret reminder", "time": "2026-03-03T10:00:00Z", "id": "RmBOB1"},
        ],
        "bookmarks": [{"channel": "eng", "title": "Runbook", "link": "https://wiki.example/runbook"}],
        "usergroups": [{"handle": "eng-team", "name": "Engineering", "users": ["alice", "bob"], "channels": ["eng"]}],
    }
}


def with_roles(*, admins: tuple[str, ...] = (), guests: tuple[str, ...] = ()) -> dict[str, Any]:
    """WORKSPACE with some principals made workspace admins or guests (no one is either in WORKSPACE)."""
    fixtures = copy.deepcopy(WORKSPACE)
    users = fixtures["slack"]["users"]
    for ids, flag in ((admins, "is_admin"), (guests, "guest")):
        for pid in ids:
            entry = next((u for u in users if u["id"] == pid), None)
            if entry is None:
                entry = {"id": pid}
                users.append(entry)
            entry[flag] = True
    return fixtures


ALICE, BOB, CAROL = user_id_for("alice"), user_id_for("bob"), user_id_for("carol")
DANA, ERIN = user_id_for("dana"), user_id_for("erin")


def cid(name: str) -> str:
    """The id of a fixture channel by name."""
    return slack_id("C", name)


DM_AB = slack_id("D", "+".join(sorted([ALICE, BOB])))
DM_BC = slack_id("D", "+".join(sorted([BOB, CAROL])))
GROUP_ABC = slack_id("G", "+".join(sorted([ALICE, BOB, CAROL])))


def ts_of(world, ref: str) -> str:
    """The ts of a fixture message by its id."""
    rows = world.store.select("slack_messages", {"ref": ref})
    assert rows, f"no fixture message {ref}"
    return rows[0]["ts"]


def refused(world) -> list:
    return world.ledger.of_kind("refused")


def deliveries(world) -> list[dict]:
    return [e.payload for e in world.ledger.of_kind("delivery")]
