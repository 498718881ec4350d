"""The evidence told without its tools: the real servers' results give one layout whichever design gathered them."""

from __future__ import annotations

from dataclasses import replace

from analysis import conversation_details
from analysis.evidence import gathered_evidence
from core.domain.evidence import Evidence
from tests.analysis.conftest import SAMPLE_PAIRS, SAMPLE_RUN
from tests.helpers import default_cases


def by_conversation():
    return {d.conversation_id: d for d in conversation_details(SAMPLE_RUN)}


def test_both_designs_gather_the_same_records_in_the_same_layout():
    details = by_conversation()
    pairs = {(d.case_id, d.repetition) for d in details.values()}
    assert len(pairs) == SAMPLE_PAIRS
    # For a full question both designs read every record; for a narrow one granular reads only what it needs.
    full = {case["caseId"] for case in default_cases() if not case.get("asks")}
    for case_id, repetition in pairs:
        if case_id not in full:
            granular = gathered_evidence(details[f"{case_id}.granular.r{repetition}"].turn_details)
            focused = gathered_evidence(details[f"{case_id}.focused.r{repetition}"].turn_details)
            def ids(evidence):
                return {(r.kind, r.record_id) for r in evidence.records}
            assert ids(granular) < ids(focused), case_id
            continue
        granular = gathered_evidence(details[f"{case_id}.granular.r{repetition}"].turn_details)
        focused = gathered_evidence(details[f"{case_id}.focused.r{repetition}"].turn_details)
        assert granular == focused, case_id
        assert granular.identity == focused.identity


def test_records_by_kind_with_the_missing_ones_named():
    evidence = gathered_evidence(by_conversation()["missing-warehouse-record.granular.r1"].turn_details)
    assert [(r.kind, r.record_id) for r in evidence.records][:2] == [("order", "ORD-1007"), ("payment", "PAY-1007")]
    assert [r.kind for r in evidence.records] == sorted((r.kind for r in evidence.records),
                                                        key=["order", "payment", "reservation", "tracking"].index)
    [gap] = evidence.missing
    assert (gap.kind, gap.why) == ("reservation", "not found")
    order = evidence.of_kind("order")[0]
    assert order.fields[0] == ("orderId", "ORD-1007")  # the ID first, then the fields by name
    assert [name for name, _ in order.fields[1:]] == sorted(name for name, _ in order.fields[1:])
    assert not evidence.unread
    tracking = gathered_evidence(by_conversation()["tracking-unavailable.focused.r1"].turn_details)
    assert [(m.kind, m.why) for m in tracking.missing] == [("tracking", "could not be looked up")]


def test_results_that_hold_no_record_are_kept_as_unread():
    detail = by_conversation()["delivered-on-time.granular.r1"]
    turn = detail.turn_details[1]
    calls = [replace(turn.tool_calls[0], result_text="upstream error: try again", is_error=True),
             replace(turn.tool_calls[1], arguments='{"trackingId": "TRK-1001-A", "verbose": true}'),
             *turn.tool_calls[2:]]
    evidence = gathered_evidence([detail.turn_details[0], replace(turn, tool_calls=calls)])
    assert evidence.unread == tuple(sorted(["upstream error: try again", turn.tool_calls[1].result_text]))
    assert evidence.identity != gathered_evidence(detail.turn_details).identity


def test_add_call_reads_one_string_argument_by_its_name():
    evidence = Evidence()
    assert evidence.add_call('{"paymentId": "PAY-1"}', '{"paymentId": "PAY-1", "status": "captured"}', False)
    assert evidence.add_call('{"reservationId": "RSV-9"}', "reservation RSV-9 not found", True)
    assert not evidence.add_call('{"orderId": "ORD-1"}', "timeout talking to the warehouse", True)
    assert not evidence.add_call('{"orderId": 7}', "{}", False)
    assert not evidence.add_call("not json", "{}", False)
    assert not evidence.add_call('{"customerId": "C-1"}', '{"customerId": "C-1"}', False)  # no known kind
    assert list(evidence.records["payment"]) == ["PAY-1"] and evidence.missing == {"reservation:RSV-9": "not_found"}
