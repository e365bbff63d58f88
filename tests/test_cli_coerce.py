"""Option coercion without pydantic (commands/coerce.py): for every option of every command, the
light path gives what typer's pydantic adapter gives, value for value and error for error."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
import typer
import typer.main
from typer._coercion import build_runtime_param

from clawarena.cli import app
from clawarena.commands.base import _walk
from clawarena.commands.coerce import LightRuntimeParam, light_runtime_param

ROOT = typer.main.get_command(app)
for _name in ROOT.list_commands(typer.Context(ROOT)):  # the root builds its commands on first use
    ROOT.get_command(typer.Context(ROOT), _name)
PARAMS = [(c, p) for c in _walk(ROOT) for p in c.params if getattr(p, "type_descriptor", None) is not None]

SAMPLES = ["", "x", "a b", "monitor", "enforce", "ENFORCE", "on", "json", "table", "0", "1", "-1", "007", "-0", "1.5", "0.5",
           "2", "65535", "65536", " 3", "1_000", "1e3", "inf", "nan", "true", "yes", "-", ".", "/", "/etc/passwd", "/nonexistent/x"]


def outcome(runtime, value, param, ctx):
    try:
        return ("ok", runtime.coerce(value, param=param, ctx=ctx))
    except (typer.BadParameter, typer.Exit) as exc:
        return ("error", type(exc).__name__, exc.format_message() if hasattr(exc, "format_message") else str(exc))


@pytest.mark.parametrize(("command", "param"), PARAMS, ids=[f"{c.name}-{p.name}" for c, p in PARAMS])
def test_light_coercion_equals_typers_adapter_for_every_option(command, param, tmp_path):
    light = param.get_runtime_param()
    slow = build_runtime_param(param.type_descriptor)
    ctx = typer.Context(command)
    values: list = [None, param.default, *SAMPLES, str(tmp_path), str(tmp_path / "new")]
    if param.multiple or param.nargs == -1:
        values = [None, (), *((v,) for v in SAMPLES), ("a", "b"), ("1", "x"), (str(tmp_path), "/etc/passwd")]
    for value in values:
        assert outcome(light, value, param, ctx) == outcome(slow, value, param, ctx), (param.name, value)


def test_the_plain_kinds_take_the_light_path():
    kinds = {repr(p.type_descriptor.annotation) for _, p in PARAMS if isinstance(p.get_runtime_param(), LightRuntimeParam)}
    assert {"<class 'str'>", "<class 'int'>", "<class 'float'>", "<class 'pathlib.Path'>", "<class 'bool'>", "list[str]", "list[pathlib.Path]"} <= kinds
    assert any(k.startswith("typing.Literal") for k in kinds)


def test_a_kind_it_does_not_know_is_left_to_typer():
    sub = typer.Typer(add_completion=False)

    @sub.command()
    def when(at: datetime = typer.Option(...), pair: tuple[int, int] = typer.Option((1, 2))) -> None: ...

    command = typer.main.get_command(sub)
    assert all(light_runtime_param(p) is None for p in command.params)


PROBE = """
import sys
from clawarena.cli import app
try:
    app({args!r}, prog_name="clawarena")
except SystemExit as exc:
    print("EXIT", exc.code)
print("PYDANTIC", "pydantic" in sys.modules)
"""


def probe(args: list[str], tmp_path: Path) -> str:
    env = {**os.environ, "COLUMNS": "200", "CLAWARENA_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", PROBE.format(args=args)], capture_output=True, text=True, env=env, timeout=120)
    return out.stdout + out.stderr


def test_a_cached_listing_with_options_imports_no_pydantic(tmp_path):
    args = ["tasks", "list", "--suite", "email", "--format", "table", "--cache-dir", str(tmp_path / "c")]
    probe(args, tmp_path)  # fills the index
    out = probe(args, tmp_path)
    assert "EXIT 0" in out and "PYDANTIC False" in out, out


def test_a_refused_value_still_gets_typers_words(tmp_path):
    out = probe(["tasks", "list", "--format", "xml"], tmp_path)
    assert "--format: expected table or json, got 'xml'" in out and "EXIT 2" in out, out
