"""The checks: find claims clause by clause, attribute them to items, and hold them against the facts."""

from __future__ import annotations

import re
from dataclasses import dataclass

from analysis.claims.cues import (
    ACKNOWLEDGE,
    ARRIVAL,
    AUX,
    BY_DATE,
    CERTAINTY,
    DELAY,
    DELIVERED,
    EACH,
    ESTIMATE_BY_PROMISE,
    ESTIMATE_CUE,
    LOST,
    NEAR_WORDS,
    OTHER_CUE,
    OUTSTANDING,
    PARTIAL,
    PROMISE_CUE,
    PRONOUN,
    REST,
    RESTOCK_CUE,
    SHIPPED,
    STOCK,
    TRANSIT,
    UNTIL,
    WHOLE,
)
from analysis.claims.facts import ItemFacts, OrderFacts
from analysis.claims.finding import SEVERITY, Finding
from analysis.claims.text import (
    VAGUE_TIME,
    DateMention,
    Mention,
    Span,
    clauses,
    date_mentions,
    item_mentions,
    resolve_relative,
    sentences,
    stance,
)


@dataclass(frozen=True)
class Clause:
    """A clause and the items its claims are about; `whole` means the order as a whole."""

    span: Span
    sentence: Span
    skus: tuple[str, ...]
    whole: bool
    partial: bool = False  # "part of your order": true if true of any item


class Checker:
    """Checks one summary against one order's facts; `run()` returns the findings."""

    def __init__(self, summary: str, facts: OrderFacts) -> None:
        self.summary = summary
        self.facts = facts
        self.all_skus = tuple(i.sku for i in facts.items)
        self.findings: list[Finding] = []
        self.date_context = "other"
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
        aux = AUX.search(self.summary, base, base + m.start())
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
            self.date_context = "other"  # "the laptop on Oct 9 and the monitor on Oct 12": the cue is shared
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
                elif REST.search(text):
                    rest = tuple(s for s in self.all_skus if s not in seen) \
                        or tuple(i.sku for i in self.facts.items if not i.delivered)
                    about = (rest, False)
                elif EACH.search(text):
                    about = (self.all_skus, False)
                elif WHOLE.search(text) or self.facts.order_id.lower() in text.lower():
                    about = (self.all_skus, True)
                elif index == 0 and carried and len(carried[0]) > 1 and not PRONOUN.search(text):
                    # "Sorry for the delay." after a sentence about two items is about the order, not both items.
                    about = (self.all_skus, True)
                else:
                    about = previous or (self.all_skus, True)  # a pronoun or no subject: the last thing spoken of
                previous = about
                seen.update(named)
                partial = about[1] and bool(PARTIAL.search(text))
                self._check_clause(Clause(span, sentence, *about, partial=partial))
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
                failing = [i for i in items if not i.delivered]
                if clause.partial and len(failing) < len(items):
                    failing = []
                self._judge("unsupported_delivery", clause, span, failing)
        for m in ARRIVAL.finditer(text):
            how = stance(text, m.start())
            if how == "negated" and UNTIL.match(text, m.end()):
                outstanding(self._claim_span(clause, m))
            elif how in ("future", "certain_future") or m.group().lower() in ("arriving", "arrives"):
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
                span = self._claim_span(clause, m)
                outstanding(span)
                if STOCK.search(m.group()):
                    # A stock claim needs a warehouse record that says so; a missing record says nothing.
                    failing = [i for i in items if not i.delivered and not i.backordered]
                    if whole and any(i.backordered for i in items):
                        failing = []
                    self._judge("unwarranted_certainty", clause, span, failing, order_level=whole)
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
        if m := ESTIMATE_BY_PROMISE.search(window):
            return "estimate", lo + m.start()
        tail_start = len(window) - len(" ".join(window.split()[-NEAR_WORDS:])) - 1
        for name, cue in (("promise", PROMISE_CUE), ("restock", RESTOCK_CUE)):
            found = [m for m in cue.finditer(window) if m.start() >= tail_start]
            if found:
                return name, lo + found[-1].start()
        text = self.summary[clause.span.start:clause.span.end]
        candidates: list[tuple[int, str, int]] = []
        candidates += [(m.end(), "estimate", m.start()) for m in ESTIMATE_CUE.finditer(window)]
        candidates += [(m.end(), "other", m.start()) for m in OTHER_CUE.finditer(window)]
        for m in DELIVERED.finditer(window):
            how = stance(text, lo - clause.span.start + m.start())
            name = "delivered" if how in ("plain", "reported") else "estimate"
            aux = AUX.search(window, 0, m.start())
            begin = aux.start() if aux and aux.end() == m.start() else m.start()
            candidates.append((m.end(), name, begin))
        if not candidates:
            return "none", hi
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
            context = self.date_context if context == "none" else context
            self.date_context = context
            lo = d.end
            label = self.summary[d.start:d.end]
            if d.kind == "relative":
                if how not in ("plain", "reported", "future", "certain_future") or context != "estimate":
                    continue  # "delivered yesterday", "if it ships tomorrow": nothing to hold it against
                day = resolve_relative(label, self.facts.clock)
                if day:
                    d = DateMention(d.start, d.end, "calendar", (day,))
                    label += f" ({day[0]:04d}-{day[1]:02d}-{day[2]:02d}, counted from the last carrier check)"
            span = (min(cue, d.start), d.end)
            if how in ("hedged", "hypothetical", "counterfactual", "negated"):
                if d.kind == "calendar" and not any(d.matches(k) for k in self.facts.known_days):
                    self._judge("unsupported_date", clause, span, items,
                                f"'{label}' appears nowhere in {self.facts.order_id}'s records (promised "
                                f"{self.facts.promised}). {self._notes(None if whole else items[0].sku)}",
                                order_level=whole)
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
                ok = [bool(i.estimates and promised and max(i.estimates) <= promised) for i in items]
        elif context == "promise":
            ok = [bool(promised and d.matches(promised))] * len(items)
        elif context == "other":
            ok = [any(d.matches(k) for k in self.facts.known_days)] * len(items)
        else:
            by = bool(BY_DATE.search(self.summary, 0, d.start)) if context == "estimate" else False
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
