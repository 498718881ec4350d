"""An HTTP design that drops and comes back: reconnected with bounded exponential backoff, counted in the trace.

Issue 23's rough edge: a `--server NAME=http://…/mcp` design whose server went away and was back 2 s
later got one immediate reconnect and no backoff; 20 of 24 conversations failed within a second and
`serverRestarts` said 0. Here the design is a real `wismo serve --transport streamable-http` process,
killed in the middle of a run and started again on the same port; and one that never comes back.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

import pytest

import recorder.designs.mcp_client as mcp_client
from recorder.designs.choose import parse_server
from recorder.designs.mcp_client import RECONNECT_WAITS_S
from recorder.run.options import RecordOptions
from recorder.run.record import RunAborted, record
from tests.helpers import events_of, live_finished, wait_for
from tests.recorder.test_serve_http import free_port, wait_ready

CONCURRENCY = 4


def serve(port: int) -> subprocess.Popen[str]:
    """`wismo serve focused` over streamable HTTP on `port`, once it accepts connections."""
    process = subprocess.Popen([sys.executable, "-m", "wismo.cli", "serve", "focused", "--transport",
                                "streamable-http", "--port", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wait_ready(process)
    return process


def finished_count(events: Path) -> int:
    return events.read_bytes().count(b'"conversation_finished"') if events.exists() else 0


def run_finished(run_dir: Path) -> dict:
    [end] = [e for e in events_of(run_dir) if e["type"] == "run_finished"]
    return end


def seconds_between(start: str, end: str) -> float:
    return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()


def test_an_http_design_killed_and_back_2_s_later_on_the_same_port_is_reconnected_with_backoff(tmp_path):
    port = free_port()
    server = serve(port)
    run_dir = tmp_path / "runs" / "drop"
    recorder = subprocess.Popen([sys.executable, "-m", "wismo.cli", "record", "--server",
                                 f"remote=http://127.0.0.1:{port}/mcp", "--designs", "granular,remote",
                                 "--repetitions", "1", "--concurrency", str(CONCURRENCY), "--run-id", "drop"],
                                cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: finished_count(run_dir / "events.jsonl") >= 4, what="the first conversations")
        # The recorder is held while its server dies, so the drop falls in the middle of the run.
        recorder.send_signal(signal.SIGSTOP)
        server.kill()
        server.wait(10)
        recorder.send_signal(signal.SIGCONT)
        time.sleep(2)
        server = serve(port)
        _, err = recorder.communicate(timeout=300)
    finally:
        recorder.send_signal(signal.SIGCONT)
        if recorder.poll() is None:
            recorder.kill()
        server.send_signal(signal.SIGTERM)
        server.wait(20)
    assert recorder.returncode in (0, 1) and "Traceback" not in err, err[-2000:]
    finished = live_finished(run_dir)
    assert len(finished) == 24
    remote = [e["status"] for c, e in finished.items() if ".remote." in c]
    # Only calls in flight when the connection dropped fail; every later call waited for the reconnection.
    assert remote.count("tool_error") <= CONCURRENCY and remote.count("answered") >= 12 - CONCURRENCY, remote
    assert {e["status"] for c, e in finished.items() if ".granular." in c} == {"answered"}
    end = run_finished(run_dir)
    assert end["aborted"] is None
    assert end["serverRestarts"] == {"granular": 0, "remote": 1}
    [outage] = end["serverOutages"]["remote"]
    assert outage["backAt"] is not None and seconds_between(outage["lostAt"], outage["backAt"]) >= 2
    tries = outage["failedTries"]
    assert tries >= 2 and outage["waitsS"] == list(RECONNECT_WAITS_S[:tries])  # 0.5, 1, 2, …: exponential
    assert "ConnectError" in outage["lastError"]
    assert "granular" not in end["serverOutages"]


def test_an_http_design_that_never_comes_back_stops_the_run_after_its_backoff(tmp_path, monkeypatch):
    monkeypatch.setattr(mcp_client, "RECONNECT_WAITS_S", (0.2, 0.4, 0.8))
    port = free_port()
    server = serve(port)
    run_dir = tmp_path / "gone"

    def kill_after_some() -> None:
        wait_for(lambda: finished_count(run_dir / "events.jsonl") >= 4, what="the first conversations")
        server.kill()

    killer = threading.Thread(target=kill_after_some, daemon=True)
    killer.start()
    options = RecordOptions(servers=(parse_server(f"remote=http://127.0.0.1:{port}/mcp"),),
                            designs=("granular", "remote"), repetitions=3, concurrency=1, out_dir=tmp_path,
                            run_id="gone")
    try:
        with pytest.raises(RunAborted) as stopped:
            asyncio.run(record(options))
    finally:
        killer.join(30)
        server.wait(10)
    message = str(stopped.value)
    assert f"design 'remote': its MCP server (http://127.0.0.1:{port}/mcp) went away and did not come back " \
           "after 4 tries over 1.4 s: ConnectError" in message
    assert f"wismo record --resume {run_dir}" in message
    end = run_finished(run_dir)
    [outage] = end["serverOutages"]["remote"]
    assert outage["backAt"] is None and outage["failedTries"] == 4 and outage["waitsS"] == [0.2, 0.4, 0.8]
    assert end["serverRestarts"]["remote"] == 0
    # The run stopped instead of failing every conversation left: most of the plan is still to do.
    assert len(live_finished(run_dir)) < 36
