"""The check report: every analysis check of every run, with pass/fail and its offending rows."""

from __future__ import annotations

from typing import Any

from wismo.sitegen import fmt
from wismo.sitegen.context import SiteData, conversation_url
from wismo.sitegen.pages import Cell, CheckReportPage, CheckRow, CheckRun

CONVERSATION_COLUMNS = ("conversationId", "conversation_id")


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
                status = f"notice: {fmt.count(check.row_count)} rows"
            else:
                status = f"fail: {fmt.count(check.row_count)} offending rows"
            shown = len(check.rows)
            rows.append(CheckRow(
                name=check.name, description=check.description, sql_file=check.sql_file, severity=check.severity,
                passed=check.passed, status=status, columns=list(check.columns),
                rows=[[_linked(run_id, column, value, pages) for column, value in zip(check.columns, row, strict=False)]
                      for row in check.rows], row_count=check.row_count,
                truncated_note=f"Showing {shown:,} of {check.row_count:,} rows." if shown < check.row_count else ""))
        runs.append(CheckRun(card=data.cards[validation.run.run_id], passed=validation.passed, checks=rows,
                             malformed=list(validation.malformed_lines), superseded=validation.superseded_events))
    return CheckReportPage(runs)
