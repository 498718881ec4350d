"""One bad response never takes down a run, and faults are labelled for what they are.

Every test runs `wismo record` as a child process against a loopback model server in its own
process (`python -m wismo.loopback`) that misbehaves on the requests its plan names, with the real
MCP servers.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess

import pytest

from analysis import validate_runs
from recorder.providers import REGISTRY
from recorder.run.options import RecordOptions
from recorder.run.record import record
from tests.helpers import (
    CONVERSATIONS,
    PROVIDER_WIRES,
    WISMO,
    default_cases,
    events_of,
    live_finished,
    run_wismo,
    wait_for,
    without_root_override,
)
from tests.recorder.fake_registry import BuggyProvider
from wismo.loopback.process import loopback_process

KEY = {"WISMO_FAULT_KEY": "sk-fault-test-0a1b2c3d4e5f"}


def provider_args(provider: str, url: str) -> list[str]:
    """The record options that point `provider` at a loopback server."""
    return ["--provider", provider, "--base-url", url + PROVIDER_WIRES[provider][1], "--model", "loop",
            "--api-key-env", "WISMO_FAULT_KEY"]


def assert_validates(run_dir):
    [validation] = validate_runs([run_dir])
    assert validation.passed, [(c.name, c.rows[:3]) for c in validation.checks if not c.passed]


@pytest.mark.parametrize("provider", sorted(PROVIDER_WIRES))
def test_a_malformed_200_ends_only_its_own_conversation_as_a_provider_fault(tmp_path, provider):
    plan = {"faults": [
        {"do": "invalid_json", "order": "ORD-1001", "turn": 2},  # mid-conversation, with tool calls in the history
        {"do": "html", "order": "ORD-1002", "turn": 1},
        {"do": "no_output", "order": "ORD-1003"},
        {"do": "empty", "order": "ORD-1004", "turn": 1},
        {"do": "hang", "seconds": 6, "order": "ORD-1005", "turn": 1},
    ]}
    with loopback_process(PROVIDER_WIRES[provider][0], plan) as server:
        done = run_wismo("record", *provider_args(provider, server.url), "--repetitions", "1", "--concurrency", "7",
                         "--request-timeout", "2", "--out", "runs", "--run-id", "bad", cwd=tmp_path, env=KEY)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    finished = live_finished(tmp_path / "runs" / "bad")
    assert len(finished) == CONVERSATIONS, "every conversation ends, the faulty ones included"
    by_order: dict[str, set[tuple[str, str]]] = {}
    for conversation_id, line in finished.items():
        kind = (line["error"] or "").split(":")[0]
        by_order.setdefault(conversation_id.split(".")[0], set()).add((line["status"], kind))
    malformed = {("provider_error", "malformed_response")}
    assert by_order["delivered-on-time"] == by_order["carrier-delay"] == malformed
    assert by_order["status-lags-carrier"] == by_order["partial-delivery"] == malformed
    assert by_order["tracking-unavailable"] == {("timeout", "no response within 2 s")}
    assert {s for o in ("payment-declined", "missing-warehouse-record") for s, _ in by_order[o]} == {"answered"}
    assert "without any output" in finished["status-lags-carrier.focused.r1"]["error"]
    assert "not JSON" in finished["carrier-delay.granular.r1"]["error"]
    # No innocent conversation was cut off by the others' faults.
    assert not [e for e in events_of(tmp_path / "runs" / "bad")
                if e["type"] == "tool_result" and "Connection closed" in e["text"]]
    assert "malformed_response" in done.stderr and "Re-run them with: wismo record --resume runs/bad" in done.stderr
    assert_validates(tmp_path / "runs" / "bad")


def test_ctrl_c_records_the_conversations_in_flight_as_interrupted_and_prints_the_resume_command(tmp_path):
    run = tmp_path / "runs" / "ctrlc"
    with loopback_process("chat", {"faults": [{"do": "hang", "seconds": 0.5}]}) as server:
        # A terminal sends Ctrl-C to the whole foreground process group: so does this test.
        process = subprocess.Popen([*WISMO, "record", *provider_args("openai-chat", server.url), "--repetitions", "1",
                                    "--concurrency", "4", "--out", "runs", "--run-id", "ctrlc"],
                                   cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   env={**os.environ, **KEY}, start_new_session=True)
        wait_for(lambda: (run / "events.jsonl").exists()
                 and (run / "events.jsonl").read_bytes().count(b'"conversation_finished"') >= 2, what="2 finished")
        os.killpg(process.pid, signal.SIGINT)
        _, stderr = process.communicate(timeout=120)
        assert process.returncode == 130, stderr
        assert "Traceback" not in stderr
        assert "continue with: wismo record --resume runs/ctrlc" in stderr
        events = events_of(run)
        interrupted = [e for e in events if e["type"] == "conversation_finished" and e["status"] == "interrupted"]
        assert interrupted, "conversations in flight end as interrupted"
        assert all("interrupted" in e["error"] for e in interrupted)
        assert not any("deadline" in json.dumps(e) for e in events), "an interruption is not a deadline"
        [end] = [e for e in events if e["type"] == "run_finished"]
        assert "interrupted" in end["aborted"]
        # Every line adds up; the only thing wrong with the run is the conversations it never got to.
        [validation] = validate_runs([run])
        assert {c.name for c in validation.checks if not c.passed} == {"plan_coverage"}
        assert {row[1] for row in next(c for c in validation.checks if c.name == "plan_coverage").rows} == {"missing"}

        done = run_wismo("record", "--resume", str(run), cwd=tmp_path, env=KEY)
    assert done.returncode == 0, done.stderr
    finished = live_finished(run)
    assert len(finished) == CONVERSATIONS and {e["status"] for e in finished.values()} <= {"answered", "invalid_answer"}
    assert all(finished[e["conversationId"]]["attempt"] == 2 for e in interrupted)
    assert_validates(run)


def test_resume_reruns_faults_by_default_and_keeps_them_with_keep_errors(tmp_path):
    run = tmp_path / "runs" / "flaky"
    plan = {"faults": [{"do": "status", "status": 400, "message": "upstream refused", "order": "ORD-1002",
                        "times": 2}]}
    with loopback_process("responses", plan) as server:
        first = run_wismo("record", *provider_args("openai", server.url), "--repetitions", "1",
                          "--cases", "carrier-delay,partial-delivery", "--out", "runs", "--run-id", "flaky",
                          cwd=tmp_path, env=KEY)
        assert first.returncode == 1
        assert "2 × provider_error: bad_request: OpenAI refused the request (400): upstream refused" in first.stderr
        before = (run / "events.jsonl").read_bytes()

        kept = run_wismo("record", "--resume", str(run), "--keep-errors", cwd=tmp_path, env=KEY)
        assert kept.returncode == 0 and "nothing to do" in kept.stdout
        assert (run / "events.jsonl").read_bytes() == before, "nothing to do writes nothing"

        rerun = run_wismo("record", "--resume", str(run), cwd=tmp_path, env=KEY)
    assert rerun.returncode == 0, rerun.stderr
    finished = live_finished(run)
    assert {c: (e["status"], e["attempt"]) for c, e in finished.items()} == {
        "carrier-delay.granular.r1": ("answered", 2), "carrier-delay.focused.r1": ("answered", 2),
        "partial-delivery.granular.r1": ("answered", 1), "partial-delivery.focused.r1": ("answered", 1)}
    superseded = [e for e in events_of(run) if e["type"] == "attempt_superseded"]
    assert sorted(e["conversationId"] for e in superseded) == ["carrier-delay.focused.r1", "carrier-delay.granular.r1"]
    assert all("provider_error" in e["reason"] for e in superseded)
    assert_validates(run)


def test_a_kill_during_start_up_is_not_a_dead_end(tmp_path):
    run = tmp_path / "runs" / "early"
    process = subprocess.Popen([*WISMO, "record", "--repetitions", "1", "--cases", "carrier-delay", "--out", "runs",
                                "--run-id", "early"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    wait_for(run.exists, what="the run folder")
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert not (run / "manifest.json").exists(), "killed during start-up, before the manifest"

    resumed = run_wismo("record", "--resume", str(run), cwd=tmp_path)
    assert resumed.returncode == 2 and "Traceback" not in resumed.stderr
    assert "stopped during start-up" in resumed.stderr and "--run-id early" in resumed.stderr

    again = run_wismo("record", "--repetitions", "1", "--cases", "carrier-delay", "--out", "runs", "--run-id", "early",
                      cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert len(live_finished(run)) == 2
    assert_validates(run)


def test_write_failures_are_one_line_errors_with_their_own_exit_code(tmp_path):
    # A read-only folder (as root, the child gives up the right to ignore permissions).
    locked = tmp_path / "read-only"
    locked.mkdir()
    locked.chmod(0o555)
    done = run_wismo("record", "--repetitions", "1", "--out", str(locked), "--run-id", "r", cwd=tmp_path,
                     preexec_fn=without_root_override)
    assert done.returncode == 3, done.stderr
    assert done.stderr.strip().splitlines() == [f"error: cannot write {locked / 'r'}: Permission denied"]

    # A full disk, as a file-size limit: events.jsonl cannot grow past 60 kB mid-run.
    def small_disk() -> None:
        import resource
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails with EFBIG instead of killing us
        resource.setrlimit(resource.RLIMIT_FSIZE, (60_000, 60_000))

    done = run_wismo("record", "--repetitions", "2", "--out", "runs", "--run-id", "full", cwd=tmp_path,
                     preexec_fn=small_disk)
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    events_path = os.path.join("runs", "full", "events.jsonl")
    assert len(errors) == 1 and errors[0].startswith(f"error: cannot write {events_path}: "), errors
    # Nothing written is lost: every whole line is readable, and a resume with room finishes the run.
    resumed = run_wismo("record", "--resume", "runs/full", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert len(live_finished(tmp_path / "runs" / "full")) == 2 * CONVERSATIONS
    assert_validates(tmp_path / "runs" / "full")


@pytest.mark.parametrize("run_id", ["../escape", "/tmp/absolute", "a/b", ".."])
def test_run_id_is_a_plain_name(tmp_path, run_id):
    done = run_wismo("record", "--out", "runs", "--run-id", run_id, cwd=tmp_path)
    assert done.returncode == 2 and "must be a plain folder name" in done.stderr
    assert not (tmp_path / "runs").exists() and not (tmp_path / "escape").exists()


def test_an_unexpected_exception_ends_only_its_own_conversation(tmp_path, monkeypatch):
    monkeypatch.setitem(REGISTRY, "buggy", BuggyProvider)
    result = asyncio.run(record(RecordOptions(provider="buggy", repetitions=1, concurrency=4, out_dir=tmp_path,
                                              run_id="bug")))
    finished = live_finished(result.run_dir)
    faulty = {c: e for c, e in finished.items() if e["status"] != "answered"}
    about_1004 = [case["caseId"] for case in default_cases() if case["orderId"] == "ORD-1004"]
    assert {c: e["error"] for c, e in faulty.items()} == {
        f"{case}.{d}.r1": "unexpected: RuntimeError: boom while reading the response"
        for case in about_1004 for d in ("granular", "focused")}
    assert len(finished) == CONVERSATIONS and result.errored == 2 * len(about_1004)
    assert_validates(result.run_dir)
