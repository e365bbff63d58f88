"""The `clawarena` command: the command groups of `clawarena.commands`, assembled.

A command's module is imported when that command runs (or when `--help` lists them all), so
`clawarena tasks list` does not pay for importing `run`, `check`, `judge`, ... at start-up."""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from importlib import import_module
from typing import Any

import typer.main
from typer.models import CommandInfo, TyperInfo

from clawarena.commands.base import Group, make_typer, plain

# name -> (module under clawarena.commands, attribute, kind), in the order `--help` lists them
# (typer's order: plain commands first, then the groups).
COMMANDS: dict[str, tuple[str, str, str]] = {
    "run": ("run", "run", "command"),
    "check": ("check", "check", "command"),
    "serve": ("serve", "serve", "command"),
    "mcp": ("serve", "mcp_stdio", "command"),
    "score": ("score", "score", "command"),
    "suites": ("tasks", "suites", "command"),
    "report": ("report", "report", "command"),
    "view": ("view", "view", "command"),
    "judge": ("judge", "judge", "command"),
    "tasks": ("tasks", "app", "group"),
    "tools": ("tools", "app", "group"),
    "runs": ("runs", "app", "group"),
    "synth": ("synth", "app", "group"),
}


def _as_command(name: str, target: Any) -> Any:
    return typer.main.get_command_from_info(CommandInfo(name=name, callback=target), pretty_exceptions_short=app.pretty_exceptions_short, rich_markup_mode=None)


def _as_group(name: str, target: Any) -> Any:
    return typer.main.get_group_from_info(TyperInfo(target, name=name), pretty_exceptions_short=app.pretty_exceptions_short, suggest_commands=app.suggest_commands, rich_markup_mode=None)


_BUILDERS = {"command": _as_command, "group": _as_group}


class LazyCommands(MutableMapping):
    """The root's commands by name, each built (module imported, typer's click command made, help
    made plain) on first access; `--help` lists them all, a command line reaches one."""

    def __init__(self) -> None:
        self._built: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._built:
            module, attr, kind = COMMANDS[name]  # KeyError for an unknown name, as a dict
            command = _BUILDERS[kind](name, getattr(import_module(f"clawarena.commands.{module}"), attr))
            plain(command)
            self._built[name] = command
        return self._built[name]

    def __contains__(self, name: object) -> bool:
        return name in COMMANDS or name in self._built

    def __iter__(self) -> Iterator[str]:
        return iter([*COMMANDS, *(n for n in self._built if n not in COMMANDS)])

    def __len__(self) -> int:
        return len(set(COMMANDS) | set(self._built))

    def __setitem__(self, name: str, command: Any) -> None:
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        raise TypeError("the clawarena commands are fixed")


class LazyGroup(Group):
    """The root group, over `LazyCommands`."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.commands = LazyCommands()


app = make_typer("clawarena: utility and safety of personal agents, on the same runs.", name="clawarena", cls=LazyGroup)


@app.callback()
def _root() -> None:
    # A callback makes typer build a group although no command is registered on `app` itself.
    pass


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
