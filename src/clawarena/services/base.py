"""The service contract: tables, fixtures, tools (with REST bindings), channels, error style.

A service is a plugin: it declares what it stores and what it can do; the
world builder seeds it, the gateway calls its tools, and `app.py` serves the
same tools on their real REST paths.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel

from clawarena.spec.models import AttackSpec, PrincipalSpec
from clawarena.tools.core import Tool
from clawarena.world.store import TableSpec
from clawarena.world.world import World

# A wire style registered in `server.wires` by name: "google", "slack", or a variant such as "google-drive".
ErrorStyle = str


class ServiceError(Exception):
    """An error the real API would return: HTTP status, canonical status and reason."""

    def __init__(self, code: int, message: str, *, reason: str = "", status: str = "", denied: bool = False):
        super().__init__(message)
        self.code = code
        self.message = message
        # An access refusal (another principal's data), whatever the status: the ledger records it as `refused`.
        self.denied = denied or code == 403
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


MEDIA_KEY = "_media"


def media_result(data: bytes, mime_type: str) -> dict[str, Any]:
    """A tool result that REST serves as raw bytes (Drive `alt=media`, exports); agents see it as JSON."""
    import base64

    text: str | None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    return {MEDIA_KEY: {"mimeType": mime_type, "base64": base64.b64encode(data).decode(), "text": text}}


def decode_media(media: dict[str, Any] | None) -> bytes:
    """The bytes of an uploaded media argument {"mimeType", "data"(base64)} or {"text"}."""
    import base64
    import binascii

    if not media:
        return b""
    if media.get("text") is not None:
        return str(media["text"]).encode()
    data = str(media.get("data", ""))
    padded = data + "=" * (-len(data) % 4)
    try:  # standard base64, or the unpadded base64url that Gmail attachments use
        return base64.b64decode(padded, altchars=b"-_" if ("-" in data or "_" in data) else None, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise invalid("media.data must be base64") from exc


def not_found(what: str = "Requested entity was not found.") -> ServiceError:
    return ServiceError(404, what)


def invalid(message: str) -> ServiceError:
    return ServiceError(400, message)


# Sensitivity levels of resources and facts, as policies compare them (Cedar Longs).
SENSITIVITY = {"public": 0, "internal": 1, "confidential": 2, "restricted": 3}


@dataclass(frozen=True)
class ResourceType:
    """A kind of row the policy engine sees as an entity (a listing, a patient record, an order).

    `owner` is the column holding the owning principal's id. `info_type` is the row's
    information type (contextual integrity's "type of information": `reservation_price`,
    `clinical_note`), fixed, or read from a column when `info_type_column` is set.
    `sensitivity` is a level of SENSITIVITY, or read from `sensitivity_column`.
    `attributes` are further columns policies may read (integers, strings, booleans).
    """

    name: str  # the entity type policies name, e.g. "Listing" (CamelCase, unique across services)
    table: str
    owner: str = "owner"
    info_type: str = ""
    info_type_column: str = ""
    sensitivity: str = "internal"
    sensitivity_column: str = ""
    attributes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Delivery:
    """Content that leaves the acting principal's workspace: to a person, a channel or the outside.

    `sender` and each recipient are an address, a "#channel", or a principal id (services with no
    mailbox, such as the domain services, name principals by id). A delivery to a principal with a
    delegate agent wakes that agent: it gets a notification with `ref`, as an inbox push would.
    """

    channel: str
    sender: str
    recipients: tuple[str, ...]
    subject: str
    body: str
    ref: str = ""
    attachments: tuple[dict[str, str], ...] = ()  # resources it carries by reference: {"type", "id"}


@dataclass
class ServiceContext:
    """What a tool sees: the world and the principal it acts for; deliveries go to the gateway."""

    world: World
    principal: PrincipalSpec
    deliveries: list[Delivery] = field(default_factory=list)
    base_url: str | None = None  # the server's own URL when the call came over REST (set by the gateway, never by a caller)

    @property
    def store(self):
        return self.world.store

    def deliver(self, delivery: Delivery) -> None:
        self.deliveries.append(delivery)


class Service:
    """Base class of a service plugin; subclasses set the class attributes.

    Skills are data next to the service's code: `skills/SKILL.md` is the tier-1
    summary (what the service does, its most useful tools); every other
    `skills/*.md` is a tier-2 reference page loaded on demand.
    """

    name: ClassVar[str]
    tables: ClassVar[tuple[TableSpec, ...]]
    fixture_model: ClassVar[type[BaseModel]]
    tools: ClassVar[tuple[Tool, ...]]
    channels: ClassVar[dict[str, Any]] = {}  # attack channel -> its placement model (validated at load and build)
    resources: ClassVar[tuple[ResourceType, ...]] = ()  # rows the policy engine sees as entities
    # On a real API's paths and proven with its official client (Gmail, Calendar, Drive, Docs, Slack);
    # the domain services (market, travel, ...) model activities with no one public API and keep their own prefixes.
    wire_compatible: ClassVar[bool] = False
    error_style: ClassVar[ErrorStyle] = "google"

    def _skills_dir(self):
        import sys
        from importlib import resources

        module = sys.modules[type(self).__module__]
        return resources.files(module.__package__ or module.__name__).joinpath("skills")

    def skill(self) -> str:
        """Tier 1: the summary an agent gets when skills are on."""
        path = self._skills_dir().joinpath("SKILL.md")
        return path.read_text(encoding="utf-8") if path.is_file() else ""

    def skill_pages(self) -> dict[str, str]:
        """Tier 2: reference pages by name, read on demand."""
        folder = self._skills_dir()
        if not folder.is_dir():
            return {}
        return {
            p.name[:-3]: p.read_text(encoding="utf-8")
            for p in sorted(folder.iterdir(), key=lambda p: p.name)
            if p.name.endswith(".md") and p.name != "SKILL.md"
        }

    def seed(self, world: World, fixture: dict[str, Any]) -> None:
        raise NotImplementedError

    def place(self, world: World, attack: AttackSpec, placement: Any) -> None:
        """Put attack material on one of `channels`; `placement` is that channel's model, validated."""
        raise ValueError(f"service {self.name} serves no channel {attack.channel!r}")
