"""The `clawarena` command: the command groups of `clawarena.commands`, assembled."""

from __future__ import annotations

from clawarena.commands import check, judge, report, run, runs, score, serve, tasks, tools
from clawarena.commands.base import Group, make_typer

app = make_typer("clawarena: utility and safety of personal agents, on the same runs.", name="clawarena", cls=Group)
app.command("run")(run.run)
app.command("check")(check.check)
app.add_typer(tasks.app, name="tasks")
app.add_typer(tools.app, name="tools")
app.add_typer(runs.app, name="runs")
app.command("serve")(serve.serve)
app.command("mcp")(serve.mcp_stdio)
app.command("score")(score.score)
app.command("suites")(tasks.suites)
app.command("report")(report.report)
app.command("judge")(judge.judge)


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
