"""The check report: every analysis check of every run, with pass/fail and its offending rows."""

from __future__ import annotations

from typing import Any

from wismo.sitegen import fmt
from wismo.sitegen.context import SiteData, conversation_url
from wismo.sitegen.pages import Cell, CheckReportPage, CheckRow, CheckRun

CONVERSATION_COLUMNS = ("conversationId", "conversation_id")

# What would be wrong with the figures if a check failed, in the reader's terms; keyed by analysis.checks.CHECKS
# (tests/site/test_checks_page.py holds every check to a sentence here). The SQL file's own comment follows it.
CHECK_MEANINGS = {
    "malformed_lines": "Lines of the event log that cannot be read: the conversations they belong to would be "
                       "counted incompletely, or not at all.",
    "repaired_lines": "The cut-off last line of a run that was stopped and resumed: reported, never counted, so "
                      "no figure uses it.",
    "foreign_lines": "Lines from another run in this run's log: another run's conversations would be mixed into "
                     "these figures.",
    "event_shape": "Events without a field their type needs: turns, tokens or scores would be counted from "
                   "incomplete events.",
    "run_lines": "The run's start line is missing, repeated or plans another number of conversations: the run's "
                 "totals would not be trustworthy.",
    "superseded_attempts": "Attempts replaced by a resume: kept in the log, left out of every figure.",
    "live_attempts": "A conversation with more than one attempt that counts: it would be counted twice.",
    "start_finish": "A conversation without exactly one start and one finish: it would be missing from the figures "
                    "or counted twice.",
    "seq": "Events missing, repeated or out of order within a conversation: its turns, tool calls and tokens would "
           "be wrong.",
    "turns": "Model requests or responses missing or repeated: turns and tokens per conversation would be wrong.",
    "tool_results": "Tool calls without exactly one result: tool-call counts, and the evidence an answer rests on, "
                    "would be wrong.",
    "claimed_counters": "The totals the recorder wrote at the end of a conversation disagree with its events: "
                        "turns, tool calls, tokens or time would be wrong.",
    "plan_coverage": "Planned conversations missing, or conversations nobody planned: pass rates and savings would "
                     "be over other cases than the plan's.",
    "design_groups": "The baseline is not one of the run's designs, or a (case, repetition) group does not run "
                     "every design exactly once in its own place: every difference against the baseline would pair "
                     "the wrong conversations.",
    "stored_scores": "A stored score disagrees with re-scoring the answer: pass rates would be wrong.",
    "answers": "An answer or summary is not the one the model's last response holds: it was rewritten after the "
               "run, so its score and review would be of text the model never sent.",
    "score_lines": "Lines of the scores file that do not match their conversations: pass rates would be wrong.",
    "claim_lines": "Lines of the claims file that belong to no finished conversation: claim-check findings would be "
                   "miscounted.",
}


def plural(n: int, word: str) -> str:
    """`1 offending row`, `2 offending rows`."""
    return f"{fmt.count(n)} {word}{'s' * (n != 1)}"


def _cell(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, float):
        return f"{value:,.3f}".rstrip("0").rstrip(".")
    return str(value)


def _linked(run_id: str, column: str, value: Any, pages: set[str]) -> Cell:
    # An offending conversation links to its page, so a failure can be traced to the lines behind it.
    if column in CONVERSATION_COLUMNS and isinstance(value, str) and value in pages:
        return Cell(value, conversation_url(run_id, value))
    return Cell(_cell(value))


def build_check_report(data: SiteData) -> CheckReportPage:
    """One section per run; failing checks first, so the reason a run is not shown is at the top."""
    runs = []
    for validation in data.validations:
        run_id = validation.run.run_id
        pages = {d.conversation_id for d in data.details.get(run_id, [])}
        rows = []
        for check in sorted(validation.checks, key=lambda c: (c.passed, c.severity != "error", c.name)):
            if check.row_count == 0:
                status = "pass"
            elif check.severity == "notice":
                status = f"notice: {plural(check.row_count, 'row')}"
            else:
                status = f"fail: {plural(check.row_count, 'offending row')}"
            shown = len(check.rows)
            rows.append(CheckRow(
                name=check.name, meaning=CHECK_MEANINGS.get(check.name, ""), description=check.description,
                sql_file=check.sql_file, severity=check.severity,
                passed=check.passed, status=status, columns=list(check.columns),
                rows=[[_linked(run_id, column, value, pages) for column, value in zip(check.columns, row, strict=False)]
                      for row in check.rows], row_count=check.row_count,
                truncated_note=(f"Showing {shown:,} of {plural(check.row_count, 'row')}."
                                if shown < check.row_count else "")))
        runs.append(CheckRun(card=data.cards[validation.run.run_id], passed=validation.passed, checks=rows,
                             malformed=list(validation.malformed_lines), superseded=validation.superseded_events))
    return CheckReportPage(runs)
