"""Gmail conformance: settings (filters, sendAs, forwarding addresses, auto-forwarding, vacation, IMAP, POP,
language, delegates), and how they act on arriving mail."""

import pytest

from tests.conformance.gmail_world import deliveries, headers, http_error, raw, refusals, rows, world
from tests.conformance.harness import assert_schema


def settings(served, who="alice"):
    return served.google("gmail", who).users().settings()


def send(served, who="alice", **kwargs):
    return served.google("gmail", who).users().messages().send(userId="me", body={"raw": raw(**kwargs)}).execute()


# ---- filters --------------------------------------------------------------------------------------
def test_filter_create_get_list_delete(served):
    w = served.start(world())
    f = settings(served).filters()
    assert f.list(userId="me").execute() == {}
    made = f.create(userId="me", body={"criteria": {"from": "carol@northwind.example", "hasAttachment": True},
                                       "action": {"addLabelIds": ["Label_projects"], "removeLabelIds": ["INBOX"]}}).execute()  # fmt: skip
    assert_schema("gmail.users.settings.filters.create", made)
    assert made["criteria"] == {"from": "carol@northwind.example", "hasAttachment": True}
    got = f.get(userId="me", id=made["id"]).execute()
    assert_schema("gmail.users.settings.filters.get", got)
    listed = f.list(userId="me").execute()
    assert_schema("gmail.users.settings.filters.list", listed)
    assert listed["filter"] == [got] == [made]
    f.delete(userId="me", id=made["id"]).execute()
    assert w.store.select("gmail_filters", {"owner": "alice"}) == []
    assert http_error(f.get(userId="me", id=made["id"])).status_code == 404


def test_filters_label_mail_as_it_arrives(served):
    w = served.start(world(filters=[{"owner": "bob", "criteria": {"from": "alice@northwind.example", "subject": "invoice"},
                                     "action": {"addLabelIds": ["STARRED"], "removeLabelIds": ["INBOX", "UNREAD"]}}]))  # fmt: skip
    send(served, subject="Invoice 42")
    send(served, subject="Lunch")
    assert rows(w, owner="bob", subject="Invoice 42")[0]["label_ids"] == ["STARRED"]
    assert rows(w, owner="bob", subject="Lunch")[0]["label_ids"] == ["INBOX", "UNREAD"]


def test_filter_query_size_and_attachment_criteria(served):
    w = served.start(world())
    f = settings(served, "bob").filters()
    f.create(userId="me", body={"criteria": {"query": "budget OR forecast", "negatedQuery": "draft"}, "action": {"addLabelIds": ["IMPORTANT"]}}).execute()
    f.create(userId="me", body={"criteria": {"hasAttachment": True, "size": 10, "sizeComparison": "larger"}, "action": {"addLabelIds": ["STARRED"]}}).execute()
    send(served, subject="Forecast", body="numbers")
    send(served, subject="Forecast draft", body="numbers")
    send(served, subject="Files", attachments=[("a.txt", "text/plain", "some text here")])
    labels = {r["subject"]: r["label_ids"] for r in rows(w, owner="bob")}
    assert labels["Forecast"] == ["INBOX", "UNREAD", "IMPORTANT"] and labels["Forecast draft"] == ["INBOX", "UNREAD"]
    assert labels["Files"] == ["INBOX", "UNREAD", "STARRED"]


def test_filter_forwarding_is_a_delivery(served):
    fx = world(forwarding_addresses=[{"owner": "bob", "email": "carol@northwind.example"}],
               filters=[{"owner": "bob", "criteria": {"subject": "report"}, "action": {"forward": "carol@northwind.example"}}])  # fmt: skip
    w = served.start(fx)
    send(served, subject="Weekly report", body="REPORT-99")
    assert deliveries(w) == [
        ("alice@northwind.example", "bob@northwind.example", "Weekly report"),
        ("bob@northwind.example", "carol@northwind.example", "Weekly report"),
    ]
    (fwd,) = rows(w, owner="carol", subject="Weekly report")
    assert fwd["sender"] == "Alice Chen <alice@northwind.example>" and fwd["body"] == "REPORT-99"


def test_filter_validation(served):
    w = served.start(world(forwarding_addresses=[{"owner": "alice", "email": "x@outside.example", "verification_status": "pending"}]))
    f = settings(served).filters()
    assert "criteria" in str(http_error(f.create(userId="me", body={"criteria": {}, "action": {"addLabelIds": ["STARRED"]}})))
    assert "actions" in str(http_error(f.create(userId="me", body={"criteria": {"from": "a"}, "action": {}})))
    assert http_error(f.create(userId="me", body={"criteria": {"from": "a"}, "action": {"addLabelIds": ["Label_nope"]}})).status_code == 400
    err = http_error(f.create(userId="me", body={"criteria": {"from": "a"}, "action": {"forward": "x@outside.example"}}))
    assert err.status_code == 400 and "forwarding address" in str(err)
    assert http_error(f.create(userId="me", body={"criteria": {"query": "(oops"}, "action": {"addLabelIds": ["STARRED"]}})).status_code == 400
    body = {"criteria": {"from": "a"}, "action": {"addLabelIds": ["STARRED"]}}
    f.create(userId="me", body=body).execute()
    assert http_error(f.create(userId="me", body=body)).status_code == 400  # the same filter twice
    assert len(w.store.select("gmail_filters", {"owner": "alice"})) == 1


def test_filters_of_another_mailbox_are_refused(served):
    w = served.start(world(filters=[{"id": "fbob", "owner": "bob", "criteria": {"from": "x"}, "action": {"addLabelIds": ["STARRED"]}}]))
    f = settings(served).filters()
    assert http_error(f.get(userId="me", id="fbob")).status_code == 404
    assert http_error(f.delete(userId="me", id="fbob")).status_code == 404
    assert http_error(f.list(userId="bob@northwind.example")).status_code == 403
    assert [(s, t) for _, s, t in refusals(w)] == [(404, "gmail_settings_filters_get"), (404, "gmail_settings_filters_delete"), (403, "gmail_settings_filters_list")]
    assert w.store.get("gmail_filters", {"id": "fbob"}) is not None


# ---- send-as --------------------------------------------------------------------------------------
ALIAS = {"owner": "alice", "email": "sales@northwind.example", "display_name": "Northwind Sales", "reply_to": "team@northwind.example"}


def test_send_as_list_and_get(served):
    served.start(world(send_as=[ALIAS]))
    s = settings(served).sendAs()
    listed = s.list(userId="me").execute()
    assert_schema("gmail.users.settings.sendAs.list", listed)
    primary, alias = listed["sendAs"]
    assert primary == {"sendAsEmail": "alice@northwind.example", "displayName": "Alice Chen", "replyToAddress": "", "signature": "", "isPrimary": True, "isDefault": True}
    assert alias["verificationStatus"] == "accepted" and alias["isDefault"] is False and alias["treatAsAlias"] is True
    got = s.get(userId="me", sendAsEmail="sales@northwind.example").execute()
    assert_schema("gmail.users.settings.sendAs.get", got)
    assert got == alias
    assert http_error(s.get(userId="me", sendAsEmail="nobody@northwind.example")).status_code == 404


def test_send_as_create_is_pending_until_verified(served):
    w = served.start(world())
    s = settings(served).sendAs()
    made = s.create(userId="me", body={"sendAsEmail": "Alice.Chen@outside.example", "displayName": "Alice (outside)"}).execute()
    assert_schema("gmail.users.settings.sendAs.create", made)
    assert made["verificationStatus"] == "pending" and made["sendAsEmail"] == "alice.chen@outside.example"
    assert s.verify(userId="me", sendAsEmail="alice.chen@outside.example").execute() in ("", None, {})
    assert http_error(s.create(userId="me", body={"sendAsEmail": "alice.chen@outside.example"})).status_code == 409
    assert http_error(s.create(userId="me", body={"sendAsEmail": "not an address"})).status_code == 400
    assert http_error(s.patch(userId="me", sendAsEmail="alice.chen@outside.example", body={"isDefault": True})).status_code == 400
    assert http_error(s.verify(userId="me", sendAsEmail="alice@northwind.example")).status_code == 400
    send(served, sender="alice.chen@outside.example", subject="From the pending alias")
    assert rows(w, owner="bob", subject="From the pending alias")[0]["sender"] == "Alice Chen <alice@northwind.example>"


def test_send_from_an_accepted_alias(served):
    w = served.start(world(send_as=[ALIAS]))
    send(served, sender="sales@northwind.example", subject="Offer")
    (copy,) = rows(w, owner="bob", subject="Offer")
    assert copy["sender"] == "Northwind Sales <sales@northwind.example>"
    assert ["Reply-To", "team@northwind.example"] in copy["headers"]
    assert deliveries(w) == [("sales@northwind.example", "bob@northwind.example", "Offer")]


def test_update_and_patch_send_as(served):
    w = served.start(world(send_as=[ALIAS]))
    s = settings(served).sendAs()
    upd = s.update(userId="me", sendAsEmail="alice@northwind.example", body={"displayName": "A. Chen", "signature": "-- A."}).execute()
    assert_schema("gmail.users.settings.sendAs.update", upd)
    assert upd["displayName"] == "A. Chen" and upd["isPrimary"] and upd["isDefault"]
    send(served, subject="Signed")
    assert rows(w, owner="bob", subject="Signed")[0]["sender"] == "A. Chen <alice@northwind.example>"
    patched = s.patch(userId="me", sendAsEmail="sales@northwind.example", body={"isDefault": True}).execute()
    assert_schema("gmail.users.settings.sendAs.patch", patched)
    assert patched["isDefault"] and patched["displayName"] == "Northwind Sales"
    assert s.get(userId="me", sendAsEmail="alice@northwind.example").execute()["isDefault"] is False
    send(served, subject="By default")
    assert rows(w, owner="bob", subject="By default")[0]["sender"] == "Northwind Sales <sales@northwind.example>"


def test_delete_send_as(served):
    w = served.start(world(send_as=[ALIAS]))
    s = settings(served).sendAs()
    assert http_error(s.delete(userId="me", sendAsEmail="alice@northwind.example")).status_code == 400
    s.delete(userId="me", sendAsEmail="sales@northwind.example").execute()
    assert [x["sendAsEmail"] for x in s.list(userId="me").execute()["sendAs"]] == ["alice@northwind.example"]
    assert w.store.select("gmail_send_as", {"owner": "alice"}) == []


# ---- forwarding and auto-forwarding -----------------------------------------------------------------
def test_forwarding_addresses(served):
    w = served.start(world())
    fa = settings(served).forwardingAddresses()
    internal = fa.create(userId="me", body={"forwardingEmail": "carol@northwind.example"}).execute()
    assert_schema("gmail.users.settings.forwardingAddresses.create", internal)
    assert internal == {"forwardingEmail": "carol@northwind.example", "verificationStatus": "accepted"}
    external = fa.create(userId="me", body={"forwardingEmail": "me@gmail.example"}).execute()
    assert external["verificationStatus"] == "pending"
    listed = fa.list(userId="me").execute()
    assert_schema("gmail.users.settings.forwardingAddresses.list", listed)
    assert [x["forwardingEmail"] for x in listed["forwardingAddresses"]] == ["carol@northwind.example", "me@gmail.example"]
    got = fa.get(userId="me", forwardingEmail="me@gmail.example").execute()
    assert_schema("gmail.users.settings.forwardingAddresses.get", got)
    assert http_error(fa.create(userId="me", body={"forwardingEmail": "carol@northwind.example"})).status_code == 409
    fa.delete(userId="me", forwardingEmail="me@gmail.example").execute()
    assert [r["email"] for r in w.store.select("gmail_forwarding_addresses", {"owner": "alice"})] == ["carol@northwind.example"]
    assert w.ledger.of_kind("delivery") == []


def test_auto_forwarding_forwards_arriving_mail(served):
    w = served.start(world(forwarding_addresses=[{"owner": "bob", "email": "carol@northwind.example"}]))
    s = settings(served, "bob")
    assert s.getAutoForwarding(userId="me").execute() == {"enabled": False}
    got = s.updateAutoForwarding(userId="me", body={"enabled": True, "emailAddress": "carol@northwind.example", "disposition": "archive"}).execute()
    assert_schema("gmail.users.settings.updateAutoForwarding", got)
    assert_schema("gmail.users.settings.getAutoForwarding", s.getAutoForwarding(userId="me").execute())
    send(served, subject="Figures", body="FIGURES-12")
    assert rows(w, owner="bob", subject="Figures")[0]["label_ids"] == ["UNREAD"]  # archived after forwarding
    assert rows(w, owner="carol", subject="Figures")[0]["body"] == "FIGURES-12"
    assert ("bob@northwind.example", "carol@northwind.example", "Figures") in deliveries(w)


def test_auto_forwarding_needs_an_accepted_address(served):
    w = served.start(world(forwarding_addresses=[{"owner": "alice", "email": "x@outside.example", "verification_status": "pending"}]))
    s = settings(served)
    for address in ("x@outside.example", "nobody@outside.example"):
        err = http_error(s.updateAutoForwarding(userId="me", body={"enabled": True, "emailAddress": address}))
        assert err.status_code == 400
    assert w.store.select("gmail_settings", {"owner": "alice"}) == []


def test_deleting_the_forwarding_address_stops_auto_forwarding(served):
    w = served.start(world(forwarding_addresses=[{"owner": "bob", "email": "carol@northwind.example"}],
                           settings=[{"owner": "bob", "auto_forwarding": {"enabled": True, "emailAddress": "carol@northwind.example"}}]))  # fmt: skip
    settings(served, "bob").forwardingAddresses().delete(userId="me", forwardingEmail="carol@northwind.example").execute()
    assert settings(served, "bob").getAutoForwarding(userId="me").execute() == {"enabled": False}
    send(served, subject="After")
    assert rows(w, owner="carol", subject="After") == []


def test_forwarding_loops_stop(served):
    fx = world(forwarding_addresses=[{"owner": "bob", "email": "carol@northwind.example"}, {"owner": "carol", "email": "bob@northwind.example"}],
               settings=[{"owner": "bob", "auto_forwarding": {"enabled": True, "emailAddress": "carol@northwind.example"}},
                         {"owner": "carol", "auto_forwarding": {"enabled": True, "emailAddress": "bob@northwind.example"}}])  # fmt: skip
    w = served.start(fx)
    send(served, subject="Loop")
    assert len(rows(w, owner="bob", subject="Loop")) == 2 and len(rows(w, owner="carol", subject="Loop")) == 1
    assert len(w.ledger.of_kind("delivery")) == 3


# ---- vacation -----------------------------------------------------------------------------------------
def test_vacation_replies_once_per_sender(served):
    w = served.start(world())
    s = settings(served, "bob")
    assert_schema("gmail.users.settings.getVacation", s.getVacation(userId="me").execute())
    got = s.updateVacation(userId="me", body={"enableAutoReply": True, "responseSubject": "Out of office", "responseBodyPlainText": "Back on Monday."}).execute()
    assert_schema("gmail.users.settings.updateVacation", got)
    send(served, subject="Question 1")
    send(served, subject="Question 2")
    (reply,) = rows(w, owner="bob", subject="Out of office")
    assert reply["label_ids"] == ["SENT"] and reply["to_addrs"] == ["alice@northwind.example"] and reply["body"] == "Back on Monday."
    (arrived,) = rows(w, owner="alice", subject="Out of office")
    assert arrived["label_ids"] == ["INBOX", "UNREAD"]
    assert [d for d in deliveries(w) if d[0] == "bob@northwind.example"] == [("bob@northwind.example", "alice@northwind.example", "Out of office")]
    thread = served.google("gmail", "bob").users().threads().get(userId="me", id=reply["thread_id"], format="metadata").execute()
    assert [headers(m)["Subject"] for m in thread["messages"]] == ["Question 1", "Out of office"]


def test_vacation_window_and_no_reply_to_auto_replies(served):
    w = served.start(world(settings=[
        {"owner": "bob", "vacation": {"enableAutoReply": True, "responseBodyPlainText": "Away", "endTime": "1772000000000"}},
        {"owner": "carol", "vacation": {"enableAutoReply": True, "responseBodyPlainText": "Away too"}},
    ]))  # fmt: skip
    send(served, to="bob@northwind.example", subject="Late")  # bob's vacation ended on 2026-02-25
    send(served, to="carol@northwind.example", subject="Hi", headers={"Auto-Submitted": "auto-generated"})
    assert rows(w, owner="bob", label_ids=["SENT"]) == [] and rows(w, owner="carol", label_ids=["SENT"]) == []


def test_vacation_settings_are_validated(served):
    served.start(world())
    s = settings(served)
    assert http_error(s.updateVacation(userId="me", body={"enableAutoReply": True, "startTime": "200", "endTime": "100", "responseSubject": "x"})).status_code == 400
    assert http_error(s.updateVacation(userId="me", body={"enableAutoReply": True})).status_code == 400
    assert http_error(s.updateVacation(userId="me", body={"enableAutoReply": True, "responseSubject": "x", "startTime": "soon"})).status_code == 400


# ---- imap, pop, language -------------------------------------------------------------------------------
def test_imap_settings(served):
    w = served.start(world())
    s = settings(served)
    got = s.getImap(userId="me").execute()
    assert_schema("gmail.users.settings.getImap", got)
    assert got == {"enabled": True, "autoExpunge": True, "expungeBehavior": "archive", "maxFolderSize": 0}
    upd = s.updateImap(userId="me", body={"enabled": False, "expungeBehavior": "trash"}).execute()
    assert_schema("gmail.users.settings.updateImap", upd)
    assert upd["enabled"] is False and upd["expungeBehavior"] == "trash"
    assert w.store.get("gmail_settings", {"owner": "alice", "key": "imap"})["value"]["enabled"] is False
    assert http_error(s.updateImap(userId="me", body={"maxFolderSize": 7})).status_code == 400


def test_pop_settings(served):
    served.start(world())
    s = settings(served)
    assert_schema("gmail.users.settings.getPop", s.getPop(userId="me").execute())
    upd = s.updatePop(userId="me", body={"accessWindow": "allMail", "disposition": "archive"}).execute()
    assert_schema("gmail.users.settings.updatePop", upd)
    assert s.getPop(userId="me").execute() == {"accessWindow": "allMail", "disposition": "archive"}
    assert http_error(s.updatePop(userId="me", body={"accessWindow": "sometimes"})).status_code == 400


def test_language_settings(served):
    served.start(world())
    s = settings(served)
    assert s.getLanguage(userId="me").execute() == {"displayLanguage": "en"}
    upd = s.updateLanguage(userId="me", body={"displayLanguage": "fr-CA"}).execute()
    assert_schema("gmail.users.settings.updateLanguage", upd)
    got = s.getLanguage(userId="me").execute()
    assert_schema("gmail.users.settings.getLanguage", got)
    assert got == {"displayLanguage": "fr-CA"}
    assert http_error(s.updateLanguage(userId="me", body={"displayLanguage": "not a language!"})).status_code == 400


# ---- delegates -----------------------------------------------------------------------------------------
def test_delegates(served):
    w = served.start(world())
    d = settings(served).delegates()
    made = d.create(userId="me", body={"delegateEmail": "bob@northwind.example"}).execute()
    assert_schema("gmail.users.settings.delegates.create", made)
    assert made == {"delegateEmail": "bob@northwind.example", "verificationStatus": "accepted"}
    listed = d.list(userId="me").execute()
    assert_schema("gmail.users.settings.delegates.list", listed)
    assert listed["delegates"] == [made]
    got = d.get(userId="me", delegateEmail="bob@northwind.example").execute()
    assert_schema("gmail.users.settings.delegates.get", got)
    d.delete(userId="me", delegateEmail="bob@northwind.example").execute()
    assert w.store.select("gmail_delegates", {"owner": "alice"}) == [] and d.list(userId="me").execute() == {}


def test_delegates_must_be_colleagues(served):
    served.start(world(delegates=[{"owner": "alice", "email": "carol@northwind.example"}]))
    d = settings(served).delegates()
    assert http_error(d.create(userId="me", body={"delegateEmail": "x@outside.example"})).status_code == 400
    assert http_error(d.create(userId="me", body={"delegateEmail": "alice@northwind.example"})).status_code == 400
    assert http_error(d.create(userId="me", body={"delegateEmail": "carol@northwind.example"})).status_code == 409
    assert http_error(d.get(userId="me", delegateEmail="bob@northwind.example")).status_code == 404


@pytest.mark.parametrize("call", ["getVacation", "getImap", "getPop", "getLanguage", "getAutoForwarding"])
def test_settings_of_another_mailbox_are_denied(served, call):
    w = served.start(world())
    err = http_error(getattr(settings(served), call)(userId="bob@northwind.example"))
    assert err.status_code == 403 and "Delegation denied" in str(err)
    assert len(refusals(w)) == 1


def test_verify_needs_a_pending_alias(served):
    w = served.start(world(send_as=[ALIAS]))  # an accepted alias
    err = http_error(settings(served).sendAs().verify(userId="me", sendAsEmail="sales@northwind.example"))
    assert err.status_code == 400 and err.error_details[0]["reason"] == "failedPrecondition"
    assert w.store.get("gmail_send_as", {"owner": "alice", "email": "sales@northwind.example"})["verification_status"] == "accepted"


def test_a_delegate_still_cannot_use_the_api_on_the_delegators_mailbox(served):
    # Gmail's API does not honour mail delegation: the delegate's own credentials reach only their own mailbox.
    w = served.start(world(delegates=[{"owner": "alice", "email": "bob@northwind.example"}]))
    bob = served.google("gmail", "bob").users()
    for request in (bob.messages().list(userId="alice@northwind.example"),
                    bob.settings().delegates().list(userId="alice@northwind.example"),
                    bob.messages().send(userId="alice@northwind.example", body={"raw": raw(to="carol@northwind.example")})):
        err = http_error(request)
        assert err.status_code == 403 and "Delegation denied for bob@northwind.example" in str(err)
    assert len(refusals(w)) == 3 and deliveries(w) == []
