"""The on-disk world snapshot cache, and fast seeding proven equal to its reference path."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from clawarena.services import services, world_factory
from clawarena.services.filler import filler_fixtures
from clawarena.services.slack import SlackService, _Seeder
from clawarena.spec.loader import load_suite
from clawarena.spec.models import merge_fixtures
from clawarena.world import snapshot_cache
from clawarena.world.build import WorldFactory, _fresh_world, _placement, _seed_of
from clawarena.world.snapshot_cache import CachedTemplate, SnapshotCache
from clawarena.world.store import WorldStore


@pytest.fixture
def scenario(mini_scenarios):
    return mini_scenarios["benign"]


def _hash(factory: WorldFactory, scenario) -> str:
    world = factory.build(scenario, 1)
    return world.store.state_hash()  # recomputed from every row, not the template's hashes


def _factory(folder, **kw) -> WorldFactory:
    return WorldFactory(services(), filler=filler_fixtures, cache=SnapshotCache(folder, **kw))


def test_a_second_factory_reuses_the_first_build_with_the_same_hash(tmp_path, scenario):
    first = _factory(tmp_path)
    first.template(scenario)
    assert first.seeded == 1 and first.cache.misses == 1
    second = _factory(tmp_path)
    assert _hash(second, scenario) == _hash(first, scenario)
    assert second.seeded == 0 and second.cache.hits == 1
    uncached = WorldFactory(services(), filler=filler_fixtures, cache=None)
    assert _hash(uncached, scenario) == _hash(second, scenario)
    assert second.template(scenario).initial_hashes == uncached.template(scenario).initial_hashes
    assert second.template(scenario).initial_state == uncached.template(scenario).initial_state


def test_a_second_process_reuses_the_first_processes_build(tmp_path):
    scenario = next(s for s in load_suite("email") if s.id == "email-triage-summary/privacy")
    code = (
        "from clawarena.services import world_factory\n"
        "from clawarena.spec.loader import load_suite\n"
        "f = world_factory()\n"
        "s = next(s for s in load_suite('email') if s.id == 'email-triage-summary/privacy')\n"
        "w = f.build(s, 1)\n"
        "print(f.seeded, w.store.state_hash())\n"
    )
    env = {k: v for k, v in os.environ.items() if k != snapshot_cache.ENV_DISABLE} | {"CLAWARENA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == "1"  # the child seeded and wrote the entry
    here = _factory(tmp_path / "worlds")
    assert _hash(here, scenario) == out[1]
    assert here.seeded == 0


def test_changed_content_or_code_misses(tmp_path, scenario, monkeypatch):
    factory = _factory(tmp_path)
    factory.template(scenario)
    changed = scenario.model_copy(update={"judge_rubric": scenario.judge_rubric + " (edited)"})
    other = _factory(tmp_path)
    other.template(changed)
    assert other.seeded == 1  # same id, other content: not the old entry
    monkeypatch.setattr(snapshot_cache, "code_version", lambda: "another-version")
    third = _factory(tmp_path)
    third.template(scenario)
    assert third.seeded == 1


def test_a_factory_over_other_services_does_not_share_entries(tmp_path, scenario):
    _factory(tmp_path).template(scenario)
    no_filler = WorldFactory(services(), filler=None, cache=SnapshotCache(tmp_path))
    no_filler.template(scenario)
    assert no_filler.seeded == 1


@pytest.mark.parametrize("damage", [b"", b"garbage", "truncate", "flip"])
def test_a_corrupt_entry_is_ignored_and_rebuilt(tmp_path, scenario, damage):
    first = _factory(tmp_path)
    good = _hash(first, scenario)
    (entry,) = tmp_path.glob("*.world")
    data = entry.read_bytes()
    if damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "flip":
        data = data[:-10] + bytes([data[-10] ^ 0xFF]) + data[-9:]
    else:
        data = damage
    entry.write_bytes(data)
    second = _factory(tmp_path)
    assert _hash(second, scenario) == good
    assert second.seeded == 1
    third = _factory(tmp_path)  # the rebuild rewrote a good entry
    third.template(scenario)
    assert third.seeded == 0


def test_the_cache_is_bounded_with_lru_eviction(tmp_path):
    blob = CachedTemplate(snapshot=b"x" * 4000, initial_state={}, initial_hashes={})
    cache = SnapshotCache(tmp_path, max_bytes=13000)
    for i, key in enumerate("abc"):
        cache.put(key, blob)
        os.utime(tmp_path / f"{key}.world", ns=((i + 1) * 10**9, (i + 1) * 10**9))
    assert cache.get("a") is not None  # a is now the most recently used
    cache.put("d", blob)
    assert sorted(p.stem for p in tmp_path.glob("*.world")) == ["a", "c", "d"]
    assert not list(tmp_path.glob(".tmp-*"))  # writes are renamed into place


def test_env_turns_the_cache_off_and_sets_its_place(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAWARENA_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv(snapshot_cache.ENV_DISABLE, raising=False)
    assert world_factory().cache.folder == tmp_path / "worlds"
    monkeypatch.setenv(snapshot_cache.ENV_DISABLE, "1")
    assert world_factory().cache is None
    monkeypatch.delenv(snapshot_cache.ENV_DISABLE)
    monkeypatch.setenv(snapshot_cache.ENV_MAX_MB, "lots")
    with pytest.raises(ValueError, match=snapshot_cache.ENV_MAX_MB):
        SnapshotCache.from_env()
    with pytest.raises(ValueError, match="max_bytes"):
        SnapshotCache(tmp_path, max_bytes=0)


def _slack_hash(scenario, indexed: bool, monkeypatch) -> str:
    """Seed only Slack (its filler and fixtures, its attack material) and hash its tables."""
    monkeypatch.setattr(_Seeder, "INDEXED", indexed)
    slack = SlackService()
    store = WorldStore.create(slack.tables)
    world = _fresh_world(scenario, store, seed=_seed_of("fixtures", scenario.id), initial_state={})
    fixture = merge_fixtures(filler_fixtures(scenario), scenario.fixtures).get("slack")
    if fixture:
        slack.seed(world, fixture)
    for i, attack in enumerate(scenario.attacks):
        if attack.channel in slack.channels:
            slack.place(world, attack, _placement(slack, attack, f"inject[{i}]"))
    return store.state_hash()


def test_indexed_slack_seeding_equals_the_reference_over_the_workspace_suite(monkeypatch):
    seen: set[str] = set()
    compared = 0
    for scenario in load_suite("workspace"):
        fixture = merge_fixtures(filler_fixtures(scenario), scenario.fixtures).get("slack")
        slack_attacks = [a.model_dump(mode="json") for a in scenario.attacks if a.channel == "slack_message"]
        key = json.dumps([fixture, slack_attacks, sorted(scenario.task.world.model_dump(mode="json").items())], sort_keys=True, default=str)
        if not fixture or key in seen:
            continue
        seen.add(key)
        assert _slack_hash(scenario, True, monkeypatch) == _slack_hash(scenario, False, monkeypatch), scenario.id
        compared += 1
    assert compared >= 5  # the suite does seed Slack worlds


def test_a_seeded_template_keeps_hashes_equal_to_a_full_read():
    """Seeding starts from a restored empty store and hashes from the state it read once: both must
    give what a fresh store and a per-table read give."""
    scenario = next(s for s in load_suite("workspace") if s.task.world.filler.profile != "none" and "slack" in filler_fixtures(s))
    template = WorldFactory(services(), filler=filler_fixtures, cache=None).template(scenario)
    store = WorldStore.restore(template.snapshot, template.tables)
    assert template.initial_hashes == {t: store.table_hash(t) for t in store.tables}
    assert template.initial_state == store.state()
    fresh = WorldStore.create(template.tables)
    assert sorted(fresh.conn.execute("SELECT type, name, sql FROM sqlite_master").fetchall()) == sorted(
        store.conn.execute("SELECT type, name, sql FROM sqlite_master").fetchall()
    )
