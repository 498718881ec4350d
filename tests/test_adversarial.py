"""Faults of the second adversarial pass (docs/adversarial.md) that wismo did not meet cleanly, each reproduced.

Real processes where the fault is one: brought MCP servers (tests/recorder/hostile_server.py, a
proxy that corrupts a server's bytes), a killed build-site; in-process providers only where the
fault is a model's output.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
import time

import pytest

import recorder.designs.mcp_client as mcp_client
from recorder.designs.choose import parse_server
from recorder.providers import tokens
from recorder.providers.tokens import COUNTED_PIECE_CHARS, count_tokens
from recorder.run.options import RecordOptions
from recorder.run.record import RunAborted, record
from tests.helpers import ROOT, default_records, events_of, live_finished, run_wismo
from tests.recorder.fakes import PolicyProvider, call, text
from tests.recorder.test_loop import converse, finished

HOSTILE = ROOT / "tests" / "recorder" / "hostile_server.py"
PROXY = ROOT / "tests" / "recorder" / "raw_bytes_proxy.py"
MIDDLE = ROOT / "examples" / "middle" / "server.py"
SAMPLE = ROOT / "runs" / "sample-offline"
DEEP = "[" * 100_000 + "]" * 100_000


def test_bytes_that_are_not_utf8_are_read_and_named_by_the_comparison_instead_of_a_60_s_timeout(tmp_path):
    started = time.monotonic()
    done = run_wismo("record", "--server", f"h={sys.executable} {PROXY} {sys.executable} {MIDDLE}",
                     "--designs", "granular,h", "--repetitions", "1", "--run-id", "raw", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
    [line] = done.stderr.strip().splitlines()
    assert 'ORD-1001: order ORD-1001: $.items[0].name: granular "USB-C dock" vs h "USB-C \ufffd\ufffd dock"' in line
    assert time.monotonic() - started < 50  # the strict decoder dropped the message: the call waited 60 s


def test_a_result_nested_past_any_json_reader_is_text_to_the_comparison_not_a_traceback(tmp_path):
    done = run_wismo("record", "--server", f"h={sys.executable} {HOSTILE} deep ORD-1001", "--designs", "granular,h",
                     "--repetitions", "1", "--run-id", "deep", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
    [line] = done.stderr.strip().splitlines()
    assert "design h returns different evidence: ORD-1001: order ORD-1001 missing (granular returns it)" in line


def test_a_result_nested_past_any_json_reader_mid_run_ends_in_answers_a_valid_run_and_a_site(tmp_path):
    done = run_wismo("record", "--server", f"h={sys.executable} {HOSTILE} deep-later ORD-1001",
                     "--designs", "granular,h", "--repetitions", "1", "--run-id", "deep", cwd=tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    run_dir = tmp_path / "runs" / "deep"
    deep = [e for e in events_of(run_dir) if e["type"] == "tool_result" and e["text"].startswith("[[[[")]
    assert deep, "the server did not nest its results"
    # The offline token estimate counts the 400 kB request in pieces (it was a TokenLimitError).
    assert {e["status"] for e in live_finished(run_dir).values()} == {"answered"}
    assert run_wismo("validate", str(run_dir), cwd=tmp_path).returncode == 0
    built = run_wismo("build-site", str(run_dir), "--out", "site", cwd=tmp_path)
    assert built.returncode == 0 and "Traceback" not in built.stderr, built.stderr[-2000:]


def test_the_offline_token_estimate_counts_any_length_and_short_text_exactly():
    assert count_tokens("[" * 400_000) == 200_000  # one piece of it was 200,000 tokens: more was refused
    assert count_tokens(" " * 5_000_000) > 0  # "Input too long to encode safely" in one piece
    short = "Where is my order ORD-1004? " * 100
    assert len(short) < COUNTED_PIECE_CHARS and count_tokens(short) == len(tokens._encoding().encode(short))


def test_a_model_answer_or_arguments_nested_past_any_reader_end_their_conversation_cleanly(tmp_path):
    def deep_call_then_deep_answer(request):
        return [call("get_order", DEEP, "deep")] if request.turn == 1 else [text(DEEP)]

    outcome, events, _ = asyncio.run(converse(tmp_path, PolicyProvider(deep_call_then_deep_answer)))
    # Every call has its result line (a call without one fails the run's validation) ...
    [result] = [e for e in events if e["type"] == "tool_result"]
    assert result["errorKind"] == "invalid_arguments" and "nested too deeply" in result["text"]
    # ... and the answer is the model's invalid answer, kept verbatim (it crashed the recorder).
    done = finished(events)
    assert outcome.status == done["status"] == "invalid_answer" and done["finalText"] == DEEP
    assert done["error"] == "not a JSON object: nested deeper than any JSON reader follows"


def test_a_dataset_nested_past_any_reader_is_one_line(tmp_path):
    dataset = tmp_path / "ds"
    dataset.mkdir()
    (dataset / "records.json").write_text(json.dumps(default_records()))
    (dataset / "cases.json").write_text(DEEP)
    done = run_wismo("check", "--dataset", str(dataset), cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.strip() == \
        "error: cases.json: nested deeper than any JSON reader follows", done.stderr[-2000:]


def test_resume_refuses_a_run_whose_events_another_version_of_wismo_wrote_and_writes_nothing(tmp_path):
    run_dir = tmp_path / "future"
    shutil.copytree(SAMPLE, run_dir)
    events = run_dir / "events.jsonl"
    lines = events.read_text().splitlines()
    # The future version resumed it: its lines follow, and the last conversation it ran is only there.
    future = [json.loads(line) for line in lines[-20:]]
    events.write_text("\n".join(lines[:-20] + [json.dumps({**e, "v": 2}) for e in future]) + "\n")
    before = {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file() and p.name != ".wismo-lock"}
    done = run_wismo("record", "--resume", str(run_dir), cwd=tmp_path)
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr[-2000:]
    assert done.stderr.strip() == (f"error: cannot resume {run_dir}: events.jsonl line {len(lines) - 19} has schema "
                                   "version 2 (this wismo writes 1); resume it with the wismo that recorded it")
    assert {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file() and p.name != ".wismo-lock"} == before


def test_resume_of_a_run_whose_events_file_is_a_folder_is_one_line(tmp_path):
    run_dir = tmp_path / "odd"
    shutil.copytree(SAMPLE, run_dir)
    (run_dir / "events.jsonl").unlink()
    (run_dir / "events.jsonl").mkdir()
    done = run_wismo("record", "--resume", str(run_dir), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == f"error: {run_dir}/events.jsonl: cannot be read: Is a directory"


def test_a_build_killed_half_way_leaves_a_folder_the_next_build_takes_over(tmp_path):
    builder = subprocess.Popen([sys.executable, "-m", "wismo.cli", "build-site", str(SAMPLE), "--out", "site"],
                               cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    site = tmp_path / "site"
    deadline = time.monotonic() + 120
    while not (site.is_dir() and len(list(site.rglob("*.html"))) >= 3) and builder.poll() is None:
        assert time.monotonic() < deadline, "the build wrote no page"
        time.sleep(0.001)
    builder.kill()
    builder.wait()
    if (site / ".wismo-site").is_file() and '"building": false' in (site / ".wismo-site").read_text():
        pytest.skip("the build finished before it could be killed")
    again = run_wismo("build-site", str(SAMPLE), "--out", "site", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert (site / "index.html").is_file() and '"building": false' in (site / ".wismo-site").read_text()
    # A file of the user's in a folder a build left unfinished still refuses the build: only site files go.
    (site / ".wismo-site").write_text(json.dumps({"building": True, "files": []}))
    (site / "notes.txt").write_text("mine")
    refused = run_wismo("build-site", str(SAMPLE), "--out", "site", cwd=tmp_path)
    assert refused.returncode != 0 and "notes.txt" in refused.stderr and (site / "notes.txt").read_text() == "mine"


def test_a_server_that_crashes_as_it_starts_again_stops_the_run_after_its_backoff_naming_its_stderr(
        tmp_path, monkeypatch):
    monkeypatch.setattr(mcp_client, "RECONNECT_WAITS_S", (0.1, 0.2))
    down = tmp_path / "backend-down"
    options = RecordOptions(servers=(parse_server(f"h={sys.executable} {HOSTILE} die-later {down}"),),
                            designs=("granular", "h"), repetitions=2, out_dir=tmp_path, run_id="loop")
    with pytest.raises(RunAborted) as stopped:
        asyncio.run(record(options))
    assert down.exists(), "the server never died"
    reason = stopped.value.result.aborted or ""
    assert reason.startswith("design 'h': its MCP server (") and "went away and did not come back after 3 tries " \
        "over 0.3 s: MCPError: Connection closed; its stderr ends: " in reason \
        and reason.endswith("| the backend is down"), reason
    [end] = [e for e in events_of(tmp_path / "loop") if e["type"] == "run_finished"]
    assert end["serverOutages"]["h"][0]["backAt"] is None and end["serverOutages"]["h"][0]["failedTries"] == 3
    assert len(live_finished(tmp_path / "loop")) < 48
