"""Case pages: one per case, every valid run's designs side by side, repetitions grouped by their summary.

Two runs sit side by side where they fit; three or more are stacked, one run per row, so that the page
never scrolls sideways (style.css lays both out). A run's designs wrap the same way. Where a run must
name its baseline (three or more designs, or a baseline that is not the first), each column says its
role, and every other design its difference from the baseline on this case.
"""

from __future__ import annotations

import json
import statistics
from typing import Any

from analysis.labels import FIELD_LABELS
from analysis.model import ConversationDetail
from core.domain.fields import ASSESSMENT_FIELDS, DEFAULT_ASKS
from wismo.sitegen import fmt
from wismo.sitegen.context import SiteData, case_url, compare_anchor, conversation_url, review_counts
from wismo.sitegen.marks import summary_pieces, unchecked_notes
from wismo.sitegen.pages import (
    CaseColumn,
    CasePage,
    CaseRun,
    CompareConversation,
    CompareRepetition,
    FieldCell,
    Link,
    RepetitionRow,
    SummaryGroup,
)
from wismo.sitegen.timeline import span_ms, timeline
from wismo.sitegen.verdicts import conflict_text, review_notes


def asked_fields(expected: dict[str, Any]) -> list[str]:
    """The answer fields a case asks: those its expectation holds (the default question's when it holds none)."""
    return [name for name in ASSESSMENT_FIELDS if name in expected] or list(DEFAULT_ASKS)


def _cell(name: str, value: Any, expected: Any, ok: bool | None, answered: bool = True) -> FieldCell:
    """One field in words (codes and null in plain words), the raw values kept for the tooltip where they differ."""
    words, raw = (fmt.field_words(name, value), fmt.field_value(value)) if answered else (fmt.DASH, fmt.DASH)
    expected_words, expected_raw = fmt.field_words(name, expected), fmt.field_value(expected)
    return FieldCell(FIELD_LABELS[name], words, expected_words, ok, code=raw if raw != words else "",
                     expected_code=expected_raw if expected_raw != expected_words else "")


def field_cells(detail: ConversationDetail, expected: dict[str, Any]) -> list[FieldCell]:
    """The asked fields of the answer against the expectation, using the scorer's verdict per field."""
    cells = []
    for name in asked_fields(expected):
        if detail.assessment is None:
            cells.append(_cell(name, None, expected.get(name), None, answered=False))
        else:
            cells.append(_cell(name, detail.assessment.get(name), expected.get(name),
                               bool(detail.field_scores.get(name))))
    return cells


def expected_cells(expected: dict[str, Any]) -> list[FieldCell]:
    """The expectation alone, for the top of a case page."""
    return [_cell(n, expected.get(n), expected.get(n), None) for n in asked_fields(expected)]


def repetition_row(data: SiteData, detail: ConversationDetail) -> RepetitionRow:
    """One conversation's figures and link."""
    return RepetitionRow(
        repetition=detail.repetition, conversation_id=detail.conversation_id, status=detail.status,
        passed=detail.passed, turns=fmt.count(detail.turns), tool_calls=fmt.count(detail.tool_calls),
        tokens=fmt.count(detail.total_tokens), time=fmt.ms(detail.elapsed_ms),
        url=conversation_url(detail.run_id, detail.conversation_id),
        verdict=data.verdict(detail.run_id, detail.conversation_id),
        ending=fmt.ending_words(detail.status, detail.budget_hit))


def ending_text(detail: ConversationDetail) -> str:
    """The conversation's error in words: for an invalid answer, the parser's reason; "" when it has none."""
    if not detail.error:
        return ""
    error = detail.error.rstrip(". ")
    if detail.status == "invalid_answer":
        return f"The final text could not be read as an answer: {error}."
    return f"Error: {error}."


def no_summary_reason(detail: ConversationDetail) -> str:
    """Why a conversation has no customer summary, with the reason recorded (an invalid answer's parse error)."""
    reason = (f"No customer summary: the conversation {fmt.ending_words(detail.status, detail.budget_hit)} "
              f"({fmt.ending_code(detail.status, detail.budget_hit)})")
    ending = ending_text(detail)
    return f"{reason}. {ending}" if ending else reason + "."


def _group_key(detail: ConversationDetail) -> str:
    # Same summary and same answer: one group. Conversations without a summary group by their status.
    if detail.customer_summary is None:
        return json.dumps(["no-summary", detail.status, detail.budget_hit, detail.error,
                           detail.final_text if detail.status == "invalid_answer" else None])
    return json.dumps(["summary", detail.customer_summary, detail.assessment], sort_keys=True)


def summary_groups(data: SiteData, details: list[ConversationDetail], expected: dict[str, Any]) -> list[SummaryGroup]:
    """Group repetitions that gave the same summary (and answer), in order of their first repetition."""
    grouped: dict[str, list[ConversationDetail]] = {}
    for detail in sorted(details, key=lambda d: d.repetition):
        grouped.setdefault(_group_key(detail), []).append(detail)
    groups = []
    for members in grouped.values():
        first = members[0]
        pieces, notes = summary_pieces(first.customer_summary or "",
                                       data.conversation_findings(first.run_id, first.conversation_id))
        cells = field_cells(first, expected)
        groups.append(SummaryGroup(
            has_summary=first.customer_summary is not None, pieces=pieces, findings=notes,
            no_summary_reason="" if first.customer_summary is not None else no_summary_reason(first),
            count=len(members), fields=cells, mismatches=sum(c.ok is False for c in cells),
            passed=all(m.passed for m in members), repetitions=[repetition_row(data, m) for m in members],
            reviews=review_notes(data, members),
            conflict=conflict_text(data, first.run_id, first.case_id, first.customer_summary),
            invalid_text=first.final_text if first.status == "invalid_answer" else None,
            unchecked=unchecked_notes(data.conversation_unchecked(first.run_id, first.conversation_id))))
    return groups


# From this many runs on, a case page stacks the runs (one per row): side by side they would not fit 1440 px.
STACK_RUNS_FROM = 3


def _passed(details: list[ConversationDetail]) -> str:
    return f"{sum(d.passed for d in details)}/{len(details)}"


def versus_baseline(baseline: str, mine: list[ConversationDetail], theirs: list[ConversationDetail]) -> str:
    """One design against the baseline on one case: both pass counts, and the median difference in total tokens
    over the repetitions both answered correctly (a cheaper wrong answer is no saving, as on the overview)."""
    passed = f"passed {_passed(mine)}, {baseline} {_passed(theirs)}"
    by_repetition = {d.repetition: d for d in theirs}
    both = [(d, by_repetition[d.repetition]) for d in mine
            if d.passed and d.repetition in by_repetition and by_repetition[d.repetition].passed]
    if not both:
        return f"{passed}; no repetition both answered correctly, so no like-for-like cost comparison."
    differences = [d.total_tokens - b.total_tokens for d, b in both
                   if d.total_tokens is not None and b.total_tokens is not None]
    repetitions = f"{len(both)} repetition{'s' * (len(both) != 1)} both answered correctly"
    if not differences:
        return f"{passed}; no tokens reported over the {repetitions}."
    median = fmt.signed_metric("totalTokens", statistics.median(differences))
    return f"{passed}; total tokens {median} per repetition (median over the {repetitions})."


def case_runs(data: SiteData, case_id: str, expected: dict[str, Any]) -> list[CaseRun]:
    """Every valid run's designs for one case, in the runs' order and each run's design order."""
    runs: dict[str, list[CaseColumn]] = {}
    for run_id, design in data.columns():
        details = data.by_case.get((run_id, case_id, design), [])
        head, model = data.column_head(run_id, design)
        info = data.summaries[run_id].run
        role = versus = ""
        if len(info.designs) > 1:  # every run of several designs, two included: the per-case difference
            baseline = info.baseline
            role = "baseline" if design == baseline else f"vs {baseline}"
            versus = ("The other designs are compared with it." if design == baseline else
                      versus_baseline(baseline, details, data.by_case.get((run_id, case_id, baseline), [])))
        runs.setdefault(run_id, []).append(CaseColumn(
            card=data.cards[run_id], design=head, model=model,
            passed=f"{_passed(details)} passed",
            reviews=review_counts(data, run_id, design, case_id),
            groups=summary_groups(data, details, expected), role=role, versus=versus))
    return [CaseRun(data.cards[run_id], columns, compare_repetitions(data, run_id, case_id))
            for run_id, columns in runs.items()]


def _outcome(conversations: list[ConversationDetail]) -> str:
    passed = [d.design for d in conversations if d.passed]
    if len(passed) == len(conversations):
        return "all passed" if len(conversations) > 2 else "both passed"
    if not passed:
        return "none passed" if len(conversations) > 2 else "neither passed"
    return "only " + ", ".join(passed) + " passed"


def compare_repetitions(data: SiteData, run_id: str, case_id: str) -> list[CompareRepetition]:
    """Each repetition of the case with every design's conversation side by side (none for one design)."""
    info = data.summaries[run_id].run
    if len(info.designs) < 2:
        return []
    by_repetition: dict[int, list[ConversationDetail]] = {}
    for design in info.designs:
        for detail in data.by_case.get((run_id, case_id, design), []):
            by_repetition.setdefault(detail.repetition, []).append(detail)
    slug = data.cards[run_id].slug
    result = []
    for repetition, conversations in sorted(by_repetition.items()):
        # One time axis for the repetition's conversations, so their lengths compare at a glance.
        axis = max((s for d in conversations if (s := span_ms(d)) is not None), default=None)
        shown = []
        for detail in conversations:
            pieces, _ = summary_pieces(detail.customer_summary or "",
                                       data.conversation_findings(run_id, detail.conversation_id))
            shown.append(CompareConversation(
                design=detail.design, url=conversation_url(run_id, detail.conversation_id), passed=detail.passed,
                figures=f"{detail.turns} request{'s' * (detail.turns != 1)} · {detail.tool_calls} tool call"
                        f"{'s' * (detail.tool_calls != 1)} · {fmt.count(detail.total_tokens)} tokens · "
                        f"{fmt.ms(detail.elapsed_ms)}",
                pieces=pieces, no_summary_reason="" if detail.customer_summary is not None
                else no_summary_reason(detail), timeline=timeline(detail, axis_ms=axis)))
        result.append(CompareRepetition(repetition, compare_anchor(slug, repetition), shown, _outcome(conversations)))
    return result


def build_case_pages(data: SiteData) -> list[CasePage]:
    """One page per case of the valid runs, with links to the previous and next case."""
    case_ids = list(data.cases)
    pages = []
    for i, case_id in enumerate(case_ids):
        case = data.cases[case_id]
        expected = case.get("expected", {})
        runs = case_runs(data, case_id, expected)
        previous = Link(case_ids[i - 1], case_url(case_ids[i - 1])) if i > 0 else None
        following = Link(case_ids[i + 1], case_url(case_ids[i + 1])) if i + 1 < len(case_ids) else None
        pages.append(CasePage(case_id=case_id, order_id=case.get("orderId", ""), question=case.get("question", ""),
                              expected=expected_cells(expected), runs=runs,
                              invalid_runs=[data.cards[r] for r in data.invalid_ids], previous=previous,
                              next=following, stacked=len(runs) >= STACK_RUNS_FROM))
    return pages
