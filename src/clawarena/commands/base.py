"""What every command group shares: the app's look (plain help, one-line errors), consoles, and
small helpers for suites, scenarios and folders that turn bad input into one clear line."""

from __future__ import annotations

import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NoReturn

import typer
from rich.console import Console
from rich.padding import Padding
from rich.text import Text
from typer.core import TyperGroup

from clawarena.commands.coerce import lighten, lighten_help_option

if TYPE_CHECKING:
    from clawarena.spec.models import Scenario

console = Console()
err = Console(stderr=True)

DEFAULT_SUITE = "workspace"
OutputFormat = Literal["table", "json"]
SUITE_HELP = "a bundled suite name (see `clawarena suites`) or a folder of task YAML"
FORMAT_HELP = "table for people, json (on stdout, nothing else) for scripts"


def fail(message: str, code: int = 2) -> NoReturn:
    """One line on stderr and a non-zero exit: the way every command refuses bad input."""
    say_error(message)
    raise typer.Exit(code)


def say_error(message: str) -> None:
    # `out`, not `print`: no markup, so `models[0]` or `[default: x]` in a message survive as written.
    err.print("[bold red]error:[/] ", end="", highlight=False)
    err.out(message, highlight=False)


def split(values: list[str] | None) -> list[str]:
    """Repeatable and comma-separated values as one list: `--agent a,b --agent c`."""
    return [v.strip() for item in values or [] for v in item.split(",") if v.strip()]


def quoted(message: object) -> str:
    """An exception's text; a KeyError's str() wraps it in quotes, which a user should not see."""
    text = str(message)
    if isinstance(message, KeyError) and message.args and isinstance(message.args[0], str):
        text = message.args[0]
    return text


# ---- the app: plain help and plain errors -----------------------------------------------------

# Pydantic's wording of typer's coercion errors, as sentences a user reads.
_PLAIN_ERRORS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"^Input should be greater than or equal to (.+?)\.?$", r"must be at least \1"),
        (r"^Input should be less than or equal to (.+?)\.?$", r"must be at most \1"),
        (r"^Input should be greater than (.+?)\.?$", r"must be more than \1"),
        (r"^Input should be less than (.+?)\.?$", r"must be less than \1"),
        (r"^Input should be a valid integer.*$", "must be a whole number"),
        (r"^Input should be a valid number.*$", "must be a number"),
        (r"^Value error, (.+?)\.?$", r"\1"),
        (r"^Input should be (.+?)\.?$", r"must be \1"),
    )
)


_NOT_ONE_OF = re.compile(r"^(?:Value error, )?'(?P<got>.*)' is not one of (?P<choices>.+?)\.?$")


def plain_error(message: str) -> str:
    choice = _NOT_ONE_OF.match(message)
    if choice:  # "'x' is not one of 'on', 'off'." -> "expected on or off, got 'x'"
        names = [c.strip().strip("'") for c in choice["choices"].split(",")]
        wanted = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
        return f"expected {wanted}, got {choice['got']!r}"
    for pattern, replacement in _PLAIN_ERRORS:
        if pattern.match(message):
            return pattern.sub(replacement, message)
    return message.rstrip(".")


def _hint(exc: Any) -> str:
    param = getattr(exc, "param", None)
    if getattr(exc, "param_hint", None):
        hint = exc.param_hint
        return hint if isinstance(hint, str) else " / ".join(hint)
    if param is None:
        return ""
    opts = [o for o in getattr(param, "opts", []) if o.startswith("-")]
    return " / ".join(opts) if opts else (param.metavar or param.name or "").upper()


def error_line(exc: Any) -> str:
    """A click/typer usage error as one sentence: `--trials: must be at least 1`."""
    name = type(exc).__name__
    hint = _hint(exc)
    if name == "MissingParameter":
        what = "argument" if getattr(getattr(exc, "param", None), "param_type_name", "") == "argument" else "option"
        return f"{hint}: missing {what}" + (f" ({plain_error(exc.message)})" if exc.message else "")
    if name == "BadParameter" and hint:
        return f"{hint}: {plain_error(exc.message)}"
    return plain_error(exc.format_message())


def _walk(command: Any) -> Iterator[Any]:
    yield command
    for sub in getattr(command, "commands", {}).values():
        yield from _walk(sub)


def _range_words(low: Any, high: Any) -> str | None:
    if low is None and high is None:
        return None
    if high is None:
        return f"at least {low}"
    if low is None:
        return f"at most {high}"
    return f"{low} to {high}"


def _label(param: Any) -> None:
    """Help shows a name (SUITE, N, PATH) or the choices as [a|b], never a Python type (typer
    would print `<str>`, `<list[str]>`, `<int range> [x>=1]`)."""
    # Instance attributes shadow typer's methods of the same name, for this parameter only.
    param._get_number_range_help_str = lambda: _range_words(getattr(param, "min", None), getattr(param, "max", None))
    if param.param_type_name == "argument":
        param.display_type_rich = lambda ctx=None: None  # the metavar already names it
    if param.param_type_name == "option" and (getattr(param, "is_flag", False) or getattr(param, "count", False)):
        return
    descriptor = getattr(param, "type_descriptor", None)
    choices = descriptor.choices if descriptor is not None and descriptor.is_choice else None
    if choices and (param.metavar is None or param.metavar.startswith("<")):
        param.metavar = "[" + "|".join(str(getattr(c, "value", c)) for c in choices) + "]"
    elif param.metavar is None:
        param.metavar = (param.name or "value").upper()


def plain(root: Any) -> None:
    """Plain help and value names for a command and everything below it (see `Group`)."""
    for command in _walk(root):
        command.rich_markup_mode = None
        for param in getattr(command, "params", []):
            _label(param)
            lighten(param)  # plain values without importing pydantic (see commands/coerce.py)
        lighten_help_option(command)


class Group(TyperGroup):
    """The root `clawarena` group. Every command below it gets plain help (no rich markup, so
    `[default: ...]` in a help text stays as written) and value names instead of type labels;
    a usage error is one line on stderr, not a panel."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        plain(self)

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None, standalone_mode: bool = True, **extra: Any) -> Any:
        try:
            # "clawarena" also under `python -m clawarena.cli`: usage lines show what a user types.
            rv = super().main(args, prog_name or "clawarena", complete_var, standalone_mode=False, **extra)
        except typer.TyperException as exc:
            if not standalone_mode:
                raise
            if type(exc).__name__ == "NoArgsIsHelpError":  # `clawarena` or `clawarena tasks` alone
                print(exc.format_message(), file=sys.stderr)
            else:
                ctx = getattr(exc, "ctx", None)
                where = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
                say_error(error_line(exc) + where)
            sys.exit(exc.exit_code)
        except typer.Abort:
            if not standalone_mode:
                raise
            err.out("aborted", highlight=False)
            sys.exit(1)
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)


def make_typer(help: str, **kwargs: Any) -> typer.Typer:
    """A command group with clawarena's defaults (plain help, no completion install, help on no args)."""
    return typer.Typer(
        help=help, add_completion=False, no_args_is_help=True, rich_markup_mode=None,
        pretty_exceptions_show_locals=False, **kwargs,
    )  # fmt: skip


def progress_bar(out: Console, transient: bool) -> Any:
    """The bar `run`, `check` and `judge` show: description, bar, done/total, elapsed. rich.progress
    is imported here, not at start-up (every command would pay for it)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=out, transient=transient)


def fits(renderable: Any, out: Console | None = None) -> bool:
    """Whether a table fits the terminal at its natural width (else callers print a list)."""
    from rich.measure import Measurement

    out = out or console
    natural = Measurement.get(out, out.options.update_width(100_000), renderable).maximum  # unclamped
    return natural <= out.width


def indented(text: str, by: int = 6) -> Any:
    """Plain text (no markup) wrapped under an indent."""
    return Padding(Text(text), (0, 0, 0, by), expand=False)


def show_table(table: Any, out: Console | None = None) -> None:
    """A rich Table when it fits the terminal; else one block per row (first cell, then the
    other columns as `name value`), so no cell is ever cut to "…" at 80 columns."""
    out = out or console
    if fits(table, out):
        out.print(table)
        return
    if table.title:
        out.print(table.title, highlight=False)
    columns = table.columns
    by_column = [list(c.cells) for c in columns]
    for i in range(table.row_count):
        cells = [cells_of[i] for cells_of in by_column]
        out.print(cells[0], highlight=False, soft_wrap=True)
        rest = Text(", ").join(Text.assemble(f"{c.header} ", Text.from_markup(v) if isinstance(v, str) else v) for c, v in zip(columns[1:], cells[1:]))
        out.print(Padding(rest, (0, 0, 0, 4), expand=False))


# ---- model endpoints given on the command line -----------------------------------------------


def load_models_or_fail(option: str, path: Path | None) -> Any:
    """The models file given on `option` (None when not given); one line naming the option if bad."""
    from clawarena.llm.config import ModelConfigError, load_models

    if path is None:
        return None
    try:
        return load_models(path)
    except ModelConfigError as exc:
        fail(f"{option}: {exc}")


def model_endpoint_or_fail(option: str, spec: str, models: Any, base_url: str | None, models_option: str, providers: tuple[str, ...] = ()) -> Any:
    """Resolve a model spec given on `option` (openai:M, anthropic:M, model:NAME) and check that its
    endpoint answers, before any work: every failure is one line naming `option`. `providers`, when
    given, are the only ones the caller speaks."""
    from clawarena.llm.config import ModelConfigError, resolve
    from clawarena.llm.preflight import check_endpoint

    if spec.startswith("model:") and models is None:
        fail(f"{option}: {spec}: model:NAME needs {models_option} FILE")
    try:
        config = resolve(spec, models, base_url)
        if providers and config.provider not in providers:
            fail(f"{option}: {spec}: this speaks the {' and '.join(providers)} APIs, not {config.provider!r}")
        check_endpoint(config, spec)
    except ModelConfigError as exc:
        # The model helpers name `--agent` (their first user); here the spec came from `option`.
        message = quoted(exc)
        fail(message.replace("--agent", option, 1) if message.startswith("--agent") else f"{option}: {message}")
    return config


# ---- suites, scenarios, folders --------------------------------------------------------------


def load_suite_or_fail(suite: str) -> list[Scenario]:
    from clawarena.spec.loader import SpecError, load_suite

    try:
        return load_suite(suite)
    except SpecError as exc:
        fail(str(exc))


def find_scenario(suite: str, scenario_id: str, what: str = "SCENARIO") -> Scenario:
    """One scenario by id, loading only its task file when the file is named after the task (as
    every bundled one is); the whole suite is loaded only to find an oddly named file, or to
    report an unknown id with the ids it has."""
    from clawarena.spec.loader import SpecError, expand, load_task_file, resolve_suite_dir

    task_id = scenario_id.partition("/")[0]
    try:
        folder = resolve_suite_dir(suite)
        candidates = sorted(folder.rglob(f"{task_id}.yaml")) if task_id and not any(c in task_id for c in "*?[") else []
        for path in candidates:
            for scenario in expand(load_task_file(path), source=str(path)):
                if scenario.id == scenario_id:
                    return scenario
    except SpecError as exc:
        fail(str(exc))
    scenarios = load_suite_or_fail(suite)
    for scenario in scenarios:
        if scenario.id == scenario_id:
            return scenario
    near = [s.id for s in scenarios if s.task.id == task_id] or [s.id for s in scenarios[:3]]
    fail(f"{what}: unknown scenario {scenario_id!r} in suite {suite!r}; e.g. {', '.join(near)} (all: `clawarena tasks list --suite {suite}`)")


def writable_dir(path: Path, flag: str) -> Path:
    """Create `path` if needed and prove it can take files, before any work depends on it."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".clawarena-write-test-"):
            pass
    except OSError as exc:  # a file in the way, no permission, a read-only or full disk
        fail(f"{flag}: cannot write to {path}: {exc.strerror or type(exc).__name__}")
    return path
