"""Drive v3's default partial responses, declared once per resource and applied in one place.

Without `fields`, the real API returns only a few keys of each resource (a file is
`kind, id, name, mimeType`); with `fields` it returns what is asked (`*`: all).
The methods below get a `fields` argument (agents set it like any argument; the
Drive wire passes a client's `fields` query parameter into it), and their result
goes through `select`, so an agent's tool call, a REST call and the ledger all see
the same shape. about, comments and replies have no default: the wire refuses
them without `fields` (FIELDS_REQUIRED). Other Drive methods return small resources
whole (generateIds, startPageToken, channels, listLabels).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from pydantic import Field, create_model

from clawarena.services.base import MEDIA_KEY, ServiceError
from clawarena.services.fields import parse_fields, apply_fields
from clawarena.tools.core import Tool

# Drive v3 refuses these without a `fields` selector ("The 'fields' parameter is required for this method.").
FIELDS_REQUIRED = frozenset({
    "drive_about_get", "drive_comments_list", "drive_comments_get", "drive_comments_create", "drive_comments_update",
    "drive_replies_list", "drive_replies_get", "drive_replies_create", "drive_replies_update",
})  # fmt: skip


@dataclass(frozen=True)
class DefaultFields:
    """One method's default selector, in words, and an example of asking for more (both shown to agents)."""

    fields: str
    summary: str
    example: str


# ---- the default keys of each resource (Drive v3 reference, "Return specific fields") ----
FILE = "kind,id,name,mimeType"
PERMISSION = "kind,id,type,role,allowFileDiscovery"  # allowFileDiscovery: domain and anyone permissions only
DRIVE = "kind,id,name"
REVISION = "kind,id,mimeType,modifiedTime"
CHANGE = f"kind,changeType,type,time,removed,fileId,file({FILE}),driveId,teamDriveId,drive({DRIVE})"

FILE_ONE = DefaultFields(FILE, FILE, "id,name,parents,modifiedTime,owners(emailAddress),capabilities")
FILE_LIST = DefaultFields(f"kind,incompleteSearch,nextPageToken,files({FILE})", f"nextPageToken and {FILE} of each file",
                          "nextPageToken,files(id,name,mimeType,modifiedTime,owners(emailAddress))")  # fmt: skip
PERMISSION_ONE = DefaultFields(PERMISSION, "kind,id,type,role", "id,type,role,emailAddress,domain")
PERMISSION_LIST = DefaultFields(f"kind,nextPageToken,permissions({PERMISSION})", "kind,id,type,role of each permission", "permissions(id,type,role,emailAddress)")
DRIVE_ONE = DefaultFields(DRIVE, DRIVE, "id,name,capabilities")
DRIVE_LIST = DefaultFields(f"kind,nextPageToken,drives({DRIVE})", f"{DRIVE} of each drive", "drives(id,name,hidden)")
REVISION_ONE = DefaultFields(REVISION, REVISION, "id,modifiedTime,lastModifyingUser,keepForever")
REVISION_LIST = DefaultFields(f"kind,nextPageToken,revisions({REVISION})", f"{REVISION} of each revision", "revisions(id,modifiedTime,lastModifyingUser)")
CHANGE_LIST = DefaultFields(f"kind,nextPageToken,newStartPageToken,changes({CHANGE})", f"each change with the {FILE} of its file",
                            "newStartPageToken,changes(fileId,removed,file(name,modifiedTime))")  # fmt: skip

DEFAULTS: dict[str, DefaultFields] = {
    "drive_files_list": FILE_LIST,
    "drive_files_get": FILE_ONE,
    "drive_files_create": FILE_ONE,
    "drive_files_update": FILE_ONE,
    "drive_files_copy": FILE_ONE,
    "drive_permissions_list": PERMISSION_LIST,
    "drive_permissions_get": PERMISSION_ONE,
    "drive_permissions_create": PERMISSION_ONE,
    "drive_permissions_update": PERMISSION_ONE,
    "drive_drives_list": DRIVE_LIST,
    "drive_drives_get": DRIVE_ONE,
    "drive_drives_create": DRIVE_ONE,
    "drive_drives_update": DRIVE_ONE,
    "drive_drives_hide": DRIVE_ONE,
    "drive_drives_unhide": DRIVE_ONE,
    "drive_revisions_list": REVISION_LIST,
    "drive_revisions_get": REVISION_ONE,
    "drive_revisions_update": REVISION_ONE,
    "drive_changes_list": CHANGE_LIST,
}


def select(result: Any, fields: str | None, default: DefaultFields) -> Any:
    """The part of a full resource the caller asked for (`fields`), or the method's default."""
    if isinstance(result, dict) and MEDIA_KEY in result:  # alt=media: bytes, not a resource
        return result
    expr = fields if fields else default.fields
    try:
        selector = parse_fields(expr)
    except ValueError as exc:
        raise ServiceError(400, f"Invalid field selection {expr}: {exc}", reason="invalidParameter") from None
    return apply_fields(result, selector)


def with_partial_responses(tools: tuple[Tool, ...]) -> tuple[Tool, ...]:
    """The tools, those in DEFAULTS taking a `fields` argument and answering with their default shape.

    Every name in DEFAULTS must be one of the tools, so a renamed method cannot silently lose its default.
    """
    names = {t.name for t in tools}
    unknown = sorted(set(DEFAULTS) - names)
    if unknown:
        raise ValueError(f"partial-response defaults name tools that do not exist: {unknown}")
    return tuple(_with_fields(t, DEFAULTS[t.name]) if t.name in DEFAULTS else t for t in tools)


def _with_fields(tool: Tool, default: DefaultFields) -> Tool:
    if "fields" in tool.args_model.model_fields:
        raise ValueError(f"{tool.name} already has a `fields` parameter")
    described = Field(default=None, description=f"what to return, e.g. '{default.example}', or '*' for everything (default: {default.summary}).")
    args_model = create_model(tool.args_model.__name__, __base__=tool.args_model, fields=(str | None, described))
    full = tool.fn

    def shaped(ctx: Any, fields: str | None = None, **kwargs: Any) -> Any:
        return select(full(ctx, **kwargs), fields, default)

    shaped.__name__ = getattr(full, "__name__", tool.name)
    shaped.__doc__ = full.__doc__
    return dataclasses.replace(tool, fn=shaped, args_model=args_model)
