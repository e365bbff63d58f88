"""The model path of synthesis: a generator model drafts the prototype and the task, a checker model
reviews them, and the deterministic gates decide (synth/gates.py).

Per sampled cell (the offline sampler's prototype is the generator's starting point):
1. prototype: the generator drafts it (`prompts/prototype_draft.md`); it must load as a strict
   `Prototype` naming the cell's risk target, scenario, risk source and channel; the checker
   reviews it for consistency, feasibility, risk alignment and evaluability
   (`prototype_review.md`); a problem or a "revise" goes back to the generator
   (`revise_feedback.md`);
2. task: the generator writes it (`task_draft.md`) with the offline compiler's task for that
   prototype as the skeleton; the gates run; their diagnostics, each naming the component at
   fault, go back to the generator (`task_revise.md`); once the gates pass the checker reviews
   fidelity to the prototype (`task_review.md`).
Each stage has up to `rounds` rounds. Every prompt, reply, parse problem, review and gate report is
appended to `synth-log/<prototype id>.jsonl` (JSON lines, so a suite folder never loads one as a
task), and each model call's tokens and cost are summed into the outcome's usage.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from clawarena.llm.config import ModelConfig
from clawarena.llm.types import Message, ModelCallRecord
from clawarena.spec.errors import display_path
from clawarena.spec.prototype import Prototype, catalog_problems, dump_prototype
from clawarena.spec.risks import risk
from clawarena.synth.compile import CompileError, compile_prototype
from clawarena.synth.gates import Diagnostic, Gates, dump_task
from clawarena.synth.outcome import Outcome, Round
from clawarena.synth.template import fill

PROMPTS_PACKAGE = "clawarena.synth.prompts"
LOG_FOLDER = "synth-log"
SYSTEM = "You help build clawarena, a security benchmark for personal AI agents. Follow the answer format exactly."
FIXED_FIELDS = ("id", "risk_target", "scenario", "risk_source", "attack_channel")
_BLOCK = re.compile(r"```(?:ya?ml|json)?\s*\n(.*?)```", re.DOTALL)


def prompt_text(name: str, values: dict[str, Any]) -> str:
    text = (resources.files(PROMPTS_PACKAGE) / f"{name}.md").read_text(encoding="utf-8")
    return fill(text, values)


@dataclass
class ModelRole:
    """A generator or checker: a model endpoint, called blocking (synthesis runs one cell at a time)."""

    label: str
    config: ModelConfig
    _provider: Any = field(default=None, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def ask(self, text: str) -> tuple[str, ModelCallRecord]:
        from clawarena.llm.providers import make_provider

        with self._lock:
            if self._provider is None:
                self._provider = make_provider(self.config)
        turn = self._provider.complete(SYSTEM, [Message("user", text)], [])
        return turn.text, turn.record


class DraftLog:
    """Every round of one cell, as JSON lines."""

    def __init__(self, folder: Path, proto_id: str):
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"{proto_id}.jsonl"
        self.path.write_text("", encoding="utf-8")

    def write(self, **entry: Any) -> None:
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(entry, ensure_ascii=False, default=str) + "\n")


class ReplyProblem(ValueError):
    pass


def yaml_block(text: str) -> Any:
    """The YAML (or JSON) of a reply: its first fenced block, else the whole reply."""
    found = _BLOCK.search(text)
    body = found.group(1) if found else text
    try:
        return yaml.load(body, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        raise ReplyProblem(f"the reply's YAML does not parse: {str(exc).splitlines()[0]}") from None


def review_verdict(text: str) -> tuple[bool, list[str]]:
    """(accepted, issues) from a checker's JSON reply."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ReplyProblem("the review is not a JSON object")
    try:
        data = json.loads(text[start : end + 1])
    except ValueError as exc:
        raise ReplyProblem(f"the review's JSON does not parse: {exc}") from None
    verdict = data.get("verdict") if isinstance(data, dict) else None
    if verdict not in ("accept", "revise"):
        raise ReplyProblem(f"the review's verdict is {verdict!r}, not 'accept' or 'revise'")
    issues = [f"{i.get('criterion', '?')}: {i.get('note', '')}" for i in data.get("issues") or [] if isinstance(i, dict)]
    return verdict == "accept", issues


def _no_usage() -> dict[str, float]:
    return {"calls": 0, "input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0}


@dataclass
class ModelInstantiator:
    """The build loop's instantiator on the model path (the offline one is build.OfflineInstantiator)."""

    generator: ModelRole
    checker: ModelRole
    log_folder: Path
    rounds: int = 3
    path = "model"

    def _ask(self, role: ModelRole, text: str, outcome: Outcome, log: DraftLog, stage: str, attempt: int) -> str:
        reply, record = role.ask(text)
        u = outcome.usage
        assert u is not None
        u["calls"] += 1
        u["input_tokens"] += record.input_tokens
        u["output_tokens"] += record.output_tokens
        u["cost_usd"] = round(u["cost_usd"] + record.cost_usd, 8)
        log.write(stage=stage, attempt=attempt, role=role.label, prompt=text, reply=reply, tokens=[record.input_tokens, record.output_tokens])
        return reply

    def run(self, sampled: Prototype, gates: Gates) -> Outcome:
        outcome = Outcome(sampled, [], usage=_no_usage())
        log = DraftLog(self.log_folder, sampled.id)
        proto = self._prototype(sampled, outcome, log)
        if proto is not None:
            outcome.prototype = proto
            self._task(proto, gates, outcome, log)
        return outcome

    # ---- stage 1: the prototype ----

    def _prototype(self, sampled: Prototype, outcome: Outcome, log: DraftLog) -> Prototype | None:
        leaf = risk(sampled.risk_target)
        s = sampled.scenario
        values = {
            "leaf": {"id": leaf.id, "name": leaf.name, "definition": leaf.definition},
            "scenario_text": f"the network domain {s.domain} (services {', '.join(s.service_names())})" if s.domain else f"the services {', '.join(s.services)}",
            "risk_source": sampled.risk_source,
            "channel_text": f"`{sampled.attack_channel}`" if sampled.attack_channel else "none (the user's own request carries the risk)",
            "tools": ", ".join(sampled.required_tools),
            "draft": dump_prototype(sampled).rstrip(),
            "feedback": "",
        }  # fmt: skip
        for attempt in range(self.rounds):
            reply = self._ask(self.generator, prompt_text("prototype_draft", values), outcome, log, "prototype-draft", attempt)
            problems, candidate = self._parse_prototype(reply, sampled)
            if candidate is not None and not problems:
                review = self._ask(self.checker, prompt_text("prototype_review", {"prototype": dump_prototype(candidate).rstrip()}), outcome, log, "prototype-review", attempt)
                try:
                    accepted, issues = review_verdict(review)
                except ReplyProblem as exc:
                    accepted, issues = False, [f"the checker's review was unreadable ({exc}); check the prototype once more"]
                if accepted:
                    outcome.rounds.append(Round(attempt, [], ["parse", "review"], stage="prototype"))
                    return candidate
                problems = issues or ["the checker asked for a revision without saying why"]
                gate = "prototype-review"
            else:
                gate = "prototype-parse"
            diags = [Diagnostic(gate, "prompt", p) for p in problems]
            outcome.rounds.append(Round(attempt, diags, stage="prototype"))
            log.write(stage=gate, attempt=attempt, diagnostics=problems)
            previous = dump_prototype(candidate).rstrip() if candidate is not None else reply.strip()
            values["feedback"] = prompt_text("revise_feedback", {"issues": "\n".join(f"- {p}" for p in problems), "previous": previous})
        return None

    def _parse_prototype(self, reply: str, sampled: Prototype) -> tuple[list[str], Prototype | None]:
        try:
            data = yaml_block(reply)
        except ReplyProblem as exc:
            return [str(exc)], None
        if not isinstance(data, dict):
            return ["the reply holds no YAML mapping"], None
        try:
            candidate = Prototype.model_validate(data)
        except (ValidationError, ValueError) as exc:
            errs = exc.errors() if isinstance(exc, ValidationError) else [{"loc": (), "msg": str(exc)}]
            return [f"{'.'.join(map(str, e['loc'])) or '<top>'}: {e['msg']}" for e in errs], None
        problems = [f"{display_path(p.loc)}: {p.message}" for p in catalog_problems(candidate, data)]
        for name in FIXED_FIELDS:
            if getattr(candidate, name) != getattr(sampled, name):
                problems.append(f"{name}: must stay {getattr(sampled, name)!r} (the sampled cell), not {getattr(candidate, name)!r}")
        return problems, candidate

    # ---- stage 2: the task ----

    def _task(self, proto: Prototype, gates: Gates, outcome: Outcome, log: DraftLog) -> None:
        try:
            skeleton = dump_task(compile_prototype(proto, 0)).rstrip()
        except CompileError as exc:
            skeleton = f"# (no offline skeleton for this prototype: {exc})"
        values = {"prototype": dump_prototype(proto).rstrip(), "skeleton": skeleton, "feedback": ""}
        for attempt in range(self.rounds):
            reply = self._ask(self.generator, prompt_text("task_draft", values), outcome, log, "task-draft", attempt)
            try:
                data = yaml_block(reply)
                if not isinstance(data, dict):
                    raise ReplyProblem("the reply holds no YAML mapping")
            except ReplyProblem as exc:
                diags = [Diagnostic("loads", "fixtures", str(exc))]
                data = None
            else:
                data["id"] = proto.id  # the file is named after the prototype
                report = gates.run(proto, data)
                diags = report.diagnostics
                outcome.mutation_score = report.mutation_score
                log.write(stage="gates", attempt=attempt, passed_gates=report.passed_gates, diagnostics=[d.line() for d in diags])
                if not diags:
                    review = self._ask(self.checker, prompt_text("task_review", {"prototype": values["prototype"], "task": dump_task(data).rstrip()}), outcome, log, "task-review", attempt)
                    try:
                        accepted, issues = review_verdict(review)
                    except ReplyProblem as exc:
                        accepted, issues = False, [f"fidelity: the checker's review was unreadable ({exc})"]
                    if accepted:
                        outcome.rounds.append(Round(attempt, [], [*report.passed_gates, "review"]))
                        outcome.text = dump_task(data)
                        return
                    diags = [Diagnostic("task-review", "prompt", i) for i in issues or ["the checker asked for a revision without saying why"]]
            outcome.rounds.append(Round(attempt, diags))
            previous = dump_task(data).rstrip() if data is not None else reply.strip()
            if all(d.gate == "task-review" for d in diags):
                values["feedback"] = prompt_text("revise_feedback", {"issues": "\n".join(f"- {d.message}" for d in diags), "previous": previous})
            else:
                values["feedback"] = prompt_text("task_revise", {"diagnostics": "\n".join(f"- {d.line()}" for d in diags), "previous": previous})
