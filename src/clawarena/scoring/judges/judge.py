"""A Judge: a resolved model config and its label. It asks the provider (no tools) for a verdict on
one surface of one evidence packet, validates the reply, and asks again, saying what was wrong,
until it gets a valid verdict or runs out of attempts: then the verdict is *unscorable*, never a pass.
A provider error (after the provider's own retries on 429/5xx) ends the question as unscorable too.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from clawarena.llm.config import ModelConfig
from clawarena.llm.providers import Provider, make_provider
from clawarena.llm.types import Message, ModelCallRecord
from clawarena.scoring.judges.prompt import JudgePrompt, build_prompt, retry_message
from clawarena.scoring.judges.verdict import JudgeVerdict, JudgmentStatus

DEFAULT_ATTEMPTS = 3
PROVIDER_ERROR = "provider error"  # the prefix of a problem that came from the endpoint, not the answer

_FENCE = re.compile(r"^```(?:json|JSON)?[ \t]*\n(?P<body>.*?)\n?```$", re.DOTALL)


class VerdictProblem(ValueError):
    """Why a reply is not a valid verdict, in a sentence the judge model is shown."""


def _field_errors(exc: ValidationError) -> str:
    parts = []
    for e in exc.errors()[:5]:
        where = ".".join(str(p) for p in e["loc"]) or "the answer"
        parts.append(f"{where}: {e['msg']}")
    return "; ".join(parts)


def parse_verdict(text: str, prompt: JudgePrompt) -> JudgeVerdict:
    """The reply as a JudgeVerdict (a ```json fence around it is accepted), or VerdictProblem."""
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced["body"].strip()
    if not body:
        raise VerdictProblem("the reply was empty, not a JSON object")
    try:
        data = json.loads(body)
    except ValueError as exc:
        raise VerdictProblem(f"the reply is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise VerdictProblem(f"the reply is JSON but not an object (got {type(data).__name__})")
    try:
        verdict = JudgeVerdict.model_validate(data)
    except ValidationError as exc:
        raise VerdictProblem(f"the object does not match the schema ({_field_errors(exc)})") from None
    if verdict.surface != prompt.surface:
        raise VerdictProblem(f"surface is {verdict.surface!r}, but the question was about {prompt.surface!r}")
    unknown = [i for i in verdict.evidence_ids if i not in prompt.event_ids]
    if unknown:
        raise VerdictProblem(f"evidence_ids {', '.join(map(repr, unknown))} are not ids of events shown")
    return verdict


@dataclass
class JudgeResult:
    """One question's outcome: a verdict or unscorable, the attempts it took and what they cost."""

    status: JudgmentStatus
    verdict: JudgeVerdict | None
    attempts: int
    problems: list[str] = field(default_factory=list)
    usage: dict[str, float] = field(default_factory=dict)


def _usage(records: list[ModelCallRecord]) -> dict[str, float]:
    return {
        "calls": len(records),
        "input_tokens": sum(r.input_tokens for r in records),
        "output_tokens": sum(r.output_tokens for r in records),
        "cost_usd": round(sum(r.cost_usd for r in records), 8),
        "retries": sum(r.retries for r in records),
    }


@dataclass
class Judge:
    label: str  # as given on the command line: "openai:gpt-x", "model:NAME"
    config: ModelConfig
    attempts: int = DEFAULT_ATTEMPTS
    _provider: Provider | None = field(default=None, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError(f"judge {self.label}: attempts must be at least 1, got {self.attempts}")

    @property
    def provider(self) -> Provider:
        with self._lock:  # one SDK client per judge, made on first use and shared by threads
            if self._provider is None:
                self._provider = make_provider(self.config)
            return self._provider

    def judge(self, packet: dict[str, Any], surface: str) -> JudgeResult:
        return self.ask(build_prompt(packet, surface))

    def ask(self, prompt: JudgePrompt) -> JudgeResult:
        messages = [Message("user", prompt.user)]
        calls: list[ModelCallRecord] = []
        problems: list[str] = []
        for attempt in range(1, self.attempts + 1):
            try:
                turn = self.provider.complete(prompt.system, messages, [])
            except Exception as exc:  # noqa: BLE001 - any provider failure makes this question unscorable, never the run
                problems.append(f"attempt {attempt}: {PROVIDER_ERROR}: {type(exc).__name__}: {str(exc).strip()[:500]}")
                return JudgeResult("unscorable", None, attempt, problems, _usage(calls))
            calls.append(turn.record)
            try:
                verdict = parse_verdict(turn.text, prompt)
            except VerdictProblem as problem:
                problems.append(f"attempt {attempt}: {problem}")
                said = turn.text or "(an empty reply)"
                messages += [Message("assistant", said), Message("user", retry_message(str(problem), prompt.surface))]
                continue
            return JudgeResult("scored", verdict, attempt, problems, _usage(calls))
        return JudgeResult("unscorable", None, self.attempts, problems, _usage(calls))
