"""Deterministic time and ids inside a world.

A world never reads the wall clock: each scenario fixes "now" and every action
advances it by a fixed step, so relative dates mean the same in every run.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from clawarena.spec.instants import parse_time  # noqa: F401  (the world's time rule is the task format's)


@dataclass
class WorldClock:
    """Scenario time that moves one fixed step per recorded action."""

    start: datetime
    step: timedelta = timedelta(seconds=1)
    ticks: int = 0

    def now(self) -> datetime:
        return self.start + self.step * self.ticks

    def tick(self) -> datetime:
        self.ticks += 1
        return self.now()

    def now_ms(self) -> int:
        return int(self.now().timestamp() * 1000)

    def iso(self) -> str:
        return self.now().astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")


@dataclass
class IdGenerator:
    """Ids derived from (seed, namespace, counter): unique within a world, equal across runs."""

    seed: str
    counters: dict[str, int] = field(default_factory=dict)

    def next(self, namespace: str, length: int = 16) -> str:
        n = self.counters.get(namespace, 0) + 1
        self.counters[namespace] = n
        digest = hashlib.sha256(f"{self.seed}/{namespace}/{n}".encode()).hexdigest()
        return digest[:length]


