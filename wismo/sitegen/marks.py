"""Claim-check findings as marks inside a summary: split in Python into escaped pieces, never HTML strings."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from analysis.model import CLAIM_MEANING
from wismo.sitegen.pages import FindingNote, Piece, UncheckedNote


def _span(finding: dict[str, Any], length: int) -> tuple[int, int] | None:
    start, end = finding.get("start"), finding.get("end")
    if not isinstance(start, int) or not isinstance(end, int) or isinstance(start, bool) or isinstance(end, bool):
        return None
    # A span outside the text (say, from findings of an older summary) is listed, not drawn.
    if not 0 <= start < end <= length:
        return None
    return start, end


def _detail(finding: dict[str, Any]) -> str:
    # analysis.claims writes {kind, severity, sentence, claim, evidence, sku, start, end}; the claim itself
    # is marked in the text, so the note says which item and what the evidence shows instead.
    parts = [str(finding["sku"])] if finding.get("sku") else []
    if finding.get("evidence"):
        parts.append(f"evidence: {finding['evidence']}")
    return " · ".join(parts)


def unchecked_notes(claims: Sequence[dict[str, Any]] | None) -> list[UncheckedNote]:
    """The claims the checker could not check, one note per kind, claim and reason, in the order they are in."""
    notes: dict[tuple[str, str, str], UncheckedNote] = {}
    for claim in claims or []:
        key = (str(claim.get("kind") or ""), str(claim.get("claim") or ""), str(claim.get("reason") or ""))
        sentence = str(claim.get("sentence") or "")
        before = notes.get(key)
        sentences = (*before.sentences, sentence) if before else (sentence,)
        notes[key] = UncheckedNote(*key, sentences=tuple(dict.fromkeys(s for s in sentences if s)))
    return list(notes.values())


def summary_pieces(text: str, findings: Sequence[dict[str, Any]] | None) -> tuple[list[Piece], list[FindingNote]]:
    """Cut `text` at every finding boundary; each piece knows which finding kinds cover it (overlaps allowed)."""
    findings = list(findings or [])
    notes: dict[tuple[str, str, str], FindingNote] = {}
    spans: list[tuple[int, int, str]] = []
    for finding in findings:
        kind = str(finding.get("kind") or "finding")
        span = _span(finding, len(text))
        severity, detail = str(finding.get("severity") or ""), _detail(finding)
        sentence = str(finding.get("sentence") or "")
        # The same finding (kind, item, evidence) in several sentences is one note naming each sentence once.
        key = (kind, severity, detail)
        before = notes.get(key)
        sentences = (*before.sentences, sentence) if before else (sentence,)
        notes[key] = FindingNote(kind=kind, severity=severity, detail=detail,
                                 located=(before.located if before else False) or span is not None,
                                 meaning=CLAIM_MEANING.get(kind, ""),
                                 sentences=tuple(dict.fromkeys(s for s in sentences if s)))
        if span:
            spans.append((*span, kind))
    if not spans:
        return [Piece(text)], list(notes.values())
    cuts = sorted({0, len(text), *(s for s, _, _ in spans), *(e for _, e, _ in spans)})
    pieces: list[Piece] = []
    for start, end in itertools.pairwise(cuts):
        kinds = sorted({kind for s, e, kind in spans if s <= start and end <= e})
        pieces.append(Piece(text[start:end], ", ".join(kinds) or None))
    return pieces, list(notes.values())
