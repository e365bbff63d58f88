"""Memory per cached world template: Python-heap bytes (tracemalloc), snapshot bytes, the factory's
estimate (`WorldTemplate.nbytes`, what the in-memory cache's cap counts) and RSS growth per N
templates, for default-profile worlds (workspace), the long-context world, and network worlds
(no filler, with a Cedar policy engine).

    python benchmarks/world_memory.py [--n 20]
"""

from __future__ import annotations

import argparse
import gc
import os
import tempfile
import tracemalloc


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20, help="templates per kind of world")
    args = ap.parse_args()
    os.environ["CLAWARENA_CACHE_DIR"] = tempfile.mkdtemp(prefix="clawarena-world-memory-")

    from clawarena.services import world_factory
    from clawarena.spec.loader import load_suite

    workspace, network = load_suite("workspace"), load_suite("network")
    kinds = {
        "default": [s for s in workspace if s.task.world.filler.profile == "default"][: args.n],
        "long": [s for s in workspace if s.task.world.filler.profile == "long"][: args.n],
        "network": network[: args.n],
    }
    print(f"{'world':<8} {'n':>3} {'heap MB/tpl':>12} {'snapshot MB/tpl':>16} {'nbytes MB/tpl':>14} {'RSS growth MB/tpl':>18}")
    for kind, scenarios in kinds.items():
        if not scenarios:
            continue
        factory = world_factory()
        factory.max_template_bytes = 1 << 40  # keep every template: this measures them
        factory.template(scenarios[0].model_copy(update={"id": scenarios[0].id + "#warm-up"}))  # first-use costs (empty stores, parsed schemas) out of the figure
        rest = scenarios
        gc.collect()
        rss0 = _rss_mb()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        templates = [factory.template(s) for s in rest]
        gc.collect()
        heap = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        grown = _rss_mb() - rss0
        n = len(templates)
        snap = sum(len(t.snapshot) for t in templates) / n
        est = sum(t.nbytes for t in templates) / n
        print(f"{kind:<8} {n:>3} {heap / n / 2**20:>12.2f} {snap / 2**20:>16.2f} {est / 2**20:>14.2f} {grown / n:>18.2f}")
        del templates, factory
        gc.collect()


if __name__ == "__main__":
    main()
