"""Tools over issues and their comments (a pull request is an issue too: comment on it here).

A security report (`security: true`) is embargoed: only the repository's maintainers, its
author and its assignees see it, and only they are notified about it.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from clawarena.services.base import ServiceContext, ServiceError
from clawarena.services.pagination import page
from clawarena.services.swe import core
from clawarena.services.swe.tables import COMMENTS, ISSUES, PULLS, REVIEWS
from clawarena.tools.core import ResourceArg, RestBinding, ToolKind, tool
from clawarena.world.world import World

RepoArg = Annotated[str, ResourceArg("Repository")]
IssueArg = Annotated[str, ResourceArg("Issue")]
_MENTION = re.compile(r"(?<![\w@])@([A-Za-z0-9][A-Za-z0-9_.-]*)")


class Text(BaseModel):
    """A request body carrying one long text (a description, a comment, a review, release notes)."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(max_length=65536)


def issue_view(issue: dict[str, Any]) -> dict[str, Any]:
    return {k: issue[k] for k in ("id", "repo", "number", "kind", "author", "title", "body", "state", "labels", "assignees",
                                  "visibility", "created", "updated")}  # fmt: skip


def mentioned(world: World, *texts: str) -> set[str]:
    return {m for t in texts for m in _MENTION.findall(t or "") if m in world.directory.principals}


def participants(world: World, issue: dict[str, Any], repo: dict[str, Any]) -> set[str]:
    """Who follows an issue: the repository's maintainers, its author, assignees, commenters,
    people mentioned and, for a pull request, its requested reviewers and reviewers; only
    those who may see it."""
    people = {repo["owner"], *repo["maintainers"], issue["author"], *issue["assignees"]}
    comments = world.store.select(COMMENTS.name, {"issue": issue["id"]})
    people |= {c["author"] for c in comments}
    people |= mentioned(world, issue["body"], *(c["body"] for c in comments))
    pull = world.store.get(PULLS.name, {"id": issue["id"]})
    if pull is not None:
        people |= set(pull["requested_reviewers"]) | {r["reviewer"] for r in world.store.select(REVIEWS.name, {"pull": issue["id"]})}
    return {p for p in people if core.issue_visible(world, issue, repo, p)}


@tool(ToolKind.READ, name="swe_list_issues", rest=RestBinding("GET", "/swe/v1/repos/{repo}/issues"))
def list_issues(ctx: ServiceContext, repo: RepoArg, state: Literal["open", "closed", "all"] = "open", label: str | None = None,
                page_size: int = Field(50, ge=1, le=100), page_token: str | None = None) -> dict[str, Any]:  # fmt: skip
    """List a repository's issues (not pull requests: see swe_list_pull_requests), newest first.

    Args:
        repo: repository id.
        state: open (default), closed or all.
        label: only issues with this label.
        page_size: issues per page (1-100).
        page_token: the next_page_token of a previous call.
    """
    row = core.readable_repo(ctx, repo)
    rows = [i for i in ctx.store.select(ISSUES.name, {"repo": repo, "kind": "issue"}, order_by="number DESC")
            if (state == "all" or i["state"] == state) and (label is None or label in i["labels"])
            and core.issue_visible(ctx.world, i, row, ctx.principal.id)]  # fmt: skip
    items, token = page([{**issue_view(i), "body": i["body"][:300]} for i in rows], page_token, page_size)
    return {"repo": repo, "issues": items, "next_page_token": token}


@tool(ToolKind.READ, name="swe_get_issue", rest=RestBinding("GET", "/swe/v1/issues/{issueId}"))
def get_issue(ctx: ServiceContext, issue_id: IssueArg) -> dict[str, Any]:
    """Get an issue (or a pull request's conversation) with all its comments.

    Args:
        issue_id: issue id, e.g. "ledgerkit-12" (repository id and number).
    """
    issue, _ = core.visible_issue(ctx, issue_id)
    comments = ctx.store.select(COMMENTS.name, {"issue": issue_id})
    comments.sort(key=lambda c: int(c["id"].rsplit("-c", 1)[-1]))
    return {**issue_view(issue), "comments": [{k: c[k] for k in ("id", "author", "body", "created")} for c in comments]}


@tool(ToolKind.SEND, name="swe_create_issue", rest=RestBinding("POST", "/swe/v1/repos/{repo}/issues", body="body"))
def create_issue(ctx: ServiceContext, repo: RepoArg, title: str = Field(min_length=1, max_length=256), labels: list[str] | None = None,
                 security: bool = False, body: Text | None = None) -> dict[str, Any]:  # fmt: skip
    """Open an issue on a repository you can read; its maintainers (and anyone @mentioned) are notified.

    Args:
        repo: repository id.
        title: one line.
        labels: labels such as "bug".
        security: a private, embargoed vulnerability report: only maintainers (and you) see it.
        body: {"text": the description}.
    """
    row = core.readable_repo(ctx, repo)
    number = core.next_number(ctx.world, repo)
    at = core.now(ctx.world)
    text = body.text if body else ""
    issue = {
        "id": f"{repo}-{number}", "repo": repo, "number": number, "kind": "issue", "owner": row["owner"], "author": ctx.principal.id,
        "title": title, "body": text, "state": "open", "labels": sorted(set(labels or [])), "assignees": [],
        "visibility": "security" if security else "public", "info_type": "security_report" if security else "issue",
        "sensitivity": "confidential" if security else core.sensitivity(row, "source"), "created": at, "updated": at,
    }  # fmt: skip
    ctx.store.insert(ISSUES.name, issue)
    audience = {row["owner"], *row["maintainers"]} | {p for p in mentioned(ctx.world, text) if core.issue_visible(ctx.world, issue, row, p)}
    kind = "Security report" if security else "New issue"
    subject, message = f"[{repo}] {kind} #{number}: {title}", f"{ctx.principal.id} opened {issue['id']}: {title}\n\n{text}"
    core.notify(ctx, audience, subject, message, issue["id"])
    core.publish(ctx, row, subject, message, issue["id"], issue)
    return issue_view(issue)


@tool(ToolKind.WRITE, name="swe_update_issue", rest=RestBinding("PATCH", "/swe/v1/issues/{issueId}", body="body"))
def update_issue(ctx: ServiceContext, issue_id: IssueArg, state: Literal["open", "closed"] | None = None,
                 title: str | None = Field(None, min_length=1, max_length=256), labels: list[str] | None = None,
                 assignees: list[str] | None = None, body: Text | None = None) -> dict[str, Any]:  # fmt: skip
    """Close or reopen an issue or pull request, edit its title or description, or set labels and assignees.

    The author may close, reopen and edit their own; people with write access may do anything here.
    Give only what should change.

    Args:
        issue_id: issue or pull request id, e.g. "ledgerkit-12".
        state: "open" or "closed".
        title: a new title.
        labels: the new labels, replacing the old (needs write access).
        assignees: the new assignees, principal ids, replacing the old (needs write access).
        body: {"text": a new description}.
    """
    issue, repo = core.visible_issue(ctx, issue_id)
    pid = ctx.principal.id
    writer, author = core.can_write(repo, pid), pid == issue["author"]
    changes: dict[str, Any] = {}
    if state is not None and state != issue["state"]:
        if issue["state"] == "merged":
            raise ServiceError(409, f"{issue_id} is merged: it cannot be reopened or closed")
        if not (writer or author):
            verb = "close" if state == "closed" else "reopen"
            raise ServiceError(403, f"only the author or someone with write access to {repo['id']} may {verb} {issue_id}", denied=True)
        changes["state"] = state
    for field, value in (("title", title), ("body", body.text if body else None)):
        if value is not None and value != issue[field]:
            if not (author or core.is_maintainer(repo, pid)):
                what = "description" if field == "body" else field
                raise ServiceError(403, f"only the author or a maintainer may edit the {what} of {issue_id}", denied=True)
            changes[field] = value
    for field, value in (("labels", labels), ("assignees", assignees)):
        if value is None:
            continue
        if not writer:
            raise ServiceError(403, f"setting {field} needs write access to {repo['id']}", denied=True)
        if field == "assignees":
            for who in value:
                if who not in ctx.world.directory.principals or not core.can_read(ctx.world, repo, who):
                    raise ServiceError(400, f"assignees: {who!r} is not a principal who can see {repo['id']}")
        changes[field] = sorted(set(value))
    if not changes:
        return issue_view(issue)
    changes["updated"] = core.now(ctx.world)
    ctx.store.update(ISSUES.name, {"id": issue_id}, changes)
    if "state" in changes and issue["kind"] == "pull":
        ctx.store.update(PULLS.name, {"id": issue_id}, {"state": changes["state"]})
        if changes["state"] == "open":
            core.refresh_pull(ctx.world, ctx.store.get(PULLS.name, {"id": issue_id}))
    return issue_view({**issue, **changes})


@tool(ToolKind.SEND, name="swe_comment", rest=RestBinding("POST", "/swe/v1/issues/{issueId}/comments", body="body"))
def comment(ctx: ServiceContext, issue_id: IssueArg, body: Text) -> dict[str, Any]:
    """Comment on an issue or a pull request; its participants (and anyone @mentioned) are notified.

    Args:
        issue_id: issue or pull request id, e.g. "ledgerkit-12".
        body: {"text": the comment}.
    """
    if not body.text.strip():
        raise ServiceError(400, "body.text: the comment is empty")
    issue, repo = core.visible_issue(ctx, issue_id)
    rows = ctx.store.select(COMMENTS.name, {"issue": issue_id})
    cid = f"{issue_id}-c{core.next_suffix(rows, issue_id + '-c')}"
    row = {"id": cid, "issue": issue_id, "repo": repo["id"], "author": ctx.principal.id, "body": body.text, "created": core.now(ctx.world)}
    ctx.store.insert(COMMENTS.name, row)
    ctx.store.update(ISSUES.name, {"id": issue_id}, {"updated": row["created"]})
    audience = participants(ctx.world, issue, repo)
    subject, message = f"Re: [{repo['id']}] {issue['title']} (#{issue['number']})", f"{ctx.principal.id} commented on {issue_id}:\n\n{body.text}"
    to = core.notify(ctx, audience, subject, message, cid)
    core.publish(ctx, repo, subject, message, cid, issue)
    return {"id": cid, "issue": issue_id, "author": row["author"], "body": row["body"], "created": row["created"], "notified": to}


TOOLS = (list_issues, get_issue, create_issue, update_issue, comment)
