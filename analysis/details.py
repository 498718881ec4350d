"""What the conversation pages show: each finished conversation turn by turn, and claim findings."""

from __future__ import annotations

import json
from typing import Any

from analysis.db import RunDatabase
from analysis.model import ConversationDetail, ToolCallDetail, TurnDetail
from core.domain.fields import ASSESSMENT_FIELDS


def _json(value: str | None) -> Any:
    # DuckDB hands JSON columns over as text.
    return None if value is None else json.loads(value)


def conversations(db: RunDatabase) -> list[ConversationDetail]:
    """Every finished conversation (live attempt) with its turns and tool calls (reads the heavy fields)."""
    db.run_reading_script("load_details.sql")
    calls: dict[tuple[str, int, int], list[ToolCallDetail]] = {}
    for row in db.query_dicts("tool_call_rows.sql"):
        calls.setdefault((row["conversation_id"], row["attempt"], row["turn"]), []).append(ToolCallDetail(
            call_id=row["call_id"], name=row["name"], arguments=row["arguments"], result_text=row["result_text"],
            is_error=row["is_error"], error_kind=row["error_kind"], bytes=row["bytes"],
            latency_ms=row["latency_ms"], lookups=row["lookups"], started_ms=row["started_ms"],
            finished_ms=row["finished_ms"]))
    turns: dict[tuple[str, int], list[TurnDetail]] = {}
    for row in db.query_dicts("turn_rows.sql"):
        key = (row["conversation_id"], row["attempt"])
        turns.setdefault(key, []).append(TurnDetail(
            turn=row["turn"], input_tokens=row["input_tokens"], output_tokens=row["output_tokens"],
            cached_tokens=row["cached_tokens"], carried_tokens=row["carried_tokens"],
            new_tokens=row["new_tokens"], estimated=bool(row["estimated"]), latency_ms=row["latency_ms"],
            request_bytes=row["request_bytes"], history_length=row["history_length"],
            new_items=_json(row["new_items"]) or [], output_items=_json(row["output_items"]) or [],
            tool_calls=calls.get((*key, row["turn"]), []), error=_json(row["error"]), model=row["model"],
            reasoning_tokens=row["reasoning_tokens"], stop_reason=row["stop_reason"],
            answer_format=row["answer_format"], server_timings=row["server_timings"],
            started_ms=row["started_ms"], finished_ms=row["finished_ms"]))
    run_id = db.manifest_value("run_id")
    return [ConversationDetail(
        run_id=run_id, conversation_id=row["conversation_id"], attempt=row["attempt"], case_id=row["case_id"],
        order_id=row["order_id"], design=row["design"], repetition=row["repetition"],
        pair_position=row["pair_position"], status=row["status"], budget_hit=row["budget_hit"],
        error=row["error"], passed=bool(row["passed"]),
        field_scores={name: bool(verdict) for name, verdict in (row["field_scores"] or {}).items()
                      if name in ASSESSMENT_FIELDS and verdict is not None},
        assessment=_json(row["assessment"]), customer_summary=row["customer_summary"],
        final_text=row["final_text"], turns=row["turns"], tool_calls=row["tool_calls"],
        input_tokens=row["input_tokens"], output_tokens=row["output_tokens"], cached_tokens=row["cached_tokens"],
        total_tokens=row["total_tokens"], elapsed_ms=row["elapsed_ms"],
        turn_details=turns.get((row["conversation_id"], row["attempt"]), []),
        uncached_input_tokens=row["uncached_input_tokens"], reasoning_tokens=row["reasoning_tokens"],
        lookups=row["lookups"], tool_result_bytes=row["tool_result_bytes"])
        for row in db.query_dicts("conversation_rows.sql")]


def findings(db: RunDatabase) -> dict[str, list[dict[str, Any]]]:
    """conversationId -> its claim findings (empty when the run has no claims.jsonl)."""
    return _by_conversation(db, "claim_findings.sql")


def unchecked(db: RunDatabase) -> dict[str, list[dict[str, Any]]]:
    """conversationId -> the claims the checker could not check on its summary: never findings, listed apart."""
    return _by_conversation(db, "claim_unchecked.sql")


def _by_conversation(db: RunDatabase, query: str) -> dict[str, list[dict[str, Any]]]:
    by_conversation: dict[str, list[dict[str, Any]]] = {}
    for row in db.query_dicts(query):
        by_conversation.setdefault(row.pop("conversation_id"), []).append(row)
    return by_conversation
