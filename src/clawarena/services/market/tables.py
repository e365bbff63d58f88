"""Market's entities, each declared once: its table, its fixture model and its policy resource type.

Two activities share one marketplace. Bargaining: a seller's public listing, each party's private
terms (a reservation price, a budget, a co-owner's limit), a negotiation thread per buyer and
listing with offers and messages, the deal an accepted offer makes, and its payments. Bidding: an
auctioneer's auction or tender, sealed (or open) bids, clarification questions, notices, the
evaluation scores and the award.

Every row names its principals by id (a principal may have no mailbox). Money is an integer in
whole units of the row's currency (EUR 12,500 is 12500); times are ISO 8601 UTC strings on the
world clock. Columns that a policy reads as attributes are never null ("" stands for "none").
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from clawarena.services.base import ResourceType
from clawarena.spec.base import Strict
from clawarena.spec.models import Instant
from clawarena.spec.refs import PrincipalId
from clawarena.world.store import Column, TableSpec

MAX_AMOUNT = 1_000_000_000_000  # a trillion units: past any real price, inside SQLite's 64-bit integers
Amount = Annotated[int, Field(ge=1, le=MAX_AMOUNT)]
Currency = Annotated[str, Field(pattern=r"^[A-Z]{3}$", description="ISO 4217 code, e.g. EUR")]
TermKind = Literal["reservation_price", "budget", "limit"]
OfferStatus = Literal["open", "countered", "accepted", "rejected", "withdrawn", "expired"]
AwardRule = Literal["highest_price", "lowest_price", "best_score"]
Disclosure = Literal["none", "winner", "ranking"]


def _times(*names: str) -> tuple[Column, ...]:
    return tuple(Column(n, nullable=False) for n in names)


# ---- bargaining --------------------------------------------------------------------------------
LISTINGS = TableSpec(
    name="market_listings",
    columns=(
        Column("id", nullable=False),
        Column("seller", nullable=False),  # principal id: the owner, who negotiates
        Column("title", nullable=False),
        Column("description", nullable=False),
        Column("category", nullable=False),
        Column("asking_price", "integer", nullable=False),
        Column("currency", nullable=False),
        Column("fields", "json", nullable=False),  # public facts: {"year": "2019", "mileage_km": "48000"}
        Column("spec_sheet", nullable=False),  # the attached spec sheet / condition report, as text
        Column("co_owners", "json", nullable=False),  # principal ids who co-own the item: they read its threads and deals
        Column("status", nullable=False),  # active, sold, withdrawn
        *_times("created_at", "updated_at"),
    ),
    indexes=(("seller",),),
)


class OfferTerms(Strict):
    """Terms beside the price; each is free text a person would write."""

    delivery: str = Field(default="", max_length=2000, description="e.g. 'buyer collects in Leipzig by 14 March'")
    warranty: str = Field(default="", max_length=2000, description="e.g. '3 months on the drivetrain'")
    payment_schedule: str = Field(default="", max_length=2000, description="e.g. '30% deposit on signing, rest on delivery'")
    conditions: str = Field(default="", max_length=2000, description="anything else, e.g. 'subject to inspection'")


class ListingFixture(Strict):
    id: str = Field(min_length=1, max_length=80)
    seller: PrincipalId
    title: str = Field(min_length=1)
    description: str = ""
    category: str = ""
    asking_price: Amount
    currency: Currency = "EUR"
    fields: dict[str, str | int | bool] = Field(default={}, description="public facts, e.g. {year: 2017, mileage_km: 21400}")
    spec_sheet: str = ""
    co_owners: list[PrincipalId] = []
    status: Literal["active", "sold", "withdrawn"] = "active"
    created_at: Instant | None = None


PRIVATE_TERMS = TableSpec(
    name="market_private_terms",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),
        Column("listing_id", nullable=False),  # "" for a term that holds for any listing
        Column("kind", nullable=False),  # reservation_price, budget, limit: the information type
        Column("amount", "integer", nullable=False),
        Column("currency", nullable=False),
        Column("note", nullable=False),
        Column("shared_with", "json", nullable=False),  # principal ids the owner shared it with
        Column("updated_at", nullable=False),
    ),
    indexes=(("owner",),),
)


class PrivateTermFixture(Strict):
    id: str = Field(min_length=1, max_length=80)
    owner: PrincipalId
    listing: str = Field(default="", description="listing id the term is about; empty: any listing")
    kind: TermKind
    amount: Amount
    currency: Currency = "EUR"
    note: str = ""
    shared_with: list[PrincipalId] = []


THREADS = TableSpec(
    name="market_threads",
    columns=(
        Column("id", nullable=False),
        Column("listing_id", nullable=False),
        Column("seller", nullable=False),
        Column("buyer", nullable=False),  # who opened it: one thread per buyer and listing
        Column("status", nullable=False),  # open, deal (an offer was accepted), closed (the listing went to someone else)
        *_times("created_at", "updated_at"),
    ),
    indexes=(("listing_id",), ("buyer",)),
)


class ThreadFixture(Strict):
    id: str = Field(min_length=1, max_length=80)
    listing: str
    buyer: PrincipalId
    created_at: Instant | None = None


MESSAGES = TableSpec(
    name="market_thread_messages",
    columns=(
        Column("id", nullable=False),
        Column("thread_id", nullable=False),
        Column("author", nullable=False),  # a participant, or an outsider (a broker, a stranger) whose note was attached
        Column("text", nullable=False),
        Column("audience", "json"),  # principal ids who see it; null: everyone who sees the thread
        Column("created_at", nullable=False),
    ),
    indexes=(("thread_id",),),
)


class MessageFixture(Strict):
    id: str = Field(min_length=1, max_length=80)
    thread: str
    author: PrincipalId
    text: str = Field(min_length=1)
    audience: list[PrincipalId] | None = Field(default=None, description="who sees it; default: everyone who sees the thread")
    at: Instant | None = None


OFFERS = TableSpec(
    name="market_offers",
    columns=(
        Column("id", nullable=False),
        Column("thread_id", nullable=False),
        Column("listing_id", nullable=False),
        Column("maker", nullable=False),
        Column("recipient", nullable=False),  # the party it was made to: the only one who may accept it
        Column("amount", "integer", nullable=False),
        Column("currency", nullable=False),
        Column("terms", "json", nullable=False),  # OfferTerms as {"delivery", "warranty", "paymentSchedule", "conditions"}
        Column("note", nullable=False),
        Column("status", nullable=False),  # OfferStatus; an open offer past expires_at reads as expired
        Column("expires_at", nullable=False),  # "" for no expiry
        Column("replaces", nullable=False),  # the offer this one counters, or ""
        Column("created_at", nullable=False),
        Column("closed_at", nullable=False),  # "" while open
    ),
    indexes=(("thread_id",), ("listing_id",)),
)


class OfferFixture(Strict):
    id: str = Field(min_length=1, max_length=80)
    thread: str
    maker: PrincipalId = Field(description="the buyer or the seller of the thread; the offer is made to the other")
    amount: Amount
    terms: OfferTerms = OfferTerms()
    note: str = ""
    status: OfferStatus = "open"
    expires_at: Instant | None = None
    replaces: str = ""
    at: Instant | None = None


DEALS = TableSpec(
    name="market_deals",
    columns=(
        Column("id", nullable=False),
        Column("listing_id", nullable=False),
        Column("thread_id", nullable=False),
        Column("offer_id", nullable=False),  # the accepted offer ("" for a seeded deal)
        Column("seller", nullable=False),
        Column("buyer", nullable=False),
        Column("price", "integer", nullable=False),
        Column("currency", nullable=False),
        Column("terms", "json", nullable=False),
        Column("payee_account", nullable=False),  # the seller's account number the buyer pays into, or ""
        Column("status", nullable=False),  # awaiting_payment, paid
        Column("paid_amount", "integer", nullable=False),
        *_times("created_at", "updated_at"),
    ),
    indexes=(("seller",), ("buyer",)),
)


class DealFixture(Strict):
    id: str = Field(min_length=1, max_length=80)
    listing: str
    buyer: PrincipalId
    price: Amount
    terms: OfferTerms = OfferTerms()
    payee_account: str = Field(default="", description="account number; default: the seller's default account")
    at: Instant | None = None


ACCOUNTS = TableSpec(
    name="market_accounts",
    columns=(
        Column("id", nullable=False),
        Column("owner", nullable=False),
        Column("holder", nullable=False),  # the name on the account
        Column("number", nullable=False),  # as written, e.g. "DE44 5001 0517 5407 3249 31"
        Column("is_default", "bool", nullable=False),  # where a new deal's payments go
    ),
    indexes=(("owner",),),
)


class AccountFixture(Strict):
    id: str = Field(min_length=1, max_length=80)
    owner: PrincipalId
    holder: str = ""
    number: str = Field(min_length=4, max_length=64)
    default: bool = False


PAYMENTS = TableSpec(
    name="market_payments",
    columns=(
        Column("id", nullable=False),
        Column("deal_id", nullable=False),
        Column("payer", nullable=False),
        Column("amount", "integer", nullable=False),
        Column("currency", nullable=False),
        Column("payee_account", nullable=False),  # the number paid into, as the payer wrote it
        Column("payee_owner", nullable=False),  # the principal holding that account, or "" (not an account the world knows)
        Column("reference", nullable=False),
        Column("created_at", nullable=False),
    ),
    indexes=(("deal_id",),),
)


# ---- bidding -----------------------------------------------------------------------------------
AUCTIONS = TableSpec(
    name="market_auctions",
    columns=(
        Column("id", nullable=False),
        Column("auctioneer", nullable=False),
        Column("kind", nullable=False),  # auction (bidders buy) or tender (bidders supply)
        Column("title", nullable=False),
        Column("description", nullable=False),  # the lot or the requirement
        Column("format", nullable=False),  # sealed or open
        Column("award_rule", nullable=False),  # highest_price, lowest_price, best_score
        Column("reserve", "integer"),  # minimum price (highest_price) or price ceiling (lowest_price, best_score); null: none
        Column("currency", nullable=False),
        Column("deadline", nullable=False),
        Column("disclosure", nullable=False),  # what bidders learn at the award: none, winner, ranking
        Column("invited", "json", nullable=False),  # principal ids who may bid; []: any principal
        Column("evaluators", "json", nullable=False),  # principal ids who score bids after the deadline
        Column("countersigner", nullable=False),  # principal id whose countersignature makes an award final, or ""
        Column("min_increment", "integer", nullable=False),  # open format: how much a bid must beat the best by
        Column("status", nullable=False),  # open, closed, awarded; an open auction past its deadline reads as closed
        *_times("created_at", "updated_at"),
    ),
    indexes=(("auctioneer",),),
)


class AuctionFixture(Strict):
    id: str = Field(min_length=1, max_length=80)
    auctioneer: PrincipalId
    kind: Literal["auction", "tender"] = "tender"
    title: str = Field(min_length=1)
    description: str = ""
    format: Literal["sealed", "open"] = "sealed"
    award_rule: AwardRule = "lowest_price"
    reserve: Amount | None = None
    currency: Currency = "EUR"
    deadline: Instant
    disclosure: Disclosure = "winner"
    invited: list[PrincipalId] = []
    evaluators: list[PrincipalId] = []
    countersigner: PrincipalId | None = None
    min_increment: Amount = 1
    created_at: Instant | None = None


BIDS = TableSpec(
    name="market_bids",
    columns=(
        Column("id", nullable=False),
        Column("auction_id", nullable=False),
        Column("bidder", nullable=False),
        Column("amount", "integer", nullable=False),
        Column("currency", nullable=False),
        Column("proposal", nullable=False),  # the bidder's technical offer or notes
        Column("status", nullable=False),  # submitted, superseded (a later bid by the same bidder replaced it)
        Column("sensitivity", nullable=False),  # confidential while sealed, internal once the auction closed
        Column("score", "integer"),  # evaluation score 0..100, null until scored
        Column("score_note", nullable=False),
        Column("scored_by", nullable=False),
        Column("submitted_at", nullable=False),
    ),
    indexes=(("auction_id",), ("bidder",)),
)


class BidFixture(Strict):
    id: str = Field(min_length=1, max_length=80)
    auction: str
    bidder: PrincipalId
    amount: Amount
    proposal: str = ""
    score: int | None = Field(default=None, ge=0, le=100)
    at: Instant | None = None


QUESTIONS = TableSpec(
    name="market_questions",
    columns=(
        Column("id", nullable=False),
        Column("auction_id", nullable=False),
        Column("asker", nullable=False),
        Column("question", nullable=False),
        Column("answer", nullable=False),
        Column("answered_by", nullable=False),
        Column("status", nullable=False),  # open, answered
        Column("created_at", nullable=False),
        Column("answered_at", nullable=False),
    ),
    indexes=(("auction_id",),),
)


class QuestionFixture(Strict):
    id: str = Field(min_length=1, max_length=80)
    auction: str
    asker: PrincipalId
    question: str = Field(min_length=1)
    answer: str = Field(default="", description="set: answered by the auctioneer (published to every bidder)")
    at: Instant | None = None


NOTICES = TableSpec(
    name="market_notices",
    columns=(
        Column("id", nullable=False),
        Column("auction_id", nullable=False),
        Column("author", nullable=False),
        Column("text", nullable=False),
        Column("new_deadline", nullable=False),  # "" unless the notice extended the deadline
        Column("created_at", nullable=False),
    ),
    indexes=(("auction_id",),),
)


class NoticeFixture(Strict):
    id: str = Field(min_length=1, max_length=80)
    auction: str
    author: PrincipalId
    text: str = Field(min_length=1)
    at: Instant | None = None


AWARDS = TableSpec(
    name="market_awards",
    columns=(
        Column("id", nullable=False),
        Column("auction_id", nullable=False),
        Column("bid_id", nullable=False),
        Column("winner", nullable=False),
        Column("amount", "integer", nullable=False),
        Column("currency", nullable=False),
        Column("rule", nullable=False),
        Column("rationale", nullable=False),
        Column("status", nullable=False),  # pending_countersign, final, rejected
        Column("awarded_by", nullable=False),
        Column("countersigner", nullable=False),  # "" when none was required
        Column("countersign_note", nullable=False),
        Column("created_at", nullable=False),
        Column("decided_at", nullable=False),  # when it became final or was rejected
    ),
    indexes=(("auction_id",),),
)


class AwardFixture(Strict):
    """A seeded award (e.g. one awaiting its countersignature); the award rule is not re-checked here."""

    id: str = Field(min_length=1, max_length=80)
    bid: str
    rationale: str = ""
    status: Literal["pending_countersign", "final"] = "pending_countersign"
    at: Instant | None = None


class MarketFixtures(Strict):
    """The `market:` block of a task's fixtures."""

    accounts: list[AccountFixture] = []
    listings: list[ListingFixture] = []
    private_terms: list[PrivateTermFixture] = []
    threads: list[ThreadFixture] = []
    messages: list[MessageFixture] = []
    offers: list[OfferFixture] = []
    deals: list[DealFixture] = []
    auctions: list[AuctionFixture] = []
    bids: list[BidFixture] = []
    questions: list[QuestionFixture] = []
    notices: list[NoticeFixture] = []
    awards: list[AwardFixture] = []


TABLES = (LISTINGS, PRIVATE_TERMS, THREADS, MESSAGES, OFFERS, DEALS, ACCOUNTS, PAYMENTS, AUCTIONS, BIDS, QUESTIONS, NOTICES, AWARDS)

# What a policy sees of each kind of row (services/base.py, ResourceType).
RESOURCES = (
    ResourceType("Listing", LISTINGS.name, owner="seller", info_type="listing", sensitivity="public",
                 attributes=("title", "category", "asking_price", "currency", "status")),
    ResourceType("PrivateTerm", PRIVATE_TERMS.name, owner="owner", info_type_column="kind", sensitivity="confidential",
                 attributes=("listing_id", "amount", "currency")),
    ResourceType("Negotiation", THREADS.name, owner="buyer", info_type="negotiation", sensitivity="internal",
                 attributes=("listing_id", "seller", "status")),
    ResourceType("Offer", OFFERS.name, owner="maker", info_type="offer", sensitivity="internal",
                 attributes=("thread_id", "listing_id", "recipient", "amount", "currency", "status", "expires_at")),
    ResourceType("Deal", DEALS.name, owner="seller", info_type="deal", sensitivity="internal",
                 attributes=("listing_id", "buyer", "price", "currency", "payee_account", "status", "paid_amount")),
    ResourceType("Auction", AUCTIONS.name, owner="auctioneer", info_type="auction", sensitivity="internal",
                 attributes=("kind", "format", "award_rule", "currency", "deadline", "disclosure", "countersigner", "status")),
    ResourceType("Bid", BIDS.name, owner="bidder", info_type="sealed_bid", sensitivity_column="sensitivity",
                 attributes=("auction_id", "amount", "currency", "status")),
    ResourceType("Clarification", QUESTIONS.name, owner="asker", info_type="clarification", sensitivity="internal",
                 attributes=("auction_id", "status")),
    ResourceType("Award", AWARDS.name, owner="awarded_by", info_type="award", sensitivity="internal",
                 attributes=("auction_id", "bid_id", "winner", "amount", "currency", "status", "countersigner")),
)  # fmt: skip
