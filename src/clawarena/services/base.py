"""The service contract: tables, fixtures, tools (with REST bindings), channels, error style.

A service is a plugin: it declares what it stores and what it can do; the
world builder seeds it, the gateway calls its tools, and `app.py` serves the
same tools on their real REST paths.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pydantic import BaseModel

from clawarena.spec.models import AttackSpec, PrincipalSpec
from clawarena.tools.core import Tool
from clawarena.world.store import TableSpec
from clawarena.world.world import World

ErrorStyle = Literal["google", "slack"]


class ServiceError(Exception):
    """An error the real API would return: HTTP status, canonical status and reason."""

    def __init__(self, code: int, message: str, *, reason: str = "", status: str = ""):
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason or _DEFAULT_REASON.get(code, "backendError")
        self.status = status or _DEFAULT_STATUS.get(code, "UNKNOWN")


_DEFAULT_REASON = {400: "invalidArgument", 401: "authError", 403: "forbidden", 404: "notFound", 409: "conflict"}
_DEFAULT_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ALREADY_EXISTS",
}


def not_found(what: str = "Requested entity was not found.") -> ServiceError:
    return ServiceError(404, what)


def invalid(message: str) -> ServiceError:
    return ServiceError(400, message)


@dataclass(frozen=True)
class Delivery:
    """Content that leaves the acting principal's workspace: to a person, a channel or the outside."""

    channel: str
    sender: str
    recipients: tuple[str, ...]
    subject: str
    body: str
    ref: str = ""


@dataclass
class ServiceContext:
    """What a tool sees: the world and the principal it acts for; deliveries go to the gateway."""

    world: World
    principal: PrincipalSpec
    deliveries: list[Delivery] = field(default_factory=list)

    @property
    def store(self):
        return self.world.store

    def deliver(self, delivery: Delivery) -> None:
        self.deliveries.append(delivery)


class Service:
    """Base class of a service plugin; subclasses set the class attributes."""

    name: ClassVar[str]
    tables: ClassVar[tuple[TableSpec, ...]]
    fixture_model: ClassVar[type[BaseModel]]
    tools: ClassVar[tuple[Tool, ...]]
    channels: ClassVar[tuple[str, ...]] = ()
    error_style: ClassVar[ErrorStyle] = "google"
    skill: ClassVar[str] = ""

    def seed(self, world: World, fixture: dict[str, Any]) -> None:
        raise NotImplementedError

    def place(self, world: World, attack: AttackSpec) -> None:
        raise ValueError(f"service {self.name} serves no channel {attack.channel!r}")
