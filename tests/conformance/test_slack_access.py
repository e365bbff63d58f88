"""Slack conformance: what the caller may not see answers exactly like what does not exist.

alice is not in #finance (private), nor in the bob-carol DM, and cannot see carol's payroll.csv
nor bob's reminder; a guest sees no channel they are not in, public or not. For each family the
refusal and the unknown id give byte-identical bodies, and only the ledger tells them apart
(the refusal is recorded as `refused`).
"""

import httpx
import pytest

from tests.conformance.slack_world import DM_BC, WORKSPACE, cid, refused, ts_of, with_roles


def body(served, principal: str, method: str, **args) -> bytes:
    resp = httpx.post(f"{served.server.url}/api/{method}", data={"token": served.token(principal), **args})
    assert resp.status_code == 200
    return resp.content


CASES = [  # (method, args naming a hidden resource, the same args naming nothing, the error)
    ("conversations.info", {"channel": cid("finance")}, {"channel": "CNOSUCH0000"}, "channel_not_found"),
    ("conversations.history", {"channel": DM_BC}, {"channel": "DNOSUCH0000"}, "channel_not_found"),
    ("conversations.members", {"channel": cid("finance")}, {"channel": "CNOSUCH0000"}, "channel_not_found"),
    ("conversations.join", {"channel": cid("finance")}, {"channel": "CNOSUCH0000"}, "channel_not_found"),
    ("conversations.kick", {"channel": cid("finance"), "user": "bob"}, {"channel": "CNOSUCH0000", "user": "bob"}, "channel_not_found"),
    ("chat.postMessage", {"channel": "#finance", "text": "hi"}, {"channel": "#no-such-room", "text": "hi"}, "channel_not_found"),
    ("chat.delete", {"channel": DM_BC, "ts": "x1"}, {"channel": "DNOSUCH0000", "ts": "x1"}, "channel_not_found"),
    ("pins.list", {"channel": cid("finance")}, {"channel": "CNOSUCH0000"}, "channel_not_found"),
    ("bookmarks.list", {"channel_id": cid("finance")}, {"channel_id": "CNOSUCH0000"}, "channel_not_found"),
    ("files.info", {"file": "payroll"}, {"file": "FNOSUCHFILE"}, "file_not_found"),
    ("files.delete", {"file": "payroll"}, {"file": "FNOSUCHFILE"}, "file_not_found"),
    ("reminders.info", {"reminder": "RmBOB1"}, {"reminder": "RmNOSUCH"}, "not_found"),
    ("reminders.complete", {"reminder": "RmBOB1"}, {"reminder": "RmNOSUCH"}, "not_found"),
]


@pytest.mark.parametrize("method, hidden, unknown, code", CASES, ids=[c[0] + "-" + next(iter(c[1])) for c in CASES])
def test_a_hidden_resource_answers_like_an_unknown_one(served, method, hidden, unknown, code):
    world = served.start(WORKSPACE)
    ids = {"payroll": world.store.select("slack_files", {"name": "payroll.csv"})[0]["id"], "x1": ts_of(world, "x1"), "bob": "bob"}
    hidden = {k: ids.get(v, v) for k, v in hidden.items()}
    unknown = {k: ids.get(v, v) for k, v in unknown.items()}
    before = world.state_hash()
    seen = body(served, "alice", method, **hidden)
    assert seen == body(served, "alice", method, **unknown) == b'{"ok":false,"error":"%s"}' % code.encode()
    assert refused(world)[-1].payload["reason"] == code  # the ledger still knows it was a refusal
    assert world.state_hash() == before


def test_a_guest_does_not_see_public_channels_they_are_not_in(served):
    world = served.start(with_roles(guests=("carol",)))
    random = body(served, "carol", "conversations.history", channel=cid("random"))
    assert random == body(served, "carol", "conversations.history", channel="CNOSUCH0000")
    assert refused(world)[-1].payload["tool"] == "slack_conversations_history"
    listed = httpx.post(f"{served.server.url}/api/conversations.list",
                        data={"token": served.token("carol"), "types": "public_channel,private_channel"}).json()  # fmt: skip
    assert {c["name"] for c in listed["channels"]} == {"finance", "leads"}
    found = httpx.post(f"{served.server.url}/api/search.messages", data={"token": served.token("carol"), "query": "deploy"}).json()
    assert found["messages"]["total"] == 0  # #eng's messages are in a channel carol is not in
