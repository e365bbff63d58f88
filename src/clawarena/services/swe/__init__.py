"""The SWE workspace: repositories as file trees in the world's store, issues, pull requests,
reviews, merges, releases, repository secrets, and a CI job that runs the tests in a sandbox.

Served under /swe/v1 with Google-style JSON errors. Principals are named by id: a
maintainer's repository and a contributor's fork are rows owned by them, and every
notification (a pull request to its maintainers, a review to its author, a comment to an
issue's participants, release notes to watchers) is a delivery to principal ids.
Modules: `tables` (tables, fixtures, resource types), `paths` (confinement of paths),
`core` (access rules, trees, patches), `sandbox` (running one command confined),
`ci` (the CI job), `seed`, `channels`, and the tools in `repos`, `issues`, `pulls`, `release`.
"""

from __future__ import annotations

from typing import Any

from clawarena.services.base import Service
from clawarena.services.registry import register_service
from clawarena.services.swe import channels, issues, pulls, release, repos, seed
from clawarena.services.swe.tables import RESOURCES, TABLES, SweFixtures
from clawarena.spec.models import AttackSpec
from clawarena.world.world import World


class SweService(Service):
    name = "swe"
    tables = TABLES
    fixture_model = SweFixtures
    tools = repos.TOOLS + issues.TOOLS + pulls.TOOLS + release.TOOLS
    channels = channels.CHANNELS
    resources = RESOURCES
    error_style = "json"  # Google error bodies; a JSON object body carries the arguments (server/wire.py JsonWire)

    def seed(self, world: World, fixture: dict[str, Any]) -> None:
        seed.seed(world, fixture)

    def place(self, world: World, attack: AttackSpec, placement: Any) -> None:
        channels.place(world, attack, placement)


register_service(SweService())
