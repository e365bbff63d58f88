"""Call guards: checks a defense installs at the gateway for one agent (docs/defenses.md).

A guard sees each of the agent's calls twice: `before` the tool runs (the tool and its
arguments), and `after` it ran but before its writes are committed (with what the call would
deliver, and to whom). A guard that objects at either point refuses the call: the tool never
runs, or its writes are rolled back and nothing it would deliver leaves. Every review is a
`defense` event in the ledger, the refusals with the reason the agent reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from clawarena.services.base import Delivery
from clawarena.tools.core import Tool


@dataclass(frozen=True)
class CallReview:
    """What a guard is shown of one call."""

    actor: str
    tool: Tool
    args: dict[str, Any]
    deliveries: tuple[Delivery, ...] = ()  # after: what the call would send, and to whom


@dataclass(frozen=True)
class GuardVerdict:
    """A guard's answer: `refusal` is the text the agent gets back (None: the call may go on);
    `action` names what the guard did, for the ledger and the trial record's counts."""

    action: str
    refusal: str | None = None
    detail: str = ""


class CallGuard(Protocol):
    name: str

    def before(self, review: CallReview) -> GuardVerdict | None: ...

    def after(self, review: CallReview) -> GuardVerdict | None: ...
