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


_GROUP_IN_BRACKETS = re.compile(r"\(\s*(?:both|all|each|every)\b", re.I)
