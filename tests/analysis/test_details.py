"""conversation_details and the errors for folders that are not runs."""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from typing import Any

import pytest

from analysis import conversation_details, validate_runs
from core.errors import RunFormatError
from tests.analysis.conftest import SAMPLE_CONVERSATIONS, SAMPLE_RUN


def test_conversation_details_turn_by_turn():
    details = conversation_details(SAMPLE_RUN)
    assert len(details) == SAMPLE_CONVERSATIONS
    first = details[0]
    assert (first.conversation_id, first.design, first.case_id, first.order_id) == (
        "delivered-on-time.granular.r1", "granular", "delivered-on-time", "ORD-1001")
    assert first.passed and all(first.field_scores.values())
    assert first.customer_summary and first.assessment["customerSummary"] == first.customer_summary
    assert first.final_text.startswith("{")
    assert [t.turn for t in first.turn_details] == [1, 2, 3] and first.turns == 3
    assert sum(len(t.tool_calls) for t in first.turn_details) == first.tool_calls
    assert first.input_tokens == sum(t.input_tokens for t in first.turn_details)
    for previous, turn in zip([None, *first.turn_details], first.turn_details, strict=False):
        expected_carried = 0 if previous is None else previous.input_tokens
        assert turn.carried_tokens == expected_carried
        assert turn.carried_tokens + turn.new_tokens == turn.input_tokens
    call = first.turn_details[0].tool_calls[0]
    assert (call.name, call.is_error, call.bytes) == ("get_order", False, len(call.result_text.encode()))
    assert first.turn_details[0].new_items[0]["role"] == "user"


def test_missing_folder_manifest_and_events_are_clear_errors(tmp_path):
    with pytest.raises(RunFormatError, match="not a run folder"):
        validate_runs([tmp_path / "nope"])
    (tmp_path / "run").mkdir()
    with pytest.raises(RunFormatError, match=r"manifest.json: missing"):
        validate_runs([tmp_path / "run"])
    (tmp_path / "run" / "manifest.json").write_text('{"schemaVersion": 1,\n  "runId": ')
    with pytest.raises(RunFormatError, match=r"manifest.json: line 2: not valid JSON"):
        validate_runs([tmp_path / "run"])
    (tmp_path / "run" / "manifest.json").write_text('{"schemaVersion": 2, "runId": "x"}')
    (tmp_path / "run" / "events.jsonl").write_text("")
    with pytest.raises(RunFormatError, match="schema version 2"):
        validate_runs([tmp_path / "run"])
    (tmp_path / "run" / "events.jsonl").unlink()
    (tmp_path / "run" / "manifest.json").write_text('{"schemaVersion": 1, "runId": "x"}')
    with pytest.raises(RunFormatError, match=r"events.jsonl: missing"):
        validate_runs([tmp_path / "run"])


def test_a_line_longer_than_the_default_read_buffer_is_read_whole(sample_copy):
    # 40 MB: past read_json's default 16 MiB buffer, so the load runs again with room for 256 MiB lines.
    long_text = "x" * 40_000_000
    sample_copy.edit(lambda e: e["type"] == "tool_result", lambda e: e.update(text=long_text))
    [validation] = validate_runs([sample_copy.path])
    assert validation.passed, [(c.name, c.rows[:3]) for c in validation.checks if c.row_count]
    results = [c.result_text for d in conversation_details(sample_copy.path) for t in d.turn_details
               for c in t.tool_calls]
    assert long_text in results


Spans = dict[Any, tuple[float, float]]


def _offsets_from_the_file(conversation_id: str) -> tuple[Spans, Spans]:
    """Each request's and tool call's (start, end) in ms after the first request, read from events.jsonl here."""
    lines = [json.loads(line) for line in (SAMPLE_RUN / "events.jsonl").read_text().splitlines()]
    mine = [e for e in lines if e.get("conversationId") == conversation_id]
    at = {id(e): datetime.fromisoformat(e["ts"]) for e in mine}
    start = min(at[id(e)] for e in mine if e["type"] == "model_request")

    def ms(event: dict) -> float:
        return (at[id(event)] - start).total_seconds() * 1000

    turns = {e["turn"]: (ms(e), ms(next(r for r in mine if r["type"] == "model_response" and r["turn"] == e["turn"])))
             for e in mine if e["type"] == "model_request"}
    calls = {e["callId"]: (ms(e), ms(next(r for r in mine if r["type"] == "tool_result"
                                           and r["callId"] == e["callId"])))
             for e in mine if e["type"] == "tool_call"}
    return turns, calls


def test_requests_and_tool_calls_carry_their_own_timestamps_for_the_timeline():
    detail = next(d for d in conversation_details(SAMPLE_RUN) if d.conversation_id == "partial-delivery.granular.r1")
    turns, calls = _offsets_from_the_file(detail.conversation_id)
    got_turns = {t.turn: [t.started_ms, t.finished_ms] for t in detail.turn_details}
    assert sorted(got_turns) == sorted(turns)
    for turn, times in got_turns.items():
        assert times == pytest.approx(list(turns[turn]), abs=1e-3)
    got = {c.call_id: [c.started_ms, c.finished_ms] for t in detail.turn_details for c in t.tool_calls}
    assert sorted(got) == sorted(calls)
    for call_id, times in got.items():
        assert times == pytest.approx(list(calls[call_id]), abs=1e-3)
    assert detail.turn_details[0].started_ms == 0
    # The second request's four calls ran at once: each started before the first of them had returned.
    second = detail.turn_details[1].tool_calls
    assert len(second) == 4 and all(c.started_ms < second[0].finished_ms for c in second[1:])
    # ...which their latencies alone could not show: they add up to more than the calls' span.
    span = max(c.finished_ms for c in second) - min(c.started_ms for c in second)
    assert sum(c.latency_ms for c in second) > span


def test_a_timestamp_that_does_not_parse_leaves_its_offset_unknown(tmp_path):
    run = tmp_path / "run"
    shutil.copytree(SAMPLE_RUN, run)
    events = run / "events.jsonl"
    lines = events.read_text().splitlines()
    target = next(i for i, line in enumerate(lines) if '"type":"tool_result"' in line
                  and '"partial-delivery.granular.r1"' in line)
    event = json.loads(lines[target])
    event["ts"] = "yesterday"
    lines[target] = json.dumps(event, separators=(",", ":"))
    events.write_text("\n".join(lines) + "\n")
    detail = next(d for d in conversation_details(run) if d.conversation_id == "partial-delivery.granular.r1")
    [call] = [c for t in detail.turn_details for c in t.tool_calls if c.call_id == event["callId"]]
    assert call.started_ms is not None and call.finished_ms is None
