"""`wismo record` end to end: the run folder, secrets, errors, SIGKILL and --resume, and `wismo score`."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from core.errors import WismoError
from core.runformat.read import live_attempts, read_event_lines
from recorder.providers import REGISTRY
from recorder.run.manifest import redact_command_line
from recorder.run.options import RecordOptions
from recorder.run.record import RunAborted, record
from recorder.run.resume import resume
from tests.helpers import WISMO, default_cases

SECRET = "sk-test-5b1f0e6f2c9a4d7e8f00112233445566"


def wismo(*args: str, cwd: Path, env: dict | None = None, timeout: int = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*WISMO, *args], capture_output=True, text=True, cwd=cwd, timeout=timeout,
                          env={**os.environ, **(env or {})})


def test_record_writes_a_complete_run_folder_and_no_secret(tmp_path):
    done = wismo("record", "--repetitions", "2", "--cases", "partial-delivery,tracking-unavailable",
                 "--out", "runs", "--run-id", "r", cwd=tmp_path, env={"OPENAI_API_KEY": SECRET,
                                                                       "ANTHROPIC_API_KEY": SECRET + "x"})
    assert done.returncode == 0, done.stderr
    run = tmp_path / "runs" / "r"
    assert {p.name for p in run.iterdir()} >= {"manifest.json", "events.jsonl", "deterministic-comparison.json"}
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["schemaVersion"] == 1 and manifest["finishedAt"] is not None
    assert manifest["dataset"]["name"] == "default" and manifest["dataset"]["hash"].startswith("sha256:")
    assert [c["caseId"] for c in manifest["cases"]] == ["partial-delivery", "tracking-unavailable"]
    assert len(manifest["plan"]) == 8 and manifest["repetitions"] == 2
    assert [t["name"] for t in manifest["tools"]["granular"]] == ["get_order", "get_payment", "get_reservation",
                                                                  "get_tracking"]
    assert set(manifest["tools"]["focused"][0]) == {"name", "description", "parameters"}
    assert manifest["toolsListed"]["focused"][0]["annotations"]["readOnlyHint"] is True
    assert "takes precedence over an older order status" in manifest["instructions"]
    assert manifest["budgets"] == {"maxTurns": 8, "maxToolCalls": 20, "requestTimeoutS": 120.0,
                                   "conversationDeadlineS": 600.0, "maxOutputTokens": 4096,
                                   "maxToolResultBytes": 1_000_000}
    assert json.loads((run / "deterministic-comparison.json").read_text())["passed"] is True
    # The pair's first design alternates.
    firsts = [p["design"] for p in manifest["plan"] if p["pairPosition"] == 1]
    assert firsts == ["granular", "focused", "granular", "focused"]
    # Progress and the closing table.
    assert "partial-delivery.granular.r1: pass" in done.stderr
    assert "granular" in done.stdout and "run folder:" in done.stdout
    for path in run.rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(errors="replace"), path


def test_secret_looking_arguments_are_redacted(monkeypatch):
    monkeypatch.setenv("SOME_API_KEY", SECRET)
    assert redact_command_line(["wismo", "record", "--api-key", "abc", "--token=xyz", f"--note={SECRET}",
                                "--api-key-env", "MY_KEY"]) == \
        ["wismo", "record", "--api-key", "[redacted]", "--token=[redacted]", "--note=[redacted]",
         "--api-key-env", "MY_KEY"]


def test_bad_options_and_bad_datasets_are_one_line_errors(tmp_path, make_dataset):
    cases = default_cases()
    cases[0]["expected"]["delayReasons"] = ["traffic"]
    done = wismo("record", "--dataset", str(make_dataset(cases=cases)), "--out", "runs", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "cases.json: [0].expected.delayReasons[0]: must be one of" in done.stderr
    done = wismo("record", "--cases", "no-such-case", "--out", "runs", cwd=tmp_path)
    assert done.returncode == 2 and "no case 'no-such-case'" in done.stderr
    done = wismo("record", "--designs", "granular,tiny", "--out", "runs", cwd=tmp_path)
    assert done.returncode == 2 and "unknown design(s) tiny" in done.stderr
    # A pair holds each design once (positions 1 and 2): a repeat would fail mid-run on the third position.
    done = wismo("record", "--designs", "granular,focused,granular", "--out", "runs", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--designs names granular more than once; a run records each design once" in done.stderr
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_an_existing_run_folder_is_never_overwritten(tmp_path):
    (tmp_path / "runs" / "taken").mkdir(parents=True)
    (tmp_path / "runs" / "taken" / "events.jsonl").write_text("precious\n")
    done = wismo("record", "--out", "runs", "--run-id", "taken", cwd=tmp_path)
    assert done.returncode == 2 and "already exists" in done.stderr
    assert (tmp_path / "runs" / "taken" / "events.jsonl").read_text() == "precious\n"


def _finished_lines(events_path: Path) -> int:
    try:
        return events_path.read_bytes().count(b'"type":"conversation_finished"')
    except FileNotFoundError:
        return 0


def test_sigkill_then_resume_loses_and_duplicates_nothing(tmp_path):
    run = tmp_path / "runs" / "killed"
    process = subprocess.Popen([*WISMO, "record", "--out", "runs", "--run-id", "killed", "--concurrency", "4"],
                               cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while _finished_lines(run / "events.jsonl") < 8 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.002)
    process.send_signal(signal.SIGKILL)
    process.wait()
    before = (run / "events.jsonl").read_bytes()
    assert b"run_finished" not in before, "the run ended before it could be killed"
    finished_before = {(e["conversationId"], e["attempt"]) for _, e in read_event_lines(run / "events.jsonl").events
                       if e["type"] == "conversation_finished"}
    assert len(finished_before) >= 8

    done = wismo("record", "--resume", str(run), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    after = (run / "events.jsonl").read_bytes()
    assert after.startswith(before.rstrip(b"\n")), "resume must only append"
    lines = read_event_lines(run / "events.jsonl")
    live = live_attempts(lines.events)
    finished = [e for _, e in lines.events if e["type"] == "conversation_finished"
                and live[e["conversationId"]] == e["attempt"]]
    assert len(finished) == 72 == len({e["conversationId"] for e in finished})
    assert all(e["score"]["passed"] for e in finished)
    # Every conversation finished before the kill kept its first attempt.
    assert {(c, a) for c, a in finished_before} <= {(e["conversationId"], e["attempt"]) for e in finished}
    superseded = [e for _, e in lines.events if e["type"] == "attempt_superseded"]
    for event in superseded:
        assert live[event["conversationId"]] == event["attempt"] + 1
    [resumed] = [e for _, e in lines.events if e["type"] == "run_resumed"]
    assert resumed["alreadyComplete"] == len(finished_before)
    assert resumed["supersededAttempts"] == len(superseded)
    assert json.loads((run / "manifest.json").read_text())["resumes"][0]["rerun"] == 72 - len(finished_before)


def test_a_truncated_last_line_is_kept_and_the_next_line_starts_clean(tmp_path):
    result = asyncio.run(record(RecordOptions(repetitions=1, case_ids=("partial-delivery",), out_dir=tmp_path,
                                              run_id="cut")))
    events = result.run_dir / "events.jsonl"
    lines = events.read_bytes().split(b"\n")
    # Simulate a kill in the middle of the last conversation's final line.
    cut = b"\n".join(lines[:-3]) + b"\n" + lines[-3][:25]
    events.write_bytes(cut)
    asyncio.run(resume(result.run_dir))
    read = read_event_lines(events)
    cut_line = len(lines) - 2  # lines ends with b"" after the final newline; numbers start at 1
    assert [n for n, _ in read.malformed] == [cut_line]
    [resumed] = [e for _, e in read.events if e["type"] == "run_resumed"]
    assert resumed["repairedLine"] == cut_line


def test_a_fatal_provider_error_stops_the_run_and_resume_finishes_it(tmp_path, monkeypatch):
    from tests.recorder import fake_registry
    monkeypatch.setitem(REGISTRY, "rejecting", fake_registry.RejectingProvider)
    fake_registry.STATE["reject"] = True
    options = RecordOptions(provider="rejecting", repetitions=2, concurrency=1, out_dir=tmp_path, run_id="auth")
    with pytest.raises(RunAborted) as info:
        asyncio.run(record(options))
    assert "FakeAI rejected the API key from FAKE_API_KEY (401)" in str(info.value)
    assert "--resume" in str(info.value)
    events = [e for _, e in read_event_lines(tmp_path / "auth" / "events.jsonl").events]
    assert sum(e["type"] == "conversation_started" for e in events) == 1
    [end] = [e for e in events if e["type"] == "run_finished"]
    assert "401" in end["aborted"]

    fake_registry.STATE["reject"] = False
    result = asyncio.run(resume(tmp_path / "auth"))
    # The conversation the 401 ended is a fault: fixing the key and resuming runs it again.
    assert result.skipped == 0 and len(result.outcomes) == 48
    events = [e for _, e in read_event_lines(tmp_path / "auth" / "events.jsonl").events]
    [mark] = [e for e in events if e["type"] == "attempt_superseded"]
    assert mark["attempt"] == 1 and "provider_error" in mark["reason"]


def test_wismo_score_rescoring_with_changed_expectations(tmp_path, make_dataset):
    result = asyncio.run(record(RecordOptions(repetitions=1, case_ids=("carrier-delay",), out_dir=tmp_path,
                                              run_id="s")))
    events_before = hashlib.sha256((result.run_dir / "events.jsonl").read_bytes()).hexdigest()
    cases = default_cases()
    cases[1]["expected"]["deliveryEstimate"] = "2026-10-07"
    done = wismo("score", str(result.run_dir), "--dataset", str(make_dataset(cases=cases)), cwd=tmp_path)
    # The rules check in `wismo check` would refuse such a dataset; `score` only re-scores.
    assert done.returncode == 0, done.stderr
    assert "0 pass, 2 fail" in done.stdout and "verdict changed for 2" in done.stdout
    scores = [json.loads(line) for line in (result.run_dir / "scores.jsonl").read_text().splitlines()]
    assert len(scores) == 2 and all(not s["score"]["fields"]["deliveryEstimate"] for s in scores)
    assert hashlib.sha256((result.run_dir / "events.jsonl").read_bytes()).hexdigest() == events_before


def test_score_on_a_folder_that_is_not_a_run(tmp_path):
    done = wismo("score", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 2 and "manifest.json: missing" in done.stderr


def test_record_refuses_when_the_designs_disagree(tmp_path, monkeypatch):
    import recorder.run.record as module

    async def disagreeing(dataset, **options):
        report = await real(dataset, **options)
        report.orders[0].matched = False
        return report
    real = module.run_comparison
    monkeypatch.setattr(module, "run_comparison", disagreeing)
    with pytest.raises(WismoError, match="do not return the same evidence"):
        asyncio.run(record(RecordOptions(repetitions=1, out_dir=tmp_path, run_id="x")))
    assert json.loads((tmp_path / "x" / "deterministic-comparison.json").read_text())["passed"] is False
    assert not (tmp_path / "x" / "events.jsonl").exists()
