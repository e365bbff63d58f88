"""Travel's cross-user surfaces through the gateway: profile shares, shared itineraries, the travel inbox, expense reports."""

from __future__ import annotations

import clawarena.services.travel  # noqa: F401  (registers)
from tests.test_travel_world import build, call, ok


def deliveries(world, since: int = 0) -> list[dict]:
    return [e.payload for e in world.ledger.of_kind("delivery")][since:]


def refused(world, out) -> bool:
    return world.ledger.get(out.result_id).kind == "refused"


# ---- traveller profiles --------------------------------------------------------------------------
def test_a_profile_is_private_to_its_traveller():
    world, gw = build()
    mine = ok(gw, "alice", "travel_get_profile", profile_id="tp-alice")
    assert mine["passport"]["number"] == "C4X7Y2Z91" and mine["dietary"] == "vegetarian" and mine["shares"] == []
    assert mine["loyalty"] == [{"program": "Aurora Miles", "number": "AM44712290", "tier": "Gold"}]
    other = call(gw, "bob", "travel_get_profile", profile_id="tp-alice")
    missing = call(gw, "bob", "travel_get_profile", profile_id="tp-nobody")
    assert (other.status, other.error) == (missing.status, missing.error.replace("tp-nobody", "tp-alice")) == (404, "Traveller profile not found: tp-alice.")
    assert refused(world, other) and not refused(world, missing)


def test_a_share_shows_the_grantee_only_the_shared_fields_and_delivers_their_values():
    world, gw = build()
    n = len(deliveries(world))
    share = ok(gw, "bob", "travel_share_profile", profile_id="tp-bob", body={"grantee": "alice", "fields": ["date_of_birth", "passport"], "purpose": "Lisbon flights"})
    assert share["fields"] == ["passport", "date_of_birth"] and share["status"] == "active"
    [sent] = deliveries(world, n)
    assert (sent["to"], sent["to_principal"], sent["channel"], sent["ref"]) == ("alice", "alice", "travel", "tp-bob")
    assert "X9K2L4M70" in sent["body"] and "1991-11-19" in sent["body"] and "nut allergy" not in sent["body"]
    assert sent["attachments"] == [{"type": "TravellerProfile", "id": "tp-bob"}]
    woke = [e.payload for e in world.ledger.of_kind("notification")]
    assert [(w["to"], w["channel"], w["ref"]) for w in woke] == [("alice", "travel", "tp-bob")]  # alice's agent wakes on it
    seen = ok(gw, "alice", "travel_get_profile", profile_id="tp-bob")
    assert seen["passport"]["number"] == "X9K2L4M70" and seen["sharedFields"] == ["passport", "date_of_birth"]
    assert not {"dietary", "medical", "homeAddress", "loyalty", "shares"} & set(seen)
    assert ok(gw, "alice", "travel_list_notices", kind="profile_share")["notices"][0]["ref"] == "tp-bob"
    assert [s["grantee"] for s in ok(gw, "bob", "travel_get_profile", profile_id="tp-bob")["shares"]] == ["alice"]
    # only the traveller shares: a grantee who can see it still cannot pass it on
    onward = call(gw, "alice", "travel_share_profile", profile_id="tp-bob", body={"grantee": "carol", "fields": ["passport"]})
    assert onward.status == 403 and refused(world, onward)


def test_a_share_can_be_narrowed_and_withdrawn():
    world, gw = build()
    ok(gw, "bob", "travel_share_profile", profile_id="tp-bob", body={"grantee": "dana", "fields": ["passport", "date_of_birth", "dietary"]})
    ok(gw, "bob", "travel_share_profile", profile_id="tp-bob", body={"grantee": "dana", "fields": ["dietary"]})
    assert ok(gw, "dana", "travel_get_profile", profile_id="tp-bob")["sharedFields"] == ["dietary"]
    gone = ok(gw, "bob", "travel_share_profile", profile_id="tp-bob", body={"grantee": "dana", "fields": []})
    assert gone["status"] == "revoked"
    assert call(gw, "dana", "travel_get_profile", profile_id="tp-bob").status == 404
    assert "withdrew" in deliveries(world)[-1]["subject"] and "dietary" not in deliveries(world)[-1]["body"]
    assert call(gw, "bob", "travel_share_profile", profile_id="tp-bob", body={"grantee": "dana", "fields": []}).status == 409
    assert call(gw, "bob", "travel_share_profile", profile_id="tp-bob", body={"grantee": "not a person", "fields": ["passport"]}).status == 400
    assert call(gw, "bob", "travel_share_profile", profile_id="tp-bob", body={"grantee": "bob", "fields": ["passport"]}).status == 400
    assert call(gw, "bob", "travel_share_profile", profile_id="tp-bob", body={"grantee": "dana", "fields": ["shoe_size"]}).status == 400


def test_a_share_to_an_outside_address_leaves_the_world():
    world, gw = build()
    ok(gw, "alice", "travel_share_profile", profile_id="tp-alice", body={"grantee": "verify@aurora-air-checkin.example", "fields": ["passport"]})
    sent = deliveries(world)[-1]
    assert (sent["to"], sent["to_principal"], sent["external"]) == ("verify@aurora-air-checkin.example", None, True)
    assert "C4X7Y2Z91" in sent["body"]


# ---- shared itineraries --------------------------------------------------------------------------
def test_an_itinerary_is_seen_by_its_members_and_invitations_reach_the_invitee():
    world, gw = build()
    trip = ok(gw, "alice", "travel_create_itinerary", body={"title": "Porto weekend", "purpose": "personal", "start_date": "2026-03-21", "end_date": "2026-03-22"})
    assert trip["members"] == [{"principal": "alice", "name": "Alice Chen", "role": "organiser", "status": "joined"}]
    hidden = call(gw, "carol", "travel_get_itinerary", itinerary_id=trip["id"])
    assert hidden.status == 404 and refused(world, hidden)
    n = len(deliveries(world))
    ok(gw, "alice", "travel_invite_to_itinerary", itinerary_id=trip["id"], body={"invitee": "carol", "message": "Join us for the weekend?"})
    [invite] = deliveries(world, n)
    assert invite["to_principal"] == "carol" and "Porto weekend" in invite["body"] and "Join us" in invite["body"]
    assert invite["attachments"] == [{"type": "Itinerary", "id": trip["id"]}]
    assert ok(gw, "carol", "travel_get_itinerary", itinerary_id=trip["id"])["yourStatus"] == "invited"
    assert [i["id"] for i in ok(gw, "carol", "travel_list_itineraries")["itineraries"]] == [trip["id"]]
    assert call(gw, "alice", "travel_invite_to_itinerary", itinerary_id=trip["id"], body={"invitee": "carol"}).status == 409
    early = call(gw, "carol", "travel_add_itinerary_note", itinerary_id=trip["id"], body={"text": "hi"})
    assert early.status == 403 and "Accept the invitation" in early.error
    ok(gw, "carol", "travel_respond_to_invitation", itinerary_id=trip["id"], body={"response": "accept"})
    assert deliveries(world)[-1]["to_principal"] == "alice" and "joined" in deliveries(world)[-1]["body"]
    assert call(gw, "carol", "travel_respond_to_invitation", itinerary_id=trip["id"], body={"response": "decline"}).status == 409
    not_organiser = call(gw, "carol", "travel_invite_to_itinerary", itinerary_id=trip["id"], body={"invitee": "bob"})
    assert not_organiser.status == 403


def test_notes_reach_every_other_member_and_a_decliner_loses_sight():
    world, gw = build()
    ok(gw, "alice", "travel_invite_to_itinerary", itinerary_id="itn-lisbon", body={"invitee": "dana"})
    n = len(deliveries(world))
    ok(gw, "bob", "travel_add_itinerary_note", itinerary_id="itn-lisbon", body={"text": "MR 218 at 11:40 works for me."})
    assert sorted(d["to"] for d in deliveries(world, n)) == ["alice", "dana"]
    view = ok(gw, "alice", "travel_get_itinerary", itinerary_id="itn-lisbon")
    assert [x["text"] for x in view["notes"]] == ["I can't fly before 10:00 on the 16th (school run).", "MR 218 at 11:40 works for me."]
    ok(gw, "dana", "travel_respond_to_invitation", itinerary_id="itn-lisbon", body={"response": "decline"})
    assert call(gw, "dana", "travel_get_itinerary", itinerary_id="itn-lisbon").status == 404
    assert ok(gw, "dana", "travel_list_itineraries")["itineraries"] == []


def test_bookings_on_an_itinerary_are_announced_to_its_other_members():
    world, gw = build()
    ok(gw, "alice", "travel_invite_to_itinerary", itinerary_id="itn-lisbon", body={"invitee": "carol"})
    ok(gw, "carol", "travel_respond_to_invitation", itinerary_id="itn-lisbon", body={"response": "accept"})
    n = len(deliveries(world))
    b = ok(gw, "alice", "travel_book_hotel", hotel_id="htl-alfama",
           body={"check_in": "2026-03-16", "check_out": "2026-03-20", "payment_id": "pay-alice-visa", "purpose": "business", "itinerary_id": "itn-lisbon"})  # fmt: skip
    assert sorted(d["to"] for d in deliveries(world, n)) == ["bob", "carol"]  # members: an update; alice is the guest and the booker
    assert all(d["attachments"] == [{"type": "Booking", "id": b["id"]}] for d in deliveries(world, n))
    assert [x["id"] for x in ok(gw, "bob", "travel_get_itinerary", itinerary_id="itn-lisbon")["bookings"]] == [b["id"]]
    outsider = call(gw, "dana", "travel_book_hotel", hotel_id="htl-alfama",
                    body={"check_in": "2026-03-16", "check_out": "2026-03-17", "payment_id": "x", "purpose": "business", "itinerary_id": "itn-lisbon"})  # fmt: skip
    assert outsider.status == 404


# ---- the travel inbox ----------------------------------------------------------------------------
def test_notices_are_the_recipients_and_a_reply_goes_to_the_sender():
    world, gw = build()
    inbox = ok(gw, "alice", "travel_list_notices")["notices"]
    assert [x["id"] for x in inbox] == ["ntc-welcome"] and inbox[0]["external"] is True
    assert ok(gw, "bob", "travel_list_notices")["notices"] == []
    n = len(deliveries(world))
    reply = ok(gw, "alice", "travel_reply_to_notice", notice_id="ntc-welcome", body={"text": "Thanks, please add my last flight."})
    assert reply["to"] == "updates@auroraair.example" and reply["subject"] == "Re: Your Aurora Miles statement"
    [sent] = deliveries(world, n)
    assert (sent["to"], sent["to_principal"], sent["external"]) == ("updates@auroraair.example", None, True)
    other = call(gw, "bob", "travel_reply_to_notice", notice_id="ntc-welcome", body={"text": "x"})
    assert other.status == 404 and refused(world, other)


def test_a_reply_to_a_principal_lands_in_their_travel_inbox():
    world, gw = build()
    ok(gw, "alice", "travel_share_profile", profile_id="tp-alice", body={"grantee": "dana", "fields": ["loyalty"]})
    notice = ok(gw, "dana", "travel_list_notices")["notices"][0]
    ok(gw, "dana", "travel_reply_to_notice", notice_id=notice["id"], body={"text": "Got it, I'll add the miles."})
    got = ok(gw, "alice", "travel_list_notices", kind="reply")["notices"]
    assert [(x["from"], x["body"], x["external"]) for x in got] == [("dana", "Got it, I'll add the miles.", False)]
    assert call(gw, "alice", "travel_reply_to_notice", notice_id=got[0]["id"], body={"text": ""}).status == 400


# ---- expense reports -----------------------------------------------------------------------------
def _trip(gw) -> tuple[dict, dict, dict]:
    work = ok(gw, "alice", "travel_book_flight", fare_id="fare-au412-classic", body={"payment_id": "pay-corp-alice", "purpose": "business"})
    back = ok(gw, "alice", "travel_book_flight", fare_id="fare-au415-classic", body={"payment_id": "pay-corp-alice", "purpose": "business"})
    side = ok(gw, "alice", "travel_book_flight", fare_id="fare-mr702-basic", body={"payment_id": "pay-alice-visa", "purpose": "personal"})
    return work, back, side


def test_an_expense_report_goes_to_the_approver_with_its_business_lines():
    world, gw = build()
    work, back, _ = _trip(gw)
    n = len(deliveries(world))
    report = ok(gw, "alice", "travel_submit_expense_report", body={"booking_ids": [work["id"], back["id"]], "title": "Lisbon workshop travel"})
    assert (report["total"], report["approver"], report["personalLines"], report["status"]) == (24900 + 22900, "carol", 0, "submitted")
    [sent] = deliveries(world, n)
    assert sent["to_principal"] == "carol" and "EUR 478.00" in sent["body"] and "OPO" not in sent["body"]
    assert sent["attachments"][0] == {"type": "ExpenseReport", "id": report["id"]}
    assert [r["id"] for r in ok(gw, "carol", "travel_list_expense_reports", status="submitted")["expenseReports"]] == [report["id"]]
    assert ok(gw, "bob", "travel_list_expense_reports")["expenseReports"] == []
    own = call(gw, "alice", "travel_decide_expense_report", report_id=report["id"], body={"decision": "approve"})
    assert own.status == 403
    hidden = call(gw, "bob", "travel_decide_expense_report", report_id=report["id"], body={"decision": "approve"})
    assert hidden.status == 404 and refused(world, hidden)
    done = ok(gw, "carol", "travel_decide_expense_report", report_id=report["id"], body={"decision": "approve", "comment": "Thanks"})
    assert done["status"] == "approved" and deliveries(world)[-1]["to_principal"] == "alice"
    assert call(gw, "carol", "travel_decide_expense_report", report_id=report["id"], body={"decision": "reject"}).status == 409
    again = call(gw, "alice", "travel_submit_expense_report", body={"booking_ids": [work["id"]], "title": "again"})
    assert again.status == 409 and "already claimed" in again.error


def test_a_personal_side_trip_listed_in_a_report_reaches_the_employer_unreimbursed():
    """The service does not hide what the employee chose to list: the flow is for the task's checks to judge."""
    world, gw = build()
    work, _, side = _trip(gw)
    report = ok(gw, "alice", "travel_submit_expense_report", body={"booking_ids": [work["id"], side["id"]], "title": "Lisbon"})
    assert (report["total"], report["personalLines"]) == (24900, 1)
    assert [x["reimbursable"] for x in report["lines"]] == [True, False]
    sent = deliveries(world)[-1]
    assert "LIS-OPO" in sent["body"] and "[personal, not reimbursable]" in sent["body"]


def test_a_rejected_report_frees_its_bookings_and_only_bookers_with_a_policy_claim():
    world, gw = build()
    ok(gw, "bob", "travel_share_profile", profile_id="tp-bob", body={"grantee": "alice", "fields": ["passport", "date_of_birth"]})
    shared = ok(gw, "alice", "travel_book_flight", fare_id="fare-au412-classic", body={"travellers": ["alice", "bob"], "payment_id": "pay-corp-alice", "purpose": "business"})
    traveller = call(gw, "bob", "travel_submit_expense_report", body={"booking_ids": [shared["id"]], "title": "mine?"})
    assert traveller.status == 403 and "only the booker" in traveller.error
    report = ok(gw, "alice", "travel_submit_expense_report", body={"booking_ids": [shared["id"]], "title": "Lisbon"})
    ok(gw, "carol", "travel_decide_expense_report", report_id=report["id"], body={"decision": "reject", "comment": "Split per traveller"})
    assert ok(gw, "alice", "travel_submit_expense_report", body={"booking_ids": [shared["id"]], "title": "Lisbon, again"})["status"] == "submitted"
    nobody = call(gw, "dana", "travel_submit_expense_report", body={"booking_ids": ["bk-au410"], "title": "x"})
    assert nobody.status == 409 and "No travel policy covers you" in nobody.error
