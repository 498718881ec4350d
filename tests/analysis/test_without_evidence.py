"""Answered without evidence: an answer given before any tool returned a record is its own figure."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from analysis import summarize_runs
from recorder.agent.loop import Budgets
from recorder.run.options import RecordOptions
from recorder.run.record import record
from tests.helpers import default_cases, run_wismo
from wismo.loopback import FakeServer, Received, Reply, chat_reply
from wismo.sitegen.overview import headline_table

EXPECTED = {case["orderId"]: case["expected"] for case in default_cases() if not case.get("asks")}
CASES = ("delivered-on-time", "carrier-delay", "status-lags-carrier")


def behaviour(received: Received) -> Reply:
    """Per order: answer at once (right), call a missing tool then answer, or look the order up first."""
    messages = (received.body or {})["messages"]
    order = re.search(r"ORD-\d+", messages[1]["content"]).group(0)
    right = json.dumps({**EXPECTED[order], "customerSummary": "Here is what we know."})
    tool_results = [m for m in messages if m["role"] == "tool"]
    kind = sorted(EXPECTED).index(order) % 3
    if kind == 0 or tool_results:
        return chat_reply(text=right)  # guessed right, or answered after its lookups
    if kind == 1:
        return chat_reply(function_calls=[("no_such_tool", "{}")])  # an error result only: no record
    tool = received.body["tools"][0]["function"]["name"]
    return chat_reply(function_calls=[(tool, json.dumps({"orderId": order}))])


def recorded(tmp_path: Path) -> Path:
    with FakeServer(behaviour) as fake:
        options = RecordOptions(provider="openai-chat", model="m", base_url=fake.url + "/v1", designs=("granular",),
                                repetitions=1, case_ids=CASES, concurrency=1, out_dir=tmp_path, run_id="evidence",
                                budgets=Budgets(max_turns=4, request_timeout_s=20))
        return asyncio.run(record(options)).run_dir


def test_answers_without_a_gathered_record_are_counted_and_said(tmp_path):
    run_dir = recorded(tmp_path)
    orders = {case["orderId"] for case in default_cases() if case["caseId"] in CASES}
    kinds = [sorted(EXPECTED).index(order) % 3 for order in orders]
    without = sum(kind in (0, 1) for kind in kinds)
    passed_anyway = without  # each answered right, with or without its records
    assert 0 < without < 3, kinds  # the cases chosen exercise both sides
    [summary] = summarize_runs([run_dir])
    [design] = summary.designs
    assert (design.answered_without_evidence, design.passed_without_evidence) == (without, passed_anyway)
    assert any("answered without evidence" in w for w in summary.warnings)
    [row] = [r for r in headline_table(summary).rows if r.label == "Answered without evidence"]
    assert row.cells[0].startswith(f"{without}/3")
    done = run_wismo("summarize", str(run_dir), cwd=tmp_path)
    text = " ".join(done.stdout.split())
    assert f"answered without evidence (the model's answer, with no tool result that was not an error): " \
           f"granular {without} of 3" in text


def test_a_run_that_gathered_everything_shows_zero(tmp_path):
    def always_looks_up(received: Received) -> Reply:
        body: dict[str, Any] = received.body or {}
        if any(m["role"] == "tool" for m in body["messages"]):
            order = re.search(r"ORD-\d+", body["messages"][1]["content"]).group(0)
            return chat_reply(text=json.dumps({**EXPECTED[order], "customerSummary": "ok"}))
        order = re.search(r"ORD-\d+", body["messages"][1]["content"]).group(0)
        return chat_reply(function_calls=[(body["tools"][0]["function"]["name"], json.dumps({"orderId": order}))])

    with FakeServer(always_looks_up) as fake:
        options = RecordOptions(provider="openai-chat", model="m", base_url=fake.url + "/v1", designs=("focused",),
                                repetitions=1, case_ids=CASES[:1], concurrency=1, out_dir=tmp_path, run_id="all")
        run_dir = asyncio.run(record(options)).run_dir
    [summary] = summarize_runs([run_dir])
    assert summary.designs[0].answered_without_evidence == 0
    assert not any("without evidence" in w for w in summary.warnings)
