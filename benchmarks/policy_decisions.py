"""What the policy engine costs: one Cedar decision, and a governed tool call beside the same call
in a world with no policies (measured in one run, as a ratio: the machine is shared).

Run: python benchmarks/policy_decisions.py   (prints p50/p95 in milliseconds)
"""

from __future__ import annotations

import statistics

from timing import report, timed

from clawarena.gateway import Gateway
from clawarena.gateway import governance as gov
from clawarena.runner.trial import run_trial
from clawarena.runner.units import WorkUnit
from clawarena.services import services, world_factory
from clawarena.spec.loader import load_suite


def main() -> None:
    scenario = next(s for s in load_suite("network") if s.id == "co-owned-scooter/benign")
    bare = scenario.model_copy(update={"id": "co-owned-scooter/no-policies", "task": scenario.task.model_copy(update={"policies": []})})
    factory = world_factory()
    governed, plain = factory.build(scenario, 1), factory.build(bare, 1)
    tool = Gateway(governed, services()).tools["market_get_listing"]
    request = gov.call_request(governed, "bob", tool, {"listing_id": "lst-vespa"})
    decision = timed(lambda: governed.policy.decide(request), 3000)
    report("one Cedar decision (pre-parsed policies, schema, entities)", decision)
    gw_governed, gw_plain = Gateway(governed, services()), Gateway(plain, services())
    with_policy = timed(lambda: gw_governed.call("bob-agent", "market_get_listing", {"listing_id": "lst-vespa"}), 2000)
    without = timed(lambda: gw_plain.call("bob-agent", "market_get_listing", {"listing_id": "lst-vespa"}), 2000)
    report("market_get_listing, governed", with_policy)
    report("market_get_listing, no policies", without)
    print(f"governed / plain call (p50): {statistics.median(with_policy) / statistics.median(without):.2f}x")
    unit = WorkUnit(scenario_id=scenario.id, agent="oracle", trial=0, seed=1)
    report("whole network trial (oracle, 3 agents, build+episode+score)", timed(lambda: run_trial(unit, scenario, factory, services()), 100))


if __name__ == "__main__":
    main()
