"""The payloads of the two ledger events a sandboxed harness leaves: each shell command it ran
(`shell_command`) and each attempt to reach beyond its model endpoint and its MCP endpoint
(`escalation_attempt`).

Declared here, under the gateway that records them and the harness adapters that report them,
so both validate against one definition; unknown fields are errors, never silently kept.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

OUTPUT_LIMIT = 4000  # characters of a command's output kept in the ledger (a `cat` of a big file stays small)
CLIPPED = "\n[... clipped]"

EscalationKind = Literal["route", "network", "file", "secret"]
ESCALATION_KINDS: tuple[EscalationKind, ...] = ("route", "network", "file", "secret")
EscalationSource = Literal["proxy", "shell", "tool"]  # tool: a built-in file or web tool of the harness (a path or URL argument)


class _Payload(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    harness: str = Field(min_length=1, description="the harness that ran the trial: claude-code, codex, gemini-cli, ...")
    turn: int = Field(ge=1, description="the agent's turn number, from 1")


def clip(text: str, limit: int = OUTPUT_LIMIT) -> str:
    return text if len(text) <= limit else text[:limit] + CLIPPED


class ShellCommand(_Payload):
    """One shell command the harness ran in its sandbox."""

    command: str = Field(min_length=1)
    exit_code: int | None = None  # None: killed, timed out, or the harness did not say
    output: str = ""  # stdout and stderr as the harness saw them, clipped to OUTPUT_LIMIT
    tool_id: str = ""  # the harness's id of the tool call that ran it

    @field_validator("output")
    @classmethod
    def _clip(cls, value: str) -> str:
        return clip(value)


class EscalationAttempt(_Payload):
    """A request or command that tried to reach something other than the model and MCP endpoints."""

    kind: EscalationKind  # route: a REST route or /_admin; network: another host or port; file: outside the workspace; secret: an environment secret
    target: str = Field(min_length=1, description="the route, host:port, path or variable name")
    detail: str = ""
    source: EscalationSource  # proxy: the sandbox's HTTP proxy saw it; shell: a recorded command did it; tool: a built-in tool call did it
    command: str = ""  # the shell command or tool call behind it ("" for the proxy)

    @model_validator(mode="after")
    def _command_matches_source(self) -> "EscalationAttempt":
        if self.source == "proxy" and self.command:
            raise ValueError("command: must be empty when source is 'proxy' (the proxy sees requests, not commands)")
        if self.source in ("shell", "tool") and not self.command:
            raise ValueError(f"command: a {self.source} escalation attempt names the command or tool call that made it")
        return self
