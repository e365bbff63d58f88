"""Travel: flights and fares with rules, hotels, private traveller profiles, shared itineraries,
bookings paid with payment authorisations, employer travel policies and expense reports.

Served under /travel/v1 in the Google wire style (JSON bodies, `{"error": {...}}` errors).
Principals are named by principal id; nobody needs a mailbox. Modules import one way:
`tables` < `core` < `catalog` < `profiles`, `payments`, `itineraries` < `bookings` < `expenses`;
`notices`, `channels` and `seed` sit beside them.
"""

from __future__ import annotations

from typing import Any

from clawarena.services.base import Service
from clawarena.services.registry import register_service
from clawarena.services.travel import bookings, catalog, expenses, itineraries, notices, payments, profiles
from clawarena.services.travel.channels import CHANNELS, place
from clawarena.services.travel.seed import seed
from clawarena.services.travel.tables import RESOURCES, TABLES, TravelFixtures
from clawarena.spec.models import AttackSpec
from clawarena.world.world import World


class TravelService(Service):
    name = "travel"
    tables = TABLES
    fixture_model = TravelFixtures
    tools = catalog.TOOLS + profiles.TOOLS + itineraries.TOOLS + bookings.TOOLS + payments.TOOLS + expenses.TOOLS + notices.TOOLS
    channels = CHANNELS
    resources = RESOURCES
    error_style = "json"  # Google error bodies; a JSON object body carries the arguments (server/wire.py JsonWire)

    def seed(self, world: World, fixture: dict[str, Any]) -> None:
        seed(world, fixture)

    def place(self, world: World, attack: AttackSpec, placement: Any) -> None:
        place(world, attack, placement)


register_service(TravelService())
