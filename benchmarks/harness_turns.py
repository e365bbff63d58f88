"""What a sandboxed coding-agent harness costs per trial (issue 13), beside clawarena's own loop.

Run: python benchmarks/harness_turns.py [--repeats 3]

Each installed harness (scripts/install-<harness>.sh) plays the same five-call script on
`email-triage-summary/benign` against a scripted server of its API shape (list, a shell command,
read two, send and label, a final reply), with no model latency, so what is measured is the
harness: its start-up, its own loop, the sandbox and the proxies. The baseline is the direct
model agent (`openai:`) playing the same script without the shell step. It prints per harness
the median trial wall time, the median turn time (the harness process alone), and the ratio to
the baseline trial; then what the sandbox alone costs: `true` in bubblewrap against `true`.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the scripted model servers of the tests

from tests.llm_servers import ScriptedModel, Step, anthropic_app, call, gemini_app, openai_app, responses_app, serve  # noqa: E402

from clawarena.agents.harness import sandbox  # noqa: E402
from clawarena.agents.harness.install import HarnessUnavailable, find_install  # noqa: E402
from clawarena.runner.trial import run_trial  # noqa: E402
from clawarena.runner.units import WorkUnit  # noqa: E402
from clawarena.services import services, world_factory  # noqa: E402
from clawarena.spec.loader import load_suite  # noqa: E402

TASK = "email-triage-summary/benign"
SHELL = "ls -la; cat notes.txt 2>/dev/null; echo done"
HARNESSES = {  # app, MCP tool prefix, shell call, base path, model
    "claude-code": (anthropic_app, "mcp__clawarena__", ("Bash", {"command": SHELL, "description": "look"}), "", "claude-sonnet-4-5"),
    "codex": (responses_app, "mcp__clawarena__", ("exec_command", {"cmd": SHELL}), "/v1", "gpt-5-codex"),
    "gemini-cli": (gemini_app, "mcp_clawarena_", ("run_shell_command", {"command": SHELL}), "", "gemini-2.5-flash"),
}


def script(prefix: str, shell: tuple[str, dict] | None) -> list[Step]:
    steps = [Step(tool_calls=[call(prefix + "gmail_messages_list", {"q": "is:unread"})])]
    if shell:
        steps.append(Step(tool_calls=[shell]))
    steps += [
        Step(tool_calls=[call(prefix + "gmail_read_email", {"id": "m-launch"}), call(prefix + "gmail_read_email", {"id": "m-partner"})]),
        Step(tool_calls=[
            call(prefix + "gmail_send_email", {"to": ["bob@northwind.example"], "subject": "Q3 launch status", "body": "Launch moved to Sept 14."}),
            call(prefix + "gmail_messages_modify", {"id": "m-launch", "body": {"addLabelIds": ["Label_projects"]}}),
        ]),
        Step(text="Sent Bob the summary and filed Dana's email under Projects."),
    ]  # fmt: skip
    return steps


def one_trial(agent: str, app, steps: list[Step], base_path: str) -> tuple[float, float, str]:
    scenario = next(s for s in load_suite("email") if s.id == TASK)
    server = serve(app(ScriptedModel(list(steps))))
    try:
        t0 = time.perf_counter()
        run = run_trial(WorkUnit(scenario_id=scenario.id, agent=agent, trial=0, seed=0), scenario, world_factory(), services(), {"base_url": server.url + base_path})
        wall = time.perf_counter() - t0
    finally:
        server.stop()
    turns = (run.trace.get("agents") or {}).get("alice-agent", {}).get("turns", [])
    return wall, sum(t["seconds"] for t in turns), run.record.outcome


def sandbox_cost(repeats: int) -> tuple[float, float]:
    root, sockets = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp())
    for name in ("home", "state", "workspace", "tmp"):
        (root / name).mkdir()
    sandbox.prepare(root, sockets)
    argv = sandbox.command(sandbox.SandboxSpec(["/usr/bin/true"], {}, root, sockets))

    def median(cmd: list[str]) -> float:
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True)
            times.append(time.perf_counter() - t0)
        return statistics.median(times)

    return median(["/usr/bin/true"]), median(argv)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    base = [one_trial("openai:scripted", openai_app, script("", None), "/v1") for _ in range(args.repeats)]
    base_wall = statistics.median(w for w, _, _ in base)
    print(f"{'agent':<14} {'version':<10} {'trial s':>8} {'turn s':>7} {'x direct':>9}  outcome")
    print(f"{'openai (direct)':<14} {'':<10} {base_wall:8.2f} {'':>7} {1.0:9.1f}  {base[0][2]}")
    if sandbox.problem():
        print(f"(no harness measured: {sandbox.problem()})")
        return
    for name, (app, prefix, shell, base_path, model) in HARNESSES.items():
        try:
            version = find_install(name, f"install-{name}.sh").version
        except HarnessUnavailable as exc:
            print(f"{name:<14} not installed ({exc})")
            continue
        runs = [one_trial(f"{name}:{model}", app, script(prefix, shell), base_path) for _ in range(args.repeats)]
        wall, turn = statistics.median(w for w, _, _ in runs), statistics.median(t for _, t, _ in runs)
        print(f"{name:<14} {version:<10} {wall:8.2f} {turn:7.2f} {wall / base_wall:9.1f}  {', '.join(sorted({o for _, _, o in runs}))}")
    plain, boxed = sandbox_cost(max(10, args.repeats * 5))
    print(f"sandbox alone: `true` {plain * 1000:.1f} ms, in bubblewrap with the forwarder {boxed * 1000:.1f} ms")


if __name__ == "__main__":
    main()
