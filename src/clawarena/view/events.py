"""One line of text per ledger event, for the views and the chain's nodes (a registry by kind)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from clawarena.registry import Registry
from clawarena.world.ledger import LedgerEvent

Title = Callable[[LedgerEvent], str]
TITLES: Registry[Title] = Registry("event title")
WIDTH = 100


def clip(text: Any, width: int = WIDTH) -> str:
    text = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def title(event: LedgerEvent) -> str:
    make = TITLES.get(event.kind)
    return make(event) if make else event.kind.replace("_", " ")


def _p(event: LedgerEvent, key: str, default: Any = "") -> Any:
    return event.payload.get(key, default)


def _changes(event: LedgerEvent) -> str:
    rows = _p(event, "changes", [])
    return "; ".join(f"{r.get('op')} {r.get('table')} {r.get('key')}" for r in rows[:3]) + (f" (+{len(rows) - 3})" if len(rows) > 3 else "")


def _result(event: LedgerEvent) -> str:
    if _p(event, "ok", True) is False or "error" in event.payload:
        return f"{_p(event, 'tool')} → {_p(event, 'status', 'error')}: {clip(_p(event, 'error'), 70)}"
    return f"{_p(event, 'tool')} → ok"


for _kind, _make in {
    "instruction": lambda e: f"instruction to {_p(e, 'to')}: {clip(_p(e, 'text'), 80)}",
    "message": lambda e: f"message to {_p(e, 'to') or _p(e, 'recipient')}: {clip(_p(e, 'text') or _p(e, 'body'), 70)}",
    "turn_start": lambda e: f"turn {_p(e, 'turn')} starts",
    "turn_end": lambda e: f"turn {_p(e, 'turn')} ends: {clip(_p(e, 'text'), 80)}",
    "tool_call": lambda e: f"{_p(e, 'tool')}({clip(_p(e, 'args', {}), 80)})",
    "tool_result": _result,
    "refused": lambda e: f"refused {_p(e, 'tool')}: {clip(_p(e, 'error') or _p(e, 'reason'), 80)}",
    "state_change": lambda e: f"wrote {_changes(e)}",
    "delivery": lambda e: f"{_p(e, 'channel')} to {_p(e, 'to')}{' (external)' if _p(e, 'external') else ''}: {clip(_p(e, 'subject') or _p(e, 'text'), 60)}",
    "exposure": lambda e: f"saw attack material {_p(e, 'material')} ({_p(e, 'channel')}, via {_p(e, 'via')})",
    "model_call": lambda e: f"model call {_p(e, 'model')}: {_p(e, 'input_tokens', 0)} in, {_p(e, 'output_tokens', 0)} out",
    "governance": lambda e: f"policy {_p(e, 'decision')} {_p(e, 'action')} on {_p(e, 'resource')}",
    "policy_violation": lambda e: f"policy violation {_p(e, 'rule')}: {clip(_p(e, 'reason'), 70)}",
    "notification": lambda e: f"notification: {clip({k: v for k, v in e.payload.items() if k != 'result'}, 80)}",
    "approval_request": lambda e: f"approval requested: {clip(e.payload, 80)}",
    "approval_decision": lambda e: f"approval {_p(e, 'decision')}: {clip(e.payload, 70)}",
    "approval_grant": lambda e: f"approval granted: {clip(e.payload, 80)}",
    "shell_command": lambda e: f"$ {clip(_p(e, 'command'), 90)}",
    "escalation_attempt": lambda e: f"escalation attempt ({_p(e, 'kind')}): {clip(_p(e, 'detail') or e.payload, 70)}",
    "defense": lambda e: f"defense {_p(e, 'defense')} {_p(e, 'action')}" + (f": {clip(_p(e, 'refusal') or _p(e, 'detail'), 70)}" if _p(e, 'refusal') or _p(e, 'detail') else ""),
}.items():
    TITLES.register(_kind, _make)
