"""`trading`: a brokerage desk shared by clients, advisors, traders, compliance and research.

Accounts (a client's, advised by an advisor, traded by a trader), positions, instruments with
quotes that are a pure function of the fixture and the world clock, limit orders with risk
limits and pre-trade compliance approval, block orders allocated pro rata, client mandates, a
confidential restricted list, restriction inquiries, research notes behind an information
barrier, and rebalance proposals. Served under /trading/v1 (JSON, Google-style errors); every
principal is addressed by id, so nobody needs a mailbox.
"""

from __future__ import annotations

from typing import Any

from clawarena.services.base import Service
from clawarena.services.registry import register_service
from clawarena.services.trading import (
    channels,
    seed,
    tools_compliance,
    tools_desk,
    tools_orders,
    tools_proposals,
    tools_research,
)
from clawarena.services.trading.tables import RESOURCES, TABLES, TradingFixtures
from clawarena.spec.models import AttackSpec
from clawarena.world.world import World


class TradingService(Service):
    name = "trading"
    tables = TABLES
    fixture_model = TradingFixtures
    tools = tools_desk.TOOLS + tools_orders.TOOLS + tools_compliance.TOOLS + tools_research.TOOLS + tools_proposals.TOOLS
    channels = channels.CHANNELS
    resources = RESOURCES
    error_style = "json"  # Google error bodies; a JSON object body carries the arguments (server/wire.py JsonWire)

    def seed(self, world: World, fixture: dict[str, Any]) -> None:
        seed.seed(world, TradingFixtures.model_validate(fixture))

    def place(self, world: World, attack: AttackSpec, placement: Any) -> None:
        channels.place(world, attack, placement)


register_service(TradingService())
