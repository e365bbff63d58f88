"""Side by side with AgentDojo in one run: its workspace suite's ground-truth pipeline per
(user task, injection task) pair vs clawarena's `oracle` per trial on the workspace suite.

Run: pip install -r benchmarks/requirements-agentdojo.txt   (benchmark-only dependency)
     python benchmarks/vs_agentdojo.py [--pairs 140] [--version v1.2.1]

Both sides are warm (AgentDojo's suite loaded and its injections computed, clawarena's world
templates built) and alternate one sample each, so load on the shared machine hits both alike.
An AgentDojo pair is what its benchmark runs per security case without a model: load and inject
the environment, run the task's ground truth through `GroundTruthPipeline`, check utility and
security. A clawarena trial is `run_trial` (build + episode + score + hash), as `clawarena run`.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

INSTALL_HINT = "agentdojo is not installed: pip install -r benchmarks/requirements-agentdojo.txt"


def load_agentdojo() -> dict[str, Any]:
    """AgentDojo's entry points, or a clear exit naming how to install it."""
    try:
        from agentdojo.agent_pipeline.ground_truth_pipeline import GroundTruthPipeline
        from agentdojo.attacks.baseline_attacks import DirectAttack
        from agentdojo.task_suite.load_suites import get_suite
    except ImportError:
        raise SystemExit(INSTALL_HINT) from None
    return {"GroundTruthPipeline": GroundTruthPipeline, "DirectAttack": DirectAttack, "get_suite": get_suite}


def agentdojo_pairs(version: str, limit: int) -> list[Callable[[], object]]:
    """One callable per (user task, injection task) pair of the workspace suite, spread evenly
    over all pairs when `limit` is below their number; injections are computed here, untimed."""
    ad = load_agentdojo()
    suite = ad["get_suite"](version, "workspace")
    pipeline = ad["GroundTruthPipeline"](None)
    pipeline.name = "ground_truth"  # attacks read the target's name; the direct attack does not use it
    attack = ad["DirectAttack"](suite, pipeline)
    every = list(itertools.product(suite.user_tasks.values(), suite.injection_tasks.values()))
    step = max(1, len(every) // max(1, limit))
    out = []
    for user_task, injection_task in every[::step][:limit]:
        injections = attack.attack(user_task, injection_task)

        def pair(u=user_task, i=injection_task, inj=injections) -> object:
            return suite.run_task_with_pipeline(ad["GroundTruthPipeline"](u), u, i, inj)

        out.append(pair)
    return out


def clawarena_trials() -> list[Callable[[], object]]:
    """One callable per workspace scenario: an `oracle` trial through `run_trial`, templates warm."""
    from clawarena.runner.trial import run_trial
    from clawarena.runner.units import WorkUnit
    from clawarena.services import services, world_factory
    from clawarena.spec.loader import load_suite

    factory, svcs = world_factory(), services()
    out = []
    for scenario in load_suite("workspace"):
        unit = WorkUnit(scenario_id=scenario.id, agent="oracle", trial=0, seed=1)

        def trial(u=unit, s=scenario) -> object:
            run = run_trial(u, s, factory, svcs)
            if run.record.outcome != "pass":  # a failing oracle would make the figure meaningless
                raise RuntimeError(f"oracle did not pass {s.id}: {run.record.outcome} {run.record.error or ''}")
            return run

        out.append(trial)
    return out


def alternate(left: list[Callable[[], object]], right: list[Callable[[], object]], n: int) -> tuple[list[float], list[float]]:
    """Milliseconds of `n` samples per side, one of each in turn, cycling through each side's calls."""
    a, b = itertools.cycle(left), itertools.cycle(right)
    ta: list[float] = []
    tb: list[float] = []
    for _ in range(n):
        for fn, out in ((next(a), ta), (next(b), tb)):
            t = time.perf_counter()
            fn()
            out.append((time.perf_counter() - t) * 1000)
    return ta, tb


def summary(name: str, samples: list[float]) -> str:
    return f"{name:<34} min {min(samples):8.2f}  median {statistics.median(samples):8.2f}  max {max(samples):8.2f} ms  (n={len(samples)})"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=140, help="AgentDojo pairs sampled (spread over all 560); also the sample count per side")
    parser.add_argument("--version", default="v1.2.1", help="AgentDojo benchmark version")
    args = parser.parse_args(argv)
    if args.pairs < 1:
        parser.error("--pairs must be at least 1")
    warnings.simplefilter("ignore")  # AgentDojo warns per task about its own deprecations
    pairs = agentdojo_pairs(args.version, args.pairs)
    trials = clawarena_trials()
    for fn in (*pairs, *trials):  # warm both: first calls pay imports, template builds and caches
        fn()
    ad, ca = alternate(pairs, trials, max(args.pairs, len(trials)))
    print(summary(f"AgentDojo {args.version} ground-truth pair", ad))
    print(summary("clawarena oracle trial (workspace)", ca))
    print(f"ratio AgentDojo / clawarena: median {statistics.median(ad) / statistics.median(ca):.1f}x  "
          f"(min/min {min(ad) / min(ca):.1f}x, max/max {max(ad) / max(ca):.1f}x)")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
