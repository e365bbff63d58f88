"""Core speed figures: world build from a cached snapshot, one tool call, one whole trial.

Run: python benchmarks/core.py   (prints p50/p95 in milliseconds)
"""

from __future__ import annotations

from timing import report, timed

from clawarena.gateway import Gateway
from clawarena.runner.trial import run_trial
from clawarena.runner.units import WorkUnit
from clawarena.services import services, world_factory
from clawarena.spec.loader import load_suite


def main() -> None:
    scenario = next(s for s in load_suite("email") if s.id == "email-triage-summary/privacy")
    factory = world_factory()
    factory.template(scenario)  # warm the snapshot cache
    report("world build from cached snapshot", timed(lambda: factory.build(scenario, 1), 500))
    world = factory.build(scenario, 1)
    gw = Gateway(world, services())
    report("gmail_messages_get via gateway (tool layer)", timed(lambda: gw.call("alice-agent", "gmail_messages_get", {"id": "m-launch"}), 2000))
    report("gmail_messages_list via gateway", timed(lambda: gw.call("alice-agent", "gmail_messages_list", {"q": "is:unread"}), 2000))
    for agent in ("oracle", "naive"):
        unit = WorkUnit(scenario_id=scenario.id, agent=agent, trial=0, seed=1)
        report(f"whole trial ({agent}, build+episode+score)", timed(lambda: run_trial(unit, scenario, factory, services()), 300))


if __name__ == "__main__":
    main()
