"""Headings over lists: "**Delivered**" on a line of its own is said of the items listed under it."""

from __future__ import annotations

import re

from analysis.claims.names import Mention
from analysis.claims.text import Span

# A line that is only a heading: a few words, perhaps bold, a markdown title or ending in a colon.
_HEADING = re.compile(r"^[#*_\s]*((?:[^\W\d_][\w'’-]*\s+){0,3}[^\W\d_][\w'’-]*)[*_\s]*:?[*_\s]*$")
_MAX_WORDS = 4


def _line_of(text: str, span: Span) -> tuple[int, int]:
    start = text.rfind("\n", 0, span.start) + 1
    end = text.find("\n", span.end)
    return start, len(text) if end < 0 else end


def _is_heading(text: str, sentence: Span, mentions: list[Mention]) -> bool:
    """A sentence alone on its line, of a few words naming no item, with more lines after it."""
    start, end = _line_of(text, sentence)
    line = text[start:end]
    if text[start:sentence.start].strip(" \t#*_") or text[sentence.end:end].strip(" \t*_:"):
        return False  # the line holds more than this sentence
    heading = _HEADING.match(line)
    if heading is None or len(heading[1].split()) > _MAX_WORDS or not text[end:].strip():
        return False
    return not any(start <= m.start < end for m in mentions)


def section_headings(text: str, spans: list[Span], mentions: list[Mention]) -> dict[int, tuple[int, ...]]:
    """For each heading sentence (by index), the indexes of the sentences of its section: the lines after it up to
    the next heading or a blank line (a blank line right after the heading does not end it)."""
    headings = [i for i, span in enumerate(spans) if _is_heading(text, span, mentions)]
    sections: dict[int, tuple[int, ...]] = {}
    for n, index in enumerate(headings):
        stop = headings[n + 1] if n + 1 < len(headings) else len(spans)
        members: list[int] = []
        for later in range(index + 1, stop):
            gap = text[spans[later - 1].end:spans[later].start]
            if members and gap.count("\n") > 1:
                break  # a blank line closes the section
            members.append(later)
        sections[index] = tuple(members)
    return sections
