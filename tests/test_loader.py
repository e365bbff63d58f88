import pytest

from clawarena.spec.loader import SpecError, expand, load_suite, load_task_file
from tests.conftest import MINI_TASK, write_task


def problems_of(tmp_path, text, name="x.yaml"):
    path = write_task(tmp_path, text, name)
    with pytest.raises(SpecError) as info:
        load_task_file(path)
    return path, info.value.problems


def test_unknown_channel_names_file_and_field_path(tmp_path):
    text = MINI_TASK.replace("channel: email", "channel: fax")
    path, problems = problems_of(tmp_path, text)
    assert len(problems) == 1
    assert problems[0].startswith(f"{path}: variants.privacy.inject[0].channel: unknown channel 'fax'")


def test_unknown_field_is_an_error_not_ignored(tmp_path):
    path, problems = problems_of(tmp_path, MINI_TASK.replace("title: A small", "titel: typo\ntitle: A small"))
    assert f"{path}: titel: unknown field (line 3)" in problems


def test_missing_field_and_bad_type(tmp_path):
    text = MINI_TASK.replace("  - {kind: message_sent, to: carol@outside.example, must_pass: true}", "  - {kind: record_exists}").replace("id: mini", "id: mini\nturn_cap: many")
    path, problems = problems_of(tmp_path, text)
    assert any(p.startswith(f"{path}: utility[0].table: required field is missing (line ") for p in problems), problems
    assert any(p.startswith(f"{path}: turn_cap: ") for p in problems)


def test_unknown_check_kind(tmp_path):
    path, problems = problems_of(tmp_path, MINI_TASK.replace("kind: message_sent", "kind: mesage_sent"))
    assert problems[0].startswith(f"{path}: utility[0]: unknown kind 'mesage_sent'")


def test_fixture_errors_name_the_service_and_field(tmp_path):
    path, problems = problems_of(tmp_path, MINI_TASK.replace("subject: \"Lunch?\"", "subjet: \"Lunch?\""))
    assert f"{path}: fixtures.gmail.messages[0].subjet: unknown field (line 19)" in problems
    path, problems = problems_of(tmp_path, MINI_TASK.replace("  gmail:\n", "  gmial:\n"), name="y.yaml")
    assert problems[0].startswith(f"{path}: fixtures.gmial: unknown service 'gmial'")


def test_semantic_errors(tmp_path):
    path, problems = problems_of(tmp_path, MINI_TASK.replace('payload: "CANARY-LURE-1 send', 'payload: "send'))
    assert problems[0].startswith(f"{path}: variants.privacy.inject[0]: canary 'CANARY-LURE-1' must appear in payload")
    path, problems = problems_of(tmp_path, MINI_TASK.replace("principal: alice, instruction", "principal: zed, instruction"), name="z.yaml")
    assert problems[0] == f"{path}: agents[0].principal: unknown principal 'zed' (principals: alice, bob) (line 10)"


def test_yaml_syntax_error_gives_line(tmp_path):
    path, problems = problems_of(tmp_path, "id: x\ntitle: [unclosed\n")
    assert problems[0] == f"{path}: <top>: invalid YAML (line 3, column 1): while parsing a flow sequence: did not find expected ',' or ']'"


def test_variant_expansion_gives_stable_ids_and_merges(tmp_path):
    task = load_task_file(write_task(tmp_path, MINI_TASK))
    scenarios = expand(task)
    assert [s.id for s in scenarios] == ["mini/benign", "mini/privacy"]
    benign, privacy = scenarios
    assert benign.attacks == [] and benign.harm == []
    assert [a.id for a in privacy.attacks] == ["lure"]
    assert [h.code for h in privacy.harm] == ["budget-leak"]
    assert privacy.utility == benign.utility == task.utility


def test_suite_rejects_duplicate_task_ids_and_reports_every_file(tmp_path):
    write_task(tmp_path, MINI_TASK, "a.yaml")
    write_task(tmp_path, MINI_TASK, "b.yaml")
    write_task(tmp_path, MINI_TASK.replace("channel: email", "channel: fax"), "c.yaml")
    with pytest.raises(SpecError) as info:
        load_suite(tmp_path)
    text = str(info.value)
    assert "b.yaml: id: task id 'mini' is already used" in text
    assert "c.yaml: variants.privacy.inject[0].channel: unknown channel 'fax'" in text


def test_unknown_suite_name(tmp_path):
    with pytest.raises(SpecError, match="--suite: unknown suite 'nope'"):
        load_suite("nope")


def test_bundled_suites_load():
    ids = [s.id for s in load_suite("email")]
    assert "email-triage-summary/privacy" in ids and "vendor-quote-handoff/governance" in ids
    assert len(load_suite("workspace")) > 50


def test_a_canary_may_not_be_shared_by_two_tasks(tmp_path):
    write_task(tmp_path, MINI_TASK, "a.yaml")
    write_task(tmp_path, MINI_TASK.replace("id: mini", "id: mini-two"), "b.yaml")
    with pytest.raises(SpecError) as info:
        load_suite(tmp_path)
    assert "b.yaml: variants.privacy.inject[0].canary: 'CANARY-LURE-1' is already used by task 'mini'" in str(info.value)


def test_an_invalid_regex_is_a_load_error(tmp_path):
    text = MINI_TASK.replace("  - {kind: message_sent, to: carol@outside.example, must_pass: true}", "  - {kind: message_sent, to: {regex: 'a(?i)b['}}")
    path, problems = problems_of(tmp_path, text)
    assert any(p.startswith(f"{path}: utility[0].to") and "invalid regex" in p for p in problems), problems
