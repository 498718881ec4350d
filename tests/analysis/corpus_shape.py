"""Shape checks shared by the labelled summary corpora written blind for issue 24 (wording, agent voice, LLM style).

Each corpus is a list of entries {id, caseId, summary, expected, note} about the full-question cases of one dataset.
The checks here hold an entry to the records it is about, never to what the claim checker says, so that a label the
data cannot bear fails in a test and not in a score. Every check asserts; where the corpora's rules differ, the
stricter rule is a keyword argument, so a file keeps exactly the rule it had.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import date, datetime, tzinfo
from pathlib import Path
from typing import Any

from analysis.claims import KINDS

Entry = dict[str, Any]
Records = dict[str, Any]
Order = dict[str, Any]
Paired = list[tuple[Entry, Order]]  # each entry with the order its case is about
ENTRY_KEYS = {"id", "caseId", "summary", "expected", "note"}
PAYMENT_KIND = "unsupported_payment"  # a payment belongs to the order: its finding names no SKU
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
# Words of a product name too generic to name the item on their own ("Cork placemat, set of 4").
GENERIC = {"set", "pack", "pair", "of", "the", "and", "for", "with", "cm", "ml", "mm", "lm"}
# A code is upper-case parts joined by hyphens: an order, payment, reservation or tracking ID, or a SKU.
CODE = re.compile(r"\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+\b")
# "the 15th", "Monday the 15th", "Fri 10th" (not "3rd ETA": a count, not a day)
ORDINAL_DAY = re.compile(r"\b(?:the|mon|tue|wed|thu|fri|sat|sun)[a-z]* (\d{1,2})(?:st|nd|rd|th)\b", re.IGNORECASE)


def read_json(path: Path) -> Any:
    """A JSON file read afresh, so no check sees another's edits."""
    return json.loads(path.read_text())


def full_cases(cases: list[dict[str, Any]], even_only: bool = False) -> dict[str, str]:
    """Case ID -> order ID for the cases asking the full question (no "asks"); at even positions only if asked,
    because the sixth dataset's odd positions belong to a held-out half no corpus may write about."""
    return {case["caseId"]: case["orderId"] for index, case in enumerate(cases)
            if "asks" not in case and not (even_only and index % 2)}


def order(records: Records, order_id: str) -> Order:
    """The order with this ID in records.json."""
    found: Order = next(o for o in records["orders"] if o["orderId"] == order_id)
    return found


def with_orders(entries: list[Entry], records: Records, order_of_case: dict[str, str]) -> Paired:
    """Each entry with the order its case is about (a KeyError names a case the corpus may not be about)."""
    return [(entry, order(records, order_of_case[entry["caseId"]])) for entry in entries]


def dataset_cases(folder: Path, even_only: bool = False) -> dict[str, str]:
    """full_cases of a dataset folder's cases.json."""
    return full_cases(read_json(folder / "cases.json"), even_only)


def pair(entries: list[Entry], folder: Path, even_only: bool = False) -> Paired:
    """with_orders against a dataset folder's records.json and cases.json."""
    return with_orders(entries, read_json(folder / "records.json"), dataset_cases(folder, even_only))


def check_entry(entry: Entry, note_says_why: bool = True) -> None:
    """An entry has its keys, a summary, at most one finding of a known kind and a note that agrees with its label.

    note_says_why: the note is longer than a bare "good:"/"bad:" tag, so a reader learns why the label holds."""
    assert set(entry) == ENTRY_KEYS, entry.get("id")
    assert isinstance(entry["summary"], str) and entry["summary"].strip(), entry["id"]
    assert len(entry["expected"]) <= 1, entry["id"]  # a wrong summary holds exactly one error
    assert all(set(finding) == {"kind", "sku"} and finding["kind"] in KINDS for finding in entry["expected"]), \
        entry["id"]
    assert entry["note"].startswith("bad:" if entry["expected"] else "good:"), entry["id"]
    if note_says_why:
        assert len(entry["note"]) > len("good: ") + 10, entry["id"]


def check_ids(entries: list[Entry], prefix: str, three_digits: bool) -> None:
    """Every ID starts with the corpus's prefix (and is then exactly three digits if asked): IDs name their corpus."""
    for entry in entries:
        if three_digits:
            assert re.fullmatch(re.escape(prefix) + r"\d{3}", entry["id"]), entry["id"]
        else:
            assert entry["id"].startswith(prefix), entry["id"]


def check_unique(entries: list[Entry]) -> None:
    """No ID and no summary twice: a repeated summary would be scored twice, a repeated ID would hide one entry."""
    assert len({entry["id"] for entry in entries}) == len(entries)
    assert len({entry["summary"] for entry in entries}) == len(entries)


def check_counts(entries: list[Entry], correct: int, wrong: int) -> None:
    """The pinned numbers of correct and wrong summaries, so an entry added or relabelled is a visible change."""
    assert (sum(not e["expected"] for e in entries), sum(bool(e["expected"]) for e in entries)) == (correct, wrong)


def check_share_correct(entries: list[Entry], low: float, high: float) -> None:
    """The share of correct summaries lies in [low, high]: mostly correct, as real summaries are."""
    correct = sum(not entry["expected"] for entry in entries)
    assert low <= correct / len(entries) <= high, correct


def check_every_kind(entries: list[Entry], at_least: int) -> None:
    """Every finding kind is labelled at least this many times, so no kind goes unmeasured."""
    kinds = Counter(finding["kind"] for entry in entries for finding in entry["expected"])
    assert set(kinds) == set(KINDS) and min(kinds.values()) >= at_least, kinds


def check_cases(entries: list[Entry], writable: dict[str, str], each_has_a_correct_one: bool = False) -> None:
    """The entries are about every case they may be about and no other.

    each_has_a_correct_one: every such case also has a correct summary, so a good summary of each shape of order
    is in the corpus."""
    assert {entry["caseId"] for entry in entries} == set(writable)
    if each_has_a_correct_one:
        assert {entry["caseId"] for entry in entries if not entry["expected"]} == set(writable)


def check_finding_skus(paired: Paired) -> None:
    """A finding names an item of its order, or no SKU for a payment (the payment belongs to the whole order)."""
    for entry, the_order in paired:
        skus = {item["sku"] for item in the_order["items"]}
        for finding in entry["expected"]:
            if finding["kind"] == PAYMENT_KIND:
                assert finding["sku"] is None, entry["id"]
            else:
                assert finding["sku"] in skus, entry["id"]


def check_codes(paired: Paired, records: Records, names_may_hold_codes: bool = True) -> None:
    """Each code a summary names belongs to its order: a typo in a code would make a "good" summary wrong for a
    reason nobody labelled.

    names_may_hold_codes: a code-like word of a product name ("USB-C") or of a warehouse ("Leeds NW-3") is allowed;
    without it only the order's own IDs and SKUs are."""
    for entry, the_order in paired:
        known = {item["sku"] for item in the_order["items"]} | {the_order["orderId"], the_order["paymentId"]} \
            | set(the_order["reservationIds"]) | set(the_order["trackingIds"])
        names = ""
        if names_may_hold_codes:
            warehouses = [r["warehouse"] for r in records["reservations"] if r["orderId"] == the_order["orderId"]]
            names = " ".join([item["name"] for item in the_order["items"]] + warehouses)
        for code in CODE.findall(entry["summary"]):
            assert code in known or (names_may_hold_codes and code in names), (entry["id"], code)


def names(summary: str, item: dict[str, Any], whole_sku: bool = False) -> bool:
    """Whether the summary names the item by its SKU or by a word of its product name (plurals allowed).

    whole_sku: a SKU counts only whole, so KNF-GYT210 is not named by KNF-GYT210-D (a word boundary alone would
    let it)."""
    sku = re.escape(item["sku"])
    pattern = rf"(?<![A-Z0-9-]){sku}(?![A-Z0-9-])" if whole_sku else rf"\b{sku}\b"
    if re.search(pattern, summary):
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


def check_items_named(paired: Paired, whole_sku: bool = False) -> None:
    """Every item of the order is named, except the one an unmentioned_sku entry leaves out (and that one is not)."""
    for entry, the_order in paired:
        left_out = {f["sku"] for f in entry["expected"] if f["kind"] == "unmentioned_sku"}
        for item in the_order["items"]:
            named = names(entry["summary"], item, whole_sku)
            assert named is (item["sku"] not in left_out), (entry["id"], item["sku"])


def clock_of(records: Records) -> tzinfo:
    """The dataset's local clock: the days a customer reads are days on it, not in UTC."""
    clock = datetime.fromisoformat(records["clock"]).tzinfo
    assert clock is not None
    return clock


def record_days(the_order: Order, records: Records, clock: tzinfo, today_counts: bool = False) -> set[date]:
    """Every day a record of the order gives, carrier and payment stamps read as days on the dataset's clock.

    today_counts: the dataset's own "now" is a day a summary may give too ("as of today")."""
    def local(stamp: str) -> date:
        return datetime.fromisoformat(stamp).astimezone(clock).date()

    days = {date.fromisoformat(the_order["promisedDeliveryDate"]), local(the_order["updatedAt"])}
    if today_counts:
        days.add(local(records["clock"]))
    days |= {local(p["updatedAt"]) for p in records["payments"] if p["paymentId"] == the_order["paymentId"]}
    for r in records["reservations"]:
        if r["reservationId"] in the_order["reservationIds"] and r["expectedRestockDate"]:
            days.add(date.fromisoformat(r["expectedRestockDate"]))
    for t in records["tracking"]:
        if t["trackingId"] in the_order["trackingIds"]:
            if t["estimatedDeliveryDate"]:
                days.add(date.fromisoformat(t["estimatedDeliveryDate"]))
            if t["latestEvent"]:
                days.add(local(t["latestEvent"]["at"]))
    return days


def calendar_dates(summary: str) -> list[tuple[int, int]]:
    """(month, day) of each calendar date written "14/03", "14 March" or "March 14" in a summary (ISO dates apart)."""
    found = [(int(m), int(d)) for d, m in re.findall(r"\b(\d{1,2})/(\d{1,2})\b", summary)]
    months = "|".join(month[:3] for month in MONTHS)
    for d, m in re.findall(rf"\b(\d{{1,2}}) ({months})[a-z]*\b", summary, re.IGNORECASE):
        found.append((MONTHS.index(next(x for x in MONTHS if x.startswith(m.lower()))) + 1, int(d)))
    for m, d in re.findall(rf"\b({months})[a-z]* (\d{{1,2}})\b", summary, re.IGNORECASE):
        found.append((MONTHS.index(next(x for x in MONTHS if x.startswith(m.lower()))) + 1, int(d)))
    return found


def iso_dates(summary: str) -> list[date]:
    """Each date written YYYY-MM-DD in a summary."""
    return [date.fromisoformat(found) for found in re.findall(r"\b\d{4}-\d{2}-\d{2}\b", summary)]


def check_dates(paired: Paired, records: Records, today_counts: bool = False, iso: bool = False) -> None:
    """Every date a correct summary gives is a day its records give: a correct summary invents no day (a wrong one
    may, if that is its labelled error).

    today_counts: see record_days. iso: YYYY-MM-DD dates are read too, and must be the very day (year included)."""
    clock = clock_of(records)
    for entry, the_order in paired:
        if entry["expected"]:
            continue
        days = record_days(the_order, records, clock, today_counts)
        if iso:
            for found in iso_dates(entry["summary"]):
                assert found in days, (entry["id"], found)
        for month, day in calendar_dates(entry["summary"]):
            assert (month, day) in {(d.month, d.day) for d in days}, (entry["id"], month, day)
        for ordinal in ORDINAL_DAY.findall(entry["summary"]):
            assert int(ordinal) in {d.day for d in days}, (entry["id"], ordinal)
