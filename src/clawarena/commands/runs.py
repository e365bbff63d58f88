"""`clawarena runs recover`: put a damaged run folder back in a state `--resume` can finish."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from clawarena.commands.base import SUITE_HELP, console, fail, make_typer, quoted, split

app = make_typer("Repair run folders so that `clawarena run --resume` can finish them.")


@app.command("recover")
def recover(
    run_dir: Path = typer.Argument(..., metavar="RUN-DIR", help="the run folder whose run.json is missing or unreadable"),
    suite: str = typer.Option(..., "--suite", metavar="SUITE", help=SUITE_HELP + " (the one the run was made with)"),
    agent: Optional[list[str]] = typer.Option(None, "--agent", metavar="AGENT", help="the run's agents, repeatable or comma-separated [default: those in the records]"),
    trials: Optional[int] = typer.Option(None, "--trials", min=1, metavar="N", help="trials per scenario, agent and condition [default: the highest in the records]"),
    seed: Optional[int] = typer.Option(None, "--seed", metavar="N", help="the run's base seed [default: found from the records' seeds]"),
    task: Optional[list[str]] = typer.Option(None, "--task", metavar="GLOB", help="the run's task globs, repeatable; '*' for the whole suite [default: the whole suite, when the records cover it]"),
    conditions: Optional[str] = typer.Option(None, "--conditions", metavar="IDS", help="the run's condition ids, comma-separated [default: those in the records]"),
    base_url: Optional[str] = typer.Option(None, "--base-url", metavar="URL", help="endpoint for model agents, as the run was made"),
    models: Optional[Path] = typer.Option(None, "--models", metavar="FILE", help="the models file the run was made with"),
) -> None:
    """Rebuild RUN-DIR/run.json from its trials.jsonl and the options given.

    What the records cannot tell must be given (the suite; the task globs when the records cover
    only part of the suite); a value that contradicts the records is refused.
    """
    from clawarena.agents.scaffolding import Condition
    from clawarena.llm.config import ModelConfigError
    from clawarena.runner.recover import RecoverOptions, recover_run
    from clawarena.runner.store import RunStore, RunStoreError
    from clawarena.spec.loader import SpecError

    if not run_dir.is_dir():
        fail(f"RUN-DIR: {run_dir} is not a folder")
    try:
        options = RecoverOptions(
            suite=suite, agents=split(agent) or None, trials=trials, seed=seed, tasks=split(task) or None,
            conditions=[Condition.parse(c).id for c in split([conditions])] if conditions else None,
            base_url=base_url, models_file=str(models) if models else None,
        )  # fmt: skip
        recovered = recover_run(RunStore(run_dir), options)
    except (RunStoreError, SpecError, ModelConfigError, KeyError, ValueError, OSError) as exc:
        fail(quoted(exc))
    c = recovered.config
    from_records = f" (from the records: {', '.join(recovered.inferred)})" if recovered.inferred else ""
    console.out(
        f"rebuilt {run_dir / 'run.json'} from {recovered.records} record(s){from_records}: suite {c.suite}, "
        f"agents {','.join(c.agents)}, conditions {','.join(c.conditions)}, trials {c.trials}, seed {c.seed}, "
        f"tasks {','.join(c.tasks) or 'all'}",
        highlight=False,
    )  # fmt: skip
    console.out(f"finish it with: clawarena run --resume {run_dir}", highlight=False)
