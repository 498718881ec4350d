"""Claim checks on customer summaries: does each sentence say only what the evidence supports?

A passing structured score does not make a customer-facing sentence true, so `check_summary` reads the
summary itself, attributes each claim to the ordered items it is about, and holds it against the same
evidence `derive()` reads. Everything is derived from that evidence (SKU codes, product names, dates,
record IDs); nothing knows the default dataset. It is deterministic: regular expressions and small
word lists.

How it reads a summary (docs/claims.md has the kinds, the rules in full and the limits):
- Items are found by SKU code, full product name, runs of the name's head-part words, its head noun, or a
  word only that item has when it heads its phrase (names.py); the longest match wins.
- A sentence is split into clauses at commas, conjunctions and strong punctuation (not inside
  parentheses). A claim belongs to the items named in its clause; a clause with neither a verb nor a claim
  hands its items to the next; a clause naming none takes the items after "so"/"which is why", else those
  of the clause or sentence before it. "Both", "all", "everything" mean every item (or those named after
  them), "everything except X" every other item, "the rest"/"everything else" the items not yet named,
  "your order" the whole order.
- A claim is only held against the evidence when it is asserted (text.stance): negation flips or drops it,
  hedges and conditions drop it, a reported status ("the system lists it as delivered") counts unless the
  sentence admits the gap, and "I don't know why it is delayed" still asserts the delay.
- Dates are judged by how they are presented (dates.py), on the clock's own offset (facts.py reads every carrier
  time there). Causes of a delay are held against the item's records (carrier, stock), payment statements against
  the payment record (payment.py). With nothing gathered about the order, every claim is unsupported
  (facts.order_facts gives one stand-in item).
- A heading on a line of its own ("**Delivered**") is said of the items listed under it (sections.py).
- Precision first: a claim whose item or date is not resolved (a shared name, a pronoun that could stand for two
  groups, several dates for several items) is "could not check" (an Unchecked), never a finding; and every finding
  must pass the confidence gate (gate.py), which asks again, from the sentence and the records alone, whether the
  claim is simple enough to be sure of its subject, its date and its item's state.
"""

from __future__ import annotations

from dataclasses import dataclass

from analysis.claims.facts import order_facts
from analysis.claims.finding import KINDS, MEANING, SEVERITY, Finding, Unchecked, findings_to_json, unchecked_to_json
from analysis.claims.gate import ALL, Gates
from analysis.claims.rules import Checker
from core.domain.evidence import Evidence

# 2: wrong_delay_reason, unsupported_payment, nothing gathered, split quantities; 3: the held-out round's fixes;
# 4: precision first: claims about an item or date it could not resolve are "could not check" (claim_unchecked)
# 5: carrier days on the clock's offset, weekday/range/anaphoric dates, headings over lists, qualifiers and "the other"
#    for shared names, sized pronouns and "all three", reported order statuses held against the order record
# 6: structurally more conservative: "unmentioned" only when no word of the name or SKU appears, a role carried from
#    an earlier cue accepts any local day of the item, an untensed weekday is read both ways, a date given to a state
#    the records contradict is could-not-check (its state is the finding), names by head noun, brackets, shared words
# 7: the confidence gate (gate.py): every finding must pass it (its subject plainly named, no quoted record, condition
#    or offer; its date one day, near no record's day unless plainly its own; its item all delivered or none unless a
#    count is said; no hedge beside a certainty), else it is could-not-check
# 8: more shapes read as what they are, worked on the sixth corpus's dev half: admissions worded "isn't coming up",
#    "won't load"; "the same goes for X", "as were X" repeat the claim before for X; a list tail before a contrast
#    belongs to the claim before it; "all but one item", "arrived in pieces" are part of the order; "tomorrow, 22
#    November" is one day; "left at your side entrance" is a delivery; "appears to have been lost" is no hedge
# 9: each step made surer, worked on the garden shop's part of the seventh corpus: an exact head name wins over names
#    that only add words to it ("the rain barrel" beside "Rain barrel diverter kit"), a comma in a full name only where
#    the name has one, a word shared only as a modifier is no plural of both; "not everything has arrived" is said of
#    the order; a record's word in quotes ("the 'delivered' status") is reported, not claimed; "we can't" is no offer;
#    "two of the three rolls of twine" is a count of two; "will definitely be released soon" is a certainty; and,
#    from the varied-wording corpora, "none of the items - ... - were shipped" is denied, "apart from X, everything",
#    "everything else except X", "everything outstanding", a question, "on the 12th and 13th", a range it cannot read;
#    and a consistency step: a state or day finding about an item another sentence gives what its records show is
#    could-not-check (docs/claims.md, "Checker v9")
CHECKER_VERSION = 10

__all__ = ["CHECKER_VERSION", "KINDS", "MEANING", "SEVERITY", "ClaimCheck", "Finding", "Unchecked", "check_claims",
           "check_summary", "findings_to_json", "unchecked_to_json"]


@dataclass(frozen=True)
class ClaimCheck:
    """What the check of one summary gives: its findings, and the claims it could not check."""

    findings: list[Finding]
    unchecked: list[Unchecked]


def check_claims(summary: str, evidence: Evidence, order_id: str, gates: Gates = ALL) -> ClaimCheck:
    """The findings for `summary` about `order_id`, and the claims the checker could not resolve (every gate holds
    unless a measurement turns one off)."""
    checker = Checker(summary, order_facts(evidence, order_id), gates)
    findings = checker.run()
    return ClaimCheck(findings, checker.unchecked_claims())


def check_summary(summary: str, evidence: Evidence, order_id: str) -> list[Finding]:
    """Every claim in `summary` about `order_id` that the evidence does not support (findings only)."""
    return check_claims(summary, evidence, order_id).findings
