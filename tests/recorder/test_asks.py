"""A case asks for part of the answer: its schema, instructions, parser and score hold only the asked fields."""

from __future__ import annotations

import json

import pytest

from core.domain.answer import answer_schema, asks_from_schema, parse_answer
from core.domain.dataset import Records, load_dataset
from core.domain.evidence import FIELD_NEEDS, Evidence, derive, kinds_needed
from core.domain.fields import ASSESSMENT_FIELDS, DEFAULT_ASKS
from core.domain.scorer import score, score_field
from core.runformat import events
from recorder.agent.instructions import build_instructions
from recorder.generate import generate
from recorder.servers.lookups import Lookups, to_json_text

CLOCK = "2026-10-08T12:00:00+00:00"


def test_a_field_not_asked_is_not_scored_even_when_the_answer_gets_it_wrong():
    expected = {"outstandingSkus": ["MONITOR-27"], "deliveryEstimate": None}
    answer = {"outstandingSkus": ["MONITOR-27"], "deliveryEstimate": None, "deliveredSkus": ["WRONG"],
              "paymentStatus": "refunded"}
    assert score(answer, expected, ("outstandingSkus", "deliveryEstimate")) == {
        "fields": {"outstandingSkus": True, "deliveryEstimate": True}, "passed": True}


def test_the_asked_fields_default_to_those_the_expectation_holds():
    assert score(None, {"paymentStatus": "captured"}) == {"fields": {"paymentStatus": False}, "passed": False}


@pytest.mark.parametrize(("given", "ok"), [("captured", True), ("Captured", False), ("authorized", False),
                                           (None, False), (["captured"], False)])
def test_the_payment_status_compares_as_the_exact_string(given, ok):
    assert score_field("paymentStatus", given, "captured") is ok


def test_the_schema_holds_the_asked_fields_and_the_summary_and_stays_strict():
    schema = answer_schema(("paymentStatus",))
    assert schema["required"] == ["paymentStatus", "customerSummary"]
    assert set(schema["properties"]) == set(schema["required"]) and schema["additionalProperties"] is False
    assert "missing" in schema["properties"]["paymentStatus"]["enum"]
    assert asks_from_schema(schema) == ("paymentStatus",)
    assert asks_from_schema(answer_schema()) == DEFAULT_ASKS


def test_narrow_instructions_name_only_the_asked_fields_and_the_evidence_they_need():
    text = build_instructions(CLOCK, ("paymentStatus",))
    assert "Gather the evidence first: the order and its payment." in text
    assert '{"paymentStatus": "<status>", "customerSummary": "..."}' in text
    for other in ("deliveredSkus", "delayReasons", "deliveryEstimate", "missingEvidence", "warehouse reservation"):
        assert other not in text
    arrival = build_instructions(CLOCK, ("outstandingSkus", "deliveryEstimate"))
    assert "the order and every carrier shipment it links to" in arrival
    assert "Every other ordered SKU is outstanding" in arrival and "paymentStatus" not in arrival


def test_the_default_question_s_instructions_are_unchanged_by_asks():
    text = build_instructions(CLOCK)
    assert text == build_instructions(CLOCK, list(reversed(DEFAULT_ASKS)))
    assert "paymentStatus" not in text
    assert "what has arrived, what has not and\nwhy, and when the rest will arrive" in text


def test_the_parser_requires_only_the_asked_fields_and_drops_the_rest():
    text = json.dumps({"paymentStatus": "pending", "deliveredSkus": ["X"], "customerSummary": "Pending."})
    assert parse_answer(text, ("paymentStatus",)) == ({"paymentStatus": "pending", "customerSummary": "Pending."},
                                                      None)
    assert parse_answer(text) == (None, "missing field(s): outstandingSkus, delayReasons, deliveryEstimate, "
                                        "missingEvidence")
    assert parse_answer(json.dumps({"paymentStatus": 1, "customerSummary": ""}), ("paymentStatus",)) == (
        None, "paymentStatus must be a string")


def _evidence(lookups: Lookups, order_id: str, kinds: tuple[str, ...]) -> Evidence:
    """The evidence a policy following only links of these kinds would have."""
    evidence = Evidence()
    context = lookups.support_context(order_id)
    evidence.add_result("orderId", order_id, to_json_text(context["order"]), False)
    linked = [("payment", "paymentId", [context["payment"]]), ("reservation", "reservationId", context["reservations"]),
              ("tracking", "trackingId", context["tracking"])]
    for kind, parameter, records in linked:
        if kind in kinds:
            for record in records:
                if record.get("availability") == "not_found":
                    evidence.add_result(parameter, record[parameter], f"{kind} {record[parameter]} not found", True)
                else:
                    evidence.add_result(parameter, record[parameter], to_json_text(record), False)
    return evidence


def _records(which: str) -> Records:
    if which == "default":
        return load_dataset().records
    raw, _ = generate(seed=5, sizes=(1, 3, 15), orders_per_size=7)  # every payment kind, every line situation
    return Records.model_validate(raw)


@pytest.mark.parametrize("which", ["default", "generated"])
@pytest.mark.parametrize("field", ASSESSMENT_FIELDS)
def test_each_field_derives_the_same_from_the_records_it_needs_as_from_all(field, which):
    records = _records(which)
    lookups = Lookups(records)
    for order in records.orders:
        everything = derive(_evidence(lookups, order.orderId, ("payment", "reservation", "tracking")), order.orderId)
        needed = derive(_evidence(lookups, order.orderId, kinds_needed((field,))), order.orderId)
        assert getattr(needed, field) == getattr(everything, field), (order.orderId, field)


def test_a_payment_question_needs_the_order_and_the_payment_only():
    assert kinds_needed(("paymentStatus",)) == ("order", "payment")
    assert kinds_needed(DEFAULT_ASKS) == ("order", "payment", "reservation", "tracking")
    assert set(FIELD_NEEDS) == set(ASSESSMENT_FIELDS)


def test_the_run_format_s_default_asks_are_the_recorder_s():
    assert tuple(events.DEFAULT_ASKS) == DEFAULT_ASKS
    assert events.ConversationStarted(caseId="c", orderId="ORD-1", design="focused", repetition=1, pairIndex=0,
                                      pairPosition=1).asks == list(DEFAULT_ASKS)
