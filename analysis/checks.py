"""Validation: run every check file against a loaded run and return a RunValidation."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.db import RunDatabase, sql_description
from analysis.model import CheckResult, RunInfo, RunValidation
from core.domain.fields import DEFAULT_ASKS
from core.runformat import EVENTS_FILE

# Enough offending rows to see what is wrong; CheckResult.row_count keeps the true total.
MAX_ROWS = 50


@dataclass(frozen=True)
class CheckSpec:
    """A check: its name, the SQL file that returns its offending rows, and whether it fails the run."""

    name: str
    sql_file: str
    severity: str = "error"


CHECKS = (
    CheckSpec("malformed_lines", "check_malformed_lines.sql"),
    CheckSpec("repaired_lines", "check_repaired_lines.sql", "notice"),
    CheckSpec("foreign_lines", "check_foreign_lines.sql"),
    CheckSpec("event_shape", "check_event_shape.sql"),
    CheckSpec("run_lines", "check_run_lines.sql"),
    CheckSpec("superseded_attempts", "check_superseded_attempts.sql", "notice"),
    CheckSpec("live_attempts", "check_live_attempts.sql"),
    CheckSpec("start_finish", "check_start_finish.sql"),
    CheckSpec("seq", "check_seq.sql"),
    CheckSpec("turns", "check_turns.sql"),
    CheckSpec("tool_results", "check_tool_results.sql"),
    CheckSpec("claimed_counters", "check_claimed_counters.sql"),
    CheckSpec("plan_coverage", "check_plan_coverage.sql"),
    CheckSpec("design_groups", "check_design_groups.sql"),
    CheckSpec("stored_scores", "check_stored_scores.sql"),
    CheckSpec("answers", "check_answers.sql"),
    CheckSpec("score_lines", "check_score_lines.sql"),
    CheckSpec("claim_lines", "check_claim_lines.sql"),
)


def run_info(db: RunDatabase) -> RunInfo:
    """What the manifest says the run is (run_info.sql); built once per loaded run (its cases are parsed here, a
    third of a second at 33,000 cases) and shared by the validation and the summary."""
    found = db.memo.get("run_info")
    if not isinstance(found, RunInfo):
        found = db.memo["run_info"] = _run_info(db)
    return found


def _run_info(db: RunDatabase) -> RunInfo:
    row = db.info
    return RunInfo(
        run_id=row["run_id"] or "", run_dir=db.run_dir, provider=row["provider"] or "",
        provider_label=row["provider_label"] or "", is_language_model=bool(row["is_language_model"]),
        model=row["model"] or "", base_url=row["base_url"], token_counts=row["token_counts"] or "",
        dataset_name=row["dataset_name"] or "", dataset_hash=row["dataset_hash"] or "", clock=row["clock"] or "",
        designs=list(row["designs"] or []), repetitions=int(row["repetitions"] or 0),
        instructions=row["instructions"] or "", tools=json.loads(row["tools"] or "{}"),
        cases=[_case(raw) for raw in json.loads(row["cases"] or "[]")], started_at=row["started_at"],
        finished_at=row["finished_at"], budgets=json.loads(row["budgets"] or "{}"),
        structured_output=json.loads(row["structured_output"]) if row["structured_output"] else None,
        tool_choice=row["tool_choice"], baseline_design=row["baseline"],
        design_sources=json.loads(row["design_sources"] or "null") or {},
        text_tool_calls=bool(row["text_tool_calls"]),
        user_instructions=json.loads(row["user_instructions"]) if row["user_instructions"] else None)


def _case(raw: dict[str, Any]) -> dict[str, Any]:
    # SQL reads every field of the expectation (NULL where not asked); a case shows only what it asks.
    asks = raw.get("asks") or list(DEFAULT_ASKS)
    expected = raw.get("expected") or {}
    return {**raw, "asks": asks, "expected": {name: expected.get(name) for name in asks}}


def finished_line_numbers(events_path: Path, keys: set[tuple[str, int]]) -> dict[tuple[str, int], int]:
    """The 1-based line of each (conversation, attempt)'s conversation_finished line in events.jsonl.

    Read only for a failing check's shown rows, so a passing validation never scans the file again.
    """
    found: dict[tuple[str, int], int] = {}
    with open(events_path, "rb") as stream:
        for number, raw in enumerate(stream, start=1):
            if b'"conversation_finished"' not in raw:
                continue
            try:
                event = json.loads(raw)
            except ValueError:
                continue
            key = (event.get("conversationId"), event.get("attempt")) if isinstance(event, dict) else None
            if key in keys and event.get("type") == "conversation_finished":
                found[key] = number  # the last such line is the one read (as DuckDB's any_value may not be)
    return found


def _with_lines(db: RunDatabase, columns: list[str], rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Rows with their `line` column filled in as events.jsonl:N (the run's folder heads the report)."""
    if "line" not in columns or not rows:
        return rows
    at, conversation, attempt = columns.index("line"), columns.index("conversation_id"), columns.index("attempt")
    events = Path(db.run_dir) / EVENTS_FILE
    numbers = finished_line_numbers(events, {(row[conversation], row[attempt]) for row in rows})
    return [(*row[:at], f"{EVENTS_FILE}:{numbers[key]}" if (key := (row[conversation], row[attempt])) in numbers
             else None, *row[at + 1:]) for row in rows]


def run_check(db: RunDatabase, spec: CheckSpec) -> CheckResult:
    """One check's offending rows (the first MAX_ROWS of them) and their total."""
    columns, rows, total = db.query_limited(spec.sql_file, MAX_ROWS)
    rows = _with_lines(db, columns, rows)
    return CheckResult(name=spec.name, description=sql_description(spec.sql_file), sql_file=spec.sql_file,
                       columns=columns, rows=rows, row_count=total, severity=spec.severity)


def validate(db: RunDatabase) -> RunValidation:
    """Every check on a loaded run, with the superseded and malformed-line totals."""
    checks = [run_check(db, spec) for spec in CHECKS]
    [totals] = db.query_dicts("validation_totals.sql")
    return RunValidation(run=run_info(db), checks=checks,
                         malformed_lines=[(m["line_no"], m["reason"]) for m in totals["malformed"]],
                         superseded_events=int(totals["superseded_events"]))
