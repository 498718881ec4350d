"""The checks: find claims clause by clause, attribute them to items, and hold them against the facts."""

from __future__ import annotations

import re

from analysis.claims.clause import Clause
from analysis.claims.cues import (
    ACKNOWLEDGE,
    ARRIVAL,
    AUX,
    CERTAINTY,
    CIRCUMSTANCE,
    CONSEQUENCE,
    CONTRAST_OPENS,
    DELAY,
    DELIVERED,
    DELIVERED_BY_NOW,
    DENIED_SUBJECT,
    EACH,
    EXCEPT,
    EXCEPT_OPENS,
    FINITE_VERB,
    GAP_ADMITTED,
    LOST,
    NOT_ALL,
    ONE_OF_THEM,
    ORDER_RECORD_SAYS,
    ORDINAL_PART,
    OUTSTANDING,
    OUTSTANDING_SET,
    OWN_VERB,
    PARTIAL,
    PAYMENT_SUBJECT,
    PRONOUN,
    PRONOUN_SIZE,
    RECORD_LAGS,
    REST,
    SAME_AS,
    SHIPPED,
    STOCK,
    STOCK_CAUSE,
    TRANSIT,
    UNTIL,
    WHOLE,
    carrier_cause,
)
from analysis.claims.dates import DateChecks
from analysis.claims.facts import ItemFacts, OrderFacts
from analysis.claims.finding import SEVERITY, Finding, Unchecked
from analysis.claims.gate import ALL, Gates, gate
from analysis.claims.names import Mention, item_mentions, plausibly_named, stated_count
from analysis.claims.payment import payment_claims, supported
from analysis.claims.reading import Reading
from analysis.claims.sections import section_headings
from analysis.claims.text import VAGUE_TIME, DateMention, Span, clauses, date_mentions, sentences, stance


class Checker(DateChecks):
    """Checks one summary against one order's facts; `run()` returns the findings."""

    def __init__(self, summary: str, facts: OrderFacts, gates: Gates = ALL) -> None:
        self.summary = summary
        self.gates = gates
        self.facts = facts
        self.all_skus = tuple(i.sku for i in facts.items)
        self.findings: list[Finding] = []
        self.unchecked: list[Unchecked] = []
        self.date_context = "other"
        self.last_date: DateMention | None = None
        self.acknowledged: set[str | None] = set()
        # States the summary gives an item, resolved and as its records have them: (state, SKU) -> the sentences saying
        # so. A finding that the summary says the opposite of one elsewhere is a reading to doubt (_said_otherwise).
        self.said_right: dict[tuple[str, str], set[int]] = {}
        self.date_roles: dict[tuple[str, int, int], str] = {}
        self.mentions: list[Mention] = item_mentions(summary, [(i.sku, i.name) for i in facts.items if i.sku],
                                                     facts.carrier_text)
        self.carrier_cause = carrier_cause(facts.carriers)
        self.reading = Reading(summary, self.mentions)

    # --- plumbing ----------------------------------------------------------------------------------

    def _order_sku(self) -> str | None:
        return self.all_skus[0] if len(self.all_skus) == 1 else None

    def unchecked_claims(self) -> list[Unchecked]:
        """The claims that could not be checked, in order of where they are, each once."""
        return sorted(dict.fromkeys(self.unchecked), key=lambda u: (u.start, u.kind))

    def _add(self, kind: str, sku: str | None, clause: Clause | None, start: int, end: int, evidence: str) -> None:
        sentence = self.summary[clause.sentence.start:clause.sentence.end] if clause else ""
        if clause is not None and clause.unsure and kind != "unsupported_payment":  # a payment is the order's
            # Precision first: a claim about an item it did not resolve is "could not check", never a finding.
            self.unchecked.append(Unchecked(kind, sentence, self.summary[start:end], clause.unsure, start, end))
            return
        if clause is not None and (reason := gate(self.reading, self.facts, kind, sku, start, end, self.gates)):
            # The confidence gate (gate.py): what the claim is about is not sure enough for a finding.
            self.unchecked.append(Unchecked(kind, sentence, self.summary[start:end], reason, start, end))
            return
        sku = sku or None  # the stand-in item of an order nothing was gathered about names no SKU
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

    def _unsure(self, start: int, end: int) -> str:
        """Why the items named in text[start:end] are unclear: a name several items share, unresolved."""
        for m in self.mentions:
            if start <= m.start < end and m.ambiguous:
                return f"'{self.summary[m.start:m.end]}' could be {' or '.join(m.skus)}"
        return ""

    def _subject_unclear(self, span: Span) -> str:
        """A pronoun makes the claim before any item is named: "it hasn't arrived with the grinder"."""
        first = next((m.start for m in self.mentions if span.start <= m.start < span.end), span.end)
        before = Span(span.start, first)
        head = self.summary[span.start:first]
        if PRONOUN.search(head) and self._has_cue(before):
            return "the claim is about a pronoun; the items are named only after it"
        return ""

    def _named(self, span: Span) -> list[str]:
        skus: list[str] = []
        for m in self.mentions:
            if span.start <= m.start < span.end:
                skus += [s for s in m.skus if s not in skus]
        return skus

    def _counts(self, span: Span) -> dict[str, int]:
        """Units stated for the items named in the span ("two of the four chairs" -> 2)."""
        counts: dict[str, int] = {}
        for m in self.mentions:
            if span.start <= m.start < span.end:
                for sku in m.skus:
                    if n := stated_count(self.summary, span.start, m, self.facts.item(sku).quantity):
                        counts[sku] = n
        return counts

    def named_in(self, clause: Clause) -> bool:
        """Whether the clause names an item itself (not only through a pronoun or the clause before)."""
        return any(clause.span.start <= m.start < clause.span.end for m in self.mentions)

    def _has_verb(self, span: Span) -> bool:
        """Whether the clause has a verb of its own outside the item names ("the straps and bug net never left";
        not "the boiled wool mittens and", whose "boiled" is part of a name)."""
        text = list(self.summary[span.start:span.end])
        for m in self.mentions:
            for i in range(max(m.start, span.start), min(m.end, span.end)):
                text[i - span.start] = " "
        return bool(OWN_VERB.search("".join(text)))

    def _has_cue(self, span: Span) -> bool:
        text = self.summary[span.start:span.end]
        cues = (DELIVERED, ARRIVAL, SHIPPED, TRANSIT, OUTSTANDING, DELAY, LOST, CERTAINTY, ACKNOWLEDGE)
        return any(c.search(text) for c in cues) or bool(date_mentions(self.summary, span.start, span.end))

    def _named_after(self, spans: list[Span], index: int, *, consequence: bool) -> list[str]:
        """Items named later in the sentence ("both items: the kettle ..."), or by the "so" clause that follows.

        A consequence names its items in its own clause or in the name-only clauses that lead into its claim
        ("so your espresso machine, tamper and milk jugs haven't been delivered"); a pronoun names none.
        """
        later = spans[index + 1:]
        if not consequence:
            return [s for span in later for s in self._named(span)]
        if not later or not CONSEQUENCE.search(self.summary[later[0].start:later[0].end]):
            return []
        named: list[str] = []
        for span in later:
            named += self._named(span)
            if not named or self._has_cue(span) or FINITE_VERB.search(self.summary[span.start:span.end]):
                break
        return named

    def _referent(self, text: str, groups: list[tuple[str, ...]], last: tuple[tuple[str, ...], bool],
                  unsure: str) -> tuple[tuple[tuple[str, ...], bool], str]:
        """What a pronoun opening a sentence stands for when the sentence before named several groups of items.

        "Those two", "both of them", "it": the groups of that size (one item for "it"); the last group when it is
        the only one that fits, else nothing resolved ("the mittens and the beanie came ... Those two are stuck"
        could be either pair): its claims cannot be checked.
        """
        size = PRONOUN_SIZE.match(text)
        if size is None:
            return last, unsure
        wanted = {"it": 1, "its": 1, "this one": 1, "that one": 1, "both": 2, "two": 2, "three": 3, "four": 4}
        key = next((w for w in wanted if re.search(rf"\b{w}\b", size.group(), re.I)), "")
        fitting = [g for g in groups if len(g) == wanted[key]] if key else []
        if len(fitting) == 1:
            return (fitting[0], False), unsure
        if key and len(fitting) > 1:
            return last, unsure or f"'{size.group().strip()}' could stand for " + " or ".join(
                "/".join(g) for g in fitting)
        return last, unsure

    def run(self) -> list[Finding]:
        """Every finding for the summary, in order of where it points."""
        previous: tuple[tuple[str, ...], bool] | None = None
        previous_unsure = ""
        listed_line = False  # the sentence before was only a list of names ("**Grinder** (SKU), **Scale** (SKU)")
        seen: set[str] = set()
        groups: list[tuple[str, ...]] = []  # the item groups the last sentence's clauses named, for a pronoun
        every = sentences(self.summary)
        headings = section_headings(self.summary, every, self.mentions)
        heading_context = {member: n for n, members in headings.items() for member in members}
        contexts: dict[int, str] = {}  # how a heading presents the dates listed under it ("**Delivered**")
        for number, sentence in enumerate(every):
            if number in headings:
                # "**Delivered**" over a list: said of the items the list names, not of the order.
                items = tuple(dict.fromkeys(s for i in headings[number] for s in self._named(every[i])))
                self.date_context = "other"
                contexts[number], _ = self._date_context(Clause(sentence, sentence, items, False), sentence.start,
                                                         sentence.end)
                counts = {k: v for i in headings[number] for k, v in self._counts(every[i]).items()}
                if items:
                    self._check_clause(Clause(sentence, sentence, items, False, counts=counts))
                continue
            last: Clause | None = None
            pending: list[str] = []
            excepted: list[str] = []  # "everything except the jacket and the trousers has arrived"
            sentence_groups: list[tuple[str, ...]] = []
            pending_unsure = ""
            pending_denied = False  # "None of the items - the kettle, ...": the list's claim is denied
            pending_counts: dict[str, int] = {}
            # "the laptop on Oct 9 and the monitor on Oct 12": the cue is shared; under a heading, the heading's.
            under = contexts.get(heading_context.get(number, -1), "none")
            self.date_context = under if under != "none" else "other"
            carried = previous  # what a clause with no subject of its own is about
            spans = clauses(self.summary, sentence)
            for index, span in enumerate(spans):
                text = self.summary[span.start:span.end]
                named = self._named(span)
                counts = {**pending_counts, **self._counts(span)}
                group = "any" if ONE_OF_THEM.search(text) else ""
                bare = not self._has_cue(span) and not self._has_verb(span)  # no claim and no verb of its own
                if named and bare and excepted and not pending and re.match(r"\W*(?:and|or|nor)\b", text):
                    excepted += [s for s in named if s not in excepted]  # "apart from the dish and the cups, ..."
                    seen.update(named)
                    continue
                if named and bare and (EXCEPT.search(text) or EXCEPT_OPENS.match(text)):
                    excepted = pending + [s for s in named if s not in pending]  # the list the claim that follows
                    pending = []  # leaves out, however many clauses it runs over
                    seen.update(named)
                    continue
                gap = self.summary[span.end:spans[index + 1].start] if index + 1 < len(spans) else ""
                tail_closed = ";" in gap or (re.match(r"\W*(?:and|or|nor)\b", text, re.I) is not None
                                             and index + 1 < len(spans)
                                             and CONTRAST_OPENS.search(self.summary[spans[index + 1].start:]))
                if named and bare and not EXCEPT.search(text) and last is not None and not last.whole and tail_closed:
                    # "... delivered on 13 March along with the table, bench and pendant light; the runner ...": the
                    # tail of the list before, which the semicolon closes, not the subject of the clause after it;
                    # so is "... isn't loading for the trainer or the last two tubes, but the trainer itself ...".
                    tail = pending + [s for s in named if s not in pending]
                    self._check_clause(Clause(last.span, sentence, tuple(tail), False, counts=counts,
                                              unsure=pending_unsure or self._unsure(span.start, span.end)))
                    seen.update(named)
                    sentence_groups.append(tuple(tail))
                    pending, pending_counts, pending_unsure = [], {}, ""
                    continue
                if not named and not pending and bare and DENIED_SUBJECT.match(text) and index + 1 < len(spans):
                    pending_denied = True  # "None of the items - the kettle, ...": the list after it is denied
                    continue
                if named and bare and not EXCEPT.search(text):
                    pending_denied = pending_denied or (not pending and bool(DENIED_SUBJECT.match(text)))
                    pending += [s for s in named if s not in pending]  # "the laptop and ..." : subject of what follows
                    pending_counts = counts
                    pending_unsure = pending_unsure or self._unsure(span.start, span.end)
                    seen.update(named)
                    continue
                if pending and last is not None and not last.whole and re.match(r"\W*(?:which|who)\b", text, re.I) \
                        and re.match(r"\W*(?:and|or|nor)\b", self.summary[spans[index - 1].start:], re.I):
                    # "no tracking for the rice cooker or the other two bowls, which Sagawa is handling": the tail of
                    # the claim before, which the relative clause then describes.
                    self._check_clause(Clause(last.span, sentence, tuple(pending), False, counts=pending_counts,
                                              unsure=pending_unsure))
                if named and not pending and last is not None and not last.whole and SAME_AS.search(text):
                    # "..., and the same goes for the tubes", "..., as were two of the tubes": the claim before, said
                    # again of these items (its dates and states), not a claim of this clause's own words.
                    self._check_clause(Clause(last.span, sentence, tuple(named), False, counts=counts,
                                              unsure=self._unsure(span.start, span.end)))
                    seen.update(named)
                    sentence_groups.append(tuple(named))
                    previous, previous_unsure = (tuple(named), False), self._unsure(span.start, span.end)
                    continue
                unsure = pending_unsure if pending else ""
                denied = pending_denied and bool(pending)
                pending_denied = False
                named = pending + [s for s in named if s not in pending]
                pending, pending_counts, pending_unsure = [], {}, ""
                own_unsure = self._unsure(span.start, span.end)
                if excepted and re.match(r"\W*(?:and|or|nor)\b", text):
                    named, excepted = excepted + [s for s in named if s not in excepted], []
                    about = (tuple(s for s in self.all_skus if s not in named), False)
                elif exception := EXCEPT.search(text):
                    # "everything else except the table": nor the items named before it
                    left = named + list(seen) if re.search(r"\belse\b", exception.group(), re.I) else named
                    about = (tuple(s for s in self.all_skus if s not in left), False)
                elif named:
                    about = (tuple(named), False)
                elif excepted and (EACH.search(text) or WHOLE.search(text)):
                    # "Apart from the dish and the cups, everything's with you": every item the exception leaves
                    about, excepted = (tuple(s for s in self.all_skus if s not in excepted), False), []
                elif OUTSTANDING_SET.search(text):
                    # "everything outstanding is on course": the items not delivered
                    about = (tuple(i.sku for i in self.facts.items if not i.delivered), False)
                elif NOT_ALL.search(text):
                    about = (self.all_skus, True)  # "not everything has arrived (: ...)": the order, not each item
                elif self.summary[span.end:span.end + 2].strip().startswith(":") \
                        and (later := self._named_after(spans, index, consequence=False)):
                    # "Delivered 9 June: the keyboard, the mice"; "the rest of what we could track has arrived: the
                    # cook set ...": a list after a colon says which items the claim before it is about.
                    about = (tuple(dict.fromkeys(later)), False)
                    for after in spans[index + 1:]:  # "... delivered: the socks, the air pads (2 of 3)"
                        counts = {**self._counts(after), **counts}
                elif REST.search(text):
                    rest = tuple(s for s in self.all_skus if s not in seen) \
                        or tuple(i.sku for i in self.facts.items if not i.delivered)
                    about, group = (rest, False), "estimate"
                elif EACH.search(text):
                    later = self._named_after(spans, index, consequence=False)  # "both items: the kettle and ..."
                    about = (tuple(dict.fromkeys(later)) or self.all_skus, False)
                    if self.facts.gathered and (size := _group_size(text)):
                        # "so all three are with you": the group of that size named before it in the sentence, or
                        # in the one before, or after it; none of that size: which items is not resolved.
                        earlier = tuple(dict.fromkeys(s for g in sentence_groups for s in g))
                        options = [earlier, previous[0] if previous else (), tuple(dict.fromkeys(later)),
                                   self.all_skus]
                        fit = next((o for o in options if len(o) == size), None)
                        about = (fit, False) if fit else about
                        unsure = "" if fit else f"no {size} items named before or after '{text}' for it to stand for"
                elif WHOLE.search(text) or self.facts.order_id.lower() in text.lower():
                    about = (self.all_skus, True)
                elif not PRONOUN.search(text) and (later := self._named_after(spans, index, consequence=True)):
                    about = (tuple(dict.fromkeys(later)), False)  # "the courier is late, so your kettle ..."
                elif index == 0 and carried and len(carried[0]) > 1 and not PRONOUN.search(text) and not listed_line:
                    # "Sorry for the delay." after a sentence about two items is about the order, not both items.
                    about = (self.all_skus, True)
                elif previous and not previous[1] and len(previous[0]) > 1 and (part := ORDINAL_PART.search(text)):
                    about = (_ordinal_part(previous[0], part), False)  # "the first two", "the latter"
                    unsure = previous_unsure
                else:
                    about = previous or (self.all_skus, True)  # a pronoun or no subject: the last thing spoken of
                    unsure = previous_unsure  # "it", "they": as unsure as what they stand for
                    if previous is None and len(self.all_skus) > 1 and self.facts.gathered:
                        unsure = "no item named before this claim"
                    elif index == 0 and PRONOUN.match(text) and len(groups) > 1:
                        about, unsure = self._referent(text, groups, about, unsure)
                if named:
                    unsure = unsure or own_unsure or self._subject_unclear(span)
                    sentence_groups += [tuple(named), about[0]]  # "everything except X": X, and the others
                previous, previous_unsure = about, unsure
                seen.update(named)
                partial = about[1] and bool(PARTIAL.search(text))
                last = Clause(span, sentence, *about, partial=partial, group=group, counts=counts, unsure=unsure,
                              denied=denied)
                self._check_clause(last)
            if pending and last and not last.whole:
                # "... confirmed delivery of the kettle, mugs and grinder": a list that runs on past its claim.
                self._check_clause(Clause(last.span, sentence, tuple(pending), False, counts=pending_counts,
                                          unsure=pending_unsure))
            # "**Grinder** (SKU), **Scale** (SKU)" then "Status: delivered ...": the next line is about that list
            listed_line = last is None and bool(pending)
            if pending:
                previous, previous_unsure = (tuple(pending), False), pending_unsure
                sentence_groups.append(tuple(pending))
            groups = list(dict.fromkeys(sentence_groups))
        self._check_absences()
        if self.gates.consistency:
            self._said_otherwise()
        self._dates_of_wrong_states()
        return sorted(self.findings, key=lambda f: (f.start, f.kind, f.sku or ""))

    def _dates_of_wrong_states(self) -> None:
        """A date given to a state the records contradict ("delivered on 9 June" for an item not delivered, "out for
        delivery today" for one delivered) has no record to be checked against: the state is the finding, the date
        could not be checked (one wrong claim, one finding)."""
        states = {(f.sku, f.sentence) for f in self.findings
                  if f.kind in ("unsupported_delivery", "contradicted_outstanding") and f.sku}
        # ... or a state the consistency step could not check: the date of a state in doubt is in doubt too
        for u in (u for u in self.unchecked if u.reason.startswith(_OTHERWISE)):
            index = self.reading.sentence_at(u.start)  # a heading's state is said in the lines listed under it too
            for i in (index, *self.reading.sections.get(index, ())):
                span = self.reading.spans[i]
                states.add((u.reason.split()[4], self.summary[span.start:span.end]))
        for f in [f for f in self.findings if f.kind == "unsupported_date" and (f.sku, f.sentence) in states]:
            self.findings.remove(f)
            self.unchecked.append(Unchecked(f.kind, f.sentence, f.claim, f"the date is given to a state the records "
                                            f"contradict for {f.sku}: that state is the finding", f.start, f.end))

    def _said_otherwise(self) -> None:
        """A state finding about an item the summary, in another sentence, gives the state its records show ("the
        bench was delivered yesterday ... not everything has arrived"): a summary rarely says both, so one of the two
        readings is likely a claim given to the wrong item, and which one is not sure: could not check."""
        opposite = {"unsupported_delivery": "outstanding", "contradicted_outstanding": "delivered"}
        for f in [f for f in self.findings if f.sku and (f.kind in opposite or (
                f.kind == "unsupported_date" and (f.sku, f.start, f.end) in self.date_roles))]:
            # a wrong day: another sentence gives the item a right day in the same role ("delivered", "estimate")
            state = opposite.get(f.kind) or "date:" + self.date_roles[(f.sku or "", f.start, f.end)]
            elsewhere = self.said_right.get((state, f.sku or ""), set()) - {self.summary.find(f.sentence)}
            # a heading over the item's own line ("**Not yet delivered**" over "- Thermometer: delivered 8 March") is
            # said of the list; the line's own claim is the item's, and it is the one checked
            index = self.reading.sentence_at(f.start)
            elsewhere -= {self.reading.spans[h].start for h, members in self.reading.sections.items()
                          if index in members}
            scope = self.reading.scope(f.start, f.end)
            said_of_all = EACH.search(self.summary, scope[0].start, scope[-1].end) or \
                WHOLE.search(self.summary, scope[0].start, scope[-1].end)  # "everything is on its way": it is meant
            if f.sentence and elsewhere and not said_of_all:
                self.findings.remove(f)
                self.unchecked.append(Unchecked(f.kind, f.sentence, f.claim, f"{_OTHERWISE} {f.sku} what its records "
                                                f"show ({state}): which reading is right is not sure",
                                                f.start, f.end))

    # --- the checks --------------------------------------------------------------------------------

    def _check_clause(self, clause: Clause) -> None:
        text = self.summary[clause.span.start:clause.span.end]
        sentence = self.summary[clause.sentence.start:clause.sentence.end]
        items = [self.facts.item(s) for s in clause.skus]
        whole = clause.whole and len(self.all_skus) > 1
        if ACKNOWLEDGE.search(text):
            self.acknowledged.update(clause.skus)
            self.acknowledged.add(None)
        dated = self._check_dates(clause, items, whole)
        future = bool(dated["estimate"])

        def right(state: str, fitting: list[ItemFacts]) -> None:
            if not clause.unsure and not clause.whole:
                for item in fitting:
                    self.said_right.setdefault((state, item.sku), set()).add(clause.sentence.start)

        def outstanding(span: tuple[int, int]) -> None:
            failing = [i for i in items if i.delivered]
            right("outstanding", [i for i in items if i.delivered_quantity == 0])
            self._judge("contradicted_outstanding", clause, span,
                        failing if not whole or len(failing) == len(items) else [], order_level=whole)

        def moving(span: tuple[int, int]) -> None:
            failing = [i for i in items if not i.moving and not i.delivered]
            self._judge("unwarranted_certainty", clause, span,
                        failing if not whole or len(failing) == len(items) else [], order_level=whole)

        for m in DELIVERED.finditer(text):
            how, span = self._stance(clause, text, m.start()), self._claim_span(clause, m)
            if how in ("negated", "future", "certain_future"):
                outstanding(span)
                future |= how != "negated"
                self._vague_certainty(clause, items, text, m, how, dated["flagged"])
            elif how in ("plain", "reported") and not text[:m.start()].lower().endswith("be "):
                if how == "reported" and ACKNOWLEDGE.search(sentence):
                    continue  # "the system lists it as delivered, but I can't confirm the carrier handed it over"
                if how == "reported" and GAP_ADMITTED.search(sentence):
                    continue  # "your order shows as delivered when it isn't all there": the gap is the point
                if how == "reported" and clause.whole and self.facts.order_status == "delivered":
                    continue  # "the order shows 'delivered'": true of the order record, which is what it reports
                if ORDER_RECORD_SAYS.search(text, 0, m.start()) and self.facts.order_status == "delivered":
                    continue  # "your order page says ORD-1 was delivered: ...": the record's status, whatever follows
                failing = [i for i in items if not i.delivered
                           and not (clause.counts.get(i.sku) and i.delivered_quantity >= clause.counts[i.sku])]
                if clause.partial and len(failing) < len(items):
                    failing = []
                right("delivered", [i for i in items if i.delivered])
                self._judge("unsupported_delivery", clause, span, failing)
        for m in DELIVERED_BY_NOW.finditer(text):
            inferred = re.search(r"\b(?:by now|already|now)\s*$", m.group()) or CONSEQUENCE.search(text)
            if inferred and self._stance(clause, text, m.start()) in ("plain", "reported"):
                self._judge("unsupported_delivery", clause, self._claim_span(clause, m),
                            [i for i in items if not i.delivered])
        for m in ARRIVAL.finditer(text):
            if any(b.start() <= m.start() < b.end() for b in DELIVERED_BY_NOW.finditer(text)) and (
                    CONSEQUENCE.search(text) or re.search(r"\b(?:by now|already|now)\b", text[m.end():])):
                continue  # "should be with you by now" is a delivery, above
            how = self._stance(clause, text, m.start())
            if how == "negated" and UNTIL.match(text, m.end()):
                outstanding(self._claim_span(clause, m))
            elif how in ("future", "certain_future") or m.group().lower() in ("arriving", "arrives"):
                outstanding(self._claim_span(clause, m))
                future = True
                self._vague_certainty(clause, items, text, m, how, dated["flagged"])
        for m in SHIPPED.finditer(text):
            how, span = self._stance(clause, text, m.start()), self._claim_span(clause, m)
            if how in ("negated", "future", "certain_future"):
                outstanding(span)
            elif how == "plain" and not text[:m.start()].lower().endswith("be "):
                moving(span)
        for m in TRANSIT.finditer(text):
            if CIRCUMSTANCE.search(text, 0, m.start()):
                continue  # "damaged in transit": where something happened, not where the item is
            if self._stance(clause, text, m.start()) == "plain":
                span = self._claim_span(clause, m)
                outstanding(span)
                moving(span)
                future = True
        for m in OUTSTANDING.finditer(text):
            if "pending" in m.group().lower() and PAYMENT_SUBJECT.search(text, 0, m.start()):
                continue  # "your payment is still pending" is about the payment
            if self._stance(clause, text, m.start()) in ("plain", "reported"):
                span = self._claim_span(clause, m)
                outstanding(span)
                if STOCK.search(m.group()):
                    self._stock_cause(clause, items, span, whole)
        for m in STOCK_CAUSE.finditer(text):
            if self._stance(clause, text, m.start()) in ("plain", "reported"):
                self._stock_cause(clause, items, self._claim_span(clause, m), whole)
        for m in self.carrier_cause.finditer(text):
            if self._stance(clause, text, m.start()) in ("plain", "reported"):
                # The carrier named as the cause of a delay it does not report (a delay with no cause at all is
                # unsupported_delay's).
                failing = [i for i in items if not i.delivered and i.delayed and not i.carrier_delayed]
                self._judge("wrong_delay_reason", clause, self._claim_span(clause, m),
                            failing if not whole or len(failing) == len(items) else [], order_level=whole)
        for claim in payment_claims(text):
            if not supported(claim, self.facts.payment_status):
                start = clause.span.start + claim.start
                self._add("unsupported_payment", None, clause, start, clause.span.start + claim.end,
                          f"said: {claim.says}; the payment record: {self.facts.payment_note}")
        for m in DELAY.finditer(text):
            if RECORD_LAGS.search(text, 0, m.start()) and not self.named_in(clause):
                continue  # "the order page is running behind the carrier": a record lagging, not a parcel
            if self._stance(clause, text, m.start()) == "plain":
                failing = [i for i in items if not i.delayed]
                self._judge("unsupported_delay", clause, self._claim_span(clause, m),
                            failing if not whole or len(failing) == len(items) else [], payment=True,
                            order_level=whole)
        for m in LOST.finditer(text):
            if self._stance(clause, text, m.start()) == "plain":
                self._judge("unwarranted_certainty", clause, self._claim_span(clause, m),
                            [i for i in items if not i.lost], order_level=whole)
        for m in CERTAINTY.finditer(text):
            how = self._stance(clause, text, m.start())
            # "will definitely be released soon": a certainty about the item's future, whatever the verb; not "we
            # will definitely let you know", which is a promise of ours
            said_of_future = how in ("certain_future", "future") and not _OURS.search(text, 0, m.start())
            if how in ("plain", "certain_future", "future") \
                    and (future or said_of_future or any(i.missing for i in items)):
                self._judge("unwarranted_certainty", clause, self._claim_span(clause, m),
                            [i for i in items if not i.delivered or i.missing], order_level=whole)

    @staticmethod
    def _stance(clause: Clause, text: str, at: int) -> str:
        """How the clause holds the claim at `at`; a claim whose subject list opens with "none of" is denied."""
        how = stance(text, at)
        return "negated" if clause.denied and how in ("plain", "reported") else how

    def _stock_cause(self, clause: Clause, items: list[ItemFacts], span: tuple[int, int], whole: bool) -> None:
        """A stock claim needs a warehouse record that says so: none read is certainty, another status a wrong cause."""
        if whole and any(i.backordered for i in items):
            return
        unknown = [i for i in items if not i.delivered and i.backordered is None]
        contradicted = [i for i in items if not i.delivered and i.backordered is False]
        if whole:
            kind = "wrong_delay_reason" if contradicted and not unknown else "unwarranted_certainty"
            self._judge(kind, clause, span, unknown + contradicted, order_level=True)
            return
        self._judge("unwarranted_certainty", clause, span, unknown)
        self._judge("wrong_delay_reason", clause, span, contradicted)

    def _vague_certainty(self, clause: Clause, items: list[ItemFacts], text: str, m: re.Match[str], how: str,
                         flagged: set[str]) -> None:
        """ "Will (or should) arrive soon" with no carrier estimate states a timing nobody gave."""
        vague = VAGUE_TIME.search(text, m.end())
        if vague and (how in ("certain_future", "future") or m.group().lower() in ("arriving", "arrives")):
            span = (clause.span.start + m.start(), clause.span.start + vague.end())
            self._judge("unwarranted_certainty", clause, span,
                        [i for i in items if not i.delivered and not i.estimates and i.sku not in flagged])

    # --- absences ----------------------------------------------------------------------------------

    def _check_absences(self) -> None:
        if not self.facts.gathered:
            return  # nothing was looked up: every claim was already reported as unsupported
        mentioned = {s for m in self.mentions for s in m.skus}
        # Precision first: an admission in any sentence that names the item may be about it, whichever clause the
        # rules gave it to ("... isn't available, and the same goes for the parcel with the last two tubes").
        admitted = {s for sentence in sentences(self.summary)
                    if ACKNOWLEDGE.search(self.summary, sentence.start, sentence.end)
                    for s in self._named(sentence)}
        for item in self.facts.items:
            if item.missing and item.sku not in self.acknowledged and item.sku not in admitted:
                first = next((m for m in self.mentions if item.sku in m.skus), None)
                clause = None
                if first:
                    sentence = next(s for s in sentences(self.summary) if s.start <= first.start < s.end)
                    clause = Clause(sentence, sentence, (item.sku,), False)
                self._add("unacknowledged_missing_evidence", item.sku, clause, first.start if first else 0,
                          first.end if first else 0,
                          "; ".join(self.facts.missing_notes[r] for r in item.missing) + " — never acknowledged")
            if item.sku not in mentioned and not plausibly_named(self.summary, item.sku, item.name, self.mentions):
                # Precision first: "the Iga donabe", "the saya" may name it though no rule resolved them.
                self._add("unmentioned_sku", item.sku, None, 0, 0,
                          f"{self.facts.order_id} lists {item.sku}"
                          + (f" ({item.name})" if item.name else "") + f" × {item.quantity}")
        # A missing payment record only matters to what the summary says about the payment (unsupported_payment).
        refs = [r for r in self.facts.order_missing if not r.startswith("payment:")]
        if refs and None not in self.acknowledged:
            self._add("unacknowledged_missing_evidence", None, None, 0, 0,
                      "; ".join(self.facts.missing_notes[r] for r in refs) + " — never acknowledged")


def _ordinal_part(group: tuple[str, ...], part: re.Match[str]) -> tuple[str, ...]:
    """The items "the first two" or "the latter" picks out of a list, in the order it was named."""
    if part[3]:
        return group[-1:] if part[3].lower() == "latter" else group[:1]
    count = {"one": 1, "two": 2, "three": 3, "four": 4}[part[2].lower()]
    return group[:count] if part[1].lower() == "first" else group[-count:]


_OTHERWISE = "another sentence says of"  # the start of the consistency step's reason; its 5th word is the SKU

# A promise of ours ("we will definitely", "I'll certainly"), not a claim about the parcel.
_OURS = re.compile(r"\b(?:we|i)(?:\s+(?:will|shall|are going to|am going to)|['’]ll)\s+(?:\w+\s+)?$", re.I)

_SIZES = {"both": 2, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}


def _group_size(text: str) -> int | None:
    """How many items "both", "all three", "those four" stand for; None when no number is said."""
    said = re.search(r"\bboth\b|\b(?:all|the|those|these)\s+(two|three|four|five|six|seven|eight)\b", text, re.I)
    if said is None:
        return None
    return _SIZES[(said[1] or "both").lower()]
