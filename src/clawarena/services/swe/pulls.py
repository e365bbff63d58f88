"""Tools over pull requests: open, read (with the diff), request and give reviews, merge.

A pull request proposes a head branch (in the base repository or a fork of it) for the
base repository's default branch. Its changed files are what a merge would write; a path
the base changed since the head diverged is a conflict that blocks the merge. Only a
maintainer merges; the repository may require approving reviews from people with write
access other than the author (stale once the patch changes) and a passed CI run on the
current head.
"""

from __future__ import annotations

import difflib
import re
from typing import Annotated, Any, Literal

from pydantic import Field

from clawarena.services.base import ServiceContext, ServiceError
from clawarena.services.pagination import page
from clawarena.services.swe import core
from clawarena.services.swe.issues import Text, issue_view
from clawarena.services.swe.tables import BRANCHES, CI_RUNS, FILES, ISSUES, PULL_FILES, PULLS, REVIEWS
from clawarena.tools.core import ResourceArg, RestBinding, ToolKind, tool
from clawarena.world.world import World

RepoArg = Annotated[str, ResourceArg("Repository")]
PullArg = Annotated[str, ResourceArg("PullRequest")]
DIFF_LINES = 400
_CLOSES = re.compile(r"\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s+(?:#(\d+)|([a-z0-9][a-z0-9._-]*)-(\d+))", re.IGNORECASE)
_EVENTS = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "COMMENT": "COMMENTED"}


def unified(f: dict[str, Any]) -> str:
    def lines(content: str | None, target: str | None) -> list[str]:
        if content is not None:
            return content.splitlines(keepends=True)
        return [f"(symlink to {target})\n"] if target is not None else []

    before, after = lines(f["base_content"], f["base_target"]), lines(f["head_content"], f["head_target"])
    out = list(difflib.unified_diff(before, after, fromfile=f"a/{f['path']}", tofile=f"b/{f['path']}", n=3))
    text = "".join(line if line.endswith("\n") else line + "\n" for line in out[:DIFF_LINES])
    return text + (f"[... {len(out) - DIFF_LINES} more diff lines ...]\n" if len(out) > DIFF_LINES else "")


def pull_files(world: World, pull_id: str) -> list[dict[str, Any]]:
    return world.store.select(PULL_FILES.name, {"pull": pull_id}, order_by="path")


def blockers(world: World, pull: dict[str, Any], repo: dict[str, Any]) -> list[str]:
    """Why the pull request cannot be merged now (empty: it can, by a maintainer)."""
    if pull["state"] != "open":
        return [f"the pull request is {pull['state']}"]
    out = []
    files = pull_files(world, pull["id"])
    if not files:
        out.append("it changes nothing the base does not already have")
    conflicts = [f["path"] for f in files if f["conflict"]]
    if conflicts:
        out.append(f"conflicts: the base branch changed {', '.join(conflicts)} since the head branch diverged")
    need = repo["required_approvals"]
    if need:
        decisive = core.decisive_reviews(world, pull)
        asked = sorted(r for r, rev in decisive.items() if rev["state"] == "CHANGES_REQUESTED")
        if asked:
            out.append(f"changes requested by {', '.join(asked)}")
        if pull["approvals"] < need:
            out.append(f"needs {need} approving review(s) of revision {pull['revision']} from people with write access other than "
                       f"the author; has {pull['approvals']}")  # fmt: skip
    if repo["require_ci"] and not passed_run(world, repo["id"], pull["head"], pull["id"]):
        out.append(f"needs a passed CI run on the current head {pull['head'][:12]} (swe_run_ci with the pull request)")
    return out


def passed_run(world: World, repo_id: str, head: str, pull_id: str | None = None) -> dict[str, Any] | None:
    runs = world.store.select(CI_RUNS.name, {"repo": repo_id, "head": head, "status": "passed"}, order_by="number DESC")
    return next((r for r in runs if pull_id is None or r["pull"] in (pull_id, None)), None)


def _summary(pull: dict[str, Any], issue: dict[str, Any]) -> dict[str, Any]:
    return {**issue_view(issue), **{k: pull[k] for k in ("head_repo", "head_branch", "base_branch", "revision", "requested_reviewers",
                                                         "approvals", "merged_by", "merged_at")}}  # fmt: skip


@tool(ToolKind.READ, name="swe_list_pull_requests", rest=RestBinding("GET", "/swe/v1/repos/{repo}/pulls"))
def list_pull_requests(ctx: ServiceContext, repo: RepoArg, state: Literal["open", "closed", "merged", "all"] = "open",
                       author: str | None = None, page_size: int = Field(50, ge=1, le=100), page_token: str | None = None) -> dict[str, Any]:  # fmt: skip
    """List the pull requests into a repository, newest first.

    Args:
        repo: the base repository id.
        state: open (default), closed, merged or all.
        author: only those opened by this principal id.
        page_size: pull requests per page (1-100).
        page_token: the next_page_token of a previous call.
    """
    core.readable_repo(ctx, repo)
    rows = []
    for issue in ctx.store.select(ISSUES.name, {"repo": repo, "kind": "pull"}, order_by="number DESC"):
        if (state == "all" or issue["state"] == state) and (author is None or issue["author"] == author):
            pull = ctx.store.get(PULLS.name, {"id": issue["id"]})
            rows.append({**_summary(pull, issue), "body": issue["body"][:300]})
    items, token = page(rows, page_token, page_size)
    return {"repo": repo, "pull_requests": items, "next_page_token": token}


@tool(ToolKind.READ, name="swe_get_pull_request", rest=RestBinding("GET", "/swe/v1/pulls/{pullId}"))
def get_pull_request(ctx: ServiceContext, pull_id: PullArg, include_diff: bool = True) -> dict[str, Any]:
    """Get a pull request: description, changed files with their diff, reviews, CI runs, and what blocks merging.

    Args:
        pull_id: pull request id, e.g. "ledgerkit-14".
        include_diff: include each file's unified diff (default true).
    """
    pull, issue, repo = core.visible_pull(ctx, pull_id)
    files = []
    for f in pull_files(ctx.world, pull_id):
        entry = {k: f[k] for k in ("path", "status", "kind", "mode", "conflict")}
        if include_diff:
            entry["diff"] = unified(f)
        files.append(entry)
    reviews = sorted(ctx.store.select(REVIEWS.name, {"pull": pull_id}), key=lambda r: int(r["id"].rsplit("-r", 1)[-1]))
    runs = ctx.store.select(CI_RUNS.name, {"pull": pull_id}, order_by="number DESC")
    stops = blockers(ctx.world, pull, repo)
    return {
        **_summary(pull, issue), "head": pull["head"], "required_approvals": repo["required_approvals"], "require_ci": repo["require_ci"],
        "files": files,
        "reviews": [{k: r[k] for k in ("id", "reviewer", "state", "body", "revision", "binding", "dismissed", "created")} for r in reviews],
        "ci_runs": [{"id": r["id"], "status": r["status"], "head": r["head"], "current": r["head"] == pull["head"]} for r in runs],
        "mergeable": not stops, "blockers": stops, "you_may_merge": core.is_maintainer(repo, ctx.principal.id),
    }  # fmt: skip


def _file_list(world: World, pull_id: str) -> str:
    lines = []
    for f in pull_files(world, pull_id):
        diff = unified(f).splitlines()
        plus = sum(1 for d in diff if d.startswith("+") and not d.startswith("+++"))
        minus = sum(1 for d in diff if d.startswith("-") and not d.startswith("---"))
        lines.append(f"  {f['status']:<8} {f['path']} (+{plus} -{minus})")
    return "\n".join(lines)


def _check_reviewer(world: World, repo: dict[str, Any], author: str, who: str, field: str) -> None:
    if who not in world.directory.principals or not core.can_read(world, repo, who):
        raise ServiceError(400, f"{field}: {who!r} is not a principal who can see {repo['id']}")
    if who == author:
        raise ServiceError(400, f"{field}: the author cannot review their own pull request")


@tool(ToolKind.SEND, name="swe_open_pull_request", rest=RestBinding("POST", "/swe/v1/repos/{repo}/pulls", body="body"), action="propose")
def open_pull_request(ctx: ServiceContext, repo: RepoArg, head_repo: str, head_branch: str, title: str = Field(min_length=1, max_length=256),
                      reviewers: list[str] | None = None, body: Text | None = None) -> dict[str, Any]:  # fmt: skip
    """Propose the changes of one of your branches for a repository's default branch.

    The maintainers and the requested reviewers are notified.

    Args:
        repo: the base repository (the project you want to change).
        head_repo: the repository holding your branch: your fork, or the base repository itself.
        head_branch: the branch with your changes.
        title: one line.
        reviewers: principal ids asked to review.
        body: {"text": the description}; "Fixes #12" in it closes issue 12 on merge.
    """
    base = core.readable_repo(ctx, repo)
    pid = ctx.principal.id
    reviewers = sorted(set(reviewers or []))
    text = body.text if body else ""
    source = core.readable_repo(ctx, head_repo)
    if source["id"] != repo and source["fork_of"] != repo:
        raise ServiceError(400, f"head_repo: {head_repo} is neither {repo} nor a fork of it")
    if not core.can_write(source, pid):
        raise ServiceError(403, f"you have no write access to {head_repo}: open pull requests from your own fork", denied=True)
    head = core.branch_of(ctx.world, source, head_branch)
    if source["id"] == repo and head["name"] == base["default_branch"]:
        raise ServiceError(400, f"head_branch: {head['name']} is the base branch itself")
    for existing in ctx.store.select(PULLS.name, {"head_repo": source["id"], "head_branch": head["name"], "state": "open"}):
        if existing["repo"] == repo:
            raise ServiceError(409, f"{existing['id']} is already open for {source['id']}:{head['name']}")
    for i, who in enumerate(reviewers):
        _check_reviewer(ctx.world, base, pid, who, f"reviewers[{i}]")
    number = core.next_number(ctx.world, repo)
    pull_id, at = f"{repo}-{number}", core.now(ctx.world)
    pull = {"id": pull_id, "repo": repo, "author": pid, "base_owner": base["owner"], "head_repo": source["id"], "head_branch": head["name"],
            "base_branch": base["default_branch"], "head": head["head"], "revision": 1, "state": "open",
            "requested_reviewers": reviewers, "approvals": 0, "merged_by": None, "merged_at": None, "created": at}  # fmt: skip
    if not core.pull_changes(ctx.world, pull):
        raise ServiceError(400, f"{source['id']}:{head['name']} has no changes for {repo}:{base['default_branch']}")
    ctx.store.insert(ISSUES.name, {
        "id": pull_id, "repo": repo, "number": number, "kind": "pull", "owner": base["owner"], "author": pid, "title": title,
        "body": text, "state": "open", "labels": [], "assignees": [], "visibility": "public", "info_type": "pull_request",
        "sensitivity": core.sensitivity(base, "source"), "created": at, "updated": at,
    })  # fmt: skip
    ctx.store.insert(PULLS.name, pull)
    core.refresh_pull(ctx.world, pull, initial=True)
    message = (f"{pid} wants to merge {source['id']}:{head['name']} into {repo}:{base['default_branch']}.\n\n{text}\n\n"
               f"Files changed:\n{_file_list(ctx.world, pull_id)}")  # fmt: skip
    core.notify(ctx, {base["owner"], *base["maintainers"], *reviewers}, f"[{repo}] Pull request #{number}: {title}", message, pull_id)
    core.publish(ctx, base, f"[{repo}] Pull request #{number}: {title}", message, pull_id)
    return _summary(ctx.store.get(PULLS.name, {"id": pull_id}), ctx.store.get(ISSUES.name, {"id": pull_id}))


@tool(ToolKind.SEND, name="swe_request_review", rest=RestBinding("POST", "/swe/v1/pulls/{pullId}/reviewers"))
def request_review(ctx: ServiceContext, pull_id: PullArg, reviewer: str) -> dict[str, Any]:
    """Ask someone to review a pull request (as its author, or with write access to the base); they are notified.

    Args:
        pull_id: pull request id, e.g. "ledgerkit-14".
        reviewer: principal id of the reviewer.
    """
    pull, issue, repo = core.visible_pull(ctx, pull_id)
    if ctx.principal.id != pull["author"] and not core.can_write(repo, ctx.principal.id):
        raise ServiceError(403, f"only the author or someone with write access to {repo['id']} may request reviews", denied=True)
    if pull["state"] != "open":
        raise ServiceError(409, f"{pull_id} is {pull['state']}")
    _check_reviewer(ctx.world, repo, pull["author"], reviewer, "reviewer")
    asked = sorted({*pull["requested_reviewers"], reviewer})
    ctx.store.update(PULLS.name, {"id": pull_id}, {"requested_reviewers": asked})
    text = (f"{ctx.principal.id} asks you to review {pull_id}: {issue['title']} ({pull['head_repo']}:{pull['head_branch']} into "
            f"{repo['id']}).\n\n{issue['body']}\n\nFiles changed:\n{_file_list(ctx.world, pull_id)}")  # fmt: skip
    core.notify(ctx, [reviewer], f"[{repo['id']}] Review requested: {issue['title']} (#{issue['number']})", text, pull_id)
    return {"pull": pull_id, "requested_reviewers": asked}


@tool(ToolKind.SEND, name="swe_review_pull_request", rest=RestBinding("POST", "/swe/v1/pulls/{pullId}/reviews", body="body"), action="review")
def review_pull_request(ctx: ServiceContext, pull_id: PullArg, event: Literal["APPROVE", "REQUEST_CHANGES", "COMMENT"],
                        body: Text | None = None) -> dict[str, Any]:  # fmt: skip
    """Review a pull request: approve it, request changes, or comment; the author is notified.

    An approval counts toward the merge rule only from someone with write access to the base
    repository other than the author, and only for the revision reviewed.

    Args:
        pull_id: pull request id, e.g. "ledgerkit-14".
        event: "APPROVE", "REQUEST_CHANGES" or "COMMENT".
        body: {"text": the review} (required to request changes).
    """
    pull, issue, repo = core.visible_pull(ctx, pull_id)
    pid = ctx.principal.id
    if pull["state"] != "open":
        raise ServiceError(409, f"{pull_id} is {pull['state']}: it can no longer be reviewed")
    text = body.text if body else ""
    if pid == pull["author"] and event != "COMMENT":
        raise ServiceError(403, "you cannot approve or request changes on your own pull request", denied=True)
    if event == "REQUEST_CHANGES" and not text.strip():
        raise ServiceError(400, "body.text: say what should change")
    rows = ctx.store.select(REVIEWS.name, {"pull": pull_id})
    review = {"id": f"{pull_id}-r{core.next_suffix(rows, pull_id + '-r')}", "pull": pull_id, "repo": repo["id"], "reviewer": pid,
              "state": _EVENTS[event], "body": text, "revision": pull["revision"], "binding": core.can_write(repo, pid),
              "dismissed": False, "created": core.now(ctx.world)}  # fmt: skip
    ctx.store.insert(REVIEWS.name, review)
    if pid in pull["requested_reviewers"]:
        ctx.store.update(PULLS.name, {"id": pull_id}, {"requested_reviewers": [r for r in pull["requested_reviewers"] if r != pid]})
    pull = core.recount_approvals(ctx.world, ctx.store.get(PULLS.name, {"id": pull_id}))
    verb = {"APPROVED": "approved", "CHANGES_REQUESTED": "requested changes on", "COMMENTED": "commented on"}[review["state"]]
    subject, message = f"[{repo['id']}] {pid} {verb} #{issue['number']}: {issue['title']}", f"{pid} {verb} {pull_id} (revision {review['revision']}).\n\n{text}"
    core.notify(ctx, [pull["author"]], subject, message, review["id"])
    core.publish(ctx, repo, subject, message, review["id"], issue)
    return {**{k: review[k] for k in ("id", "pull", "reviewer", "state", "body", "revision", "binding")}, "approvals": pull["approvals"]}


def closes(world: World, repo: str, text: str) -> list[str]:
    """Issues of `repo` that a 'Fixes #12' / 'closes ledgerkit-12' in the text closes."""
    out = set()
    for number, other, n in _CLOSES.findall(text):
        issue_id = f"{repo}-{number}" if number else f"{other}-{n}"
        row = world.store.get(ISSUES.name, {"id": issue_id})
        if row is not None and row["repo"] == repo and row["kind"] == "issue" and row["state"] == "open":
            out.add(issue_id)
    return sorted(out)


@tool(ToolKind.WRITE, name="swe_merge_pull_request", rest=RestBinding("POST", "/swe/v1/pulls/{pullId}/merge"), action="merge")
def merge_pull_request(ctx: ServiceContext, pull_id: PullArg, expected_revision: int | None = None) -> dict[str, Any]:
    """Merge a pull request into the base repository's default branch (maintainers only).

    Refused while anything in the pull request's `blockers` holds (see swe_get_pull_request).

    Args:
        pull_id: pull request id, e.g. "ledgerkit-14".
        expected_revision: merge only if the patch is still at this revision (the one you reviewed).
    """
    pull, issue, repo = core.visible_pull(ctx, pull_id)
    pid = ctx.principal.id
    if not core.is_maintainer(repo, pid):
        keepers = ", ".join(sorted({repo["owner"], *repo["maintainers"]}))
        raise ServiceError(403, f"only a maintainer of {repo['id']} ({keepers}) may merge", denied=True)
    if expected_revision is not None and expected_revision != pull["revision"]:
        raise ServiceError(409, f"{pull_id} is at revision {pull['revision']}, not {expected_revision}: the patch changed; review it again")
    stops = blockers(ctx.world, pull, repo)
    if stops:
        raise ServiceError(409, f"{pull_id} cannot be merged: " + "; ".join(stops))
    base = repo["default_branch"]
    head_branch = ctx.store.get(BRANCHES.name, {"id": f"{pull['head_repo']}:{pull['head_branch']}"})
    origin = dict(head_branch["origin"] or {})
    head_files = core.tree(ctx.world, pull["head_repo"], pull["head_branch"])
    for f in pull_files(ctx.world, pull_id):
        if f["status"] == "deleted":
            ctx.store.delete(FILES.name, {"id": f"{repo['id']}:{base}:{f['path']}"})
            origin.pop(f["path"], None)
        else:
            src = head_files[f["path"]]
            core.put_file(ctx.world, {**src, "id": f"{repo['id']}:{base}:{f['path']}", "repo": repo["id"], "branch": base, "owner": repo["owner"],
                                      "sensitivity": core.sensitivity(repo, src["info_type"])})  # fmt: skip
            origin[f["path"]] = core.entry_id(src)  # type: ignore[assignment]
    at = core.now(ctx.world)
    ctx.store.update(BRANCHES.name, {"id": head_branch["id"]}, {"origin": origin})
    ctx.store.update(PULLS.name, {"id": pull_id}, {"state": "merged", "merged_by": pid, "merged_at": at})
    ctx.store.update(ISSUES.name, {"id": pull_id}, {"state": "merged", "updated": at})
    closed = closes(ctx.world, repo["id"], f"{issue['title']}\n{issue['body']}")
    for issue_id in closed:
        ctx.store.update(ISSUES.name, {"id": issue_id}, {"state": "closed", "updated": at})
    head = core.updated(ctx.world, repo["id"], base)
    core.notify(ctx, [pull["author"]], f"[{repo['id']}] Merged #{issue['number']}: {issue['title']}",
                f"{pid} merged {pull_id} into {repo['id']}:{base} (revision {pull['revision']}).", pull_id)  # fmt: skip
    return {"pull": pull_id, "merged": True, "merged_by": pid, "base_branch": base, "head": head, "closed_issues": closed}


TOOLS = (list_pull_requests, get_pull_request, open_pull_request, request_review, review_pull_request, merge_pull_request)

