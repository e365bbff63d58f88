"""cProfile over warm oracle trials on the workspace suite. Usage: python benchmarks/oracle_profile.py [rounds]"""

import cProfile, pstats, sys, time, statistics
from clawarena.runner.trial import run_trial
from clawarena.runner.units import WorkUnit
from clawarena.services import services, world_factory
from clawarena.spec.loader import load_suite

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
factory, svcs = world_factory(), services()
scs = list(load_suite("workspace"))
units = [(WorkUnit(scenario_id=s.id, agent="oracle", trial=0, seed=1), s) for s in scs]
for u, s in units:
    run_trial(u, s, factory, svcs)  # warm
ts = []
for u, s in units:
    t = time.perf_counter()
    run_trial(u, s, factory, svcs)
    ts.append((time.perf_counter() - t) * 1000)
print(
    f"{len(units)} scenarios: min {min(ts):.2f} median {statistics.median(ts):.2f} max {max(ts):.2f} ms"
)
pr = cProfile.Profile()
pr.enable()
for _ in range(rounds):
    for u, s in units:
        run_trial(u, s, factory, svcs)
pr.disable()
st = pstats.Stats(pr)
st.sort_stats("cumulative").print_stats(45)
st.sort_stats("tottime").print_stats(30)
