"""Each check catches its own planted fault in a copy of the recorded sample run, and passes without it."""

from __future__ import annotations

import json

import pytest

from analysis import validate_runs
from analysis.checks import MAX_ROWS
from analysis.model import RunValidation
from tests.analysis.conftest import SAMPLE_CONVERSATIONS, RunCopy, dumps

FINISHED_WITH_TOOLS = "delivered-on-time.granular.r1"


def validation(run: RunCopy) -> RunValidation:
    [result] = validate_runs([run.path])
    return result


def check(result: RunValidation, name: str):
    return next(c for c in result.checks if c.name == name)


def failing(result: RunValidation) -> set[str]:
    return {c.name for c in result.checks if not c.passed}


def rows_as_dicts(result: RunValidation, name: str) -> list[dict]:
    found = check(result, name)
    return [dict(zip(found.columns, row, strict=True)) for row in found.rows]


def is_event(conversation: str, event_type: str):
    return lambda e: e.get("conversationId") == conversation and e["type"] == event_type


def test_the_untouched_run_passes_every_check(sample_copy):
    result = validation(sample_copy)
    assert result.passed, [(c.name, c.rows[:3]) for c in result.checks if c.row_count]
    assert all(c.row_count == 0 for c in result.checks)
    assert result.malformed_lines == [] and result.superseded_events == 0
    assert {c.name for c in result.checks} >= {
        "malformed_lines", "foreign_lines", "start_finish", "claimed_counters", "tool_results", "seq", "turns",
        "plan_coverage", "design_groups", "stored_scores", "superseded_attempts", "repaired_lines"}


def test_a_wrong_counter(sample_copy):
    sample_copy.edit(is_event(FINISHED_WITH_TOOLS, "conversation_finished"),
                     lambda e: e["claimed"].update(turns=e["claimed"]["turns"] + 1))
    result = validation(sample_copy)
    assert failing(result) == {"claimed_counters"}
    [row] = rows_as_dicts(result, "claimed_counters")
    assert row["conversation_id"] == FINISHED_WITH_TOOLS and row["counter"] == "turns"
    assert row["claimed"] == row["recomputed"] + 1


@pytest.mark.parametrize("counter", ["toolCalls", "inputTokens", "outputTokens", "elapsedMs"])
def test_every_claimed_counter_is_held_to_the_events(sample_copy, counter):
    sample_copy.edit(is_event(FINISHED_WITH_TOOLS, "conversation_finished"),
                     lambda e: e["claimed"].update({counter: e["claimed"][counter] + 50}))
    result = validation(sample_copy)
    assert failing(result) == {"claimed_counters"}
    assert [r["counter"] for r in rows_as_dicts(result, "claimed_counters")] == [counter]


def test_a_check_with_more_rows_than_shown_keeps_its_true_count(sample_copy):
    lines = []
    for line in sample_copy.lines():
        event = json.loads(line)
        if event["type"] == "conversation_finished":
            event["claimed"].update(turns=event["claimed"]["turns"] + 1, toolCalls=event["claimed"]["toolCalls"] + 1)
            line = dumps(event)
        lines.append(line)
    sample_copy.write_lines(lines)
    found = check(validation(sample_copy), "claimed_counters")
    assert found.row_count == 2 * SAMPLE_CONVERSATIONS and len(found.rows) == MAX_ROWS  # 2 counters each
    shown = [(r[0], r[2]) for r in found.rows]
    assert shown == sorted(shown) and shown[:2] == [(shown[0][0], "toolCalls"), (shown[0][0], "turns")]


def test_an_exact_elapsed_time_off_by_2_ms_fails(sample_copy):
    # The recorder stamps both lines with the clock readings it computes elapsedMs from: no tolerance.
    sample_copy.edit(is_event(FINISHED_WITH_TOOLS, "conversation_finished"),
                     lambda e: e["claimed"].update(elapsedMs=e["claimed"]["elapsedMs"] + 2))
    assert "claimed_counters" in failing(validation(sample_copy))


def test_an_older_run_s_elapsed_time_within_its_tolerance_passes(sample_copy):
    # Runs recorded before elapsedExact took the two from different clocks: held within 5 ms + 1 %.
    def older(event):
        event["claimed"].pop("elapsedExact", None)
        event["claimed"]["elapsedMs"] += 2
    sample_copy.edit(is_event(FINISHED_WITH_TOOLS, "conversation_finished"), older)
    assert validation(sample_copy).passed


def test_a_missing_result(sample_copy):
    lines = sample_copy.lines()
    index = sample_copy.index_of(is_event(FINISHED_WITH_TOOLS, "tool_result"))
    del lines[index]
    sample_copy.write_lines(lines)
    result = validation(sample_copy)
    assert "tool_results" in failing(result)
    [row] = rows_as_dicts(result, "tool_results")
    assert row["conversation_id"] == FINISHED_WITH_TOOLS and (row["calls"], row["results"]) == (6, 5)


def test_a_result_with_another_call_id(sample_copy):
    sample_copy.edit(is_event(FINISHED_WITH_TOOLS, "tool_result"), lambda e: e.update(callId="call_9_9"))
    result = validation(sample_copy)
    assert failing(result) == {"tool_results"}
    [row] = rows_as_dicts(result, "tool_results")
    assert row["conversation_id"] == FINISHED_WITH_TOOLS and "call ids" in row["problem"]


def test_a_duplicated_line(sample_copy):
    lines = sample_copy.lines()
    index = sample_copy.index_of(is_event(FINISHED_WITH_TOOLS, "model_request"))
    lines.insert(index + 1, lines[index])
    sample_copy.write_lines(lines)
    result = validation(sample_copy)
    assert "seq" in failing(result)
    rows = rows_as_dicts(result, "seq")
    assert [r["conversation_id"] for r in rows] == [FINISHED_WITH_TOOLS]
    assert "used more than once" in rows[0]["problem"]


def test_a_gap_in_seq(sample_copy):
    sample_copy.edit(is_event(FINISHED_WITH_TOOLS, "conversation_finished"), lambda e: e.update(seq=e["seq"] + 1))
    result = validation(sample_copy)
    assert failing(result) == {"seq"}
    [row] = rows_as_dicts(result, "seq")
    assert row["conversation_id"] == FINISHED_WITH_TOOLS and "1 seq missing" in row["problem"]


def test_a_truncated_last_line(sample_copy):
    lines = sample_copy.lines()
    lines[-1] = lines[-1][: len(lines[-1]) // 2]
    sample_copy.write_lines(lines, final_newline=False)
    result = validation(sample_copy)
    assert "malformed_lines" in failing(result)
    [row] = rows_as_dicts(result, "malformed_lines")
    assert row["line_no"] == len(lines) and row["reason"].startswith("not JSON")
    assert result.malformed_lines == [(len(lines), row["reason"])]


def test_a_truncated_line_cut_inside_a_character(sample_copy):
    partial = '{"v":1,"type":"tool_result","runId":"sample-offline","text":"caf\u00e9 \u2013 de'.encode()
    data = sample_copy.events_path.read_bytes() + partial.decode("unicode_escape").encode()
    cut = len(data) - 4  # " de" and the last byte of the three-byte dash go: E2 80 stays
    sample_copy.events_path.write_bytes(data[:cut])
    line_no = data[:cut].count(b"\n") + 1
    result = validation(sample_copy)
    assert [r["line_no"] for r in rows_as_dicts(result, "malformed_lines")] == [line_no]


def test_blank_and_garbled_lines_in_the_middle_keep_exact_line_numbers(sample_copy):
    lines = sample_copy.lines()
    lines[10:10] = ["", "   ", "[1, 2]", '{"v":2,"type":"run_started"}', "not json"]
    sample_copy.write_lines(lines)
    result = validation(sample_copy)
    assert failing(result) == {"malformed_lines"}
    assert [line for line, _ in result.malformed_lines] == [11, 12, 13, 14, 15]
    reasons = [reason for _, reason in result.malformed_lines]
    assert reasons[2] == "not an event object with a type" and reasons[3].startswith("schema version 2")


def test_a_foreign_line(sample_copy):
    lines = sample_copy.lines()
    foreign = json.loads(lines[5])
    foreign["runId"] = "another-run"
    lines.insert(20, dumps(foreign))
    sample_copy.write_lines(lines)
    result = validation(sample_copy)
    assert failing(result) == {"foreign_lines"}
    [row] = rows_as_dicts(result, "foreign_lines")
    assert row["run_id"] == "another-run" and row["conversation_id"] == foreign["conversationId"]


def test_a_tampered_score(sample_copy):
    sample_copy.edit(is_event(FINISHED_WITH_TOOLS, "conversation_finished"),
                     lambda e: e["score"]["fields"].update(deliveryEstimate=False))
    result = validation(sample_copy)
    assert failing(result) == {"stored_scores"}
    rows = rows_as_dicts(result, "stored_scores")
    assert [(r["conversation_id"], r["field"], r["stored_value"], r["recomputed"]) for r in rows] == [
        (FINISHED_WITH_TOOLS, "deliveryEstimate", False, True)]


def test_a_tampered_answer_no_longer_matches_its_stored_score(sample_copy):
    sample_copy.edit(is_event(FINISHED_WITH_TOOLS, "conversation_finished"),
                     lambda e: e["assessment"].update(deliveredSkus=["DOCK-USB-C", "DOCK-USB-C"]))
    rows = rows_as_dicts(validation(sample_copy), "stored_scores")
    assert {r["field"] for r in rows} == {"deliveredSkus", "passed"}


def test_a_missing_conversation(sample_copy):
    sample_copy.write_lines([line for line in sample_copy.lines() if FINISHED_WITH_TOOLS not in line])
    result = validation(sample_copy)
    assert failing(result) == {"plan_coverage"}
    [row] = rows_as_dicts(result, "plan_coverage")
    assert (row["conversation_id"], row["problem"]) == (FINISHED_WITH_TOOLS, "missing")


def test_an_unfinished_conversation(sample_copy):
    lines = sample_copy.lines()
    del lines[sample_copy.index_of(is_event(FINISHED_WITH_TOOLS, "conversation_finished"))]
    sample_copy.write_lines(lines)
    result = validation(sample_copy)
    assert {"start_finish", "plan_coverage"} <= failing(result)
    assert rows_as_dicts(result, "start_finish")[0]["finished_lines"] == 0


def test_a_conversation_started_that_differs_from_the_plan(sample_copy):
    sample_copy.edit(is_event(FINISHED_WITH_TOOLS, "conversation_started"), lambda e: e.update(repetition=2))
    result = validation(sample_copy)
    assert failing(result) == {"plan_coverage"}
    assert rows_as_dicts(result, "plan_coverage")[0]["problem"] == "differs from the plan"


def test_turns_out_of_order(sample_copy):
    sample_copy.edit(is_event(FINISHED_WITH_TOOLS, "model_response"), lambda e: e.update(turn=2))
    result = validation(sample_copy)
    assert failing(result) == {"turns"}
    assert {r["conversation_id"] for r in rows_as_dicts(result, "turns")} == {FINISHED_WITH_TOOLS}


def test_an_unknown_event_type(sample_copy):
    sample_copy.edit(is_event(FINISHED_WITH_TOOLS, "tool_call"), lambda e: e.update(type="tool_cal"))
    result = validation(sample_copy)
    assert "event_shape" in failing(result)
    assert rows_as_dicts(result, "event_shape")[0]["example"] == "unknown event type tool_cal"


def test_a_second_attempt_that_was_not_superseded(sample_copy):
    lines = sample_copy.lines()
    again = [json.loads(line) for line in lines if FINISHED_WITH_TOOLS in line]
    for event in again:
        event["attempt"] = 2
    sample_copy.write_lines(lines + [dumps(e) for e in again])
    result = validation(sample_copy)
    assert failing(result) == {"live_attempts"}
    [row] = rows_as_dicts(result, "live_attempts")
    assert (row["conversation_id"], row["attempt"], row["live_attempt"]) == (FINISHED_WITH_TOOLS, 1, 2)


def test_a_superseded_attempt_is_excluded_and_counted(sample_copy):
    lines = sample_copy.lines()
    first_try = [json.loads(line) for line in lines if FINISHED_WITH_TOOLS in line][:4]
    retry = [json.loads(line) for line in lines if FINISHED_WITH_TOOLS in line]
    for event in first_try:
        event["attempt"] = 1
    for event in retry:
        event["attempt"] = 2
    others = [line for line in lines if FINISHED_WITH_TOOLS not in line]
    marker = {"v": 1, "type": "attempt_superseded", "runId": "sample-offline", "ts": retry[0]["ts"],
              "conversationId": FINISHED_WITH_TOOLS, "attempt": 1, "reason": "no conversation_finished"}
    sample_copy.write_lines([*others[:-1], *map(dumps, first_try), dumps(marker), *map(dumps, retry), others[-1]])
    result = validation(sample_copy)
    assert result.passed
    assert result.superseded_events == 4
    notice = check(result, "superseded_attempts")
    assert notice.severity == "notice" and notice.row_count == 1 and notice.passed
