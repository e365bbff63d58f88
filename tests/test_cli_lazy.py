"""The root command builds its commands on first use (cli.LazyCommands): the same help and the same
behaviour as an app that registers every command up front, and a command line imports only its own."""

from __future__ import annotations

from importlib import import_module

import pytest
import typer
from typer.testing import CliRunner

from clawarena import cli
from clawarena.commands.base import Group, make_typer
from tests.cli_imports import modules_after

runner = CliRunner()


def eager_app() -> typer.Typer:
    """What cli.py assembled before: every command registered on the app at import."""
    eager = make_typer(cli.app.info.help, name="clawarena", cls=Group)
    for name, (module, attr, kind) in cli.COMMANDS.items():
        target = getattr(import_module(f"clawarena.commands.{module}"), attr)
        if kind == "group":
            eager.add_typer(target, name=name)
        else:
            eager.command(name)(target)
    return eager


def paths(app: typer.Typer) -> list[list[str]]:
    root = typer.main.get_command(app)
    found = [[]]
    for name in root.commands:
        found.append([name])
        found.extend([name, sub] for sub in getattr(root.commands[name], "commands", {}))
    return found


EAGER = eager_app()


@pytest.mark.parametrize("path", paths(EAGER), ids=lambda p: " ".join(p) or "clawarena")
@pytest.mark.parametrize("width", ["80", "200"])
def test_every_help_is_the_same_as_an_eager_apps(path, width):
    lazy = runner.invoke(cli.app, [*path, "--help"], env={"COLUMNS": width})
    eager = runner.invoke(EAGER, [*path, "--help"], env={"COLUMNS": width})
    assert (lazy.exit_code, lazy.output) == (eager.exit_code, eager.output)
    assert lazy.exit_code == 0


@pytest.mark.parametrize("args", [[], ["nope"], ["tasks"], ["tasks", "nope"], ["run", "--trials", "0"], ["serve", "--port", "x"], ["tasks", "list", "--format", "xml"]])
def test_errors_and_bare_groups_are_the_same_as_an_eager_apps(args):
    lazy = runner.invoke(cli.app, args)
    eager = runner.invoke(EAGER, args)
    assert (lazy.exit_code, lazy.output) == (eager.exit_code, eager.output)
    assert lazy.exit_code != 0


def test_the_commands_mapping_acts_as_a_dict():
    commands = cli.LazyCommands()
    assert list(commands) == list(cli.COMMANDS) and len(commands) == len(cli.COMMANDS)
    assert "tasks" in commands and "nope" not in commands
    assert commands["tasks"] is commands["tasks"]  # built once
    assert commands.get("nope") is None
    with pytest.raises(KeyError):
        commands["nope"]


def test_a_command_line_imports_only_its_own_command_module(tmp_path):
    loaded = modules_after(["tasks", "list", "--suite", "email"], tmp_path)
    assert loaded == {"clawarena.commands.base", "clawarena.commands.coerce", "clawarena.commands.tasks"}
