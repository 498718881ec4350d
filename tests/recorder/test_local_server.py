"""`record` against local-server quirks, end to end: fallbacks, early stops, notes and warnings.

The servers are loopback fakes with llama-cpp-python's quirks (wismo.loopback.chat_servers); the
same paths against the real server are in test_real_local_server.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from analysis import validate_runs
from analysis.warnings import called_no_tool
from core.runformat.read import read_event_lines
from recorder.agent.loop import Budgets, Outcome
from recorder.providers.base import ProviderError
from recorder.run.fault_watch import FaultWatch, fault_shape
from recorder.run.local_server import concurrency_note, is_local_url
from recorder.run.options import RecordOptions
from recorder.run.record import RunAborted, record
from recorder.run.resume import resume
from tests.helpers import WISMO, default_cases
from wismo.loopback import FakeServer, Received, Reply, chat_reply, llama_cpp_python, openai_error

# The full questions only: a narrow question about the same order expects fewer fields.
EXPECTED = {case["orderId"]: case["expected"] for case in default_cases() if not case.get("asks")}
CASES = ("delivered-on-time", "carrier-delay", "status-lags-carrier")


def correct_answer(body: dict[str, Any]) -> str:
    """The expected answer for the order the conversation asks about."""
    order = re.search(r"ORD-\d+", body["messages"][1]["content"]).group(0)
    return json.dumps({**EXPECTED[order], "customerSummary": "Here is what we know."})


def options(fake: FakeServer, tmp_path: Path, run_id: str, **overrides: Any) -> RecordOptions:
    settings: dict[str, Any] = {
        "provider": "openai-chat", "model": "local-model", "base_url": fake.url + "/v1", "designs": ("granular",),
        "repetitions": 1, "case_ids": CASES, "concurrency": 1, "out_dir": tmp_path, "run_id": run_id,
        "budgets": Budgets(max_turns=4, max_tool_calls=6, request_timeout_s=20.0)}
    return RecordOptions(**{**settings, **overrides})


def events(run_dir: Path) -> list[dict[str, Any]]:
    return [event for _, event in read_event_lines(run_dir / "events.jsonl").events]


def finished(run_dir: Path) -> dict[str, dict[str, Any]]:
    return {e["conversationId"]: e for e in events(run_dir) if e["type"] == "conversation_finished"}


def assert_valid(run_dir: Path) -> None:
    [validation] = validate_runs([run_dir])
    assert validation.passed, [(c.name, c.rows) for c in validation.checks if not c.passed]


class Switchable:
    """A responder that can be swapped while the server runs (a server fixed between record and resume)."""

    def __init__(self, responder: Any) -> None:
        self.responder = responder

    def __call__(self, received: Received) -> Reply:
        return self.responder(received)


def test_a_llama_cpp_like_server_records_tool_calls_with_no_flag(tmp_path):
    server = llama_cpp_python(answer=correct_answer, empty_message_under_auto=False)
    with server.serve() as fake:
        result = asyncio.run(record(options(fake, tmp_path, "llama", designs=("granular", "focused"))))
    manifest = json.loads((result.run_dir / "manifest.json").read_text())
    assert manifest["toolChoice"] == "auto"
    answer_format = manifest["structuredOutput"]
    assert (answer_format["requested"], answer_format["used"]) == ("auto", "json_object")
    assert [f["rejected"] for f in answer_format["fallbacks"]] == ["json_schema"]  # once for the whole run
    done = finished(result.run_dir)
    assert len(done) == 6 and all(e["status"] == "answered" and e["score"]["passed"] for e in done.values())
    calls = [e for e in events(result.run_dir) if e["type"] == "tool_call"]
    assert {c["name"] for c in calls} == {"get_order", "get_order_support_context"}
    responses = [e for e in events(result.run_dir) if e["type"] == "model_response"]
    assert all(r["usage"]["inputTokens"] > 0 and r["error"] is None for r in responses)
    assert_valid(result.run_dir)


def test_an_empty_message_under_auto_is_kept_as_an_invalid_answer_with_its_reason(tmp_path):
    with llama_cpp_python(answer=correct_answer).serve() as fake:
        result = asyncio.run(record(options(fake, tmp_path, "empty", case_ids=CASES[:1])))
    [end] = finished(result.run_dir).values()
    assert (end["status"], end["error"], end["claimed"]["toolCalls"]) == \
        ("invalid_answer", "the final answer is empty", 1)
    assert_valid(result.run_dir)


def test_a_refused_first_request_stops_the_run_and_resume_continues_after_the_fix(tmp_path):
    responder = Switchable(llama_cpp_python(answer=correct_answer, empty_message_under_auto=False))
    with FakeServer(responder) as fake:
        with pytest.raises(RunAborted) as stopped:
            asyncio.run(record(options(fake, tmp_path, "refused", structured_output="json_schema")))
        message = str(stopped.value)
        assert "first request was refused as malformed" in message and "Input should be" in message
        assert f"wismo doctor --provider openai-chat --base-url {fake.url}/v1 --model local-model" in message
        assert "--resume" in message
        assert len(fake.requests) == 1  # not retried, and no second conversation began
        run_dir = tmp_path / "refused"
        assert list(finished(run_dir)) == ["delivered-on-time.granular.r1"]

        # The server learns json_schema; the resume records the conversations that never began and, by
        # default, re-runs the one the fault ended (its first attempt is superseded, not deleted).
        responder.responder = llama_cpp_python(answer=correct_answer, empty_message_under_auto=False,
                                               reject_json_schema=False)
        result = asyncio.run(resume(run_dir))
    assert result.aborted is None and len(result.outcomes) == 3
    assert {outcome.status for _, outcome in result.outcomes} == {"answered"}
    assert_valid(run_dir)


def test_the_same_error_three_conversations_in_a_row_stops_the_run(tmp_path):
    always = openai_error(500, "CUDA error 2 at ggml-cuda.cu:1234: out of memory", headers={"retry-after-ms": "1"})
    with FakeServer(lambda received: always) as fake:
        cases = tuple(case["caseId"] for case in default_cases())[:5]
        with pytest.raises(RunAborted) as stopped:
            asyncio.run(record(options(fake, tmp_path, "oom", case_ids=cases)))
    assert "3 conversations in a row ended with the same error" in str(stopped.value)
    assert "out of memory" in str(stopped.value)
    assert len(finished(tmp_path / "oom")) == 3
    response = next(e for e in events(tmp_path / "oom") if e["type"] == "model_response")
    assert response["retries"] == 4 and response["retryWaitsS"] == [0.001] * 4


def outcome(error: ProviderError | None, turns: int = 2) -> Outcome:
    status = "provider_error" if error else "answered"
    return Outcome(status, False, turns, 0, None, None, None, 1.0, provider_error=error)


def test_the_fault_watch_counts_only_the_same_error_in_a_row():
    watch = FaultWatch("wismo doctor --provider openai-chat --model m")
    oom = [ProviderError("server_error", f"server error (500): slot {n} out of memory", status=500) for n in (1, 2)]
    assert fault_shape(outcome(oom[0])) == fault_shape(outcome(oom[1]))  # the numbers differ, the shape does not
    assert watch.observe(outcome(oom[0])) is None
    assert watch.observe(outcome(None)) is None  # an answered conversation breaks the row
    assert watch.observe(outcome(oom[1])) is None
    assert watch.observe(outcome(ProviderError("connection", "refused"))) is None
    assert watch.observe(outcome(oom[0])) is None and watch.observe(outcome(oom[1])) is None
    assert "3 conversations in a row" in watch.observe(outcome(oom[0]))
    # A bad request after the first turn (a context overflow, say) belongs to that conversation only.
    assert FaultWatch("d").observe(outcome(ProviderError("bad_request", "context length exceeded"), turns=3)) is None
    # A first request refused for its content (not its shape) is one conversation's fault until it repeats.
    refused = ProviderError("bad_request", "upstream refused", status=400)
    assert FaultWatch("d").observe(outcome(refused, turns=1)) is None
    assert "refused as malformed" in FaultWatch("d").observe(
        outcome(ProviderError("bad_request", "refused the request (500): Input should be 'text'", status=500), turns=1))


def test_a_request_abandoned_on_a_local_server_is_noted_on_the_next_conversation(tmp_path):
    slow_first = {"n": 0}
    server = llama_cpp_python(answer=correct_answer, empty_message_under_auto=False)

    def responder(received: Received) -> Reply:
        slow_first["n"] += 1
        reply = server(received)
        return Reply(reply.status, reply.body, reply.headers, delay_s=1.5) if slow_first["n"] == 1 else reply

    with FakeServer(responder) as fake:
        result = asyncio.run(record(options(fake, tmp_path, "abandoned", case_ids=CASES[:2],
                                            budgets=Budgets(max_turns=4, request_timeout_s=0.5))))
    started = [e for e in events(result.run_dir) if e["type"] == "conversation_started"]
    assert started[0]["afterAbandonedRequest"] is None
    note = started[1]["afterAbandonedRequest"]
    assert (note["conversationId"], note["budgetHit"]) == ("delivered-on-time.granular.r1", "request_timeout")
    assert result.after_abandoned == 1
    assert_valid(result.run_dir)


@pytest.mark.parametrize(("url", "local"), [
    ("http://127.0.0.1:8089/v1", True), ("http://localhost:11434/v1", True), ("http://[::1]:8000/v1", True),
    ("http://192.168.1.20:8000/v1", True), ("http://gpu-box.local:8000/v1", True),
    ("https://api.openai.com/v1", False), ("https://8.8.8.8/v1", False), (None, False)])
def test_local_urls(url, local):
    assert is_local_url(url) is local
    assert (concurrency_note(url, 4) is not None) is local
    assert concurrency_note(url, 1) is None


def test_no_tool_call_is_a_warning_only_when_the_model_answered_at_all():
    assert called_no_tool([0, 0], {"answered": 1, "invalid_answer": 1})
    assert not called_no_tool([0, 2], {"answered": 2})
    # Every request failed or was abandoned: the model was never heard, tools or not.
    assert not called_no_tool([0, 0], {"provider_error": 1, "timeout": 1})


def test_a_design_that_called_no_tool_is_warned_about_in_record_summarize_and_the_site(tmp_path):
    def never_calls_a_tool(received: Received) -> Reply:
        return chat_reply(text=correct_answer(received.body))

    env = {**os.environ}
    with FakeServer(never_calls_a_tool) as fake:
        done = subprocess.run([*WISMO, "record", "--provider", "openai-chat", "--base-url", fake.url + "/v1",
                               "--model", "local-model", "--cases", "delivered-on-time", "--repetitions", "1",
                               "--concurrency", "2", "--out", str(tmp_path), "--run-id", "notools"],
                              capture_output=True, text=True, cwd=tmp_path, timeout=240, env=env)
    assert done.returncode == 0, done.stderr
    assert "is a local server and --concurrency is 2" in done.stderr
    warning = "the model called no tool in any granular conversation: does your server pass the tools"
    assert warning in done.stdout and warning.replace("granular", "focused") in done.stdout

    summary = subprocess.run([*WISMO, "summarize", str(tmp_path / "notools")], capture_output=True, text=True,
                             timeout=240, env=env)
    assert summary.returncode == 0, summary.stderr
    assert f"warning: {warning}" in " ".join(summary.stdout.split())  # wrapped at 100 columns
    assert "requests: structured output json_schema (auto); tool_choice auto" in summary.stdout

    site = tmp_path / "site"
    built = subprocess.run([*WISMO, "build-site", str(tmp_path / "notools"), "--out", str(site)],
                           capture_output=True, text=True, timeout=240, env=env)
    assert built.returncode == 0, built.stderr
    index = (site / "index.html").read_text()
    assert "the model called no tool in any focused conversation" in index
    assert "<dt>Requests</dt><dd>structured output json_schema (auto); tool_choice auto</dd>" in index
