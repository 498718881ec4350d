"""The LLM-style corpus (issue 24): summaries in the styles language models write, labelled from the records alone.

Five files, one per dataset (default, third, fifth, sixth, seventh), written blind to the claim checker: from the
records, the kind definitions in docs/claims.md and nothing the checker does. Their summaries read as assistant
replies do (markdown headings and tables, bold item names, lists without verbs, ISO dates, hedges, openers and
closers). For the sixth dataset only the cases at even positions of cases.json are used (the others belong to a
held-out half). These tests hold the files to their shape and to the records they are about; none of them runs the
checker (its maintainer adds the files to the scored corpora).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import date, datetime, tzinfo
from pathlib import Path
from typing import Any

import pytest

from analysis.claims import KINDS
from core.domain.dataset import DEFAULT_DATASET_DIR
from tests.helpers import ROOT

DATA = ROOT / "tests" / "data"
# (corpus file, dataset folder, id prefix, correct summaries, wrong summaries, only even-position cases)
FILES = [
    ("claims_llm_default.json", DEFAULT_DATASET_DIR, "wc-1-", 29, 21, False),
    ("claims_llm_third.json", DATA / "third_dataset", "wc-3-", 30, 21, False),
    ("claims_llm_fifth.json", DATA / "fifth_dataset", "wc-5-", 30, 21, False),
    ("claims_llm_sixth.json", DATA / "sixth_dataset", "wc-6-", 27, 19, True),
    ("claims_llm_seventh.json", DATA / "seventh_dataset", "wc-7-", 28, 20, False),
]
PARAMS = ("file", "folder", "prefix", "correct", "wrong", "even_only")
ENTRY_KEYS = {"id", "caseId", "summary", "expected", "note"}
PAYMENT_KIND = "unsupported_payment"  # a payment belongs to the order: its finding names no SKU
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
# Words of a product name too generic to name the item on their own ("Cork placemat, set of 4").
GENERIC = {"set", "pack", "pair", "of", "the", "and", "for", "with", "cm", "ml", "mm", "lm"}


def _entries(file: str) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = json.loads((DATA / file).read_text())
    return entries


def _records(folder: Path) -> dict[str, Any]:
    records: dict[str, Any] = json.loads((folder / "records.json").read_text())
    return records


def _full_cases(folder: Path, even_only: bool = False) -> dict[str, str]:
    """Case ID -> order ID for the cases asking the full question (no "asks"), at even positions if asked."""
    cases: list[dict[str, Any]] = json.loads((folder / "cases.json").read_text())
    return {case["caseId"]: case["orderId"] for index, case in enumerate(cases)
            if "asks" not in case and not (even_only and index % 2)}


def _order_of(entry: dict[str, Any], folder: Path) -> dict[str, Any]:
    order_id = _full_cases(folder)[entry["caseId"]]
    order: dict[str, Any] = next(o for o in _records(folder)["orders"] if o["orderId"] == order_id)
    return order


def _all_entries() -> list[dict[str, Any]]:
    return [entry for file, *_ in FILES for entry in _entries(file)]


def test_every_entry_has_its_keys_and_a_note_that_matches_its_label() -> None:
    for entry in _all_entries():
        assert set(entry) == ENTRY_KEYS, entry.get("id")
        assert isinstance(entry["summary"], str) and entry["summary"].strip(), entry["id"]
        assert len(entry["expected"]) <= 1, entry["id"]  # a wrong summary holds exactly one error
        assert all(set(finding) == {"kind", "sku"} and finding["kind"] in KINDS for finding in entry["expected"])
        assert entry["note"].startswith("bad:" if entry["expected"] else "good:"), entry["id"]
        assert len(entry["note"]) > len("good: ") + 10, entry["id"]  # the note says why


def test_ids_and_summaries_are_unique_across_the_five_files() -> None:
    entries = _all_entries()
    assert len(entries) >= 120
    assert len({entry["id"] for entry in entries}) == len(entries)
    assert len({entry["summary"] for entry in entries}) == len(entries)
    for file, _, prefix, *_ in FILES:
        assert all(re.fullmatch(rf"{prefix}\d{{3}}", entry["id"]) for entry in _entries(file)), file


@pytest.mark.parametrize(PARAMS, FILES, ids=lambda v: str(v))
def test_each_file_has_its_counts_and_every_kind_twice(file: str, folder: Path, prefix: str, correct: int, wrong: int,
                                                       even_only: bool) -> None:
    entries = _entries(file)
    assert len(entries) >= 24
    assert (sum(not e["expected"] for e in entries), sum(bool(e["expected"]) for e in entries)) == (correct, wrong)
    assert 0.55 <= correct / len(entries) <= 0.60  # about 55-60 % correct
    kinds = Counter(finding["kind"] for entry in entries for finding in entry["expected"])
    assert set(kinds) == set(KINDS) and min(kinds.values()) >= 2, kinds


@pytest.mark.parametrize(PARAMS, FILES, ids=lambda v: str(v))
def test_each_entry_is_about_a_usable_case_and_its_finding_names_an_item_of_the_order(
        file: str, folder: Path, prefix: str, correct: int, wrong: int, even_only: bool) -> None:
    cases = _full_cases(folder, even_only)
    entries = _entries(file)
    assert {entry["caseId"] for entry in entries} == set(cases)  # every usable case, and no other
    for entry in entries:
        skus = {item["sku"] for item in _order_of(entry, folder)["items"]}
        for finding in entry["expected"]:
            if finding["kind"] == PAYMENT_KIND:
                assert finding["sku"] is None, entry["id"]
            else:
                assert finding["sku"] in skus, entry["id"]


@pytest.mark.parametrize(PARAMS, FILES, ids=lambda v: str(v))
def test_each_code_a_summary_names_belongs_to_its_order(file: str, folder: Path, prefix: str, correct: int,
                                                        wrong: int, even_only: bool) -> None:
    # A typo in a code would make a "good" summary wrong for a reason nobody labelled.
    for entry in _entries(file):
        order = _order_of(entry, folder)
        known = {item["sku"] for item in order["items"]} | {order["orderId"], order["paymentId"]} \
            | set(order["reservationIds"]) | set(order["trackingIds"])
        # "USB-C" is a word of a name, "RENO-1" a warehouse: neither is a code
        warehouses = [r["warehouse"] for r in _records(folder)["reservations"] if r["orderId"] == order["orderId"]]
        names = " ".join([item["name"] for item in order["items"]] + warehouses)
        for code in re.findall(r"\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+\b", entry["summary"]):
            assert code in known or code in names, (entry["id"], code)


def _names(summary: str, item: dict[str, Any]) -> bool:
    """Whether the summary names the item by its SKU or by a word of its product name (plurals allowed).

    A SKU counts only whole: KNF-GYT210 is not named by KNF-GYT210-D."""
    if re.search(rf"(?<![A-Z0-9-]){re.escape(item['sku'])}(?![A-Z0-9-])", summary):
        return True
    text = summary.lower()
    for word in re.findall(r"[a-z]+", item["name"].lower().replace("'s", "")):
        if len(word) < 3 or word in GENERIC:
            continue
        forms = [word, word + "s", word + "es", re.sub(r"f$", "ves", word), re.sub(r"ouse$", "ice", word),
                 re.sub(r"ies$", "y", word)]  # shelf: shelves, mouse: mice, batteries: battery
        if any(re.search(rf"\b{form}\b", text) for form in forms):
            return True
    return False


@pytest.mark.parametrize(PARAMS, FILES, ids=lambda v: str(v))
def test_every_item_is_named_except_the_one_an_unmentioned_sku_entry_leaves_out(
        file: str, folder: Path, prefix: str, correct: int, wrong: int, even_only: bool) -> None:
    for entry in _entries(file):
        left_out = {f["sku"] for f in entry["expected"] if f["kind"] == "unmentioned_sku"}
        for item in _order_of(entry, folder)["items"]:
            assert _names(entry["summary"], item) is (item["sku"] not in left_out), (entry["id"], item["sku"])


def _record_days(order: dict[str, Any], records: dict[str, Any], clock: tzinfo) -> set[date]:
    """Every day a record of the order gives, carrier and payment stamps read as days on the dataset's clock."""
    def local(stamp: str) -> date:
        return datetime.fromisoformat(stamp).astimezone(clock).date()

    days = {date.fromisoformat(order["promisedDeliveryDate"]), local(order["updatedAt"]), local(records["clock"])}
    days |= {local(p["updatedAt"]) for p in records["payments"] if p["paymentId"] == order["paymentId"]}
    for r in records["reservations"]:
        if r["reservationId"] in order["reservationIds"] and r["expectedRestockDate"]:
            days.add(date.fromisoformat(r["expectedRestockDate"]))
    for t in records["tracking"]:
        if t["trackingId"] in order["trackingIds"]:
            if t["estimatedDeliveryDate"]:
                days.add(date.fromisoformat(t["estimatedDeliveryDate"]))
            if t["latestEvent"]:
                days.add(local(t["latestEvent"]["at"]))
    return days


def _calendar_dates(summary: str) -> list[tuple[int, int]]:
    """(month, day) of each calendar date written "14/03", "14 March" or "March 14" in a summary (ISO dates apart)."""
    found = [(int(m), int(d)) for d, m in re.findall(r"\b(\d{1,2})/(\d{1,2})\b", summary)]
    months = "|".join(month[:3] for month in MONTHS)
    for d, m in re.findall(rf"\b(\d{{1,2}}) ({months})[a-z]*\b", summary, re.IGNORECASE):
        found.append((MONTHS.index(next(x for x in MONTHS if x.startswith(m.lower()))) + 1, int(d)))
    for m, d in re.findall(rf"\b({months})[a-z]* (\d{{1,2}})\b", summary, re.IGNORECASE):
        found.append((MONTHS.index(next(x for x in MONTHS if x.startswith(m.lower()))) + 1, int(d)))
    return found


def _iso_dates(summary: str) -> list[date]:
    """Each date written YYYY-MM-DD in a summary."""
    return [date.fromisoformat(found) for found in re.findall(r"\b\d{4}-\d{2}-\d{2}\b", summary)]


@pytest.mark.parametrize(PARAMS, FILES, ids=lambda v: str(v))
def test_every_date_a_correct_summary_gives_is_a_day_its_records_give(file: str, folder: Path, prefix: str,
                                                                     correct: int, wrong: int, even_only: bool) -> None:
    records = _records(folder)
    clock = datetime.fromisoformat(records["clock"]).tzinfo
    assert clock is not None
    for entry in _entries(file):
        if entry["expected"]:
            continue
        days = _record_days(_order_of(entry, folder), records, clock)
        for iso in _iso_dates(entry["summary"]):
            assert iso in days, (entry["id"], iso)
        for month, day in _calendar_dates(entry["summary"]):
            assert (month, day) in {(d.month, d.day) for d in days}, (entry["id"], month, day)
        # "the 15th", "Monday the 15th", "Fri 10th"
        for ordinal in re.findall(r"\b(?:the|mon|tue|wed|thu|fri|sat|sun)[a-z]* (\d{1,2})(?:st|nd|rd|th)\b",
                                  entry["summary"], re.IGNORECASE):
            assert int(ordinal) in {d.day for d in days}, (entry["id"], ordinal)


def test_a_wrong_entry_differs_from_a_correct_one_of_its_case_or_stands_alone() -> None:
    # Most wrong entries are a correct entry with one claim changed: they must not be the same text.
    for file, *_ in FILES:
        entries = _entries(file)
        good = {e["summary"] for e in entries if not e["expected"]}
        assert not any(e["summary"] in good for e in entries if e["expected"]), file


def test_the_readers_and_the_item_namer_can_fail() -> None:
    # The heuristics above hold the corpus only if they can say no.
    assert _calendar_dates("due 21/03, then 4 June and September 24") == [(3, 21), (6, 4), (9, 24)]
    assert _iso_dates("ETA 2029-11-22, not 11-23") == [date(2029, 11, 22)]
    shelf = {"sku": "SHLF-WALL", "name": "Floating wall shelf"}
    assert _names("the shelves have not shipped", shelf) and _names("SHLF-WALL: unknown", shelf)
    assert not _names("the hooks arrived", shelf)
    gyuto = {"sku": "KNF-GYT210", "name": "Gyuto"}
    assert not _names("KNF-GYT210-D: in transit", gyuto) and _names("KNF-GYT210: delivered", gyuto)
    assert _names("2 mice", {"sku": "MSE-VRT", "name": "Vertical mouse"})
    assert not _names("the set of pegs", {"sku": "MAT-CORK-4", "name": "Cork placemat, set of 4"})
    assert _full_cases(DATA / "sixth_dataset", even_only=True).keys() < _full_cases(DATA / "sixth_dataset").keys()
