"""Who may do what: Slack's default workspace permissions, one rule per restricted action.

Roles come from the caller's user row: workspace admins (`is_admin`; owners are
not modelled apart from admins), full members, and guests (`is_restricted`). A
channel's creator is its channel manager (Slack assigns the role on creation).
The defaults are Slack's documented ones: removing people from public channels,
renaming, and managing user groups are for admins (and, for renames, channel
managers); archiving, inviting and removing people from private channels are
open to every member except guests.

A caller whose role is not enough gets the real Web API error as an access
refusal (`denied`), so the ledger records `refused` and no row changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from clawarena.registry import Registry
from clawarena.services.slack.core import PUBLIC, Slack, err


class Who(str, Enum):
    EVERYONE = "everyone"  # guests too
    MEMBERS = "members"  # everyone except guests
    MANAGERS = "channel managers"  # the channel's creator, and admins
    ADMINS = "admins"  # workspace admins and owners


@dataclass(frozen=True)
class Rule:
    """Who may act, in public channels and elsewhere (private channels, DMs, or no channel at all)."""

    public: Who
    private: Who
    code: str  # the error for a member without the role (guests get `user_is_restricted`)


RULES: Registry[Rule] = Registry("Slack permission rule")
RULES.register("conversations.kick", Rule(Who.ADMINS, Who.MEMBERS, "restricted_action"))
RULES.register("conversations.archive", Rule(Who.MEMBERS, Who.MEMBERS, "restricted_action"))
RULES.register("conversations.unarchive", Rule(Who.MEMBERS, Who.MEMBERS, "restricted_action"))
RULES.register("conversations.rename", Rule(Who.MANAGERS, Who.MANAGERS, "not_authorized"))
RULES.register("conversations.invite", Rule(Who.MEMBERS, Who.MEMBERS, "restricted_action"))
RULES.register("conversations.create", Rule(Who.MEMBERS, Who.EVERYONE, "restricted_action"))
# Acting on what someone else wrote or owns:
RULES.register("chat.delete", Rule(Who.ADMINS, Who.ADMINS, "cant_delete_message"))
RULES.register("files.delete", Rule(Who.ADMINS, Who.ADMINS, "cant_delete_file"))
RULES.register("users.profile.set", Rule(Who.ADMINS, Who.ADMINS, "not_admin"))
RULES.register("usergroups", Rule(Who.ADMINS, Who.ADMINS, "permission_denied"))


def is_admin(s: Slack) -> bool:
    return bool(s.me_row["is_admin"])


def allowed(s: Slack, who: Who, channel: dict[str, Any] | None) -> bool:
    if who is Who.EVERYONE:
        return True
    if s.is_guest:
        return False
    if who is Who.MEMBERS or is_admin(s):
        return True
    return who is Who.MANAGERS and channel is not None and channel["creator"] == s.me


def require(s: Slack, action: str, channel: dict[str, Any] | None = None, *, kind: str | None = None) -> None:
    """Refuse `action` (a key of RULES) unless the caller's role allows it in `channel` (or a channel of `kind`)."""
    rule = RULES.get(action)
    kind = channel["kind"] if channel is not None else kind
    who = rule.public if kind == PUBLIC else rule.private
    if not allowed(s, who, channel):
        raise err("user_is_restricted" if s.is_guest and who is not Who.ADMINS else rule.code, denied=True)
