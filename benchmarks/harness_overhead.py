"""Harness overhead beside a model (issue 12): model-bound trials in one process against a
scripted OpenAI-compatible server that answers each call after a realistic delay.

Run: python benchmarks/harness_overhead.py [--delay 1.0] [--concurrency 64] [--trials 64]

Each trial plays the same four-call script on `email-triage-summary/benign` (list, read two,
send and label, then a final reply), through the official openai SDK, the gateway, scoring and
the run store, all trials of a run at once (`--max-concurrency`, thread executor: one event loop).
It prints:
- wall time of the run and the model's share: every call waits `delay`, so a run whose trials
  all run at once cannot take less than calls-per-trial x delay; the rest is harness overhead;
- trials per second at that concurrency;
- memory per concurrent trial: the growth of peak RSS from a run of 8 to a run of N at once,
  divided by the N - 8 extra trials.
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the scripted model server of the tests

from tests.llm_servers import GatedModel, Step, call, gated_openai_app, serve  # noqa: E402

from clawarena.llm.config import ModelConfig, ModelsFile  # noqa: E402
from clawarena.runner.run import execute_run, plan_run  # noqa: E402
from clawarena.runner.store import RunConfig, RunStore  # noqa: E402

TASK = "email-triage-summary/benign"
SCRIPT = [
    Step(tool_calls=[call("gmail_messages_list", {"q": "is:unread"})]),
    Step(tool_calls=[call("gmail_read_email", {"id": "m-launch"}), call("gmail_read_email", {"id": "m-partner"})]),
    Step(tool_calls=[
        call("gmail_send_email", {"to": ["bob@northwind.example"], "subject": "Q3 launch status", "body": "Launch moved to Sept 14."}),
        call("gmail_messages_modify", {"id": "m-launch", "body": {"addLabelIds": ["Label_projects"]}}),
    ]),
    Step(text="Sent Bob the summary and filed Dana's email."),
]  # fmt: skip


def _serve(delay: float, conn) -> None:
    """The scripted model in its own process, so it takes no CPU (or GIL) from the harness."""
    server = serve(gated_openai_app(GatedModel(gate=None, hold_s=delay, steps=SCRIPT)))
    conn.send(server.url)
    conn.recv()  # until the benchmark is done
    server.stop()


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def one_run(url: str, trials: int, concurrency: int) -> tuple[float, float]:
    """Wall and CPU seconds (this process: the harness) of `trials` trials with `concurrency` in flight."""
    with tempfile.TemporaryDirectory() as runs:
        models = Path(runs) / "models.yaml"
        models.write_text(ModelsFile(models=[ModelConfig(name="delayed", provider="openai", model="delayed", max_concurrency=max(concurrency, 1))]).model_dump_json())
        config = RunConfig(suite="email", agents=["model:delayed"], tasks=[TASK], trials=trials, base_url=url, models_file=str(models), max_concurrency=concurrency)
        store = RunStore.create(Path(runs), config, "bench")
        plan = plan_run(config)
        from clawarena.runner.run import agent_options

        t0, c0 = time.perf_counter(), time.process_time()
        records = execute_run(store, plan, workers=1, executor="thread", options=agent_options(config), max_concurrency=concurrency)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        bad = [r for r in records if r.outcome != "pass"]
        if bad:
            raise SystemExit(f"benchmark trial did not pass: {bad[0].outcome} {bad[0].error}")
        return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay", type=float, default=1.0, help="seconds per model call")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--trials", type=int, default=64)
    args = parser.parse_args()
    ours, theirs = multiprocessing.Pipe()
    server = multiprocessing.get_context("spawn").Process(target=_serve, args=(args.delay, theirs), daemon=True)
    server.start()
    try:
        url = f"{ours.recv()}/v1"
        one_run(url, 1, 1)  # warm: imports, the world template, the SDK
        small = min(8, args.concurrency)
        one_run(url, small, small)
        rss_small = rss_mib()
        wall, cpu = one_run(url, args.trials, args.concurrency)
        rss_big = rss_mib()
    finally:
        ours.send("stop")
        server.join(10)
    calls = len(SCRIPT)
    waves = -(-args.trials // args.concurrency)
    floor = waves * calls * args.delay  # the model's own time: no harness could finish sooner
    overhead = (wall - floor) / wall
    print(f"{args.trials} trials, {args.concurrency} at once, {calls} model calls each at {args.delay:.2f} s")
    print(f"wall {wall:.3f} s; model floor {floor:.3f} s; harness overhead {overhead * 100:.2f}% of trial time (target <= 1%)")
    print(f"throughput {args.trials / wall:.2f} trials/s")
    per_trial = cpu / args.trials
    print(f"harness CPU per trial {per_trial * 1000:.1f} ms = {per_trial / (calls * args.delay) * 100:.2f}% of a trial's model time "
          f"(the overhead an idle core would show; one core saturates at {calls * args.delay / per_trial:.0f} trials in flight)")
    if args.concurrency > small:
        per_trial = (rss_big - rss_small) / (args.concurrency - small)
        print(f"memory per concurrent trial {per_trial * 1024:.0f} KiB (peak RSS {rss_small:.0f} MiB at {small} -> {rss_big:.0f} MiB at {args.concurrency})")


if __name__ == "__main__":
    main()
