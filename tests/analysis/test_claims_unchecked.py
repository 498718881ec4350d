"""Precision first: a claim about an item or date the checker did not resolve is "could not check", never a finding."""

from __future__ import annotations

import copy
import json
from typing import Any

from analysis.claims import ClaimCheck, check_claims, unchecked_to_json
from analysis.claims.names import item_mentions
from analysis.claims.run import check_run
from core.domain.evidence import Evidence
from tests.analysis.claims_scoring import check, focused_evidence, kinds, third_records

HUB_ORDER = "ORD-77105"  # HUB-7PORT beside "Delayed at regional hub"; KEYBOARD-TKL beside KEYBOARD-TKL-BLK


ABSENCES = ("unmentioned_sku", "unacknowledged_missing_evidence")  # what a one-line test summary leaves out


def _check(summary: str, records: dict[str, Any] | None = None, order_id: str = HUB_ORDER) -> ClaimCheck:
    """The check of a summary, without the findings for what a short test summary does not mention."""
    result = check_claims(summary, focused_evidence(order_id, records or third_records()), order_id)
    return ClaimCheck([f for f in result.findings if f.kind not in ABSENCES], result.unchecked)


def _shared_name_records() -> dict[str, Any]:
    """The hub order with both keyboards called the same, so nothing in a name tells them apart."""
    records = copy.deepcopy(third_records())
    order = next(o for o in records["orders"] if o["orderId"] == HUB_ORDER)
    for item in order["items"]:
        if item["sku"].startswith("KEYBOARD"):
            item["name"] = "Tenkeyless keyboard"
    return records


def test_a_name_two_items_share_is_could_not_check_not_a_finding():
    records = _shared_name_records()
    result = _check("The tenkeyless keyboard has been delivered.", records)
    assert result.findings == []
    [unchecked] = result.unchecked
    assert unchecked.kind == "unsupported_delivery"  # the black one is only out for delivery
    assert "KEYBOARD-TKL or KEYBOARD-TKL-BLK" in unchecked.reason
    assert unchecked.claim in unchecked.sentence
    # The same sentence with the SKU in brackets is resolved, and then it is a finding.
    found = _check("The tenkeyless keyboard (KEYBOARD-TKL-BLK) has been delivered.", records)
    assert kinds(found.findings) == {("unsupported_delivery", "KEYBOARD-TKL-BLK")} and found.unchecked == []
    # "both keyboards" means both: checked, and wrong for the black one.
    both = _check("Both keyboards have been delivered.", records)
    assert kinds(both.findings) == {("unsupported_delivery", "KEYBOARD-TKL-BLK")}


def test_a_pronoun_inherits_the_doubt_of_what_it_stands_for():
    result = _check("The tenkeyless keyboard is lovely. It has been delivered.", _shared_name_records())
    assert result.findings == [] and [u.kind for u in result.unchecked] == ["unsupported_delivery"]


def test_the_exact_name_and_a_qualifier_word_resolve_a_shared_head():
    names = [("KEYBOARD-TKL", "Tenkeyless keyboard"), ("KEYBOARD-TKL-BLK", "Tenkeyless keyboard, black")]
    text = "The tenkeyless keyboard came; the black keyboard did not; a keyboard is late."
    got = [(text[m.start:m.end], m.skus, m.ambiguous) for m in item_mentions(text, names)]
    assert got == [("tenkeyless keyboard", ("KEYBOARD-TKL",), False),
                   ("black keyboard", ("KEYBOARD-TKL-BLK",), False),
                   ("keyboard", ("KEYBOARD-TKL", "KEYBOARD-TKL-BLK"), True)]


def test_a_word_of_a_carrier_event_used_as_a_place_names_no_item():
    items = [("HUB-7PORT", "7-port USB hub")]
    events = ("Delayed at regional hub", "Albury NSW")
    text = "The hub was delayed at StarTrack's regional hub in Albury, and at the hub again."
    spans = [text[m.start:m.end] for m in item_mentions(text, items, events)]
    assert spans == ["hub"] and text.index("hub") == item_mentions(text, items, events)[0].start
    # Without the carrier's words, every "hub" is the item: the rule is about the event, not the word.
    assert len(item_mentions(text, items)) == 3
    assert _check("Your 7-port USB hub was delayed at the regional hub and is expected on 12 June.").findings == []


def test_a_claim_before_any_item_is_named_is_could_not_check():
    result = _check("Delivered yesterday, as the carrier says.")
    assert result.findings == [] and {u.kind for u in result.unchecked} == {"unsupported_delivery"}
    assert {u.reason for u in result.unchecked} == {"no item named before this claim"}
    assert unchecked_to_json(result.unchecked[0])["reason"] == "no item named before this claim"


def test_payment_claims_are_the_orders_and_still_checked_without_an_item():
    result = _check("Sorry for the wait! Your payment was declined.")
    assert kinds(result.findings) == {("unsupported_payment", None)}


def test_a_refund_that_went_through_is_a_refund():
    order = "ORD-77104"
    assert check(order, "The refund has gone through for the pan, knife, board and aprons.", third_records()) == []
    assert kinds(_check("Your payment has been refunded.", order_id="ORD-77103").findings) == {
        ("unsupported_payment", None)}  # captured, not refunded


def test_nothing_gathered_still_reports_every_claim():
    result = check_claims("Delivered yesterday.", Evidence(), "ORD-77105")
    assert {f.kind for f in result.findings} == {"unsupported_delivery"} and result.unchecked == []


def test_claims_jsonl_lists_unchecked_claims_apart_and_sql_counts_them(tmp_path):
    import shutil

    from analysis.db import RunDatabase
    from analysis.metrics import claim_counts
    from tests.helpers import ROOT
    run = tmp_path / "run"
    shutil.copytree(ROOT / "runs" / "sample-offline", run)
    lines = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    target = next(e for e in lines if e["type"] == "conversation_finished" and e.get("assessment")
                  and e["conversationId"].startswith("partial-delivery."))  # an order of several items
    target["assessment"]["customerSummary"] = "Delivered yesterday, as the carrier says."
    (run / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in lines))
    result = check_run(run)
    assert result.unchecked >= 1
    written = [json.loads(line) for line in (run / "claims.jsonl").read_text().splitlines()]
    unchecked = [w for w in written if w["type"] == "claim_unchecked"]
    assert unchecked and all(u["conversationId"] == target["conversationId"] for u in unchecked)
    findings = [w for w in written if w["type"] == "claim_finding" and w["conversationId"] == target["conversationId"]]
    assert {f["kind"] for f in findings} <= set(ABSENCES)  # the delivery claim itself is no finding
    checked = next(w for w in written if w["type"] == "summary_checked"
                   and w["conversationId"] == target["conversationId"])
    assert (checked["findings"], checked["unchecked"]) == (len(findings), len(unchecked))
    with RunDatabase(run) as db:
        counts = claim_counts(db)
        design = next(d for d, c in counts.items() if c.get("unchecked"))
        assert counts[design]["unchecked"] == 1
        assert db.query_dicts("check_claim_lines.sql") == []  # the new line type is a known one


def test_claim_unchecked_sql_lists_each_conversations_unchecked_claims_for_the_site(tmp_path):
    import shutil

    from analysis import analyze_runs
    from analysis.db import RunDatabase
    from analysis.details import findings, unchecked
    from tests.helpers import ROOT
    run = tmp_path / "run"
    shutil.copytree(ROOT / "runs" / "sample-offline", run)
    lines = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    target = next(e for e in lines if e["type"] == "conversation_finished" and e.get("assessment")
                  and e["conversationId"].startswith("partial-delivery."))
    target["assessment"]["customerSummary"] = "Delivered yesterday, as the carrier says."
    (run / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in lines))
    with RunDatabase(run) as db:
        assert unchecked(db) == {}  # no claims.jsonl yet: nothing listed
    check_run(run)
    written = [json.loads(line) for line in (run / "claims.jsonl").read_text().splitlines()]
    expected = [(w["kind"], w["claim"], w["reason"]) for w in written if w["type"] == "claim_unchecked"]
    with RunDatabase(run) as db:
        listed = unchecked(db)
        found = findings(db)
    assert list(listed) == [target["conversationId"]]
    rows = listed[target["conversationId"]]
    assert sorted((u["kind"], u["claim"], u["reason"]) for u in rows) == sorted(expected) and len(expected) >= 2
    assert [(u["start"], u["end"]) for u in rows] == sorted((u["start"], u["end"]) for u in rows)  # summary order
    assert all(f["kind"] != "unsupported_delivery" for rows in found.values() for f in rows)  # apart, not found
    # A run that passes validation carries them on its RunAnalysis for the site (the sample run, checked: none).
    [analysis] = analyze_runs([ROOT / "runs" / "sample-offline"], details=True)
    assert analysis.validation.passed and analysis.unchecked == {} and analysis.findings is not None
    [without] = analyze_runs([ROOT / "runs" / "sample-offline"])
    assert without.unchecked is None  # only asked with the details
