"""Relative days against the dataset's clock, in its own offset (+10:00: the local day runs ahead of UTC's)."""

from __future__ import annotations

import pytest

from analysis.claims.text import resolve_past
from tests.analysis.claims_scoring import check, kinds, third_records

RECORDS = third_records()  # clock 2027-06-10T08:15:00+10:00, a Thursday (in UTC still Wednesday the 9th)
CLAIMS = ("unsupported_date", "unsupported_delivery", "contradicted_outstanding")


def _dates(order_id: str, summary: str) -> set[tuple[str, str | None]]:
    return {k for k in kinds(check(order_id, summary, RECORDS)) if k[0] in CLAIMS}


def test_the_clock_day_is_the_local_one():
    assert RECORDS["clock"] == "2027-06-10T08:15:00+10:00"
    assert resolve_past("yesterday", "2027-06-10") == ((2027, 6, 9),)
    assert resolve_past("last night", "2027-06-10") == ((2027, 6, 9), (2027, 6, 10))
    assert resolve_past("on Monday", "2027-06-10") == ((2027, 6, 7),)
    assert resolve_past("last Friday", "2027-06-10") == ((2027, 6, 4),)
    assert resolve_past("last Wednesday", "2027-06-10") == ((2027, 6, 9), (2027, 6, 2))  # yesterday, or the week before
    assert resolve_past("Thursday", "2027-06-10") == ((2027, 6, 10), (2027, 6, 3))
    assert resolve_past("next week", "2027-06-10") == () and resolve_past("yesterday", None) == ()


@pytest.mark.parametrize(("summary", "expected"), [
    ("Your footstool and cushion covers were delivered yesterday.", set()),
    ("Your candle trio was delivered yesterday.", {("unsupported_date", "CNDL-SOY-3")}),  # on Tuesday the 8th
    ("Your candle trio was delivered on Tuesday.", set()),
    ("Your candle trio was delivered on Wednesday.", {("unsupported_date", "CNDL-SOY-3")}),
    ("Your footstool arrived last night.", set()),
    # "tomorrow" is the 11th locally (the 10th in UTC): the remaining lunch box's estimate.
    ("The last lunch box left the Chullora facility last night and is due tomorrow.", set()),
    ("The last lunch box is due today.", {("unsupported_date", "LNCH-BOX-SS")}),
    ("The merino throw is expected on Monday.", set()),
    ("The merino throw is expected on Friday.", {("unsupported_date", "THRW-MRN")}),
])
def test_relative_days_in_a_split_order(summary, expected):
    assert _dates("ORD-77101", summary) == expected


def test_a_wrong_day_for_one_item_of_a_list_is_that_items():
    summary = "The grinder and the scale were delivered on Monday, and the paper filters were delivered yesterday."
    assert _dates("ORD-77102", summary) == {("unsupported_date", "FLTR-P100")}


def test_a_past_day_for_an_item_never_delivered_is_its_delivery_finding_only():
    assert _dates("ORD-77102", "Your kettle was delivered yesterday.") == {("unsupported_delivery", "KETL-GSE")}
