"""The MCP request behind every tool call: recorded as sent, exported as the MCP conventions name it.

A fresh offline recording with four designs: granular and the examples/middle server over stdio,
focused from `wismo serve --transport streamable-http`, and `logged`, the granular design served over
streamable HTTP by tests/export/session_server.py, which writes down every request it received (the
JSON-RPC id, the tool and its arguments, the session and protocol headers, the session it issued).
What the run recorded and the export says is held against what that server saw, request by request.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp.types.version import SUPPORTED_PROTOCOL_VERSIONS

from recorder.designs.mcp_client import ServerDied, ServerTarget, server_command, start_servers
from tests.export.test_otlp import SAMPLE_RUN, attrs, conversation_of, decode, export, spans_of
from tests.helpers import ROOT, child_pids, events_of, run_wismo
from tests.recorder.test_serve_http import serving_over_http, wait_ready

SESSION_SERVER = Path(__file__).with_name("session_server.py")
MIDDLE = ROOT / "examples" / "middle" / "server.py"
CASES = "delivered-on-time,partial-delivery,payment-not-taken"
CANARY = "canary-token-4f1d9e"  # the bearer token sent to `logged`: it must reach no file
MCP_KEYS = ("jsonrpc.request.id", "mcp.protocol.version", "mcp.session.id")


def _stop(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGTERM)
    process.wait(15)


@pytest.fixture(scope="module")
def focused_over_http() -> Iterator[str]:
    """`wismo serve focused --transport streamable-http`, stopped with SIGTERM."""
    with serving_over_http("focused") as url:
        yield url


def start_session_server(log: Path) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen([sys.executable, str(SESSION_SERVER), "granular", str(log)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=os.environ.copy())
    url = re.search(r"http://\S+", wait_ready(process))
    assert url, "the session server did not say where it listens"
    return process, url.group(0)


def seen_by(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory, focused_over_http: str) -> Iterator[tuple[Path, Path]]:
    """The run folder, and the log of what the `logged` server received."""
    work = tmp_path_factory.mktemp("mcp-requests")
    log = work / "logged-server.jsonl"
    process, url = start_session_server(log)
    try:
        done = run_wismo("record", "--server", f"focused={focused_over_http}",
                         "--server", f"middle={sys.executable} {MIDDLE}", "--server", f"logged={url}",
                         "--header", "logged=Authorization: Bearer ${LOGGED_TOKEN}", "--cases", CASES,
                         "--repetitions", "2", "--out", str(work / "runs"), "--run-id", "fresh", cwd=work,
                         env={"LOGGED_TOKEN": CANARY}, timeout=600)
        assert done.returncode == 0, done.stderr
    finally:
        _stop(process)
    yield work / "runs" / "fresh", log


@pytest.fixture(scope="module")
def fresh_spans(recorded: tuple[Path, Path]) -> tuple[list[Any], str]:
    run, _log = recorded
    text = export(run, run.parent.parent / "fresh.otlp.json")
    return spans_of(decode(text)), text


def _tool_spans(spans: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    """(design, attributes) of every execute_tool span."""
    return [(attrs(s)["wismo.design"], attrs(s)) for s in spans if s.name.startswith("execute_tool ")]


def test_every_tool_span_of_a_fresh_recording_carries_the_request_as_sent(recorded, fresh_spans):
    run, _log = recorded
    spans, _text = fresh_spans
    tools = _tool_spans(spans)
    results = [e for e in events_of(run) if e["type"] == "tool_result"]
    assert len(tools) == len(results) and {d for d, _ in tools} == {"granular", "focused", "middle", "logged"}
    for design, a in tools:
        assert a["mcp.protocol.version"] in SUPPORTED_PROTOCOL_VERSIONS, a
        assert re.fullmatch(r"\d+", a["jsonrpc.request.id"]), a  # the SDK's ids, as the convention's string
        if design in ("granular", "middle"):
            assert a["network.transport"] == "pipe" and "mcp.session.id" not in a  # stdio has no session
        else:
            assert a["network.transport"] == "tcp" and re.fullmatch(r"[0-9a-f]{32}", a["mcp.session.id"])
    # one server start per design: each request id names one call, never two (concurrent calls included)
    for design in ("granular", "focused", "middle", "logged"):
        ids = Counter(a["jsonrpc.request.id"] for d, a in tools if d == design)
        assert ids and max(ids.values()) == 1, (design, ids.most_common(2))
    sessions = {d: {a["mcp.session.id"] for dd, a in tools if dd == d} for d in ("focused", "logged")}
    assert all(len(s) == 1 for s in sessions.values()) and sessions["focused"] != sessions["logged"]
    # the recorded lines hold the same: the export adds nothing the run did not record
    for result in results:
        design = result["conversationId"].split(".")[1]
        assert set(result["mcp"]) == ({"requestId", "protocolVersion", "sessionId"} if design in ("focused", "logged")
                                      else {"requestId", "protocolVersion"})


def test_the_logged_server_received_each_recorded_request_in_the_session_it_issued(recorded, fresh_spans):
    run, log = recorded
    spans, _text = fresh_spans
    seen = seen_by(log)
    issued = {line["issued"] for line in seen if line["method"] == "initialize"}
    assert len(issued) == 1 and None not in issued  # one server start, one session
    received = {(line["session"], line["id"]): line for line in seen if line["method"] == "tools/call"}
    assert len(received) == sum(line["method"] == "tools/call" for line in seen)  # (session, id) names one request
    calls = {(e["conversationId"], e["callId"]): e for e in events_of(run) if e["type"] == "tool_call"}
    conversation = conversation_of(spans)
    logged = [s for s in spans if s.name.startswith("execute_tool ") and attrs(s)["wismo.design"] == "logged"]
    assert len(logged) >= 10
    for span in logged:
        a = attrs(span)
        request = received[(a["mcp.session.id"], int(a["jsonrpc.request.id"]))]
        assert a["mcp.session.id"] in issued
        call = calls[(conversation[span.trace_id], a["gen_ai.tool.call.id"])]
        # the very call: same tool, same arguments, same negotiated version (the header the server read)
        assert (request["tool"], request["arguments"]) == (call["name"], json.loads(call["arguments"]))
        assert request["protocolVersion"] == a["mcp.protocol.version"]


def test_the_bearer_token_was_sent_and_reached_no_file(recorded, fresh_spans):
    run, log = recorded
    _spans, text = fresh_spans
    assert {line["authorization"] for line in seen_by(log)} == {f"Bearer {CANARY}"}
    for path in [*run.rglob("*"), run.parent.parent / "fresh.otlp.json"]:
        if path.is_file():
            assert CANARY not in path.read_text(encoding="utf-8", errors="replace"), path
    assert CANARY not in text


def test_sent_over_otlp_http_the_tool_spans_keep_the_request_attributes(recorded, fresh_spans):
    from tests.export.receiver import running_receiver

    run, _log = recorded
    spans, _text = fresh_spans
    with running_receiver() as receiver:
        done = run_wismo("export", str(run), "--otlp-endpoint", receiver.url, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    sent = {s.span_id: attrs(s) for s in receiver.spans() if s.name.startswith("execute_tool ")}
    written = {s.span_id: attrs(s) for s in spans if s.name.startswith("execute_tool ")}
    assert sent == written and all("jsonrpc.request.id" in a for a in sent.values())


def test_the_sample_run_recorded_before_the_field_exports_without_these_attributes(tmp_path):
    spans = spans_of(decode(export(SAMPLE_RUN, tmp_path / "sample.json")))
    tools = _tool_spans(spans)
    assert len(tools) == 159
    assert not [a for _, a in tools if any(key in a for key in MCP_KEYS)]
    assert all(a["network.transport"] == "pipe" and a["mcp.method.name"] == "tools/call" for _, a in tools)


def test_a_restarted_server_negotiates_again_and_its_calls_carry_the_new_connection(tmp_path):
    """Over HTTP the server ends the session (a DELETE, as a restarted server would forget it): the client starts
    a new one, and the calls after it carry the new session; over stdio a killed server's replacement numbers
    its requests from the start again."""
    log = tmp_path / "seen.jsonl"
    process, url = start_session_server(log)

    async def scenario() -> dict[str, list[Any]]:
        async with AsyncExitStack() as stack:
            servers = await start_servers(stack, {"http": ServerTarget(url=url),
                                                  "stdio": server_command("granular", None)},
                                          call_timeout_s=20)
            outcomes: dict[str, list[Any]] = {"http": [], "stdio": []}
            for label, server in servers.items():
                for _ in range(4):
                    outcomes[label].append(await server.call("get_order", {"orderId": "ORD-1001"}))
            first_session = outcomes["http"][-1].request.sessionId
            async with httpx.AsyncClient() as http:
                ended = await http.delete(url, headers={"mcp-session-id": first_session})
            assert ended.status_code == 200
            [pid] = child_pids(lambda arguments: b"recorder.servers" in arguments)
            os.kill(pid, signal.SIGKILL)
            for label, server in servers.items():
                try:  # the first call after the end fails as a dead server: the call it sent, if any, is named
                    await server.call("get_order", {"orderId": "ORD-1001"})
                except ServerDied as died:
                    outcomes[label].append(died)
                outcomes[label].append(await server.call("get_order", {"orderId": "ORD-1001"}))
                assert server.restarts == 1
            return outcomes

    try:
        outcomes = asyncio.run(scenario())
    finally:
        _stop(process)
    http, stdio = outcomes["http"], outcomes["stdio"]
    before, died, after = http[3].request, http[4], http[-1].request
    assert isinstance(died, ServerDied)
    assert died.request is not None and died.request.sessionId == before.sessionId  # sent in the ended session
    issued = [line["issued"] for line in seen_by(log) if line["method"] == "initialize"]
    assert issued == [before.sessionId, after.sessionId] and before.sessionId != after.sessionId
    assert after.protocolVersion in SUPPORTED_PROTOCOL_VERSIONS
    # the new connection numbers its requests afresh: the first call after the restart has a smaller id
    assert after.requestId < before.requestId
    assert stdio[-1].request.requestId < stdio[3].request.requestId and stdio[-1].request.sessionId is None
