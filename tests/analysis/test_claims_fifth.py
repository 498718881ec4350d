"""The fifth corpus, written blind over a fifth dataset: what is true of its data, and the checker on its dev half.

The held-out half (tests/data/claims_fifth_heldout.json) was scored once by checker v6 after its rules were final,
with aggregate figures only (it is in claims_scoring.BLIND). Its documented row is v6's: under a later checker the
tests that score it are skipped, so that no one changing the rules sees even its aggregate figures move; the lead
scores a blind half once, after the rules are final. Otherwise its entries are only read as data (counts, the
split, labels against the records).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest

from analysis.claims import CHECKER_VERSION, KINDS
from core.domain.dataset import load_dataset
from core.domain.evidence import derive
from tests.analysis.claims_scoring import (
    BLIND,
    FIFTH_DATASET,
    Corpus,
    corpora,
    documented_row,
    fifth_cases,
    fifth_records,
    focused_evidence,
    granular_evidence,
    holds_the_bar,
    load_corpus,
    report,
    score,
    unchecked,
)

DEV, HELD_OUT = "claims_fifth.json", "claims_fifth_heldout.json"
ENTRY_KEYS = {"id", "caseId", "summary", "expected", "note"}
ORDER_LEVEL_KINDS = {"unsupported_payment", "unsupported_delay"}  # kinds a finding may raise without an SKU
ID = re.compile(r"^t5-([gw])(\d{2})$")


def _halves() -> dict[str, list[dict[str, Any]]]:
    return {DEV: load_corpus(DEV), HELD_OUT: load_corpus(HELD_OUT)}


def _order_items() -> dict[str, set[str]]:
    """The SKUs ordered, by caseId."""
    orders = {o["orderId"]: {item["sku"] for item in o["items"]} for o in fifth_records()["orders"]}
    return {case["caseId"]: orders[case["orderId"]] for case in fifth_cases()}


def test_the_dataset_loads_and_every_case_is_what_the_rules_derive_from_either_design() -> None:
    dataset = load_dataset(FIFTH_DATASET)
    assert dataset.warnings == []
    assert len(dataset.records.orders) == 12
    assert all(3 <= len(order.items) <= 10 for order in dataset.records.orders)
    assert all("asks" not in case for case in fifth_cases())  # full questions: the corpus is about them
    records = fifth_records()
    for case in dataset.cases:
        for gathered in (focused_evidence(case.orderId, records), granular_evidence(case.orderId, records)):
            assert derive(gathered, case.orderId).as_dict(case.asks) == case.expectation(), case.caseId


def test_the_clock_puts_the_local_day_apart_from_the_utc_day_and_some_carrier_stamps_in_utc() -> None:
    records = fifth_records()
    assert records["clock"] == "2028-03-09T08:15:00+09:00"  # Thursday local, still Wednesday 8 March in UTC
    utc_carriers = {t["carrier"] for t in records["tracking"]
                    if t["latestEvent"] and t["latestEvent"]["at"].endswith("+00:00")}
    assert utc_carriers == {"DHL Express", "FedEx"}


def test_the_dataset_holds_every_awkward_fact() -> None:
    records = fifth_records()
    tracking, reservations = records["tracking"], records["reservations"]
    linked_reservations = {r for o in records["orders"] for r in o["reservationIds"]}
    assert linked_reservations - {r["reservationId"] for r in reservations}  # a missing reservation record
    assert {o["paymentId"] for o in records["orders"]} - {p["paymentId"] for p in records["payments"]}
    assert {p["status"] for p in records["payments"]} == {"captured", "authorized", "pending",
                                                          "authorization_failed", "refunded"}
    assert any(t["availability"] == "unavailable" for t in tracking)
    assert any(r["status"] == "backordered" and r["expectedRestockDate"] for r in reservations)
    assert any(t["status"] == "exception" and "returning to sender" in t["latestEvent"]["description"]
               for t in tracking)
    assert any("customs" in (t["latestEvent"] or {}).get("description", "") for t in tracking)
    split = Counter((t["orderId"], t["sku"]) for t in tracking)
    assert any(n > 1 for n in split.values())
    skus = [item["sku"] for o in records["orders"] for item in o["items"]]
    assert any(a != b and b.startswith(a + "-") for a in skus for b in skus)
    assert {o["status"] for o in records["orders"]} >= {"cancelled", "processing", "delivered"}


def test_each_half_holds_half_correct_and_half_wrong_summaries_of_the_known_shape() -> None:
    halves = _halves()
    assert sum(len(entries) for entries in halves.values()) >= 80
    for entries in halves.values():
        assert all(set(entry) == ENTRY_KEYS for entry in entries)
        assert sum(not e["expected"] for e in entries) == sum(bool(e["expected"]) for e in entries) == 24
        assert all(len(e["expected"]) <= 1 for e in entries)  # a wrong summary holds exactly one error
    ids = [e["id"] for entries in halves.values() for e in entries]
    summaries = [e["summary"] for entries in halves.values() for e in entries]
    assert len(set(ids)) == len(ids) and len(set(summaries)) == len(summaries)


def test_the_split_alternates_correct_and_wrong_entries_between_dev_and_held_out() -> None:
    for half, entries in _halves().items():
        for entry in entries:
            match = ID.match(entry["id"])
            assert match, entry["id"]
            assert (match.group(1) == "w") == bool(entry["expected"]), entry["id"]
            assert int(match.group(2)) % 2 == (1 if half == DEV else 0), entry["id"]
    numbers = {kind: sorted(int(m.group(2)) for e in load_corpus(DEV) + load_corpus(HELD_OUT)
                            if (m := ID.match(e["id"])) and m.group(1) == kind) for kind in "gw"}
    assert numbers == {"g": list(range(1, 49)), "w": list(range(1, 49))}


def test_labels_name_known_kinds_cases_that_exist_and_skus_on_their_order() -> None:
    items = _order_items()
    for half, entries in _halves().items():
        kinds = Counter(f["kind"] for e in entries for f in e["expected"])
        assert set(kinds) == set(KINDS), half
        assert min(kinds.values()) >= 2, half  # every kind, several times, in each half
        for entry in entries:
            assert entry["caseId"] in items, entry["id"]
            for finding in entry["expected"]:
                assert set(finding) == {"kind", "sku"}
                if finding["kind"] == "unsupported_payment":
                    assert finding["sku"] is None, entry["id"]
                elif finding["sku"] is None:
                    assert finding["kind"] in ORDER_LEVEL_KINDS, entry["id"]
                else:
                    assert finding["sku"] in items[entry["caseId"]], entry["id"]


def test_every_case_has_correct_summaries_in_the_corpus() -> None:
    cases = Counter(e["caseId"] for entries in _halves().values() for e in entries if not e["expected"])
    assert set(cases) == {c["caseId"] for c in fifth_cases()}


def test_the_held_out_half_stays_blind_and_out_of_the_shared_corpora() -> None:
    assert HELD_OUT in BLIND and DEV not in BLIND
    assert all(corpus.file not in (DEV, HELD_OUT) for corpus in corpora())


@pytest.fixture(scope="module")
def dev() -> Corpus:
    return Corpus(DEV, fifth_records(), {c["caseId"]: c["orderId"] for c in fifth_cases()})


def test_the_checker_on_the_dev_half(dev: Corpus) -> None:
    """Print the dev half's figures (pytest -s); the held-out half is not run here."""
    result = score(dev)
    assert result.correct + result.wrong == len(dev.entries()) == 48
    assert sum(result.expected.values()) == 24
    claims, summaries = unchecked(dev)
    report("fifth corpus, dev half (claims_fifth.json)", result)
    print(f"  {'could not check':34} {claims} claim(s) in {summaries} of {len(dev.entries())} summaries")


def test_the_dev_halfs_figures_are_the_documented_now_row(dev: Corpus) -> None:
    assert documented_row("fifth dataset, `tests/data/claims_fifth.json` (dev half), now") == score(dev).row()


# Checker v7 changed the rules after v6's one run on the blind half: its figures there are for the lead to take once.
SCORED_BY_THIS_CHECKER = pytest.mark.skipif(
    CHECKER_VERSION != 6, reason="the blind held-out half was scored by checker v6 only; a later checker's run on it "
                                 "is the lead's, once, after its rules are final")


@pytest.fixture(scope="module")
def held_out() -> Corpus:
    return Corpus(HELD_OUT, fifth_records(), {c["caseId"]: c["orderId"] for c in fifth_cases()})


@SCORED_BY_THIS_CHECKER
def test_the_held_out_halfs_first_run_is_what_the_checker_does(held_out: Corpus) -> None:
    """Scored once by checker v6 after its rules were final (aggregate figures only: the half is in BLIND, so no
    summary and no per-summary result is shown). A rule changed since fails here: the figure is then no longer
    held out, and docs/claims.md must say so."""
    result = score(held_out)
    assert not result.misses
    assert documented_row("fifth held out, first run (checker v6)") == result.row()


@SCORED_BY_THIS_CHECKER
@pytest.mark.xfail(strict=True, reason="the held-out half is not at the bar (docs/claims.md)")
def test_the_held_out_half_holds_the_bar(held_out: Corpus) -> None:
    result = score(held_out)
    assert result.false_alarms <= 0.05 * result.correct and result.caught >= 0.9 * result.wrong
    matched, reported = sum(result.matched.values()), sum(result.reported.values())
    assert matched >= 0.95 * reported


@pytest.mark.skipif(CHECKER_VERSION not in (8, 9), reason="checkers v7, v8 and v9 on the held-out half, once each")
def test_checkers_v7_to_v9_on_the_held_out_half_are_what_the_checker_does(held_out: Corpus) -> None:
    """Scored once by v7 (from its tree, 443423e), once by v8 and once by v9 after their rules were final, aggregate
    figures only: the same row. Not a clean held-out figure: v7's gate was designed by a round that may have seen
    v5's and v6's per-summary findings on this half (docs/claims.md)."""
    result = score(held_out)
    assert not result.misses
    assert documented_row("fifth held out, checkers v7, v8 and v9 (not clean)") == result.row()
    assert holds_the_bar(result)


@pytest.mark.skipif(CHECKER_VERSION != 10, reason="checker v10 on the held-out half, scored once")
def test_checker_v10_on_the_held_out_half_is_what_the_checker_does(held_out: Corpus) -> None:
    """Scored once after v10's rules were final, aggregate figures only; not a clean held-out figure (above)."""
    result = score(held_out)
    assert not result.misses
    assert documented_row("fifth held out, checker v10 (not clean)") == result.row()
    assert holds_the_bar(result)
