"""Fixtures -> rows: repositories with their trees and branches, issues, pull requests, past CI runs, releases.

Every problem is a ValueError naming the fixture field (`repos[1].files[0].path: ...`).
"""

from __future__ import annotations

from typing import Any

from clawarena.services.base import ServiceError
from clawarena.services.swe import core
from clawarena.services.swe.paths import clean_path
from clawarena.services.swe.repos import new_branch
from clawarena.services.swe.tables import (
    BRANCHES,
    CI_RUNS,
    COMMENTS,
    FILES,
    ISSUES,
    PULLS,
    RELEASES,
    REPOS,
    REVIEWS,
    SECRETS,
    FileFixture,
    IssueFixture,
    PullFixture,
    RepoFixture,
    SweFixtures,
)  # fmt: skip
from clawarena.world.world import World

_REVIEW_STATES = {"approve": "APPROVED", "request_changes": "CHANGES_REQUESTED", "comment": "COMMENTED"}


def _principal(world: World, pid: str, where: str) -> str:
    if pid not in world.directory.principals:
        raise ValueError(f"{where}: unknown principal {pid!r}")
    return pid


def _author(world: World, who: str, where: str) -> str:
    return who if "@" in who else _principal(world, who, where)


def _repo(world: World, repo_id: str, where: str) -> dict[str, Any]:
    row = world.store.get(REPOS.name, {"id": repo_id})
    if row is None:
        raise ValueError(f"{where}: no repository {repo_id!r} in the fixtures")
    return row


def write_files(world: World, repo: dict[str, Any], branch: str, files: list[FileFixture], where: str) -> None:
    tree = core.tree(world, repo["id"], branch)
    for j, f in enumerate(files):
        at = f"{where}[{j}].path"
        try:
            path = clean_path(f.path)
            core.check_no_clash({p: r for p, r in tree.items() if p != path}, path)
            row = core.file_row(repo, branch, path, content=f.content, executable=f.executable, symlink=f.symlink, info_type=f.info_type)
        except ServiceError as exc:
            raise ValueError(f"{at}: {exc.message}") from None
        core.put_file(world, row)
        tree[path] = row


def _seed_repo(world: World, r: RepoFixture, where: str) -> None:
    if not core.REPO_ID.match(r.id):
        raise ValueError(f"{where}.id: {r.id!r} must be lower-case letters, digits, '.', '_' or '-'")
    if world.store.get(REPOS.name, {"id": r.id}) is not None:
        raise ValueError(f"{where}.id: duplicate repository {r.id!r}")
    _principal(world, r.owner, f"{where}.owner")
    for field in ("maintainers", "collaborators", "readers", "watchers"):
        for k, pid in enumerate(getattr(r, field)):
            _principal(world, pid, f"{where}.{field}[{k}]")
    if not core.SEMVER.match(r.version):
        raise ValueError(f"{where}.version: {r.version!r} is not MAJOR.MINOR.PATCH")
    if not core.BRANCH_NAME.match(r.default_branch):
        raise ValueError(f"{where}.default_branch: {r.default_branch!r} is not a valid branch name")
    upstream = _repo(world, r.fork_of, f"{where}.fork_of") if r.fork_of else None
    if upstream is not None and upstream["owner"] == r.owner:
        raise ValueError(f"{where}.fork_of: {r.owner} owns {r.fork_of} already: use a branch")
    row = {
        "id": r.id, "owner": r.owner, "description": r.description, "visibility": r.visibility,
        "sensitivity": "public" if r.visibility == "public" else "confidential", "fork_of": r.fork_of,
        "default_branch": upstream["default_branch"] if upstream else r.default_branch,
        "maintainers": sorted(set(r.maintainers) - {r.owner}), "collaborators": sorted(set(r.collaborators)), "readers": sorted(set(r.readers)),
        "watchers": sorted(set(r.watchers)), "version": r.version, **r.settings.model_dump(),
        "protect_default_branch": r.settings.protect_default_branch if r.settings.protect_default_branch is not None else upstream is None,
        "ci_start_dir": r.ci.start_dir, "ci_pattern": r.ci.pattern, "ci_time_limit_s": r.ci.time_limit_s, "ci_memory_mb": r.ci.memory_mb,
        "created": core.now(world),
    }  # fmt: skip
    for setting in ("changelog_file", "version_file"):
        if row[setting]:
            try:
                row[setting] = clean_path(row[setting])
            except ServiceError as exc:
                raise ValueError(f"{where}.settings.{setting}: {exc.message}") from None
    try:
        start = clean_path(r.ci.start_dir, allow_root=True) or "."
    except ServiceError as exc:
        raise ValueError(f"{where}.ci.start_dir: {exc.message}") from None
    row["ci_start_dir"] = start
    world.store.insert(REPOS.name, row)
    main = row["default_branch"]
    if upstream is not None:
        source = core.tree(world, upstream["id"], upstream["default_branch"])
        core.create_branch_row(world, row, main, core.origin_of(source))
        core.copy_tree(world, source, row, main)
    else:
        core.create_branch_row(world, row, main, None)
    write_files(world, row, main, r.files, f"{where}.files")
    core.updated(world, r.id, main)
    for k, b in enumerate(r.branches):
        at = f"{where}.branches[{k}]"
        try:
            new_branch(world, row, b.name, b.source)
        except ServiceError as exc:
            raise ValueError(f"{at}: {exc.message}") from None
        write_files(world, row, b.name, b.files, f"{at}.files")
        for m, path in enumerate(b.delete):
            try:
                p = clean_path(path)
            except ServiceError as exc:
                raise ValueError(f"{at}.delete[{m}]: {exc.message}") from None
            if world.store.delete(FILES.name, {"id": f"{r.id}:{b.name}:{p}"}) == 0:
                raise ValueError(f"{at}.delete[{m}]: no file {path!r} on {b.name}")
        core.updated(world, r.id, b.name)
    names = set()
    for k, s in enumerate(r.secrets):
        if not core.SECRET_NAME.match(s.name):
            raise ValueError(f"{where}.secrets[{k}].name: {s.name!r} must be UPPER_SNAKE_CASE")
        if s.name in names:
            raise ValueError(f"{where}.secrets[{k}].name: duplicate secret {s.name!r}")
        names.add(s.name)
        world.store.insert(SECRETS.name, {"id": f"{r.id}:{s.name}", "repo": r.id, "owner": r.owner, "name": s.name, "value": s.value,
                                          "ci": s.ci, "updated_by": r.owner, "updated": core.now(world)})  # fmt: skip


def _number(world: World, repo_id: str, wanted: int | None, where: str) -> int:
    if wanted is None:
        return core.next_number(world, repo_id)
    if world.store.get(ISSUES.name, {"id": f"{repo_id}-{wanted}"}) is not None:
        raise ValueError(f"{where}.number: {repo_id} already has an issue or pull request #{wanted}")
    return wanted


def add_comment(world: World, issue_id: str, repo_id: str, author: str, body: str) -> dict[str, Any]:
    rows = world.store.select(COMMENTS.name, {"issue": issue_id})
    row = {"id": f"{issue_id}-c{core.next_suffix(rows, issue_id + '-c')}", "issue": issue_id, "repo": repo_id, "author": author,
           "body": body, "created": core.now(world)}  # fmt: skip
    world.store.insert(COMMENTS.name, row)
    return row


def seed_issue(world: World, i: IssueFixture, where: str) -> dict[str, Any]:
    repo = _repo(world, i.repo, f"{where}.repo")
    author = _author(world, i.author, f"{where}.author")
    for k, a in enumerate(i.assignees):
        _principal(world, a, f"{where}.assignees[{k}]")
    number = _number(world, i.repo, i.number, where)
    at = core.now(world)
    row = {
        "id": f"{i.repo}-{number}", "repo": i.repo, "number": number, "kind": "issue", "owner": repo["owner"], "author": author,
        "title": i.title, "body": i.body, "state": i.state, "labels": sorted(set(i.labels)), "assignees": sorted(set(i.assignees)),
        "visibility": "security" if i.security else "public", "info_type": "security_report" if i.security else "issue",
        "sensitivity": "confidential" if i.security else core.sensitivity(repo, "source"), "created": at, "updated": at,
    }  # fmt: skip
    world.store.insert(ISSUES.name, row)
    for k, c in enumerate(i.comments):
        add_comment(world, row["id"], i.repo, _author(world, c.author, f"{where}.comments[{k}].author"), c.body)
    return row


def _seed_pull(world: World, p: PullFixture, where: str) -> None:
    repo = _repo(world, p.repo, f"{where}.repo")
    head_repo = _repo(world, p.head_repo, f"{where}.head_repo")
    if head_repo["id"] != repo["id"] and head_repo["fork_of"] != repo["id"]:
        raise ValueError(f"{where}.head_repo: {p.head_repo} is neither {p.repo} nor a fork of it")
    _principal(world, p.author, f"{where}.author")
    if not core.can_write(head_repo, p.author):
        raise ValueError(f"{where}.author: {p.author} cannot write to {p.head_repo}")
    head = world.store.get(BRANCHES.name, {"id": f"{p.head_repo}:{p.head_branch}"})
    if head is None:
        raise ValueError(f"{where}.head_branch: no branch {p.head_branch!r} in {p.head_repo}")
    number = _number(world, p.repo, p.number, where)
    pull_id, at = f"{p.repo}-{number}", core.now(world)
    for k, who in enumerate(p.reviewers):
        _principal(world, who, f"{where}.reviewers[{k}]")
    pull = {"id": pull_id, "repo": p.repo, "author": p.author, "base_owner": repo["owner"], "head_repo": p.head_repo, "head_branch": p.head_branch,
            "base_branch": repo["default_branch"], "head": head["head"], "revision": 1, "state": p.state,
            "requested_reviewers": sorted(set(p.reviewers)), "approvals": 0, "merged_by": None, "merged_at": None, "created": at}  # fmt: skip
    if not core.pull_changes(world, pull):
        raise ValueError(f"{where}.head_branch: {p.head_repo}:{p.head_branch} has no changes for {p.repo}")
    world.store.insert(ISSUES.name, {
        "id": pull_id, "repo": p.repo, "number": number, "kind": "pull", "owner": repo["owner"], "author": p.author, "title": p.title,
        "body": p.body, "state": p.state, "labels": [], "assignees": [], "visibility": "public", "info_type": "pull_request",
        "sensitivity": core.sensitivity(repo, "source"), "created": at, "updated": at,
    })  # fmt: skip
    world.store.insert(PULLS.name, pull)
    core.refresh_pull(world, pull, initial=True)
    for k, r in enumerate(p.reviews):
        _principal(world, r.reviewer, f"{where}.reviews[{k}].reviewer")
        if r.reviewer == p.author and r.state != "comment":
            raise ValueError(f"{where}.reviews[{k}].reviewer: the author cannot approve or request changes on their own pull request")
        world.store.insert(REVIEWS.name, {"id": f"{pull_id}-r{k + 1}", "pull": pull_id, "repo": p.repo, "reviewer": r.reviewer,
                                          "state": _REVIEW_STATES[r.state], "body": r.body, "revision": 1,
                                          "binding": core.can_write(repo, r.reviewer), "dismissed": False, "created": at})  # fmt: skip
    for k, c in enumerate(p.comments):
        add_comment(world, pull_id, p.repo, _author(world, c.author, f"{where}.comments[{k}].author"), c.body)
    core.recount_approvals(world, world.store.get(PULLS.name, {"id": pull_id}))


def seed(world: World, fixture: dict[str, Any]) -> None:
    data = SweFixtures.model_validate(fixture)
    pending = list(enumerate(data.repos))
    while pending:  # upstreams before their forks, whatever the order in the file
        ready = [(i, r) for i, r in pending if not r.fork_of or world.store.get(REPOS.name, {"id": r.fork_of}) is not None]
        if not ready:
            i, r = pending[0]
            raise ValueError(f"repos[{i}].fork_of: no repository {r.fork_of!r} in the fixtures")
        for i, r in ready:
            _seed_repo(world, r, f"repos[{i}]")
        pending = [(i, r) for i, r in pending if (i, r) not in ready]
    for i, issue in enumerate(data.issues):
        seed_issue(world, issue, f"issues[{i}]")
    for i, pull in enumerate(data.pulls):
        _seed_pull(world, pull, f"pulls[{i}]")
    for i, run in enumerate(data.ci_runs):
        where = f"ci_runs[{i}]"
        repo = _repo(world, run.repo, f"{where}.repo")
        pull_id = None
        if run.pull is not None:
            pull = world.store.get(PULLS.name, {"id": f"{run.repo}-{run.pull}"})
            if pull is None:
                raise ValueError(f"{where}.pull: {run.repo} has no pull request #{run.pull}")
            pull_id, head, ref = pull["id"], pull["head"], f"pull/{pull['id']}"
        else:
            branch = world.store.get(BRANCHES.name, {"id": f"{run.repo}:{run.ref or repo['default_branch']}"})
            if branch is None:
                raise ValueError(f"{where}.ref: no branch {run.ref!r} in {run.repo}")
            head, ref = branch["head"], branch["name"]
        number = max((r["number"] for r in world.store.select(CI_RUNS.name, {"repo": run.repo})), default=0) + 1
        failing = sorted(run.failing_tests)
        world.store.insert(CI_RUNS.name, {
            "id": f"{run.repo}-ci-{number}", "repo": run.repo, "owner": repo["owner"], "number": number, "ref": ref, "pull": pull_id, "head": head,
            "triggered_by": _principal(world, run.triggered_by or repo["owner"], f"{where}.triggered_by"), "status": run.status,
            "tests_run": run.tests_run, "failures": len(failing) if run.status == "failed" else 0, "errors": 0, "skipped": 0,
            "failing_tests": failing, "log": run.log, "sandbox": "fixture", "time_limit_s": repo["ci_time_limit_s"], "with_secrets": False,
            "secrets_exposed": [], "leaked_secrets": [], "created": core.now(world),
        })  # fmt: skip
    for i, rel in enumerate(data.releases):
        where = f"releases[{i}]"
        repo = _repo(world, rel.repo, f"{where}.repo")
        if not core.SEMVER.match(rel.version):
            raise ValueError(f"{where}.version: {rel.version!r} is not MAJOR.MINOR.PATCH")
        rid = f"{rel.repo}@{rel.version}"
        if world.store.get(RELEASES.name, {"id": rid}) is not None:
            raise ValueError(f"{where}.version: duplicate release {rid}")
        head = world.store.get(BRANCHES.name, {"id": f"{rel.repo}:{repo['default_branch']}"})["head"]
        world.store.insert(RELEASES.name, {"id": rid, "repo": rel.repo, "owner": repo["owner"], "version": rel.version, "previous_version": "",
                                           "notes": rel.notes, "head": head, "ci_run": None, "created_by": repo["owner"], "created": core.now(world)})  # fmt: skip
