"""A trace as stored in `traces/`, and read back whole.

In memory a trial's trace holds everything: the ledger, its content table (the text a model saw
and said, by reference), the diff and the evidence packet. On disk nothing is stored twice:
- the content table goes to the run's content store (`content/`, one file per distinct value, so
  a system prompt shared by 10,000 trials is one file); the trace keeps the references;
- the evidence packet keeps the ids of its events, not copies of them, and not the diff: both
  are in the same trace (`events_stored: "ids"`).

`expand_trace` undoes the second point; traces written before this format (full packets) read
unchanged.
"""

from __future__ import annotations

from typing import Any

STORED_AS_IDS = "ids"


def pack_trace(trace: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the trace to write, the content values it references)."""
    stored = dict(trace)
    content = stored.pop("content", None) or {}
    if content:
        stored["content_refs"] = sorted(content)
    packet = stored.get("evidence")
    if isinstance(packet, dict) and isinstance(packet.get("events"), list):
        packed = {k: v for k, v in packet.items() if k not in ("events", "diff")}
        packed["event_ids"] = [e["id"] for e in packet["events"]]
        packed["events_stored"] = STORED_AS_IDS
        stored["evidence"] = packed
    return stored, content


def expand_packet(trace: dict[str, Any]) -> dict[str, Any] | None:
    """The trace's evidence packet with its events and diff, as the trial made it; None without one."""
    packet = trace.get("evidence")
    if not isinstance(packet, dict):
        return None
    if packet.get("events_stored") != STORED_AS_IDS:
        return packet
    by_id = {e.get("id"): e for e in trace.get("ledger") or [] if isinstance(e, dict)}
    out = {k: v for k, v in packet.items() if k not in ("event_ids", "events_stored")}
    out["events"] = [by_id[i] for i in packet.get("event_ids") or [] if i in by_id]
    out["diff"] = trace.get("diff") or {}
    return out


def expand_trace(trace: dict[str, Any]) -> dict[str, Any]:
    packet = expand_packet(trace)
    return trace if packet is None else {**trace, "evidence": packet}
