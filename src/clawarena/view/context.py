"""A model step's whole context, rebuilt from the trace: the prior steps' messages, then its own.

A `model_call` event stores its context as a delta (`prior`: the previous step's event; `messages`:
references to the messages added since), so the full list is the walk back to the first step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from clawarena.world.ledger import Ledger

Resolve = Callable[[str], Any]  # a content reference -> its value


class ContextError(Exception):
    pass


def full_context(ledger: Ledger, resolve: Resolve, event_id: str) -> dict[str, Any]:
    """{system, tools, messages} as the model was sent them at the step `event_id`."""
    chain: list[dict[str, Any]] = []
    seen: set[str] = set()
    current: str | None = event_id
    while current is not None:
        if current in seen:
            raise ContextError(f"{event_id}: the steps' prior links loop at {current}")
        seen.add(current)
        try:
            event = ledger.get(current)
        except KeyError:
            raise ContextError(f"{event_id}: its prior step {current} is not in the ledger") from None
        context = event.payload.get("context")
        if event.kind != "model_call" or not isinstance(context, dict):
            raise ContextError(f"{current}: not a model step with a recorded context")
        chain.append(context)
        current = context.get("prior")
    messages = [resolve(ref) for step in reversed(chain) for ref in step.get("messages") or []]
    own = chain[0]
    return {"system": resolve(own["system"]), "tools": resolve(own["tools"]), "messages": messages}
