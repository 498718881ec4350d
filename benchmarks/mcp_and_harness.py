"""Benchmarks 1 and 2: MCP round trips over stdio, and the harness's own cost per conversation."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import time
from pathlib import Path

from benchmarks.stats import Figure, figure
from core.domain.answer import ANSWER_SCHEMA
from core.domain.dataset import load_dataset
from core.runformat.write import ConversationLog, EventWriter
from recorder.agent.instructions import build_instructions
from recorder.agent.loop import Budgets, Conversation
from recorder.designs.mcp_client import ToolServer, server_command
from recorder.providers.scripted import ScriptedProvider
from recorder.run.options import RecordOptions
from recorder.run.record import plan_conversations, record

CALLS = {"granular": ("get_order", {"orderId": "ORD-1004"}),
         "focused": ("get_order_support_context", {"orderId": "ORD-1004"})}


async def _spawn_times(design: str, repeats: int) -> list[float]:
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        async with ToolServer(server_command(design, None), label=design):
            samples.append((time.perf_counter() - started) * 1000)
    return samples


async def _round_trips(design: str, calls: int, concurrent: int) -> tuple[list[float], list[float]]:
    """Each call's own latency (ms), and the wall time of each batch of `concurrent` calls sent at once."""
    name, arguments = CALLS[design]
    latencies, batches = [], []
    async with ToolServer(server_command(design, None), label=design) as server:
        for _ in range(20):  # warm-up
            await server.call(name, arguments)
        for _ in range(calls // concurrent):
            started = time.perf_counter()
            outcomes = await asyncio.gather(*(server.call(name, arguments) for _ in range(concurrent)))
            batches.append((time.perf_counter() - started) * 1000)
            latencies += [outcome.latency_ms for outcome in outcomes]
    return latencies, batches


def mcp_round_trip(quick: bool) -> list[Figure]:
    """tools/call latency sequential and 4 concurrent, and spawn + initialize time, per design."""
    figures = []
    calls = 100 if quick else 400
    for design in ("granular", "focused"):
        sequential, _ = asyncio.run(_round_trips(design, calls, 1))
        figures.append(figure(f"MCP tools/call round trip, {design}, sequential", "ms", sequential,
                              "≤ 1.5 ms median", 1.5))
        latencies, batches = asyncio.run(_round_trips(design, calls, 4))
        figures.append(figure(f"MCP tools/call round trip, {design}, 4 concurrent (per call)", "ms", latencies))
        figures.append(figure(f"MCP tools/call, {design}, a batch of 4 concurrent (wall)", "ms", batches))
        figures.append(figure(f"MCP server spawn + initialize + tools/list, {design}", "ms",
                              asyncio.run(_spawn_times(design, 3 if quick else 10))))
    return figures


async def _conversation_times(design: str, repeats: int) -> list[float]:
    dataset = load_dataset()
    plans = plan_conversations(dataset, [design], 1)
    instructions = build_instructions(dataset.records.clock)
    provider = ScriptedProvider()
    samples = []
    with tempfile.TemporaryDirectory() as folder:
        writer = EventWriter(Path(folder) / "events.jsonl", "bench")
        async with ToolServer(server_command(design, None), label=design) as server:
            tools = server.tool_specs()
            for index in range(repeats):
                plan = plans[index % len(plans)]
                log = ConversationLog(writer, f"{plan.conversation_id}.{index}", 1)
                started = time.perf_counter()
                await Conversation(plan, provider, server, tools, instructions, ANSWER_SCHEMA, Budgets(), log).run()
                samples.append((time.perf_counter() - started) * 1000)
        writer.close()
    return samples[len(plans):]  # the first pass over the cases is warm-up


def harness_overhead(quick: bool) -> list[Figure]:
    """Wall time of a conversation with the instant scripted model, servers running; and run start-up."""
    repeats = 70 if quick else 350
    figures = [
        figure("Harness: one granular conversation (scripted, servers up)", "ms",
               asyncio.run(_conversation_times("granular", repeats)), "≤ 50 ms", 50),
        figure("Harness: one focused conversation (scripted, servers up)", "ms",
               asyncio.run(_conversation_times("focused", repeats))),
    ]
    starts = []
    for _ in range(2 if quick else 5):
        folder = Path(tempfile.mkdtemp())
        try:
            started = time.perf_counter()
            asyncio.run(record(RecordOptions(repetitions=1, case_ids=("partial-delivery",), out_dir=folder,
                                             run_id="start")))
            events = (folder / "start" / "events.jsonl").read_text().splitlines()
            total = (time.perf_counter() - started) * 1000
            # Start-up = everything before the first conversation: comparison, servers, manifest.
            import json
            from datetime import datetime
            first = datetime.fromisoformat(json.loads(events[0])["ts"])
            last = datetime.fromisoformat(json.loads(events[-1])["ts"])
            starts.append(total - (last - first).total_seconds() * 1000)
        finally:
            shutil.rmtree(folder)
    figures.append(figure("Run start-up (comparison + 2 servers + manifest)", "ms", starts))
    return figures
