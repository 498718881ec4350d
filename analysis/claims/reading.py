"""The summary read once for the confidence gate: sentences, their clauses, item mentions, headings, a claim's scope."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from analysis.claims.cues import (
    ACKNOWLEDGE,
    ARRIVAL,
    CERTAINTY,
    DELAY,
    DELIVERED,
    LOST,
    OUTSTANDING,
    OWN_VERB,
    SHIPPED,
    TRANSIT,
)
from analysis.claims.names import Mention
from analysis.claims.sections import section_headings
from analysis.claims.text import Span, clauses, date_mentions, sentences

_CUES = (DELIVERED, ARRIVAL, SHIPPED, TRANSIT, OUTSTANDING, DELAY, LOST, CERTAINTY, ACKNOWLEDGE)


@dataclass
class Reading:
    """The summary's sentences, their clauses (split once, when first asked), the item mentions and the headings."""

    summary: str
    mentions: list[Mention]
    spans: list[Span] = field(default_factory=list)
    sections: dict[int, tuple[int, ...]] = field(default_factory=dict)
    _clauses: dict[int, list[Span]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.spans = sentences(self.summary)
        self.sections = section_headings(self.summary, self.spans, self.mentions)

    def sentence_at(self, at: int) -> int:
        """The index of the sentence holding offset `at` (the last one starting at or before it)."""
        index = 0
        for i, span in enumerate(self.spans):
            if span.start <= at:
                index = i
        return index

    def clauses_of(self, index: int) -> list[Span]:
        """The clauses of one sentence."""
        if index not in self._clauses:
            self._clauses[index] = clauses(self.summary, self.spans[index]) or [self.spans[index]]
        return self._clauses[index]

    def clause_at(self, at: int) -> tuple[list[Span], int]:
        """The clauses of the sentence holding offset `at`, and the index of the one holding it."""
        spans = self.clauses_of(self.sentence_at(at))
        return spans, next((i for i, s in enumerate(spans) if s.end > at), len(spans) - 1)

    def named(self, lo: int, hi: int, *, ambiguous: bool = False) -> list[str]:
        """The SKUs named in summary[lo:hi], in order (those of a shared, unresolved name only if asked)."""
        out: list[str] = []
        for m in self.mentions:
            if lo <= m.start < hi and (ambiguous or not m.ambiguous):
                out += [s for s in m.skus if s not in out]
        return out

    def listed(self, span: Span, *, dates: bool = False) -> bool:
        """A clause with no verb and no claim of its own outside item names: part of a list ("the mice", "3 × cable",
        with `dates` also "3 × cable (9 June)") or an aside ("I'm afraid")."""
        text = list(self.summary[span.start:span.end])
        for m in self.mentions:
            for i in range(max(m.start, span.start), min(m.end, span.end)):
                text[i - span.start] = " "
        rest = "".join(text)
        if OWN_VERB.search(rest) or any(cue.search(rest) for cue in _CUES):
            return False
        return dates or not date_mentions(self.summary, span.start, span.end)

    def scope(self, start: int, end: int) -> list[Span]:
        """The clauses a claim at summary[start:end] is made in: its own; the clauses with no verb and no claim of
        their own just before it (a list leading into it: "the keyboard, the mice and the cables were delivered"; an
        aside: "the pan, I'm afraid, is ..."); and the list after it when that list ends the sentence ("Delivered 9
        June: the keyboard, the mice")."""
        spans, first = self.clause_at(start)
        last = max(first, next((i for i, s in enumerate(spans) if s.end >= end), len(spans) - 1))
        lo = first
        while lo > 0 and self.listed(spans[lo - 1]):
            lo -= 1
        hi = last
        while hi + 1 < len(spans) and self.listed(spans[hi + 1], dates=True):
            hi += 1
        if hi + 1 < len(spans):
            hi = last  # the list runs into a claim of its own: it is that claim's subject
        return spans[lo:hi + 1]

    def bracket_owner(self, at: int) -> list[str] | None:
        """The items a parenthesis holding offset `at` is about: those named just before it ("noren (due Fri)",
        "KNF-1 (restock 21 Mar), SAY-1 (no date)"); None when `at` is in no parenthesis, the parenthesis speaks of a
        group ("(both Monday)") or no resolved item comes just before it."""
        text = self.summary
        depth, opening = 0, -1
        for i in range(at - 1, max(-1, at - 200), -1):
            if text[i] == ")":
                depth += 1
            elif text[i] == "(":
                if depth == 0:
                    opening = i
                    break
                depth -= 1
            elif text[i] in ".\n;":
                break
        if opening < 0 or _GROUP_IN_BRACKETS.match(text, opening):
            return None
        before = [m for m in self.mentions if m.end <= opening and not text[m.end:opening].strip(" \t*_")]
        return list(before[-1].skus) if before and not before[-1].ambiguous else None


    def bracket_subject(self, at: int) -> list[str] | None:
        """The items a parenthesis holding offset `at` names before `at` ("(one junior stick still due Friday)"): its
        own subject; None when it names none (or only an unresolved shared name)."""
        opening = self.summary.rfind("(", max(0, at - 120), at)
        if opening < 0 or ")" in self.summary[opening:at]:
            return None
        inside = [m for m in self.mentions if opening < m.start and m.end <= at]
        if not inside or any(m.ambiguous for m in inside):
            return None
        return [s for m in inside for s in m.skus]

    def bracket_group(self, at: int) -> list[str] | None:
        """The items of the list just before a parenthesis holding offset `at` that speaks of the group ("the trowel,
        the gloves and the reel cart (all on Tuesday)", "the towels and skillet (both 7 Mar)"); None otherwise."""
        opening = self.summary.rfind("(", max(0, at - 200), at)
        if opening < 0 or ")" in self.summary[opening:at] or not _GROUP_IN_BRACKETS.match(self.summary, opening):
            return None
        listed = self._list_before(opening)
        return listed or None

    def own_subject(self, start: int, end: int) -> list[str] | None:
        """The items a date at summary[start:end] is plainly said of: its clause (with the bare list leading into it)
        names them as one list before the date, names no item after it and holds no other date ("The gloves were
        delivered on Monday 14 April, ..."; "..., the gloves, cups, knife and two fire steels on 9 September");
        None when its clause does not say so plainly."""
        spans, first = self.clause_at(start)
        lo = first
        while lo > 0 and self.listed(spans[lo - 1]):
            lo -= 1
        low, high = spans[lo].start, spans[first].end
        if len(date_mentions(self.summary, low, high)) != 1:
            return None
        inside = [m for m in self.mentions if low <= m.start < high]
        if not inside or any(m.ambiguous for m in inside) or any(m.start >= end for m in inside):
            return None
        listed = self._list_before(inside[-1].end, low)
        return listed if len(listed) == len({s for m in inside for s in m.skus}) else None

    def _list_before(self, at: int, low: int = 0) -> list[str]:
        """The SKUs of the list of resolved item names that ends just before offset `at` (only list words between
        them: commas, "and", articles, counts)."""
        before = [m for m in self.mentions if low <= m.start and m.end <= at]
        out: list[str] = []
        edge = at
        for m in reversed(before):
            gap = self.summary[m.end:edge]
            if m.ambiguous or not _LIST_GLUE.fullmatch(gap):
                break
            out = [s for s in m.skus if s not in out] + out
            edge = m.start
        return out


# Between two names of one list: "the gloves, cups, knife and two fire steels", "the towels and skillet".
_LIST_GLUE = re.compile(r"[\s,*]*(?:(?:and|&|\+|plus)\s+)?(?:(?:the|your|both|all|of|[0-9]+|one|two|three|four|five"
                        r"|six|seven|eight|nine|ten)\s+)*", re.I)
_GROUP_IN_BRACKETS = re.compile(r"\(\s*(?:both|all|each|every)\b", re.I)
