"""Record {scenario_id/agent: final_hash, outcome, digest of score+diff+evidence} for oracle/noop/naive
on workspace+email, to prove a speed change leaves behaviour alone. Usage: python benchmarks/behaviour_digest.py OUT.json (run before and after a change; diff the two files)"""

import hashlib, json, sys
from clawarena.runner.trial import run_trial
from clawarena.runner.units import WorkUnit
from clawarena.services import services, world_factory
from clawarena.spec.loader import load_suite


def main(out: str) -> None:
    factory, svcs, rows = world_factory(), services(), {}
    for suite in ("workspace", "email"):
        for sc in load_suite(suite):
            for agent in ("oracle", "noop", "naive"):
                run = run_trial(
                    WorkUnit(scenario_id=sc.id, agent=agent, trial=0, seed=1),
                    sc,
                    factory,
                    svcs,
                )
                t = run.trace
                blob = json.dumps(
                    {
                        k: t.get(k)
                        for k in (
                            "score",
                            "diff",
                            "evidence",
                            "ledger",
                            "final_texts",
                            "termination",
                        )
                    },
                    sort_keys=True,
                    default=str,
                )
                rec = run.record.model_dump(mode="json")
                rec.pop("timings", None)
                rows[f"{sc.id}|{agent}"] = {
                    "final_hash": run.record.final_hash,
                    "outcome": run.record.outcome,
                    "trace": hashlib.sha256(blob.encode()).hexdigest()[:16],
                    "record": hashlib.sha256(
                        json.dumps(rec, sort_keys=True).encode()
                    ).hexdigest()[:16],
                }
    json.dump(rows, open(out, "w"), indent=1, sort_keys=True)
    print(len(rows), "trials recorded")


if __name__ == "__main__":
    main(sys.argv[1])
