"""The trading service's tables and fixture format, declared together (one place per entity).

Money is integer US cents everywhere (`*_cents`); quantities are whole shares; weights are basis
points (1/100 of a percent, 10000 = 100%); times are ISO 8601 strings in UTC.

Ownership (the `owner` column, a principal id): an account, its positions, its mandate and its
allocations belong to the client; an order and its executions belong to the trader who placed
it (`client` names the account's client); a risk limit, a restricted-list entry and a compliance
decision belong to the compliance officer; a research note to its author; a rebalance proposal
to the advisor who wrote it; a restriction inquiry to whoever asked. Who else sees a row is the
domain's rule (`access.py`): an account's advisor, trader and the compliance officers.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from clawarena.services.base import ResourceType
from clawarena.spec.base import Strict
from clawarena.spec.models import Instant
from clawarena.spec.refs import PrincipalId, PrincipalOrAddress
from clawarena.world.store import Column, TableSpec

Side = Literal["buy", "sell"]
OrderState = Literal["pending_compliance", "open", "filled", "cancelled", "rejected"]
InfoType = Literal["research", "mnpi"]
RestrictionLevel = Literal["restricted", "watch"]
Symbol = Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9.\-]{0,11}$", description="ticker symbol, e.g. NVX")]
DEFAULT_VENUES = ("XNYS", "XNAS", "ARCX", "IEXG")
MAX_SHARES = 1_000_000_000  # bounds that keep every product of shares and cents inside SQLite's 64-bit integers
MAX_PRICE_CENTS = 1_000_000_000


def _t(name: str, *columns: Column, pk: tuple[str, ...] = ("id",), indexes: tuple[tuple[str, ...], ...] = ()) -> TableSpec:
    return TableSpec(name=name, columns=columns, primary_key=pk, indexes=indexes)


def _c(name: str, type_: str = "text", nullable: bool = False) -> Column:
    return Column(name, type_, nullable)  # type: ignore[arg-type]


# Who works in compliance (the control room) and in research (the private side of the wall).
STAFF = _t("trading_staff", _c("principal"), _c("role"), pk=("principal", "role"))
VENUES = _t("trading_venues", _c("id"), _c("rank", "integer"), pk=("id",))  # rank: the fixture's order (the first is the default)
INSTRUMENTS = _t(
    "trading_instruments",
    _c("symbol"), _c("owner"), _c("name"), _c("sector"), _c("esg_flags", "json"),
    _c("base_price_cents", "integer"), _c("drift_cents_per_minute", "integer"),
    _c("steps", "json"),  # [{"at": iso, "price_cents": int}], sorted by time
    _c("size", "integer", nullable=True),  # shares the venue fills per evaluation; null: any quantity
    _c("as_of"),  # when base_price_cents held
    pk=("symbol",),
)  # fmt: skip
PRICE_FEED = _t(
    "trading_price_feed",
    _c("id"), _c("owner"), _c("symbol"), _c("source"), _c("price_cents", "integer"), _c("at"), _c("note"),
    indexes=(("symbol",),),
)  # fmt: skip
ACCOUNTS = _t(
    "trading_accounts",
    _c("id"), _c("owner"), _c("name"), _c("advisor"), _c("trader"), _c("cash_cents", "integer"),
    _c("mandate_id"), _c("risk_limit_id"),
)  # fmt: skip
POSITIONS = _t(
    "trading_positions",
    _c("id"), _c("account_id"), _c("owner"), _c("symbol"), _c("quantity", "integer"), _c("cost_cents", "integer"),
    indexes=(("account_id",),),
)  # fmt: skip
RISK_LIMITS = _t(
    "trading_risk_limits",
    _c("id"), _c("account_id"), _c("owner"), _c("max_order_notional_cents", "integer"),
    _c("max_position_quantity", "integer"), _c("position_limits", "json"), _c("allowed_venues", "json"),
    _c("approval_threshold_cents", "integer", nullable=True),
)  # fmt: skip
MANDATES = _t(
    "trading_mandates",
    _c("id"), _c("account_id"), _c("owner"), _c("allowed_sectors", "json"), _c("allowed_symbols", "json"),
    _c("esg_exclusions", "json"), _c("max_position_bps", "integer"), _c("notes"), _c("updated_at"),
)  # fmt: skip
RESTRICTED = _t(
    "trading_restricted_list",
    _c("id"), _c("owner"), _c("symbol"), _c("level"), _c("reason"), _c("added_at"),
)  # fmt: skip
ORDERS = _t(
    "trading_orders",
    _c("id"), _c("owner"), _c("account_id"), _c("client"), _c("symbol"), _c("side"), _c("quantity", "integer"),
    _c("limit_price_cents", "integer"), _c("notional_cents", "integer"), _c("venue"), _c("state"),
    _c("filled_quantity", "integer"), _c("filled_cost_cents", "integer"), _c("memo"),
    _c("block", "bool"), _c("intended", "json"),  # a block's pre-trade allocation [{"account_id", "quantity"}]
    _c("allocated", "bool"), _c("proposal_id"), _c("created_at"), _c("updated_at"),
    indexes=(("account_id",), ("owner",)),
)  # fmt: skip
EXECUTIONS = _t(
    "trading_executions",
    _c("id"), _c("order_id"), _c("owner"), _c("account_id"), _c("symbol"), _c("side"), _c("quantity", "integer"),
    _c("price_cents", "integer"), _c("venue"), _c("at"),
    indexes=(("order_id",),),
)  # fmt: skip
APPROVALS = _t(
    "trading_approvals",
    _c("id"), _c("order_id"), _c("owner"), _c("requested_by"), _c("decision"), _c("comment"),
    _c("quantity", "integer"), _c("limit_price_cents", "integer"), _c("notional_cents", "integer"),
    _c("status"), _c("at"),  # status: active, or superseded by an amendment past what was approved
    indexes=(("order_id",),),
)  # fmt: skip
ALLOCATIONS = _t(
    "trading_allocations",
    _c("id"), _c("order_id"), _c("account_id"), _c("owner"), _c("trader"), _c("symbol"), _c("side"),
    _c("quantity", "integer"), _c("cost_cents", "integer"), _c("price_cents", "integer"), _c("method"),
    _c("departs_from_pro_rata", "bool"), _c("justification"), _c("at"),
    indexes=(("order_id",), ("account_id",)),
)  # fmt: skip
RESEARCH_NOTES = _t(
    "trading_research_notes",
    _c("id"), _c("owner"), _c("author"), _c("title"), _c("body"), _c("symbols", "json"), _c("info_type"),
    _c("sensitivity"), _c("recipients", "json"), _c("created_at"),
)  # fmt: skip
RESTRICTION_CHECKS = _t(
    "trading_restriction_checks",
    _c("id"), _c("owner"), _c("symbol"), _c("purpose"), _c("status"), _c("restricted", "bool", nullable=True),
    _c("answered_by"), _c("note"), _c("created_at"), _c("answered_at"),
)  # fmt: skip
PROPOSALS = _t(
    "trading_proposals",
    _c("id"), _c("account_id"), _c("owner"), _c("client"), _c("lines", "json"), _c("rationale"), _c("status"),
    _c("mandate_breaches", "json"), _c("created_at"), _c("decided_at"), _c("client_comment"),
)  # fmt: skip

TABLES = (
    STAFF, VENUES, INSTRUMENTS, PRICE_FEED, ACCOUNTS, POSITIONS, RISK_LIMITS, MANDATES, RESTRICTED, ORDERS,
    EXECUTIONS, APPROVALS, ALLOCATIONS, RESEARCH_NOTES, RESTRICTION_CHECKS, PROPOSALS,
)  # fmt: skip


# ---- fixtures ------------------------------------------------------------------------------------
class PriceStep(Strict):
    """From `at` on, the quote restarts at `price_cents` (then drifts as before)."""

    at: Instant
    price_cents: int = Field(ge=1)


class InstrumentFixture(Strict):
    """A listed instrument and its deterministic quote schedule.

    The quote at world time t: the last step at or before t (else `base_price_cents` as of
    `as_of`), plus `drift_cents_per_minute` for each whole minute since then, never below 1 cent.
    """

    symbol: Symbol
    name: str
    sector: str = Field(description="e.g. technology, energy, healthcare, tobacco")
    esg_flags: list[str] = Field(default=[], description="e.g. tobacco, thermal_coal, weapons: what ESG exclusions match")
    base_price_cents: int = Field(ge=1)
    drift_cents_per_minute: int = 0
    steps: list[PriceStep] = []
    size: int | None = Field(default=None, ge=1, description="shares the venue fills per evaluation; default any quantity")
    as_of: Instant | None = Field(default=None, description="when base_price_cents held; default the world's start")


class FeedRowFixture(Strict):
    """A vendor's price-feed row: informational (marks, news ticks); executions use the venue quote."""

    id: str | None = None
    symbol: Symbol
    source: str = Field(description="the vendor, e.g. 'Refinitiv EOD marks'")
    price_cents: int = Field(ge=1)
    at: Instant | None = Field(default=None, description="default five minutes before the world's start")
    note: str = ""


class PositionFixture(Strict):
    symbol: Symbol
    quantity: int = Field(ge=1)
    cost_cents: int | None = Field(default=None, ge=0, description="total cost basis; default quantity x base price")


class RiskLimitFixture(Strict):
    """The firm's limits on one account, enforced on every order (409 when exceeded)."""

    id: str | None = Field(default=None, description="default '<account id>-limits'")
    owner: PrincipalId | None = Field(default=None, description="who set them; default the first compliance officer")
    max_order_notional_cents: int = Field(default=100_000_000, ge=1, description="quantity x limit price of one order")
    max_position_quantity: int = Field(default=1_000_000, ge=1, description="shares of any one instrument after a buy")
    position_limits: dict[str, int] = Field(default={}, description="per-symbol overrides of max_position_quantity")
    allowed_venues: list[str] | None = Field(default=None, description="default every venue of the world")
    approval_threshold_cents: int | None = Field(default=None, ge=1, description="orders of at least this notional wait for compliance")


class MandateFixture(Strict):
    """The client's investment mandate: what the account may hold."""

    id: str | None = Field(default=None, description="default '<account id>-mandate'")
    allowed_sectors: list[str] = Field(default=[], description="empty: every sector")
    allowed_symbols: list[str] = Field(default=[], description="empty: every symbol (within the sectors)")
    esg_exclusions: list[str] = Field(default=[], description="ESG flags the client excludes, e.g. tobacco")
    max_position_bps: int = Field(default=10_000, ge=1, le=10_000, description="largest weight of one position, in basis points")
    notes: str = ""


class AccountFixture(Strict):
    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_\-]{0,39}$")
    name: str
    client: PrincipalId = Field(description="the account's owner")
    advisor: PrincipalId | None = None
    trader: PrincipalId | None = Field(default=None, description="who executes orders for it")
    cash_cents: int = Field(default=0, ge=0)
    positions: list[PositionFixture] = []
    risk_limits: RiskLimitFixture = RiskLimitFixture()
    mandate: MandateFixture | None = None


class BlockLine(Strict):
    account: str = Field(description="account id")
    quantity: int = Field(ge=1)


class OrderFixture(Strict):
    """An order already on the book (history, or waiting for compliance). Fills of seeded orders do
    not move positions: the fixture's positions are the account's holdings."""

    id: str | None = None
    account: str | None = Field(default=None, description="account id (omit for a block order: give intended)")
    intended: list[BlockLine] = Field(default=[], description="a block order's pre-trade allocation")
    symbol: Symbol
    side: Side
    quantity: int = Field(default=0, ge=0, description="default: the sum of intended")
    limit_price_cents: int = Field(ge=1)
    venue: str | None = Field(default=None, description="default the account's first allowed venue")
    state: OrderState = "open"
    placed_by: PrincipalId | None = Field(default=None, description="default the account's trader")
    filled_quantity: int | None = Field(default=None, ge=0, description="default: all for filled, else none")
    avg_fill_price_cents: int | None = Field(default=None, ge=1, description="default the limit price")
    memo: str = ""
    proposal: str | None = None
    created_at: Instant | None = None


class RestrictedFixture(Strict):
    id: str | None = None
    symbol: Symbol
    level: RestrictionLevel = Field(default="restricted", description="restricted: no trading; watch: grey list, trading monitored")
    reason: str = Field(description="why (confidential: often the deal itself)")
    owner: PrincipalId | None = Field(default=None, description="default the first compliance officer")
    added_at: Instant | None = None


class ResearchNoteFixture(Strict):
    id: str | None = None
    author: PrincipalOrAddress = Field(description="a principal id (an analyst, or an outside actor) or an address")
    title: str
    body: str
    symbols: list[str] = []
    info_type: InfoType = Field(default="research", description="mnpi: material non-public information (restricted)")
    recipients: list[PrincipalOrAddress] = []
    created_at: Instant | None = None


class ProposalLine(Strict):
    symbol: Symbol
    side: Side
    quantity: int = Field(ge=1)


class ProposalFixture(Strict):
    id: str | None = None
    account: str
    advisor: PrincipalId | None = Field(default=None, description="default the account's advisor")
    lines: list[ProposalLine] = Field(min_length=1)
    rationale: str = ""
    status: Literal["proposed", "accepted", "declined"] = "proposed"
    created_at: Instant | None = None


class TradingFixtures(Strict):
    """Fixtures of the `trading` service: a desk with accounts, instruments, orders and its controls."""

    compliance: list[PrincipalId] = Field(default=[], description="compliance officers: the restricted list, pre-trade approvals")
    research: list[PrincipalId] = Field(default=[], description="research analysts (private side of the information barrier)")
    market_data: PrincipalId | None = Field(default=None, description="who maintains instruments and feeds; default the first compliance officer")
    venues: list[str] = Field(default=list(DEFAULT_VENUES), min_length=1, description="execution venues (MIC codes)")
    instruments: list[InstrumentFixture] = []
    price_feed: list[FeedRowFixture] = []
    accounts: list[AccountFixture] = []
    orders: list[OrderFixture] = []
    restricted: list[RestrictedFixture] = []
    research_notes: list[ResearchNoteFixture] = []
    proposals: list[ProposalFixture] = []


# ---- what policies see: each kind of row as an entity ---------------------------------------------
RESOURCES = (
    ResourceType("Account", ACCOUNTS.name, info_type="account", sensitivity="confidential",
                 attributes=("advisor", "trader", "cash_cents", "name")),
    ResourceType("Position", POSITIONS.name, info_type="position", sensitivity="confidential",
                 attributes=("account_id", "symbol", "quantity", "cost_cents")),
    ResourceType("Instrument", INSTRUMENTS.name, info_type="market_data", sensitivity="public",
                 attributes=("sector", "name", "base_price_cents")),
    ResourceType("PriceFeedRow", PRICE_FEED.name, info_type="market_data", sensitivity="public",
                 attributes=("symbol", "source", "price_cents", "at")),
    ResourceType("Order", ORDERS.name, info_type="order", sensitivity="confidential",
                 attributes=("account_id", "client", "symbol", "side", "quantity", "limit_price_cents", "notional_cents",
                             "venue", "state", "block", "filled_quantity")),
    ResourceType("RiskLimit", RISK_LIMITS.name, info_type="risk_limit", sensitivity="internal",
                 attributes=("account_id", "max_order_notional_cents", "max_position_quantity")),
    ResourceType("Mandate", MANDATES.name, info_type="mandate", sensitivity="confidential",
                 attributes=("account_id", "max_position_bps")),
    ResourceType("RestrictedEntry", RESTRICTED.name, info_type="restricted_list", sensitivity="restricted",
                 attributes=("symbol", "level")),
    ResourceType("ComplianceApproval", APPROVALS.name, info_type="compliance_approval", sensitivity="internal",
                 attributes=("order_id", "requested_by", "decision", "notional_cents", "status")),
    ResourceType("ResearchNote", RESEARCH_NOTES.name, info_type_column="info_type", sensitivity_column="sensitivity",
                 attributes=("author", "title")),
    ResourceType("Allocation", ALLOCATIONS.name, info_type="allocation", sensitivity="confidential",
                 attributes=("order_id", "account_id", "trader", "symbol", "quantity", "method", "departs_from_pro_rata")),
    ResourceType("RebalanceProposal", PROPOSALS.name, info_type="rebalance_proposal", sensitivity="confidential",
                 attributes=("account_id", "client", "status")),
    ResourceType("RestrictionCheck", RESTRICTION_CHECKS.name, info_type="restriction_inquiry", sensitivity="internal",
                 attributes=("symbol", "status")),
)  # fmt: skip
