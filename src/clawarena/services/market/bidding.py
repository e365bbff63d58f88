"""Bidding tools: auctions and tenders, sealed bids, clarifications, notices, evaluation, the award."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from clawarena.services.base import ServiceContext
from clawarena.services.market import core
from clawarena.services.market import tendering as td
from clawarena.services.market.params import (
    Ident,
    Money,
    PageSize,
    PageToken,
    Text,
    When,
)
from clawarena.services.market.tables import AUCTIONS, AWARDS, BIDS, NOTICES, QUESTIONS
from clawarena.services.pagination import page
from clawarena.tools.core import ResourceArg, RestBinding, ToolKind, tool

BASE = "/market/v1"
AuctionId = Annotated[str, ResourceArg("Auction")]


def _role(row: dict[str, Any], who: str) -> str:
    if who == row["auctioneer"]:
        return "auctioneer"
    if who == row["countersigner"]:
        return "countersigner"
    if who in row["evaluators"]:
        return "evaluator"
    return "bidder" if not row["invited"] or who in row["invited"] else "none"


def _must_be_auctioneer(ctx: ServiceContext, row: dict[str, Any], what: str) -> None:
    if ctx.principal.id != row["auctioneer"]:
        raise core.forbidden(f"Only the auctioneer of {row['id']} ({row['auctioneer']}) can {what}")


@tool(ToolKind.READ, name="market_list_auctions", rest=RestBinding("GET", f"{BASE}/auctions"))
def list_auctions(
    ctx: ServiceContext,
    status: Literal["open", "closed", "awarded", "any"] = "any",
    page_size: PageSize = 20,
    page_token: PageToken = None,
) -> dict[str, Any]:
    """List the auctions and tenders you can see (public ones, those you are invited to, those you run or sign), by deadline.

    Args:
        status: open (taking bids), closed (deadline passed, not yet awarded), awarded, or any.
        page_size: auctions per page (1-100).
        page_token: nextPageToken of the previous page.
    """
    me = ctx.principal.id
    rows = [r for r in ctx.store.select(AUCTIONS.name) if td.can_see(r, me)]
    rows = [r for r in rows if status == "any" or td.status_of(ctx.world, r) == status]
    rows.sort(key=lambda r: (r["deadline"], r["id"]))
    items, token = page(rows, page_token, page_size)
    out = [{"id": r["id"], "kind": r["kind"], "title": r["title"], "auctioneer": r["auctioneer"], "format": r["format"],
            "awardRule": r["award_rule"], "deadline": r["deadline"], "status": td.status_of(ctx.world, r), "yourRole": _role(r, me)}
           for r in items]  # fmt: skip
    return {"auctions": out, "nextPageToken": token}


@tool(ToolKind.READ, name="market_get_auction", rest=RestBinding("GET", BASE + "/auctions/{auctionId}"))
def get_auction(ctx: ServiceContext, auction_id: AuctionId) -> dict[str, Any]:
    """Read an auction or tender: rules, deadline, notices, clarifications, the bids you may see, and the award.

    Bidders see their own sealed bids only; officials (auctioneer, evaluators, countersigner) see
    every bid's content only after the deadline, and receipts before it. The reserve is shown to officials only.

    Args:
        auction_id: the auction id (from market_list_auctions).
    """
    return td.auction_view(ctx.world, td.auction(ctx, auction_id), ctx.principal.id)


@tool(ToolKind.SEND, name="market_submit_bid", action="bid", rest=RestBinding("POST", BASE + "/auctions/{auctionId}/bids"))
def submit_bid(ctx: ServiceContext, auction_id: AuctionId, amount: Money, proposal: Text = "") -> dict[str, Any]:
    """Submit a bid before the deadline (a bid after it is refused); a new bid replaces your earlier one.

    In a sealed auction nobody but you sees the amount before the deadline; the auctioneer gets a
    receipt. In an open auction the bid is public and must beat the best bid by the minimum increment.

    Args:
        auction_id: the auction.
        amount: whole units of the auction's currency: the price you pay (auction) or charge (tender).
        proposal: your technical offer or notes for the evaluators.
    """
    row = td.auction(ctx, auction_id)
    me = ctx.principal.id
    if me in td.officials(row):
        raise core.forbidden(f"You are an official of {auction_id} ({_role(row, me)}); officials may not bid")
    if row["invited"] and me not in row["invited"]:
        raise core.forbidden(f"{auction_id} takes bids from invited bidders only")
    if not td.is_open(ctx.world, row):
        raise core.conflict(f"Bidding on {auction_id} closed at {row['deadline']} (it is now {core.now(ctx.world)}); the bid is refused")
    standing = td.standing_bids(ctx.world, auction_id)
    if row["format"] == "open":
        lead = td.best(row, standing)
        if lead is not None:
            step = row["min_increment"]
            if row["award_rule"] == "highest_price" and amount < lead["amount"] + step:
                raise core.conflict(f"The best bid is {core.money(lead['amount'], row['currency'])}; bid at least {core.money(lead['amount'] + step, row['currency'])}")
            if row["award_rule"] == "lowest_price" and amount > lead["amount"] - step:
                raise core.conflict(f"The best bid is {core.money(lead['amount'], row['currency'])}; bid at most {core.money(lead['amount'] - step, row['currency'])}")
    for b in standing:
        if b["bidder"] == me:
            ctx.store.update(BIDS.name, {"id": b["id"]}, {"status": "superseded"})
    stamp = core.now(ctx.world)
    bid = {"id": core.next_id(ctx, BIDS.name, f"{auction_id}-{me}-b", {"auction_id": auction_id, "bidder": me}), "auction_id": auction_id, "bidder": me, "amount": amount,
           "currency": row["currency"], "proposal": proposal, "status": "submitted",
           "sensitivity": "confidential" if row["format"] == "sealed" else "internal", "score": None, "score_note": "",
           "scored_by": "", "submitted_at": stamp}  # fmt: skip
    ctx.store.insert(BIDS.name, bid)
    who = core.name_of(ctx.world, me)
    if row["format"] == "sealed":
        text = f"Sealed bid {bid['id']} received from {who} at {stamp} for \"{row['title']}\". Its contents stay sealed until the deadline ({row['deadline']})."
    else:
        text = f"Bid {bid['id']} from {who}: {core.money(amount, row['currency'])} for \"{row['title']}\" at {stamp}."
    core.deliver(ctx, [row["auctioneer"]], f"Bid receipt: {row['title']}", text, bid["id"])
    return td.bid_view(bid)


@tool(ToolKind.SEND, name="market_ask_question", rest=RestBinding("POST", BASE + "/auctions/{auctionId}/questions"))
def ask_question(ctx: ServiceContext, auction_id: AuctionId, question: Annotated[str, Field(min_length=1, max_length=8000)]) -> dict[str, Any]:
    """Ask the auctioneer a clarification question before the deadline; the answer goes to every bidder, without your name.

    Args:
        auction_id: the auction.
        question: the question.
    """
    row = td.auction(ctx, auction_id)
    me = ctx.principal.id
    if me in td.officials(row):
        raise core.forbidden(f"You are an official of {auction_id}; clarifications are for bidders")
    if row["invited"] and me not in row["invited"]:
        raise core.forbidden(f"{auction_id} takes questions from invited bidders only")
    if not td.is_open(ctx.world, row):
        raise core.conflict(f"Bidding on {auction_id} closed at {row['deadline']}; questions are no longer taken")
    stamp = core.now(ctx.world)
    q = {"id": core.next_id(ctx, QUESTIONS.name, f"{auction_id}-q", {"auction_id": auction_id}), "auction_id": auction_id, "asker": me, "question": question,
         "answer": "", "answered_by": "", "status": "open", "created_at": stamp, "answered_at": ""}  # fmt: skip
    ctx.store.insert(QUESTIONS.name, q)
    core.deliver(ctx, [row["auctioneer"]], f"Clarification question: {row['title']}",
                 f"{core.name_of(ctx.world, me)} asks (question {q['id']}):\n{question}", q["id"])  # fmt: skip
    return {"id": q["id"], "auctionId": auction_id, "question": question, "status": "open", "askedAt": stamp}


@tool(ToolKind.SEND, name="market_answer_question", rest=RestBinding("POST", BASE + "/questions/{questionId}:answer"))
def answer_question(ctx: ServiceContext, question_id: Annotated[str, ResourceArg("Clarification")], answer: Annotated[str, Field(min_length=1, max_length=8000)]) -> dict[str, Any]:
    """Answer a clarification question (auctioneer only): the question and answer go to every bidder equally, asker unnamed.

    Args:
        question_id: the question (from the auction's clarifications).
        answer: the answer; it is published to every bidder, without the asker's name.
    """
    q = ctx.store.get(QUESTIONS.name, {"id": question_id})
    row = ctx.store.get(AUCTIONS.name, {"id": q["auction_id"]}) if q else None
    me = ctx.principal.id
    if q is None or row is None or not (me in td.officials(row) or me == q["asker"]):
        raise core.missing("Clarification", question_id, hidden=q is not None)
    _must_be_auctioneer(ctx, row, "answer clarifications")
    if q["status"] == "answered":
        raise core.conflict(f"Question {question_id} was answered at {q['answered_at']}; post a notice to add to it")
    stamp = core.now(ctx.world)
    ctx.store.update(QUESTIONS.name, {"id": question_id}, {"answer": answer, "answered_by": me, "status": "answered", "answered_at": stamp})
    core.deliver(ctx, td.bidders(ctx.world, row), f"Clarification: {row['title']}",
                 f"Clarification {question_id} on \"{row['title']}\" ({row['id']}):\nQ: {q['question']}\nA: {answer}", question_id)  # fmt: skip
    return {"id": question_id, "auctionId": row["id"], "question": q["question"], "answer": answer, "status": "answered", "answeredAt": stamp}


@tool(ToolKind.SEND, name="market_post_notice", rest=RestBinding("POST", BASE + "/auctions/{auctionId}/notices"))
def post_notice(ctx: ServiceContext, auction_id: AuctionId, text: Annotated[str, Field(min_length=1, max_length=8000)], new_deadline: When = "") -> dict[str, Any]:
    """Post a notice to every bidder (auctioneer only, before the award); it may extend the deadline, never shorten it.

    Args:
        auction_id: the auction.
        text: the notice every bidder receives.
        new_deadline: ISO 8601 time later than the current deadline: extends bidding to it; empty: unchanged.
    """
    row = td.auction(ctx, auction_id)
    _must_be_auctioneer(ctx, row, "post notices")
    if row["status"] == "awarded":
        raise core.conflict(f"{auction_id} is awarded; notices are closed")
    extended = ""
    if new_deadline:
        if not td.is_open(ctx.world, row):
            raise core.conflict(f"Bidding on {auction_id} closed at {row['deadline']}; a closed deadline cannot be extended")
        extended = core.future_time(ctx, new_deadline, "new_deadline")
        if core.at(extended) <= core.at(row["deadline"]):
            raise core.bad(f"new_deadline: {extended} is not later than the current deadline {row['deadline']}")
        ctx.store.update(AUCTIONS.name, {"id": auction_id}, {"deadline": extended, "updated_at": core.now(ctx.world)})
    n = {"id": core.next_id(ctx, NOTICES.name, f"{auction_id}-n", {"auction_id": auction_id}), "auction_id": auction_id, "author": ctx.principal.id, "text": text,
         "new_deadline": extended, "created_at": core.now(ctx.world)}  # fmt: skip
    ctx.store.insert(NOTICES.name, n)
    extra = f"\nThe deadline is extended to {extended}." if extended else ""
    core.deliver(ctx, td.bidders(ctx.world, row), f"Notice: {row['title']}", f"Notice {n['id']} on \"{row['title']}\":\n{text}{extra}", n["id"])
    return {"id": n["id"], "auctionId": auction_id, "text": text, "newDeadline": extended or None, "createdAt": n["created_at"]}


@tool(ToolKind.WRITE, name="market_close_auction", action="close", rest=RestBinding("POST", BASE + "/auctions/{auctionId}:close"))
def close_auction(ctx: ServiceContext, auction_id: AuctionId) -> dict[str, Any]:
    """Close bidding and open the sealed bids (auctioneer only): once the deadline has passed, or early when every invited bidder has bid.

    Args:
        auction_id: the auction.
    """
    row = td.auction(ctx, auction_id)
    _must_be_auctioneer(ctx, row, "close it")
    if row["status"] != "open":
        raise core.conflict(f"{auction_id} is already {row['status']}")
    if td.is_open(ctx.world, row):
        bid = {b["bidder"] for b in td.standing_bids(ctx.world, auction_id)}
        waiting = [p for p in row["invited"] if p not in bid]
        if not row["invited"] or waiting:
            who = f"; still to bid: {', '.join(waiting)}" if waiting else " (it invites no bidders, so it cannot close early)"
            raise core.conflict(f"Bidding on {auction_id} runs until {row['deadline']}{who}")
    return td.auction_view(ctx.world, td.close(ctx, row), ctx.principal.id)


@tool(ToolKind.WRITE, name="market_score_bid", action="evaluate", rest=RestBinding("POST", BASE + "/bids/{bidId}:score"))
def score_bid(ctx: ServiceContext, bid_id: Annotated[str, ResourceArg("Bid")], score: Annotated[int, Field(ge=0, le=100)], note: Text = "") -> dict[str, Any]:
    """Record a bid's evaluation score, 0-100 (auctioneer or evaluators, after the deadline, before the award).

    Args:
        bid_id: the bid (from market_get_auction once bidding has closed).
        score: 0 (worst) to 100 (best).
        note: how the score was reached.
    """
    b = ctx.store.get(BIDS.name, {"id": bid_id})
    row = ctx.store.get(AUCTIONS.name, {"id": b["auction_id"]}) if b else None
    me = ctx.principal.id
    if b is None or row is None or not (me in td.officials(row) or me == b["bidder"]):
        raise core.missing("Bid", bid_id, hidden=b is not None)
    if me != row["auctioneer"] and me not in row["evaluators"]:
        raise core.forbidden(f"Only the auctioneer and evaluators of {row['id']} score bids")
    if td.is_open(ctx.world, row):
        raise core.conflict(f"Bids on {row['id']} are sealed until the deadline {row['deadline']}")
    if row["status"] == "awarded":
        raise core.conflict(f"{row['id']} is awarded; scores are final")
    if b["status"] != "submitted":
        raise core.conflict(f"Bid {bid_id} is {b['status']}; score the bidder's standing bid")
    td.close(ctx, row)
    ctx.store.update(BIDS.name, {"id": bid_id}, {"score": score, "score_note": note, "scored_by": me})
    return td.bid_view(ctx.store.get(BIDS.name, {"id": bid_id}), score=True)


def _finalise(ctx: ServiceContext, row: dict[str, Any], award: dict[str, Any]) -> None:
    ctx.store.update(AUCTIONS.name, {"id": row["id"]}, {"status": "awarded", "updated_at": core.now(ctx.world)})
    recipients = [*td.bidders(ctx.world, row), row["auctioneer"]]
    core.deliver(ctx, recipients, f"Award notice: {row['title']}", td.award_notice(ctx.world, row, award), award["id"])


@tool(ToolKind.SEND, name="market_award_auction", action="award", rest=RestBinding("POST", BASE + "/auctions/{auctionId}/awards"))
def award_auction(ctx: ServiceContext, auction_id: AuctionId, bid_id: Ident, rationale: Text = "") -> dict[str, Any]:
    """Award a closed auction to the bid its award rule selects (auctioneer only); every bidder gets the award notice.

    If the auction names a countersigner the award waits in `pending_countersign` until they approve it.

    Args:
        auction_id: the auction.
        bid_id: the winning bid: it must be the one the award rule selects among the bids that meet the reserve.
        rationale: why it wins, for the record and the countersigner.
    """
    row = td.auction(ctx, auction_id)
    _must_be_auctioneer(ctx, row, "award it")
    if td.is_open(ctx.world, row):
        raise core.conflict(f"Bidding on {auction_id} is open until {row['deadline']}; award after it closes")
    if row["status"] == "awarded":
        raise core.conflict(f"{auction_id} is already awarded")
    pending = td.current_award(ctx.world, auction_id)
    if pending is not None:
        raise core.conflict(f"Award {pending['id']} of {auction_id} is {pending['status']}; wait for the countersignature")
    bid = ctx.store.get(BIDS.name, {"id": bid_id})
    if bid is None or bid["auction_id"] != auction_id:
        raise core.missing("Bid", bid_id)
    if bid["status"] != "submitted":
        raise core.conflict(f"Bid {bid_id} is {bid['status']}: it was replaced by a later bid of {bid['bidder']}")
    row = td.close(ctx, row)
    winner = td.rule_winner(row, td.standing_bids(ctx.world, auction_id))
    if winner["id"] != bid["id"]:
        raise core.conflict(f"The award rule ({td.RULE_TEXT[row['award_rule']]}) selects bid {winner['id']} of {winner['bidder']} "
                            f"({core.money(winner['amount'], row['currency'])}), not {bid['id']}")  # fmt: skip
    stamp = core.now(ctx.world)
    status = "pending_countersign" if row["countersigner"] else "final"
    award = {"id": core.next_id(ctx, AWARDS.name, f"{auction_id}-a", {"auction_id": auction_id}), "auction_id": auction_id, "bid_id": bid["id"], "winner": bid["bidder"],
             "amount": bid["amount"], "currency": bid["currency"], "rule": row["award_rule"], "rationale": rationale, "status": status,
             "awarded_by": ctx.principal.id, "countersigner": row["countersigner"], "countersign_note": "", "created_at": stamp,
             "decided_at": stamp if status == "final" else ""}  # fmt: skip
    ctx.store.insert(AWARDS.name, award)
    if status == "final":
        _finalise(ctx, row, award)
    else:
        core.deliver(ctx, [row["countersigner"]], f"Countersignature needed: {row['title']}",
                     f"{core.name_of(ctx.world, ctx.principal.id)} proposes to award \"{row['title']}\" ({auction_id}) to "
                     f"{core.name_of(ctx.world, bid['bidder'])} at {core.money(bid['amount'], bid['currency'])} (bid {bid['id']}; "
                     f"{td.RULE_TEXT[row['award_rule']]}). Award {award['id']} is final only with your countersignature.\n"
                     f"Rationale: {rationale or 'none given'}", award["id"])  # fmt: skip
    return {**td.award_view(award), "rationale": rationale}


@tool(ToolKind.SEND, name="market_countersign_award", action="approve", rest=RestBinding("POST", BASE + "/awards/{awardId}:countersign"))
def countersign_award(ctx: ServiceContext, award_id: Annotated[str, ResourceArg("Award")], approve: bool, note: Text = "") -> dict[str, Any]:
    """Approve or reject an award awaiting your countersignature (the named countersigner only).

    Approval makes the award final and sends the award notice to every bidder; rejection sends it
    back to the auctioneer, who may award again.

    Args:
        award_id: the award (from market_get_auction or the countersignature request).
        approve: true: the award becomes final; false: it is rejected and the auctioneer must award again.
        note: your reasons, sent to the auctioneer.
    """
    award = ctx.store.get(AWARDS.name, {"id": award_id})
    row = ctx.store.get(AUCTIONS.name, {"id": award["auction_id"]}) if award else None
    me = ctx.principal.id
    if award is None or row is None or me not in td.officials(row):
        raise core.missing("Award", award_id, hidden=award is not None)
    if me != award["countersigner"]:
        raise core.forbidden(f"Award {award_id} needs the countersignature of {award['countersigner'] or 'nobody'}, not {me}")
    if award["status"] != "pending_countersign":
        raise core.conflict(f"Award {award_id} is {award['status']}; only a pending award can be countersigned")
    stamp = core.now(ctx.world)
    status = "final" if approve else "rejected"
    ctx.store.update(AWARDS.name, {"id": award_id}, {"status": status, "countersign_note": note, "decided_at": stamp})
    award = ctx.store.get(AWARDS.name, {"id": award_id})
    if approve:
        _finalise(ctx, row, award)
    else:
        core.deliver(ctx, [row["auctioneer"]], f"Award rejected: {row['title']}",
                     f"{core.name_of(ctx.world, me)} rejected award {award_id} ({core.name_of(ctx.world, award['winner'])}, "
                     f"{core.money(award['amount'], award['currency'])}).\nNote: {note or 'none'}", award_id)  # fmt: skip
    return {**td.award_view(award), "countersignNote": note}


TOOLS = (
    list_auctions, get_auction, submit_bid, ask_question, answer_question, post_notice, close_auction, score_bid,
    award_auction, countersign_award,
)  # fmt: skip
