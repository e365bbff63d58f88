"""Model configs: `--agent openai:MODEL`, `--agent anthropic:MODEL`, or a named entry of a models file.

models.yaml:
    models:
      - name: gpt-small
        provider: openai
        model: gpt-4o-mini
        base_url: http://127.0.0.1:8000/v1   # any OpenAI-compatible server (vLLM, Ollama, llama.cpp)
        api_key_env: OPENAI_API_KEY
        temperature: 0
        max_tokens: 1024
        price: {input_per_mtok: 0.15, output_per_mtok: 0.60}
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import Field, ValidationError

from clawarena.spec.base import Strict

DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "google": "GEMINI_API_KEY"}


class Price(Strict):
    input_per_mtok: float = Field(default=0.0, ge=0)
    output_per_mtok: float = Field(default=0.0, ge=0)

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input_per_mtok + output_tokens * self.output_per_mtok) / 1_000_000


class Budget(Strict):
    """Per-trial limits; reaching one ends the trial with termination `budget`."""

    max_tokens: int | None = Field(default=None, ge=1, description="input + output tokens across the trial")
    max_seconds: float | None = Field(default=None, gt=0, description="wall-clock seconds per trial for this agent, from its first turn (model and tool time)")
    max_steps_per_turn: int = Field(default=30, ge=1, description="model calls in one agent turn")


class ModelConfig(Strict):
    name: str = ""
    provider: Literal["openai", "anthropic", "google"]  # google: the Gemini API, spoken by the gemini-cli harness
    model: str
    base_url: str | None = None
    api_key_env: str | None = None
    temperature: float | None = None
    max_tokens: int = Field(default=2048, ge=1)
    reasoning: dict[str, Any] = Field(default={}, description="provider-specific reasoning options, passed through")
    price: Price = Price()
    max_concurrency: int = Field(default=4, ge=1, description="concurrent calls to this provider endpoint")
    timeout_s: float = Field(default=120.0, gt=0)
    max_retries: int = Field(default=5, ge=0)
    retry_base_delay: float = Field(default=1.0, ge=0, description="first backoff in seconds; doubles per retry, full jitter")
    budget: Budget = Budget()

    def api_key(self) -> str:
        env = self.api_key_env or DEFAULT_KEY_ENV[self.provider]
        # Local OpenAI-compatible servers accept any key; hosted ones need the variable set.
        return os.environ.get(env) or ("not-needed" if self.base_url else "")


class ModelsFile(Strict):
    models: list[ModelConfig]


class ModelConfigError(ValueError):
    pass


def load_models(path: Path | str) -> dict[str, ModelConfig]:
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as exc:
        raise ModelConfigError(f"{path}: cannot read: {exc.strerror}") from exc
    try:
        parsed = ModelsFile.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) if not isinstance(p, int) else f"[{p}]" for p in first["loc"]).replace(".[", "[")
        raise ModelConfigError(f"{path}: {loc}: {first['msg']}") from None
    out = {}
    for m in parsed.models:
        if not m.name:
            raise ModelConfigError(f"{path}: models: every entry needs a name")
        out[m.name] = m
    return out


def resolve(spec: str, models: dict[str, ModelConfig] | None = None, base_url: str | None = None) -> ModelConfig:
    """`openai:MODEL`, `anthropic:MODEL`, or `model:NAME` from the models file."""
    kind, _, rest = spec.partition(":")
    if kind == "model":
        if not models or rest not in models:
            raise ModelConfigError(f"--agent: no model named {rest!r} in the models file")
        config = models[rest]
        return config.model_copy(update={"base_url": base_url}) if base_url else config
    if kind in ("openai", "anthropic"):
        if not rest:
            raise ModelConfigError(f"--agent: {kind}: needs a model name, e.g. {kind}:MODEL")
        return ModelConfig(name=spec, provider=kind, model=rest, base_url=base_url)
    raise ModelConfigError(f"--agent: {spec!r} is not a model agent")
