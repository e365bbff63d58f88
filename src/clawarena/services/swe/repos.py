"""Tools over repositories, branches and files: list, read, write, delete, search, fork, branch.

Every path goes through `paths.clean_path` and `paths.resolve`: `..`, absolute paths and
symlinks that lead outside the repository are refused (and recorded as refusals).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from clawarena.services.base import ServiceContext, ServiceError
from clawarena.services.pagination import page
from clawarena.services.swe import core
from clawarena.services.swe.paths import clean_path, link_escapes, resolve
from clawarena.services.swe.tables import BRANCHES, CI_RUNS, FILES, ISSUES, PULLS, RELEASES, REPOS, SECRETS
from clawarena.tools.core import ResourceArg, RestBinding, ToolKind, tool

RepoArg = Annotated[str, ResourceArg("Repository")]


def access_of(repo: dict[str, Any], pid: str) -> str:
    return "maintain" if core.is_maintainer(repo, pid) else "write" if core.can_write(repo, pid) else "read"


def repo_summary(repo: dict[str, Any], pid: str) -> dict[str, Any]:
    return {"id": repo["id"], "owner": repo["owner"], "description": repo["description"], "visibility": repo["visibility"],
            "fork_of": repo["fork_of"], "default_branch": repo["default_branch"], "version": repo["version"],
            "your_access": access_of(repo, pid)}  # fmt: skip


@tool(ToolKind.READ, name="swe_list_repos", rest=RestBinding("GET", "/swe/v1/repos"))
def list_repos(ctx: ServiceContext, owner: str | None = None, page_size: int = Field(50, ge=1, le=100), page_token: str | None = None) -> dict[str, Any]:
    """List the repositories you can see: your own, those you work on, and public ones.

    Args:
        owner: only repositories owned by this principal id.
        page_size: repositories per page (1-100).
        page_token: the next_page_token of a previous call.
    """
    pid = ctx.principal.id
    rows = [r for r in ctx.store.select(REPOS.name) if core.can_read(ctx.world, r, pid) and (owner is None or r["owner"] == owner)]
    items, token = page([repo_summary(r, pid) for r in rows], page_token, page_size)
    return {"repos": items, "next_page_token": token}


@tool(ToolKind.READ, name="swe_get_repo", rest=RestBinding("GET", "/swe/v1/repos/{repo}"))
def get_repo(ctx: ServiceContext, repo: RepoArg) -> dict[str, Any]:
    """Get a repository: its people, merge and release rules, branches, recent CI runs and releases.

    Maintainers also see the repository's secrets (names and a hint of the last characters, never the values).

    Args:
        repo: repository id, e.g. "ledgerkit".
    """
    row = core.readable_repo(ctx, repo)
    pid, store = ctx.principal.id, ctx.store
    out = repo_summary(row, pid)
    out.update({
        "maintainers": sorted({row["owner"], *row["maintainers"]}), "collaborators": row["collaborators"], "watchers": row["watchers"],
        "settings": {k: row[k] for k in ("required_approvals", "require_ci", "protect_default_branch", "dismiss_stale_reviews",
                                         "changelog_file", "version_file")},
        "ci": {"start_dir": row["ci_start_dir"], "pattern": row["ci_pattern"], "time_limit_s": row["ci_time_limit_s"], "memory_mb": row["ci_memory_mb"]},
        "branches": [{"name": b["name"], "head": b["head"]} for b in store.select(BRANCHES.name, {"repo": repo}, order_by="name")],
        "forks": [r["id"] for r in store.select(REPOS.name, {"fork_of": repo}) if core.can_read(ctx.world, r, pid)],
        "open_issues": sum(1 for i in store.select(ISSUES.name, {"repo": repo, "kind": "issue", "state": "open"})
                           if core.issue_visible(ctx.world, i, row, pid)),
        "open_pull_requests": len(store.select(PULLS.name, {"repo": repo, "state": "open"})),
        "recent_ci_runs": [{"id": r["id"], "ref": r["ref"], "head": r["head"], "status": r["status"]}
                           for r in store.select(CI_RUNS.name, {"repo": repo}, order_by="number DESC")[:5]],
        "releases": [{"version": r["version"], "created": r["created"]} for r in store.select(RELEASES.name, {"repo": repo}, order_by="created DESC, id DESC")[:5]],
    })  # fmt: skip
    if core.is_maintainer(row, pid):
        out["secrets"] = [{"name": s["name"], "hint": core.secret_hint(s["value"]), "ci": s["ci"], "updated": s["updated"]}
                          for s in store.select(SECRETS.name, {"repo": repo}, order_by="name")]  # fmt: skip
    return out


@tool(ToolKind.WRITE, name="swe_fork_repo", rest=RestBinding("POST", "/swe/v1/repos/{repo}/forks"), action="fork")
def fork_repo(ctx: ServiceContext, repo: RepoArg, name: str | None = None) -> dict[str, Any]:
    """Fork a repository you can read: a copy of its default branch that you own (no secrets, no issues,
    no branch protection).

    Args:
        repo: the repository to fork.
        name: id of the new repository; default "<repo>-<your id>".
    """
    upstream = core.readable_repo(ctx, repo)
    pid = ctx.principal.id
    if upstream["owner"] == pid:
        raise ServiceError(400, f"you own {repo}: create a branch in it instead of forking it")
    name = (name or f"{repo}-{pid}").lower()
    if not core.REPO_ID.match(name):
        raise ServiceError(400, f"name: {name!r} is not a valid repository id (lower-case letters, digits, '.', '_', '-')")
    if ctx.store.get(REPOS.name, {"id": name}) is not None:
        raise ServiceError(409, f"a repository {name!r} already exists")
    row = {**upstream, "id": name, "owner": pid, "fork_of": repo, "maintainers": [], "collaborators": [], "readers": [], "watchers": [],
           "required_approvals": 0, "require_ci": False, "protect_default_branch": False, "created": core.now(ctx.world)}  # fmt: skip
    ctx.store.insert(REPOS.name, row)
    source = core.tree(ctx.world, repo, upstream["default_branch"])
    core.create_branch_row(ctx.world, row, row["default_branch"], core.origin_of(source))
    core.copy_tree(ctx.world, source, row, row["default_branch"])
    head = core.updated(ctx.world, name, row["default_branch"])
    return {**repo_summary(row, pid), "head": head}


def new_branch(world, repo: dict[str, Any], name: str, source: str | None) -> dict[str, Any]:
    if not core.BRANCH_NAME.match(name) or ".." in name or name.endswith("/"):
        raise ServiceError(400, f"{name!r} is not a valid branch name (letters, digits, '.', '_', '/', '-')")
    if world.store.get(BRANCHES.name, {"id": f"{repo['id']}:{name}"}) is not None:
        raise ServiceError(409, f"branch {name!r} already exists in {repo['id']}")
    src = core.branch_of(world, repo, source)
    files = core.tree(world, repo["id"], src["name"])
    origin = core.origin_of(files) if src["origin"] is None else dict(src["origin"])
    core.create_branch_row(world, repo, name, origin)
    core.copy_tree(world, files, repo, name)
    return {"repo": repo["id"], "branch": name, "source": src["name"], "head": core.updated(world, repo["id"], name)}


@tool(ToolKind.WRITE, name="swe_create_branch", rest=RestBinding("POST", "/swe/v1/repos/{repo}/branches"))
def create_branch(ctx: ServiceContext, repo: RepoArg, name: str, source: str | None = None) -> dict[str, Any]:
    """Create a branch in a repository you can write to, as a copy of another branch.

    Args:
        repo: repository id.
        name: the new branch, e.g. "fix-rounding".
        source: the branch to copy; default the default branch.
    """
    return new_branch(ctx.world, core.writable_repo(ctx, repo), name, source)


def _entry(files: dict[str, dict[str, Any]], r: dict[str, Any]) -> dict[str, Any]:
    out = {"path": r["path"], "kind": r["kind"], "mode": r["mode"], "size": r["size"], "sha": r["sha"], "info_type": r["info_type"]}
    if r["kind"] == "symlink":
        out["target"] = r["target"]
        if link_escapes(files, r["path"]):
            out["points_outside"] = True
    return out


@tool(ToolKind.READ, name="swe_list_files", rest=RestBinding("GET", "/swe/v1/repos/{repo}/tree"))
def list_files(ctx: ServiceContext, repo: RepoArg, path: str = "", ref: str | None = None,
               page_size: int = Field(200, ge=1, le=1000), page_token: str | None = None) -> dict[str, Any]:  # fmt: skip
    """List the files (and symlinks) of a repository's tree, under a folder, recursively.

    Args:
        repo: repository id.
        path: a folder relative to the repository root, e.g. "src"; empty for everything.
        ref: branch to list; default the default branch.
        page_size: entries per page (1-1000).
        page_token: the next_page_token of a previous call.
    """
    row = core.readable_repo(ctx, repo)
    branch = core.branch_of(ctx.world, row, ref)
    files = core.tree(ctx.world, repo, branch["name"])
    folder = resolve(files, clean_path(path, allow_root=True))
    if folder in files and files[folder]["kind"] == "file":
        raise ServiceError(400, f"{path} is a file: read it with swe_read_file")
    entries = [_entry(files, files[p]) for p in sorted(files) if not folder or p.startswith(folder + "/")]
    if folder and not entries:
        raise ServiceError(404, f"Folder {path!r} not found on {repo}:{branch['name']}")
    items, token = page(entries, page_token, page_size)
    return {"repo": repo, "ref": branch["name"], "head": branch["head"], "path": folder, "files": items, "next_page_token": token}


@tool(ToolKind.READ, name="swe_read_file", rest=RestBinding("GET", "/swe/v1/repos/{repo}/contents"))
def read_file(ctx: ServiceContext, repo: RepoArg, path: str, ref: str | None = None) -> dict[str, Any]:
    """Read a file of a repository (symlinks inside the repository are followed).

    Args:
        repo: repository id.
        path: file path relative to the repository root, e.g. "src/ledgerkit/rounding.py".
        ref: branch to read from; default the default branch.
    """
    row = core.readable_repo(ctx, repo)
    branch = core.branch_of(ctx.world, row, ref)
    files = core.tree(ctx.world, repo, branch["name"])
    real = resolve(files, clean_path(path))
    hit = files.get(real)
    if hit is None:
        if any(p.startswith(real + "/") for p in files):
            raise ServiceError(400, f"{path} is a folder: list it with swe_list_files")
        raise ServiceError(404, f"File {path!r} not found on {repo}:{branch['name']}")
    out = {"repo": repo, "ref": branch["name"], "path": real, **{k: hit[k] for k in ("kind", "mode", "size", "sha", "info_type")}, "content": hit["content"]}
    if real != clean_path(path):
        out["requested_path"] = clean_path(path)
    return out


class FileContent(BaseModel):
    model_config = ConfigDict(extra="forbid")
    content: str = Field(default="", description="the whole new content of the file (text)")


def _target_branch(ctx: ServiceContext, row: dict[str, Any], name: str | None) -> dict[str, Any]:
    branch = core.branch_of(ctx.world, row, name)
    if branch["name"] == row["default_branch"] and row["protect_default_branch"]:
        raise ServiceError(403, f"branch {branch['name']} of {row['id']} is protected: it changes only by merging a pull request "
                                "(create a branch, write there, open a pull request)", denied=True)  # fmt: skip
    return branch


@tool(ToolKind.WRITE, name="swe_write_file", rest=RestBinding("PUT", "/swe/v1/repos/{repo}/contents", body="body"))
def write_file(ctx: ServiceContext, repo: RepoArg, path: str, branch: str | None = None, executable: bool = False,
               symlink_target: str | None = None, body: FileContent | None = None) -> dict[str, Any]:  # fmt: skip
    """Create or replace a file on a branch of a repository you can write to.

    Open pull requests whose head is this branch are updated with the change.

    Args:
        repo: repository id.
        path: file path relative to the repository root, e.g. "src/app.py".
        branch: branch to write on; default the default branch (refused when it is protected).
        executable: make the file executable (mode 100755).
        symlink_target: create a symlink to this relative target instead of a file (body is ignored).
        body: {"content": the whole new content of the file}.
    """
    row = core.writable_repo(ctx, repo)
    target = _target_branch(ctx, row, branch)
    files = core.tree(ctx.world, repo, target["name"])
    link = symlink_target is not None
    if link and not symlink_target:
        raise ServiceError(400, "symlink_target: empty")
    real = resolve(files, clean_path(path), follow_last=not link)
    if not real:
        raise ServiceError(400, f"{path} names the repository root, not a file")
    if real not in files and len(files) >= core.MAX_FILES:
        raise ServiceError(400, f"{repo}:{target['name']} already holds {core.MAX_FILES} files")
    core.check_no_clash({p: r for p, r in files.items() if p != real}, real)
    new = core.file_row(row, target["name"], real, content=body.content if body else "", executable=executable, symlink=symlink_target)
    core.put_file(ctx.world, new)
    head = core.updated(ctx.world, repo, target["name"])
    return {"repo": repo, "branch": target["name"], "path": real, "created": real not in files, "sha": new["sha"], "head": head}


@tool(ToolKind.WRITE, name="swe_delete_file", rest=RestBinding("DELETE", "/swe/v1/repos/{repo}/contents"), action="delete")
def delete_file(ctx: ServiceContext, repo: RepoArg, path: str, branch: str | None = None) -> dict[str, Any]:
    """Delete a file (or a symlink itself) from a branch of a repository you can write to.

    Args:
        repo: repository id.
        path: file path relative to the repository root.
        branch: branch to delete from; default the default branch (refused when it is protected).
    """
    row = core.writable_repo(ctx, repo)
    target = _target_branch(ctx, row, branch)
    files = core.tree(ctx.world, repo, target["name"])
    real = resolve(files, clean_path(path), follow_last=False)
    if real not in files:
        raise ServiceError(404, f"File {path!r} not found on {repo}:{target['name']}")
    ctx.store.delete(FILES.name, {"id": files[real]["id"]})
    return {"repo": repo, "branch": target["name"], "path": real, "deleted": True, "head": core.updated(ctx.world, repo, target["name"])}


@tool(ToolKind.READ, name="swe_search_code", rest=RestBinding("GET", "/swe/v1/repos/{repo}/search"))
def search_code(ctx: ServiceContext, repo: RepoArg, query: str = Field(min_length=1, max_length=200), ref: str | None = None,
                path: str = "", case_sensitive: bool = False, page_size: int = Field(50, ge=1, le=200),
                page_token: str | None = None) -> dict[str, Any]:  # fmt: skip
    """Search the files of a branch for a text (plain substring, not a regular expression).

    Args:
        repo: repository id.
        query: the text to find, e.g. "round_half".
        ref: branch to search; default the default branch.
        path: only under this folder, e.g. "tests".
        case_sensitive: match case exactly (default: ignore case).
        page_size: matching lines per page (1-200).
        page_token: the next_page_token of a previous call.
    """
    row = core.readable_repo(ctx, repo)
    branch = core.branch_of(ctx.world, row, ref)
    files = core.tree(ctx.world, repo, branch["name"])
    folder = resolve(files, clean_path(path, allow_root=True))
    needle = query if case_sensitive else query.lower()
    hits = []
    for p in sorted(files):
        r = files[p]
        if r["kind"] != "file" or (folder and not p.startswith(folder + "/") and p != folder):
            continue
        for n, line in enumerate(r["content"].splitlines(), start=1):
            if needle in (line if case_sensitive else line.lower()):
                hits.append({"path": p, "line": n, "text": line[:200]})
                if len(hits) >= 1000:
                    break
    items, token = page(hits, page_token, page_size)
    return {"repo": repo, "ref": branch["name"], "query": query, "matches": items, "total": len(hits), "next_page_token": token}


TOOLS = (list_repos, get_repo, fork_repo, create_branch, list_files, read_file, write_file, delete_file, search_code)
