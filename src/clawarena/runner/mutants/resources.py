"""The world's rows behind call arguments, as data (the sibling-resource kind): which argument of
which tools names which row, which rows a principal sees, and the sibling a mutant retargets to."""

from __future__ import annotations

import bisect
import fnmatch
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from clawarena.registry import Registry
from clawarena.runner.mutants.core import MutationContext
from clawarena.runner.mutants.paths import Path, dotted, leaves, path_matches
from clawarena.services.slack.core import user_id_for
from clawarena.spec.models import PrincipalSpec, ToolCall


@dataclass(frozen=True)
class ResourceArg:
    """Argument `arg` of the tools matching `tools` names a row of `table` by its `column`."""

    tools: tuple[str, ...]  # tool names or globs
    arg: str  # dotted path; `*` stands for any list item
    table: str
    column: str
    item: str = ""  # what the row is, a name in ITEMS ("" when extra-harmful has no use for it)
    same: tuple[str, ...] = ()  # a sibling shares these columns with the row
    visible: str = "owner"  # which rows the agent's principal sees, a name in VISIBILITY


# In order: a call's first entry that has a sibling is the one sibling-resource retargets, so the
# argument that picks the row (a message's ts, a permission's id) comes before its container's.
RESOURCE_ARGS: tuple[ResourceArg, ...] = (
    ResourceArg(("gmail_messages_*", "gmail_read_email"), "id", "gmail_messages", "id", item="message"),
    ResourceArg(("gmail_messages_batch_modify", "gmail_messages_batch_delete"), "body.ids.*", "gmail_messages", "id", item="message"),
    ResourceArg(("gmail_messages_attachments_get",), "message_id", "gmail_messages", "id", item="message"),
    ResourceArg(("gmail_send_email",), "reply_to_id", "gmail_messages", "id", item="message"),
    ResourceArg(("gmail_threads_*",), "id", "gmail_messages", "thread_id", item="thread"),
    ResourceArg(("gmail_drafts_get", "gmail_drafts_update", "gmail_drafts_delete"), "id", "gmail_drafts", "id", item="draft"),
    ResourceArg(("gmail_drafts_send",), "body.id", "gmail_drafts", "id", item="draft"),
    ResourceArg(("calendar_events_*",), "event_id", "calendar_events", "id", item="event", same=("calendar_id",)),
    ResourceArg(("calendar_acl_*",), "rule_id", "calendar_acl", "rule_id", same=("calendar_id",), visible="any"),
    ResourceArg(("drive_permissions_*",), "permission_id", "drive_permissions", "id", same=("file_id",), visible="any"),
    ResourceArg(("drive_comments_*", "drive_replies_*"), "comment_id", "drive_comments", "id", same=("file_id",), visible="any"),
    ResourceArg(("docs_*",), "document_id", "drive_files", "id", item="file", same=("mime_type",), visible="drive-access"),
    ResourceArg(("drive_*",), "file_id", "drive_files", "id", item="file", visible="drive-access"),
    ResourceArg(("slack_chat_delete", "slack_chat_update"), "ts", "slack_messages", "ts", same=("channel",), visible="any"),
    ResourceArg(("slack_pins_*", "slack_reactions_*"), "timestamp", "slack_messages", "ts", same=("channel",), visible="any"),
    ResourceArg(("slack_*",), "channel", "slack_channels", "id", visible="slack-member"),
)

Visibility = Callable[[MutationContext, dict[str, Any], PrincipalSpec], bool]
VISIBILITY: Registry[Visibility] = Registry("row visibility")
VISIBILITY.register("any", lambda ctx, row, p: True)  # bounded by `same` (rows of a container the principal reached)
VISIBILITY.register("owner", lambda ctx, row, p: row.get("owner") == p.id)
VISIBILITY.register("drive-access", lambda ctx, row, p: row.get("owner") == p.id or p.email.lower() in ctx.drive_readers.get(row["id"], set()))
VISIBILITY.register("slack-member", lambda ctx, row, p: row["id"] in ctx.slack_channels.get(user_id_for(p.id), set()))


@dataclass(frozen=True)
class Resource:
    """A row of the initial world a reference call names."""

    spec: ResourceArg
    path: Path  # where in the call's arguments
    value: str
    row: dict[str, Any]

    def describe(self) -> str:
        return f"{self.spec.item or self.spec.table} {self.value}"


def _own(row: dict[str, Any], principal: PrincipalSpec | None) -> bool:
    """The row belongs to the principal: one of its columns names them (owner, calendar_id, user)."""
    if principal is None:
        return False
    mine = {principal.id, principal.email.lower()}
    return any(isinstance(v, str) and v.lower() in mine for v in row.values())


def _row_of(ctx: MutationContext, spec: ResourceArg, value: str, call: ToolCall, principal: PrincipalSpec | None) -> dict[str, Any] | None:
    """The row the call names: `column` is `value`, and when several rows are (a permission id on
    many files, an event's copy on each guest's calendar), the one whose `same` columns the call's
    other arguments name, else the acting principal's own (the row the call would act on)."""
    rows = [r for r in ctx.rows(spec.table) if r.get(spec.column) == value]
    strings = {leaf for _, leaf in leaves(call.args) if isinstance(leaf, str)}
    named = [r for r in rows if all(str(r.get(c)) in strings for c in spec.same)]
    if named and len(named) < len(rows):
        return named[0]
    return next((r for r in rows if _own(r, principal)), rows[0] if rows else None)


def resources_in(ctx: MutationContext, call: ToolCall, principal: PrincipalSpec | None = None) -> Iterator[Resource]:
    """The rows of the initial world the call names, in RESOURCE_ARGS order."""
    for spec in RESOURCE_ARGS:
        if not any(fnmatch.fnmatchcase(call.tool, glob) for glob in spec.tools):
            continue
        for path, leaf in leaves(call.args):
            if isinstance(leaf, str) and path_matches(path, dotted(spec.arg)) and (row := _row_of(ctx, spec, leaf, call, principal)) is not None:
                yield Resource(spec, path, leaf, row)


def sibling_of(ctx: MutationContext, resource: Resource, principal: PrincipalSpec) -> str | None:
    """Another row's value in the same table that the principal sees and the reference never
    names: the next in sorted order after the original, rotated by the seed."""
    spec, visible = resource.spec, VISIBILITY[resource.spec.visible]
    if not visible(ctx, resource.row, principal):
        return None
    values = sorted(
        {
            str(r[spec.column])
            for r in ctx.rows(spec.table)
            if r.get(spec.column) is not None
            and all(r.get(c) == resource.row.get(c) for c in spec.same)
            and str(r[spec.column]) not in ctx.touched
            and visible(ctx, r, principal)
        }
    )
    if not values:
        return None
    return values[(bisect.bisect_right(values, resource.value) + ctx.seed) % len(values)]
