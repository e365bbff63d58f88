"""The bidding rules shared by tools and seeding: who sees an auction and its bids, deadlines, the award rule.

Officials are the auctioneer, the evaluators and the countersigner. An auction with invited
bidders is visible to them and the officials; one without is public. A sealed bid is seen by its
bidder, and by the officials only once the deadline has passed (before that they see a receipt:
who bid and when). An open auction's bids are seen by everyone who sees the auction. An open
auction past its deadline reads as `closed` and is written so when an official next acts on it.
"""

from __future__ import annotations

from typing import Any

from clawarena.services.base import ServiceContext
from clawarena.services.market import core
from clawarena.services.market.tables import AUCTIONS, AWARDS, BIDS, NOTICES, QUESTIONS
from clawarena.world.world import World

RULE_TEXT = {
    "highest_price": "the highest price wins",
    "lowest_price": "the lowest price wins",
    "best_score": "the best evaluation score wins (ties: the lower price)",
}


def officials(auction: dict[str, Any]) -> set[str]:
    return {auction["auctioneer"], *auction["evaluators"], *([auction["countersigner"]] if auction["countersigner"] else [])}


def can_see(auction: dict[str, Any], who: str) -> bool:
    return not auction["invited"] or who in officials(auction) or who in auction["invited"]


def auction(ctx: ServiceContext, auction_id: str) -> dict[str, Any]:
    row = ctx.store.get(AUCTIONS.name, {"id": auction_id})
    if row is None or not can_see(row, ctx.principal.id):
        raise core.missing("Auction", auction_id, hidden=row is not None)
    return row


def status_of(world: World, row: dict[str, Any]) -> str:
    if row["status"] == "open" and core.is_past(world, row["deadline"]):
        return "closed"
    return row["status"]


def is_open(world: World, row: dict[str, Any]) -> bool:
    return status_of(world, row) == "open"


def close(ctx: ServiceContext, row: dict[str, Any]) -> dict[str, Any]:
    """Write down that bidding has ended: the auction is closed and its bids are no longer sealed."""
    if row["status"] == "open":
        ctx.store.update(AUCTIONS.name, {"id": row["id"]}, {"status": "closed", "updated_at": core.now(ctx.world)})
    for b in ctx.store.select(BIDS.name, {"auction_id": row["id"], "sensitivity": "confidential"}):
        ctx.store.update(BIDS.name, {"id": b["id"]}, {"sensitivity": "internal"})
    return ctx.store.get(AUCTIONS.name, {"id": row["id"]})


def bidders(world: World, row: dict[str, Any]) -> list[str]:
    """Who a clarification, a notice or the award notice goes to: the invited, else everyone who bid or asked."""
    if row["invited"]:
        found = set(row["invited"])
    else:
        found = {b["bidder"] for b in world.store.select(BIDS.name, {"auction_id": row["id"]})}
        found |= {q["asker"] for q in world.store.select(QUESTIONS.name, {"auction_id": row["id"]})}
    return sorted(found - officials(row))


def standing_bids(world: World, auction_id: str) -> list[dict[str, Any]]:
    rows = world.store.select(BIDS.name, {"auction_id": auction_id, "status": "submitted"})
    return sorted(rows, key=lambda b: (b["submitted_at"], b["id"]))


def by_price(row: dict[str, Any], bids: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Bids best price first for the rule (highest or lowest), ties to the earlier bid."""
    sign = -1 if row["award_rule"] == "highest_price" else 1
    return sorted(bids, key=lambda b: (sign * b["amount"], b["submitted_at"], b["id"]))


def best(row: dict[str, Any], bids: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The leading bid by price alone (an open auction's current best)."""
    ranked = by_price(row, bids)
    return ranked[0] if ranked else None


def meets_reserve(row: dict[str, Any], bid: dict[str, Any]) -> bool:
    if row["reserve"] is None:
        return True
    return bid["amount"] >= row["reserve"] if row["award_rule"] == "highest_price" else bid["amount"] <= row["reserve"]


def rule_winner(row: dict[str, Any], bids: list[dict[str, Any]]) -> dict[str, Any]:
    """The bid the award rule selects among the standing bids that meet the reserve (ties: the earlier bid)."""
    eligible = [b for b in bids if meets_reserve(row, b)]
    if not eligible:
        what = "no bids" if not bids else f"none of the {len(bids)} bids meets the reserve of {core.money(row['reserve'], row['currency'])}"
        raise core.conflict(f"Auction {row['id']} has {what}; nothing can be awarded")
    if row["award_rule"] != "best_score":
        return by_price(row, eligible)[0]
    unscored = [b["id"] for b in eligible if b["score"] is None]
    if unscored:
        raise core.conflict(f"The award rule is best_score and bids {', '.join(unscored)} have no evaluation score yet (market_score_bid)")
    return min(eligible, key=lambda b: (-b["score"], b["amount"], b["submitted_at"], b["id"]))


def current_award(world: World, auction_id: str) -> dict[str, Any] | None:
    rows = [a for a in world.store.select(AWARDS.name, {"auction_id": auction_id}) if a["status"] != "rejected"]
    return max(rows, key=lambda a: (a["created_at"], a["id"])) if rows else None


# ---- views ---------------------------------------------------------------------------------------
def bid_view(row: dict[str, Any], full: bool = True, score: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"id": row["id"], "auctionId": row["auction_id"], "bidder": row["bidder"], "status": row["status"], "submittedAt": row["submitted_at"]}
    if full:
        out.update({"amount": row["amount"], "currency": row["currency"], "proposal": row["proposal"]})
    else:
        out["sealed"] = True
    if score:
        out.update({"score": row["score"], "scoreNote": row["score_note"], "scoredBy": row["scored_by"] or None})
    return out


def award_view(row: dict[str, Any], disclose_amount: bool = True) -> dict[str, Any]:
    out = {"id": row["id"], "auctionId": row["auction_id"], "bidId": row["bid_id"], "winner": row["winner"], "rule": row["rule"],
           "status": row["status"], "createdAt": row["created_at"], "decidedAt": row["decided_at"] or None}  # fmt: skip
    if disclose_amount:
        out.update({"amount": row["amount"], "currency": row["currency"]})
    return out


def auction_view(world: World, row: dict[str, Any], who: str) -> dict[str, Any]:
    official = who in officials(row)
    state = status_of(world, row)
    out: dict[str, Any] = {
        "id": row["id"], "kind": row["kind"], "title": row["title"], "description": row["description"], "auctioneer": row["auctioneer"],
        "format": row["format"], "awardRule": row["award_rule"], "awardRuleText": RULE_TEXT[row["award_rule"]],
        "currency": row["currency"], "deadline": row["deadline"], "disclosure": row["disclosure"], "status": state,
        "invited": row["invited"], "countersigner": row["countersigner"] or None, "evaluators": row["evaluators"],
    }  # fmt: skip
    if row["format"] == "open":
        out["minIncrement"] = row["min_increment"]
    if official:
        out["reserve"] = row["reserve"]
    notices = sorted(world.store.select(NOTICES.name, {"auction_id": row["id"]}), key=lambda n: (n["created_at"], n["id"]))
    out["notices"] = [{"id": n["id"], "author": n["author"], "text": n["text"], "newDeadline": n["new_deadline"] or None, "createdAt": n["created_at"]} for n in notices]
    questions = sorted(world.store.select(QUESTIONS.name, {"auction_id": row["id"]}), key=lambda q: (q["created_at"], q["id"]))
    out["clarifications"] = [
        {"id": q["id"], "question": q["question"], "answer": q["answer"] or None, "status": q["status"], "askedAt": q["created_at"],
         **({"asker": q["asker"]} if official or q["asker"] == who else {})}
        for q in questions if official or q["asker"] == who or q["status"] == "answered"
    ]  # fmt: skip
    bids = sorted(world.store.select(BIDS.name, {"auction_id": row["id"]}), key=lambda b: (b["submitted_at"], b["id"]))
    award = current_award(world, row["id"])
    final = award is not None and award["status"] == "final"
    if official:
        opened = state != "open" or row["format"] == "open"
        out["bids"] = [bid_view(b, full=opened, score=opened) for b in bids]
    elif row["format"] == "open" or (final and row["disclosure"] == "ranking"):
        out["bids"] = [bid_view(b) if b["bidder"] == who else {k: v for k, v in bid_view(b).items() if k != "proposal"} for b in bids]
    else:
        out["bids"] = [bid_view(b) for b in bids if b["bidder"] == who]
    if award is not None and (official or final):
        out["award"] = award_view(award, disclose_amount=official or row["disclosure"] != "none")
    else:
        out["award"] = None
    names = [row["auctioneer"], *row["invited"], *row["evaluators"], row["countersigner"], *(n["author"] for n in notices)]
    names += [b["bidder"] for b in out["bids"]] + ([out["award"]["winner"]] if out["award"] else [])
    out["people"] = core.people(world, *names)
    return out


def award_notice(world: World, row: dict[str, Any], award: dict[str, Any]) -> str:
    winner = core.name_of(world, award["winner"])
    price = f" at {core.money(award['amount'], award['currency'])}" if row["disclosure"] != "none" else ""
    lines = [f"Award of \"{row['title']}\" ({row['id']}): {winner}{price}."]
    lines.append(f"Rule applied: {RULE_TEXT[award['rule']]}.")
    if row["disclosure"] == "ranking":
        ranked = by_price(row, standing_bids(world, row["id"]))
        lines.append("All bids: " + "; ".join(f"{core.name_of(world, b['bidder'])} {core.money(b['amount'], b['currency'])}" for b in ranked) + ".")
    return "\n".join(lines)
