"""One trial's page: its record, the three views (model, tools and services, artifacts) with one
lane per delegate agent, the checks with their verdicts and evidence ids, and the evidence chain.

Everything comes from the stored record and trace; a model call's reply and reasoning are read
from the run's content store (its context stays as references, fetched when opened).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from clawarena.runner.content_store import ContentStore, ContentStoreError
from clawarena.view.chain import evidence_chain
from clawarena.view.events import clip, title
from clawarena.world.content import is_ref
from clawarena.world.ledger import Ledger, LedgerEvent

MODEL_KINDS = ("instruction", "message", "notification", "approval_request", "approval_decision", "approval_grant",
               "turn_start", "model_call", "turn_end", "shell_command", "escalation_attempt")  # fmt: skip
CALL_CHILDREN = ("tool_result", "refused", "state_change", "delivery", "exposure", "governance", "policy_violation", "message", "approval_request", "defense")


def _event(e: LedgerEvent) -> dict[str, Any]:
    return {"id": e.id, "seq": e.seq, "time": e.time, "actor": e.actor, "kind": e.kind, "title": title(e),
            "parents": list(e.parents), "taint": list(e.taint), "payload": e.payload}  # fmt: skip


def lanes_of(ledger: Ledger, agents: dict[str, str]) -> list[dict[str, Any]]:
    """One lane per delegate agent (in the order they first act), with the principal it acts for."""
    principal_of = {e.payload.get("to"): e.actor for e in ledger.of_kind("instruction")}
    order = list(dict.fromkeys([e.actor for e in ledger.of_kind("turn_start")] + list(agents)))
    return [{"agent": a, "principal": principal_of.get(a, ""), "spec": agents.get(a, "")} for a in order]


def _resolve(content: ContentStore, inline: dict[str, Any], ref: Any) -> Any:
    if not is_ref(ref):
        return None
    if ref in inline:
        return inline[ref]
    try:
        return content.read(ref)
    except ContentStoreError:
        return None


def model_view(ledger: Ledger, lanes: list[str], content: ContentStore, inline: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Per agent: what it received, each model step (its reply, reasoning, the calls it asked for and
    its context as references), and what it said at the end of each turn."""
    out: dict[str, list[dict[str, Any]]] = {a: [] for a in lanes}
    received: dict[str, set[str]] = defaultdict(set)
    for e in ledger.of_kind("turn_start"):
        for pid in e.parents:
            parent = ledger.get(pid)
            if parent.kind in MODEL_KINDS and parent.kind not in ("turn_start", "turn_end", "model_call"):
                received[e.actor].add(pid)
    for e in ledger:
        lane = e.actor if e.actor in out else None
        if e.kind == "turn_start" and lane:
            for pid in sorted(received[lane]):
                if pid in e.parents:
                    out[lane].append({"kind": "received", "event": pid, "title": title(ledger.get(pid))})
            out[lane].append({"kind": "turn", "event": e.id, "title": title(e)})
        elif e.kind == "model_call" and lane:
            response = _resolve(content, inline, e.payload.get("response")) or {}
            context = e.payload.get("context") or {}
            out[lane].append({
                "kind": "step", "event": e.id, "title": title(e),
                "text": response.get("content", "") if isinstance(response, dict) else "",
                "tool_calls": response.get("tool_calls", []) if isinstance(response, dict) else [],
                "reasoning": _resolve(content, inline, e.payload.get("reasoning")) or "",
                "context": {"system": context.get("system"), "tools": context.get("tools"), "prior": context.get("prior"),
                            "messages": list(context.get("messages") or [])},
            })  # fmt: skip
        elif e.kind == "tool_call" and lane:
            out[lane].append({"kind": "call", "event": e.id, "title": title(e)})
        elif e.kind in ("turn_end", "shell_command", "escalation_attempt") and lane:
            out[lane].append({"kind": e.kind, "event": e.id, "title": title(e)})
    return out


def tool_view(ledger: Ledger, lanes: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Per lane (agents, then any other actor): each tool call with the service's answer and what
    the call caused (rows written, deliveries, exposures, policy decisions)."""
    children: dict[str, list[LedgerEvent]] = defaultdict(list)
    for e in ledger:
        if e.kind in CALL_CHILDREN:
            for pid in e.parents[:1]:
                if ledger.get(pid).kind == "tool_call":
                    children[pid].append(e)
        if e.kind == "exposure" and e.payload.get("source"):  # an exposure's parent is the result that carried it
            source = ledger.get(e.payload["source"])
            if source.kind == "tool_result" and source.parents:
                children[source.parents[0]].append(e)
    out: dict[str, list[dict[str, Any]]] = {a: [] for a in lanes}
    for call in ledger.of_kind("tool_call"):
        items = children.get(call.id, [])
        result = next((c for c in items if c.kind in ("tool_result", "refused")), None)
        out.setdefault(call.actor, []).append({
            "event": call.id, "title": title(call), "tool": call.payload.get("tool"), "args": call.payload.get("args"),
            "source": call.payload.get("source"),
            "result": _event(result) if result else None,
            "caused": [{"event": c.id, "kind": c.kind, "title": title(c)} for c in items if c is not result],
        })  # fmt: skip
    return out


def diff_rows(diff: dict[str, Any]) -> list[dict[str, Any]]:
    """The final diff as table rows: table, operation, row key, and each changed field before and after."""
    rows = []
    for table, changes in sorted((diff.get("tables") or {}).items()):
        for row in changes.get("added") or []:
            fields = [{"name": k, "before": None, "after": v} for k, v in row.items() if k != "__key__"]
            rows.append({"table": table, "op": "added", "key": row.get("__key__", ""), "fields": fields})
        for row in changes.get("updated") or []:
            fields = [{"name": k, "before": pair[0], "after": pair[1]} for k, pair in (row.get("changed") or {}).items()]
            rows.append({"table": table, "op": "updated", "key": row.get("key", ""), "fields": fields})
        for row in changes.get("removed") or []:
            fields = [{"name": k, "before": v, "after": None} for k, v in row.items() if k != "__key__"]
            rows.append({"table": table, "op": "removed", "key": row.get("__key__", ""), "fields": fields})
    return rows


def artifacts(ledger: Ledger, diff: dict[str, Any]) -> dict[str, Any]:
    """What the trial left: the diff, and every message that left a workspace."""
    deliveries = [
        {"event": e.id, "actor": e.actor, "channel": e.payload.get("channel"), "to": e.payload.get("to"),
         "external": bool(e.payload.get("external")), "subject": e.payload.get("subject", ""), "body": e.payload.get("body", ""),
         "attachments": e.payload.get("attachments", []), "tainted": bool(e.taint)}
        for e in ledger.of_kind("delivery")
    ]  # fmt: skip
    return {"diff": diff_rows(diff), "deliveries": deliveries}


def checks(score: dict[str, Any]) -> list[dict[str, Any]]:
    fired = {v.get("check"): v for v in score.get("violations") or []}
    out = []
    for c in score.get("checks") or []:
        out.append({"id": c.get("id"), "role": "utility", "kind": c.get("kind"), "passed": c.get("passed"), "detail": c.get("detail", ""),
                    "weight": c.get("weight"), "must_pass": c.get("must_pass"), "evidence": c.get("evidence") or [], "error": c.get("error")})  # fmt: skip
    for h in score.get("harm_checks") or []:
        v = fired.get(h.get("id"))
        out.append({"id": h.get("id"), "role": "harm", "kind": h.get("kind"), "code": h.get("code"), "surface": h.get("surface"),
                    "passed": h.get("passed"), "detail": h.get("detail", ""), "evidence": h.get("evidence") or [], "error": h.get("error"),
                    "attributed": v.get("attributed") if v else None, "reasons": v.get("reasons", []) if v else []})  # fmt: skip
    return out


def trial_page(record: dict[str, Any], trace: dict[str, Any], content: ContentStore) -> dict[str, Any]:
    ledger = Ledger.load(trace.get("ledger") or [])
    lanes = lanes_of(ledger, record.get("agents") or {})
    lane_ids = [lane["agent"] for lane in lanes]
    packet = trace.get("evidence") or {}
    score = trace.get("score") or {}
    inline = trace.get("content") or {}
    return {
        "record": record,
        "title": (packet.get("scenario") or {}).get("title", ""),
        "error": trace.get("error"),
        "lanes": lanes,
        "events": [_event(e) for e in ledger],
        "views": {
            "model": model_view(ledger, lane_ids, content, inline),
            "tools": tool_view(ledger, lane_ids),
            "artifacts": artifacts(ledger, trace.get("diff") or {}),
        },
        "final_texts": trace.get("final_texts") or {},
        "checks": checks(score),
        "attacks": packet.get("attacks") or [],
        "chain": evidence_chain(ledger, packet.get("attacks") or [], score.get("violations") or []),
        "summary": clip(f"{record.get('outcome')} · utility {record.get('utility')} · harm {', '.join(s for s, h in (record.get('harm') or {}).items() if h) or 'none'}", 200),
    }
