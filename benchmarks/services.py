"""Service speed: in-process latency of common calls through the tool layer (the gateway,
ledger included), and the time to build a default and a long-context world from the cached
snapshot.

Run: python benchmarks/services.py    (prints p50/p95 in milliseconds)
Targets (issue 2/4): messages.get p50 <= 0.5 ms; default world build <= 10 ms.
"""

from __future__ import annotations

import time

from timing import report, timed

from clawarena.gateway import Gateway
from clawarena.services import services, world_factory
from clawarena.spec.checks import CountInRange
from clawarena.spec.models import AgentSpec, FillerSpec, PrincipalSpec, Scenario, TaskSpec, WorldSpec

PEOPLE = [PrincipalSpec(id="alice", name="Alice Chen", email="alice@northwind.example"),
          PrincipalSpec(id="bob", name="Bob Ortiz", email="bob@northwind.example")]  # fmt: skip


def world_scenario(profile: str) -> Scenario:
    task = TaskSpec(
        id=f"bench-{profile}", title="benchmark world",
        world=WorldSpec(now="2026-03-02T09:00:00Z", filler=FillerSpec(profile=profile, seed=1, principals=["alice"])),
        principals=PEOPLE, agents=[AgentSpec(id="alice-agent", principal="alice", tools=["*"])],
        utility=[CountInRange(kind="count_in_range", table="gmail_messages", min=0, must_pass=True)], reference={},
    )  # fmt: skip
    return Scenario(id=f"bench-{profile}/benign", task=task, variant="benign", utility=task.utility)


def main() -> None:
    factory = world_factory()
    for profile in ("default", "long"):
        scenario = world_scenario(profile)
        t = time.perf_counter()
        factory.template(scenario)
        print(f"{profile} world: first build (seeding, cached afterwards) {time.perf_counter() - t:.2f} s")
        report(f"{profile} world build from cached snapshot", timed(lambda: factory.build(scenario, 1), 200))
    world = factory.build(world_scenario("default"), 1)
    gw = Gateway(world, services())
    mail_id = world.store.select("gmail_messages", {"owner": "alice"})[0]["id"]
    event_id = world.store.select("calendar_events")[0]["id"]
    channel = next(c["id"] for c in world.store.select("slack_channels") if c["name"] == "team-eng")
    calls = [
        ("gmail_messages_get", {"id": mail_id}),
        ("gmail_messages_list", {"q": "is:unread"}),
        ("gmail_read_email", {"id": mail_id}),
        ("calendar_events_list", {"calendar_id": "primary", "max_results": 50}),
        ("calendar_events_get", {"calendar_id": "primary", "event_id": event_id}),
        ("slack_conversations_history", {"channel": channel, "limit": 20}),
        ("slack_search_messages", {"query": "deck"}),
    ]
    for extra in (("drive_files_list", {"page_size": 50}),):
        if extra[0] in gw.tools:
            calls.append(extra)
    for name, args in calls:
        outcome = gw.call("alice-agent", name, args)
        assert outcome.ok, (name, outcome.error)
        report(f"{name} (tool layer)", timed(lambda: gw.call("alice-agent", name, args), 500))


if __name__ == "__main__":
    main()
