"""Benchmark 6: what a process pays to start and to stop, which a client connecting per session pays each time.

An MCP server's session (spawn, initialize, tools/list, one call, close) and the part of it after the
client closes stdin; the offline vocabulary the scripted policy's token estimate loads; and `wismo record`
as a user runs it, in a fresh process, with the scripted policy and with a provider that reports tokens.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

from benchmarks.record_throughput import SlowModelProcess
from benchmarks.stats import Figure, figure
from recorder.designs.mcp_client import ToolServer, server_command

CALLS = {"granular": ("get_order", {"orderId": "ORD-1004"}),
         "focused": ("get_order_support_context", {"orderId": "ORD-1004"})}
SERVE = {"wismo serve granular": [sys.executable, "-m", "wismo.cli", "serve", "granular"]}

# In a fresh interpreter: how long the o200k vocabulary takes to load (import and first use).
VOCABULARY = """
import time
started = time.perf_counter()
from recorder.providers.tokens import count_tokens
count_tokens("")
print(time.perf_counter() - started)
"""

# In a fresh interpreter: how long `record` waits for the scripted policy before starting its servers.
SCRIPTED_PROVIDER = """
import time
from recorder.providers import create_provider
from recorder.providers.base import ProviderSettings
started = time.perf_counter()
create_provider("scripted", ProviderSettings())
print(time.perf_counter() - started)
"""


async def _session(command: list[str], label: str, call: tuple[str, dict[str, str]] | None) -> tuple[float, float]:
    """(whole session, close → exited) in ms, as wismo's own client sees them."""
    started = time.perf_counter()
    server = ToolServer(command, label=label)
    await server.__aenter__()
    if call is not None:
        await server.call(*call)
    closing = time.perf_counter()
    await server.__aexit__(None, None, None)
    ended = time.perf_counter()
    return (ended - started) * 1000, (ended - closing) * 1000


def server_sessions(repeats: int) -> list[Figure]:
    """Per design (and `wismo serve`): one whole session, and its part after the client closes stdin."""
    figures = []
    commands = {design: server_command(design, None) for design in CALLS} | SERVE
    for label, command in commands.items():
        samples = [asyncio.run(_session(command, label, CALLS.get(label, CALLS["granular"])))
                   for _ in range(repeats)]
        figures.append(figure(f"MCP session (spawn → initialize → list → 1 call → exited), {label}", "ms",
                              [whole for whole, _ in samples]))
        figures.append(figure(f"MCP server shutdown (stdin closed → exited), {label}", "ms",
                              [closed for _, closed in samples]))
    return figures


def _timed_child(code: str) -> float:
    """ms, as the child measured and printed it."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(done.stdout.strip()) * 1000


def _timestamp(event: dict[str, object]) -> float:
    return datetime.fromisoformat(str(event["ts"])).timestamp()


def _record(folder: Path, run_id: str, *args: str) -> tuple[float, float, float]:
    """`wismo record` in a fresh process: (wall, start → first event, last event → exited) in seconds."""
    env = {**os.environ, "WISMO_BENCHMARK_KEY": "benchmark-key-not-secret"}
    started_wall, started = time.time(), time.perf_counter()
    subprocess.run([sys.executable, "-m", "wismo.cli", "record", "--out", str(folder), "--run-id", run_id, *args],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    wall, ended_wall = time.perf_counter() - started, time.time()
    lines = (folder / run_id / "events.jsonl").read_text(encoding="utf-8").splitlines()
    first, last = json.loads(lines[0]), json.loads(lines[-1])
    return wall, _timestamp(first) - started_wall, ended_wall - _timestamp(last)


def record_processes(repeats: int, quick: bool) -> list[Figure]:
    """`wismo record` as a user runs it: one case with the scripted policy and with the openai provider, and
    70 conversations with the scripted policy."""
    figures = [figure("o200k vocabulary load in a fresh process (what the scripted policy needs)", "ms",
                      [_timed_child(VOCABULARY) for _ in range(repeats)]),
               figure("creating the scripted policy in a fresh process (record waits for it)", "ms",
                      [_timed_child(SCRIPTED_PROVIDER) for _ in range(repeats)])]
    one_case = ("--cases", "partial-delivery", "--repetitions", "1")
    with SlowModelProcess(0.0) as url, tempfile.TemporaryDirectory() as folder:
        openai = ("--provider", "openai", "--model", "loopback", "--base-url", f"{url}/v1",
                  "--api-key-env", "WISMO_BENCHMARK_KEY")
        kinds = {"scripted, 1 case × 2 designs": one_case,
                 "openai (loopback, instant), 1 case × 2 designs": (*openai, *one_case)}
        if not quick:
            kinds["scripted, 7 cases × 2 designs × 5 = 70 conversations"] = ("--repetitions", "5")
        for number, (label, args) in enumerate(kinds.items()):
            samples = [_record(Path(folder), f"kind{number}-{index}", *args) for index in range(repeats)]
            figures.append(figure(f"wismo record, {label}: wall", "s", [wall for wall, _, _ in samples]))
            figures.append(figure(f"  {label}: start → first event (imports, servers, comparison)", "s",
                                  [first for _, first, _ in samples]))
            figures.append(figure(f"  {label}: last event → exited (claims, servers stop)", "s",
                                  [last for _, _, last in samples]))
    return figures


def startup(quick: bool) -> list[Figure]:
    """Every figure of this section."""
    repeats = 2 if quick else 5
    return server_sessions(repeats) + record_processes(repeats, quick)
