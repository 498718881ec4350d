"""A run that was killed and resumed: superseded attempts and the repaired line are notices, not failures."""

from __future__ import annotations

import asyncio
import json
import subprocess

from analysis import summarize_runs, validate_runs
from recorder.run.resume import resume
from tests.helpers import WISMO
from wismo.cli.record import check_claims


def test_a_killed_then_resumed_run_validates_with_notices(tmp_path):
    done = subprocess.run([*WISMO, "record", "--out", str(tmp_path), "--run-id", "killed", "--repetitions", "1",
                           "--cases", "delivered-on-time,carrier-delay", "--concurrency", "1"],
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    run_dir = tmp_path / "killed"
    events = run_dir / "events.jsonl"
    lines = events.read_text().splitlines()
    # As if killed while writing the last conversation's conversation_finished line.
    last_finished = max(i for i, line in enumerate(lines) if '"conversation_finished"' in line)
    cut_conversation = json.loads(lines[last_finished])["conversationId"]
    kept = lines[:last_finished]
    events.write_text("\n".join(kept) + "\n" + lines[last_finished][:40])
    asyncio.run(resume(run_dir, after=check_claims))  # as `wismo record --resume` does

    [validation] = validate_runs([run_dir])
    assert validation.passed, [(c.name, c.rows) for c in validation.checks if c.row_count]
    notices = {c.name: c for c in validation.checks if c.row_count}
    assert set(notices) == {"superseded_attempts", "repaired_lines"}
    assert notices["repaired_lines"].rows[0][0] == last_finished + 1
    assert notices["superseded_attempts"].rows[0][:2] == (cut_conversation, 1)
    assert validation.superseded_events == sum(cut_conversation in line for line in kept)
    assert validation.malformed_lines == [(last_finished + 1, "not JSON")]

    [summary] = summarize_runs([run_dir])
    assert sum(d.conversations for d in summary.designs) == 4
