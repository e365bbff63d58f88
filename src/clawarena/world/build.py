"""Build a World for a scenario from a cached snapshot, so a new trial costs milliseconds.

The builder knows services only through the `WorldPlugin` protocol: each plugin
declares tables, seeds its fixtures and places attack material on its channels,
each channel with a placement model the material's `placement` is validated by.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import timedelta
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any, Protocol

from pydantic import TypeAdapter, ValidationError

from clawarena.spec.errors import display_path, pydantic_problems
from clawarena.spec.models import AttackSpec, Scenario, merge_fixtures
from clawarena.world.clock import IdGenerator, WorldClock, parse_time
from clawarena.world.hashing import rows_digest, table_hex
from clawarena.world.ledger import Ledger
from clawarena.world.policy import PolicyEngine, engine_for
from clawarena.world.principals import Directory
from clawarena.world.snapshot_cache import CachedTemplate, SnapshotCache, scenario_key
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

    @property
    def nbytes(self) -> int:
        """About what the template holds in memory: the snapshot, plus the decoded initial state, which
        measures about as large again (benchmarks/world_memory.py prints both)."""
        return 2 * len(self.snapshot)


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


_EMPTY: dict[tuple[int, ...], tuple[tuple[TableSpec, ...], bytes]] = {}
_EMPTY_LOCK = threading.Lock()


def _empty_store(tables: tuple[TableSpec, ...]) -> WorldStore:
    """A store with every table and trigger and no rows: created once per table set, then restored
    (running the DDL and triggers per scenario cost about a sixth of a first build)."""
    key = tuple(id(t) for t in tables)
    with _EMPTY_LOCK:
        cached = _EMPTY.get(key)
        if cached is None:
            cached = _EMPTY[key] = (tables, WorldStore.create(tables).snapshot())  # keeps the specs alive: ids stay theirs
    return WorldStore.restore(cached[1], tables, pristine=True)


def build_template(scenario: Scenario, plugins: list[WorldPlugin], filler: FillerSource | None = None) -> WorldTemplate:
    tables = tuple(t for p in plugins for t in p.tables)
    store = _empty_store(tables)
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
    state = store.state()
    hashes = {t: table_hex(rows_digest(state[t])) for t in store.tables}  # = store.table_hash(t), without reading each table again
    return WorldTemplate(snapshot=store.snapshot(), initial_state=state, tables=tables, initial_hashes=hashes, policy=engine_for(scenario))


_FROM_ENV: Any = object()  # the default cache: the user's, unless CLAWARENA_NO_WORLD_CACHE is set

ENV_TEMPLATES_MB = "CLAWARENA_WORLD_TEMPLATES_MB"
# A default-profile template is ~3 MB in memory, a long-context one ~60 MB: room for dozens, while
# a process pool of two stays well under 1 GB. Runs and checks take a scenario's trials together,
# so a small cache loses little.
DEFAULT_TEMPLATE_BYTES = 256 * 1024 * 1024


def template_bytes_from_env() -> int:
    raw = os.environ.get(ENV_TEMPLATES_MB, "").strip()
    if not raw:
        return DEFAULT_TEMPLATE_BYTES
    try:
        mb = float(raw)
    except ValueError:
        raise ValueError(f"{ENV_TEMPLATES_MB}: not a number of megabytes: {raw!r}") from None
    if mb <= 0:
        raise ValueError(f"{ENV_TEMPLATES_MB}: must be positive, got {raw!r}")
    return int(mb * 1024 * 1024)


class WorldFactory:
    """Caches templates in memory (least recently used first out, past `max_template_bytes`, default
    $CLAWARENA_WORLD_TEMPLATES_MB or 256 MB) and, through `cache`, on disk (shared by processes and
    runs); `build` restores one for a trial. Thread-safe. `seeded` counts the templates this factory
    seeded, `evicted` those it dropped from memory."""

    def __init__(
        self, plugins: list[WorldPlugin], filler: FillerSource | None = None, cache: SnapshotCache | None = _FROM_ENV, max_template_bytes: int | None = None
    ):
        if max_template_bytes is not None and max_template_bytes <= 0:
            raise ValueError(f"max_template_bytes: must be positive, got {max_template_bytes}")
        self.plugins = plugins
        self.filler = filler
        self.cache = SnapshotCache.from_env() if cache is _FROM_ENV else cache
        self.max_template_bytes = template_bytes_from_env() if max_template_bytes is None else max_template_bytes
        self.seeded = 0
        self.evicted = 0
        self._templates: OrderedDict[str, WorldTemplate] = OrderedDict()  # content key -> template
        self._ids: dict[str, str] = {}  # content key -> scenario id
        self._bytes = 0
        self._lock = threading.Lock()
        self._tables = tuple(t for p in plugins for t in p.tables)
        # What else shapes a world besides the scenario and the code: which services seed it, and the filler.
        filler_name = "" if filler is None else f"{getattr(filler, '__module__', '')}.{getattr(filler, '__qualname__', repr(filler))}"
        self._key_parts = tuple(f"{p.name}:{type(p).__module__}:{','.join(t.name for t in p.tables)}" for p in plugins) + (f"filler:{filler_name}",)

    def template(self, scenario: Scenario) -> WorldTemplate:
        # Keyed by content, not by scenario id: a scenario edited (or synthesized anew) under the same
        # id in one process must not get the old world. The key costs well under a millisecond.
        key = scenario_key(scenario, self._key_parts)
        with self._lock:
            cached = self._templates.get(key)
            if cached is not None:
                self._templates.move_to_end(key)
                return cached
            cached = self._templates[key] = self._load_or_seed(scenario, key)
            self._ids[key] = scenario.id
            self._bytes += cached.nbytes
            while self._bytes > self.max_template_bytes and len(self._templates) > 1:  # the newest stays, however big
                old_key, old = self._templates.popitem(last=False)
                self._ids.pop(old_key, None)
                self._bytes -= old.nbytes
                self.evicted += 1
            return cached

    @property
    def template_bytes(self) -> int:
        """What the templates held in memory now count for (`WorldTemplate.nbytes`)."""
        return self._bytes

    def cached_ids(self) -> list[str]:
        """The scenarios whose templates are in memory, least recently used first."""
        with self._lock:
            return [self._ids[k] for k in self._templates]

    def _load_or_seed(self, scenario: Scenario, key: str) -> WorldTemplate:
        hit = self.cache.get(key) if self.cache is not None else None
        if hit is not None:
            return WorldTemplate(snapshot=hit.snapshot, initial_state=hit.initial_state, tables=self._tables,
                                 initial_hashes=hit.initial_hashes, policy=engine_for(scenario))  # fmt: skip
        template = build_template(scenario, self.plugins, self.filler)
        self.seeded += 1
        if self.cache is not None:
            self.cache.put(key, CachedTemplate(template.snapshot, template.initial_state, template.initial_hashes))
        return template

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
