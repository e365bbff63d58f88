"""Build a World for a scenario from a cached snapshot, so a new trial costs milliseconds.

The builder knows services only through the `WorldPlugin` protocol: each plugin
declares tables, seeds its fixtures and places attack material on its channels,
each channel with a placement model the material's `placement` is validated by.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from datetime import timedelta
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any, Protocol

from pydantic import TypeAdapter, ValidationError

from clawarena.spec.errors import display_path, pydantic_problems
from clawarena.spec.models import AttackSpec, Scenario, merge_fixtures
from clawarena.world.clock import IdGenerator, WorldClock, parse_time
from clawarena.world.ledger import Ledger
from clawarena.world.policy import PolicyEngine, engine_for
from clawarena.world.principals import Directory
from clawarena.world.store import TableSpec, WorldStore
from clawarena.world.world import World


class WorldBuildError(Exception):
    """The scenario's fixtures or attack placements do not fit its world."""


class WorldPlugin(Protocol):
    name: str
    tables: tuple[TableSpec, ...]
    channels: Mapping[str, Any]  # channel -> its placement model (a pydantic model or annotated union)

    def seed(self, world: World, fixture: dict[str, Any]) -> None: ...

    def place(self, world: World, attack: AttackSpec, placement: Any) -> None: ...


@lru_cache(maxsize=None)
def _adapter(model: Any) -> TypeAdapter:
    return TypeAdapter(model)


def _placement(plugin: WorldPlugin, attack: AttackSpec, where: str) -> Any:
    """The attack's placement as its channel's typed model (the loader checked it already for task files)."""
    try:
        return _adapter(plugin.channels[attack.channel]).validate_python(attack.placement)
    except ValidationError as exc:
        first = pydantic_problems(exc, attack.placement, ("placement",))
        raise WorldBuildError("; ".join(f"{where}.{display_path(p.loc)}: {p.message}" for p in first)) from None


@dataclass(frozen=True)
class WorldTemplate:
    """A seeded world, serialized: restored once per trial."""

    snapshot: bytes
    initial_state: dict[str, dict[str, dict[str, Any]]]
    tables: tuple[TableSpec, ...]
    initial_hashes: dict[str, str]
    policy: PolicyEngine | None = None  # parsed once per scenario, shared by its worlds (immutable)


def _seed_of(*parts: Any) -> str:
    return hashlib.sha256("/".join(str(p) for p in parts).encode()).hexdigest()[:16]


def _fresh_world(scenario: Scenario, store: WorldStore, seed: str, initial_state: dict) -> World:
    task = scenario.task
    return World(
        scenario=scenario,
        store=store,
        clock=WorldClock(start=parse_time(task.world.now), step=timedelta(seconds=task.world.step_seconds)),
        ids=IdGenerator(seed=seed),
        ledger=Ledger(),
        directory=Directory.from_task(task),
        attacks=list(scenario.attacks),
        initial_state=initial_state,
    )


FillerSource = Callable[[Scenario], dict[str, dict[str, Any]]]


def build_template(scenario: Scenario, plugins: list[WorldPlugin], filler: FillerSource | None = None) -> WorldTemplate:
    tables = tuple(t for p in plugins for t in p.tables)
    store = WorldStore.create(tables)
    world = _fresh_world(scenario, store, seed=_seed_of("fixtures", scenario.id), initial_state={})
    by_name = {p.name: p for p in plugins}
    fixtures = merge_fixtures(filler(scenario), scenario.fixtures) if filler else scenario.fixtures
    for service, fixture in sorted(fixtures.items()):
        if service not in by_name:
            raise WorldBuildError(f"{scenario.id}: fixtures.{service}: no such service")
        try:
            by_name[service].seed(world, fixture)
        except (KeyError, ValueError) as exc:
            raise WorldBuildError(f"{scenario.id}: fixtures.{service}: {exc}") from exc
    by_channel = {c: p for p in plugins for c in p.channels}
    for i, attack in enumerate(scenario.attacks):
        plugin = by_channel.get(attack.channel)
        if plugin is None:
            raise WorldBuildError(f"{scenario.id}: inject[{i}].channel: no service serves channel {attack.channel!r} yet")
        placement = _placement(plugin, attack, f"{scenario.id}: inject[{i}]")
        try:
            plugin.place(world, attack, placement)
        except (KeyError, ValueError) as exc:
            raise WorldBuildError(f"{scenario.id}: inject[{i}].placement: {exc}") from exc
    store.drain_changes()  # seeding is not an action of anyone
    hashes = {t: store.table_hash(t) for t in store.tables}
    return WorldTemplate(snapshot=store.snapshot(), initial_state=store.state(), tables=tables, initial_hashes=hashes, policy=engine_for(scenario))


class WorldFactory:
    """Caches one template per scenario; `build` restores it for a trial. Thread-safe."""

    def __init__(self, plugins: list[WorldPlugin], filler: FillerSource | None = None):
        self.plugins = plugins
        self.filler = filler
        self._templates: dict[str, WorldTemplate] = {}
        self._lock = threading.Lock()

    def template(self, scenario: Scenario) -> WorldTemplate:
        with self._lock:
            cached = self._templates.get(scenario.id)
            if cached is None:
                cached = build_template(scenario, self.plugins, self.filler)
                self._templates[scenario.id] = cached
            return cached

    def build(self, scenario: Scenario, seed: int | str) -> World:
        template = self.template(scenario)
        store = WorldStore.restore(template.snapshot, template.tables, pristine=True)
        # Generated ids depend on the base task only, so the one reference solution of all its variants
        # can name what it creates (an offer the other side accepts); the trial seed is the agents'
        # (model sampling), not the world's.
        world = _fresh_world(scenario, store, seed=_seed_of("trial", scenario.task.id), initial_state=template.initial_state)
        world.initial_hashes = template.initial_hashes
        world.policy = template.policy
        return world
