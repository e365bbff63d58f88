"""The catalog: what the installed plugins provide, so task files are checked at load.

Services register their fixture models, tables, tools and attack channels (each
with its placement model); the gateway registers its own tools; scoring its
Python checks. The spec layer knows them only through this registry, never by
importing them: plugins are found through the `clawarena.plugins` entry-point
group (declared in pyproject.toml; `clawarena.plugins` is the built-in one) and
loaded once, on the first lookup. Every registry (`clawarena.registry`) refuses a duplicate name.
"""

from __future__ import annotations

import fnmatch
import importlib.metadata
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, TypeAdapter

from clawarena.registry import Registry
from clawarena.spec.errors import SpecError

ENTRY_POINT_GROUP = "clawarena.plugins"


class CatalogTool(Protocol):
    """What the loader needs of a tool (tools.core.Tool is one)."""

    name: str
    args_model: type[BaseModel]
    hidden: frozenset[str]


class CatalogTable(Protocol):
    """What the loader needs of a table (world.store.TableSpec is one)."""

    name: str

    @property
    def column_names(self) -> tuple[str, ...]: ...


class CatalogService(Protocol):
    """What the loader needs of a service (services.base.Service is one)."""

    name: str
    fixture_model: type[BaseModel]
    tables: tuple[CatalogTable, ...]
    tools: tuple[CatalogTool, ...]
    channels: Mapping[str, Any]  # channel name -> its placement model (a pydantic type)


T = TypeVar("T")


@dataclass(frozen=True)
class ToolEntry:
    tool: CatalogTool
    owner: str  # the service, or "gateway"
    selectable: bool = True  # False: granted by a lever (read_skill), never named in an agent's tools

    @property
    def name(self) -> str:
        return self.tool.name

    def wire_only(self) -> set[str]:
        """Parameters agents may not set, under every name a caller could use."""
        fields = self.tool.args_model.model_fields
        return {n for h in self.tool.hidden for n in (h, fields[h].alias or h) if h in fields}


@dataclass(frozen=True)
class TableEntry:
    name: str
    owner: str
    columns: frozenset[str]


@dataclass(frozen=True)
class ChannelEntry:
    name: str
    owner: str
    placement: Any  # a pydantic model or an annotated union of models
    adapter: TypeAdapter = field(compare=False, repr=False)


@dataclass(frozen=True)
class ResourceEntry:
    """A resource type a service declares (services.base.ResourceType), with its table's column types."""

    resource: Any  # services.base.ResourceType
    owner: str
    column_types: Mapping[str, str]  # column -> store type (text, integer, real, json, bool)
    key: tuple[str, ...]  # the table's primary key


FIXTURE_MODELS: Registry[type[BaseModel]] = Registry("fixture model of service")
RESOURCES: Registry[ResourceEntry] = Registry("resource type")
TOOLS: Registry[ToolEntry] = Registry("tool")
TABLES: Registry[TableEntry] = Registry("table")
CHANNELS: Registry[ChannelEntry] = Registry("attack channel")
PYTHON_CHECKS: Registry[str] = Registry("python check")
_match_cache: dict[tuple[str, bool], tuple[str, ...]] = {}


# ---- lookups: each loads the plugins first --------------------------------------------------
def fixture_models() -> dict[str, type[BaseModel]]:
    return _all(FIXTURE_MODELS)


def tools() -> dict[str, ToolEntry]:
    return _all(TOOLS)


def tables() -> dict[str, TableEntry]:
    return _all(TABLES)


def channels() -> dict[str, ChannelEntry]:
    return _all(CHANNELS)


def resources() -> dict[str, ResourceEntry]:
    return _all(RESOURCES)


def python_checks() -> set[str]:
    return set(_all(PYTHON_CHECKS))


def _all(registry: Registry[T]) -> dict[str, T]:
    load_plugins()
    return {name: registry.get(name) for name in registry}


# ---- registration (plugins call these when imported) -----------------------------------------
def register_service(service: CatalogService) -> None:
    """Everything a service declares that task files may name."""
    FIXTURE_MODELS.register(service.name, service.fixture_model)
    for table in service.tables:
        TABLES.register(table.name, TableEntry(table.name, service.name, frozenset(table.column_names)))
    for tool in service.tools:
        register_tool(tool, owner=service.name)
    for channel, placement in service.channels.items():
        CHANNELS.register(channel, ChannelEntry(channel, service.name, placement, TypeAdapter(placement)))
    by_table = {t.name: t for t in service.tables}
    for resource in getattr(service, "resources", ()):
        table = by_table.get(resource.table)
        if table is None:
            raise ValueError(f"service {service.name}: resource type {resource.name} names no table of its own ({resource.table!r})")
        columns = {c.name: c.type for c in getattr(table, "columns", ())}
        for column in (resource.owner, resource.info_type_column, resource.sensitivity_column, *resource.attributes):
            if column and column not in columns:
                raise ValueError(f"service {service.name}: resource type {resource.name}: table {table.name} has no column {column!r}")
        RESOURCES.register(resource.name, ResourceEntry(resource, service.name, columns, tuple(getattr(table, "primary_key", ("id",)))))


def register_tool(tool: CatalogTool, owner: str, selectable: bool = True) -> None:
    TOOLS.register(tool.name, ToolEntry(tool, owner, selectable))
    _match_cache.clear()


def register_python_check(name: str) -> None:
    PYTHON_CHECKS.register(name, name)


def matching_tools(pattern: str, selectable_only: bool = True) -> tuple[str, ...]:
    """Tool names an `agents[i].tools` entry (a name or a glob) selects."""
    key = (pattern, selectable_only)
    hit = _match_cache.get(key)
    if hit is None:
        entries = tools()
        names = [n for n, e in entries.items() if e.selectable or not selectable_only]
        if not any(c in pattern for c in "*?["):
            hit = (pattern,) if pattern in names else ()
        else:
            hit = tuple(sorted(n for n in names if fnmatch.fnmatchcase(n, pattern)))
        _match_cache[key] = hit
    return hit


# ---- discovery ---------------------------------------------------------------------------
_lock = threading.RLock()
_state = {"loaded": False, "loading": False}


def load_plugins() -> None:
    """Import every plugin of the entry-point group once; they register on import."""
    if _state["loaded"]:
        return
    with _lock:
        if _state["loaded"] or _state["loading"]:
            return  # loaded meanwhile, or a plugin's own import looked something up
        _state["loading"] = True
        try:
            points = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
            if not points:
                raise SpecError([f"no clawarena plugins found (entry-point group {ENTRY_POINT_GROUP!r} is empty): install the package, e.g. `pip install -e .`"])
            for point in sorted(points, key=lambda p: p.name):
                point.load()
            _state["loaded"] = True
        finally:
            _state["loading"] = False
