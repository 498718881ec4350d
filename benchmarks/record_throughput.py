"""Benchmark 5: record throughput against a slow loopback model (OpenAI Responses wire format).

The loopback server answers each request after a fixed delay with what the scripted policy would
do (so conversations follow the real IDs through the real MCP servers); the openai provider talks
to it through the official SDK. Wall time is compared with the ideal: requests × delay / concurrency.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

from benchmarks.stats import Figure, figure
from core.domain.linking import ToolSpec
from core.runformat.read import read_event_lines
from recorder.providers.base import ModelRequest
from recorder.providers.scripted import ScriptedProvider
from recorder.providers.tokens import start_loading
from recorder.run.options import RecordOptions
from recorder.run.record import record
from wismo.loopback import FakeServer, Received, Reply
from wismo.loopback.replies import Tokens, responses_reply

DELAY_S = 0.2


@functools.cache
def _policy() -> ScriptedProvider:
    return ScriptedProvider()


def _neutral_history(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    history = []
    for item in items:
        if item.get("type") == "function_call":
            history.append({"type": "function_call", "callId": item["call_id"], "name": item["name"],
                            "arguments": item["arguments"]})
        elif item.get("type") == "function_call_output":
            # The Responses wire has no error flag; wismo's servers prefix tool errors with this text.
            history.append({"type": "function_call_output", "callId": item["call_id"], "output": item["output"],
                            "isError": item["output"].startswith("Error executing tool")})
        else:
            history.append({"type": "message", "role": item["role"], "content": item["content"]})
    return history


def slow_scripted_model(received: Received, delay_s: float = DELAY_S) -> Reply:
    """Answer like the scripted policy, after delay_s, in the Responses API's wire format."""
    body = received.body
    tools = [ToolSpec(t["name"], t["description"], t["parameters"]) for t in body["tools"]]
    history = _neutral_history(body["input"])
    # The policy numbers its call ids by turn; the history length is unique per request of a conversation.
    request = ModelRequest(body["instructions"], tools, history, {}, len(history), 60)
    output = _policy().next_output(request)
    calls = [(o["name"], o["arguments"], o["callId"]) for o in output if o["type"] == "function_call"]
    text = next((o["text"] for o in output if o["type"] == "text"), None)
    reply = responses_reply(function_calls=calls, text=text, usage=Tokens(input=len(received.raw) // 4, output=50))
    reply.delay_s = delay_s
    return reply


def serve_forever(delay_s: float = DELAY_S) -> None:
    """Run the slow model in its own process (so it does not share the harness's GIL); print its URL."""
    import sys

    start_loading().result()  # now, so that it never competes with the process being measured
    with FakeServer(lambda received: slow_scripted_model(received, delay_s)) as server:
        print(server.url, flush=True)
        sys.stdin.read()  # until the parent closes the pipe


class SlowModelProcess:
    """The slow loopback model as a child process, for the duration of a `with` block."""

    def __init__(self, delay_s: float = DELAY_S) -> None:
        self.delay_s = delay_s

    def __enter__(self) -> str:
        import subprocess
        import sys

        self.process = subprocess.Popen([sys.executable, "-m", "benchmarks.record_throughput", "--serve",
                                         str(self.delay_s)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        return self.process.stdout.readline().strip()

    def __exit__(self, *exc: object) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=10)


def schedule_bound(run_dir: Path, concurrency: int) -> float:
    """The wall time wismo's own scheduling allows with zero overhead: conversations start in plan order
    as slots free up, and each takes its number of requests × DELAY_S."""
    import heapq

    events = [e for _, e in read_event_lines(run_dir / "events.jsonl").events]
    order = {p["conversationId"]: i for i, p in enumerate(json.loads((run_dir / "manifest.json").read_text())["plan"])}
    requests: dict[str, int] = {}
    for event in events:
        if event["type"] == "model_request":
            requests[event["conversationId"]] = requests.get(event["conversationId"], 0) + 1
    slots = [0.0] * concurrency
    for conversation in sorted(requests, key=order.__getitem__):
        heapq.heappush(slots, heapq.heappop(slots) + requests[conversation] * DELAY_S)
    return max(slots)


def _conversation_wall(run_dir: Path) -> tuple[float, int]:
    events = [e for _, e in read_event_lines(run_dir / "events.jsonl").events]
    started = min(datetime.fromisoformat(e["ts"]) for e in events if e["type"] == "conversation_started")
    finished = max(datetime.fromisoformat(e["ts"]) for e in events if e["type"] == "conversation_finished")
    requests = sum(e["type"] == "model_request" for e in events)
    failed = [e for e in events if e["type"] == "conversation_finished" and not e["score"]["passed"]]
    if failed:
        raise RuntimeError(f"{len(failed)} conversations failed in the throughput benchmark")
    return (finished - started).total_seconds(), requests


def record_throughput(concurrencies: list[int], repeats: int) -> list[Figure]:
    """7 cases × 2 designs × 3 repetitions at each concurrency, against the ideal."""
    figures = []
    # A variable of its own, so a real OPENAI_API_KEY in the environment is never sent, even to loopback.
    os.environ["WISMO_BENCHMARK_KEY"] = "benchmark-key-not-secret"
    with SlowModelProcess() as url, tempfile.TemporaryDirectory() as folder:
        for concurrency in concurrencies:
            walls, ratios, bounded = [], [], []
            for attempt in range(repeats):
                options = RecordOptions(provider="openai", model="slow-loopback", base_url=f"{url}/v1",
                                        api_key_env="WISMO_BENCHMARK_KEY",
                                        concurrency=concurrency, repetitions=3, out_dir=Path(folder),
                                        run_id=f"c{concurrency}-{attempt}")
                result = asyncio.run(record(options))
                wall, requests = _conversation_wall(result.run_dir)
                ideal = requests * DELAY_S / concurrency
                walls.append(wall)
                ratios.append(wall / ideal)
                bounded.append(wall / schedule_bound(result.run_dir, concurrency))
            figures.append(figure(f"record 42 conversations, {requests} requests × {DELAY_S * 1000:.0f} ms, "
                                  f"concurrency {concurrency}", "s", walls))
            goal = ("within 10 % of ideal", 1.10) if concurrency == 16 else (None, None)
            figures.append(figure(f"  wall / ideal (requests × delay / concurrency), concurrency {concurrency}",
                                  "×", ratios, *goal))
            figures.append(figure(f"  wall / schedule bound (whole conversations per slot), concurrency {concurrency}",
                                  "×", bounded))
    return figures


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["--serve"]:
        serve_forever(float(sys.argv[2]) if len(sys.argv) > 2 else DELAY_S)
    else:
        for line in record_throughput([16], 1):
            print(line.line())
