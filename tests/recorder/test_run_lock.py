"""A run folder has one writer: a second record, resume, score or claims is refused at once, naming the holder.

A lock left by a killed process is taken over; a run that two writers damaged before runs were
locked is repaired by --resume.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess

from analysis import validate_runs
from core.runformat.lock import RunLocked, run_lock
from recorder.run.options import RecordOptions
from recorder.run.record import record
from recorder.run.resume import resume
from tests.helpers import CONVERSATIONS, WISMO, events_of, live_finished, run_wismo, wait_for
from wismo.loopback.process import loopback_process

KEY = {"WISMO_LOCK_KEY": "sk-lock-test-5e6f7a8b"}
SLOW = {"faults": [{"do": "hang", "seconds": 0.4}]}  # every request takes 0.4 s: the run lasts a while


def chat_args(url: str) -> list[str]:
    return ["--provider", "openai-chat", "--base-url", url + "/v1", "--model", "loop", "--api-key-env",
            "WISMO_LOCK_KEY"]


def finished_count(run) -> int:
    try:
        return (run / "events.jsonl").read_bytes().count(b'"conversation_finished"')
    except FileNotFoundError:
        return 0


def assert_validates(run_dir):
    [validation] = validate_runs([run_dir])
    assert validation.passed, [(c.name, c.rows[:3]) for c in validation.checks if not c.passed]


def test_a_second_writer_is_refused_at_once_naming_the_holder(tmp_path):
    run = tmp_path / "runs" / "busy"
    with loopback_process("chat", SLOW) as server:
        first = subprocess.Popen([*WISMO, "record", *chat_args(server.url), "--repetitions", "1", "--concurrency", "2",
                                  "--out", "runs", "--run-id", "busy"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True, env={**os.environ, **KEY})
        wait_for(lambda: finished_count(run) >= 1, what="the first conversation")
        for command in (["record", "--resume", str(run)], ["score", str(run)], ["claims", str(run)]):
            refused = run_wismo(*command, cwd=tmp_path, env=KEY, timeout=120)
            assert refused.returncode == 2, (command, refused.stderr)
            [line] = refused.stderr.strip().splitlines()
            assert f"is being written by pid {first.pid} on {socket.gethostname()} since " in line, line
        assert first.wait(timeout=300) == 0, first.stderr.read() if first.stderr else ""
    # The refused writers wrote nothing: one attempt per conversation, no resume, no scores.
    events = events_of(run)
    assert {e["attempt"] for e in events if "attempt" in e} == {1}
    assert not [e for e in events if e["type"] == "run_resumed"] and not (run / "scores.jsonl").exists()
    assert_validates(run)


def test_two_resumes_at_once_one_runs_the_other_is_refused_and_a_dead_holder_s_lock_is_taken_over(tmp_path):
    run = tmp_path / "runs" / "killed"
    with loopback_process("chat", SLOW) as server:
        killed = subprocess.Popen([*WISMO, "record", *chat_args(server.url), "--repetitions", "1", "--concurrency", "2",
                                   "--out", "runs", "--run-id", "killed"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, env={**os.environ, **KEY})
        wait_for(lambda: finished_count(run) >= 2, what="2 finished conversations")
        killed.send_signal(signal.SIGKILL)
        killed.wait()
        # The killed holder's details are still in the lock file; the kernel has released the lock itself.
        assert json.loads((run / ".wismo-lock").read_text())["pid"] == killed.pid

        resumes = [subprocess.Popen([*WISMO, "record", "--resume", str(run)], cwd=tmp_path, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, env={**os.environ, **KEY}) for _ in range(2)]
        outcomes = sorted((p.wait(timeout=300), p.stderr.read() if p.stderr else "") for p in resumes)
    assert [code for code, _ in outcomes] == [0, 2], outcomes
    assert "is being written by pid" in outcomes[1][1]
    finished = live_finished(run)
    assert len(finished) == CONVERSATIONS
    assert len([e for e in events_of(run) if e["type"] == "run_resumed"]) == 1
    assert_validates(run)


def test_the_lock_is_held_by_one_process_and_released_when_it_ends(tmp_path):
    with run_lock(tmp_path, "wismo test"), run_lock(tmp_path, "nested"):  # the holder may take it again
        other = subprocess.run([*WISMO[:1], "-c", "import sys; from pathlib import Path; "
                                "from core.runformat.lock import run_lock\n"
                                "with run_lock(Path(sys.argv[1]), 'x'): pass", str(tmp_path)],
                               capture_output=True, text=True, timeout=60)
        assert other.returncode != 0 and "RunLocked" in other.stderr and f"pid {os.getpid()}" in other.stderr
    with run_lock(tmp_path, "again"):
        pass
    try:
        with run_lock(tmp_path, "x"):
            raise RunLocked("not raised by the lock")
    except RunLocked as exc:
        assert str(exc) == "not raised by the lock"


def _duplicate(lines: list[str], conversation: str, attempt: int | None = None) -> list[str]:
    """The lines of a conversation's attempt 1, again (as a second writer wrote them), renumbered if asked."""
    copies = []
    for line in lines:
        event = json.loads(line)
        if event.get("conversationId") == conversation and event.get("attempt") == 1:
            if attempt is not None:
                event["attempt"] = attempt
            copies.append(json.dumps(event))
    return copies


def test_resume_repairs_a_run_two_writers_wrote_at_once(tmp_path):
    result = asyncio.run(record(RecordOptions(repetitions=1, case_ids=("partial-delivery", "carrier-delay"),
                                              out_dir=tmp_path, run_id="twice")))
    events = result.run_dir / "events.jsonl"
    lines = events.read_text().splitlines()
    # Two writers at once (before runs were locked): one ran attempt 1 of a conversation a second time, the
    # other ran attempt 2 of another conversation without superseding attempt 1.
    damaged = [*lines, *_duplicate(lines, "partial-delivery.granular.r1"),
               *_duplicate(lines, "carrier-delay.focused.r1", 2)]
    events.write_text("\n".join(damaged) + "\n")
    [broken] = validate_runs([result.run_dir])
    assert {c.name for c in broken.checks if not c.passed} >= {"start_finish", "live_attempts"}

    repaired = asyncio.run(resume(result.run_dir))
    assert [plan.conversation_id for plan, _ in repaired.outcomes] == ["partial-delivery.granular.r1"]
    finished = live_finished(result.run_dir)
    assert finished["partial-delivery.granular.r1"]["attempt"] == 2
    assert finished["carrier-delay.focused.r1"]["attempt"] == 2
    marks = {(e["conversationId"], e["attempt"]) for e in events_of(result.run_dir)
             if e["type"] == "attempt_superseded"}
    assert marks == {("partial-delivery.granular.r1", 1), ("carrier-delay.focused.r1", 1)}
    assert_validates(result.run_dir)
