"""Claim checks on customer summaries: does each sentence say only what the evidence supports?

A passing structured score does not make a customer-facing sentence true, so `check_summary` reads the
summary itself, attributes each claim to the ordered items it is about, and holds it against the same
evidence `derive()` reads. Everything is derived from that evidence (SKU codes, product names, dates,
record IDs); nothing knows the default dataset. It is deterministic: regular expressions and small
word lists.

How it reads a summary:
- Items are found by SKU code or by the product name or any tail of it ("27-inch monitor", "monitor",
  "monitors"), case-insensitively; the longest match wins, so "laptop bag" is the bag, not the laptop.
- A sentence is split into clauses at commas, conjunctions and strong punctuation. A claim belongs to
  the items named in its clause; a clause that names items but makes no claim ("the laptop and") hands
  them to the next clause; a clause naming none takes the items of the clause before it, or of the
  previous sentence ("it", "they"). A sentence with no item and no pronoun after a sentence about several
  items is about the order as a whole ("Sorry for the delay."). "Both", "all", "neither", "nothing" mean
  every item; "the rest" means the items not yet named; "your order" or the order ID means the whole
  order (a delivery claim then covers every item, unless it says "part of"; a delay or outstanding claim
  is true if it is true of any item).
- A claim is only held against the evidence when it is asserted: negation ("has not arrived", "no
  longer delayed") flips or drops it, hedges ("may", "can't confirm whether") and conditions ("once",
  "if", "until") drop it, and "I don't know why it is delayed" still asserts the delay.
- Dates (ISO, "October 9", "9 Oct", "10/9", "tomorrow", "Friday", "the promised date") are judged by
  how the nearest cue before them presents them: as a promise, a restock date, a delivery date, an
  estimate, or something else; a date with no cue of its own shares the previous date's. An estimate
  must be a carrier estimate for that item ("by" a date later than the estimate is fine); a delivery date
  must be that item's delivery day; any other date must at least appear somewhere in the order's records.
  "Today", "tomorrow" and weekdays are counted from the day the carrier was last checked.

Limits (known; measured on tests/data/claims_corpus.json and claims_heldout.json):
- English only; no parsing. Items named in one clause share its claims ("the laptop arrived instead of
  the monitor" blames the monitor); an elided verb ("and the monitor too") attributes nothing; pronouns
  reach back one clause or one sentence only.
- Product names are matched by their own words and plurals: synonyms ("docking station" for "USB-C
  dock", "headphones" for "USB headset") are not recognised, and a one-word tail that is a common support
  word ("card", "case", "order") is only recognised together with the rest of the name.
- Relative windows other than a named day ("in 3-5 days", "next week") are not resolved: they pass when
  the item has any carrier estimate and are flagged as an invented estimate when it has none.
- Some false statements have no kind and are not reported: a delay denied when there is one, "has not
  shipped" for an item whose records show it left the warehouse. An outstanding item's "has shipped" or
  "on its way" is accepted whenever some record shows it left the warehouse (a fulfilled reservation or a
  shipped order), even when its tracking is unavailable.
- Findings about an absence (an unmentioned item; unacknowledged missing evidence when no sentence names
  the item) carry an empty sentence and claim with start == end == 0; otherwise unacknowledged missing
  evidence points at the item's first mention.
"""

from __future__ import annotations

from analysis.claims.facts import order_facts
from analysis.claims.finding import KINDS, SEVERITY, Finding, findings_to_json
from analysis.claims.rules import Checker
from recorder.evidence import Evidence

CHECKER_VERSION = 1

__all__ = ["CHECKER_VERSION", "KINDS", "SEVERITY", "Finding", "check_summary", "findings_to_json"]


def check_summary(summary: str, evidence: Evidence, order_id: str) -> list[Finding]:
    """Every claim in `summary` about `order_id` that the evidence does not support."""
    return Checker(summary, order_facts(evidence, order_id)).run()
