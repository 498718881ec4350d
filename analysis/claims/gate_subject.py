"""Gate (a), the subject: a finding about an item only when the claim is plainly about that item.

The item must be named where the claim is made (its clause, the list leading into it or following its colon, the list
under its heading, the item just before its parenthesis), or be stood for plainly: by the whole order ("your order",
"everything", "all three"), by what an "except" or "else" leaves over, by the items a "so" clause names, or, when the
clause has no subject of its own, by the group named just before it (a pronoun: the one group the sentence before
names). Anything else (an unresolved name, a word the checker does not know heading the clause, two groups a pronoun
could stand for) is could-not-check.
"""

from __future__ import annotations

import re

from analysis.claims.cues import CONSEQUENCE, EACH, EXCEPT, EXCEPT_OPENS, PARTIAL, PRONOUN, REST, WHOLE
from analysis.claims.facts import OrderFacts
from analysis.claims.reading import Reading
from analysis.claims.text import Span


def _words(text: str) -> frozenset[str]:
    """A set of words written as one string."""
    return frozenset(text.split())


# "the other two", "the remaining one", "the third", "the latter": a part of a group named before, like a pronoun.
_ANAPHOR = re.compile(r"\b(?:the|your|those|these)\s+(?:other|remaining|last|first|second|third|former|latter)\b", re.I)
# Words a clause may open with and still take its subject from the clause before ("but should still arrive", "which
# is why it hasn't arrived", "the courier is running late"): any other word heading the clause may be a name the
# checker did not resolve ("noren (due Fri)"), so the claim is not carried over to another item.
_CARRIED = _words("""
a an the and but so or nor yet then also too still now already just only even again later soon which that
who whom whose what where when while because since as though although unless until if once however meanwhile
sadly unfortunately luckily fortunately i'm afraid apologies sorry good news is are was were be been being
am has have had having will would shall should can could may might must do does did done get gets got
getting not never no n't don't doesn't didn't isn't aren't wasn't weren't hasn't haven't hadn't won't
wouldn't can't cannot couldn't shouldn't it its it's they them their they're those these this both all each
either neither one ones we our us i me my you your yours he she his her there here courier carrier driver
shipment parcel parcels package packages delivery order stock warehouse supplier tracking item items rest
remainder other others remaining
""")
_DETERMINERS = _words("the a an your our my this that these those its their both all each")
_COUNTING = _words("one two three four five six first second third fourth last other remaining final")
_SUBJECT_PRONOUNS = _words("it it's its they they're them those these we i you he she there this that")


def subject_reason(reading: Reading, facts: OrderFacts, sku: str, start: int, end: int, *, whole: bool = True,
                   pronoun: bool = True, complement: bool = True) -> str:
    """Why the claim at summary[start:end] is not plainly about `sku` ("" when it is). `whole`, `pronoun` and
    `complement` let the whole order, a pronoun, and what an "except"/"else" leaves over stand for the item."""
    said = reading.summary[start:end].strip()
    unsure = f"'{said}': {sku} is not named as what the claim is about"
    index = reading.sentence_at(start)
    if index in reading.sections and any(  # "**Delivered**" over a list: the items listed under it
            sku in reading.named(reading.spans[i].start, reading.spans[i].end) for i in reading.sections[index]):
        return ""
    row = _table_row(reading, start)
    if row is not None:  # "| Hockey helmet (HM-7700) | Delivered 2029-11-18 |": the row's first cell names it
        return "" if sku in row else f"'{said}' is said of {'/'.join(row) or 'no item'} in its table row, not {sku}"
    owner = reading.bracket_owner(start)
    if owner is not None:  # "noren (due Fri), tumblers (due Sat)": a parenthesis is about the item before it
        return "" if sku in owner else f"'{said}' is said of {'/'.join(owner)}, not {sku}"
    scope = reading.scope(start, end)
    sentence = reading.spans[index]
    claim = reading.summary[scope[0].start:scope[-1].end]
    if EXCEPT.search(claim) or EXCEPT_OPENS.match(claim):
        if _excepted(reading, sku, scope, start):
            return f"'{said}': {sku} is what the claim leaves out"
        if complement and sku not in reading.named(sentence.start, sentence.end):
            return ""  # "everything except the kettle has arrived": every item the sentence does not name
    if any(sku in reading.named(s.start, s.end) for s in scope):
        return unsure if _after_pronoun(reading, sku, scope, start) else ""
    if any(reading.named(s.start, s.end, ambiguous=True) for s in scope):
        return unsure  # the clause names other items, or a name it could not resolve
    if complement and REST.search(claim) and sku not in reading.named(0, start):
        return ""  # "everything else was delivered": every item not named before
    if whole and not EXCEPT.search(claim) and not REST.search(claim) and not PARTIAL.search(claim) and (
            WHOLE.search(claim) or EACH.search(claim) or facts.order_id.lower() in claim.lower()):
        return ""  # "your order has arrived", "all three are with you": the whole order is named
    consequence = _consequence(reading, index, scope)
    if consequence:
        return "" if sku in consequence else unsure
    if _own_subject(reading, facts, scope[0].start, start):
        return f"'{said}': its clause is headed by a word that names no item of the order"
    across = pronoun and bool(PRONOUN.search(claim) or _ANAPHOR.search(claim))
    return "" if sku in _referent(reading, index, scope, across=across) else unsure


def _table_row(reading: Reading, at: int) -> list[str] | None:
    """The items the first cell of a markdown table row names, when offset `at` is in a later cell of that row; None
    when `at` is in no table row (or in its first cell)."""
    text = reading.summary
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    line = text[start:len(text) if end < 0 else end]
    if not re.match(r"\s*\|", line) or line.count("|") < 3:
        return None
    first = text.find("|", text.find("|", start) + 1)
    if at < first:
        return None
    return reading.named(start, first)


def _excepted(reading: Reading, sku: str, scope: list[Span], start: int) -> bool:
    """Whether the item is named before the claim only in the list an "except" leaves out ("everything but the
    kettle arrived")."""
    exception = EXCEPT.search(reading.summary, scope[0].start, start)
    opens = EXCEPT_OPENS.match(reading.summary[scope[0].start:start])  # "apart from the kettle, everything ..."
    if exception is None and opens is None:
        return False
    at = exception.start() if exception else scope[0].start
    said = [m for m in reading.mentions if sku in m.skus and scope[0].start <= m.start < start]
    return bool(said) and all(m.start > at for m in said)


def _after_pronoun(reading: Reading, sku: str, scope: list[Span], start: int) -> bool:
    """ "it hasn't arrived with the grinder": a pronoun is the subject, the item named after the claim is not."""
    lo = scope[0].start
    before = [m for m in reading.mentions if sku in m.skus and lo <= m.start < start]
    return not before and bool(PRONOUN.search(reading.summary, lo, start))


def _consequence(reading: Reading, index: int, scope: list[Span]) -> list[str]:
    """The items a "so" clause right after the claim names, with the list leading into its verb: "the courier has
    been delayed, so your espresso machine, tamper and milk jugs haven't arrived"."""
    spans = reading.clauses_of(index)
    after = spans.index(scope[-1]) + 1
    if after >= len(spans) or not CONSEQUENCE.search(reading.summary[spans[after].start:spans[after].end]):
        return []
    k = after
    while reading.listed(spans[k]) and k + 1 < len(spans):
        k += 1
    return reading.named(spans[after].start, spans[k].end)


def _own_subject(reading: Reading, facts: OrderFacts, lo: int, start: int) -> bool:
    """Whether the clause is headed by a word that may name something the checker did not resolve ("noren (due
    Fri)", "the noren arrives"): not a function word, a pronoun, a carrier's name, a count or a word of the trade."""
    carriers = {w.lower() for c in facts.carriers for w in re.findall(r"[\w'’]+", c)}
    words = [w.lower().replace("’", "'") for w in re.findall(r"[A-Za-z][\w'’-]*", reading.summary[lo:start])]
    while words and words[0] in _CARRIED - _DETERMINERS:
        if words[0] in _SUBJECT_PRONOUNS:
            return False  # "it went out of stock", "we expect it ...": the pronoun is the subject
        words = words[1:]  # "and", "but so", "unfortunately"
    if words and words[0] in _DETERMINERS:
        words = words[1:]
        while words and words[0] in _COUNTING:
            words = words[1:]
        if not words or words[0] in _CARRIED or words[0] in carriers:
            return False
    return bool(words) and words[0] not in _CARRIED | _COUNTING | carriers


def _referent(reading: Reading, index: int, scope: list[Span], *, across: bool) -> list[str]:
    """What a claim with no item of its own is about: the group the nearest clause before it in its sentence names
    or, for a pronoun (`across`), the one group the sentence before names (two there: either could be meant)."""
    spans = reading.clauses_of(index)
    groups = _groups(reading, spans[:spans.index(scope[0])])
    if groups:
        return groups[-1]
    if not across or index == 0:
        return []
    groups = _groups(reading, reading.clauses_of(index - 1))
    return groups[0] if len(groups) == 1 else []


def _groups(reading: Reading, spans: list[Span]) -> list[list[str]]:
    """The groups of items the clauses name, each a claim's subject with the list leading into it."""
    groups: list[list[str]] = []
    current: list[str] = []
    for span in spans:
        current += [s for s in reading.named(span.start, span.end) if s not in current]
        if current and not reading.listed(span):
            groups.append(current)
            current = []
    return [*groups, current] if current else groups
