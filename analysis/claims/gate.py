"""The confidence gate (checker v7): every finding must pass it, else its claim is one the checker could not check.

Precision first (issue 24): a finding is raised only when the records contradict or cannot support the claim *and*
the checker resolved what the claim is about. Each round of rules did well on the prose it was written on and raised
false findings on prose written apart from it, mostly where a rule read the structure of a sentence wrongly (which
item a date or state belongs to, a record quoted, an offer). So the gate asks again, from the sentence and the
records alone and whichever rule raised the finding, whether the claim is simple enough to be sure of:

(a) its subject (gate_subject.py): the item is named where the claim is made, or stood for plainly; and its mood: it
    is no report of what the order's record says, no condition, offer or denied side of a contrast;
(b) its date (gate_dates.py): one day, and either no record of the item or order gives a day near it, or the claim
    says plainly whose date it is;
(c) the item's state: all of its units delivered, or none (with some delivered, only a count said that is more);
(d) certainty: no hedge in the clause of a certainty.

A claim that does not pass becomes an `Unchecked` with the gate's reason: counted and listed apart, never a finding.
The absences (an item never named, missing evidence never acknowledged) and a summary about an order nothing was
gathered for have no clause to resolve and are not gated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from analysis.claims.facts import ItemFacts, OrderFacts
from analysis.claims.gate_dates import date_reason
from analysis.claims.gate_subject import subject_reason
from analysis.claims.names import stated_count
from analysis.claims.reading import Reading
from analysis.claims.text import Span

# The kinds said of an item, whose subject gate (a) holds; a payment is the order's.
_ITEM_KINDS = frozenset({"unsupported_delivery", "contradicted_outstanding", "unsupported_date", "unsupported_delay",
                         "wrong_delay_reason", "unwarranted_certainty"})
_ABSENCES = frozenset({"unmentioned_sku", "unacknowledged_missing_evidence"})


@dataclass(frozen=True)
class Gates:
    """Which gates hold: all, unless a measurement turns one off to see what it costs and what it buys
    (`python -m pytest tests/analysis/test_claims_gates.py -s` prints that; docs/claims.md has the figures)."""

    subject: bool = True  # (a) the item is named where the claim is made, or stood for plainly
    mood: bool = True  # (a) no report of the order's record, condition, offer or denied side of a contrast
    dates: bool = True  # (b) one day; near a day the records give only when the claim says plainly whose
    state: bool = True  # (c) all units delivered or none, unless a count is said
    certainty: bool = True  # (d) no hedge beside a certainty
    consistency: bool = True  # (e) no state finding about an item another sentence gives the state its records show
    # How far (a) and (b) reach; the defaults are the values chosen (docs/claims.md: what the others measured).
    whole: bool = True  # "your order", "everything", "all three" stand for every item
    pronoun: bool = True  # "it", "those two", "the other two" stand for the one group the sentence before names
    complement: bool = True  # "everything except X", "everything else" stand for the items left over
    date_pool: str = "item+order"  # whose records' days a date may not be near: "item", "item+order", "order"
    date_slack: int = 1  # days either way: a clock's offset moves a day
    date_attribution: str = "scope"  # where a date near a record's day must be the only one to be flagged:
    # "scope" (the claim's clauses), "sentence", "none" (never)


ALL = Gates()
NONE = Gates(subject=False, mood=False, dates=False, state=False, certainty=False, consistency=False)


def gate(reading: Reading, facts: OrderFacts, kind: str, sku: str | None, start: int, end: int,
         gates: Gates = ALL) -> str:
    """Why the candidate finding at summary[start:end] cannot be raised ("" when it can): the first gate it fails."""
    if start == end or not facts.gathered or kind in _ABSENCES:
        return ""  # an absence, or nothing gathered: no clause to resolve
    if gates.mood and (reason := _mood(reading, facts, start, end)):
        return reason
    item = next((i for i in facts.items if i.sku == sku), None) if sku else None
    if gates.subject and item and kind in _ITEM_KINDS and len(facts.items) > 1 and (reason := subject_reason(
            reading, facts, item.sku, start, end, whole=gates.whole, pronoun=gates.pronoun,
            complement=gates.complement)):
        return reason
    if gates.dates and kind == "unsupported_date" and (reason := date_reason(
            reading, facts, item.sku if item else None, start, end, pool=gates.date_pool, slack=gates.date_slack,
            attribution=gates.date_attribution)):
        return reason
    if gates.state and item and (reason := _state(reading, item, kind, start, end)):
        return reason
    if gates.certainty and kind == "unwarranted_certainty" and (reason := _hedged(reading, start, end)):
        return reason
    return ""


# --- (a) the mood ------------------------------------------------------------------------------------------

# What the order's own record says ("your order page says ...", "the order shows 'delivered'", "our system lists"):
# a record that can disagree with the carrier's, reported, not a claim the summary makes about the parcel.
_REPORTED = re.compile(
    r"\b(?:order|status|system|page|website|site|app|account|portal|dashboard|records?)\b[^.;:]{0,40}?"
    r"\b(?:says?|said|shows?|showed|showing|shown|reads?|lists?|listed|marked|states?|has it|indicates?)\b[^.;:]*$"
    r"|\baccording to (?:the |your |our )?(?:order|status|system|page|website|site|app|account|records?)\b[^.;:]*$"
    r"|\bstatus\b[^.;:]{0,12}(?:^|\s)['\"‘“][^'\"‘’“”]{0,30}$", re.I)
# "... shows as delivered in our system": the record named after what it says.
_IN_RECORD = re.compile(r"^[^.;:]{0,30}?\b(?:in|on|by)\s+(?:our|the|your)\s+(?:system|records?|order page|website"
                        r"|site|app|account|portal)\b", re.I)
_STATUS_SAID = re.compile(r"\b(?:shows?|showing|shown|listed|marked)\s+(?:as\s+)?['\"‘“]?\s*$", re.I)
_CONDITION = re.compile(r"\b(?:if|unless|in case|should you|whether|as soon as|once)\b", re.I)
_OFFER = re.compile(r"\b(?:we can(?![’']t|not)|we could(?!n[’']t| not)|we['’]d|we would|would you|happy to"
                    r"|offer\w*|arrange\w*|let us know"
                    r"|in touch)\b", re.I)
# "please update your payment method and we'll ship everything right away": what we will do once the customer does
_ASK_THEN_WE = re.compile(r"\bplease\b[^.;:!?]*\band\s+(?:we(?:['’]ll|\s+will|\s+can)\s+[^.;:!?]*)?$", re.I)
_CONTRAST = re.compile(r"\b(?:rather than|instead of)\b[^.;:,]*$", re.I)


def _mood(reading: Reading, facts: OrderFacts, start: int, end: int) -> str:
    """Why the claim is not asserted by the summary itself: the order's record quoted as it is, a condition, an offer
    or the side of a contrast that is denied."""
    spans, first = reading.clause_at(start)
    lo = first
    while lo > 0 and re.match(r"\W*(?:and|or)\b", reading.summary[spans[lo].start:spans[lo].end], re.I):
        lo -= 1  # "we'll arrange a replacement or a refund": the clause an "or" continues
    before = reading.summary[spans[first].start:start]
    text = reading.summary[spans[lo].start:max(spans[first].end, end)]
    status = (facts.order_status or "").replace("_", " ")
    order_said = re.search(rf"\b{re.escape(facts.order_id)}\b[^.;:]{{0,20}}$", before, re.I) if facts.order_id \
        else None
    reported = _REPORTED.search(before) or (_STATUS_SAID.search(before) and (
        order_said or _IN_RECORD.match(reading.summary, end)))
    quoted = reading.summary[start - 1:start] in ("'", '"', "‘", "“") and \
        reading.summary[end:end + 1] in ("'", '"', "’", "”")  # "the 'delivered' status": a record's word, quoted
    if (reported or quoted) and status and re.search(rf"\b{re.escape(status)}", text, re.I):
        # "your order page says ORD-1 was delivered", when it does; a record misquoted is still checked
        return f"the claim reports what the order's record says ('{facts.order_status}')"
    if _CONDITION.search(text):
        return "the claim is a condition"
    sentence = reading.spans[reading.sentence_at(start)]
    if reading.summary[sentence.start:sentence.end].rstrip(" )\"'’”").endswith("?"):
        return "the claim is in a question"  # "could you tell me how you paid?"
    if _OFFER.search(text) or _ASK_THEN_WE.search(reading.summary, sentence.start, start):
        return "the claim is an offer"
    if _CONTRAST.search(before):
        return "the claim is the side of a contrast that is denied"
    return ""


# --- (c) the state -----------------------------------------------------------------------------------------

_ALL_UNITS = re.compile(r"\b(?:both|all|every|each)\b(?:\s+(?:of\s+)?(?:the|your|my))?\s+(?:[\w'’-]+\s+){0,3}$", re.I)


def _state(reading: Reading, item: ItemFacts, kind: str, start: int, end: int) -> str:
    """Why the item's state is not sure enough for a delivery claim: some of its units came and some did not, and the
    claim does not say that more came than did."""
    if kind not in ("unsupported_delivery", "contradicted_outstanding") \
            or not 0 < item.delivered_quantity < item.quantity:
        return ""
    said = _units_said(reading, item, reading.scope(start, end))
    if kind == "unsupported_delivery" and said is not None and said > item.delivered_quantity:
        return ""
    return f"{item.delivered_quantity} of {item.quantity} units of {item.sku} were delivered and the claim does not " \
           "say that more of them came"


def _units_said(reading: Reading, item: ItemFacts, scope: list[Span]) -> int | None:
    """How many units of the item the claim's clauses say: a count ("two of the chairs", "lamps (2 of 3)", "2/4
    bowls"), "both" or "all", or a plural name ("the chairs": every unit); None when only the singular is said."""
    lo = scope[0].start
    said: int | None = None
    for m in reading.mentions:
        if item.sku not in m.skus or not any(s.start <= m.start < s.end for s in scope):
            continue
        count = stated_count(reading.summary, lo, m, item.quantity)
        if count is None and (_ALL_UNITS.search(reading.summary, max(lo, m.start - 40), m.start)
                              or _plural(reading.summary[m.start:m.end], item.name or "")):
            count = item.quantity
        if count is not None:
            said = max(said or 0, count)
    return said


def _plural(said: str, name: str) -> bool:
    """Whether a mention is the plural of a name whose head is singular ("the air pads" for "Air pad, medium")."""
    head = re.split(r"\s*[,(;]", name, maxsplit=1)[0].lower()
    words = said.lower().split()
    return bool(words) and words[-1].endswith("s") and not head.endswith(words[-1]) \
        and not re.fullmatch(r"[A-Z0-9-]+", said)


# --- (d) certainty -----------------------------------------------------------------------------------------

# "seem to have been lost", "appears to have been lost" still tell the customer it is lost; "it seems", "it appears"
# hedge what follows.
_HEDGE = re.compile(r"\b(?:may|might|could|probably|likely|hopefully|perhaps|possibly|i think|i believe"
                    r"|(?:it|that|this)\s+(?:seems|appears|looks)|(?:seems|appears|looks)\s+(?:that|as if|like))\b",
                    re.I)


def _hedged(reading: Reading, start: int, end: int) -> str:
    """A hedge in the clause of a certainty ("it may well arrive soon"): the claim is not stated as certain."""
    spans, first = reading.clause_at(start)
    hedge = _HEDGE.search(reading.summary[spans[first].start:max(spans[first].end, end)])
    return f"the certainty is hedged ('{hedge.group()}')" if hedge else ""
