"""A forged answer fails validation: finalText is held to the trace's last model response, and the
assessment to what finalText says, so a rewritten answer, summary or score names its file:line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from analysis import validate_runs
from tests.helpers import ROOT, run_wismo

SAMPLE = ROOT / "runs" / "sample-offline"


def sample_copy(tmp_path: Path) -> Path:
    run = tmp_path / "sample-offline"
    shutil.copytree(SAMPLE, run)
    return run


def rewrite_finished(run: Path, change: Any) -> tuple[str, int]:
    """Apply `change` to the first answered conversation's finished line; return its id and line number."""
    events = run / "events.jsonl"
    lines = events.read_text().splitlines()
    for number, line in enumerate(lines, start=1):
        event = json.loads(line)
        if event["type"] == "conversation_finished" and event["status"] == "answered" and event["score"]["passed"]:
            change(event)
            lines[number - 1] = json.dumps(event)
            events.write_text("\n".join(lines) + "\n")
            return event["conversationId"], number
    raise AssertionError("no answered conversation in the sample run")


def forge_everything(event: dict[str, Any]) -> None:
    """A consistent forgery: another answer in finalText, the same in the assessment, a score to match."""
    answer = {**event["assessment"], "deliveredSkus": [], "customerSummary": "Nothing has arrived yet, sorry."}
    event["finalText"] = json.dumps(answer)
    event["assessment"] = answer
    event["score"] = {"fields": {**event["score"]["fields"], "deliveredSkus": False}, "passed": False}


def forge_summary(event: dict[str, Any]) -> None:
    event["assessment"]["customerSummary"] = "Your refund has been issued."


def forge_assessment_and_score(event: dict[str, Any]) -> None:
    event["assessment"]["deliveredSkus"] = []
    event["score"] = {"fields": {**event["score"]["fields"], "deliveredSkus": False}, "passed": False}


def forge_final_text_on_a_fault(event: dict[str, Any]) -> None:
    event["status"] = "tool_error"
    event["error"] = "forged"
    event["assessment"] = None
    event["score"] = {"fields": {k: False for k in event["score"]["fields"]}, "passed": False}


def test_the_sample_run_passes_the_answers_check():
    [check] = [c for c in validate_runs([SAMPLE])[0].checks if c.name == "answers"]
    assert check.passed and check.row_count == 0


@pytest.mark.parametrize(("forge", "problem"), [
    (forge_everything, "finalText is not the text of the last model_response"),
    (forge_summary, "assessment.customerSummary is not what finalText says"),
    (forge_assessment_and_score, "assessment.deliveredSkus is not what finalText says"),
    (forge_final_text_on_a_fault, "finalText on a conversation that ended tool_error"),
])
def test_a_rewritten_answer_fails_validation_naming_its_line(tmp_path, forge, problem):
    run = sample_copy(tmp_path)
    conversation, number = rewrite_finished(run, forge)
    [validation] = validate_runs([run])
    [check] = [c for c in validation.checks if c.name == "answers"]
    assert not validation.passed and not check.passed
    rows = [dict(zip(check.columns, row, strict=True)) for row in check.rows]
    assert any(row["conversation_id"] == conversation and row["attempt"] == 1
               and row["line"] == f"events.jsonl:{number}" and row["problem"].startswith(problem)
               for row in rows), rows
    # Every other check still passes: the forgery is consistent, only the answers check sees it.
    if forge is forge_everything:
        assert [c.name for c in validation.checks if not c.passed] == ["answers"]


def test_validate_prints_the_forged_line_and_fails(tmp_path):
    run = sample_copy(tmp_path)
    _, number = rewrite_finished(run, forge_everything)
    done = run_wismo("validate", str(run), cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"events.jsonl:{number}" in done.stdout and "FAIL" in done.stdout
