"""Seeded filler: realistic distractor content for a world, into which task fixtures (needles) go.

A task asks for it with `world.filler: {profile: default|long, seed: N, principals: [...]}`.
Each service registers a function that turns a Corpus into that service's
fixture dict; the world builder seeds the filler first, then the task's own
fixtures, so needles sit among distractors.
"""

from __future__ import annotations

import json
import pickle
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from clawarena.services.filler.content import Corpus
from clawarena.spec.models import PrincipalSpec, Scenario
from clawarena.world.clock import parse_time

# Items per principal and service. `long` is the long-context world.
PROFILES: dict[str, dict[str, int]] = {
    "none": {},
    "default": {"gmail": 60, "calendar": 70, "drive": 40, "docs": 10, "slack": 8},
    "long": {"gmail": 3000, "calendar": 1400, "drive": 40, "docs": 10, "slack": 8},
}


@dataclass
class FillerContext:
    corpus: Corpus
    principals: list[PrincipalSpec]  # whose workspaces get filler
    everyone: list[PrincipalSpec]  # every principal of the world
    count: int
    now: datetime


FillerFn = Callable[[FillerContext], dict[str, Any]]
_FILLERS: dict[str, FillerFn] = {}


def register_filler(service: str) -> Callable[[FillerFn], FillerFn]:
    def wrap(fn: FillerFn) -> FillerFn:
        _FILLERS[service] = fn
        return fn

    return wrap


_SHARED: OrderedDict[str, bytes] = OrderedDict()  # filler key -> its fixtures, pickled
_SHARED_MAX = 64
_SHARED_LOCK = threading.Lock()


def filler_key(scenario: Scenario) -> str:
    """What a world's filler depends on: the filler spec, the principals and the world's clock (the
    same for every variant of a task, so its variants share one generation)."""
    task = scenario.task
    return json.dumps([task.world.filler.model_dump(mode="json"), [p.model_dump(mode="json") for p in task.principals], str(task.world.now)], sort_keys=True)


def filler_fixtures(scenario: Scenario) -> dict[str, dict[str, Any]]:
    """The filler fixtures of a scenario's world (empty for profile `none`), generated once per
    filler key (see `filler_key`) and copied for each scenario: seeders may change what they get."""
    if not PROFILES[scenario.task.world.filler.profile]:
        return {}
    key = filler_key(scenario)
    with _SHARED_LOCK:
        blob = _SHARED.get(key)
        if blob is not None:
            _SHARED.move_to_end(key)
    if blob is None:
        blob = pickle.dumps(generate_filler(scenario), protocol=pickle.HIGHEST_PROTOCOL)  # a copy costs a quarter of generating
        with _SHARED_LOCK:
            _SHARED[key] = blob
            while len(_SHARED) > _SHARED_MAX:
                _SHARED.popitem(last=False)
    return pickle.loads(blob)


def generate_filler(scenario: Scenario) -> dict[str, dict[str, Any]]:
    """The filler fixtures of a scenario's world, generated from nothing (no sharing)."""
    spec = scenario.task.world.filler
    counts = PROFILES[spec.profile]
    if not counts:
        return {}
    people = scenario.task.principals
    chosen = [p for p in people if not spec.principals or p.id in spec.principals]
    out: dict[str, dict[str, Any]] = {}
    for service in sorted(_FILLERS):
        if counts.get(service):
            # One corpus per service, so adding a service's filler never changes another's.
            ctx = FillerContext(Corpus(f"{spec.seed}/{service}"), chosen, list(people), counts[service], parse_time(scenario.task.world.now))
            out[service] = _FILLERS[service](ctx)
    return out


from clawarena.services.filler import calendar as _calendar  # noqa: E402,F401  (registers)
from clawarena.services.filler import drive as _drive  # noqa: E402,F401  (registers drive and docs)
from clawarena.services.filler import gmail as _gmail  # noqa: E402,F401  (registers)
from clawarena.services.filler import slack as _slack  # noqa: E402,F401  (registers)
