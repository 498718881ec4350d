"""Claim checks v5, rule by rule: how support prose names items, dates and states, on sentences written for the rule.

Each rule is general (no corpus sentence appears here); each test pairs a reading the rule must accept with one it
must still flag, so that a rule that silences everything fails too.
"""

from __future__ import annotations

from typing import Any

import pytest

from analysis.claims import check_claims
from analysis.claims.names import item_mentions
from analysis.claims.text import date_mentions, sentences
from tests.analysis.claims_scoring import focused_evidence, fourth_records, kinds, third_records

FOURTH = fourth_records()  # clock Thursday 2027-09-16 18:20 at -07:00 (already Friday in UTC)
THIRD = third_records()  # clock Thursday 2027-06-10 08:15 at +10:00
ABSENCES = ("unmentioned_sku", "unacknowledged_missing_evidence")  # what a one-line test summary leaves out


def found(order_id: str, summary: str, records: dict[str, Any] = FOURTH) -> set[tuple[str, str | None]]:
    """(kind, SKU) of the findings, without those about what a short summary leaves out."""
    result = check_claims(summary, focused_evidence(order_id, records), order_id)
    return {k for k in kinds(result.findings) if k[0] not in ABSENCES}


def unchecked(order_id: str, summary: str, records: dict[str, Any] = FOURTH) -> list[str]:
    """The kinds of the claims the checker could not check."""
    return [u.kind for u in check_claims(summary, focused_evidence(order_id, records), order_id).unchecked]


def spans(text: str, found_dates: list[Any]) -> list[str]:
    return [text[d.start:d.end] for d in found_dates]


# --- reading the text --------------------------------------------------------------------------------


def test_a_shortened_month_or_weekday_ends_a_sentence_unless_a_day_or_lower_case_word_follows():
    text = "Chairs due 21 Sep. Table: tracking down. Due Sep. 21 or Wed. afternoon."
    assert [text[s.start:s.end] for s in sentences(text)] == [
        "Chairs due 21 Sep.", "Table: tracking down.", "Due Sep. 21 or Wed. afternoon."]


@pytest.mark.parametrize(("text", "expected"), [
    ("due 20-22 September", [(None, 9, 20), (None, 9, 21), (None, 9, 22)]),
    ("between 20 and 22 Sep", [(None, 9, 20), (None, 9, 21), (None, 9, 22)]),
    ("Sept 20 to 22, 2027", [(2027, 9, 20), (2027, 9, 21), (2027, 9, 22)]),
    ("from 30 September to 1 October", [(None, 9, 30), (None, 10, 1)]),
])
def test_a_range_is_one_mention_of_every_day_in_it(text, expected):
    [mention] = date_mentions(text, 0, len(text))
    assert list(mention.candidates) == expected


def test_no_range_in_times_or_counts():
    text = "between 14:10 and 15:10, in 2-3 working days"
    assert all(m.kind != "calendar" for m in date_mentions(text, 0, len(text)))


@pytest.mark.parametrize("text", ["Wednesday 8 September", "Monday the 13th", "Tue 21st", "21 Sep (Tuesday)",
                                  "17 September, a Friday"])
def test_a_weekday_naming_a_calendar_date_is_that_date_not_a_second_one(text):
    assert [m.kind for m in date_mentions(text, 0, len(text))] == ["calendar"]


def test_shortened_weekdays_are_days_but_lower_case_sat_and_sun_are_words():
    text = "delivered Tue, due Fri; it sat at the depot in the sun"
    assert spans(text, date_mentions(text, 0, len(text))) == ["Tue", "Fri"]


def test_an_ordinal_before_a_noun_counts_things_and_is_no_date():
    text = "the 3rd fire steel on the 13th and the 2nd parcel"
    assert spans(text, date_mentions(text, 0, len(text))) == ["13th"]


# --- items ---------------------------------------------------------------------------------------------


BAGS = [("SB-210-R", "Fjellro down sleeping bag, regular"), ("SB-210-L", "Fjellro down sleeping bag, long")]
LAMPS = [("LAMP-HD", "Headlamp, 300 lumen"), ("LAMP-HD-RC", "Rechargeable headlamp, 450 lumen")]


@pytest.mark.parametrize(("text", "items", "expected"), [
    ("Your regular-length sleeping bag came.", BAGS, ("SB-210-R",)),
    ("- Long sleeping bag: in transit", BAGS, ("SB-210-L",)),
    ("Sleeping bag (regular) delivered", BAGS, ("SB-210-R",)),
    ("the 300-lumen headlamp came", LAMPS, ("LAMP-HD",)),
    ("Headlamp 300 lm: delivered", LAMPS, ("LAMP-HD",)),
    ("the standard headlamp came", LAMPS, ("LAMP-HD",)),
])
def test_a_qualifier_near_a_shared_name_says_which_item(text, items, expected):
    [mention] = [m for m in item_mentions(text, items) if m.skus]
    assert (mention.skus, mention.ambiguous) == (expected, False)


def test_a_shared_name_without_a_qualifier_stays_ambiguous():
    [mention] = item_mentions("The sleeping bag came on Monday.", BAGS)
    assert mention.ambiguous and set(mention.skus) == {"SB-210-R", "SB-210-L"}


def test_a_shared_name_after_one_item_was_named_means_it_and_the_other_means_the_one_not_named():
    text = ("The long sleeping bag is due Friday; the bag left Richmond. The black keyboard is out; the other "
            "keyboard came.")
    items = [*BAGS, ("KB-1", "Tenkeyless keyboard"), ("KB-1-BLK", "Tenkeyless keyboard, black")]
    got = [(text[m.start:m.end], m.skus) for m in item_mentions(text, items)]
    assert got == [("long sleeping bag", ("SB-210-L",)), ("bag", ("SB-210-L",)), ("black keyboard", ("KB-1-BLK",)),
                   ("keyboard", ("KB-1",))]


def test_the_qualifier_one_names_the_item_whose_name_has_that_word():
    text = "both headlamps came: the 300-lumen one on Tuesday and the rechargeable one today"
    got = [(text[m.start:m.end], m.skus) for m in item_mentions(text, LAMPS)]
    assert ("300-lumen one", ("LAMP-HD",)) in got and ("rechargeable one", ("LAMP-HD-RC",)) in got


def test_a_plural_in_ies_is_named_in_the_singular_too():
    items = [("BATT-AA-8", "AA lithium batteries, pack of 8")]
    assert [m.skus for m in item_mentions("the other two battery packs", items)] == [("BATT-AA-8",)]


# --- attribution ---------------------------------------------------------------------------------------


def test_everything_except_a_list_is_every_other_item():
    order = "ORD-3310452"  # jacket and trousers in customs; mittens and beanie delivered
    assert found(order, "Everything except the storm shell jacket and the trousers has arrived.") == set()
    assert found(order, "Everything except the shell jacket has arrived.") == {("unsupported_delivery", "PNT-SHL-W-M")}
    assert found(order, "Everything but the jacket and the trousers has arrived.") == set()


def test_a_sized_pronoun_after_two_groups_of_that_size_is_could_not_check():
    order = "ORD-3310452"
    summary = "The jacket and trousers are in customs, and the mittens and beanie came on 10 September. {} delayed."
    assert found(order, summary.format("Those two are")) == set()
    assert unchecked(order, summary.format("Those two are")) == ["unsupported_delay"]
    # With one group of two, "those two" is that group: checked, and wrong for the delivered pair.
    assert found(order, "The mittens and beanie came on 10 September. Those two were delayed.") == {
        ("unsupported_delay", "GLV-WOOL"), ("unsupported_delay", "HAT-BNE-GRY")}


def test_all_three_stands_for_the_three_items_named_before_it():
    order = "ORD-3310460"
    assert found(order, "The binoculars, the map case and the batteries came, so all three are with you.") == set()
    assert found(order, "The binoculars, the map case and the compass came, so all three are with you.") == {
        ("unsupported_delivery", "CMPS-BASE")}


def test_the_first_two_are_the_first_two_of_the_list_before():
    order = "ORD-3310457"  # backpack and rain cover estimated 21 Sep; bottles and poles have no tracking
    assert found(order, "The backpack, rain cover, bottles and poles are reserved; Purolator expects the first two on "
                        "21 September.") == set()
    assert found(order, "The backpack, rain cover, bottles and poles are reserved; Purolator expects the last two on "
                        "21 September.") == {("unsupported_date", "BTL-INS-1L"), ("unsupported_date", "POLE-TRK-CF")}


def test_a_list_tail_closed_by_a_semicolon_belongs_to_the_claim_before_it():
    order = "ORD-3310459"  # bench and cover delivered Monday 13 (UPS stamps the 14th in UTC)
    summary = "The fire steel came on 13 September with the folding bench and bench cover; the axe {} on 8 September."
    assert found(order, summary.format("came")) == set()
    assert found(order, summary.format("and saw came").replace("axe and saw came on 8", "axe came on 9")) == {
        ("unsupported_date", "AXE-FLL-60")}


def test_a_heading_over_a_list_is_said_of_the_listed_items_and_presents_their_dates():
    order = "ORD-3310460"
    good = ("**Delivered**\n- Binoculars: 15 September\n- Map case: 15 September\n\n**In transit**\n"
            "- Compass: ETA 17 Sep")
    assert found(order, good) == set()
    wrong = good.replace("Map case: 15", "Map case: 14").replace("- Binoculars", "- Compass and binoculars")
    assert found(order, wrong) == {("unsupported_date", "MAP-CASE"), ("unsupported_delivery", "CMPS-BASE"),
                                   ("unsupported_date", "CMPS-BASE")}


# --- dates against the clock ----------------------------------------------------------------------------


def test_carrier_days_are_read_on_the_clocks_offset():
    order = "ORD-3310459"  # UPS: 2027-09-14T04:30Z, Monday 13 September 21:30 at -07:00
    assert found(order, "The folding bench was delivered on Monday 13 September.") == set()
    assert found(order, "The folding bench was delivered on 14 September.") == {("unsupported_date", "BENCH-FOLD")}
    # Canada Post stamps local time: 21:45 on the 15th stays the 15th ("last night" from Thursday).
    assert found("ORD-3310451", "The titanium mugs came last night.") == set()
    assert found("ORD-3310451", "The titanium mugs came on Thursday.") == {("unsupported_date", "MUG-TI-450")}


def test_a_past_day_is_never_an_estimate():
    order = "ORD-3310451"  # the third air pad reached the terminal this morning, estimated tomorrow
    assert found(order, "The third air pad is due tomorrow; it reached the terminal this morning.") == set()
    assert found(order, "The air pads are due this morning.") == set()  # a past day: nothing to hold it against
    assert found(order, "The long sleeping bag is due Saturday.") == {("unsupported_date", "SB-210-L")}


def test_the_day_before_and_the_same_day_are_counted_from_the_date_before():
    order = "ORD-3310451"  # socks 14 Sep, regular bag 13 Sep, mugs 15 Sep
    assert found(order, "The socks came on the 14th, the regular bag the day before.") == set()
    assert found(order, "The socks came on the 14th, the regular bag the day after.") == {
        ("unsupported_date", "SB-210-R")}


def test_a_cue_without_a_date_presents_the_dates_of_the_list_after_it():
    order = "ORD-3310459"  # axe and saw 8 Sep, knife 10 Sep
    assert found(order, "All delivered: the axe and saw on 8 September, the knife on 10 September.") == set()
    assert found(order, "All delivered: the axe, saw and knife on 8 September.") == {("unsupported_date", "KNF-FIX-10")}


def test_several_dates_for_several_items_in_one_clause_are_held_against_the_group():
    order = "ORD-3310455"  # LAMP-HD delivered Tuesday 14, LAMP-HD-RC this morning
    assert found(order, "Both headlamps were delivered (Tue and this morning).") == set()
    # A day neither has: which headlamp it is said of is not said, so it cannot be checked.
    assert found(order, "Both headlamps were delivered (Mon and this morning).") == set()
    assert unchecked(order, "Both headlamps were delivered (Mon and this morning).") == ["unsupported_date"]
    # One date for both is each one's date: wrong for the rechargeable one.
    assert found(order, "Both headlamps were delivered on Tuesday.") == {("unsupported_date", "LAMP-HD-RC")}


def test_a_window_of_days_holds_when_the_estimate_falls_in_it():
    order = "ORD-3310455"  # chairs estimated 2027-09-21 (a Tuesday)
    assert found(order, "The folding chairs should arrive between Monday and Wednesday.") == set()
    assert found(order, "The folding chairs should arrive 20-22 September.") == set()
    assert found(order, "The folding chairs should arrive 17-19 September.") == {("unsupported_date", "CHR-CAMP")}


@pytest.mark.parametrize("summary", [
    "The compass and the GPS are expected tomorrow, one day after the promised date.",
    "UPS now expects the compass and the GPS tomorrow rather than today.",
])
def test_a_date_compared_with_is_not_a_date_given(summary):
    assert found("ORD-3310460", summary) == set()


def test_a_restock_day_after_backordered_until_is_a_restock_day():
    order = "ORD-3310451"  # pegs backordered, restock 2027-09-24
    assert found(order, "The long bag is due tomorrow; the pegs are backordered until the 24th.") == set()
    assert found(order, "The long bag is due tomorrow; the pegs will be delivered on the 24th.") == {
        ("unsupported_date", "PEG-ALU-20")}


# --- states ------------------------------------------------------------------------------------------


def test_an_order_status_reported_as_the_order_record_has_it_is_no_delivery_claim():
    order = "ORD-3310460"  # the order record says delivered; the compass and GPS are still with UPS
    assert found(order, "The compass and GPS are with UPS. The order shows 'delivered' a little early.") == set()
    assert found(order, "The order shows delivered, so the compass and the GPS should be with you by now.") == {
        ("unsupported_delivery", "CMPS-BASE"), ("unsupported_delivery", "GPS-HND-64")}


def test_a_label_created_is_no_parcel_on_its_way():
    order = "ORD-3310457"
    assert found(order, "Purolator has a label for the backpack; it is due 21 September.") == set()
    assert found(order, "The backpack is on its way with Purolator, due 21 September.") == {
        ("unwarranted_certainty", "PACK-FJ40")}


def test_damaged_in_transit_says_where_not_that_the_item_is_coming():
    order = "ORD-77103"  # one lamp delivered, one damaged and returning; the rug delivered
    assert found(order, "The rug came, but the second lamp was damaged in transit.", THIRD) == set()
    assert found(order, "The rug is in transit.", THIRD) == {("contradicted_outstanding", "RUG-JUTE-160")}


def test_a_record_that_runs_behind_is_no_parcel_delay():
    order = "ORD-3310459"  # everything delivered on time; the order page still says shipped
    assert found(order, "The axe was delivered; the order page is running behind the carrier.") == set()
    assert found(order, "The axe was delivered, but the saw is running behind.") == {("unsupported_delay", "SAW-FOLD")}


@pytest.mark.parametrize(("summary", "expected"), [
    ("Your payment is authorised: the amount is on hold on your card, not charged yet.", set()),
    ("Your card was declined.", {("unsupported_payment", None)}),
])
def test_an_authorization_is_held_and_not_taken(summary, expected):
    assert found("ORD-3310455", summary) == expected


@pytest.mark.parametrize("admission", ["Canada Post isn't returning any information for it",
                                       "Canada Post's tracking is down", "the lookup is failing",
                                       "we're still trying to locate it"])
def test_missing_tracking_admitted_in_other_words_is_acknowledged(admission):
    result = check_claims(f"The lantern: {admission}.", focused_evidence("ORD-3310453", FOURTH), "ORD-3310453")
    assert "unacknowledged_missing_evidence" not in {f.kind for f in result.findings}
    silent = check_claims("The lantern is fine.", focused_evidence("ORD-3310453", FOURTH), "ORD-3310453")
    assert ("unacknowledged_missing_evidence", "LTR-CAMP") in kinds(silent.findings)
