"""The wording corpus (issue 24): summaries in varied support wording, labelled from the records alone.

Three files, one per dataset (second, third, fourth), written blind to the claim checker: from the records, the
kind definitions in docs/claims.md and nothing the checker does. These tests hold the files to their shape and to
the records they are about; none of them runs the checker (its maintainer adds the files to the scored corpora).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.analysis import corpus_shape as shape
from tests.analysis.claims_scoring import load_corpus
from tests.helpers import ROOT

DATA = ROOT / "tests" / "data"
# (corpus file, dataset folder, id prefix, correct summaries, wrong summaries)
FILES = [
    ("claims_wording_second.json", DATA / "second_dataset", "wa-2-", 43, 33),
    ("claims_wording_third.json", DATA / "third_dataset", "wa-3-", 37, 33),
    ("claims_wording_fourth.json", DATA / "fourth_dataset", "wa-4-", 42, 33),
]


def _all_entries() -> list[dict[str, Any]]:
    return [entry for file, *_ in FILES for entry in load_corpus(file)]


def test_every_entry_has_its_keys_and_a_note_that_matches_its_label() -> None:
    for entry in _all_entries():
        shape.check_entry(entry)


def test_ids_and_summaries_are_unique_across_the_three_files() -> None:
    shape.check_unique(_all_entries())
    for file, _, prefix, *_ in FILES:
        shape.check_ids(load_corpus(file), prefix, three_digits=False)


@pytest.mark.parametrize(("file", "folder", "prefix", "correct", "wrong"), FILES, ids=lambda v: str(v))
def test_each_file_has_its_counts_and_every_kind_three_times(file: str, folder: Path, prefix: str, correct: int,
                                                              wrong: int) -> None:
    entries = load_corpus(file)
    assert len(entries) >= 35
    shape.check_counts(entries, correct, wrong)
    shape.check_share_correct(entries, 0.5, 0.65)  # about 60 % correct
    shape.check_every_kind(entries, at_least=3)


@pytest.mark.parametrize(("file", "folder", "prefix", "correct", "wrong"), FILES, ids=lambda v: str(v))
def test_each_entry_is_about_a_full_question_case_and_its_finding_names_an_item_of_the_order(
        file: str, folder: Path, prefix: str, correct: int, wrong: int) -> None:
    shape.check_cases(load_corpus(file), shape.dataset_cases(folder))
    shape.check_finding_skus(shape.pair(load_corpus(file), folder))


@pytest.mark.parametrize(("file", "folder", "prefix", "correct", "wrong"), FILES, ids=lambda v: str(v))
def test_each_code_a_summary_names_belongs_to_its_order(file: str, folder: Path, prefix: str, correct: int,
                                                        wrong: int) -> None:
    shape.check_codes(shape.pair(load_corpus(file), folder), shape.read_json(folder / "records.json"))


@pytest.mark.parametrize(("file", "folder", "prefix", "correct", "wrong"), FILES, ids=lambda v: str(v))
def test_every_item_is_named_except_the_one_an_unmentioned_sku_entry_leaves_out(
        file: str, folder: Path, prefix: str, correct: int, wrong: int) -> None:
    shape.check_items_named(shape.pair(load_corpus(file), folder))


@pytest.mark.parametrize(("file", "folder", "prefix", "correct", "wrong"), FILES, ids=lambda v: str(v))
def test_every_date_a_correct_summary_gives_is_a_day_its_records_give(file: str, folder: Path, prefix: str,
                                                                     correct: int, wrong: int) -> None:
    shape.check_dates(shape.pair(load_corpus(file), folder), shape.read_json(folder / "records.json"))


def test_the_date_reader_and_the_item_namer_can_fail() -> None:
    # The two heuristics above hold the corpus only if they can say no.
    assert shape.calendar_dates("due 21/03, then 4 June and September 24") == [(3, 21), (6, 4), (9, 24)]
    shelf = {"sku": "SHLF-WALL", "name": "Floating wall shelf"}
    assert shape.names("the shelves have not shipped", shelf) and shape.names("SHLF-WALL: unknown", shelf)
    assert not shape.names("the hooks arrived", shelf)
    assert shape.names("2 mice", {"sku": "MSE-VRT", "name": "Vertical mouse"})
    assert not shape.names("the set of pegs", {"sku": "MAT-CORK-4", "name": "Cork placemat, set of 4"})


def _fails(check: Any, *args: Any, **kwargs: Any) -> bool:
    """Whether a shared check says no (raises AssertionError) on this input."""
    try:
        check(*args, **kwargs)
    except AssertionError:
        return True
    return False


def test_the_shared_checks_fail_on_a_broken_copy_of_the_corpus(tmp_path: Path) -> None:
    # The shared checks hold all four corpora only if each can say no: break a copy of a corpus that every shared
    # rule holds (this file's second), one way at a time.
    folder = DATA / "second_dataset"
    copy_path = tmp_path / "claims_wording_second.json"
    copy_path.write_text(json.dumps(load_corpus("claims_wording_second.json")))
    entries: list[dict[str, Any]] = shape.read_json(copy_path)
    data, writable = shape.read_json(folder / "records.json"), shape.dataset_cases(folder)
    paired = shape.with_orders(entries, data, writable)
    wrong_cases = {entry["caseId"] for entry in entries if entry["expected"]}
    good, order = next((entry, order) for entry, order in paired
                       if not entry["expected"] and "ORD-" in entry["summary"] and entry["caseId"] in wrong_cases)
    bad, bad_order = next((entry, order) for entry, order in paired
                          if entry["expected"] and entry["expected"][0]["sku"])
    days = shape.record_days(order, data, shape.clock_of(data))
    correct, wrong = sum(not e["expected"] for e in entries), sum(bool(e["expected"]) for e in entries)
    # unbroken, the copy passes every check below, so what fails is the breakage and not the check
    for check, args in [(shape.check_entry, (good,)), (shape.check_entry, (bad,)), (shape.check_unique, (entries,)),
                        (shape.check_ids, (entries, "wa-2-", False)), (shape.check_counts, (entries, correct, wrong)),
                        (shape.check_every_kind, (entries, 3)), (shape.check_cases, (entries, writable)),
                        (shape.check_finding_skus, (paired,)), (shape.check_codes, (paired, data)),
                        (shape.check_items_named, (paired,)), (shape.check_dates, (paired, data))]:
        assert not _fails(check, *args), check.__name__

    assert _fails(shape.check_entry, {**bad, "note": "good: " + bad["note"]})  # the note disagrees with the label
    assert _fails(shape.check_entry, {**bad, "expected": bad["expected"] * 2})  # two errors in one summary
    assert _fails(shape.check_entry, {**good, "note": "good: ok"})  # a note that says nothing...
    assert not _fails(shape.check_entry, {**good, "note": "good: ok"}, note_says_why=False)  # ...unless not asked
    assert _fails(shape.check_unique, [*entries, {**good, "id": "wa-2-999"}])  # the same summary twice
    assert _fails(shape.check_ids, [{**good, "id": "wb-2-001"}], "wa-2-", three_digits=False)
    assert _fails(shape.check_ids, [{**good, "id": "wa-2-01"}], "wa-2-", three_digits=True)
    assert _fails(shape.check_counts, entries[1:], correct, wrong)
    kind = bad["expected"][0]["kind"]
    assert _fails(shape.check_every_kind, [e for e in entries if kind not in {f["kind"] for f in e["expected"]}], 1)
    assert _fails(shape.check_cases, [e for e in entries if e["caseId"] != good["caseId"]], writable)
    only_wrong_for_one = [e for e in entries if e["caseId"] != good["caseId"] or e["expected"]]  # still every case
    assert not _fails(shape.check_cases, only_wrong_for_one, writable)
    assert _fails(shape.check_cases, only_wrong_for_one, writable, each_has_a_correct_one=True)
    assert _fails(shape.check_finding_skus, [({**bad, "expected": [{"kind": kind, "sku": "NO-SUCH-SKU"}]}, bad_order)])
    assert _fails(shape.check_codes, [({**good, "summary": good["summary"].replace("ORD-", "ORD-9", 1)}, order)], data)
    left_out = [{"kind": "unmentioned_sku", "sku": order["items"][0]["sku"]}]
    assert _fails(shape.check_items_named, [({**good, "expected": left_out}, order)])  # it names what it "leaves out"
    given = {(x.month, x.day) for x in days}
    month, day = next((m, d) for m in range(1, 13) for d in range(1, 29) if (m, d) not in given)
    assert _fails(shape.check_dates, [({**good, "summary": f"{good['summary']} Due {day}/{month:02d}."}, order)], data)
    # the wording_b corpora's stricter code rule: a code-like word of a product name passes here, not there
    hub = {**order, "items": [*order["items"], {"sku": "HUB-7", "name": "USB-C hub"}]}
    usb_c = {**good, "summary": good["summary"] + " The USB-C hub too."}
    assert not _fails(shape.check_codes, [(usb_c, hub)], data)
    assert _fails(shape.check_codes, [(usb_c, hub)], data, names_may_hold_codes=False)
