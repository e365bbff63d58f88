from clawarena.services import world_factory
from clawarena.services.filler import PROFILES, filler_fixtures
from tests.conformance.harness import world_scenario


def scenario_with(profile: str, seed: int = 0, principals=None):
    s = world_scenario({})
    world = s.task.world.model_copy(update={"filler": s.task.world.filler.model_copy(update={"profile": profile, "seed": seed, "principals": principals or []})})
    task = s.task.model_copy(update={"world": world})
    return s.model_copy(update={"task": task})


def test_filler_is_deterministic_and_seed_dependent():
    a = filler_fixtures(scenario_with("default", 1))
    assert a == filler_fixtures(scenario_with("default", 1))
    assert a != filler_fixtures(scenario_with("default", 2))


def test_profile_sizes_and_principal_choice():
    fx = filler_fixtures(scenario_with("default", principals=["alice"]))
    mails = fx["gmail"]["messages"]
    assert len(mails) == PROFILES["default"]["gmail"] and {m["owner"] for m in mails} == {"alice"}
    assert len({m["subject"] for m in mails}) > 20  # varied, not one template repeated
    assert filler_fixtures(scenario_with("none")) == {}
    long = filler_fixtures(scenario_with("long", principals=["bob"]))
    assert len(long["gmail"]["messages"]) == 3000


def test_filler_world_builds_with_needles_and_the_same_hash_twice():
    s = scenario_with("default", 5, ["alice"])
    w1, w2 = world_factory().build(s, 0), world_factory().build(s, 0)
    assert w1.state_hash() == w2.state_hash()
    assert len(w1.store.select("gmail_messages", {"owner": "alice"})) == 60


def test_default_world_has_the_documented_volumes():
    s = scenario_with("default", 4, ["alice"])
    w = world_factory().build(s, 0)
    count = lambda table, **where: len(w.store.select(table, where or None))  # noqa: E731
    assert count("gmail_messages", owner="alice") == 60
    assert len({e["id"] for e in w.store.select("calendar_events")}) >= 70
    assert count("docs_documents") == 10
    assert count("drive_files") == 50  # 40 files and folders + the 10 documents
    assert len([c for c in w.store.select("slack_channels") if c["name"] != "general"]) == 8
