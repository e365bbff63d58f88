from clawarena.world.ledger import Ledger


def test_taint_flows_through_parents_and_chain_is_the_ancestry():
    ledger = Ledger()
    instr = ledger.record(time="t", actor="alice", kind="instruction", payload={"text": "go"})
    call = ledger.record(time="t", actor="a1", kind="tool_call", payload={"tool": "read"}, parents=[instr.id])
    result = ledger.record(time="t", actor="a1", kind="tool_result", payload={}, parents=[call.id])
    exposure = ledger.record(time="t", actor="a1", kind="exposure", payload={"material": "m1"}, parents=[result.id], taint=["m1"])
    harmful = ledger.record(time="t", actor="a1", kind="tool_call", payload={"tool": "send"}, parents=[result.id, exposure.id])
    unrelated = ledger.record(time="t", actor="a2", kind="tool_call", payload={"tool": "send"}, parents=[instr.id])

    assert call.taint == () and result.taint == ()
    assert exposure.taint == ("m1",)
    assert harmful.taint == ("m1",)
    assert unrelated.taint == ()
    assert ledger.ancestors(harmful.id) == {instr.id, call.id, result.id, exposure.id}
    assert [e.id for e in ledger.chain(harmful.id)] == [instr.id, call.id, result.id, exposure.id, harmful.id]
    assert [e.id for e in ledger.exposures(actor="a1")] == [exposure.id]
    assert ledger.exposures(actor="a2") == []


def test_ids_are_sequential_and_dump_load_round_trips():
    ledger = Ledger()
    a = ledger.record(time="t0", actor="x", kind="instruction")
    b = ledger.record(time="t1", actor="x", kind="message", parents=[a.id, a.id, ""], taint=["z", "a"])
    assert (a.id, b.id) == ("ev-000001", "ev-000002")
    assert b.parents == (a.id,)  # deduplicated, empty ids dropped
    assert b.taint == ("a", "z")
    again = Ledger.load(ledger.dump())
    assert again.dump() == ledger.dump()
    assert again.get(b.id).taint == ("a", "z")
