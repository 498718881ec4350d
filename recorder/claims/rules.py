"""The checks: find claims clause by clause, attribute them to items, and hold them against the facts."""

from __future__ import annotations

import re
from dataclasses import dataclass

from recorder.claims.facts import ItemFacts, OrderFacts
from recorder.claims.finding import SEVERITY, Finding
from recorder.claims.text import (
    VAGUE_TIME,
    DateMention,
    Mention,
    Span,
    clauses,
    date_mentions,
    item_mentions,
    sentences,
    stance,
)

_I = re.I
_APOS = "['’]"

# --- claim cues ------------------------------------------------------------------------------------

DELIVERED = re.compile(
    r"\bdelivered\b|\barrived\b(?!\s+at\s+(?:a|an|the|their|its|our|one)\b)|\bdropped off\b|\bsigned for\b"
    r"|\bleft at (?:your|the) (?:front |back )?(?:door|porch|doorstep|mailbox)\b"
    rf"|\byou(?:{_APOS}ve| have)?\s+(?:already\s+)?received\b", _I)
ARRIVAL = re.compile(
    r"\b(?:arrive|arrives|arriving|reach(?:es)? you|gets? to you|be with you|be there|make it to you"
    r"|follow(?!\s+up)|ships?|be shipped|be dispatched|be sent)\b", _I)
SHIPPED = re.compile(
    r"\b(?:shipped|dispatched|sent out|handed (?:over )?to (?:the )?(?:carrier|courier)"
    r"|left (?:our|the) (?:warehouse|facility)|out of (?:our|the) warehouse"
    r"|picked up by (?:the )?(?:carrier|courier))\b", _I)
TRANSIT = re.compile(r"\b(?:on (?:its|their|the|his|her) way|in transit|en route|out for delivery|with the carrier"
                     r"|on the truck|in the mail)\b", _I)
OUTSTANDING = re.compile(
    r"\b(?:back[- ]?order(?:ed)?|out of stock|outstanding|still (?:pending|coming|to come|processing)"
    r"|yet to (?:arrive|ship|be (?:delivered|shipped|dispatched)))\b", _I)
DELAY = re.compile(
    r"(?:\b(?:reason|cause)\s+(?:for|of|behind)\s+(?:the|this|that|your|any)\s+)?\bdelay(?:s|ed|ing)?\b"
    r"|\brunning (?:a (?:bit|little) )?(?:late|behind)\b"
    rf"|\b(?:is|are|was|were|be|been|arrive|arriving|arrived|came|coming|it{_APOS}s|they{_APOS}re)\s+"
    r"(?:a (?:bit|little|few days|day) )?late\b(?!\s+(?:morning|afternoon|evening|night))"
    r"|\blater than (?:the |your |its |their |it was |originally )?(?:promised|expected|planned|original|scheduled"
    r"|quoted)\b|\bheld up\b|\bbehind schedule\b|\bstuck\b|\bpostponed\b|\boverdue\b|\bpast due\b|\btaking longer\b",
    _I)
LOST = re.compile(r"\b(?:lost|gone missing|went missing|stolen|misplaced)\b", _I)
CERTAINTY = re.compile(
    r"\b(?:definitely|certainly|surely|for sure|guarantee[ds]?|rest assured|without (?:a|any) doubt|absolutely"
    r"|no doubt|(?:i|we) promise|assure you|no matter what)\b|\b100\s?%", _I)
ACKNOWLEDGE = re.compile(
    rf"\b(?:can(?:not|{_APOS}t| not)|(?:could(?:n{_APOS}t| not)|(?:was|were|am|are)?\s*unable to|not able to))\s+"
    r"(?:\w+\s+)?(?:confirm|say|tell|see|find|locate|check|verify|track|retrieve|access|get|load|give)\b"
    rf"|\bunavailable\b|\bnot available\b|\bisn{_APOS}t available\b"
    rf"|\b(?:could(?:n{_APOS}t| not)|can(?:not|{_APOS}t| not)) be (?:found|retrieved|located|confirmed)\b"
    r"|\bnot found\b|\bno (?:\w+ )?(?:record|records|tracking|information|info|updates?|details|data|trace)\b"
    rf"|\bmissing\b|\b(?:don{_APOS}t|do not) have (?:any |an? )?(?:\w+ )?(?:record|information|info|update|details"
    rf"|tracking|data)\b|\b(?:isn{_APOS}t|is not|not) (?:loading|showing|working|responding)\b|\bunknown\b"
    r"|\bunclear\b|\bnot sure\b|\bno way to (?:know|tell|confirm)\b|\blookup failed\b|\bdown right now\b", _I)

_EACH = re.compile(r"\b(?:both|(?<!at )all|everything|every item|each|neither|none|nothing|either)\b", _I)
_WHOLE = re.compile(r"\b(?:your|the|this|whole|entire)\s+(?:whole\s+|entire\s+)?"
                    r"(?:order|package|parcel|shipment|items|purchase)\b", _I)
_REST = re.compile(r"\bthe (?:rest|remainder)\b|\b(?:the\s+)?remaining (?:items?|parts?|products?|pieces?)\b"
                   rf"|\bthe other (?:item|one|product|piece)s?\b|\bwhat(?:{_APOS}s| is) left\b", _I)
_PRONOUN = re.compile(r"\b(?:it|its|they|them|their|theirs|these|those|this one|that one)\b", _I)
_AUX = re.compile(rf"(?:\b(?:has|have|had|was|were|is|are|got|been|be|being|not|never|already|both|all|just|now|yet"
                  rf"|also|still|finally|will|would|should|shall|can|could|may|might|must|\w+n{_APOS}t|\w+{_APOS}ll"
                  rf"|\w+{_APOS}(?:s|re|ve))\s+)+$", _I)

# --- what a date in a clause is presented as --------------------------------------------------------

_PROMISE_CUE = re.compile(r"\b(?:promis\w*|originally|supposed to|meant to|was due|were due|was expected|were expected"
                          r"|quoted|planned|committed|guarantee\w*)\b", _I)
_ESTIMATE_BY_PROMISE = re.compile(
    r"\b(?:arrive|arrives|arriving|deliver|be delivered|reach|get (?:there|to you)|be with you|make it|on track"
    r"|in time)\s+(?:[\w'’-]+\s+){0,2}?(?:by|on|before|for|ahead of)\s+(?:the\s+|your\s+|its\s+|their\s+)?"
    r"(?:original(?:ly)?\s+)?promis", _I)
_RESTOCK_CUE = re.compile(r"\b(?:restock\w*|new stock|back in stock|more stock|replenish\w*|inventory"
                          r"|stock (?:is |should be )?(?:expected|due|arriv\w*))\b", _I)
_ESTIMATE_CUE = re.compile(r"\b(?:estimat\w*|expect\w*|eta|due|scheduled|projected|anticipat\w*|on track"
                           r"|arriv(?:e|es|ing)|deliver(?!ed)\w*|reach\w*|get to you|be with you|should|will"
                           r"|follow|ships?|out for delivery)\b|['’]ll\b", _I)
_OTHER_CUE = re.compile(r"\b(?:updat\w*|scan\w*|event|checked|placed|ordered|charged|declined|failed|paid|as of"
                        r"|record\w*|last|latest)\b", _I)
_BY = re.compile(r"\b(?:by|before|no later than)\s+(?:the\s+)?$", _I)
_NEAR = 6  # a promise or restock cue this many words before a date decides how the date is presented


@dataclass(frozen=True)
class Clause:
    """A clause and the items its claims are about; `whole` means the order as a whole."""

    span: Span
    sentence: Span
    skus: tuple[str, ...]
    whole: bool


class Checker:
    """Checks one summary against one order's facts; `run()` returns the findings."""

    def __init__(self, summary: str, facts: OrderFacts) -> None:
        self.summary = summary
        self.facts = facts
        self.all_skus = tuple(i.sku for i in facts.items)
        self.findings: list[Finding] = []
        self.acknowledged: set[str | None] = set()
        self.mentions: list[Mention] = item_mentions(summary, [(i.sku, i.name) for i in facts.items])

    # --- plumbing ----------------------------------------------------------------------------------

    def _order_sku(self) -> str | None:
        return self.all_skus[0] if len(self.all_skus) == 1 else None

    def _add(self, kind: str, sku: str | None, clause: Clause | None, start: int, end: int, evidence: str) -> None:
        sentence = self.summary[clause.sentence.start:clause.sentence.end] if clause else ""
        if any(f.kind == kind and f.sku == sku and f.sentence == sentence and sentence for f in self.findings):
            return  # one finding per kind, item and sentence is enough to point at it
        self.findings.append(Finding(kind, SEVERITY[kind], sentence, self.summary[start:end], evidence, sku,
                                     start, end))

    def _claim_span(self, clause: Clause, m: re.Match[str]) -> tuple[int, int]:
        """The cue plus the auxiliaries and negation right before it ("has not arrived")."""
        base = clause.span.start
        aux = _AUX.search(self.summary, base, base + m.start())
        start = aux.start() if aux and aux.end() == base + m.start() else base + m.start()
        return start, base + m.end()

    def _notes(self, sku: str | None, *, payment: bool = False) -> str:
        items = self.facts.items if sku is None else (self.facts.item(sku),)
        notes = [n for i in items for n in i.notes]
        if payment and self.facts.payment_note:
            notes.append(self.facts.payment_note)
        return "; ".join(notes)

    def _judge(self, kind: str, clause: Clause, span: tuple[int, int], failing: list[ItemFacts],
               evidence: str | None = None, *, payment: bool = False, order_level: bool = False) -> None:
        """Report `failing` items: one finding each, or one for the order when the claim is about the whole."""
        if order_level:
            if failing:
                self._add(kind, self._order_sku(), clause, *span, evidence or self._notes(None, payment=payment))
            return
        for item in failing:
            self._add(kind, item.sku, clause, *span, evidence or self._notes(item.sku, payment=payment))

    # --- attribution -------------------------------------------------------------------------------

    def _named(self, span: Span) -> list[str]:
        skus: list[str] = []
        for m in self.mentions:
            if span.start <= m.start < span.end:
                skus += [s for s in m.skus if s not in skus]
        return skus

    def _has_cue(self, span: Span) -> bool:
        text = self.summary[span.start:span.end]
        cues = (DELIVERED, ARRIVAL, SHIPPED, TRANSIT, OUTSTANDING, DELAY, LOST, CERTAINTY, ACKNOWLEDGE)
        return any(c.search(text) for c in cues) or bool(date_mentions(self.summary, span.start, span.end))

    def run(self) -> list[Finding]:
        """Every finding for the summary, in order of where it points."""
        previous: tuple[tuple[str, ...], bool] | None = None
        seen: set[str] = set()
        for sentence in sentences(self.summary):
            pending: list[str] = []
            carried = previous  # what a clause with no subject of its own is about
            for index, span in enumerate(clauses(self.summary, sentence)):
                text = self.summary[span.start:span.end]
                named = self._named(span)
                if named and not self._has_cue(span):
                    pending += [s for s in named if s not in pending]  # "the laptop and ..." : subject of what follows
                    seen.update(named)
                    continue
                named = pending + [s for s in named if s not in pending]
                pending = []
                if named:
                    about = (tuple(named), False)
                elif _REST.search(text):
                    rest = tuple(s for s in self.all_skus if s not in seen) \
                        or tuple(i.sku for i in self.facts.items if not i.delivered)
                    about = (rest, False)
                elif _EACH.search(text):
                    about = (self.all_skus, False)
                elif _WHOLE.search(text) or self.facts.order_id.lower() in text.lower():
                    about = (self.all_skus, True)
                elif index == 0 and carried and len(carried[0]) > 1 and not _PRONOUN.search(text):
                    # "Sorry for the delay." after a sentence about two items is about the order, not both items.
                    about = (self.all_skus, True)
                else:
                    about = previous or (self.all_skus, True)  # a pronoun or no subject: the last thing spoken of
                previous = about
                seen.update(named)
                self._check_clause(Clause(span, sentence, *about))
            if pending:
                previous = (tuple(pending), False)
        self._check_absences()
        return sorted(self.findings, key=lambda f: (f.start, f.kind, f.sku or ""))

    # --- the checks --------------------------------------------------------------------------------

    def _check_clause(self, clause: Clause) -> None:
        text = self.summary[clause.span.start:clause.span.end]
        items = [self.facts.item(s) for s in clause.skus]
        whole = clause.whole and len(self.all_skus) > 1
        if ACKNOWLEDGE.search(text):
            self.acknowledged.update(clause.skus)
            self.acknowledged.add(None)
        dated = self._check_dates(clause, items, whole)
        future = bool(dated["estimate"])

        def outstanding(span: tuple[int, int]) -> None:
            failing = [i for i in items if i.delivered]
            self._judge("contradicted_outstanding", clause, span,
                        failing if not whole or len(failing) == len(items) else [], order_level=whole)

        def moving(span: tuple[int, int]) -> None:
            failing = [i for i in items if not i.moving and not i.delivered]
            self._judge("unwarranted_certainty", clause, span,
                        failing if not whole or len(failing) == len(items) else [], order_level=whole)

        for m in DELIVERED.finditer(text):
            how, span = stance(text, m.start()), self._claim_span(clause, m)
            if how in ("negated", "future", "certain_future"):
                outstanding(span)
                future |= how != "negated"
                self._vague_certainty(clause, items, text, m, how, dated["flagged"])
            elif how in ("plain", "reported") and not text[:m.start()].lower().endswith("be "):
                self._judge("unsupported_delivery", clause, span, [i for i in items if not i.delivered])
        for m in ARRIVAL.finditer(text):
            how = stance(text, m.start())
            if how in ("future", "certain_future") or m.group().lower() in ("arriving", "arrives"):
                outstanding(self._claim_span(clause, m))
                future = True
                self._vague_certainty(clause, items, text, m, how, dated["flagged"])
        for m in SHIPPED.finditer(text):
            how, span = stance(text, m.start()), self._claim_span(clause, m)
            if how in ("negated", "future", "certain_future"):
                outstanding(span)
            elif how == "plain" and not text[:m.start()].lower().endswith("be "):
                moving(span)
        for m in TRANSIT.finditer(text):
            if stance(text, m.start()) == "plain":
                span = self._claim_span(clause, m)
                outstanding(span)
                moving(span)
                future = True
        for m in OUTSTANDING.finditer(text):
            if stance(text, m.start()) in ("plain", "reported"):
                outstanding(self._claim_span(clause, m))
        for m in DELAY.finditer(text):
            if stance(text, m.start()) == "plain":
                failing = [i for i in items if not i.delayed]
                self._judge("unsupported_delay", clause, self._claim_span(clause, m),
                            failing if not whole or len(failing) == len(items) else [], payment=True,
                            order_level=whole)
        for m in LOST.finditer(text):
            if stance(text, m.start()) == "plain":
                self._judge("unwarranted_certainty", clause, self._claim_span(clause, m),
                            [i for i in items if not i.lost], order_level=whole)
        for m in CERTAINTY.finditer(text):
            if stance(text, m.start()) in ("plain", "certain_future", "future") \
                    and (future or any(i.missing for i in items)):
                self._judge("unwarranted_certainty", clause, self._claim_span(clause, m),
                            [i for i in items if not i.delivered or i.missing], order_level=whole)

    def _vague_certainty(self, clause: Clause, items: list[ItemFacts], text: str, m: re.Match[str], how: str,
                         flagged: set[str]) -> None:
        """ "Will arrive soon" with no carrier estimate states a timing nobody gave."""
        vague = VAGUE_TIME.search(text, m.end())
        if vague and (how == "certain_future" or m.group().lower() in ("arriving", "arrives")):
            span = (clause.span.start + m.start(), clause.span.start + vague.end())
            self._judge("unwarranted_certainty", clause, span,
                        [i for i in items if not i.delivered and not i.estimates and i.sku not in flagged])

    # --- dates -------------------------------------------------------------------------------------

    def _date_context(self, clause: Clause, lo: int, hi: int) -> tuple[str, int]:
        """How a date at `hi` is presented, judged by the cues between `lo` and it; and where the cue starts."""
        window = self.summary[lo:hi]
        if m := _ESTIMATE_BY_PROMISE.search(window):
            return "estimate", lo + m.start()
        tail_start = len(window) - len(" ".join(window.split()[-_NEAR:])) - 1
        for name, cue in (("promise", _PROMISE_CUE), ("restock", _RESTOCK_CUE)):
            found = [m for m in cue.finditer(window) if m.start() >= tail_start]
            if found:
                return name, lo + found[-1].start()
        text = self.summary[clause.span.start:clause.span.end]
        candidates: list[tuple[int, str, int]] = []
        candidates += [(m.end(), "estimate", m.start()) for m in _ESTIMATE_CUE.finditer(window)]
        candidates += [(m.end(), "other", m.start()) for m in _OTHER_CUE.finditer(window)]
        for m in DELIVERED.finditer(window):
            how = stance(text, lo - clause.span.start + m.start())
            name = "delivered" if how in ("plain", "reported") else "estimate"
            aux = _AUX.search(window, 0, m.start())
            begin = aux.start() if aux and aux.end() == m.start() else m.start()
            candidates.append((m.end(), name, begin))
        if not candidates:
            return "other", hi
        _, name, start = max(candidates, key=lambda c: (c[0], c[1] == "estimate"))
        return name, lo + start

    def _check_dates(self, clause: Clause, items: list[ItemFacts], whole: bool) -> dict[str, set[str]]:
        """Check every date in the clause; return the items with an estimate-style date and those flagged."""
        out: dict[str, set[str]] = {"estimate": set(), "flagged": set()}
        text = self.summary[clause.span.start:clause.span.end]
        lo = clause.span.start
        for d in date_mentions(self.summary, clause.span.start, clause.span.end):
            how = stance(text, d.start - clause.span.start)
            context, cue = self._date_context(clause, lo, d.start)
            lo = d.end
            span = (min(cue, d.start), d.end)
            label = self.summary[d.start:d.end]
            if how in ("hedged", "hypothetical", "counterfactual", "negated"):
                if d.kind == "calendar" and not any(d.matches(k) for k in self.facts.known_days):
                    self._judge("unsupported_date", clause, span, items,
                                f"'{label}' appears nowhere in the order's records", order_level=whole)
                continue
            if context == "estimate":
                out["estimate"].update(i.sku for i in items)
            failing = self._date_failures(d, context, span, items, whole)
            out["flagged"].update(i.sku for i in failing)
            for item in failing if not whole else []:
                self._add("unsupported_date", item.sku, clause, *span, self._date_evidence(label, d, context, item))
            if whole and failing:
                self._add("unsupported_date", self._order_sku(), clause, *span,
                          self._date_evidence(label, d, context, None))
        return out

    def _date_failures(self, d: DateMention, context: str, span: tuple[int, int], items: list[ItemFacts],
                       whole: bool) -> list[ItemFacts]:
        promised = self.facts.promised
        if d.kind in ("relative", "promised"):
            if context != "estimate":
                return []
            if d.kind == "relative":
                ok = [bool(i.estimates) for i in items]
            else:
                ok = [bool(i.estimates) and bool(promised) and max(i.estimates) <= promised for i in items]
        elif context == "promise":
            ok = [bool(promised) and d.matches(promised)] * len(items)
        elif context == "other":
            ok = [any(d.matches(k) for k in self.facts.known_days)] * len(items)
        else:
            by = bool(_BY.search(self.summary, 0, d.start)) if context == "estimate" else False
            pools = {"restock": lambda i: i.restock_days, "delivered": lambda i: i.delivered_days,
                     "estimate": lambda i: i.estimates}
            ok = []
            for item in items:
                days = pools[context](item) if not whole else [x for i in items for x in pools[context](i)]
                ok.append(any(d.matches(x) or (by and _on_or_after(d, x)) for x in days))
        if whole:
            return list(items) if not any(ok) else []
        return [i for i, good in zip(items, ok, strict=True) if not good]

    def _date_evidence(self, label: str, d: DateMention, context: str, item: ItemFacts | None) -> str:
        """Say what the date really is in the records, and what the records say about the item."""
        what = {"estimate": "a carrier estimate", "delivered": "a delivery date", "restock": "a restock date",
                "promise": "the promised date", "other": "a date in the records"}[context]
        whose = f" for {item.sku}" if item else ""
        facts = self.facts
        actually = []
        if facts.promised and (d.kind == "promised" or d.matches(facts.promised)):
            actually.append(f"{facts.order_id}'s promised date ({facts.promised})")
        for other in facts.items:
            for day in other.delivered_days:
                if d.kind == "calendar" and d.matches(day):
                    actually.append(f"the delivery date of {other.sku}")
            for day in other.estimates:
                if d.kind == "calendar" and d.matches(day) and other is not item:
                    actually.append(f"the carrier estimate for {other.sku}")
            for day in other.restock_days:
                if d.kind == "calendar" and d.matches(day):
                    actually.append(f"the restock date for {other.sku}")
        head = f"'{label}' is not {what}{whose}"
        head += f"; it is {', '.join(actually)}" if actually else ""
        return f"{head}. {self._notes(item.sku if item else None)}"

    # --- absences ----------------------------------------------------------------------------------

    def _check_absences(self) -> None:
        mentioned = {s for m in self.mentions for s in m.skus}
        for item in self.facts.items:
            if item.missing and item.sku not in self.acknowledged:
                first = next((m for m in self.mentions if item.sku in m.skus), None)
                clause = None
                if first:
                    sentence = next(s for s in sentences(self.summary) if s.start <= first.start < s.end)
                    clause = Clause(sentence, sentence, (item.sku,), False)
                self._add("unacknowledged_missing_evidence", item.sku, clause, first.start if first else 0,
                          first.end if first else 0,
                          "; ".join(self.facts.missing_notes[r] for r in item.missing) + " — never acknowledged")
            if item.sku not in mentioned:
                self._add("unmentioned_sku", item.sku, None, 0, 0,
                          f"{self.facts.order_id} lists {item.sku}"
                          + (f" ({item.name})" if item.name else "") + f" × {item.quantity}")
        if self.facts.order_missing and None not in self.acknowledged:
            self._add("unacknowledged_missing_evidence", None, None, 0, 0,
                      "; ".join(self.facts.missing_notes[r] for r in self.facts.order_missing)
                      + " — never acknowledged")


def _on_or_after(d: DateMention, iso_day: str) -> bool:
    """Whether "by <d>" is no earlier than the ISO day (a missing year borrows the day's)."""
    y, m, day = (int(x) for x in iso_day.split("-"))
    return any(((cy or y), cm, cd) >= (y, m, day) for cy, cm, cd in d.candidates)
