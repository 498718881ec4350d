"""One run, one server version per design: a brought server that comes back changed is never mixed in.

Real MCP servers (tests/recorder/changing_server.py, the official SDK) run as child processes; a test
edits what the server serves and kills it mid-run (it is restarted), or edits it between the record
and the resume.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from core.errors import WismoError
from recorder.designs.choose import parse_server
from recorder.run.options import RecordOptions
from recorder.run.record import RunAborted, record
from recorder.run.resume import resume
from tests.helpers import child_pids, events_of, live_finished, run_wismo

CHANGING = Path(__file__).with_name("changing_server.py")
OLD_TOOLS = "lookup_order, payment_details, shipment_status, stock_hold"


def changing_pids() -> set[int]:
    """The changing server children of this process."""
    return child_pids(lambda arguments: any(CHANGING.name.encode() in a for a in arguments))


def options(tmp_path: Path, state: Path, run_id: str, **kwargs: Any) -> RecordOptions:
    return RecordOptions(servers=(parse_server(f"other={sys.executable} {CHANGING} {state}"),),
                         designs=("granular", "other"), out_dir=tmp_path, run_id=run_id, **kwargs)


def test_a_server_restarted_with_other_tools_stops_the_run_and_no_answer_is_counted_against_it(tmp_path):
    state = tmp_path / "state"
    state.write_text("")
    run_dir = tmp_path / "restarted"
    hit: list[int] = []
    done = threading.Event()

    def edit_then_kill() -> None:
        events = run_dir / "events.jsonl"
        while not done.is_set():
            if events.exists() and events.read_bytes().count(b'"conversation_finished"') >= 4:
                state.write_text("by-sku")  # the server is edited: its next start lists other tools
                [pid] = changing_pids()
                os.kill(pid, signal.SIGKILL)
                hit.append(pid)
                return
            time.sleep(0.01)

    saboteur = threading.Thread(target=edit_then_kill, daemon=True)
    saboteur.start()
    try:
        with pytest.raises(RunAborted) as raised:
            asyncio.run(record(options(tmp_path, state, "restarted", repetitions=3, concurrency=4)))
    finally:
        done.set()
        saboteur.join()
    assert hit, "the run ended before the server could be killed"
    reason = raised.value.result.aborted or ""
    assert "design 'other'" in reason and "find_by_sku" in reason and "one run holds one server version" in reason
    finished = live_finished(run_dir)
    other = [e for c, e in finished.items() if ".other." in c]
    # Before the change: answers. After it: tool errors or interrupted, never a wrong answer.
    assert any(e["status"] == "answered" for e in other)
    assert any(e["status"] in ("tool_error", "interrupted") for e in other)
    assert all(e["score"]["passed"] for e in other if e["status"] == "answered"), other
    unknown = [e for e in events_of(run_dir) if e["type"] == "tool_result" and e.get("errorKind") == "unknown_tool"]
    assert unknown == []
    [end] = [e for e in events_of(run_dir) if e["type"] == "run_finished"]
    assert end["serverRestarts"]["other"] == 1 and end["aborted"] == reason

    # The resume meets the edited server: refused in one line, naming the design and what changed.
    before = (run_dir / "events.jsonl").read_bytes(), (run_dir / "manifest.json").read_bytes()
    with pytest.raises(WismoError) as refused:
        asyncio.run(resume(run_dir))
    assert str(refused.value) == (f"cannot resume {run_dir}: design 'other' ({sys.executable} {CHANGING} {state}): "
                                  f"its server's tools are not those the run recorded: it no longer lists "
                                  f"{OLD_TOOLS}; now lists find_by_sku")
    assert ((run_dir / "events.jsonl").read_bytes(), (run_dir / "manifest.json").read_bytes()) == before


def _drop_last_conversation(run_dir: Path) -> str:
    events = run_dir / "events.jsonl"
    lines = events.read_text().splitlines()
    victim = [c for c in live_finished(run_dir) if ".other." in c][-1]
    kept = [line for line in lines if f'"{victim}"' not in line and '"run_finished"' not in line]
    events.write_text("\n".join(kept) + "\n")
    return victim


def test_resume_re_runs_the_comparison_and_refuses_a_server_edited_since_the_record(tmp_path):
    state = tmp_path / "state"
    state.write_text("")
    cases = ("delivered-on-time", "carrier-delay")
    asyncio.run(record(options(tmp_path, state, "edited", repetitions=1, case_ids=cases)))
    run_dir = tmp_path / "edited"
    victim = _drop_last_conversation(run_dir)
    before = (run_dir / "events.jsonl").read_bytes(), (run_dir / "manifest.json").read_bytes()

    state.write_text("alter-status")  # same tools, other records: only the comparison sees it
    done = run_wismo("record", "--resume", str(run_dir), cwd=tmp_path)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    assert f"cannot resume {run_dir}: its servers changed since it was recorded: design other returns different " \
           "evidence: " in line and "TRK-1003-A" in line, line
    assert ((run_dir / "events.jsonl").read_bytes(), (run_dir / "manifest.json").read_bytes()) == before

    state.write_text("by-sku")  # other tools
    done = run_wismo("record", "--resume", str(run_dir), cwd=tmp_path)
    [line] = done.stderr.strip().splitlines()
    assert done.returncode != 0 and "design 'other'" in line and f"no longer lists {OLD_TOOLS}" in line, line
    assert ((run_dir / "events.jsonl").read_bytes(), (run_dir / "manifest.json").read_bytes()) == before

    state.write_text("")  # the server as recorded: the resume goes on
    result = asyncio.run(resume(run_dir))
    assert [plan.conversation_id for plan, _ in result.outcomes] == [victim]
    assert live_finished(run_dir)[victim]["score"]["passed"]
