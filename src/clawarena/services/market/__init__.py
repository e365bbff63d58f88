"""Market: the bargaining and bidding domains of the agent network, under /market/v1.

Bargaining: public listings, each party's private terms (reservation price, budget, a
co-owner's limit), negotiation threads with offers and counteroffers, deals made by accepting an
offer, and payment into the seller's account. Bidding: auctions and tenders with sealed or open
bids, a deadline on the world clock, clarifications answered to all bidders, evaluation scores
and an award that may need a second signatory. Principals are named by id throughout.

Modules: `tables` (every entity's table, fixture model and policy resource type), `core` (time,
ids, errors, deliveries), `negotiation` and `tendering` (the domain rules), `bargaining` and
`bidding` (the tools), `seeding`, `channels` (attack material).
"""

from __future__ import annotations

from typing import Any

from clawarena.services.base import Service
from clawarena.services.market import bargaining, bidding, seeding
from clawarena.services.market import channels as material
from clawarena.services.market.tables import RESOURCES, TABLES, MarketFixtures
from clawarena.services.registry import register_service
from clawarena.spec.models import AttackSpec
from clawarena.world.world import World


class MarketService(Service):
    name = "market"
    tables = TABLES
    fixture_model = MarketFixtures
    tools = bargaining.TOOLS + bidding.TOOLS
    channels = material.PLACEMENTS
    resources = RESOURCES
    error_style = "json"  # Google error bodies; a JSON object body carries the arguments (server/wire.py JsonWire)

    def seed(self, world: World, fixture: dict[str, Any]) -> None:
        seeding.seed(world, fixture)

    def place(self, world: World, attack: AttackSpec, placement: Any) -> None:
        """Material on one of the four channels (see `channels`); a bad placement names its field."""
        material.place(world, attack, placement)


register_service(MarketService())
