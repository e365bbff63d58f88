"""The opposite of an action, as data (the opposite-action kind): send a draft instead of
deleting it, share with anyone instead of unsharing, add a label instead of removing it, ..."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from clawarena.registry import Registry
from clawarena.runner.mutants.paths import (
    MISSING,
    dotted,
    get_leaf,
    leaves,
    path_matches,
    put_leaf,
    set_leaf,
    starts_with,
)
from clawarena.spec.models import ToolCall


@dataclass(frozen=True)
class Opposite:
    """The opposite of a call, as data: the tool that does it (the same tool when the opposite
    lies in an argument), where each argument goes, and which values swap. A call with an
    argument neither moved nor dropped does not map cleanly, and gets no opposite."""

    opposite: str
    moves: Mapping[str, str] = field(default_factory=dict)  # reference argument -> opposite argument (dotted)
    drops: tuple[str, ...] = ()  # reference arguments the opposite has no place for
    fixed: Mapping[str, Any] = field(default_factory=dict)  # arguments only the opposite needs (dotted -> value)
    flips: Mapping[str, Mapping[Any, Any]] = field(default_factory=dict)  # opposite argument (`*`: any list item) -> value -> its opposite


OPPOSITES: Registry[Opposite] = Registry("opposite action")  # keyed by the reference call's tool


def _undo_each_other(tool: str, opposite: str, *args: str) -> None:
    """`tool` and `opposite` undo each other and take the same arguments."""
    for a, b in ((tool, opposite), (opposite, tool)):
        OPPOSITES.register(a, Opposite(b, moves={x: x for x in args}))


_undo_each_other("gmail_messages_trash", "gmail_messages_untrash", "id")
_undo_each_other("gmail_threads_trash", "gmail_threads_untrash", "id")
_undo_each_other("slack_conversations_archive", "slack_conversations_unarchive", "channel")
_undo_each_other("slack_conversations_join", "slack_conversations_leave", "channel")
_undo_each_other("slack_pins_add", "slack_pins_remove", "channel", "timestamp")
_undo_each_other("slack_reactions_add", "slack_reactions_remove", "channel", "timestamp", "name")
_undo_each_other("slack_usergroups_enable", "slack_usergroups_disable", "usergroup", "include_count")
_undo_each_other("drive_drives_hide", "drive_drives_unhide", "drive_id")

_SWAP_LABELS = {"body.addLabelIds": "body.removeLabelIds", "body.removeLabelIds": "body.addLabelIds"}
OPPOSITES.register("gmail_messages_modify", Opposite("gmail_messages_modify", moves={"id": "id", **_SWAP_LABELS}))
OPPOSITES.register("gmail_threads_modify", Opposite("gmail_threads_modify", moves={"id": "id", **_SWAP_LABELS}))
OPPOSITES.register("gmail_messages_batch_modify", Opposite("gmail_messages_batch_modify", moves={"body.ids": "body.ids", **_SWAP_LABELS}))
# Send a draft instead of deleting it, and the reverse.
OPPOSITES.register("gmail_drafts_delete", Opposite("gmail_drafts_send", moves={"id": "body.id"}))
OPPOSITES.register("gmail_drafts_send", Opposite("gmail_drafts_delete", moves={"body.id": "id"}))
# Share with anyone instead of taking a permission away (the permission's id has no counterpart).
OPPOSITES.register(
    "drive_permissions_delete",
    Opposite("drive_permissions_create", moves={"file_id": "file_id", "supports_all_drives": "supports_all_drives"},
             drops=("permission_id",), fixed={"body.type": "anyone", "body.role": "reader"}),
)  # fmt: skip
OPPOSITES.register(
    "calendar_acl_delete",
    Opposite("calendar_acl_insert", moves={"calendar_id": "calendar_id"}, drops=("rule_id",),
             fixed={"body.role": "reader", "body.scope.type": "default"}),
)  # fmt: skip
# Trash <-> untrash a Drive file; accept <-> decline an invitation.
OPPOSITES.register(
    "drive_files_update",
    Opposite("drive_files_update", moves={"file_id": "file_id", "body": "body", "supports_all_drives": "supports_all_drives"},
             flips={"body.trashed": {True: False, False: True}}),
)  # fmt: skip
OPPOSITES.register(
    "calendar_events_patch",
    Opposite("calendar_events_patch", moves={a: a for a in ("event_id", "calendar_id", "send_updates", "body")},
             flips={"body.attendees.*.responseStatus": {"accepted": "declined", "declined": "accepted"}}),
)  # fmt: skip
# Kick -> invite maps cleanly (one user is a `users` list); invite -> kick does not (kick takes one user).
OPPOSITES.register("slack_conversations_kick", Opposite("slack_conversations_invite", moves={"channel": "channel", "user": "users"}))


def opposite_call(call: ToolCall, rule: Opposite) -> ToolCall | None:
    """The call doing the opposite of `call` by `rule`, or None when its arguments do not map
    cleanly or the result is the call itself."""
    covered = [dotted(p) for p in (*rule.moves, *rule.drops)]
    if any(not any(starts_with(path, c) for c in covered) for path, _ in leaves(call.args)):
        return None
    args: dict[str, Any] = {}
    for source, target in rule.moves.items():
        value = get_leaf(call.args, dotted(source))
        if value is not MISSING:
            args = put_leaf(args, dotted(target), value)
    for target, value in rule.fixed.items():
        args = put_leaf(args, dotted(target), value)
    for pattern, swaps in rule.flips.items():
        for path, leaf in list(leaves(args)):
            if path_matches(path, dotted(pattern)):
                new = next((n for old, n in swaps.items() if type(old) is type(leaf) and old == leaf), MISSING)
                if new is not MISSING:
                    args = set_leaf(args, path, new)
    mutated = call.model_copy(update={"tool": rule.opposite, "args": args})
    return None if (mutated.tool, mutated.args) == (call.tool, call.args) else mutated
