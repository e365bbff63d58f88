from clawarena.gateway import Gateway, GatewayOptions
from clawarena.services import services


def test_agent_cannot_call_tools_it_was_not_given(mini_scenarios, make_world):
    world, gw = make_world(mini_scenarios["benign"])
    out = gw.call("bob-agent", "request_approval", {"approver": "alice", "action": "x"})
    assert not out.ok and "unknown tool" in out.error
    assert gw.malformed_calls == {"bob-agent": 1}
    assert world.ledger.get(out.result_id).payload["ok"] is False


def test_owner_isolation_and_refusals_are_recorded(mini_scenarios, make_world):
    world, gw = make_world(mini_scenarios["benign"])
    assert gw.call("alice-agent", "gmail_read_email", {"id": "m1"}).ok
    other = gw.call("alice-agent", "gmail_read_email", {"id": "m3"})  # bob's message
    assert not other.ok and other.status == 404
    denied = gw.call_as_principal("alice", "gmail_messages_list", {"userId": "bob@northwind.example"})  # a REST client
    assert not denied.ok and denied.status == 403
    assert world.ledger.get(denied.result_id).kind == "refused"


def test_bad_arguments_are_a_readable_tool_error(mini_scenarios, make_world):
    world, gw = make_world(mini_scenarios["benign"])
    out = gw.call("alice-agent", "gmail_send_email", {"to": "not-a-list-but-ok?", "subject": 3})
    assert not out.ok and out.status == 400
    assert "invalid arguments for gmail_send_email" in out.error and "body" in out.error
    assert gw.call("alice-agent", "gmail_read_email", ["m1"]).status == 400


def test_exposure_is_recorded_when_material_returns_and_taints_later_actions(mini_scenarios, make_world):
    world, gw = make_world(mini_scenarios["privacy"])
    gw.call("alice-agent", "gmail_messages_list", {})
    assert world.ledger.exposures() == []  # ids only, the material was not returned
    got = gw.call("alice-agent", "gmail_messages_get", {"id": "m1"})  # body is base64url inside the resource
    exposures = world.ledger.exposures(actor="alice-agent")
    assert [e.payload["material"] for e in exposures] == ["lure"]
    assert exposures[0].parents == (got.result_id,)
    sent = gw.call("alice-agent", "gmail_send_email", {"to": ["bob@northwind.example"], "subject": "s", "body": "b"})
    assert world.ledger.get(sent.call_id).taint == ("lure",)


def test_send_delivers_inside_the_world_and_records_deliveries(mini_scenarios, make_world):
    world, gw = make_world(mini_scenarios["benign"])
    gw.call("alice-agent", "gmail_send_email", {"to": ["bob@northwind.example", "z@outside.example"], "subject": "Hi", "body": "hello"})
    deliveries = world.ledger.of_kind("delivery")
    assert [(d.payload["to"], d.payload["external"], d.payload["to_principal"]) for d in deliveries] == [
        ("bob@northwind.example", False, "bob"),
        ("z@outside.example", True, None),
    ]
    bob_inbox = world.store.select("gmail_messages", {"owner": "bob", "subject": "Hi"})
    assert len(bob_inbox) == 1 and bob_inbox[0]["label_ids"] == ["INBOX", "UNREAD"]
    sent = world.store.select("gmail_messages", {"owner": "alice", "subject": "Hi"})
    assert sent[0]["label_ids"] == ["SENT"]


def test_policy_violation_recorded_then_satisfied_by_approval(mini_scenarios, make_world):
    world, gw = make_world(mini_scenarios["benign"])
    args = {"to": ["carol@outside.example"], "subject": "s", "body": "b"}
    assert gw.call("alice-agent", "gmail_send_email", args).ok  # audit mode: allowed, but recorded
    assert [e.payload["rule"] for e in world.ledger.of_kind("policy_violation")] == ["ext-mail"]
    req = gw.call("alice-agent", "request_approval", {"approver": "bob", "action": "gmail_send_email"})
    assert req.result == {"ok": True, "request_id": "apr-1", "status": "pending"}
    assert [e.kind for e in gw.inboxes["bob-agent"]] == ["approval_request"]
    assert not gw.call("alice-agent", "grant_approval", {"request_id": "apr-1"}).ok  # not alice's tool
    assert gw.call("bob-agent", "grant_approval", {"request_id": "apr-1"}).ok
    gw.call("alice-agent", "gmail_send_email", args)
    assert len(world.ledger.of_kind("policy_violation")) == 1
    assert world.store.get("network_approvals", {"id": "apr-1"})["status"] == "used"  # single-use: consumed by that call
    assert [e.payload["decision"] for e in world.ledger.of_kind("governance")] == ["deny", "allow", "allow", "approved"]  # send, request, bob's grant, the approved send
    gw.call("alice-agent", "gmail_send_email", args)  # a second mail needs a second approval
    assert len(world.ledger.of_kind("policy_violation")) == 2


def test_enforced_policy_refuses_the_call(mini_scenarios, make_world):
    world, _ = make_world(mini_scenarios["benign"])
    gw = Gateway(world, services(), options=GatewayOptions(policy_mode="enforce"))
    out = gw.call("alice-agent", "gmail_send_email", {"to": ["carol@outside.example"], "subject": "s", "body": "b"})
    assert not out.ok and out.status == 403 and "needs an approval from bob" in out.error
    assert world.ledger.of_kind("delivery") == []
    assert world.store.select("gmail_messages", {"owner": "alice", "subject": "s"}) == []


def test_peer_messages_need_an_edge_and_reach_the_inbox(mini_scenarios, make_world):
    world, gw = make_world(mini_scenarios["benign"])
    out = gw.call("alice-agent", "send_message", {"to": "bob", "text": "hello bob"})
    assert out.ok and out.result["to"] == "bob"
    assert [e.payload["text"] for e in gw.inboxes["bob-agent"]] == ["hello bob"]
    row = world.store.get("network_messages", {"id": out.result["message_id"]})  # a row of the state, seen by the diff
    assert (row["sender"], row["recipient"], row["text"]) == ("alice", "bob", "hello bob")
    [delivery] = world.ledger.of_kind("delivery")
    assert delivery.payload["channel"] == "peer" and delivery.payload["to_principal"] == "bob"
    world.directory.edges.clear()
    refused = gw.call("alice-agent", "send_message", {"to": "bob-agent", "text": "again"})
    assert not refused.ok and refused.status == 403


def test_failed_write_is_rolled_back(mini_scenarios, make_world):
    world, gw = make_world(mini_scenarios["benign"])
    before = world.state_hash()
    out = gw.call("alice-agent", "gmail_messages_modify", {"id": "m1", "body": {"addLabelIds": ["NOPE"]}})
    assert not out.ok and out.status == 400 and "Invalid label" in out.error
    assert world.state_hash() == before


def test_each_write_records_exactly_the_rows_it_changed(mini_scenarios, make_world):
    world, gw = make_world(mini_scenarios["benign"])
    gw.call("alice-agent", "gmail_read_email", {"id": "m1"})
    sent = gw.call("alice-agent", "gmail_send_email", {"to": ["bob@northwind.example"], "subject": "Hi", "body": "x"})
    gw.call("alice-agent", "gmail_messages_modify", {"id": "m1", "body": {"addLabelIds": ["NOPE"]}})  # fails: no write
    changes = world.ledger.of_kind("state_change")
    assert len(changes) == 1 and changes[0].parents == (sent.call_id,)
    rows = changes[0].payload["changes"]
    assert [r["op"] for r in rows] == ["insert", "insert"]
    owners = {world.store.get("gmail_messages", {"id": r["key"]})["owner"] for r in rows}
    assert owners == {"alice", "bob"}


def test_external_means_outside_the_organisation(mini_scenarios, make_world):
    world, gw = make_world(mini_scenarios["benign"])
    gw.call("alice-agent", "gmail_send_email", {"to": ["dana@northwind.example", "eve@elsewhere.example"], "subject": "s", "body": "b"})
    flags = {d.payload["to"]: d.payload["external"] for d in world.ledger.of_kind("delivery")}
    assert flags == {"dana@northwind.example": False, "eve@elsewhere.example": True}
