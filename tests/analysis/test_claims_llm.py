"""The LLM-style corpus (issue 24): summaries in the styles language models write, labelled from the records alone.

Five files, one per dataset (default, third, fifth, sixth, seventh), written blind to the claim checker: from the
records, the kind definitions in docs/claims.md and nothing the checker does. Their summaries read as assistant
replies do (markdown headings and tables, bold item names, lists without verbs, ISO dates, hedges, openers and
closers). For the sixth dataset only the cases at even positions of cases.json are used (the others belong to a
held-out half). These tests hold the files to their shape and to the records they are about; none of them runs the
checker (its maintainer adds the files to the scored corpora).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from core.domain.dataset import DEFAULT_DATASET_DIR
from tests.analysis import corpus_shape as shape
from tests.analysis.claims_scoring import load_corpus
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


def _all_entries() -> list[dict[str, Any]]:
    return [entry for file, *_ in FILES for entry in load_corpus(file)]


def test_every_entry_has_its_keys_and_a_note_that_matches_its_label() -> None:
    for entry in _all_entries():
        shape.check_entry(entry)


def test_ids_and_summaries_are_unique_across_the_five_files() -> None:
    entries = _all_entries()
    assert len(entries) >= 120
    shape.check_unique(entries)
    for file, _, prefix, *_ in FILES:
        shape.check_ids(load_corpus(file), prefix, three_digits=True)


@pytest.mark.parametrize(PARAMS, FILES, ids=lambda v: str(v))
def test_each_file_has_its_counts_and_every_kind_twice(file: str, folder: Path, prefix: str, correct: int, wrong: int,
                                                       even_only: bool) -> None:
    entries = load_corpus(file)
    assert len(entries) >= 24
    shape.check_counts(entries, correct, wrong)
    shape.check_share_correct(entries, 0.55, 0.60)  # about 55-60 % correct
    shape.check_every_kind(entries, at_least=2)


@pytest.mark.parametrize(PARAMS, FILES, ids=lambda v: str(v))
def test_each_entry_is_about_a_usable_case_and_its_finding_names_an_item_of_the_order(
        file: str, folder: Path, prefix: str, correct: int, wrong: int, even_only: bool) -> None:
    shape.check_cases(load_corpus(file), shape.dataset_cases(folder, even_only))  # every usable case, and no other
    shape.check_finding_skus(shape.pair(load_corpus(file), folder))


@pytest.mark.parametrize(PARAMS, FILES, ids=lambda v: str(v))
def test_each_code_a_summary_names_belongs_to_its_order(file: str, folder: Path, prefix: str, correct: int,
                                                        wrong: int, even_only: bool) -> None:
    shape.check_codes(shape.pair(load_corpus(file), folder), shape.read_json(folder / "records.json"))


@pytest.mark.parametrize(PARAMS, FILES, ids=lambda v: str(v))
def test_every_item_is_named_except_the_one_an_unmentioned_sku_entry_leaves_out(
        file: str, folder: Path, prefix: str, correct: int, wrong: int, even_only: bool) -> None:
    # KNF-GYT210 and KNF-GYT210-D share orders here: a SKU names its item only whole
    shape.check_items_named(shape.pair(load_corpus(file), folder), whole_sku=True)


@pytest.mark.parametrize(PARAMS, FILES, ids=lambda v: str(v))
def test_every_date_a_correct_summary_gives_is_a_day_its_records_give(file: str, folder: Path, prefix: str,
                                                                     correct: int, wrong: int, even_only: bool) -> None:
    # assistant replies give ISO dates and "as of today", so both are read here
    records = shape.read_json(folder / "records.json")
    shape.check_dates(shape.pair(load_corpus(file), folder), records, today_counts=True, iso=True)


def test_a_wrong_entry_differs_from_a_correct_one_of_its_case_or_stands_alone() -> None:
    # Most wrong entries are a correct entry with one claim changed: they must not be the same text.
    for file, *_ in FILES:
        entries = load_corpus(file)
        good = {e["summary"] for e in entries if not e["expected"]}
        assert not any(e["summary"] in good for e in entries if e["expected"]), file


def test_the_readers_and_the_item_namer_can_fail() -> None:
    # The heuristics above hold the corpus only if they can say no.
    assert shape.calendar_dates("due 21/03, then 4 June and September 24") == [(3, 21), (6, 4), (9, 24)]
    assert shape.iso_dates("ETA 2029-11-22, not 11-23") == [date(2029, 11, 22)]
    shelf = {"sku": "SHLF-WALL", "name": "Floating wall shelf"}
    assert shape.names("the shelves have not shipped", shelf, whole_sku=True)
    assert shape.names("SHLF-WALL: unknown", shelf, whole_sku=True)
    assert not shape.names("the hooks arrived", shelf, whole_sku=True)
    gyuto = {"sku": "KNF-GYT210", "name": "Gyuto"}
    assert not shape.names("KNF-GYT210-D: in transit", gyuto, whole_sku=True)
    assert shape.names("KNF-GYT210: delivered", gyuto, whole_sku=True)
    assert shape.names("2 mice", {"sku": "MSE-VRT", "name": "Vertical mouse"}, whole_sku=True)
    assert not shape.names("the set of pegs", {"sku": "MAT-CORK-4", "name": "Cork placemat, set of 4"}, whole_sku=True)
    sixth = DATA / "sixth_dataset"
    assert shape.dataset_cases(sixth, even_only=True).keys() < shape.dataset_cases(sixth).keys()
