"""A key in an MCP server's URL is never written: `${VAR}` is read from the environment, a literal key is hidden.

Hosted MCP servers often put the key in the URL's path (https://host/mcp/<key>). A real streamable
HTTP server (wismo's focused design, the official SDK) listens only at such a path; the record and
the site are run as the user runs them, and every file they write is searched for the key.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn

from core.runformat.redact import key_like_segments
from recorder.designs.choose import parse_server
from recorder.servers import build_server
from tests.helpers import run_wismo

KEY = "k7Q2x9Vb4mZ1pL8sR3tY"  # the path segment the server is reached at: the key
PART = "WISMO_TEST_MCP_PATH"  # a variable whose name does not look secret: only the URL makes it one


@pytest.fixture
def keyed_focused() -> Iterator[str]:
    """wismo's focused design over streamable HTTP, answering only at /mcp/KEY; yields http://host:port."""
    app = build_server("focused").streamable_http_app(streamable_http_path=f"/mcp/{KEY}", host="127.0.0.1")
    sock = socket.create_server(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        threading.Event().wait(0.01)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    server.should_exit = True
    thread.join(10)


def every_file_text(*folders: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8", errors="replace")
                     for folder in folders for p in folder.rglob("*") if p.is_file())


def record_and_build(tmp_path: Path, server: str, run_id: str) -> tuple[str, Path, Path]:
    done = run_wismo("record", "--server", server, "--designs", "granular,remote", "--repetitions", "1",
                     "--cases", "delivered-on-time,payment-taken", "--run-id", run_id, cwd=tmp_path,
                     env={PART: KEY})
    assert done.returncode == 0, done.stderr
    built = run_wismo("build-site", f"runs/{run_id}", "--out", f"site-{run_id}", cwd=tmp_path, env={PART: KEY})
    assert built.returncode == 0, built.stderr
    return done.stdout + done.stderr + built.stdout + built.stderr, tmp_path / "runs" / run_id, \
        tmp_path / f"site-{run_id}"


def test_a_url_reading_its_key_from_a_variable_is_reached_and_written_unexpanded(tmp_path, keyed_focused):
    printed, run_dir, site = record_and_build(tmp_path, f"remote={keyed_focused}/mcp/${{{PART}}}", "by-variable")
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["designSources"]["remote"]["url"] == f"{keyed_focused}/mcp/${{{PART}}}"
    assert f"remote={keyed_focused}/mcp/${{{PART}}}" in manifest["commandLine"]
    finished = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    assert [e["score"]["passed"] for e in finished if e["type"] == "conversation_finished"] == [True] * 4
    assert KEY not in every_file_text(run_dir, site) and KEY not in printed
    # The resume reads the variable again from the same unexpanded URL.
    assert run_wismo("record", "--resume", str(run_dir), cwd=tmp_path, env={PART: KEY}).returncode == 0


def test_a_literal_key_in_the_url_path_is_redacted_everywhere_with_a_warning(tmp_path, keyed_focused):
    printed, run_dir, site = record_and_build(tmp_path, f"remote={keyed_focused}/mcp/{KEY}", "literal")
    assert "looks like it holds a key" in printed and "${MY_MCP_KEY}" in printed
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["designSources"]["remote"]["url"] == f"{keyed_focused}/mcp/[redacted]"
    assert any("[redacted]" in arg for arg in manifest["commandLine"])
    assert KEY not in every_file_text(run_dir, site) and KEY not in printed
    # The run cannot be reached again: a resume says so in one line, naming the way to record it.
    events = run_dir / "events.jsonl"
    events.write_text("\n".join(events.read_text().splitlines()[:-3]) + "\n")
    refused = run_wismo("record", "--resume", str(run_dir), cwd=tmp_path)
    assert refused.returncode != 0 and len(refused.stderr.strip().splitlines()) == 1
    assert "cannot reach it again" in refused.stderr and KEY not in refused.stderr


def test_an_unset_variable_in_a_url_is_one_line_before_anything_starts(tmp_path):
    done = run_wismo("record", "--server", "remote=https://example.invalid/mcp/${WISMO_TEST_UNSET_PART}",
                     "--run-id", "unset", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.strip() == (
        "error: --server remote=...: the URL reads $WISMO_TEST_UNSET_PART, which is not set")
    assert not (tmp_path / "runs" / "unset").exists()


@pytest.mark.parametrize(("url", "hidden"), [
    ("https://mcp.example.com/mcp/k7Q2x9Vb4mZ1pL8sR3tY", ["k7Q2x9Vb4mZ1pL8sR3tY"]),
    ("https://actions.example.com/mcp/550e8400-e29b-41d4-a716-446655440000/sse",
     ["550e8400-e29b-41d4-a716-446655440000"]),
    ("https://mcp.example.com/v1/streamable-http/mcp", []),
    ("https://mcp.example.com/orders-server-v2/mcp", []),
])
def test_which_path_segments_look_like_keys(url, hidden):
    assert key_like_segments(url) == hidden
    spec = parse_server(f"remote={url}")
    assert all(h not in (spec.shown_url() or "") for h in hidden) and bool(spec.url_warnings()) == bool(hidden)
