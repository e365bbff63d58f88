"""The SWE workspace's tables, fixture format and policy resource types, declared once.

A repository belongs to one principal (`owner`): a maintainer's project, or a
contributor's fork of it. Its file tree lives in `swe_files`, one row per file
or symlink per branch, so snapshots, the state hash and the diff cover every
byte of source. A branch is a named snapshot of the tree (`swe_branches`) that
remembers the tree it diverged from (`origin`, path -> blob sha), which is what
a pull request's diff and merge are computed against. Issues and pull requests
share one numbering per repository (`swe_issues`, as on GitHub); a pull
request's extra state and its changed files are in `swe_pulls` and
`swe_pull_files`. CI runs, releases and repository secrets have their own rows.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from clawarena.services.base import ResourceType
from clawarena.spec.base import Strict
from clawarena.spec.refs import PrincipalId, PrincipalOrAddress
from clawarena.world.store import Column, TableSpec

REPOS = TableSpec(
    name="swe_repos",
    columns=(
        Column("id", nullable=False),  # e.g. "ledgerkit", a fork "ledgerkit-bob"
        Column("owner", nullable=False),  # principal id
        Column("description", nullable=False),
        Column("visibility", nullable=False),  # public | private
        Column("sensitivity", nullable=False),  # public (public repo) | confidential (private repo)
        Column("fork_of"),  # the upstream repository id of a fork
        Column("default_branch", nullable=False),
        Column("maintainers", "json", nullable=False),  # principal ids that may merge, release, manage secrets (owner included)
        Column("collaborators", "json", nullable=False),  # principal ids with write access (push branches, binding reviews)
        Column("readers", "json", nullable=False),  # extra principal ids that may read a private repository
        Column("watchers", "json", nullable=False),  # principal ids that get release notes
        Column("version", nullable=False),  # the last released version, MAJOR.MINOR.PATCH
        Column("required_approvals", "integer", nullable=False),
        Column("require_ci", "bool", nullable=False),
        Column("protect_default_branch", "bool", nullable=False),
        Column("dismiss_stale_reviews", "bool", nullable=False),
        Column("changelog_file"),
        Column("version_file"),
        Column("ci_start_dir", nullable=False),
        Column("ci_pattern", nullable=False),
        Column("ci_time_limit_s", "integer", nullable=False),
        Column("ci_memory_mb", "integer", nullable=False),
        Column("created", nullable=False),
    ),
)

BRANCHES = TableSpec(
    name="swe_branches",
    columns=(
        Column("id", nullable=False),  # "<repo>:<branch>"
        Column("repo", nullable=False),
        Column("name", nullable=False),
        Column("head", nullable=False),  # sha1 of the tree: changes with every write
        Column("origin", "json"),  # {path: "mode:sha"} of the tree this branch diverged from; null on a root default branch
        Column("created", nullable=False),
    ),
    indexes=(("repo",),),
)

FILES = TableSpec(
    name="swe_files",
    columns=(
        Column("id", nullable=False),  # "<repo>:<branch>:<path>"
        Column("repo", nullable=False),
        Column("branch", nullable=False),
        Column("path", nullable=False),
        Column("owner", nullable=False),  # the repository owner
        Column("kind", nullable=False),  # file | symlink
        Column("mode", nullable=False),  # 100644 | 100755 | 120000
        Column("content", nullable=False),  # a symlink's content is empty
        Column("target"),  # a symlink's target, as written
        Column("sha", nullable=False),  # git blob sha1 of the content (or of the target)
        Column("size", "integer", nullable=False),
        Column("info_type", nullable=False),  # source | secret
        Column("sensitivity", nullable=False),
    ),
    indexes=(("repo", "branch"),),
)

ISSUES = TableSpec(
    name="swe_issues",
    columns=(
        Column("id", nullable=False),  # "<repo>-<number>": issues and pull requests share the numbers
        Column("repo", nullable=False),
        Column("number", "integer", nullable=False),
        Column("kind", nullable=False),  # issue | pull
        Column("owner", nullable=False),  # the repository owner (the issue tracker's data owner)
        Column("author", nullable=False),  # a principal id, or an outside address
        Column("title", nullable=False),
        Column("body", nullable=False),
        Column("state", nullable=False),  # open | closed | merged (pull requests)
        Column("labels", "json", nullable=False),
        Column("assignees", "json", nullable=False),
        Column("visibility", nullable=False),  # public | security (embargoed: maintainers, the author, assignees)
        Column("info_type", nullable=False),  # issue | security_report | pull_request
        Column("sensitivity", nullable=False),
        Column("created", nullable=False),
        Column("updated", nullable=False),
    ),
    indexes=(("repo", "number"),),
)

COMMENTS = TableSpec(
    name="swe_comments",
    columns=(
        Column("id", nullable=False),  # "<issue>-c<n>"
        Column("issue", nullable=False),
        Column("repo", nullable=False),
        Column("author", nullable=False),
        Column("body", nullable=False),
        Column("created", nullable=False),
    ),
    indexes=(("issue",),),
)

PULLS = TableSpec(
    name="swe_pulls",
    columns=(
        Column("id", nullable=False),  # the pull request's issue id
        Column("repo", nullable=False),  # the base repository
        Column("author", nullable=False),  # principal id: the patch is theirs
        Column("base_owner", nullable=False),  # the base repository's owner
        Column("head_repo", nullable=False),
        Column("head_branch", nullable=False),
        Column("base_branch", nullable=False),
        Column("head", nullable=False),  # the head branch's tree sha when the files were last computed
        Column("revision", "integer", nullable=False),  # +1 whenever the changed files change
        Column("state", nullable=False),  # open | closed | merged (kept equal to the issue row's)
        Column("requested_reviewers", "json", nullable=False),
        Column("approvals", "integer", nullable=False),  # binding approvals of the current revision
        Column("merged_by"),
        Column("merged_at"),
        Column("created", nullable=False),
    ),
)

PULL_FILES = TableSpec(
    name="swe_pull_files",
    columns=(
        Column("id", nullable=False),  # "<pull>:<path>"
        Column("pull", nullable=False),
        Column("path", nullable=False),
        Column("status", nullable=False),  # added | modified | deleted
        Column("kind", nullable=False),  # what the head has (file | symlink); the base's for a deletion
        Column("mode", nullable=False),
        Column("base_content"),
        Column("head_content"),
        Column("base_target"),
        Column("head_target"),
        Column("conflict", "bool", nullable=False),  # the base branch changed this path since the head diverged
    ),
    indexes=(("pull",),),
)

REVIEWS = TableSpec(
    name="swe_reviews",
    columns=(
        Column("id", nullable=False),  # "<pull>-r<n>"
        Column("pull", nullable=False),
        Column("repo", nullable=False),
        Column("reviewer", nullable=False),
        Column("state", nullable=False),  # APPROVED | CHANGES_REQUESTED | COMMENTED
        Column("body", nullable=False),
        Column("revision", "integer", nullable=False),  # the pull request revision reviewed
        Column("binding", "bool", nullable=False),  # the reviewer has write access to the base repository
        Column("dismissed", "bool", nullable=False),  # stale: the patch changed after this review
        Column("created", nullable=False),
    ),
    indexes=(("pull",),),
)

CI_RUNS = TableSpec(
    name="swe_ci_runs",
    columns=(
        Column("id", nullable=False),  # "<repo>-ci-<n>"
        Column("repo", nullable=False),
        Column("owner", nullable=False),
        Column("number", "integer", nullable=False),
        Column("ref", nullable=False),  # the branch run, or "pull/<id>"
        Column("pull"),
        Column("head", nullable=False),  # the tree sha that was tested
        Column("triggered_by", nullable=False),
        Column("status", nullable=False),  # passed | failed | timeout | error
        Column("tests_run", "integer", nullable=False),
        Column("failures", "integer", nullable=False),
        Column("errors", "integer", nullable=False),
        Column("skipped", "integer", nullable=False),
        Column("failing_tests", "json", nullable=False),
        Column("log", nullable=False),  # an excerpt: timings and temporary paths stripped, secret values masked
        Column("sandbox", nullable=False),  # bubblewrap | unshare | none (what this machine gave the job)
        Column("time_limit_s", "integer", nullable=False),
        Column("with_secrets", "bool", nullable=False),  # a maintainer ran a fork's patch with the repository's secrets
        Column("secrets_exposed", "json", nullable=False),  # names of secrets in the job's environment
        Column("leaked_secrets", "json", nullable=False),  # names whose value (plain, base64, hex, reversed) the job printed
        Column("created", nullable=False),
    ),
    indexes=(("repo",),),
)

RELEASES = TableSpec(
    name="swe_releases",
    columns=(
        Column("id", nullable=False),  # "<repo>@<version>"
        Column("repo", nullable=False),
        Column("owner", nullable=False),
        Column("version", nullable=False),
        Column("previous_version", nullable=False),
        Column("notes", nullable=False),
        Column("head", nullable=False),  # the released tree of the default branch
        Column("ci_run"),  # the passing run on that tree
        Column("created_by", nullable=False),
        Column("created", nullable=False),
    ),
    indexes=(("repo",),),
)

SECRETS = TableSpec(
    name="swe_secrets",
    columns=(
        Column("id", nullable=False),  # "<repo>:<NAME>"
        Column("repo", nullable=False),
        Column("owner", nullable=False),
        Column("name", nullable=False),
        Column("value", nullable=False),  # never returned by a tool: only a hint of its last characters
        Column("ci", "bool", nullable=False),  # an environment variable of CI runs on the repository's own branches
        Column("updated_by", nullable=False),
        Column("updated", nullable=False),
    ),
)

TABLES = (REPOS, BRANCHES, FILES, ISSUES, COMMENTS, PULLS, PULL_FILES, REVIEWS, CI_RUNS, RELEASES, SECRETS)

RESOURCES = (
    ResourceType("Repository", REPOS.name, owner="owner", info_type="repository", sensitivity_column="sensitivity",
                 attributes=("visibility", "fork_of", "default_branch", "required_approvals", "require_ci", "protect_default_branch")),
    ResourceType("File", FILES.name, owner="owner", info_type_column="info_type", sensitivity_column="sensitivity",
                 attributes=("repo", "branch", "path", "kind")),
    ResourceType("Issue", ISSUES.name, owner="owner", info_type_column="info_type", sensitivity_column="sensitivity",
                 attributes=("repo", "kind", "author", "state", "visibility")),
    ResourceType("PullRequest", PULLS.name, owner="author", info_type="patch", sensitivity="internal",
                 attributes=("repo", "base_owner", "head_repo", "state", "approvals", "revision")),
    ResourceType("Review", REVIEWS.name, owner="reviewer", info_type="review", sensitivity="internal",
                 attributes=("pull", "repo", "state", "binding", "dismissed")),
    ResourceType("CiRun", CI_RUNS.name, owner="owner", info_type="ci_log", sensitivity="internal",
                 attributes=("repo", "pull", "status", "sandbox", "with_secrets")),
    ResourceType("Release", RELEASES.name, owner="owner", info_type="release", sensitivity="public", attributes=("repo", "version")),
    ResourceType("Secret", SECRETS.name, owner="owner", info_type="secret", sensitivity="restricted", attributes=("repo", "name", "ci")),
)  # fmt: skip

# ---- fixtures -----------------------------------------------------------------------------------
RepoId = str
Semver = str


class FileFixture(Strict):
    """A file (or a symlink) of a repository's tree."""

    path: str = Field(description="repository-relative path, e.g. 'src/ledgerkit/rounding.py'")
    content: str = ""
    executable: bool = Field(default=False, description="mode 100755 instead of 100644")
    symlink: str | None = Field(default=None, description="makes this path a symlink to this target (content is ignored)")
    info_type: Literal["source", "secret"] | None = Field(default=None, description="default: secret for .env, *.pem, *.key, id_rsa..., else source")


class BranchFixture(Strict):
    """A branch besides the default one: a copy of `source` with `files` written and `delete` removed."""

    name: str
    source: str | None = Field(default=None, description="the branch it starts from; default the repository's default branch")
    files: list[FileFixture] = []
    delete: list[str] = []


class SecretFixture(Strict):
    """A repository secret (a CI token, a deploy key)."""

    name: str = Field(description="UPPER_SNAKE_CASE, e.g. PYPI_TOKEN")
    value: str = Field(min_length=1)
    ci: bool = Field(default=False, description="an environment variable of CI runs on the repository's own branches")


class RepoSettings(Strict):
    """Merge and release rules of a repository."""

    required_approvals: int = Field(default=0, ge=0, le=5, description="approving reviews needed to merge, by others than the author with write access")
    require_ci: bool = Field(default=False, description="merging needs a passed CI run on the pull request's current head")
    protect_default_branch: bool | None = Field(default=None, description="the default branch changes only by merging pull requests; "
                                                "default true, false for a fork (protection is not copied to forks)")
    dismiss_stale_reviews: bool = Field(default=True, description="a change to the patch dismisses earlier reviews")
    changelog_file: str | None = Field(default="CHANGELOG.md", description="a release needs its version mentioned here (when the file exists)")
    version_file: str | None = Field(default=None, description="a release needs its version written here, e.g. 'src/ledgerkit/__init__.py'")


class CiSettings(Strict):
    """How CI runs the repository's tests: `python3 -m unittest discover -s start_dir -p pattern`."""

    start_dir: str = "."
    pattern: str = "test*.py"
    time_limit_s: int = Field(default=20, ge=1, le=300, description="wall-clock limit; a run past it ends as `timeout`")
    memory_mb: int = Field(default=512, ge=64, le=8192, description="address-space limit of the test process")


class RepoFixture(Strict):
    """A repository: a maintainer's project, or (with `fork_of`) a contributor's fork of one."""

    id: RepoId = Field(description="lower-case id, e.g. 'ledgerkit'; a fork is usually '<upstream>-<owner>'")
    owner: PrincipalId
    description: str = ""
    visibility: Literal["public", "private"] = "public"
    fork_of: RepoId | None = Field(default=None, description="upstream repository id: the fork starts as a copy of its default branch")
    default_branch: str = "main"
    maintainers: list[PrincipalId] = Field(default=[], description="besides the owner: may merge, release and manage secrets")
    collaborators: list[PrincipalId] = Field(default=[], description="write access: push branches, binding reviews, triage")
    readers: list[PrincipalId] = Field(default=[], description="may read a private repository")
    watchers: list[PrincipalId] = Field(default=[], description="get release notes")
    version: Semver = "0.1.0"
    settings: RepoSettings = RepoSettings()
    ci: CiSettings = CiSettings()
    files: list[FileFixture] = Field(default=[], description="the default branch's tree (for a fork: changes on top of the upstream's)")
    branches: list[BranchFixture] = []
    secrets: list[SecretFixture] = []


class CommentFixture(Strict):
    author: PrincipalOrAddress
    body: str


class IssueFixture(Strict):
    """An issue; `security: true` makes it an embargoed report (maintainers, the author and assignees see it)."""

    repo: RepoId
    number: int | None = Field(default=None, ge=1, description="default: the next free number of the repository")
    author: PrincipalOrAddress
    title: str
    body: str = ""
    state: Literal["open", "closed"] = "open"
    labels: list[str] = []
    assignees: list[PrincipalId] = []
    security: bool = False
    comments: list[CommentFixture] = []


class ReviewFixture(Strict):
    reviewer: PrincipalId
    state: Literal["approve", "request_changes", "comment"]
    body: str = ""


class PullFixture(Strict):
    """A pull request from `head_repo`'s `head_branch` into `repo`'s default branch."""

    repo: RepoId
    number: int | None = Field(default=None, ge=1)
    author: PrincipalId
    title: str
    body: str = ""
    head_repo: RepoId
    head_branch: str
    reviewers: list[PrincipalId] = Field(default=[], description="requested reviewers")
    reviews: list[ReviewFixture] = []
    comments: list[CommentFixture] = []
    state: Literal["open", "closed"] = "open"


class CiRunFixture(Strict):
    """A past CI run (not executed at seeding): e.g. the passing run a release needs."""

    repo: RepoId
    ref: str | None = Field(default=None, description="a branch of the repository (default: its default branch)")
    pull: int | None = Field(default=None, description="the number of a pull request of the repository (instead of ref)")
    status: Literal["passed", "failed", "timeout", "error"] = "passed"
    tests_run: int = Field(default=0, ge=0)
    failing_tests: list[str] = []
    log: str = ""
    triggered_by: PrincipalId | None = Field(default=None, description="default: the repository owner")


class ReleaseFixture(Strict):
    repo: RepoId
    version: Semver
    notes: str = ""


class SweFixtures(Strict):
    """Fixtures of the `swe` service."""

    repos: list[RepoFixture] = []
    issues: list[IssueFixture] = []
    pulls: list[PullFixture] = []
    ci_runs: list[CiRunFixture] = []
    releases: list[ReleaseFixture] = []
