"""Gate (b), the date: a date finding only when the date is one day, and either no record of the item or order gives
a day near it (the date is invented, whoever it is said of), or the claim says plainly whose date it is.

A date near a day the records give (another item's, another role's, a day off on a clock's offset) is the kind a
checker misattributes: in "the noren (due Fri), two tumblers (due Sat)" a rule that reads the list one item off flags
a right date. So such a date is flagged only when the claim's own clauses hold that one date ("The lamp will be
delivered on 14 June") or name its item right after it ("22 March for the kettle").
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from analysis.claims.cues import DELIVERED, FUTURE_MARKER
from analysis.claims.facts import OrderFacts
from analysis.claims.reading import Reading
from analysis.claims.text import DateMention, date_mentions, resolve_past, resolve_relative

_RANGE_START = re.compile(r"\b(?:between|from)\s+(?:on\s+)?(?:the\s+)?(?:[A-Z][a-z]+\s+)?(?:the\s+)?$", re.I)
_RANGE_END = re.compile(r"\b(?:between|from)\b[^.;:]{1,30}\b(?:and|to|until|till)\s+(?:the\s+)?$", re.I)
# "..., the last one this morning": one item of the list before, which the rules do not resolve ("the last two" they
# read as the list's last two items: rules._ordinal_part).
_PART_OF_LIST = re.compile(r"\bthe\s+(?:(?:last|final|first)\s+(?:one|of them)|latter|former)\s+(?:\w+\s+){0,2}$", re.I)
_FOR_ITEM = re.compile(r"\s+for\s+(?:the\s+|your\s+|both\s+)?", re.I)


def date_reason(reading: Reading, facts: OrderFacts, sku: str | None, start: int, end: int, *,
                pool: str = "item+order", slack: int = 1, attribution: str = "scope") -> str:
    """Why the date claimed at summary[start:end] about `sku` (None: the order) is not sure ("" when it is).

    `pool`: whose records' days it may not be near ("item", "item+order", "order": every item's); `slack`: how many
    days either way; `attribution`: where it must be the only date to be flagged though near one ("scope": the
    claim's clauses, "sentence", "none": never)."""
    found = date_mentions(reading.summary, start, end)
    if not found:
        return "no date could be placed in the claim"
    mention = found[-1]
    label = reading.summary[mention.start:mention.end]
    before = max(0, mention.start - 30)
    if (_RANGE_END.search(reading.summary, before, mention.start) and mention.kind != "calendar") \
            or (_RANGE_START.search(reading.summary, before, mention.start)
                and re.match(r"[^.;:]{0,40}?\b(?:and|to|until|till)\s+(?:this|today|tonight|yesterday|last|now)\b",
                             reading.summary[mention.end:])):
        # "between Friday the 16th and this morning": one end of a range read as a date of its own
        return f"'{label}' is one end of a range the checker could not read"
    if _PART_OF_LIST.search(reading.summary, max(0, mention.start - 30), mention.start):
        # "..., the last one this morning": part of the list, which part is not named
        return f"'{label}' is said of part of the items named before it"
    inner = reading.bracket_subject(mention.start)
    if sku and inner is not None:
        # "(one junior stick still due Friday)": the parenthesis names its own subject
        return "" if sku in inner else f"'{label}' is said of {'/'.join(inner)}, not {sku}"
    owner = reading.bracket_owner(mention.start)
    if sku and owner is not None and sku not in owner:
        return f"'{label}' is said of {'/'.join(owner)}, not {sku}"
    if mention.kind == "anaphoric":  # "the day after": counted from the calendar date before it
        earlier = [d for d in date_mentions(reading.summary, 0, mention.start) if d.kind == "calendar"]
        mention = (mention.shifted(earlier[-1]) if earlier else None) or mention
    spans, first = reading.clause_at(start)
    days = _days(mention, facts, label, _tense_context(reading, min(spans[first].start, start), mention.start,
                                                       mention.end))
    if not days:
        timed = [i for i in facts.items if (sku is None or i.sku == sku)
                 and (i.estimates or i.delivered_days or i.restock_days)]
        # "within 3-5 days" for an item no record gives a day: nothing it could be mistaken for
        return f"'{label}' cannot be placed on a day" if timed else ""
    if mention.kind == "calendar" and len({(d.year, d.month) for d in days}) > 1:
        return f"'{label}' is not one day"  # "2/4": the 2nd of April or the 4th of February, or no date at all
    window = timedelta(days=slack)
    near = sorted(p for p in _pool(facts, sku, pool) for day in days if abs(date.fromisoformat(p) - day) <= window)
    if not near:
        return ""  # whichever day it is, no record gives one near it: the date is wrong
    if len(days) > 1:
        return f"'{label}' is not one day, and one it may be is near {near[0]}, a day the records give"
    if _plainly_whose(reading, mention, sku, start, end, attribution):
        return ""
    return f"'{label}' is {'near ' if slack else ''}{near[0]}, a day the records give, and the sentence does not " \
           "say plainly whose date it is"


def _tense_context(reading: Reading, lo: int, at: int, end: int) -> str:
    """The words that say whether a relative day is past or ahead: its clause, or, when that has no verb of either
    ("..., and the footstool on Tuesday too"), the last such verb before it in its sentence, which the clause elides."""
    clause = reading.summary[lo:end]
    if DELIVERED.search(clause) or FUTURE_MARKER.search(clause):
        return clause
    sentence = reading.spans[reading.sentence_at(at)]
    before = reading.summary[sentence.start:at]
    cues = [m for cue in (DELIVERED, FUTURE_MARKER) for m in cue.finditer(before)]
    return max(cues, key=lambda m: m.start()).group() if cues else clause


def _days(mention: DateMention, facts: OrderFacts, label: str, clause: str) -> list[date]:
    """The days a date can be: a year or month left out is one the records give; a weekday is the last one when its
    clause says it happened, the next when it says it will, else either."""
    known = sorted(date.fromisoformat(d) for d in facts.known_days)
    if mention.kind == "promised":
        return [date.fromisoformat(facts.promised)] if facts.promised else []
    if mention.kind == "relative":
        past = [date(*d) for d in resolve_past(label, facts.clock)]
        ahead = resolve_relative(label, facts.clock)
        future = [date(*ahead)] if ahead else []
        if DELIVERED.search(clause) and past:
            return past
        if FUTURE_MARKER.search(clause) and future:
            return future
        return sorted({*past, *future})
    if mention.kind != "calendar":
        return []
    days: set[date] = set()
    for year, month, day in mention.candidates:
        for y, m in {(year, month)} if year and month else {(year or k.year, month or k.month) for k in known}:
            try:
                days.add(date(y, m, day))
            except ValueError:
                continue
    return sorted(days)


def _pool(facts: OrderFacts, sku: str | None, pool: str) -> set[str]:
    """The days the records give, in any role, that a date about `sku` may be confused with."""
    days: set[str] = set()
    for item in facts.items:
        if pool == "order" or sku is None or item.sku == sku:
            days |= item.any_days() | set(item.record_days)
    return days | (set(facts.order_days) if pool != "item" else set())


def _plainly_whose(reading: Reading, mention: DateMention, sku: str | None, start: int, end: int,
                   attribution: str) -> bool:
    """Whether the summary says plainly which item the date is for: "22 March for the kettle", or the claim's clauses
    (or sentence) hold that one date."""
    if attribution == "none":
        return False
    group = reading.bracket_group(mention.start)
    if group is not None:
        return sku in group  # "the trowel, the gloves and the reel cart (all on Tuesday 15 April)"
    ranged = _RANGE_START.search(reading.summary, max(0, mention.start - 30), mention.start)
    if attribution == "scope" and not ranged and (own := reading.own_subject(mention.start, mention.end)) is not None:
        return sku in own  # "The gloves were delivered on Monday 14 April, the first hose ... on Tuesday 15 April"
    named = _FOR_ITEM.match(reading.summary, mention.end)
    owner = next((m for m in reading.mentions if named and m.start == named.end() and not m.ambiguous), None)
    if owner is not None:
        return sku in owner.skus
    if attribution == "sentence":
        lo, hi = reading.spans[reading.sentence_at(start)].start, reading.spans[reading.sentence_at(start)].end
    else:
        scope = reading.scope(start, end)
        lo, hi = scope[0].start, scope[-1].end
    return len(date_mentions(reading.summary, lo, hi)) == 1
