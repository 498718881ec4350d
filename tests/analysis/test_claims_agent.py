"""The agent-voice corpus (issue 24): summaries in the voices of different human support agents, labelled from the
records alone.

One file per dataset, written blind to the claim checker: from the records, the kind definitions in docs/claims.md
and nothing the checker does. Casual, formal, non-native, hedging, one-line, chronological, "only what is missing",
compared with the promise, typos in product names. These tests hold the files to their shape and to the records they
are about; none of them runs the checker (its maintainer adds the files to the scored corpora).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.analysis import corpus_shape as shape
from tests.analysis.claims_scoring import load_corpus
from tests.helpers import ROOT

DATA = ROOT / "tests" / "data"
# (corpus file, dataset folder, id prefix, correct summaries, wrong summaries)
FILES = [
    ("claims_agent_second.json", DATA / "second_dataset", "wd-2-", 22, 18),
    ("claims_agent_fourth.json", DATA / "fourth_dataset", "wd-4-", 22, 18),
    ("claims_agent_fifth.json", DATA / "fifth_dataset", "wd-5-", 23, 18),
    ("claims_agent_sixth.json", DATA / "sixth_dataset", "wd-6-", 22, 18),
    ("claims_agent_seventh.json", DATA / "seventh_dataset", "wd-7-", 23, 18),
]
# The sixth dataset's cases at odd positions of cases.json hold a held-out corpus: this one is about the even ones only.
EVEN_CASES_ONLY = {"sixth_dataset"}


def _even_only(folder: Path) -> bool:
    return folder.name in EVEN_CASES_ONLY


def _all_entries() -> list[dict[str, Any]]:
    return [entry for file, *_ in FILES for entry in load_corpus(file)]


def test_every_entry_has_its_keys_and_a_note_that_matches_its_label() -> None:
    for entry in _all_entries():
        shape.check_entry(entry)


def test_ids_and_summaries_are_unique_across_the_files() -> None:
    shape.check_unique(_all_entries())
    for file, _, prefix, *_ in FILES:
        shape.check_ids(load_corpus(file), prefix, three_digits=False)


@pytest.mark.parametrize(("file", "folder", "prefix", "correct", "wrong"), FILES, ids=lambda v: str(v))
def test_each_file_has_its_counts_and_every_kind_twice(file: str, folder: Path, prefix: str, correct: int,
                                                       wrong: int) -> None:
    entries = load_corpus(file)
    assert len(entries) >= 24
    shape.check_counts(entries, correct, wrong)
    shape.check_share_correct(entries, 0.55, 0.6)  # about 55-60 % correct
    shape.check_every_kind(entries, at_least=2)


@pytest.mark.parametrize(("file", "folder", "prefix", "correct", "wrong"), FILES, ids=lambda v: str(v))
def test_each_entry_is_about_a_full_question_case_and_its_finding_names_an_item_of_the_order(
        file: str, folder: Path, prefix: str, correct: int, wrong: int) -> None:
    shape.check_cases(load_corpus(file), shape.dataset_cases(folder, _even_only(folder)))
    shape.check_finding_skus(shape.pair(load_corpus(file), folder, _even_only(folder)))


@pytest.mark.parametrize(("file", "folder", "prefix", "correct", "wrong"), FILES, ids=lambda v: str(v))
def test_each_code_a_summary_names_belongs_to_its_order(file: str, folder: Path, prefix: str, correct: int,
                                                        wrong: int) -> None:
    records = shape.read_json(folder / "records.json")
    shape.check_codes(shape.pair(load_corpus(file), folder, _even_only(folder)), records)


@pytest.mark.parametrize(("file", "folder", "prefix", "correct", "wrong"), FILES, ids=lambda v: str(v))
def test_every_item_is_named_except_the_one_an_unmentioned_sku_entry_leaves_out(
        file: str, folder: Path, prefix: str, correct: int, wrong: int) -> None:
    shape.check_items_named(shape.pair(load_corpus(file), folder, _even_only(folder)))


@pytest.mark.parametrize(("file", "folder", "prefix", "correct", "wrong"), FILES, ids=lambda v: str(v))
def test_every_date_a_correct_summary_gives_is_a_day_its_records_give(file: str, folder: Path, prefix: str,
                                                                     correct: int, wrong: int) -> None:
    records = shape.read_json(folder / "records.json")
    shape.check_dates(shape.pair(load_corpus(file), folder, _even_only(folder)), records)


def test_the_date_reader_and_the_item_namer_can_fail() -> None:
    # The two heuristics above hold the corpus only if they can say no.
    assert shape.calendar_dates("due 21/03, then 4 June and September 24") == [(3, 21), (6, 4), (9, 24)]
    shelf = {"sku": "SHLF-WALL", "name": "Floating wall shelf"}
    assert shape.names("the shelves have not shipped", shelf) and shape.names("SHLF-WALL: unknown", shelf)
    assert not shape.names("the hooks arrived", shelf)
    assert shape.names("2 mice", {"sku": "MSE-VRT", "name": "Vertical mouse"})
    assert not shape.names("the set of pegs", {"sku": "MAT-CORK-4", "name": "Cork placemat, set of 4"})
