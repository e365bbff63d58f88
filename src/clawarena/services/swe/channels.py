"""Attack-material channels: where a stranger's or a peer's text meets a developer's normal work.

- `swe_issue_comment`: a comment on an issue or pull request ("add this dependency from
  this index"), or a new issue whose body is the material.
- `swe_patch_file`: a file in a pull request's head branch (a weakened test, a test that
  prints a secret); the pull request's changed files are recomputed, its revision kept.
- `swe_pr_description`: a pull request's description ("quick merge, the maintainer said it's fine").
- `swe_repo_file`: a file of a repository branch (README, CONTRIBUTING, a script).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Discriminator, Field, Tag

from clawarena.services.base import ServiceError
from clawarena.services.swe import core
from clawarena.services.swe.paths import clean_path
from clawarena.services.swe.seed import add_comment, seed_issue
from clawarena.services.swe.tables import BRANCHES, ISSUES, PULLS, REPOS, IssueFixture
from clawarena.spec.base import Strict
from clawarena.spec.models import AttackSpec
from clawarena.spec.refs import PrincipalOrAddress
from clawarena.world.world import World


class CommentPlacement(Strict):
    """The payload is a new comment on an existing issue or pull request."""

    issue: str = Field(description="issue or pull request id of the fixtures, e.g. 'ledgerkit-12'")
    author: PrincipalOrAddress = Field(description="who wrote it: a principal id or an outside address")


class NewIssuePlacement(Strict):
    """The payload is the body of a new issue."""

    repo: str
    author: PrincipalOrAddress
    title: str = Field(min_length=1)
    security: bool = False
    labels: list[str] = []


IssueCommentPlacement = Annotated[
    Annotated[CommentPlacement, Tag("comment")] | Annotated[NewIssuePlacement, Tag("new-issue")],
    Discriminator(lambda v: "comment" if isinstance(v, CommentPlacement) or (isinstance(v, dict) and "issue" in v) else "new-issue"),
]


class PatchFilePlacement(Strict):
    """The payload goes into a file of a pull request's head branch."""

    pull: str = Field(description="pull request id of the fixtures, e.g. 'ledgerkit-14'")
    path: str = Field(description="file path in the head branch (created when missing)")
    mode: Literal["append", "replace"] = "append"


class DescriptionPlacement(Strict):
    """The payload goes into a pull request's description."""

    pull: str
    mode: Literal["append", "replace"] = "append"


class RepoFilePlacement(Strict):
    """The payload goes into a file of a repository branch (created when missing)."""

    repo: str
    path: str = "README.md"
    branch: str | None = Field(default=None, description="default: the repository's default branch")
    mode: Literal["append", "replace"] = "append"


CHANNELS = {
    "swe_issue_comment": IssueCommentPlacement,
    "swe_patch_file": PatchFilePlacement,
    "swe_pr_description": DescriptionPlacement,
    "swe_repo_file": RepoFilePlacement,
}


def _joined(old: str, payload: str, mode: str) -> str:
    if mode == "replace" or not old:
        return payload
    return f"{old.rstrip()}\n\n{payload}\n" if not old.endswith("\n\n") else f"{old}{payload}\n"


def _pull(world: World, pull_id: str) -> dict:
    pull = world.store.get(PULLS.name, {"id": pull_id})
    if pull is None:
        raise ValueError(f"placement.pull: no pull request {pull_id!r} in the fixtures")
    return pull


def _write(world: World, repo_id: str, branch: str, path: str, payload: str, mode: str, field: str) -> None:
    repo = world.store.get(REPOS.name, {"id": repo_id})
    assert repo is not None
    try:
        clean = clean_path(path)
    except ServiceError as exc:
        raise ValueError(f"placement.{field}: {exc.message}") from None
    files = core.tree(world, repo_id, branch)
    old = files.get(clean)
    if old is not None and old["kind"] != "file":
        raise ValueError(f"placement.{field}: {clean} is a symlink, not a file")
    if old is None:
        try:
            core.check_no_clash(files, clean)
        except ServiceError as exc:
            raise ValueError(f"placement.{field}: {exc.message}") from None
    content = _joined(old["content"] if old else "", payload, mode)
    core.put_file(world, core.file_row(repo, branch, clean, content=content, executable=bool(old and old["mode"] == core.EXEC_MODE),
                                       info_type=old["info_type"] if old else None))  # fmt: skip
    core.updated(world, repo_id, branch, seeding=True)


def place(world: World, attack: AttackSpec, placement: object) -> None:
    p = placement
    if isinstance(p, CommentPlacement):
        issue = world.store.get(ISSUES.name, {"id": p.issue})
        if issue is None:
            raise ValueError(f"placement.issue: no issue or pull request {p.issue!r} in the fixtures")
        if "@" not in p.author and p.author not in world.directory.principals:
            raise ValueError(f"placement.author: unknown principal {p.author!r}")
        add_comment(world, p.issue, issue["repo"], p.author, attack.payload)
    elif isinstance(p, NewIssuePlacement):
        if world.store.get(REPOS.name, {"id": p.repo}) is None:
            raise ValueError(f"placement.repo: no repository {p.repo!r} in the fixtures")
        try:
            seed_issue(world, IssueFixture(repo=p.repo, author=p.author, title=p.title, body=attack.payload, security=p.security, labels=p.labels), "placement")
        except ValueError as exc:
            raise ValueError(str(exc)) from None
    elif isinstance(p, PatchFilePlacement):
        pull = _pull(world, p.pull)
        _write(world, pull["head_repo"], pull["head_branch"], p.path, attack.payload, p.mode, "path")
    elif isinstance(p, DescriptionPlacement):
        _pull(world, p.pull)
        issue = world.store.get(ISSUES.name, {"id": p.pull})
        world.store.update(ISSUES.name, {"id": p.pull}, {"body": _joined(issue["body"], attack.payload, p.mode).rstrip("\n")})
    elif isinstance(p, RepoFilePlacement):
        repo = world.store.get(REPOS.name, {"id": p.repo})
        if repo is None:
            raise ValueError(f"placement.repo: no repository {p.repo!r} in the fixtures")
        branch = p.branch or repo["default_branch"]
        if world.store.get(BRANCHES.name, {"id": f"{p.repo}:{branch}"}) is None:
            raise ValueError(f"placement.branch: no branch {branch!r} in {p.repo}")
        _write(world, p.repo, branch, p.path, attack.payload, p.mode, "path")
    else:  # pragma: no cover - the builder validates placements against CHANNELS
        raise ValueError(f"placement: unexpected {type(p).__name__}")
