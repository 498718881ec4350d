"""Designs a user brings: --server, --designs, --baseline, --header, rotating groups, one-line start-up errors."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import socket
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from core.domain.dataset import load_dataset
from core.errors import WismoError
from recorder.designs.choose import choose_designs, parse_header, parse_server
from recorder.run.options import RecordOptions
from recorder.run.record import plan_conversations, record
from recorder.servers import build_server
from tests.helpers import ROOT, run_wismo

EXAMPLE = ROOT / "examples" / "middle" / "server.py"
CASE = "delivered-on-time"


def run_async(coroutine: Any) -> Any:
    """asyncio.run in a thread of its own (a session's sync Playwright may keep a loop in this one)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


# --- plans: groups whose order rotates ---------------------------------------------------------------

def test_every_design_goes_first_second_and_third_equally_often():
    dataset = load_dataset()
    plans = plan_conversations(dataset, ["granular", "focused", "middle"], repetitions=3)
    groups: dict[int, list[tuple[int, str]]] = {}
    for plan in plans:
        groups.setdefault(plan.pair_index, []).append((plan.pair_position, plan.design))
    assert all(sorted(p for p, _ in members) == [1, 2, 3] for members in groups.values())
    assert all(sorted(d for _, d in members) == ["focused", "granular", "middle"] for members in groups.values())
    places = Counter((design, position) for members in groups.values() for position, design in members)
    # 12 cases × 3 repetitions = 36 groups: each design is in each place 12 times
    assert set(places.values()) == {len(groups) // 3}
    orders = [[d for _, d in sorted(groups[i])] for i in range(3)]
    assert orders == [["granular", "focused", "middle"], ["focused", "middle", "granular"],
                      ["middle", "granular", "focused"]]


def test_two_designs_still_alternate_and_one_design_is_a_group_of_one():
    dataset = load_dataset()
    two = plan_conversations(dataset, ["granular", "focused"], repetitions=1)
    firsts = [p.design for p in two if p.pair_position == 1]
    assert firsts[:4] == ["granular", "focused", "granular", "focused"]
    one = plan_conversations(dataset, ["focused"], repetitions=2)
    assert {p.pair_position for p in one} == {1} and len(one) == 2 * len(dataset.cases)


# --- choosing designs ----------------------------------------------------------------------------------

def test_servers_join_the_built_in_designs_and_the_baseline_is_the_first_unless_named():
    choice = choose_designs([parse_server("mine=python my_server.py --fast")])
    assert choice.names == ("granular", "focused", "mine") and choice.baseline == "granular"
    assert choice.designs[2].command == ("python", "my_server.py", "--fast")
    picked = choose_designs([parse_server("mine=https://example.test/mcp")], ["mine", "focused"], "focused")
    assert picked.names == ("mine", "focused") and picked.baseline == "focused"
    assert picked.designs[0].source() == {"url": "https://example.test/mcp", "headers": [], "builtIn": False}
    # the comparison's reference is wismo's own granular server, recorded or not
    assert picked.reference.name == "granular" and picked.reference.built_in
    replaced = choose_designs([parse_server("focused=python other_focused.py")])
    assert replaced.names == ("granular", "focused") and not replaced.designs[1].built_in


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"servers": [parse_server("a=python x.py"), parse_server("a=python y.py")]},
     "two --server options name the design 'a'"),
    ({"designs": ["granular", "granular"]}, "--designs names granular more than once"),
    ({"designs": ["granular", "nope"]}, "unknown design(s) nope; known: granular, focused"),
    ({"baseline": "middle"}, "--baseline middle: not one of the recorded designs (granular, focused)"),
    ({"servers": [parse_server("granular=python x.py")]}, "granular is wismo's reference design"),
    ({"headers": [parse_header("focused=Authorization: Bearer x")]}, "headers go to a design reached over HTTP"),
    ({"servers": [parse_server("m=https://x.test/mcp")], "headers": [parse_header("m=X-Key: ${WISMO_UNSET_VAR}")]},
     "reads $WISMO_UNSET_VAR, which is not set"),
])
def test_every_wrong_choice_is_one_line_naming_it(kwargs, message):
    with pytest.raises(WismoError) as raised:
        choose_designs(**kwargs)
    assert message in str(raised.value) and "\n" not in str(raised.value)


@pytest.mark.parametrize(("value", "message"), [
    ("nameonly", "expected NAME=COMMAND or NAME=http(s)://HOST/PATH"),
    ("bad.name=python x.py", "design name 'bad.name' must start with a letter"),
    ("m=python 'unclosed", "the command cannot be split into words"),
])
def test_a_malformed_server_option_names_what_is_wrong(value, message):
    with pytest.raises(WismoError, match=None) as raised:
        parse_server(value)
    assert message in str(raised.value)


# --- start-up errors through the CLI: one line, exit 2, nothing left behind ----------------------------

def _record_cli(tmp_path: Path, *args: str) -> Any:
    return run_wismo("record", *args, "--cases", CASE, "--repetitions", "1", "--out", str(tmp_path / "runs"),
                     "--run-id", "r", cwd=tmp_path)


def _servers(tmp_path: Path, name: str, source: str) -> str:
    script = tmp_path / name
    script.write_text(source, encoding="utf-8")
    return f"{sys.executable} {script}"


def test_a_server_that_does_not_start_is_named_with_the_tail_of_its_stderr(tmp_path: Path):
    crash = _servers(tmp_path, "crash.py", "import sys\nprint('loading config', file=sys.stderr)\n"
                                           "raise SystemExit('fatal: cannot open orders.db')\n")
    done = _record_cli(tmp_path, "--server", f"mine={crash}")
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("error: design 'mine': its MCP server (") and "did not start" in line
    assert line.endswith("its stderr ends: loading config | fatal: cannot open orders.db")
    assert not (tmp_path / "runs" / "r").exists()


def test_a_server_with_no_tools_and_a_url_that_does_not_answer_are_one_line_each(tmp_path: Path):
    empty = _servers(tmp_path, "empty.py", "from mcp.server import MCPServer\nMCPServer(name='empty').run('stdio')\n")
    done = _record_cli(tmp_path, "--server", f"empty={empty}")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"error: design 'empty' ({empty}): its server lists no tools (tools/list is empty)"]
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = _record_cli(tmp_path, "--server", f"remote=http://user:pw@127.0.0.1:{port}/mcp")
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"error: design 'remote': the MCP server at http://127.0.0.1:{port}/mcp did not answer")
    assert "pw" not in line and not (tmp_path / "runs" / "r").exists()


def test_two_designs_with_the_same_name_stop_before_anything_starts(tmp_path: Path):
    done = _record_cli(tmp_path, "--server", "a=python x.py", "--server", "a=python y.py")
    assert done.returncode == 2
    assert done.stderr.strip() == "error: two --server options name the design 'a'; give each design its own name"


# --- a design reached over streamable HTTP with a bearer token -------------------------------------------

class _TokenGate:
    """An ASGI wrapper that refuses every request without the expected bearer token, and counts what it saw."""

    def __init__(self, app: Any, token: str) -> None:
        self.app, self.expected, self.seen = app, f"Bearer {token}".encode(), Counter[str]()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope["headers"]).get(b"authorization")
            self.seen["ok" if given == self.expected else "refused"] += 1
            if given != self.expected:
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b"no"})
                return
        await self.app(scope, receive, send)


@pytest.fixture
def guarded_focused() -> Iterator[tuple[str, _TokenGate]]:
    """wismo's focused design over streamable HTTP behind a bearer token, in a thread of this process."""
    gate = _TokenGate(build_server("focused").streamable_http_app(host="127.0.0.1"), "tok-3f9a1c7e5b2d")
    sock = socket.create_server(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(gate, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        threading.Event().wait(0.01)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}/mcp", gate
    server.should_exit = True
    thread.join(10)


def _files_text(folder: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in folder.rglob("*") if p.is_file())


def test_a_design_over_http_gets_its_header_from_the_environment_and_it_is_never_written(
        tmp_path: Path, guarded_focused, monkeypatch):
    url, gate = guarded_focused
    monkeypatch.setenv("WISMO_TEST_MCP_CREDENTIAL", "tok-3f9a1c7e5b2d")
    header = "remote=Authorization: Bearer ${WISMO_TEST_MCP_CREDENTIAL}"
    options = RecordOptions(servers=(parse_server(f"remote={url}"),), headers=(parse_header(header),),
                            designs=("granular", "remote"), baseline="remote", repetitions=1, case_ids=(CASE,),
                            out_dir=tmp_path, run_id="http",
                            command_line=("wismo", "record", "--server", f"remote={url}", "--header", header))
    result = run_async(record(options))
    assert [o.passed for _, o in result.outcomes] == [True, True]
    assert gate.seen["ok"] > 0 and gate.seen["refused"] == 0
    manifest = json.loads((tmp_path / "http" / "manifest.json").read_text())
    assert manifest["designs"] == ["granular", "remote"] and manifest["baseline"] == "remote"
    source = manifest["designSources"]["remote"]
    assert source == {"command": None, "url": url, "headers": ["Authorization"], "builtIn": False,
                      "serverName": "wismo-focused", "serverVersion": source["serverVersion"]}
    assert source["serverVersion"]
    assert manifest["toolsListed"]["remote"][0]["name"] == "get_order_support_context"
    assert "tok-3f9a1c7e5b2d" not in _files_text(tmp_path / "http")
    # without the header the server refuses, and the run says so in one line before recording anything
    refused = RecordOptions(servers=(parse_server(f"remote={url}"),), designs=("granular", "remote"),
                            repetitions=1, case_ids=(CASE,), out_dir=tmp_path, run_id="refused")
    with pytest.raises(WismoError) as raised:
        run_async(record(refused))
    assert str(raised.value) == (f"design 'remote': the MCP server at {url} refused to start a session: "
                                 "HTTP 401 Unauthorized (check its --header)")
    assert not (tmp_path / "refused").exists()


# --- resume starts the servers the run recorded ------------------------------------------------------------

def _drop_conversation(run_dir: Path, conversation_id: str) -> None:
    """Remove one conversation's lines, as if the run had been killed before it finished."""
    events = run_dir / "events.jsonl"
    kept = [line for line in events.read_text().splitlines()
            if json.loads(line).get("conversationId") != conversation_id and json.loads(line)["type"] != "run_finished"]
    events.write_text("\n".join(kept) + "\n")


def test_resume_starts_a_brought_server_from_the_manifest_and_asks_again_for_its_headers(
        tmp_path: Path, guarded_focused, monkeypatch):
    url, gate = guarded_focused
    monkeypatch.setenv("WISMO_TEST_MCP_CREDENTIAL", "tok-3f9a1c7e5b2d")
    header = parse_header("remote=Authorization: Bearer ${WISMO_TEST_MCP_CREDENTIAL}")
    options = RecordOptions(servers=(parse_server(f"remote={url}"), parse_server(f"middle={sys.executable} {EXAMPLE}")),
                            headers=(header,), designs=("remote", "middle"), repetitions=1, case_ids=(CASE,),
                            out_dir=tmp_path, run_id="resumed")
    run_async(record(options))
    run_dir = tmp_path / "resumed"
    _drop_conversation(run_dir, f"{CASE}.middle.r1")
    _drop_conversation(run_dir, f"{CASE}.remote.r1")
    from recorder.run.resume import resume
    with pytest.raises(WismoError) as raised:
        run_async(resume(run_dir))
    assert str(raised.value) == ("design remote was reached with the header(s) authorization, whose values are never "
                                 "stored: give them again with --header 'remote=Header: value'")
    before = gate.seen["ok"]
    result = run_async(resume(run_dir, headers=(header,)))
    assert sorted(plan.conversation_id for plan, _ in result.outcomes) == [f"{CASE}.middle.r1", f"{CASE}.remote.r1"]
    assert gate.seen["ok"] > before and gate.seen["refused"] == 0
    assert "tok-3f9a1c7e5b2d" not in _files_text(run_dir)


def test_a_design_whose_records_differ_is_one_line_before_any_conversation(tmp_path: Path):
    source = EXAMPLE.read_text(encoding="utf-8")
    dropping = source.replace('for rid in found["reservationIds"]]', 'for rid in found["reservationIds"][1:]]')
    assert dropping != source
    planted = _servers(tmp_path, "dropping.py", dropping)
    done = _record_cli(tmp_path, "--server", f"middle={planted}")
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.strip().splitlines()
    run_dir = tmp_path / "runs" / "r"
    assert line.startswith("error: design middle returns different evidence: ORD-1001: reservation RSV-1001-A "
                           "missing (granular returns it)")
    assert line.endswith(f"; nothing recorded (see {run_dir / 'deterministic-comparison.json'})")
    # the report stays for the user to read; nothing else was written
    assert sorted(p.name for p in run_dir.iterdir() if p.name != "logs") == [".wismo-lock",
                                                                          "deterministic-comparison.json"]
