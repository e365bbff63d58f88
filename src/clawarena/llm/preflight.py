"""Before a run: is the model's key there, and does its endpoint answer?

Without this, a missing key or a server that is down turns every trial into an
`error` one by one, after retries, and the run still looks finished. One cheap
request per endpoint (the provider's model list, which costs no tokens) tells
it up front. Any HTTP answer counts as "answers" (local servers often lack the
route); only a refused key (401/403) or no answer at all fails.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from clawarena.llm.config import DEFAULT_KEY_ENV, ModelConfig, ModelConfigError

PREFLIGHT_TIMEOUT_S = 10.0


class EndpointUnavailable(ModelConfigError):
    """The model's endpoint is unusable before the run starts; the message is one line for the user."""


def _where(config: ModelConfig) -> str:
    return config.base_url or f"the {config.provider} API"


def check_key(config: ModelConfig, label: str) -> None:
    """A hosted endpoint needs its key variable set; so does any variable a models file names."""
    env = config.api_key_env or DEFAULT_KEY_ENV[config.provider]
    if os.environ.get(env):
        return
    if config.api_key_env or not config.base_url:
        hint = "" if config.base_url else " (or point --base-url at a local server, which needs no key)"
        raise EndpointUnavailable(f"--agent {label}: {env} is not set; export it{hint}")


def _status_of(exc: Exception) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def _openai_probe(config: ModelConfig, timeout: float) -> None:
    import openai

    client = openai.OpenAI(api_key=config.api_key() or "missing", base_url=config.base_url, max_retries=0, timeout=timeout)
    client.models.list()


def _anthropic_probe(config: ModelConfig, timeout: float) -> None:
    import anthropic

    client = anthropic.Anthropic(api_key=config.api_key() or "missing", base_url=config.base_url, max_retries=0, timeout=timeout)
    client.models.list()


class _Refused(Exception):
    def __init__(self, status: int):
        super().__init__(f"HTTP {status}")
        self.status_code = status


def _google_probe(config: ModelConfig, timeout: float) -> None:
    """The Gemini API's model list (no SDK: only the gemini-cli harness speaks it)."""
    import httpx

    base = (config.base_url or "https://generativelanguage.googleapis.com").rstrip("/")
    answer = httpx.get(f"{base}/v1beta/models", headers={"x-goog-api-key": config.api_key() or "missing"}, timeout=timeout)
    if answer.status_code in (401, 403) or (answer.status_code == 400 and "API_KEY_INVALID" in answer.text):
        raise _Refused(403 if answer.status_code == 400 else answer.status_code)


PROBES: dict[str, Callable[[ModelConfig, float], None]] = {"openai": _openai_probe, "anthropic": _anthropic_probe, "google": _google_probe}
# The SDK exceptions that mean "nothing answered", by provider (looked up lazily: the SDKs are heavy).
_NO_ANSWER = {"openai": ("APIConnectionError", "APITimeoutError"), "anthropic": ("APIConnectionError", "APITimeoutError"), "google": ("TransportError",)}


def check_endpoint(config: ModelConfig, label: str, timeout: float = PREFLIGHT_TIMEOUT_S) -> None:
    """Raise EndpointUnavailable (one line) when the key is missing or refused, or nothing answers."""
    check_key(config, label)
    try:
        PROBES[config.provider](config, timeout)
    except Exception as exc:  # noqa: BLE001 - sorted below; anything unknown is not ours to judge
        names = {c.__name__ for c in type(exc).__mro__}
        if names & set(_NO_ANSWER[config.provider]):
            cause = exc.__cause__ or exc.__context__
            why = f" ({type(cause).__name__}: {cause})" if cause else ""
            raise EndpointUnavailable(
                f"--agent {label}: {_where(config)} does not answer{why}; start the server or fix --base-url (or base_url in the models file)"
            ) from None
        status = _status_of(exc)
        if status in (401, 403):
            env = config.api_key_env or DEFAULT_KEY_ENV[config.provider]
            raise EndpointUnavailable(f"--agent {label}: {_where(config)} refused the key in {env} (HTTP {status})") from None
        # Any other HTTP answer (404 for a server without a model list, 5xx the run retries): it answers.
