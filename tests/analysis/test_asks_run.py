"""A recorded run whose cases ask for part of the answer: validation and metrics count only asked fields."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from analysis import conversation_details, summarize_runs, validate_runs
from analysis.rescore import rescore
from recorder.run.options import RecordOptions
from recorder.run.record import record
from tests.analysis.conftest import RunCopy


@pytest.fixture(scope="module")
def narrow_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs")
    options = RecordOptions(repetitions=1, out_dir=out, run_id="narrow", concurrency=1,
                            case_ids=("payment-taken", "has-everything-arrived", "delivered-on-time"))
    return asyncio.run(record(options)).run_dir


def _copy(run_dir: Path, tmp_path: Path) -> RunCopy:
    target = tmp_path / run_dir.name
    shutil.copytree(run_dir, target)
    return RunCopy(target)


def test_a_run_of_narrow_questions_validates_and_rates_each_field_over_the_cases_that_ask_it(narrow_run):
    [validation] = validate_runs([narrow_run])
    assert validation.passed, [(c.name, c.rows) for c in validation.checks if c.row_count]
    [summary] = summarize_runs([narrow_run])
    for design in summary.designs:
        assert design.conversations == 3 and design.passed == 3
        rates = design.field_pass_rates
        assert rates["deliveredSkus"] == 1.0 and rates["paymentStatus"] == 1.0
        assert rates["delayReasons"] == 1.0  # asked by delivered-on-time only
    cases = {c["caseId"]: c for c in summary.run.cases}
    assert cases["payment-taken"]["asks"] == ["paymentStatus"]
    assert cases["payment-taken"]["expected"] == {"paymentStatus": "captured"}


def test_a_field_not_asked_is_not_counted_as_wrong(narrow_run, tmp_path):
    run = _copy(narrow_run, tmp_path)

    def wrong_unasked_field(event):
        event["assessment"]["deliveredSkus"] = ["NOT-ON-THE-ORDER"]
    # the assessment holds only asked fields; an unasked one, even wrong, changes no score
    run.edit(lambda e: e["type"] == "conversation_finished" and e["conversationId"].startswith("payment-taken"),
             wrong_unasked_field)
    [validation] = validate_runs([run.path])
    assert validation.passed
    [summary] = summarize_runs([run.path])
    assert all(d.field_pass_rates["deliveredSkus"] == 1.0 and d.passed == 3 for d in summary.designs)
    details = {d.conversation_id: d for d in conversation_details(run.path)}
    assert details["payment-taken.focused.r1"].field_scores == {"paymentStatus": True}


def test_a_stored_score_that_scores_a_field_not_asked_fails_validation(narrow_run, tmp_path):
    run = _copy(narrow_run, tmp_path)

    def add_unasked(event):
        event["score"]["fields"]["deliveredSkus"] = False
    run.edit(lambda e: e["type"] == "conversation_finished" and e["conversationId"] == "payment-taken.granular.r1",
             add_unasked)
    [validation] = validate_runs([run.path])
    stored = next(c for c in validation.checks if c.name == "stored_scores")
    assert stored.rows == [("payment-taken.granular.r1", 1, "deliveredSkus", False, None)]


def test_a_missing_verdict_for_an_asked_field_fails_validation(narrow_run, tmp_path):
    run = _copy(narrow_run, tmp_path)
    run.edit(lambda e: e["type"] == "conversation_finished" and e["conversationId"] == "payment-taken.focused.r1",
             lambda event: event["score"]["fields"].pop("paymentStatus"))
    [validation] = validate_runs([run.path])
    stored = next(c for c in validation.checks if c.name == "stored_scores")
    assert ("payment-taken.focused.r1", 1, "paymentStatus", None, True) in stored.rows


def test_rescoring_scores_the_asked_fields_and_its_lines_validate(narrow_run, tmp_path):
    run = _copy(narrow_run, tmp_path)
    result = rescore(run.path)
    assert result.scored == 6 and result.passed == 6 and result.changed == []
    lines = [json.loads(line) for line in (run.path / "scores.jsonl").read_text().splitlines()]
    payment = next(line for line in lines if line["conversationId"] == "payment-taken.granular.r1")
    assert payment["asks"] == ["paymentStatus"] and payment["expected"] == {"paymentStatus": "captured"}
    assert payment["score"] == {"fields": {"paymentStatus": True}, "passed": True}
    [validation] = validate_runs([run.path])
    assert validation.passed, [(c.name, c.rows) for c in validation.checks if c.row_count]


def test_a_resumed_narrow_question_is_asked_the_same_fields(narrow_run, tmp_path):
    from recorder.run.resume import resume

    run = _copy(narrow_run, tmp_path)
    lines = run.lines()
    cut = max(i for i, line in enumerate(lines) if '"conversation_finished"' in line and "payment-taken" in line)
    conversation = json.loads(lines[cut])["conversationId"]
    run.write_lines(lines[:cut] + [line for line in lines[cut + 1:] if '"run_finished"' not in line])
    asyncio.run(resume(run.path))
    started = [e for e in run.events() if e["type"] == "conversation_started" and e["conversationId"] == conversation]
    assert [(e["attempt"], e["asks"]) for e in started] == [(1, ["paymentStatus"]), (2, ["paymentStatus"])]
    [validation] = validate_runs([run.path])
    assert validation.passed, [(c.name, c.rows) for c in validation.checks if c.row_count]
    [summary] = summarize_runs([run.path])
    assert all(d.passed == 3 for d in summary.designs)
