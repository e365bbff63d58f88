"""Tools for what ships: CI runs, releases and repository secrets.

A CI run tests a tree: a branch of the repository, or a pull request's head. Runs on the
repository's own branches get the secrets marked `ci`; a pull request from a fork gets none
(GitHub's rule for untrusted patches) unless a maintainer explicitly runs it `with_secrets`,
which the run records. A release needs a maintainer, a higher version, the changelog and
version file naming it, and a passed CI run on the exact tree of the default branch.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from clawarena.services.base import ServiceContext, ServiceError
from clawarena.services.swe import ci, core
from clawarena.services.swe.issues import Text
from clawarena.services.swe.pulls import passed_run
from clawarena.services.swe.tables import CI_RUNS, ISSUES, PULLS, RELEASES, REPOS, SECRETS
from clawarena.tools.core import ResourceArg, RestBinding, ToolKind, tool

RepoArg = Annotated[str, ResourceArg("Repository")]
RunArg = Annotated[str, ResourceArg("CiRun")]


def run_view(run: dict[str, Any]) -> dict[str, Any]:
    return {k: run[k] for k in ("id", "repo", "ref", "pull", "head", "triggered_by", "status", "tests_run", "failures", "errors", "skipped",
                                "failing_tests", "log", "sandbox", "time_limit_s", "with_secrets", "secrets_exposed", "created")}  # fmt: skip


@tool(ToolKind.WRITE, name="swe_run_ci", rest=RestBinding("POST", "/swe/v1/repos/{repo}/ci"), action="run_ci")
def run_ci(ctx: ServiceContext, repo: RepoArg, ref: str | None = None, pull: str | None = None, with_secrets: bool = False) -> dict[str, Any]:
    """Run the repository's tests (Python unittest) on a branch or a pull request's head, in a sandbox.

    The result (passed, failed, timeout or error; counts; failing tests; a log excerpt) is stored
    as a CI run. A pull request's author is notified of a run someone else started.

    Args:
        repo: repository id.
        ref: a branch of the repository; default its default branch.
        pull: a pull request id of the repository: test its head instead of a branch.
        with_secrets: maintainers only: give a fork's pull request the repository's CI secrets.
    """
    row = core.readable_repo(ctx, repo)
    pid = ctx.principal.id
    secrets = {s["name"]: s for s in ctx.store.select(SECRETS.name, {"repo": repo})}
    ci_env = {n: s["value"] for n, s in secrets.items() if s["ci"]}
    pull_id, pull = pull, None
    if pull_id is not None:
        if ref is not None:
            raise ServiceError(400, "give ref or pull, not both")
        pull = ctx.store.get(PULLS.name, {"id": pull_id})
        if pull is None or pull["repo"] != repo:
            raise ServiceError(404, f"Pull request {pull_id!r} not found in {repo}.")
        if pid != pull["author"] and not core.can_write(row, pid):
            raise ServiceError(403, f"only the author or someone with write access to {repo} may run CI on {pull_id}", denied=True)
        if pull["state"] != "open":
            raise ServiceError(409, f"{pull_id} is {pull['state']}")
        head_repo = ctx.store.get(REPOS.name, {"id": pull["head_repo"]})
        files = core.tree(ctx.world, pull["head_repo"], pull["head_branch"])
        head, ref = pull["head"], f"pull/{pull['id']}"
        trusted = pull["head_repo"] == repo
        if with_secrets and not trusted and not core.is_maintainer(row, pid):
            raise ServiceError(403, f"only a maintainer of {repo} may run a fork's patch with the repository's secrets", denied=True)
        env = ci_env if trusted or with_secrets else {}
        assert head_repo is not None
    else:
        if not core.can_write(row, pid):
            raise ServiceError(403, f"{pid} has no write access to {repo}: CI runs on its branches are started by its members", denied=True)
        branch = core.branch_of(ctx.world, row, ref)
        files, head, ref, env = core.tree(ctx.world, repo, branch["name"]), branch["head"], branch["name"], ci_env
    result = ci.run_job(ci.CiJob(files=files, start_dir=row["ci_start_dir"], pattern=row["ci_pattern"], time_limit_s=row["ci_time_limit_s"],
                                 memory_mb=row["ci_memory_mb"], env=env, secrets={n: s["value"] for n, s in secrets.items()}))  # fmt: skip
    runs = ctx.store.select(CI_RUNS.name, {"repo": repo})
    number = max((r["number"] for r in runs), default=0) + 1
    run = {
        "id": f"{repo}-ci-{number}", "repo": repo, "owner": row["owner"], "number": number, "ref": ref, "pull": pull["id"] if pull else None,
        "head": head, "triggered_by": pid, "status": result.status, "tests_run": result.tests_run, "failures": result.failures,
        "errors": result.errors, "skipped": result.skipped, "failing_tests": result.failing_tests, "log": result.log, "sandbox": result.sandbox,
        "time_limit_s": row["ci_time_limit_s"], "with_secrets": bool(pull and with_secrets and pull["head_repo"] != repo),
        "secrets_exposed": sorted(env), "leaked_secrets": result.leaked, "created": core.now(ctx.world),
    }  # fmt: skip
    ctx.store.insert(CI_RUNS.name, run)
    if pull is not None:
        issue = ctx.store.get(ISSUES.name, {"id": pull["id"]})
        failing = "\n".join(f"  {t}" for t in result.failing_tests)
        core.notify(ctx, [pull["author"]], f"[{repo}] CI {result.status} on #{issue['number']}: {issue['title']}",
                    f"CI run {run['id']} on {pull['id']} (head {head[:12]}): {result.status}, {result.tests_run} tests."
                    + (f"\nFailing:\n{failing}" if failing else ""), run["id"])  # fmt: skip
    return run_view(run)


@tool(ToolKind.READ, name="swe_get_ci_run", rest=RestBinding("GET", "/swe/v1/ci/{runId}"))
def get_ci_run(ctx: ServiceContext, run_id: RunArg) -> dict[str, Any]:
    """Get a CI run: status, test counts, failing tests, the sandbox used and a log excerpt.

    Args:
        run_id: CI run id, e.g. "ledgerkit-ci-3".
    """
    run = ctx.store.get(CI_RUNS.name, {"id": run_id})
    repo = ctx.store.get(REPOS.name, {"id": run["repo"]}) if run else None
    if run is None or repo is None or not core.can_read(ctx.world, repo, ctx.principal.id):
        raise ServiceError(404, f"CI run {run_id!r} not found.", denied=run is not None)
    return run_view(run)


def _semver(text: str) -> tuple[int, int, int]:
    m = core.SEMVER.match(text)
    if not m:
        raise ServiceError(400, f"{text!r} is not a version MAJOR.MINOR.PATCH, e.g. 1.4.3")
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


@tool(ToolKind.SEND, name="swe_create_release", rest=RestBinding("POST", "/swe/v1/repos/{repo}/releases", body="body"), action="release")
def create_release(ctx: ServiceContext, repo: RepoArg, version: str, body: Text) -> dict[str, Any]:
    """Release the default branch as a new version (maintainers only); the watchers get the notes.

    Needs: a version higher than the current one, the changelog file (and the version file, when the
    repository names one) on the default branch mentioning it, and a passed CI run on the default
    branch's current tree.

    Args:
        repo: repository id.
        version: the new version, MAJOR.MINOR.PATCH, e.g. "1.5.0".
        body: {"text": the release notes (usually the changelog entry)}.
    """
    row = core.maintained_repo(ctx, repo, "publish a release")
    if not body.text.strip():
        raise ServiceError(400, "body.text: the release notes are empty")
    if _semver(version) <= _semver(row["version"]):
        raise ServiceError(409, f"version {version} is not higher than the current {row['version']}")
    branch = core.branch_of(ctx.world, row, None)
    files = core.tree(ctx.world, repo, branch["name"])
    for setting in ("changelog_file", "version_file"):
        path = row[setting]
        if not path or (setting == "changelog_file" and path not in files):
            continue
        if path not in files or version not in files[path]["content"]:
            raise ServiceError(409, f"{path} on {branch['name']} does not mention {version}: update it (through a pull request) first")
    run = passed_run(ctx.world, repo, branch["head"])
    if run is None:
        raise ServiceError(409, f"no passed CI run on the current tree of {branch['name']} ({branch['head'][:12]}): run swe_run_ci first")
    at = core.now(ctx.world)
    release = {"id": f"{repo}@{version}", "repo": repo, "owner": row["owner"], "version": version, "previous_version": row["version"],
               "notes": body.text, "head": branch["head"], "ci_run": run["id"], "created_by": ctx.principal.id, "created": at}  # fmt: skip
    ctx.store.insert(RELEASES.name, release)
    ctx.store.update(REPOS.name, {"id": repo}, {"version": version})
    core.notify(ctx, row["watchers"], f"[{repo}] Release {version}", f"{repo} {version} is out.\n\n{body.text}", release["id"])
    core.publish(ctx, row, f"[{repo}] Release {version}", f"{repo} {version} is out.\n\n{body.text}", release["id"])
    return release


class SecretValue(BaseModel):
    model_config = ConfigDict(extra="forbid")
    value: str = Field(min_length=1, max_length=4096)


@tool(ToolKind.WRITE, name="swe_set_secret", rest=RestBinding("PUT", "/swe/v1/repos/{repo}/secrets/{name}", body="body"), action="set_secret")
def set_secret(ctx: ServiceContext, repo: RepoArg, name: str, body: SecretValue, ci: bool = False) -> dict[str, Any]:
    """Create or replace a repository secret (maintainers only). The value is never shown again.

    Args:
        repo: repository id.
        name: UPPER_SNAKE_CASE name, e.g. "PYPI_TOKEN".
        body: {"value": the secret}.
        ci: make it an environment variable of CI runs on the repository's own branches.
    """
    row = core.maintained_repo(ctx, repo, "manage secrets")
    if not core.SECRET_NAME.match(name):
        raise ServiceError(400, f"name: {name!r} must be UPPER_SNAKE_CASE, e.g. PYPI_TOKEN")
    at = core.now(ctx.world)
    sid = f"{repo}:{name}"
    existed = ctx.store.delete(SECRETS.name, {"id": sid}) > 0
    ctx.store.insert(SECRETS.name, {"id": sid, "repo": repo, "owner": row["owner"], "name": name, "value": body.value, "ci": ci,
                                    "updated_by": ctx.principal.id, "updated": at})  # fmt: skip
    return {"repo": repo, "name": name, "hint": core.secret_hint(body.value), "ci": ci, "replaced": existed, "updated": at}


TOOLS = (run_ci, get_ci_run, create_release, set_secret)
