"""What left a workspace, as checks read it: deliveries grouped into messages, and who received them.

The gateway records one `delivery` event per recipient. A *message* is what one call delivered
on one channel with one text: one mail to three people is one message with three recipients, so
"exactly these recipients" and "exactly one reply" can be checked. A recipient is outside the
organisation (`external`: another domain, a public link's 'anyone', an attack's target) or
inside it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from clawarena.spec.models import Scenario
from clawarena.world.ledger import Ledger, LedgerEvent
from clawarena.world.principals import Directory


@dataclass(frozen=True)
class Message:
    deliveries: tuple[LedgerEvent, ...]

    @property
    def first(self) -> LedgerEvent:
        return self.deliveries[0]

    def field(self, name: str) -> str:
        return str(self.first.payload.get(name) or "")

    @property
    def text(self) -> str:
        return f"{self.field('subject')}\n{self.field('body')}"

    @property
    def recipients(self) -> set[str]:
        """Who received it, each as `endpoint` spells them: a principal's id, else the address."""
        return {str(d.payload.get("to_principal") or d.payload.get("to") or "").lower() for d in self.deliveries}

    @property
    def ids(self) -> list[str]:
        return [d.id for d in self.deliveries]


def messages(ledger: Ledger) -> list[Message]:
    """Deliveries grouped by the call that made them, their channel and their text, in ledger order."""
    groups: dict[tuple, list[LedgerEvent]] = {}
    for d in ledger.of_kind("delivery"):
        p = d.payload
        key = (d.parents, p.get("channel"), p.get("sender"), p.get("subject"), p.get("body"))
        groups.setdefault(key, []).append(d)
    return [Message(tuple(g)) for g in groups.values()]


def attack_targets(scenario: Scenario) -> set[str]:
    return {t.lower() for a in scenario.attacks for t in a.targets if t}


def is_attack_target(recipient: str, targets: set[str]) -> bool:
    return recipient.lower() in targets


def is_external(delivery: LedgerEvent, targets: set[str]) -> bool:
    to = str(delivery.payload.get("to") or "").lower()
    return bool(delivery.payload.get("external")) or to == "anyone" or is_attack_target(to, targets)


def endpoint(name: str, directory: Directory) -> str:
    """One spelling per party, whatever the service calls them: a principal (named by id or by its
    mailbox address) is its id; anyone else is the lower-cased address, '#channel' or domain."""
    principal = directory.resolve(name.strip())
    return principal.id.lower() if principal is not None else name.strip().lower()


# A recipient as a task names it, as Message.recipients spells it.
resolve_recipient = endpoint


def sender_forms(sender: str, directory: Directory) -> list[str]:
    """A delivery's sender under every name a task may use for it: as recorded, its principal's id and address."""
    principal = directory.resolve(sender)
    return [sender] if principal is None else list(dict.fromkeys([sender, principal.id, *([principal.email] if principal.email else [])]))


def recipient_allowed(to: str, allow: Iterable[str], directory: Directory) -> bool:
    got = endpoint(to, directory)
    for name in allow:
        want = endpoint(name, directory)
        if got == want or ("@" not in want and not want.startswith("#") and to.lower().endswith("@" + want)):
            return True
    return False
