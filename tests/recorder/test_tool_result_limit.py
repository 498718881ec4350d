"""A tool result above the limit is the design's doing: cut in the trace, never sent on, never re-run.

Issue 23's rough edge: a brought server returning 5 MB for one order ended as `provider_error` (the
offline tokenizer's ValueError), `--resume` repeated it, and 2 conversations wrote 20 MB of events.
The server here is a real child process (tests/recorder/hostile_server.py, the official SDK) whose
results about ORD-1001 carry 5 MB of JSON whitespace: the same records, so the comparison passes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from recorder.agent.loop import DEFAULT_MAX_TOOL_RESULT_BYTES
from tests.helpers import events_of, live_finished, run_wismo

HOSTILE = Path(__file__).with_name("hostile_server.py")
FIVE_MB = 5 * 1024 * 1024


def test_a_5_mb_tool_result_ends_its_conversation_as_the_design_s_budget_stop_and_the_trace_stays_small(tmp_path):
    done = run_wismo("record", "--server", f"h={sys.executable} {HOSTILE} huge ORD-1001", "--designs", "granular,h",
                     "--repetitions", "1", "--run-id", "huge", cwd=tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert ("h: 2 of 12 conversation(s) stopped by a budget (status budget_exhausted: 2 by --max-tool-result-bytes, "
            "a tool result above it: the design's doing), not by a wrong answer") in done.stdout
    run_dir = tmp_path / "runs" / "huge"
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["budgets"]["maxToolResultBytes"] == DEFAULT_MAX_TOOL_RESULT_BYTES
    # Two conversations met a 5 MB result (delivered-on-time and payment-taken ask about ORD-1001):
    # the events hold their beginnings only.
    assert (run_dir / "events.jsonl").stat().st_size < 1_000_000
    events = events_of(run_dir)
    cut = [e for e in events if e["type"] == "tool_result" and "cutFromBytes" in e]
    assert len(cut) == 2 and all(e["cutFromBytes"] > FIVE_MB for e in cut)
    for result in cut:
        assert result["bytes"] == len(result["text"].encode()) < 2_000
        assert result["text"].endswith(f"above the tool-result limit of {DEFAULT_MAX_TOOL_RESULT_BYTES:,} "
                                       "(--max-tool-result-bytes), and was not sent to the model]")
        # ... and the model never received it: no request follows the cut result in its conversation.
        later = [e for e in events if e.get("conversationId") == result["conversationId"]
                 and e["type"] == "model_request" and e["turn"] > result["turn"]]
        assert later == []
    finished = live_finished(run_dir)
    stopped = {c: e for c, e in finished.items() if e["status"] == "budget_exhausted"}
    assert sorted(stopped) == ["delivered-on-time.h.r1", "payment-taken.h.r1"]
    for event in stopped.values():
        assert event["budgetHit"] == "max_tool_result_bytes" and event["finalText"] is None
        assert event["error"].startswith("the design's tool get_order returned 5,24")
    assert {e["status"] for c, e in finished.items() if c not in stopped} == {"answered"}
    assert run_wismo("validate", str(run_dir), cwd=tmp_path).returncode == 0

    # Not a provider fault: --resume has nothing to re-run and writes nothing.
    before = (run_dir / "events.jsonl").read_bytes()
    again = run_wismo("record", "--resume", str(run_dir), cwd=tmp_path)
    assert again.returncode == 0 and again.stdout.startswith("nothing to do"), again.stdout + again.stderr
    assert (run_dir / "events.jsonl").read_bytes() == before
