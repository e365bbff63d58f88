"""`--help` of every command and the way option errors read, through typer's CliRunner."""

from __future__ import annotations

import re

import pytest
import typer
from typer.testing import CliRunner

from clawarena.cli import app
from clawarena.commands.base import error_line, plain_error

runner = CliRunner()
TYPE_LABEL = re.compile(r"<(str|int|bool|float|path|list\[[^>]*\]|int range|float range|[a-z|]+)>")


def command_paths() -> list[list[str]]:
    """Every command and group of the app, as argument lists."""
    root = typer.main.get_command(app)
    out: list[list[str]] = []

    def walk(cmd, path):
        out.append(path)
        for name, sub in getattr(cmd, "commands", {}).items():
            walk(sub, [*path, name])

    walk(root, [])
    return out


def help_of(path: list[str]) -> str:
    result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    return result.output


def test_every_command_is_reachable():
    names = {" ".join(p) for p in command_paths()}
    assert {"run", "check", "serve", "mcp", "score", "suites", "tasks list", "tasks show", "tools list", "tools show"} <= names


@pytest.mark.parametrize("path", command_paths(), ids=lambda p: " ".join(p) or "clawarena")
def test_help_has_no_type_labels_and_every_parameter_is_explained(path):
    text = help_of(path)
    assert not TYPE_LABEL.search(text), TYPE_LABEL.search(text).group(0)
    root = typer.main.get_command(app)
    cmd = root
    for name in path:
        cmd = cmd.commands[name]
    for param in cmd.params:
        if param.name == "help":
            continue
        assert getattr(param, "help", None), f"{' '.join(path)}: {param.name} has no help text"
        assert param.metavar is None or not param.metavar.startswith("<"), param.metavar
    if not path:
        return
    for line in text.splitlines():  # nothing rendered as rich markup: no panels, no "╭─"
        assert "╭" not in line and "│" not in line


def test_choices_and_bracketed_defaults_are_shown_as_written():
    text = help_of(["run"])
    assert "--skills [on|off]" in text and "--meta [on|off]" in text and "--format [table|json]" in text
    assert "[default: oracle,noop,naive]" in " ".join(text.split())  # typed in the help text, not swallowed as markup
    assert "--retry-errors " in text and "--retry-errors <" not in text  # a flag takes no value
    assert "--trials N" in text and "at least 1" in text and "x>=1" not in text
    assert "--format [table|json]" in help_of(["tasks", "list"])
    assert "SCENARIO" in help_of(["serve"]) and "--first" in help_of(["serve"])


@pytest.mark.parametrize(
    "args, expected",
    [
        (["run", "--trials", "0"], "error: --trials: must be at least 1 (see `clawarena run --help`)"),
        (["run", "--trials", "many"], "error: --trials: must be a whole number"),
        (["run", "--skills", "maybe"], "error: --skills: expected on or off, got 'maybe'"),
        (["run", "--format", "xml"], "error: --format: expected table or json, got 'xml'"),
        (["run", "--bogus"], "error: No such option: --bogus"),
        (["tasks", "show"], "error: SCENARIO: missing argument"),
        (["mcp", "x/benign"], "error: --as: missing option"),
        (["serve", "--port", "70000"], "error: --port: must be at most 65535"),
    ],
)
def test_option_errors_are_one_plain_line(args, expected):
    result = runner.invoke(app, args, env={"COLUMNS": "80"})
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(expected), result.stderr
    assert "Input should" not in result.stderr and "╭" not in result.stderr and "Traceback" not in result.stderr


def test_plain_error_rewrites_pydantic_wording():
    assert plain_error("Input should be greater than or equal to 1") == "must be at least 1"
    assert plain_error("Input should be a valid integer, unable to parse string as an integer") == "must be a whole number"
    assert plain_error("Value error, 'x' is not one of 'on', 'off'.") == "expected on or off, got 'x'"
    assert plain_error("'x' is not one of 'a', 'b', 'c'.") == "expected a, b or c, got 'x'"
    assert plain_error("Something else.") == "Something else"

    class Fake(Exception):
        message, param_hint, param = "Input should be less than or equal to 9", "--n", None

        def format_message(self):
            return self.message

    Fake.__name__ = "BadParameter"
    assert error_line(Fake()) == "--n: must be at most 9"


def test_a_bare_group_prints_its_help():
    result = runner.invoke(app, ["tools"])
    assert "list" in result.output and "show" in result.output
