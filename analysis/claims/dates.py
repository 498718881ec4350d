"""Dates in a summary: how each is presented (estimate, delivery, restock, promise) and whether a record gives it."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date, timedelta

from analysis.claims.clause import Clause
from analysis.claims.cues import (
    AUX,
    BY_DATE,
    DELIVERED,
    ESTIMATE_BY_PROMISE,
    ESTIMATE_CUE,
    FUTURE_MARKER,
    NEAR_WORDS,
    OTHER_CUE,
    OWN_VERB,
    PROMISE_CUE,
    RESTOCK_CUE,
)
from analysis.claims.facts import ItemFacts, OrderFacts
from analysis.claims.names import Mention
from analysis.claims.text import (
    RANGE_BETWEEN,
    DateMention,
    date_mentions,
    is_past_day,
    resolve_past,
    resolve_relative,
    stance,
    weekday_index,
)

# "won't be with you until tomorrow": a date after "until" in a denial is when the item is said to come.
_NOT_UNTIL = re.compile(r"(?:n['’]t|\bnot|\bnever)\b[^.;:]*?\b(?:until|till)\s+(?:the\s+)?$", re.I)
_PROMISE_AFTER = re.compile(r"\s*(?:that |which )?(?:we |you were |it was |they were )?(?:originally )?promised\b",
                            re.I)
# A date compared with or replaced, not given: "later than 12 March", "a day after the promised date", "tomorrow
# rather than today", "instead of Friday".
_COMPARED = re.compile(r"(?:\b(?:later|earlier|sooner) than|\b(?:a|one|two|three|four|five|\d+|a few|several|a couple"
                       r" of)\s+(?:more\s+)?(?:days?|weeks?)\s+(?:after|before|past|behind|ahead of)|\brather than"
                       r"|\binstead of|\bnot)\s+(?:on\s+)?(?:the |your |our )?$", re.I)
# What may stand between a bracketed date and its list's verb once names, brackets and auxiliaries are taken out.
_LIST_WORDS = re.compile(r"[\s,]*(?:(?:and|&|plus|the|your|both|all|of|[0-9]+|one|two|three|four|five|six)\b[\s,]*)*",
                         re.I)
_FOR_ITEM = re.compile(r"\s+for\s+(?:the\s+|your\s+|both\s+)?", re.I)


class DateChecks:
    """The date checks of `Checker`; the state they use is set up by it."""

    summary: str
    facts: OrderFacts
    date_context: str
    last_date: DateMention | None  # the last calendar date read, for "the day before", "the same day"
    mentions: list[Mention]
    # (role, SKU) -> the sentences giving the item a right day in that role ("date:delivered", "date:estimate", ...),
    # and the role of each date found wrong, by (SKU, start, end): for the consistency step (rules._said_otherwise)
    said_right: dict[tuple[str, str], set[int]]
    date_roles: dict[tuple[str, int, int], str]

    def _add(self, kind: str, sku: str | None, clause: Clause | None, start: int, end: int, evidence: str) -> None:
        raise NotImplementedError

    def _judge(self, kind: str, clause: Clause, span: tuple[int, int], failing: list[ItemFacts],
               evidence: str | None = None, *, payment: bool = False, order_level: bool = False) -> None:
        raise NotImplementedError

    def _notes(self, sku: str | None, *, payment: bool = False) -> str:
        raise NotImplementedError

    def _order_sku(self) -> str | None:
        raise NotImplementedError

    def _date_context(self, clause: Clause, lo: int, hi: int) -> tuple[str, int]:
        """How a date at `hi` is presented, judged by the cues between `lo` and it; and where the cue starts."""
        window = self.summary[lo:hi]
        if m := ESTIMATE_BY_PROMISE.search(window):
            return "estimate", lo + m.start()
        tail_start = len(window) - len(" ".join(window.split()[-NEAR_WORDS:])) - 1
        for name, cue in (("promise", PROMISE_CUE), ("restock", RESTOCK_CUE)):
            found = [m for m in cue.finditer(window) if m.end() > tail_start]
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
        dates = date_mentions(self.summary, clause.span.start, clause.span.end)
        if not dates:
            # "All delivered: the axe on 8 September, ...": a cue with no date of its own presents the dates of
            # the clauses after it in the sentence.
            context, _ = self._date_context(clause, clause.span.start, clause.span.end)
            self.date_context = context if context != "none" else self.date_context
        # Several dates and several items in one clause ("both headlamps delivered (Tue and this morning)"): which
        # date is whose is not said, so a date is only held against the group, and one no item has is unchecked.
        several = len(items) > 1 and self._several_alike(clause, dates)
        elided = not OWN_VERB.search(text)  # "the rechargeable one today": the verb of the clause before
        joined: set[int] = set()
        for index, d in enumerate(dates):
            if d.start in joined:
                continue
            before = date_mentions(self.summary, clause.sentence.start, d.start) if d.kind == "promised" else []
            if before and re.fullmatch(r"\s*[,(–—-]\s*", self.summary[before[-1].end:d.start]):
                continue  # "by Thursday, the promised date": the day before it, named again
            how = stance(text, d.start - clause.span.start)
            context, cue = self._date_context(clause, lo, d.start)
            if context == "none" and (later := self._verb_after_bracket(clause, d)):
                context, cue = later  # "the towels and skillet (both 7 Mar) have been delivered"
            own = context != "none"  # a cue of its own, not one carried from an earlier date of the sentence
            past_day = False
            either: tuple[tuple[int, int, int], ...] = ()  # the past reading of a weekday whose tense is not said
            context = self.date_context if context == "none" else context
            if _PROMISE_AFTER.match(self.summary, d.end):
                context = "promise"  # "the 12 March we promised", "didn't all arrive by the 17th as promised"
            elif _NOT_UNTIL.search(text, 0, d.start - clause.span.start):
                how, context = "future", "estimate"
            elif _COMPARED.search(self.summary, clause.span.start, d.start):
                context = "other"  # "later than 12 March": a date compared with, not given
            about = self._date_owner(d, items)
            self.date_context = context
            lo = d.end
            label = self.summary[d.start:d.end]
            if d.kind == "anaphoric":
                placed = d.shifted(self.last_date) if self.last_date else None
                if placed is None:
                    continue  # "the same day" with no date before it to count from
                d = placed
            after = dates[index + 1] if index + 1 < len(dates) else None
            if d.kind == "relative" and after is not None and after.kind == "relative" and context == "estimate" \
                    and _joined(self.summary, d, after):
                # "Friday or Monday", "Monday to Wednesday": one window, any day of which may be the estimate.
                window = self._relative_window(label, self.summary[after.start:after.end])
                if window:
                    joined.add(after.start)
                    d = DateMention(d.start, after.end, "calendar", window)
                    label = self.summary[d.start:d.end]
                    label += f" ({window[0][0]:04d}-{window[0][1]:02d}-{window[0][2]:02d} to " \
                             f"{window[-1][0]:04d}-{window[-1][1]:02d}-{window[-1][2]:02d}, counted from the last " \
                             "carrier check)"
            if d.kind == "relative" and context == "delivered" and (own or elided) and how in ("plain", "reported"):
                # "reached you yesterday", "delivered on Monday": a past day, counted back from the clock's day.
                past = resolve_past(label, self.facts.clock)
                if not past:
                    continue
                d = DateMention(d.start, d.end, "calendar", past)
                past_day = True
                label += f" ({', '.join(f'{y:04d}-{m:02d}-{x:02d}' for y, m, x in past)}, counted back from the " \
                         "last carrier check)"
            elif d.kind == "relative":
                if how not in ("plain", "reported", "future", "certain_future") or context != "estimate" \
                        or is_past_day(label):
                    continue  # "if it ships tomorrow", "left last night": nothing to hold it against
                if how not in ("future", "certain_future") and weekday_index(label.split()[-1]) is not None \
                        and not FUTURE_MARKER.search(self.summary, clause.span.start, d.start) \
                        and not FUTURE_MARKER.match(label):
                    # "went into your box on Tuesday": nothing says the weekday lies ahead; the last one may be meant.
                    either = resolve_past(label, self.facts.clock)
                day = resolve_relative(label, self.facts.clock)
                if day:
                    d = DateMention(d.start, d.end, "calendar", (day,))
                    label += f" ({day[0]:04d}-{day[1]:02d}-{day[2]:02d}, counted from the last carrier check)"
            span = (min(cue, d.start), d.end)
            if d.kind == "calendar":
                self.last_date = d
            if how in ("hedged", "hypothetical", "counterfactual", "negated"):
                if d.kind == "calendar" and not any(d.matches(k) for k in self.facts.known_days):
                    self._judge("unsupported_date", clause, span, items,
                                f"'{label}' appears nowhere in {self.facts.order_id}'s records (promised "
                                f"{self.facts.promised}). {self._notes(None if whole else items[0].sku)}",
                                order_level=whole)
                continue
            if context == "estimate":
                out["estimate"].update(i.sku for i in about)
            as_whole = whole and about == items
            group = about == items and (clause.group == "any" or (clause.group == "estimate" and context == "estimate"))
            shared = several and about == items and not as_whole
            failing = self._date_failures(d, context, span, about, as_whole or group or shared)
            if shared and failing:
                self._unresolved_date(clause, span, about, label, d, context)
                continue
            if past_day:
                # Only a day wrong for an item that was delivered: one never delivered has its delivery finding.
                failing = [i for i in failing if i.delivered_days]
            if either:
                failing = [i for i in failing if not any(f"{y:04d}-{m:02d}-{x:02d}" in i.any_days()
                                                         for y, m, x in either)]
            if not own and not past_day:
                # Precision first: a role carried from an earlier cue ("All delivered: the axe on 8 September, ...")
                # is not resolved for this date; it is wrong only if it is none of the item's days in any role.
                failing = [i for i in failing if not any(d.matches(x) for x in i.any_days())]
            out["flagged"].update(i.sku for i in failing)
            if own and context in ("delivered", "estimate", "restock") and not clause.unsure and not clause.whole:
                for item in about:
                    key = (item.sku, *span)
                    if item in failing:
                        self.date_roles[key] = context
                    else:
                        self.said_right.setdefault((f"date:{context}", item.sku), set()).add(clause.sentence.start)
                        # a right delivery day says it came, a right estimate that it has not
                        state = {"delivered": "delivered", "estimate": "outstanding"}.get(context)
                        if state == ("delivered" if item.delivered else "outstanding"):
                            self.said_right.setdefault((state, item.sku), set()).add(clause.sentence.start)
            for item in failing if not as_whole else []:
                self._add("unsupported_date", item.sku, clause, *span, self._date_evidence(label, d, context, item))
            if as_whole and failing:
                self._add("unsupported_date", self._order_sku(), clause, *span,
                          self._date_evidence(label, d, context, None))
        return out

    def _verb_after_bracket(self, clause: Clause, d: DateMention) -> tuple[str, int] | None:
        """A date in brackets after item names, whose list's verb comes after it ("the knife (4 Mar), the towels and
        skillet (both 7 Mar) have been delivered"): a delivery day when that verb says plainly that they came, and
        nothing but more of the list (names, bracketed dates, commas, "and") and auxiliaries stands between."""
        opening = self.summary.rfind("(", clause.sentence.start, d.start)
        if opening < 0 or ")" in self.summary[opening:d.start]:
            return None
        closing = self.summary.find(")", d.end, clause.sentence.end)
        if closing < 0:
            return None
        rest = self.summary[closing + 1:clause.sentence.end]
        cue = DELIVERED.search(rest)
        if cue is None:
            return None
        between = list(rest[:cue.start()])
        for m in self.mentions:  # item names are the list, not verbs ("the rice cooker", "covers")
            for i in range(max(m.start, closing + 1), min(m.end, closing + 1 + cue.start())):
                between[i - closing - 1] = " "
        gap = re.sub(r"\([^()]*\)", " ", "".join(between))
        if re.search(r"[;:]", gap) or not _LIST_WORDS.fullmatch(AUX.sub("", gap + " ")):
            return None
        sentence = self.summary[clause.sentence.start:clause.sentence.end]
        if stance(sentence, closing + 1 + cue.start() - clause.sentence.start) != "plain":
            return None
        return "delivered", closing + 1 + cue.start()

    def _several_alike(self, clause: Clause, dates: list[DateMention]) -> bool:
        """Whether two or more of the clause's dates are presented alike (two delivery days, two estimates), not
        counting past days in an estimate ("dispatched this morning and due tomorrow" gives one estimate)."""
        contexts: list[str] = []
        lo, carried = clause.span.start, self.date_context
        for d in dates:
            context, _ = self._date_context(clause, lo, d.start)
            carried = carried if context == "none" else context
            lo = d.end
            label = self.summary[d.start:d.end]
            if d.kind != "promised" and not (carried == "estimate" and is_past_day(label)):
                contexts.append(carried)
        return any(contexts.count(c) > 1 for c in ("delivered", "estimate", "restock"))

    def _relative_window(self, first: str, last: str) -> tuple[tuple[int | None, int | None, int], ...]:
        """Every day from one relative day to another ("Friday or Monday"), () when either cannot be placed."""
        a, b = resolve_relative(first, self.facts.clock), resolve_relative(last, self.facts.clock)
        if a is None or b is None:
            return ()
        start, end = date(*a), date(*b)
        if end < start or (end - start).days > 14:
            return ()
        days = (start + timedelta(days=i) for i in range((end - start).days + 1))
        return tuple((x.year, x.month, x.day) for x in days)

    def _unresolved_date(self, clause: Clause, span: tuple[int, int], items: list[ItemFacts], label: str,
                         d: DateMention, context: str) -> None:
        """A date none of several items has, in a clause that does not say whose it is: could not check."""
        unsure = f"'{label}' is one of several dates for {', '.join(i.sku for i in items)}; which is whose is not said"
        for item in items[:1]:
            self._add("unsupported_date", item.sku, replace(clause, unsure=clause.unsure or unsure), *span,
                      self._date_evidence(label, d, context, None))

    def _date_owner(self, d: DateMention, items: list[ItemFacts]) -> list[ItemFacts]:
        """The items a date is about: "22 March for the kettle" is the kettle's date, not every item's."""
        after = _FOR_ITEM.match(self.summary, d.end)
        if after:
            owner = next((m for m in self.mentions if m.start == after.end()), None)
            if owner:
                named = [i for i in items if i.sku in owner.skus]
                return named or items
        return items

    def _date_failures(self, d: DateMention, context: str, span: tuple[int, int], items: list[ItemFacts],
                       any_of: bool) -> list[ItemFacts]:
        """The items the date is wrong for; with `any_of` (the order, "the remaining items") all or none."""
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
            # "due by the 14th", "had all arrived by the 10th": any day up to it
            by = bool(BY_DATE.search(self.summary, 0, d.start)) if context in ("estimate", "delivered") else False
            pools = {"restock": lambda i: i.restock_days, "delivered": lambda i: i.delivered_days,
                     "estimate": lambda i: i.estimates}
            ok = []
            for item in items:
                days = pools[context](item) if not any_of else [x for i in items for x in pools[context](i)]
                ok.append(any(d.matches(x) or (by and _on_or_after(d, x)) for x in days))
        if any_of:
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


def _joined(text: str, first: DateMention, last: DateMention) -> bool:
    """Whether two dates make one window: "Friday or Monday", "Monday to Wednesday", "between Monday and Tuesday"."""
    gap = text[first.end:last.start]
    return bool(RANGE_BETWEEN.match(gap)) or (bool(re.fullmatch(r"\s+and\s+(?:on\s+)?", gap))
                                               and bool(re.search(r"\bbetween\s+(?:on\s+)?$", text[:first.start])))


def _on_or_after(d: DateMention, iso_day: str) -> bool:
    """Whether "by <d>" is no earlier than the ISO day (a missing year borrows the day's)."""
    y, m, day = (int(x) for x in iso_day.split("-"))
    return any(((cy or y), (cm or m), cd) >= (y, m, day) for cy, cm, cd in d.candidates)
