"""Imported reviews as the pages show them: who judged what and wrote what, conflicts, the not-justified list."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from analysis.model import ConversationDetail
from wismo.sitegen import fmt
from wismo.sitegen.context import SiteData, case_url, conversation_url
from wismo.sitegen.pages import NotJustified, ReviewedConversation, ReviewNote
from wismo.sitegen.reviews import ReviewEntry, summary_sha

OVERVIEW_NOT_JUSTIFIED = 50  # texts listed on the overview; the review page filters them all


def reviewed_conversation(detail: ConversationDetail) -> ReviewedConversation:
    """A conversation named by repetition and design, linked to its page."""
    return ReviewedConversation(detail.repetition, detail.design,
                                conversation_url(detail.run_id, detail.conversation_id))


def _design_rank(data: SiteData, detail: ConversationDetail) -> int:
    """Where the conversation's design stands in its run's manifest (the order every table lists designs in)."""
    summary = data.summaries.get(detail.run_id)
    designs = summary.run.designs if summary is not None else []
    return designs.index(detail.design) if detail.design in designs else len(designs)


def review_notes(data: SiteData, details: Sequence[ConversationDetail]) -> list[ReviewNote]:
    """The distinct imported reviews of these conversations, each with the conversations it was given for."""
    if data.reviews is None:
        return []
    by_review: dict[tuple[str | None, str, str, str, str], list[ConversationDetail]] = {}
    entries: dict[tuple[str | None, str, str, str, str], ReviewEntry] = {}
    for detail in sorted(details, key=lambda d: (d.repetition, _design_rank(data, d))):
        entry = data.reviews.entries.get((detail.run_id, detail.conversation_id))
        if entry is None:
            continue
        identity = (entry.verdict, entry.note, entry.reviewer, entry.reviewed_at, entry.source)
        by_review.setdefault(identity, []).append(detail)
        entries.setdefault(identity, entry)
    return [ReviewNote(
        verdict=fmt.VERDICT_LABELS[entry.verdict] if entry.verdict else "", verdict_code=entry.verdict or "",
        note=entry.note, reviewer=entry.reviewer, reviewed_at=fmt.timestamp(entry.reviewed_at),
        source=Path(entry.source).name, conversations=[reviewed_conversation(d) for d in by_review[identity]])
        for identity, entry in entries.items()]


def conflict_text(data: SiteData, run_id: str, case_id: str, summary: str | None) -> str:
    """A warning when this run's conversations of this case with this summary were judged in different ways."""
    if data.reviews is None or summary is None:
        return ""
    verdicts = data.reviews.conflicts.get((run_id, case_id, summary_sha(summary)))
    if not verdicts:
        return ""
    counted = ", ".join(f"{fmt.VERDICT_LABELS[v]} for {n} conversation{'s' if n != 1 else ''}"
                        for v, n in sorted(verdicts.items()))
    return f"Conflicting verdicts for this text: {counted}."


def not_justified(data: SiteData) -> tuple[list[NotJustified], int]:
    """Texts judged not justified (by run, case and summary), at most OVERVIEW_NOT_JUSTIFIED, and how many in all."""
    if data.reviews is None:
        return [], 0
    texts: dict[tuple[str, str, str], list[ConversationDetail]] = {}
    for run_id in data.valid_ids:
        for detail in data.details[run_id]:
            entry = data.reviews.entries.get((run_id, detail.conversation_id))
            if entry is not None and entry.verdict == "not_justified" and detail.customer_summary is not None:
                texts.setdefault((run_id, detail.case_id, detail.customer_summary), []).append(detail)
    listed = []
    for (run_id, case_id, summary), details in list(texts.items())[:OVERVIEW_NOT_JUSTIFIED]:
        notes = [n for n in review_notes(data, details) if n.verdict_code == "not_justified"]
        listed.append(NotJustified(run_label=data.cards[run_id].label, case_id=case_id, case_url=case_url(case_id),
                                   summary=summary, conversations=[reviewed_conversation(d) for d in details],
                                   notes=notes))
    return listed, len(texts)
