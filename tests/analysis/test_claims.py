"""Claim checks measured on every labelled corpus, silent on the scripted model, independent of the dataset."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest

from analysis.claims import KINDS, check_claims, check_summary, findings_to_json
from core.domain.dataset import load_dataset
from core.domain.evidence import Evidence, derive
from recorder.providers.summaries import compose_summary
from tests.analysis.claims_scoring import (
    SECOND_DATASET,
    check,
    corpora,
    documented_rows,
    entry_findings,
    fifth_records,
    focused_evidence,
    fourth_records,
    granular_evidence,
    report,
    score,
    second_records,
    third_records,
)
from tests.helpers import default_records, renamed_dataset

CORPORA = {c.file: c for c in corpora()}

# Renamed items get other product names too, so no name of the default dataset can be relied on.
RENAMED_NAMES = {"HUB-8PORT": "8-port hub", "KEYPAD-NUM": "numeric keypad", "MIC-STUDIO": "studio microphone",
                 "DESK-STAND": "standing desk", "PHONE-X2": "6-inch phone", "PRINTER-A4": "A4 printer",
                 "SPEAKER-BT": "Bluetooth speaker", "EREADER-7": "7-inch e-reader", "PEN-STYLUS": "stylus pen",
                 "CASE-HARD": "13-inch phone sleeve"}
# How the corpus's wording reads on the renamed dataset: full names first, then the words people shorten them to.
RENAMED_WORDS = [("15-inch laptop bag", "13-inch phone sleeve"), ("laptop bag", "phone sleeve"),
                 ("USB-C dock", "8-port hub"), ("tenkeyless keyboard", "numeric keypad"),
                 ("4K webcam", "studio microphone"), ("ergonomic chair", "standing desk"),
                 ("14-inch laptop", "6-inch phone"), ("27-inch monitor", "A4 printer"),
                 ("USB headset", "Bluetooth speaker"), ("11-inch tablet", "7-inch e-reader"),
                 ("wireless mouse", "stylus pen"), ("dock", "hub"), ("keyboard", "keypad"), ("webcam", "microphone"),
                 ("chair", "desk"), ("laptop", "phone"), ("monitor", "printer"), ("headset", "speaker"),
                 ("tablet", "e-reader"), ("mouse", "pen"), ("bag", "sleeve")]


def renamed_records() -> dict[str, Any]:
    """The renamed dataset's records, with new product names as well as new IDs and SKUs."""
    records, _ = renamed_dataset()
    for order in records["orders"]:
        for item in order["items"]:
            item["name"] = RENAMED_NAMES[item["sku"]]
    return records


# --- the corpora -----------------------------------------------------------------------------------


def test_the_corpora_cover_every_kind_with_good_and_bad_summaries():
    entries = [e for c in CORPORA.values() for e in c.entries()]
    assert len({e["id"] for e in entries}) == len(entries)
    per_kind = Counter(x["kind"] for e in entries for x in e["expected"])
    assert set(per_kind) == set(KINDS) and min(per_kind.values()) >= 5, per_kind
    for corpus in CORPORA.values():
        assert {e["caseId"] for e in corpus.entries()} <= set(corpus.order_of_case), corpus.file
        assert sum(1 for e in corpus.entries() if not e["expected"]) >= 10, corpus.file
    second = CORPORA["claims_second.json"].entries()
    assert len(second) >= 80 and sum(1 for e in second if e.get("evidence") == "none") >= 8


def test_the_second_dataset_is_valid_and_unlike_the_default():
    dataset = load_dataset(SECOND_DATASET)
    lines = [len(o.items) for o in dataset.records.orders]
    assert min(lines) >= 3 and max(lines) >= 6
    assert sum(1 for o in dataset.records.orders for i in o.items if i.quantity > 1) >= 10
    split = Counter((t.orderId, t.sku) for t in dataset.records.tracking)
    assert any(n > 1 for n in split.values())  # one SKU shipped in several parcels
    default_skus = {i["sku"] for o in default_records()["orders"] for i in o["items"]}
    assert not default_skus & {i.sku for o in dataset.records.orders for i in o.items}


@pytest.mark.parametrize("file", sorted(CORPORA))
def test_the_figures_docs_claims_md_states_are_the_checkers(file):
    """The Measured table's "now" rows are exactly what the checker does: a change to one changes the other."""
    result = score(CORPORA[file])
    report(file, result)
    assert documented_rows()[file] == result.row()


# The corpora that do not hold the bar yet: strict, so the mark must go once one does. The third and fourth held-out
# halves hold it since checker v6 (they are dev data since v5 measured them; docs/claims.md).
# The agent-voice and LLM-style corpora came as checker v10 was written: these five do not hold the bar yet (summary
# recall under 0.90; the LLM third file also flags 2 of 30 correct summaries).
NOT_YET_AT_THE_BAR: set[str] = {"claims_agent_fifth.json", "claims_agent_sixth.json", "claims_llm_third.json",
                                "claims_llm_sixth.json", "claims_llm_seventh.json"}


@pytest.mark.parametrize("file", [pytest.param(f, marks=pytest.mark.xfail(strict=True, reason="not yet at the bar"))
                                  if f in NOT_YET_AT_THE_BAR else f for f in sorted(CORPORA)])
def test_every_corpus_holds_the_bar_false_alarms_at_most_5_percent_recall_at_least_90(file):
    result = score(CORPORA[file])
    assert result.false_alarms <= 0.05 * result.correct and result.caught >= 0.9 * result.wrong, result.misses


def test_the_figure_check_fails_when_the_docs_disagree(monkeypatch, tmp_path):
    from tests.analysis import claims_scoring
    doc = tmp_path / "claims.md"
    doc.write_text(claims_scoring.CLAIMS_DOC.read_text().replace("(55/55)", "(54/55)", 1))  # the corpus now row
    monkeypatch.setattr(claims_scoring, "CLAIMS_DOC", doc)
    assert documented_rows()["claims_corpus.json"] != score(CORPORA["claims_corpus.json"]).row()


def test_every_finding_of_every_corpus_points_at_its_claim():
    total = sum(len(entry_findings(e, c)) for c in CORPORA.values() for e in c.entries())  # well_formed asserts
    assert total > 200


# --- the scripted model, the seed's wording, the JSON shape -----------------------------------------


def _generated_records() -> dict[str, Any]:
    from recorder.generate import generate
    return generate(1)[0]


@pytest.mark.parametrize("dataset", ["default", "renamed", "second", "third", "fourth", "fifth", "generated"])
@pytest.mark.parametrize("gather", [focused_evidence, granular_evidence], ids=["focused", "granular"])
def test_the_scripted_models_summaries_raise_no_finding(dataset, gather):
    records = {"default": default_records, "renamed": renamed_records, "second": second_records,
               "third": third_records, "fourth": fourth_records, "fifth": fifth_records,
               "generated": _generated_records}[dataset]()
    orders = [o["orderId"] for o in records["orders"]]
    assert len(orders) == {"second": 12, "generated": 12, "fourth": 10, "fifth": 12}.get(dataset, 7)
    for order_id in orders:
        evidence = gather(order_id, records)
        summary = compose_summary(evidence, order_id, derive(evidence, order_id))
        result = check_claims(summary, evidence, order_id)
        assert (result.findings, result.unchecked) == ([], []), summary


def test_the_scripted_model_says_no_more_than_the_records_of_a_refund_or_a_damaged_parcel():
    records = third_records()
    said = {}
    for order_id in ("ORD-77101", "ORD-77103", "ORD-77104"):
        evidence = focused_evidence(order_id, records)
        said[order_id] = compose_summary(evidence, order_id, derive(evidence, order_id))
    assert "because the payment status is refunded" not in said["ORD-77104"]
    assert "the payment for the order was refunded" in said["ORD-77104"]
    lamp = said["ORD-77103"]
    assert "1 of your 2 × Ceramic table lamp (LMP-TBL-CER) was delivered on 2027-06-04" in lamp
    assert "Damaged in transit" in lamp and "on the way" not in lamp
    assert "2 of your 3 × Stainless lunch box (LNCH-BOX-SS) were delivered on 2027-06-08. 1 more is on the way" \
        in said["ORD-77101"]


def _said(records: dict[str, Any], order_id: str) -> str:
    evidence = focused_evidence(order_id, records)
    return compose_summary(evidence, order_id, derive(evidence, order_id))


def test_the_scripted_model_gives_carrier_days_on_the_clocks_offset_and_each_parcels_day():
    records = fourth_records()  # a clock at -07:00; UPS stamps in UTC
    woodcraft = _said(records, "ORD-3310459")
    # UPS's 2027-09-14T04:30Z is Monday 13 September, 21:30 at the clock's offset.
    assert "Folding bench (BENCH-FOLD) was delivered on 2027-09-13" in woodcraft and "2027-09-14" not in woodcraft
    # Three fire steels in two parcels: a day for each, not the last parcel's day for all three.
    assert "3 × Fire steel (FIRE-STL) were delivered in parts, 2 on 2027-09-09 and 1 on 2027-09-13" in woodcraft
    # A Canada Post delivery at 21:45 local stays on its local day, though in UTC it is the next.
    assert "2 × Titanium mug, 450 ml (MUG-TI-450) were delivered on 2027-09-15" in _said(records, "ORD-3310451")


def test_the_scripted_model_says_a_label_is_no_parcel_on_its_way_and_a_cancelled_order_is_cancelled():
    records = fourth_records()
    labelled = _said(records, "ORD-3310457")  # labels created, nothing picked up
    assert "on the way" not in labelled
    assert "Fjord 40 L backpack (PACK-FJ40) has a shipping label with Purolator, but the carrier has not reported it " \
           "moving yet" in labelled
    cancelled = _said(records, "ORD-3310454")
    assert cancelled.startswith("Order ORD-3310454 is cancelled.") and "delivery date" not in cancelled
    assert "2 × Tree straps, pair (STRP-TREE) have not shipped, and the payment for the order was refunded" in cancelled


def test_the_sample_runs_summaries_are_what_the_scripted_model_writes_now():
    """The default dataset's summaries did not change: runs/sample-offline need not be recorded again."""
    from analysis.claims.run import conversation_evidence
    from tests.helpers import ROOT
    events = [json.loads(line) for line in (ROOT / "runs" / "sample-offline" / "events.jsonl").read_text().splitlines()]
    started = {e["conversationId"]: e for e in events if e["type"] == "conversation_started"}
    compared = 0
    for finished in (e for e in events if e["type"] == "conversation_finished" and e.get("assessment")):
        start = started[finished["conversationId"]]
        evidence = conversation_evidence([e for e in events if e.get("conversationId") == finished["conversationId"]])
        derived = derive(evidence, start["orderId"])
        summary = compose_summary(evidence, start["orderId"], derived, start["asks"])
        assert summary == finished["assessment"]["customerSummary"], finished["conversationId"]
        compared += 1
    assert compared >= 36


def test_a_summary_for_an_order_that_was_not_found():
    evidence = Evidence()
    evidence.add_result("orderId", "ORD-9999", "order ORD-9999 not found", True)
    summary = compose_summary(evidence, "ORD-9999", derive(evidence, "ORD-9999"))
    assert check_summary(summary, evidence, "ORD-9999") == []
    [finding] = check_summary("Your order is on its way.", evidence, "ORD-9999")
    assert (finding.kind, finding.sku, finding.evidence) == ("unacknowledged_missing_evidence", None,
                                                             "ORD-9999: not found — never acknowledged")


def test_the_seed_run_summary_is_an_unsupported_delay():
    summary = ("Your headsets have shipped, but tracking information is currently unavailable, "
               "so the reason for the delay is unknown.")
    [finding] = check("ORD-1005", summary)
    assert (finding.kind, finding.severity, finding.sku) == ("unsupported_delay", "high", "HEADSET-USB")
    assert "reason for the delay" in finding.claim
    assert summary[finding.start:finding.end] == finding.claim
    assert "TRK-1005-A: carrier lookup unavailable" in finding.evidence
    assert findings_to_json(finding) == {
        "kind": "unsupported_delay", "severity": "high", "sentence": summary, "claim": finding.claim,
        "evidence": finding.evidence, "sku": "HEADSET-USB", "start": finding.start, "end": finding.end}


# --- nothing depends on the dataset's names, IDs or SKUs --------------------------------------------


def _renamer() -> tuple[dict[str, str], list[tuple[re.Pattern[str], str]]]:
    """SKU and ID mapping from the default to the renamed records, and word substitutions for summaries."""
    old, new = default_records(), renamed_records()
    ids: dict[str, str] = {old["accountId"]: new["accountId"]}
    for kind, key in (("orders", "orderId"), ("payments", "paymentId"), ("reservations", "reservationId"),
                      ("tracking", "trackingId")):
        ids.update({a[key]: b[key] for a, b in zip(old[kind], new[kind], strict=True)})
    skus = {a["sku"]: b["sku"] for o, n in zip(old["orders"], new["orders"], strict=True)
            for a, b in zip(o["items"], n["items"], strict=True)}
    words = [(re.compile(rf"\b{re.escape(a)}(?=s?\b)", re.I), b) for a, b in RENAMED_WORDS]
    return {**ids, **skus}, words


def _rename(text: str, ids: dict[str, str], words: list[tuple[re.Pattern[str], str]]) -> str:
    for old, new in sorted(ids.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(old, new)
    for pattern, new in words:
        text = pattern.sub(lambda m, new=new: new[0].upper() + new[1:] if m.group()[0].isupper() else new, text)
    return text


def test_the_corpus_reads_the_same_on_a_renamed_dataset():
    ids, words = _renamer()
    records = renamed_records()
    for corpus in (CORPORA["claims_corpus.json"], CORPORA["claims_heldout.json"]):
        for entry in corpus.entries():
            order_id = corpus.order_of_case[entry["caseId"]]
            summary = _rename(entry["summary"], ids, words)
            assert not re.search(r"monitor|laptop|headset|ORD-10|BAG-15", summary, re.I), summary
            default = Counter((f.kind, ids.get(f.sku, f.sku) if f.sku else None)
                              for f in check(order_id, entry["summary"]))
            renamed = Counter((f.kind, f.sku) for f in check(ids[order_id], summary, records))
            assert renamed == default, f"{entry['id']}: {summary}"


def test_the_second_corpus_reads_the_same_with_other_ids_and_skus():
    corpus = CORPORA["claims_second.json"]
    text = SECOND_DATASET.joinpath("records.json").read_text()
    skus = sorted({i["sku"] for o in corpus.records["orders"] for i in o["items"]}, key=len, reverse=True)
    ids = {sku: f"ZX{n:02d}-Q{n}" for n, sku in enumerate(skus)} | {"-582": "-731"}
    for old, new in ids.items():
        text = text.replace(old, new)
    records = json.loads(text)
    for entry in corpus.entries():
        order_id = corpus.order_of_case[entry["caseId"]]
        summary = entry["summary"]
        for old, new in ids.items():
            summary = summary.replace(old, new)
        evidence = Evidence() if entry.get("evidence") == "none" else None
        before = Counter((f.kind, ids.get(f.sku, f.sku) if f.sku else None)
                         for f in entry_findings(entry, corpus))
        after = Counter((f.kind, f.sku) for f in check(order_id.replace("-582", "-731"), summary, records, evidence))
        assert after == before, f"{entry['id']}: {summary}"


def test_the_third_dataset_is_valid_and_awkward():
    from tests.analysis.claims_scoring import THIRD_DATASET
    dataset = load_dataset(THIRD_DATASET)
    records = dataset.records
    assert min(len(o.items) for o in records.orders) >= 4 and not dataset.warnings
    assert records.clock.endswith("+10:00")  # the local day is not the UTC day before 10:00
    assert any(p.status == "refunded" for p in records.payments)
    events = [t.latestEvent.description for t in records.tracking if t.latestEvent]
    assert any("customs" in e for e in events) and any("returning to sender" in e for e in events)
    split = Counter(t.sku for t in records.tracking)
    assert any(n > 1 for n in split.values())
    skus = {i.sku for o in records.orders for i in o.items}
    assert {"KEYBOARD-TKL", "KEYBOARD-TKL-BLK", "HUB-7PORT"} <= skus


def test_the_third_datasets_cases_are_what_the_rules_derive_from_either_design():
    """cases.json was regenerated from the rules (derive() on the focused context); granular evidence agrees, so
    `wismo record --dataset tests/data/third_dataset` no longer refuses with "the rules disagree with cases.json"."""
    from tests.analysis.claims_scoring import THIRD_DATASET
    dataset, records = load_dataset(THIRD_DATASET), third_records()
    for case in dataset.cases:
        for gather in (focused_evidence, granular_evidence):
            assert derive(gather(case.orderId, records), case.orderId).as_dict(case.asks) == case.expectation(), \
                case.caseId
