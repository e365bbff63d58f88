"""`clawarena check` at scale: bounded in-memory world templates, the gates on a process pool, and
one parsed Cedar schema shared by the policy engines of tasks whose principals look alike."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from clawarena.cli import app
from clawarena.runner.selfcheck import check_suite
from clawarena.services import services
from clawarena.services.filler import filler_fixtures
from clawarena.spec.loader import load_suite
from clawarena.spec.policy_schema import build_schema
from clawarena.world import build
from clawarena.world.build import WorldFactory
from clawarena.world.policy import engine_for


def _factory(**kw) -> WorldFactory:
    return WorldFactory(services(), filler=filler_fixtures, cache=None, **kw)


def test_templates_past_the_cap_are_evicted_oldest_first_and_rebuild_to_the_same_hash(mini_scenarios):
    benign, privacy = mini_scenarios["benign"], mini_scenarios["privacy"]
    one = _factory().template(benign).nbytes
    factory = _factory(max_template_bytes=one + 1)  # room for one template
    first = factory.build(benign, 1).store.state_hash()
    factory.build(privacy, 1)
    assert factory.cached_ids() == [privacy.id] and factory.evicted == 1
    assert factory.template_bytes <= factory.max_template_bytes
    again = factory.build(benign, 1).store.state_hash()  # seeded again, from nothing
    assert factory.seeded == 3 and again == first
    assert factory.cached_ids() == [benign.id]


def test_a_used_template_is_kept_over_an_older_unused_one(mini_scenarios):
    base = mini_scenarios["benign"]
    a, b, c = (base.model_copy(update={"id": f"{base.id}-{n}"}) for n in "abc")
    size = max(_factory().template(s).nbytes for s in (a, b, c))
    factory = _factory(max_template_bytes=2 * size + 1)
    factory.template(a), factory.template(b), factory.template(a)  # a is the most recently used
    factory.template(c)
    assert factory.cached_ids() == [a.id, c.id]


def test_a_template_bigger_than_the_cap_is_still_kept_while_newest(mini_scenarios):
    factory = _factory(max_template_bytes=1)
    factory.template(mini_scenarios["benign"])
    factory.template(mini_scenarios["benign"])
    assert factory.seeded == 1 and factory.cached_ids() == [mini_scenarios["benign"].id]


def test_the_template_cap_comes_from_the_environment_and_bad_values_name_it(monkeypatch):
    monkeypatch.setenv(build.ENV_TEMPLATES_MB, "3")
    assert _factory().max_template_bytes == 3 * 1024 * 1024
    monkeypatch.delenv(build.ENV_TEMPLATES_MB)
    assert _factory().max_template_bytes == build.DEFAULT_TEMPLATE_BYTES
    for bad in ("lots", "0", "-2"):
        monkeypatch.setenv(build.ENV_TEMPLATES_MB, bad)
        with pytest.raises(ValueError, match=build.ENV_TEMPLATES_MB):
            _factory()
    with pytest.raises(ValueError, match="max_template_bytes"):
        _factory(max_template_bytes=0)


def test_check_on_two_worker_processes_gives_the_serial_results_in_order():
    scenarios = load_suite("email")
    assert len({s.task.id for s in scenarios}) >= 2  # otherwise there is nothing to spread
    serial = check_suite(scenarios)
    seen: list[str] = []
    parallel = check_suite(scenarios, on_result=lambda r: seen.append(r.scenario_id), workers=2)
    assert [r.scenario_id for r in parallel] == [s.id for s in scenarios]
    assert sorted(seen) == sorted(s.id for s in scenarios)
    assert [(r.scenario_id, r.problems) for r in parallel] == [(r.scenario_id, r.problems) for r in serial]


def test_check_suite_refuses_bad_workers_and_executors(mini_scenarios):
    scenarios = list(mini_scenarios.values())
    with pytest.raises(ValueError, match="--workers"):
        check_suite(scenarios, workers=0)
    other = scenarios[0].model_copy(update={"task": scenarios[0].task.model_copy(update={"id": "another-task"})})
    with pytest.raises(ValueError, match="--executor: unknown executor 'nope'"):
        check_suite([*scenarios, other], workers=2, executor="nope")


def test_the_check_command_takes_workers_and_names_a_bad_value():
    ok = CliRunner().invoke(app, ["check", "--suite", "email", "--workers", "2"], env={"COLUMNS": "200"})
    assert ok.exit_code == 0, ok.output
    assert "all 7 scenario(s) pass the self-check" in ok.stdout
    bad = CliRunner().invoke(app, ["check", "--suite", "email", "--workers", "0"])
    assert bad.exit_code == 2 and "--workers" in bad.output and "Traceback" not in bad.output


def test_policy_engines_share_one_parsed_schema_per_principal_attribute_types():
    scenarios = [s for s in load_suite("network") if s.task.policies]
    a = scenarios[0]
    b = next(s for s in scenarios if s.task.id != a.task.id and _attribute_types(s) == _attribute_types(a))
    assert engine_for(a)._schema is engine_for(b)._schema
    # Another attribute type is another schema (Cedar validates entities against it).
    people = [p.model_copy(update={"attributes": {**p.attributes, "clearance_level": 3}}) for p in a.task.principals]
    other = a.model_copy(update={"task": a.task.model_copy(update={"principals": people})})
    engine = engine_for(other)
    assert engine._schema is not engine_for(a)._schema
    assert "clearance_level" in json.dumps(build_schema(other.task).schema)


def _attribute_types(s) -> list:
    return sorted({(k, type(v).__name__) for p in s.task.principals for k, v in p.attributes.items()})


def _variant_groups(scenarios, tasks: int) -> list:
    by_task: dict[str, list] = {}
    for s in scenarios:
        by_task.setdefault(s.task.id, []).append(s)
    return [g for g in by_task.values() if len(g) >= 2][:tasks]


def test_variants_of_a_task_share_one_filler_generation_with_unchanged_worlds(monkeypatch):
    from clawarena.services import filler

    scenarios = load_suite("workspace")
    # Every scenario: the shared fixtures equal a generation from nothing, and a copy is handed out.
    for s in scenarios:
        shared = filler.filler_fixtures(s)
        assert shared == filler.generate_filler(s), s.id
        assert shared is not filler.filler_fixtures(s)
    calls: list[str] = []
    real = filler.generate_filler
    monkeypatch.setattr(filler, "generate_filler", lambda s: calls.append(s.id) or real(s))
    filler._SHARED.clear()
    groups = _variant_groups([s for s in scenarios if s.task.world.filler.profile != "none"], 2)
    sharing = WorldFactory(services(), filler=filler.filler_fixtures, cache=None)
    unshared = WorldFactory(services(), filler=real, cache=None)
    for group in groups:
        for s in group:
            assert sharing.build(s, 0).store.state_hash() == unshared.build(s, 0).store.state_hash(), s.id
    assert calls == [g[0].id for g in groups]  # one generation per task, not per variant


def test_the_check_command_names_a_bad_template_cap_without_a_traceback():
    result = CliRunner().invoke(app, ["check", "--suite", "email"], env={build.ENV_TEMPLATES_MB: "lots"})
    assert result.exit_code != 0 and build.ENV_TEMPLATES_MB in result.output and "Traceback" not in result.output
