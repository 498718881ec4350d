"""The agent loop: budgets, faults and tool errors, each recorded on its conversation."""

from __future__ import annotations

import asyncio
import json
import sys
import textwrap
from pathlib import Path

import pytest

from core.domain.answer import ANSWER_SCHEMA
from core.domain.dataset import load_dataset
from core.runformat.read import read_event_lines
from core.runformat.write import ConversationLog, EventWriter
from recorder.agent.instructions import build_instructions
from recorder.agent.loop import Budgets, Conversation
from recorder.designs.mcp_client import ToolServer, server_command
from recorder.providers.base import ProviderError
from recorder.run.record import plan_conversations
from tests.recorder.fakes import PolicyProvider, call, text

DATASET = load_dataset()
GOOD_ANSWER = json.dumps({"deliveredSkus": ["LAPTOP-14"], "outstandingSkus": ["MONITOR-27"],
                          "delayReasons": ["stock_shortage"], "deliveryEstimate": None, "missingEvidence": [],
                          "customerSummary": "The laptop arrived; the monitor is backordered."})


def partial_delivery_plan(design: str = "granular"):
    return next(p for p in plan_conversations(DATASET, [design], 1) if p.case_id == "partial-delivery")


async def converse(tmp_path: Path, provider, budgets: Budgets | None = None, design: str = "granular",
                   command: list[str] | None = None):
    budgets = budgets or Budgets()
    writer = EventWriter(tmp_path / "events.jsonl", "test-run")
    async with ToolServer(command or server_command(design, None), label=design) as server:
        plan = partial_delivery_plan(design)
        instructions = build_instructions(DATASET.records.clock)
        conversation = Conversation(plan, provider, server, server.tool_specs(), instructions, ANSWER_SCHEMA, budgets,
                                    ConversationLog(writer, plan.conversation_id, 1))
        outcome = await conversation.run()
        restarts = server.restarts
    writer.close()
    events = [e for _, e in read_event_lines(tmp_path / "events.jsonl").events]
    return outcome, events, restarts


def finished(events):
    [event] = [e for e in events if e["type"] == "conversation_finished"]
    return event


def test_a_well_behaved_model_is_answered_and_scored(tmp_path):
    def policy(request):
        if request.turn == 1:
            return [call("get_order", {"orderId": "ORD-1004"}, "c1")]
        return [text(GOOD_ANSWER)]
    _outcome, events, _ = asyncio.run(converse(tmp_path, PolicyProvider(policy)))
    done = finished(events)
    assert done["status"] == "answered" and done["score"]["passed"] is True
    assert done["claimed"] == {"turns": 2, "toolCalls": 1, "inputTokens": 200, "outputTokens": 20,
                               "cachedTokens": None, "reasoningTokens": None,
                               "lookups": {"orders": 1, "payments": 0, "reservations": 0, "tracking": 0,
                                           "notFound": 0},
                               "elapsedMs": done["claimed"]["elapsedMs"], "elapsedExact": True}
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert [e["type"] for e in events] == ["conversation_started", "model_request", "model_response", "tool_call",
                                           "tool_result", "model_request", "model_response",
                                           "conversation_finished"]


def test_tool_calls_of_one_response_run_concurrently_and_all_come_back(tmp_path):
    def policy(request):
        if request.turn == 1:
            return [call("get_reservation", {"reservationId": f"RSV-1004-{s}"}, f"c{s}") for s in "AB"] + \
                   [call("get_tracking", {"trackingId": "TRK-1004-A"}, "cT")]
        outputs = [i for i in request.history if i["type"] == "function_call_output"]
        assert sorted(o["callId"] for o in outputs) == ["cA", "cB", "cT"]
        return [text(GOOD_ANSWER)]
    outcome, events, _ = asyncio.run(converse(tmp_path, PolicyProvider(policy)))
    assert outcome.status == "answered" and outcome.tool_calls == 3
    results = [e for e in events if e["type"] == "tool_result"]
    assert sorted(r["callId"] for r in results) == ["cA", "cB", "cT"]
    assert all(not r["isError"] and r["bytes"] == len(r["text"].encode()) for r in results)


def test_max_turns_is_enforced_and_recorded(tmp_path):
    def policy(request):
        return [call("get_order", {"orderId": "ORD-1004"}, f"c{request.turn}")]
    outcome, events, _ = asyncio.run(converse(tmp_path, PolicyProvider(policy), Budgets(max_turns=3)))
    done = finished(events)
    assert (done["status"], done["budgetHit"]) == ("budget_exhausted", "max_turns")
    assert done["claimed"]["turns"] == 3 and outcome.passed is False
    assert "3 model turns" in done["error"]


def test_max_tool_calls_is_enforced_before_running_the_excess(tmp_path):
    def policy(request):
        return [call("get_order", {"orderId": "ORD-1004"}, f"c{request.turn}-{i}") for i in range(3)]
    _outcome, events, _ = asyncio.run(converse(tmp_path, PolicyProvider(policy), Budgets(max_tool_calls=5)))
    done = finished(events)
    assert (done["status"], done["budgetHit"]) == ("budget_exhausted", "max_tool_calls")
    assert done["claimed"]["toolCalls"] == 3 == sum(e["type"] == "tool_call" for e in events)


def test_a_slow_request_hits_the_request_timeout(tmp_path):
    provider = PolicyProvider(lambda r: [text(GOOD_ANSWER)], delay_s=2)
    _outcome, events, _ = asyncio.run(converse(tmp_path, provider, Budgets(request_timeout_s=0.2)))
    done = finished(events)
    assert (done["status"], done["budgetHit"]) == ("timeout", "request_timeout")
    [response] = [e for e in events if e["type"] == "model_response"]
    assert response["error"]["kind"] == "timeout" and done["claimed"]["turns"] == 1


class HangsFromTurnTwo(PolicyProvider):
    """Calls a tool at once on turn 1, then never answers: the deadline must cut a model request."""

    async def complete(self, request):
        if request.turn > 1:
            await asyncio.sleep(60)
        return await super().complete(request)


def test_the_conversation_deadline_is_enforced(tmp_path):
    def policy(request):
        return [call("get_order", {"orderId": "ORD-1004"}, f"c{request.turn}")]
    provider = HangsFromTurnTwo(policy)
    # 2 s leaves a loaded machine room for turn 1 and its tool call, so the deadline falls in turn 2.
    _outcome, events, _ = asyncio.run(converse(tmp_path, provider, Budgets(conversation_deadline_s=2.0)))
    done = finished(events)
    assert (done["status"], done["budgetHit"]) == ("timeout", "deadline")
    assert 1900 <= done["claimed"]["elapsedMs"] < 10_000 and done["claimed"]["turns"] == 2
    # The cancelled request still gets its response line: the trace stays whole.
    requests = [e["turn"] for e in events if e["type"] == "model_request"]
    responses = [e for e in events if e["type"] == "model_response"]
    assert [r["turn"] for r in responses] == requests == list(range(1, done["claimed"]["turns"] + 1))
    assert responses[-1]["error"]["kind"] == "timeout" and "deadline" in responses[-1]["error"]["message"]
    calls = {e["callId"] for e in events if e["type"] == "tool_call"}
    assert calls == {e["callId"] for e in events if e["type"] == "tool_result"}


def test_provider_errors_are_recorded_and_fatal_ones_flagged(tmp_path):
    provider = PolicyProvider(lambda r: ProviderError("auth", "rejected (401)", status=401, fatal=True))
    outcome, events, _ = asyncio.run(converse(tmp_path, provider))
    done = finished(events)
    assert done["status"] == "provider_error" and outcome.fatal_error is not None
    [response] = [e for e in events if e["type"] == "model_response"]
    assert response["error"] == {"kind": "auth", "status": 401, "message": "rejected (401)", "fatal": True,
                                 "retries": 0}


def test_unknown_tools_and_bad_arguments_get_tool_errors_and_the_loop_goes_on(tmp_path):
    def policy(request):
        if request.turn == 1:
            return [call("get_invoice", {"orderId": "ORD-1004"}, "u"), call("get_order", "{orderId: ORD", "m"),
                    call("get_order", "[1]", "l"), call("get_order", {"order": "ORD-1004"}, "w")]
        return [text(GOOD_ANSWER)]
    outcome, events, _ = asyncio.run(converse(tmp_path, PolicyProvider(policy)))
    assert outcome.status == "answered" and outcome.passed
    results = {e["callId"]: e for e in events if e["type"] == "tool_result"}
    assert results["u"]["errorKind"] == "unknown_tool" and "get_order" in results["u"]["text"]
    assert results["m"]["errorKind"] == "invalid_arguments" and "not valid JSON" in results["m"]["text"]
    assert results["l"]["errorKind"] == "invalid_arguments"
    assert results["w"]["errorKind"] == "tool" and results["w"]["isError"]


def test_an_answer_that_does_not_parse_is_kept_verbatim(tmp_path):
    prose = "Your laptop arrived and the monitor is <b>backordered</b>."
    _outcome, events, _ = asyncio.run(converse(tmp_path, PolicyProvider(lambda r: [text(prose)])))
    done = finished(events)
    assert done["status"] == "invalid_answer" and done["finalText"] == prose
    assert done["assessment"] is None and done["score"]["passed"] is False and "not a JSON object" in done["error"]


DYING_SERVER = textwrap.dedent('''
    import os, sys
    from mcp.server import MCPServer
    from recorder.servers import build_server
    server = build_server("granular")
    @server.tool(structured_output=False)
    def crash(orderId: str) -> str:
        """Kills this server process."""
        os._exit(3)
    server.run("stdio")
''')


def test_a_dying_server_is_restarted_and_its_conversation_recorded_as_tool_error(tmp_path):
    script = tmp_path / "dying.py"
    script.write_text(DYING_SERVER)

    def policy(request):
        return [call("crash", {"orderId": "ORD-1004"}, "boom")]
    command = [sys.executable, str(script)]

    async def go():
        writer = EventWriter(tmp_path / "events.jsonl", "test-run")
        async with ToolServer(command, label="granular") as server:
            plan = partial_delivery_plan()
            log = ConversationLog(writer, plan.conversation_id, 1)
            outcome = await Conversation(plan, PolicyProvider(policy), server, server.tool_specs(), "", ANSWER_SCHEMA,
                                         Budgets(), log).run()
            after = await server.call("get_order", {"orderId": "ORD-1004"})
            return outcome, server.restarts, after
    outcome, restarts, after = asyncio.run(go())
    assert outcome.status == "tool_error"
    assert restarts == 1 and not after.is_error
    events = [e for _, e in read_event_lines(tmp_path / "events.jsonl").events]
    [result] = [e for e in events if e["type"] == "tool_result"]
    assert result["errorKind"] == "server_died"


@pytest.mark.parametrize("design", ["granular", "focused"])
def test_requests_are_reconstructable_from_instructions_tools_and_new_items(tmp_path, design):
    from recorder.providers.scripted import ScriptedProvider

    class Recording(ScriptedProvider):
        def __init__(self):
            super().__init__()
            self.seen = []

        async def complete(self, request):
            self.seen.append(request)
            return await super().complete(request)
    provider = Recording()
    outcome, events, _ = asyncio.run(converse(tmp_path, provider, design=design))
    assert outcome.passed
    rebuilt: list = []
    for event, request in zip([e for e in events if e["type"] == "model_request"], provider.seen, strict=True):
        rebuilt += event["newItems"]
        assert rebuilt == request.history
        assert event["historyLength"] == len(request.history)
