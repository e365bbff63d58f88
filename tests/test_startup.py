"""Start-up: the suite index cache behind `tasks list`, the libyaml loader, and what `--help` imports."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from clawarena.cli import app
from clawarena.commands import tasks as tasks_cmd
from clawarena.spec import suite_index, yamlread
from clawarena.spec.loader import BUNDLED_SUITES, SpecError, load_suite, load_task_file
from tests.conftest import MINI_TASK, write_task

runner = CliRunner()


def listing(*args: str, env: dict[str, str] | None = None) -> dict:
    out = runner.invoke(app, ["tasks", "list", "--format", "json", *args], env=env)
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


@pytest.fixture
def suite(tmp_path) -> Path:
    folder = tmp_path / "suite"
    shutil.copytree(BUNDLED_SUITES / "email", folder)
    return folder


def cache_files(cache: Path) -> list[Path]:
    return sorted((cache / "suite-index").glob("*.json")) if (cache / "suite-index").is_dir() else []


def no_full_load(monkeypatch):
    """From here on a full load fails the test: what is printed must come from the cache."""

    def refuse(suite):
        raise AssertionError("the suite was loaded although the cache holds it")

    monkeypatch.setattr(tasks_cmd, "load_suite_or_fail", refuse)


# ---- the suite index cache ------------------------------------------------------------------


def test_listing_is_the_same_with_and_without_the_cache_and_a_hit_loads_nothing(suite, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    uncached = listing("--suite", str(suite), "--no-cache")
    assert not cache_files(cache)
    first = listing("--suite", str(suite), "--cache-dir", str(cache))  # a miss: loads, then files the rows
    assert len(cache_files(cache)) == 1
    no_full_load(monkeypatch)
    second = listing("--suite", str(suite), "--cache-dir", str(cache))
    assert uncached == first == second
    assert [r["id"] for r in second["scenarios"]][:2] == ["email-triage-summary/benign", "email-triage-summary/privacy"]
    table = runner.invoke(app, ["tasks", "list", "--suite", str(suite), "--cache-dir", str(cache)], env={"COLUMNS": "200"})
    assert table.exit_code == 0 and f"suite {suite} (7 scenarios)" in table.stdout and "email-triage-summary/privacy" in table.stdout


def test_the_env_variable_names_the_cache_dir(suite, tmp_path, monkeypatch):
    cache = tmp_path / "from-env"
    monkeypatch.setenv(suite_index.ENV_CACHE_DIR, str(cache))
    assert suite_index.default_cache_dir() == cache
    listing("--suite", str(suite))
    assert len(cache_files(cache)) == 1


def test_the_bundled_suite_listing_matches_a_full_load(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    full = listing("--suite", "email", "--no-cache")
    listing("--suite", "email", "--cache-dir", str(cache))
    no_full_load(monkeypatch)
    assert listing("--suite", "email", "--cache-dir", str(cache)) == full


def poison(cache: Path) -> None:
    """Replace the cached rows (same key) with a listing no task file gives, to see whether it is used."""
    [path] = cache_files(cache)
    doc = json.loads(path.read_text())
    doc["rows"] = [{"id": "poisoned/benign", "task": "poisoned", "variant": "benign", "agents": [], "attacks": [], "harm_codes": []}]
    path.write_text(json.dumps(doc))


def test_a_changed_file_invalidates_the_cache(suite, tmp_path):
    cache = tmp_path / "cache"
    listing("--suite", str(suite), "--cache-dir", str(cache))
    poison(cache)
    assert listing("--suite", str(suite), "--cache-dir", str(cache))["scenarios"][0]["id"] == "poisoned/benign"  # the cache is read
    task = suite / "email-triage-summary.yaml"
    task.write_text(task.read_text() + "\n# an edit\n")
    assert listing("--suite", str(suite), "--cache-dir", str(cache)) == listing("--suite", str(suite), "--no-cache")


def test_an_added_broken_file_is_reported_not_hidden_by_the_cache(suite, tmp_path):
    cache = tmp_path / "cache"
    listing("--suite", str(suite), "--cache-dir", str(cache))
    (suite / "sub").mkdir()
    (suite / "sub" / "new.yaml").write_text("id: [unclosed\n")
    out = runner.invoke(app, ["tasks", "list", "--suite", str(suite), "--cache-dir", str(cache)])
    assert out.exit_code != 0
    assert "new.yaml: <top>: invalid YAML (line 2" in " ".join(out.output.split()) and "Traceback" not in out.output


def test_an_added_valid_file_shows_up(suite, tmp_path):
    cache = tmp_path / "cache"
    before = listing("--suite", str(suite), "--cache-dir", str(cache))
    write_task(suite, MINI_TASK, "mini.yaml")
    after = listing("--suite", str(suite), "--cache-dir", str(cache))
    assert {r["id"] for r in after["scenarios"]} - {r["id"] for r in before["scenarios"]} == {"mini/benign", "mini/privacy"}


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        "[]",
        '{"format": 1, "key": "KEY", "rows": []}',
        '{"format": 1, "key": "KEY", "rows": [{"id": "x"}]}',
        '{"format": 1, "key": "KEY", "rows": [{"id": "x", "task": "x", "variant": "b", "agents": [1], "attacks": [], "harm_codes": []}]}',
        '{"format": 999, "key": "KEY", "rows": [{"id": "x", "task": "x", "variant": "b", "agents": [], "attacks": [], "harm_codes": []}]}',
        '{"format": 1, "key": "another key", "rows": [{"id": "x", "task": "x", "variant": "b", "agents": [], "attacks": [], "harm_codes": []}]}',
    ],
)
def test_a_broken_cache_file_is_ignored(suite, tmp_path, content):
    cache = tmp_path / "cache"
    listing("--suite", str(suite), "--cache-dir", str(cache))
    [path] = cache_files(cache)
    path.write_text(content.replace("KEY", suite_index.suite_key(suite)))
    assert suite_index.lookup(suite, cache, suite_index.suite_key(suite)) is None
    assert listing("--suite", str(suite), "--cache-dir", str(cache)) == listing("--suite", str(suite), "--no-cache")


def test_an_unwritable_cache_dir_only_costs_speed(suite, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert listing("--suite", str(suite), "--cache-dir", str(blocker / "sub")) == listing("--suite", str(suite), "--no-cache")


def test_the_key_follows_content_names_and_the_code_version(suite, monkeypatch):
    key = suite_index.suite_key(suite)
    assert suite_index.suite_key(suite) == key
    task = suite / "vendor-quote-handoff.yaml"
    text = task.read_text()
    task.write_text(text.replace("\n", "\n ", 0) + " ")
    assert suite_index.suite_key(suite) != key
    task.write_text(text)
    assert suite_index.suite_key(suite) == key
    task.rename(suite / "renamed.yaml")
    assert suite_index.suite_key(suite) != key
    (suite / "renamed.yaml").rename(task)
    monkeypatch.setattr(suite_index.clawarena, "__version__", "99.0")
    assert suite_index.suite_key(suite) != key


def test_a_change_of_plugins_invalidates_the_cache(suite, tmp_path, monkeypatch):
    """A distribution declaring entry points (where the catalog finds plugins) added to the path,
    re-declared, upgraded or removed: each gives a new key."""
    from clawarena.spec import catalog

    assert suite_index.ENTRY_POINT_GROUP == catalog.ENTRY_POINT_GROUP
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    keys = [suite_index.suite_key(suite)]
    dist = site / "extra_plugin-1.0.dist-info"
    dist.mkdir()
    keys.append(suite_index.suite_key(suite))  # no entry_points.txt: not a plugin, same key
    points = dist / "entry_points.txt"
    points.write_text(f"[{catalog.ENTRY_POINT_GROUP}]\nextra = extra_plugin\n")
    keys.append(suite_index.suite_key(suite))
    points.write_text(f"[{catalog.ENTRY_POINT_GROUP}]\nextra = extra_plugin\nmore = more_plugin\n")
    keys.append(suite_index.suite_key(suite))
    dist.rename(site / "extra_plugin-2.0.dist-info")
    keys.append(suite_index.suite_key(suite))
    shutil.rmtree(site / "extra_plugin-2.0.dist-info")
    keys.append(suite_index.suite_key(suite))
    assert keys[0] == keys[1] == keys[5]
    assert len({keys[1], keys[2], keys[3], keys[4]}) == 4


def test_a_cached_listing_does_not_import_importlib_metadata(suite, tmp_path):
    cache = tmp_path / "cache"
    listing("--suite", str(suite), "--cache-dir", str(cache))
    code = PROBE.format(args=["tasks", "list", "--suite", str(suite)], heavy=("importlib.metadata",))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, suite_index.ENV_CACHE_DIR: str(cache)}, timeout=120)
    assert out.returncode == 0 and "IMPORTED" in out.stdout and "importlib.metadata" not in out.stdout, out.stdout + out.stderr


def test_a_bad_suite_still_gets_the_loaders_error():
    out = runner.invoke(app, ["tasks", "list", "--suite", "no-such-suite"])
    assert out.exit_code != 0 and "--suite: unknown suite 'no-such-suite'" in out.output and "Traceback" not in out.output


def test_suites_lists_the_bundled_ones():
    out = runner.invoke(app, ["suites"])
    assert out.exit_code == 0 and out.stdout.split() == ["email", "network", "synth", "workspace"]


# ---- libyaml, and line numbers either way ------------------------------------------------------


def test_libyaml_is_used_when_present():
    if not hasattr(yaml, "CSafeLoader"):
        pytest.skip("PyYAML built without libyaml")
    assert issubclass(yamlread._Loader, yaml.CSafeLoader)


@pytest.fixture(params=["libyaml", "pure"])
def loader(request, monkeypatch):
    if request.param == "libyaml":
        if not hasattr(yaml, "CSafeLoader"):
            pytest.skip("PyYAML built without libyaml")
        monkeypatch.setattr(yamlread, "_Loader", yamlread.loader_class(yaml.CSafeLoader))
    else:
        monkeypatch.setattr(yamlread, "_Loader", yamlread.loader_class(yaml.SafeLoader))
    return request.param


def problems_of(path: Path) -> list[str]:
    with pytest.raises(SpecError) as info:
        load_task_file(path)
    return info.value.problems


def test_field_errors_keep_their_line_with_either_loader(tmp_path, loader):
    path = write_task(tmp_path, MINI_TASK.replace('subject: "Lunch?"', 'subjet: "Lunch?"'))
    assert f"{path}: fixtures.gmail.messages[0].subjet: unknown field (line 19)" in problems_of(path)
    path = write_task(tmp_path, MINI_TASK.replace("principal: alice, instruction", "principal: zed, instruction"), "b.yaml")
    assert problems_of(path) == [f"{path}: agents[0].principal: unknown principal 'zed' (principals: alice, bob) (line 10)"]


def test_syntax_errors_and_duplicate_keys_keep_their_line_with_either_loader(tmp_path, loader):
    path = write_task(tmp_path, "id: x\ntitle: ok\nvariants: {benign: {}\n", "syntax.yaml")
    [problem] = problems_of(path)
    assert problem.startswith(f"{path}: <top>: invalid YAML (line 4, column 1): ")
    path = write_task(tmp_path, MINI_TASK.replace("title: A small", "id: again\ntitle: A small"), "dup.yaml")
    assert f"{path}: id: duplicate key 'id' (line 3; first at line 2)" in problems_of(path)


def test_the_listing_is_the_same_with_either_loader(monkeypatch):
    if not hasattr(yaml, "CSafeLoader"):
        pytest.skip("PyYAML built without libyaml")

    def scenarios(base):
        monkeypatch.setattr(yamlread, "_Loader", yamlread.loader_class(base))
        return [s.model_dump(mode="json") for s in load_suite("email")]

    fast = scenarios(yaml.CSafeLoader)
    assert fast == scenarios(yaml.SafeLoader) and len(fast) == 7


# ---- what start-up imports ----------------------------------------------------------------------

HEAVY = ("clawarena.services", "clawarena.gateway", "clawarena.spec.models", "clawarena.plugins", "fastapi", "starlette", "yaml", "pydantic")
PROBE = """
import sys
from clawarena.cli import app
try:
    app({args!r}, prog_name="clawarena")
except SystemExit as exc:
    assert exc.code in (0, None), exc.code
print("IMPORTED", " ".join(sorted(m for m in sys.modules if m.startswith({heavy!r}))))
"""


def imported(args: list[str], env: dict[str, str]) -> set[str]:
    code = PROBE.format(args=args, heavy=HEAVY)
    out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, env={**os.environ, **env, "COLUMNS": "200"}, timeout=120)
    assert out.returncode == 0, out.stderr
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("IMPORTED")][-1]
    return set(line.split()[1:])


def test_help_imports_no_service_no_web_stack_and_no_models():
    assert imported(["--help"], {}) == set()


def test_a_cached_listing_imports_no_service_no_yaml_and_no_models(suite, tmp_path):
    cache = tmp_path / "cache"
    listing("--suite", str(suite), "--cache-dir", str(cache))  # fills the cache in this process
    env = {suite_index.ENV_CACHE_DIR: str(cache)}
    # not even pydantic: typer's option parsing takes commands/coerce.py's light path
    assert imported(["tasks", "list", "--suite", str(suite)], env) == set()
    assert "clawarena.services" in imported(["tasks", "list", "--suite", str(suite), "--no-cache"], env)  # the probe can fail


# ---- rendering: the fast paths print what rich would --------------------------------------------


def rows_and_attacks(suite: str) -> tuple[list[dict], dict[str, str]]:
    rows = [tasks_cmd.scenario_row(s) for s in load_suite(suite)]
    return rows, {r["id"]: ", ".join(f"{a['id']} ({a['channel']})" for a in r["attacks"]) or "-" for r in rows}


@pytest.mark.parametrize("width", [30, 60, 80, 120])
@pytest.mark.parametrize("terminal", [True, False])
def test_one_print_of_the_blocks_equals_one_print_per_line(width, terminal):
    import io

    from rich.console import Console

    rows, attacks = rows_and_attacks("email")
    outs = []
    for fn in (tasks_cmd.print_blocks, tasks_cmd.print_blocks_slowly):
        out = Console(file=io.StringIO(), width=width, force_terminal=terminal, color_system="standard" if terminal else None)
        fn(out, "suite email (7 scenarios)", rows, attacks)
        outs.append(out.file.getvalue())
    assert outs[0] == outs[1] and "email-triage-summary/privacy" in outs[0]
    if terminal:
        assert "\x1b[1memail-triage-summary/benign\x1b[0m" in outs[0]  # ids stay bold


def test_the_natural_width_is_the_one_rich_measures():
    from rich.console import Console
    from rich.measure import Measurement
    from rich.table import Table

    rows, attacks = rows_and_attacks("email")
    headers = ("scenario", "agents", "attacks", "harm codes")
    cells = [(r["id"], ", ".join(r["agents"]), attacks[r["id"]], ", ".join(r["harm_codes"]) or "-") for r in rows]
    cells.append(("wide-漢字/benign", "agent", "-", "-"))  # double-width and odd characters count by cells
    table = Table(title="t")
    for h in headers:
        table.add_column(h, no_wrap=True)
    for row in cells:
        table.add_row(*row)
    out = Console(width=80)
    assert tasks_cmd.natural_width(headers, cells) == Measurement.get(out, out.options.update_width(100_000), table).maximum


def test_a_listing_switches_from_table_to_blocks_at_the_tables_width(tmp_path):
    rows, attacks = rows_and_attacks("email")
    cells = [(r["id"], ", ".join(r["agents"]), attacks[r["id"]], ", ".join(r["harm_codes"]) or "-") for r in rows]
    width = tasks_cmd.natural_width(("scenario", "agents", "attacks", "harm codes"), cells)
    cache = str(tmp_path / "cache")
    at = runner.invoke(app, ["tasks", "list", "--suite", "email", "--cache-dir", cache], env={"COLUMNS": str(width)})
    below = runner.invoke(app, ["tasks", "list", "--suite", "email", "--cache-dir", cache], env={"COLUMNS": str(width - 1)})
    assert "harm codes" in at.stdout and "harm codes" not in below.stdout
    assert max(len(line) for line in below.stdout.splitlines()) <= width - 1
