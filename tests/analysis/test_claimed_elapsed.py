"""claimed_counters never fails a run nobody tampered with, however loaded the machine, and still catches a tamper.

The recorder stamps conversation_started and conversation_finished with the very clock readings the
claimed elapsedMs is computed from, so the check holds it to the timestamps to the microsecond.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime

from analysis import validate_runs
from tests.helpers import WISMO, wait_for


def _rows(run_dir, check: str):
    [validation] = validate_runs([run_dir])
    return validation, next(c for c in validation.checks if c.name == check)


def test_claimed_elapsed_is_exact_under_cpu_load_and_a_tampered_counter_is_caught(tmp_path):
    run = tmp_path / "runs" / "loaded"
    recording = subprocess.Popen([*WISMO, "record", "--repetitions", "3", "--cases", "carrier-delay,partial-delivery",
                                  "--concurrency", "4", "--out", "runs", "--run-id", "loaded"], cwd=tmp_path,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    # Once the servers are up, a busy loop on every core: the conversations are preempted anywhere.
    wait_for((run / "events.jsonl").exists, what="the first event")
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 2)]
    try:
        _, stderr = recording.communicate(timeout=300)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert recording.returncode == 0, stderr
    validation, check = _rows(run, "claimed_counters")
    assert validation.passed and check.row_count == 0

    # Exact: the claimed time is the difference of the two timestamps, to the microsecond.
    lines = (run / "events.jsonl").read_text().splitlines()
    events = [json.loads(line) for line in lines]
    started = {e["conversationId"]: datetime.fromisoformat(e["ts"]) for e in events
               if e["type"] == "conversation_started"}
    finished = [e for e in events if e["type"] == "conversation_finished"]
    assert len(finished) == 12
    for event in finished:
        between = datetime.fromisoformat(event["ts"]) - started[event["conversationId"]]
        assert event["claimed"]["elapsedMs"] == between / (between.resolution * 1000), event["conversationId"]

    # One microsecond added to one claimed time is caught.
    index = next(i for i, e in enumerate(events) if e["type"] == "conversation_finished")
    events[index]["claimed"]["elapsedMs"] += 0.001
    lines[index] = json.dumps(events[index])
    (run / "events.jsonl").write_text("\n".join(lines) + "\n")
    validation, check = _rows(run, "claimed_counters")
    assert not validation.passed
    assert [(r[0], r[2]) for r in check.rows] == [(events[index]["conversationId"], "elapsedMs")]
