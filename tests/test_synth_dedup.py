"""The near-duplicate gate (issue 14): a candidate close to an indexed task in instructions or in
fixtures is rejected with a diagnostic naming the component at fault."""

import pytest
from pydantic import ValidationError

from clawarena.spec.loader import load_suite
from clawarena.spec.models import TaskSpec
from clawarena.synth.dedup import DedupThresholds, SimilarityIndex, check_candidate, fingerprint, fixture_set, jaccard

BUNDLED = ("workspace", "network", "email")
# Dana's launch email and Bob's summary: the instruction of the email suite's triage task
TRIAGE = "email-triage-summary"


def _tasks(suite: str) -> dict[str, TaskSpec]:
    tasks: dict[str, TaskSpec] = {}
    for scenario in load_suite(suite):
        tasks.setdefault(scenario.task.id, scenario.task)
    return tasks


@pytest.fixture(scope="module")
def email() -> dict[str, TaskSpec]:
    return _tasks("email")


@pytest.fixture(scope="module")
def workspace() -> dict[str, TaskSpec]:
    return _tasks("workspace")


def _with_instruction(task: TaskSpec, instruction: str) -> TaskSpec:
    agents = [task.agents[0].model_copy(update={"instruction": instruction}), *task.agents[1:]]
    return task.model_copy(update={"agents": agents})


def _reworded(task: TaskSpec) -> TaskSpec:
    text = task.agents[0].instruction
    # three words changed, nothing else
    for old, new in (("Go through", "Look through"), ("short", "brief"), ("Don't change", "Don't touch")):
        assert old in text
        text = text.replace(old, new, 1)
    return _with_instruction(task, text)


REWRITTEN = (
    "Please reconcile the quarterly expense reports against the finance ledger, flag every "
    "receipt above two hundred euros, and prepare a spreadsheet of the discrepancies for the audit."
)


def test_every_workspace_task_passes_against_its_suite_without_itself(workspace):
    index = SimilarityIndex.from_tasks(workspace.values(), "workspace")
    for task_id, task in workspace.items():
        verdict = check_candidate(task, index.without(task_id))
        assert verdict.passed, (task_id, verdict)
        assert verdict.nearest != task_id and verdict.diagnostics == []


def test_the_task_itself_is_a_duplicate_on_both_components(email):
    verdict = check_candidate(email[TRIAGE], SimilarityIndex.from_tasks(email.values()))
    assert not verdict.passed
    assert verdict.nearest == TRIAGE
    assert (verdict.prompt_score, verdict.fixtures_score) == (1.0, 1.0)
    assert verdict.tripped == ["prompt", "fixtures"]


def test_lightly_reworded_instruction_is_caught_as_prompt(email):
    index = SimilarityIndex.from_tasks(email.values())
    candidate = _reworded(email[TRIAGE])
    assert candidate.agents[0].instruction != email[TRIAGE].agents[0].instruction
    verdict = check_candidate(candidate, index)
    assert not verdict.passed and "prompt" in verdict.tripped
    assert 0.4 <= verdict.prompt_score < 1.0
    # the same reworded prompt over a different world trips the prompt threshold alone
    alone = check_candidate(candidate.model_copy(update={"fixtures": {}}), index)
    assert alone.tripped == ["prompt"] and alone.nearest == TRIAGE
    [diagnostic] = alone.diagnostics
    assert diagnostic.component == "prompt"
    assert f"'{TRIAGE}'" in diagnostic.message and "instruction similarity" in diagnostic.message


def test_rewritten_instruction_over_the_same_fixtures_is_caught_as_fixtures(email):
    index = SimilarityIndex.from_tasks(email.values())
    verdict = check_candidate(_with_instruction(email[TRIAGE], REWRITTEN), index)
    assert not verdict.passed
    assert verdict.tripped == ["fixtures"]
    assert verdict.nearest == TRIAGE and verdict.fixtures_score == 1.0 and verdict.prompt_score < 0.1
    [diagnostic] = verdict.diagnostics
    assert diagnostic.component == "fixtures" and f"'{TRIAGE}'" in diagnostic.message


def test_renamed_row_ids_do_not_hide_a_copied_world(email):
    task = email[TRIAGE]
    gmail = dict(task.fixtures["gmail"])
    gmail["messages"] = [{**row, "id": f"renamed-{i}"} for i, row in enumerate(gmail["messages"])]
    renamed = task.model_copy(update={"fixtures": {**task.fixtures, "gmail": gmail}})
    assert fixture_set(renamed) == fixture_set(task)
    # and a changed body is seen: the fingerprint is not only table names
    gmail["messages"] = [{**gmail["messages"][0], "body": REWRITTEN}, *gmail["messages"][1:]]
    changed = task.model_copy(update={"fixtures": {**task.fixtures, "gmail": gmail}})
    assert 0.5 < jaccard(fixture_set(changed), fixture_set(task)) < 1.0


def test_scores_are_deterministic_and_independent_of_index_order(email, workspace):
    tasks = [*email.values(), *workspace.values()]
    forward = SimilarityIndex.from_tasks(tasks)
    backward = SimilarityIndex.from_tasks(reversed(tasks))
    candidate = _reworded(email[TRIAGE])
    assert fingerprint(candidate) == fingerprint(candidate.model_copy(deep=True))
    assert check_candidate(candidate, forward) == check_candidate(candidate, backward)
    for task in workspace.values():
        assert check_candidate(task, forward.without(task.id)) == check_candidate(task, backward.without(task.id))


def test_no_two_distinct_bundled_tasks_trip_the_default_thresholds():
    # the defaults were set by measuring these suites (docs/synthesis.md): every nearest
    # neighbour, across all three suites, stays under both thresholds
    index = SimilarityIndex.from_suites(BUNDLED)
    assert len(index) > 150
    defaults = DedupThresholds()
    for entry in index.entries:
        verdict = check_candidate(entry, index.without(entry.task_id))
        assert verdict.passed, (entry.task_id, verdict)
        assert verdict.prompt_score < defaults.prompt and verdict.fixtures_score < defaults.fixtures


def test_thresholds_are_options_and_bad_values_name_the_field(email):
    index = SimilarityIndex.from_tasks(email.values()).without(TRIAGE)
    loose = check_candidate(email[TRIAGE], index)
    assert loose.passed
    # a threshold at or below the measured score trips: the option is what decides
    strict = check_candidate(email[TRIAGE], index, DedupThresholds(fixtures=loose.fixtures_score))
    assert strict.tripped == ["fixtures"]
    with pytest.raises(ValidationError, match="prompt"):
        DedupThresholds(prompt=0)
    with pytest.raises(ValidationError, match="fixtures"):
        DedupThresholds(fixtures=1.5)


def test_an_empty_index_passes_everything(email):
    verdict = check_candidate(email[TRIAGE], SimilarityIndex([]))
    assert verdict.passed and verdict.nearest is None and verdict.tripped == []


def test_a_world_moved_into_a_variant_is_still_the_same_world(email):
    task = email[TRIAGE]
    variants = {name: v.model_copy(update={"fixtures": task.fixtures}) if name == "benign" else v for name, v in task.variants.items()}
    moved = task.model_copy(update={"fixtures": {}, "variants": variants})
    assert fixture_set(moved) == fixture_set(task)
    verdict = check_candidate(_with_instruction(moved, REWRITTEN), SimilarityIndex.from_tasks(email.values()))
    assert verdict.tripped == ["fixtures"]
