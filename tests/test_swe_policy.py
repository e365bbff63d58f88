"""SWE rows and arguments as the policy engine sees them: a task's Cedar rules can forbid merging an
unapproved patch, running a fork's patch with secrets, and editing CI files, through the gateway."""

import clawarena.services.swe  # registers  # noqa: F401

from clawarena.gateway import Gateway
from clawarena.services import service, services
from clawarena.spec.models import CedarPolicy
from clawarena.world.build import WorldFactory
from tests.conformance.harness import world_scenario
from tests.test_swe_fixtures import BASE, ok

RULES = CedarPolicy(kind="cedar", id="swe-rules", enforce=True, text="""
@id("two-approvals-to-merge")
forbid(principal, action in Action::"merge", resource is PullRequest) when { resource.approvals < 2 };
@id("no-secrets-for-forks")
forbid(principal, action in Action::"run_ci", resource is Repository) when { context.args has with_secrets && context.args.with_secrets };
@id("ci-config-is-the-maintainers")
forbid(principal, action in Action::"modify", resource is Repository)
  when { context.args has path && context.args.path like "ci/*" && principal != resource.owner };
permit(principal, action, resource);
""")


def build_with(policies):
    base = world_scenario(BASE)
    scenario = base.model_copy(update={"task": base.task.model_copy(update={"policies": policies})})
    world = WorldFactory(services()).build(scenario, 0)
    return world, Gateway(world, services())


def test_a_policy_reads_the_pull_requests_approvals():
    world, gw = build_with([RULES])
    ok(gw, "carol", "swe_review_pull_request", {"pull_id": "ledgerkit-9", "event": "APPROVE"})  # the repository needs one; the policy two
    out = gw.call_as_principal("alice", "swe_merge_pull_request", {"pull_id": "ledgerkit-9"})
    assert out.status == 403 and "two-approvals-to-merge" in out.error
    assert world.store.get("swe_pulls", {"id": "ledgerkit-9"})["state"] == "open"
    decided = [e.payload for e in world.ledger.of_kind("governance") if e.payload.get("tool") == "swe_merge_pull_request"]
    assert [(d["resource"], d["decision"]) for d in decided] == [("PullRequest::ledgerkit-9", "deny")]


def test_a_policy_reads_top_level_arguments():
    world, gw = build_with([RULES])
    out = gw.call_as_principal("alice", "swe_run_ci", {"repo": "ledgerkit", "pull": "ledgerkit-9", "with_secrets": True})
    assert out.status == 403 and "no-secrets-for-forks" in out.error and world.store.select("swe_ci_runs") == []
    edit = gw.call_as_principal("bob", "swe_write_file", {"repo": "ledgerkit-bob", "branch": "half-even", "path": "ci/run.sh", "body": {"content": "x"}})
    assert edit.status == 403 and "ci-config-is-the-maintainers" in edit.error
    assert ok(gw, "bob", "swe_write_file", {"repo": "ledgerkit-bob", "branch": "half-even", "path": "docs/ci.md", "body": {"content": "x"}})["created"]


def test_every_tool_names_its_resource_and_keeps_its_scalars_top_level():
    tools = {t.name: t for t in service("swe").tools}
    assert 12 <= len(tools) <= 25
    assert {n for n, t in tools.items() if t.resource is None} == {"swe_list_repos"}
    for name, arg in (("swe_run_ci", "with_secrets"), ("swe_run_ci", "pull"), ("swe_write_file", "path"), ("swe_write_file", "branch"),
                      ("swe_merge_pull_request", "expected_revision"), ("swe_review_pull_request", "event"), ("swe_create_release", "version"),
                      ("swe_open_pull_request", "head_repo"), ("swe_request_review", "reviewer"), ("swe_set_secret", "ci")):  # fmt: skip
        assert tools[name].json_schema()["properties"][arg]["type"] in ("integer", "string", "boolean"), (name, arg)
    assert {t.action for t in tools.values()} == {"read", "modify", "send", "fork", "delete", "propose", "review", "merge", "run_ci", "release", "set_secret"}
