"""The scripted policy through real stdio servers: every case passes, on any dataset and tool names."""

from __future__ import annotations

import asyncio
import json
import sys
import textwrap
from collections import defaultdict
from pathlib import Path

import pytest

from core.domain.answer import answer_schema
from core.domain.dataset import load_dataset
from core.runformat.read import read_event_lines
from recorder.agent.instructions import build_instructions
from recorder.agent.loop import Budgets, Conversation
from recorder.designs.mcp_client import ToolServer
from recorder.providers.scripted import ScriptedProvider
from recorder.run.options import RecordOptions
from recorder.run.record import plan_conversations, record
from tests.helpers import renamed_dataset


def conversations(run_dir: Path) -> dict[str, list[dict]]:
    by_id: dict[str, list[dict]] = defaultdict(list)
    for _, event in read_event_lines(run_dir / "events.jsonl").events:
        if "conversationId" in event:
            by_id[event["conversationId"]].append(event)
    return by_id


@pytest.fixture(scope="module")
def default_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs")
    result = asyncio.run(record(RecordOptions(repetitions=1, out_dir=out, run_id="scripted")))
    return result.run_dir


def test_every_case_passes_in_both_designs(default_run):
    finished = [e for events in conversations(default_run).values() for e in events
                if e["type"] == "conversation_finished"]
    assert len(finished) == 24
    assert all(e["status"] == "answered" and e["score"]["passed"] for e in finished), \
        [e["conversationId"] for e in finished if not e["score"]["passed"]]


def test_partial_delivery_needs_three_turns_and_five_calls_granular_two_and_one_focused(default_run):
    by_id = conversations(default_run)
    claims = {design: next(e for e in by_id[f"partial-delivery.{design}.r1"]
                           if e["type"] == "conversation_finished")["claimed"] for design in ("granular", "focused")}
    assert (claims["granular"]["turns"], claims["granular"]["toolCalls"]) == (3, 5)
    assert (claims["focused"]["turns"], claims["focused"]["toolCalls"]) == (2, 1)
    # The second granular turn asks for payment, both reservations and the tracking at once.
    second = [e for e in by_id["partial-delivery.granular.r1"] if e["type"] == "tool_call" and e["turn"] == 2]
    assert sorted(e["name"] for e in second) == ["get_payment", "get_reservation", "get_reservation", "get_tracking"]


def test_a_payment_question_follows_only_the_payment_granular_and_reads_everything_focused(default_run):
    by_id = conversations(default_run)
    calls = {design: [(e["name"], json.loads(e["arguments"])) for e in by_id[f"payment-taken.{design}.r1"]
                      if e["type"] == "tool_call"] for design in ("granular", "focused")}
    assert calls["granular"] == [("get_order", {"orderId": "ORD-1001"}), ("get_payment", {"paymentId": "PAY-1001"})]
    assert calls["focused"] == [("get_order_support_context", {"orderId": "ORD-1001"})]
    started = next(e for e in by_id["payment-taken.granular.r1"] if e["type"] == "conversation_started")
    finished = next(e for e in by_id["payment-taken.granular.r1"] if e["type"] == "conversation_finished")
    assert started["asks"] == ["paymentStatus"]
    assert finished["score"] == {"fields": {"paymentStatus": True}, "passed": True}
    assert set(finished["assessment"]) == {"paymentStatus", "customerSummary"}


def test_an_arrival_question_follows_the_tracking_but_not_the_payment_or_reservations(default_run):
    names = [e["name"] for e in conversations(default_run)["has-everything-arrived.granular.r1"]
             if e["type"] == "tool_call"]
    assert names == ["get_order", "get_tracking"]


def test_the_manifest_records_what_each_question_kind_received(default_run):
    manifest = json.loads((default_run / "manifest.json").read_text())
    kinds = {tuple(k["asks"]): k for k in manifest["questionKinds"]}
    assert set(kinds) == {tuple(c["asks"]) for c in manifest["cases"]} and len(kinds) == 4
    payment = kinds[("paymentStatus",)]
    assert payment["answerSchema"]["required"] == ["paymentStatus", "customerSummary"]
    assert "its payment" in payment["instructions"] and "deliveredSkus" not in payment["instructions"]
    case = next(c for c in manifest["cases"] if c["caseId"] == "payment-taken")
    assert case["asks"] == ["paymentStatus"] and case["expected"] == {"paymentStatus": "captured"}
    # the default question's instructions and schema stay at the top, as before
    assert kinds[tuple(manifest["cases"][0]["asks"])]["instructions"] == manifest["instructions"]


def test_input_tokens_grow_turn_by_turn_and_are_marked_estimated(default_run):
    for conversation_id, events in conversations(default_run).items():
        responses = [e for e in events if e["type"] == "model_response"]
        inputs = [r["usage"]["inputTokens"] for r in responses]
        assert inputs == sorted(inputs) and len(set(inputs)) == len(inputs), conversation_id
        assert all(r["usage"]["estimated"] is True and r["usage"]["cachedTokens"] is None for r in responses)
        assert all(r["model"] == "scripted-policy-v1" for r in responses)


def test_the_manifest_labels_the_policy_as_not_a_language_model(default_run):
    manifest = json.loads((default_run / "manifest.json").read_text())
    assert manifest["provider"] == {"name": "scripted", "label": "scripted, not a language model",
                                    "isLanguageModel": False,
                                    "options": {"reasoningEffort": None, "promptCaching": None,
                                                "structuredOutput": None, "strictTools": False}}
    assert "estimated" in manifest["tokenCounts"]


def test_a_dataset_with_other_ids_and_skus(tmp_path, make_dataset):
    records, cases = renamed_dataset()
    folder = make_dataset(records=records, cases=cases)
    result = asyncio.run(record(RecordOptions(repetitions=1, dataset_dir=folder, out_dir=tmp_path, run_id="renamed")))
    assert len(result.outcomes) == 24 and all(o.passed for _, o in result.outcomes)
    calls = [e for events in conversations(result.run_dir).values() for e in events if e["type"] == "tool_call"]
    assert any("RSV-5004-B" in e["arguments"] for e in calls)
    assert not any("-10" in e["arguments"] for e in calls)


RENAMED_TOOLS = textwrap.dedent('''
    from mcp.server import MCPServer
    from core.domain.dataset import load_records
    from recorder.servers.lookups import Lookups
    from mcp.types import CallToolResult
    from recorder.servers._common import answer
    lookups = Lookups(load_records())
    server = MCPServer(name="other-names")

    @server.tool(structured_output=False)
    def lookup_purchase(orderId: str) -> CallToolResult:
        """A purchase."""
        return answer("lookup_purchase", lookups.order, orderId)

    @server.tool(structured_output=False)
    def charge_status(paymentId: str) -> CallToolResult:
        """A charge."""
        return answer("charge_status", lookups.payment, paymentId)

    @server.tool(structured_output=False)
    def stock_hold(reservationId: str) -> CallToolResult:
        """A hold."""
        return answer("stock_hold", lookups.reservation, reservationId)

    @server.tool(structured_output=False)
    def parcel(trackingId: str) -> CallToolResult:
        """A parcel."""
        return answer("parcel", lookups.tracking, trackingId)

    server.run("stdio")
''')


def test_tool_names_are_never_assumed(tmp_path):
    from core.runformat.write import ConversationLog, EventWriter
    script = tmp_path / "other_names.py"
    script.write_text(RENAMED_TOOLS)
    dataset = load_dataset()

    async def go():
        writer = EventWriter(tmp_path / "events.jsonl", "t")
        outcomes = []
        async with ToolServer([sys.executable, str(script)], label="renamed") as server:
            for plan in plan_conversations(dataset, ["granular"], 1):
                log = ConversationLog(writer, plan.conversation_id, 1)
                outcomes.append(await Conversation(plan, ScriptedProvider(), server, server.tool_specs(),
                                                   build_instructions(dataset.records.clock, plan.asks),
                                                   answer_schema(plan.asks), Budgets(), log).run())
        return outcomes
    outcomes = asyncio.run(go())
    assert len(outcomes) == 12 and all(o.passed for o in outcomes)
    assert [o.tool_calls for o in outcomes] == [6, 4, 4, 5, 4, 3, 5, 2, 2, 2, 2, 2]


def test_a_payment_summary_reads_for_an_order_a_brought_design_serves_without_items():
    from core.domain.evidence import Evidence, derive
    from recorder.providers.summaries import compose_summary

    evidence = Evidence()
    evidence.add_result("orderId", "ORD-1", json.dumps({"orderId": "ORD-1", "status": "placed", "items": [],
                                                        "paymentId": "PAY-1", "reservationIds": [],
                                                        "trackingIds": []}), is_error=False)
    summary = compose_summary(evidence, "ORD-1", derive(evidence, "ORD-1"), ("paymentStatus",))
    assert "I can't find the payment record (PAY-1) for the items on order ORD-1" in summary
