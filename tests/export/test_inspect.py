"""`wismo export --format inspect`: the sample run read back by Inspect's own `read_eval_log`."""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest

from tests.export.tampered import run_failing_validation
from tests.helpers import ROOT, events_of, run_wismo

inspect_log = pytest.importorskip("inspect_ai.log", reason="inspect-ai: pip install '.[test]'")

SAMPLE_RUN = ROOT / "runs" / "sample-offline"


def export(run_dir: Path, out: Path, *extra: str) -> None:
    result = run_wismo("export", str(run_dir), "--format", "inspect", "--out", str(out), *extra, cwd=ROOT)
    assert result.returncode == 0, result.stderr


@pytest.fixture(scope="module", params=["json", "eval"])
def sample_log(request, tmp_path_factory):
    out = tmp_path_factory.mktemp("inspect") / f"sample.{request.param}"
    export(SAMPLE_RUN, out)
    return inspect_log.read_eval_log(str(out))


def test_samples_are_the_conversations_each_scored_as_recorded(sample_log):
    events = events_of(SAMPLE_RUN)
    finished = {e["conversationId"]: e for e in events if e["type"] == "conversation_finished"}
    started = {e["conversationId"]: e for e in events if e["type"] == "conversation_started"}
    assert len(sample_log.samples) == len(finished) == 72
    assert len({(s.id, s.epoch) for s in sample_log.samples}) == 72
    manifest = json.loads((SAMPLE_RUN / "manifest.json").read_text())
    assert {s.epoch for s in sample_log.samples} == set(range(1, manifest["repetitions"] + 1))
    for sample in sample_log.samples:
        conversation = sample.metadata["conversation_id"]
        end, start = finished[conversation], started[conversation]
        assert sample.id == f"{start['caseId']}.{start['design']}" and sample.epoch == start["repetition"]
        assert sample.metadata["design"] == start["design"]
        score = sample.scores["wismo_answer"]
        assert score.value == ("C" if end["score"]["passed"] else "I")
        assert score.metadata["fields"] == end["score"]["fields"]
        assert score.answer == end["finalText"]
        usage = sample.model_usage[manifest["model"]]
        assert usage.total_tokens == end["claimed"]["inputTokens"] + end["claimed"]["outputTokens"]
        assert usage.output_tokens == end["claimed"]["outputTokens"]
        seconds = (datetime.fromisoformat(end["ts"]) - datetime.fromisoformat(start["ts"])).total_seconds()
        assert sample.working_time == pytest.approx(seconds, abs=1e-6)
        assert sample.metadata["tokens_estimated"] is True
        assert sample.input == next(c["question"] for c in manifest["cases"] if c["caseId"] == start["caseId"])
    passed = sum(e["score"]["passed"] for e in finished.values())
    (metric,) = sample_log.results.scores[0].metrics.values()
    assert metric.value == pytest.approx(passed / len(finished))
    assert sample_log.eval.task == "wismo/default" and sample_log.eval.model == "scripted/scripted-policy-v1"
    assert sample_log.status == "success" and not sample_log.invalidated
    assert sample_log.eval.dataset.samples * manifest["repetitions"] == len(sample_log.samples)


def test_messages_hold_every_tool_call_and_result_and_the_errors(sample_log):
    events = events_of(SAMPLE_RUN)
    results = {(e["conversationId"], e["callId"]): e for e in events if e["type"] == "tool_result"}
    calls = Counter(e["conversationId"] for e in events if e["type"] == "tool_call")
    for sample in sample_log.samples:
        conversation = sample.metadata["conversation_id"]
        roles = [m.role for m in sample.messages]
        assert roles[:2] == ["system", "user"] and roles[-1] == "assistant"
        asked = [c for m in sample.messages if m.role == "assistant" for c in (m.tool_calls or [])]
        answered = [m for m in sample.messages if m.role == "tool"]
        assert len(asked) == len(answered) == calls[conversation]
        for call, message in zip(asked, answered, strict=True):
            result = results[(conversation, call.id)]
            assert message.tool_call_id == call.id and message.function == call.function == result["name"]
            assert message.text == result["text"]
            assert (message.error is not None) == result["isError"]
        assert sample.output.completion == sample.scores["wismo_answer"].answer
    assert sum(m.error is not None for s in sample_log.samples for m in s.messages if m.role == "tool") \
        == sum(r["isError"] for r in results.values()) > 0


def test_an_unvalidated_export_is_marked_invalidated(tmp_path):
    run = run_failing_validation(tmp_path, "toolCalls")
    out = tmp_path / "run.json"
    refused = run_wismo("export", str(run), "--format", "inspect", "--out", str(out), cwd=ROOT)
    assert refused.returncode == 2 and not out.exists()
    export(run, out, "--unvalidated")
    log = inspect_log.read_eval_log(str(out))
    assert log.invalidated and log.eval.metadata["validated"] is False


def test_an_eval_log_without_inspect_is_one_line_and_a_wrong_suffix_too(tmp_path):
    shadow = tmp_path / "shadow" / "inspect_ai"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('inspect-ai is not installed')\n")
    out = tmp_path / "x.eval"
    missing = run_wismo("export", str(SAMPLE_RUN), "--format", "inspect", "--out", str(out), cwd=ROOT,
                        env={"PYTHONPATH": str(tmp_path / "shadow")})
    assert missing.returncode == 2 and not out.exists()
    (line,) = missing.stderr.strip().splitlines()
    assert "needs the inspect-ai package" in line
    wrong = run_wismo("export", str(SAMPLE_RUN), "--format", "inspect", "--out", str(tmp_path / "x.txt"), cwd=ROOT)
    assert wrong.returncode == 2 and "a .json or .eval file" in wrong.stderr
