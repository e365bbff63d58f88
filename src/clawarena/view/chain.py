"""The evidence chain of a trial as a graph: attack material -> exposures -> the agent's decisions
-> tool calls -> state changes and deliveries -> harm checks.

Built from the ledger's causal parents alone, so it shows what the verdict rests on:
- a harm node per violation (a harm check or attack goal that fired), with its attribution;
- its evidence events: the rows a call wrote (`state_change`), what left a workspace (`delivery`),
  or the call itself;
- the tool call behind each of them, and the step that decided the call (`Ledger.step_of`: the
  model call whose reply made it, else the scripted agent's turn);
- the exposures among the call's ancestors (of the violation's materials, when it names any),
  each from its attack material. Material that was seen and not acted on shows as a short chain
  that ends at its exposure.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from clawarena.view.events import clip, title
from clawarena.world.ledger import Ledger, LedgerEvent

LAYERS = ("material", "exposure", "decision", "call", "effect", "harm")


@dataclass(frozen=True)
class Node:
    id: str
    layer: str
    label: str
    event: str | None = None  # the ledger event it stands for (None: material and harm nodes)
    detail: str = ""


@dataclass
class Chain:
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: dict[tuple[str, str], None] = field(default_factory=dict)  # ordered and without repeats

    def add(self, node: Node) -> str:
        self.nodes.setdefault(node.id, node)
        return node.id

    def link(self, a: str, b: str) -> None:
        self.edges[(a, b)] = None

    def event_node(self, layer: str, event: LedgerEvent) -> str:
        detail = f"{event.actor} · {event.time}"
        return self.add(Node(f"{layer}:{event.id}", layer, clip(title(event), 90), event.id, detail))

    def public(self) -> dict[str, Any]:
        order = {name: i for i, name in enumerate(LAYERS)}
        nodes = sorted(self.nodes.values(), key=lambda n: (order[n.layer], n.event or "", n.id))
        return {"layers": list(LAYERS), "nodes": [asdict(n) for n in nodes], "edges": [{"from": a, "to": b} for a, b in self.edges]}


def _call_of(ledger: Ledger, event: LedgerEvent) -> LedgerEvent | None:
    """The tool call an effect came from: the event itself, or its nearest tool-call ancestor."""
    if event.kind == "tool_call":
        return event
    calls = [ledger.get(i) for i in ledger.ancestors(event.id) if ledger.get(i).kind == "tool_call"]
    return max(calls, key=lambda e: e.seq) if calls else None


def evidence_chain(ledger: Ledger, attacks: list[dict[str, Any]], violations: list[dict[str, Any]]) -> dict[str, Any]:
    chain = Chain()
    material_node = {}
    for a in attacks:
        label = f"{a.get('id')} ({a.get('channel')})"
        material_node[a.get("id")] = chain.add(Node(f"material:{a.get('id')}", "material", label, None, clip(a.get("goal", ""), 140)))
    exposure_node = {}
    for e in ledger.exposures():
        exposure_node[e.id] = chain.event_node("exposure", e)
        material = e.payload.get("material")
        if material in material_node:
            chain.link(material_node[material], exposure_node[e.id])
    for n, v in enumerate(violations):
        verdict = "attack-caused" if v.get("attributed") else "not linked to attack material"
        reasons = ", ".join(v.get("reasons") or [])
        harm = chain.add(Node(f"harm:{v.get('check', n)}", "harm", f"{v.get('code')} ({v.get('surface')})", None,
                              clip(f"{verdict}{': ' + reasons if reasons else ''}. {v.get('detail', '')}", 200)))  # fmt: skip
        materials = set(v.get("materials") or [])
        for eid in v.get("evidence") or []:
            try:
                event = ledger.get(eid)
            except KeyError:
                continue
            call = _call_of(ledger, event)
            if call is None:  # evidence with no call behind it (a scripted actor's message, a seeded row)
                chain.link(chain.event_node("effect", event), harm)
                continue
            call_id = chain.event_node("call", call)
            if event.id == call.id:
                chain.link(call_id, harm)
            else:
                effect = chain.event_node("effect", event)
                chain.link(call_id, effect)
                chain.link(effect, harm)
            step = ledger.step_of(call.id)
            upstream = call_id
            if step is not None:
                upstream = chain.event_node("decision", step)
                chain.link(upstream, call_id)
            for aid in sorted(ledger.ancestors(call.id)):
                ancestor = ledger.get(aid)
                if ancestor.kind == "exposure" and (not materials or ancestor.payload.get("material") in materials):
                    chain.link(exposure_node[aid], upstream)
    return chain.public()
