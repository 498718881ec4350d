"""A design wismo has never seen: the scripted policy answers through it, and the comparison names what it changes.

The built-in designs must behave exactly as before: the policy is replayed against the committed
sample run (same calls, same answers, so the same token counts).
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from core.domain.answer import answer_schema
from core.domain.dataset import load_dataset
from core.domain.evidence import Evidence
from core.domain.linking import ToolSpec, next_links, tools_by_parameter, tools_taking
from core.errors import WismoError
from core.runformat.events import BackendLookups
from core.runformat.write import ConversationLog, EventWriter
from recorder.agent.instructions import build_instructions
from recorder.agent.loop import Budgets, Conversation
from recorder.designs.comparison import ComparisonReport, EdgeCase, OrderComparison, design_order, run_comparison
from recorder.designs.mcp_client import ToolServer
from recorder.designs.record_diff import NOT_FOUND, Collection, differences
from recorder.providers.base import ModelRequest
from recorder.providers.scripted import ScriptedProvider
from recorder.run.record import plan_conversations
from tests.helpers import ROOT

SAMPLE = ROOT / "runs" / "sample-offline"
MIDDLE = ROOT / "examples" / "middle" / "server.py"
OTHER_NAMES = Path(__file__).with_name("other_names_server.py")


def spec(name: str, parameter: str) -> ToolSpec:
    return ToolSpec(name, "", {"properties": {parameter: {"type": "string"}}, "required": [parameter]})


# --- linking -----------------------------------------------------------------------------------------

MIDDLE_TOOLS = [spec("get_order", "orderId"), spec("get_fulfillment", "orderId")]


def test_an_id_links_to_every_tool_taking_it_once():
    assert tools_taking(MIDDLE_TOOLS) == {"orderId": ["get_order", "get_fulfillment"]}
    assert tools_by_parameter(MIDDLE_TOOLS) == {"orderId": "get_order"}  # where a question starts
    result = {"order": {"orderId": "ORD-1", "paymentId": "PAY-1"},
              "payment": {"paymentId": "PAY-1", "orderId": "ORD-1"}}
    links = next_links(MIDDLE_TOOLS, [result], {("get_order", "orderId", "ORD-1")})
    assert [(link.tool, link.value) for link in links] == [("get_fulfillment", "ORD-1")]
    assert next_links(MIDDLE_TOOLS, [result], {("get_order", "orderId", "ORD-1"),
                                               ("get_fulfillment", "orderId", "ORD-1")}) == []


# --- evidence ----------------------------------------------------------------------------------------

ORDER = {"orderId": "ORD-1", "status": "shipped", "items": [], "paymentId": "PAY-1", "reservationIds": ["RSV-1"],
         "trackingIds": []}


def test_a_dict_that_only_groups_an_order_s_records_is_not_the_order():
    evidence = Evidence()
    evidence.add_result("orderId", "ORD-1", json.dumps({"order": ORDER, "payment": {"paymentId": "PAY-1"}}), False)
    fulfillment = {"orderId": "ORD-1", "reservations": [{"reservationId": "RSV-1", "status": "reserved"}],
                   "tracking": []}
    assert evidence.add_result("orderId", "ORD-1", json.dumps(fulfillment), False)
    assert evidence.records["order"] == {"ORD-1": ORDER}
    assert list(evidence.records["reservation"]) == ["RSV-1"]
    assert evidence.knows("payment", "PAY-1") and not evidence.knows("tracking", "TRK-1")


def test_a_record_with_records_inside_is_a_record_and_its_records_are_read_too():
    evidence = Evidence()
    embedded = {**ORDER, "payment": {"paymentId": "PAY-1", "status": "captured"}}
    assert evidence.add_result("orderId", "ORD-1", json.dumps(embedded), False)
    assert evidence.records["order"]["ORD-1"] == embedded
    assert evidence.records["payment"]["PAY-1"]["status"] == "captured"


# --- record by record --------------------------------------------------------------------------------

def collection(*calls: tuple[str, str, Any]) -> Collection:
    found = Collection()
    for parameter, value, result in calls:
        is_error = isinstance(result, str)
        found.add(parameter, value, result if is_error else json.dumps(result), is_error)
    return found


GRANULAR = collection(("orderId", "ORD-1", ORDER), ("paymentId", "PAY-1", {"paymentId": "PAY-1", "amount": "1.00"}),
                      ("reservationId", "RSV-1", "Error executing tool get_reservation: reservation RSV-1 not found"))


def test_identical_records_in_another_shape_do_not_differ():
    other = collection(("orderId", "ORD-1", {"order": ORDER, "payment": {"paymentId": "PAY-1", "amount": "1.00"},
                                             "reservations": [{"reservationId": "RSV-1", "availability": NOT_FOUND}]}))
    assert differences("mine", "granular", GRANULAR, other) == []


def test_every_kind_of_difference_names_the_record():
    long_value = "x" * 200
    other = collection(("orderId", "ORD-1", {"order": {**ORDER, "status": long_value},
                                             "payment": {"paymentId": "PAY-1", "availability": NOT_FOUND},
                                             "reservations": [{"reservationId": "RSV-1", "status": "reserved"}],
                                             "tracking": [{"trackingId": "TRK-9", "status": "delivered"}]}))
    found = differences("mine", "granular", GRANULAR, other)
    assert found == [
        'order ORD-1: $.status: granular "shipped" vs mine "' + "x" * 58 + "…",
        "payment PAY-1: mine says it is not found, granular returns it",
        "reservation RSV-1: granular says it is not found, mine returns a record",
        "tracking TRK-9 extra (mine returns it, granular never mentions it)",
    ]
    assert differences("mine", "granular", GRANULAR, collection(("orderId", "ORD-1", ORDER))) == [
        "payment PAY-1 missing (granular returns it)", "reservation RSV-1 missing (granular says it is not found)"]


# --- the report's one line ---------------------------------------------------------------------------

def report(**changes: Any) -> ComparisonReport:
    fields: dict[str, Any] = {"dataset": "d", "datasetHash": "h", "reference": "granular",
                              "designs": ["granular", "middle"], "orders": [], "edgeCases": [],
                              "leakedExpectations": [], "ruleMismatches": [], "toolCounts": {}}
    return ComparisonReport(**{**fields, **changes})


def test_the_problem_line_names_the_first_problem_and_counts_the_rest():
    assert report().problem_line() is None and report().passed
    orders = [OrderComparison("ORD-1", False, {}, {}, {}, [
                  "middle: ORD-1: reservation RSV-1 missing (granular returns it)",
                  "middle: ORD-1: tracking T-1 missing (granular returns it)"]),
              OrderComparison("ORD-2", False, {}, {}, {}, ["middle: ORD-2: payment P-2 missing (granular returns it)"])]
    assert report(orders=orders).problem_line() == (
        "design middle returns different evidence: ORD-1: reservation RSV-1 missing (granular returns it); "
        "2 more differences in deterministic-comparison.json")
    edge = EdgeCase("middle", "get_order", "huge", "ORD-" + "1" * 100, True, "too long", False)
    assert report(edgeCases=[edge]).problem_line() == (
        "design middle: its server stops answering after get_order refuses a huge ID (104 characters)")
    assert report(ruleMismatches=["a (middle): x", "b (middle): y"]).problem_line(where="c.json") == (
        "the rules disagree with cases.json: a (middle): x; 1 more disagreement in c.json")
    assert report(designProblems=["design x: no tool takes one orderId string"], orders=orders).problem_line() \
        == "design x: no tool takes one orderId string"


def test_the_reference_joins_any_designs_last_and_a_design_needs_a_server():
    assert design_order(("middle",)) == ["middle", "granular"]
    assert design_order(("focused", "middle", "granular")) == ["focused", "middle", "granular"]
    with pytest.raises(WismoError, match=r"design 'middle' has no server: give its command as --server middle="):
        asyncio.run(run_comparison(load_dataset(), designs=["middle"]))


# --- the built-in designs: exactly the calls and answers of the committed sample ----------------------

def test_the_policy_makes_the_sample_run_s_calls_and_answers_for_both_built_in_designs():
    manifest = json.loads((SAMPLE / "manifest.json").read_text())
    tools = {d: [ToolSpec(t["name"], t["description"], t["parameters"]) for t in listed]
             for d, listed in manifest["tools"].items()}
    schemas = {tuple(k["asks"]): k["answerSchema"] for k in manifest["questionKinds"]}
    asks = {c["caseId"]: tuple(c["asks"]) for c in manifest["cases"]}
    history: dict[str, list[dict[str, Any]]] = defaultdict(list)
    pending: dict[str, ModelRequest] = {}
    provider, replayed = ScriptedProvider(), 0
    for line in (SAMPLE / "events.jsonl").read_text().splitlines():
        event = json.loads(line)
        conversation = event.get("conversationId", "")
        if event["type"] == "model_request":
            history[conversation] += event["newItems"]
            case, design, _ = conversation.split(".")
            pending[conversation] = ModelRequest("", tools[design], list(history[conversation]),
                                                 schemas[asks[case]], event["turn"], 60.0)
        elif event["type"] == "model_response":
            assert provider.next_output(pending.pop(conversation)) == event["outputItems"], (conversation,
                                                                                             event["turn"])
            replayed += 1
    assert replayed == 180


def called(call_id: str, tool: str, result: Any) -> list[dict[str, Any]]:
    """A tool call taking orderId ORD-1 and its output, as history items."""
    return [{"type": "function_call", "callId": call_id, "name": tool, "arguments": '{"orderId": "ORD-1"}'},
            {"type": "function_call_output", "callId": call_id, "output": json.dumps(result), "isError": False}]


def test_the_policy_asks_the_other_order_tool_only_while_a_needed_record_is_unknown():
    tools = [spec("get_fulfillment", "orderId"), spec("get_order", "orderId")]  # the order comes second
    fulfillment = {"orderId": "ORD-1", "reservations": [{"reservationId": "RSV-1", "orderId": "ORD-1"}],
                   "tracking": []}
    history = [{"type": "message", "role": "user", "content": "Was my payment for ORD-1 taken?"},
               *called("c1", "get_fulfillment", fulfillment)]
    request = ModelRequest("", tools, history, answer_schema(("paymentStatus",)), 2, 60.0)
    [call] = ScriptedProvider().next_output(request)
    assert (call["name"], call["arguments"]) == ("get_order", '{"orderId": "ORD-1"}')
    items = [{"sku": "MUG", "name": "mug", "quantity": 1}]
    order = {"order": {**ORDER, "items": items}, "payment": {"paymentId": "PAY-1", "status": "captured"}}
    history += called("c2", "get_order", order)
    [answer] = ScriptedProvider().next_output(ModelRequest("", tools, history, request.answer_schema, 3, 60.0))
    assert json.loads(answer["text"])["paymentStatus"] == "captured"


# --- the policy through designs it has never seen ---------------------------------------------------

def run_cases(command: list[str], tmp_path: Path) -> dict[str, tuple[bool, list[str]]]:
    """Every default case through one server: whether it passed, and the tools called, in order."""
    dataset = load_dataset()

    async def go() -> dict[str, tuple[bool, list[str]]]:
        writer = EventWriter(tmp_path / "events.jsonl", "t")
        done = {}
        async with ToolServer(command, label="mine") as server:
            for plan in plan_conversations(dataset, ["mine"], 1):
                log = ConversationLog(writer, plan.conversation_id, 1)
                outcome = await Conversation(plan, ScriptedProvider(), server, server.tool_specs(),
                                             build_instructions(dataset.records.clock, plan.asks),
                                             answer_schema(plan.asks), Budgets(), log).run()
                done[plan.case_id] = (outcome.passed, [])
        writer.close()
        for line in (tmp_path / "events.jsonl").read_text().splitlines():
            event = json.loads(line)
            if event["type"] == "tool_call":
                done[event["conversationId"].split(".")[0]][1].append(event["name"])
        return done
    return asyncio.run(go())


def test_the_policy_answers_every_case_through_the_middle_example(tmp_path):
    done = run_cases([sys.executable, str(MIDDLE)], tmp_path)
    assert len(done) == 12 and all(passed for passed, _ in done.values()), done
    assert done["partial-delivery"][1] == ["get_order", "get_fulfillment"]
    # The payment arrives with the order: a payment question needs nothing more.
    assert done["payment-taken"][1] == ["get_order"]


def test_the_policy_answers_every_case_through_tools_with_other_names(tmp_path):
    done = run_cases([sys.executable, str(OTHER_NAMES)], tmp_path)
    assert len(done) == 12 and all(passed for passed, _ in done.values()), done
    assert done["partial-delivery"][1] == ["lookup_order", "payment_details", "stock_hold", "stock_hold",
                                           "shipment_status"]
    assert done["payment-taken"][1] == ["lookup_order", "payment_details"]


# --- the comparison of designs it has never seen ------------------------------------------------------

def test_the_comparison_passes_unknown_designs_that_return_granular_s_records():
    report = asyncio.run(run_comparison(load_dataset(), {"middle": [sys.executable, str(MIDDLE)],
                                                         "other": [sys.executable, str(OTHER_NAMES)]},
                                        designs=["other", "middle"]))
    assert report.passed, report.problem_line()
    assert report.designs == ["other", "middle", "granular"] and report.reference == "granular"
    by_order = {o.orderId: o for o in report.orders}
    assert list(by_order["ORD-1001"].interactions.items()) == [("other", 6), ("middle", 2), ("granular", 6)]
    assert by_order["ORD-1001"].lookups["middle"] is None  # it reports no backend lookups: unknown, never 0
    assert by_order["ORD-1001"].lookups["granular"] == dict.fromkeys(BackendLookups.model_fields, 0) | {
        "orders": 1, "payments": 1, "reservations": 2, "tracking": 2}
    assert {e.design for e in report.edgeCases} == {"other", "middle", "granular"}
    data = report.to_json()
    assert data["version"] == 2 and data["designs"] == ["other", "middle", "granular"]


def test_the_comparison_names_each_flawed_design_s_record(tmp_path):
    source = MIDDLE.read_text(encoding="utf-8")
    dropping = source.replace('for tid in found["trackingIds"]', 'for tid in found["trackingIds"][1:]')
    assert dropping != source
    (tmp_path / "drop.py").write_text(dropping, encoding="utf-8")
    commands = {"alter": [sys.executable, str(OTHER_NAMES), "alter-status"],
                "hide": [sys.executable, str(OTHER_NAMES), "hide-payment"],
                "drop": [sys.executable, str(tmp_path / "drop.py")],
                "noitems": [sys.executable, str(OTHER_NAMES), "no-items"],
                "bysku": [sys.executable, str(OTHER_NAMES), "by-sku"],
                "runaway": [sys.executable, str(OTHER_NAMES), "runaway"],
                "crash": [sys.executable, str(OTHER_NAMES), "crash"]}
    report = asyncio.run(run_comparison(load_dataset(), commands, designs=list(commands)))
    assert not report.passed
    found = [d for o in report.orders for d in o.differences]
    assert 'alter: ORD-1003: tracking TRK-1003-A: $.status: granular "delivered" vs alter "in_transit"' in found
    assert "hide: ORD-1002: payment PAY-1002: hide says it is not found, granular returns it" in found
    assert "drop: ORD-1001: tracking TRK-1001-A missing (granular returns it)" in found
    assert ('noitems: ORD-1001: order ORD-1001: $.items: only in granular '
            '([{"sku": "DOCK-USB-C", "name": "USB-C dock", "quantity": 1}…)') in found
    assert len(found) == 1 + 1 + 6 + 7  # drop loses the first shipment of each of its 6 orders that have one
    bysku, runaway, crash = report.designProblems
    assert bysku == ("design bysku: no tool takes one orderId string, so wismo cannot start from an order "
                     "(its tools: find_by_sku(sku))")
    assert runaway == "design runaway: ORD-1001's results kept linking to new IDs past 200 calls"
    assert crash.startswith("design crash: lookup_order(orderId='ORD-1003') got no answer: MCP server 'crash' ")
    assert report.problem_line() == bysku + "; 2 more problems in deterministic-comparison.json"
    # a design that stopped is left out from then on; the orders before it kept its figures
    assert [("crash" in o.bytes) for o in report.orders][:4] == [True, True, False, False]
    # the rules run on every design's evidence: the altered shipment changes what was delivered
    assert any(m.startswith("status-lags-carrier (alter): deliveredSkus") for m in report.ruleMismatches)
    assert "bysku" not in report.orders[0].bytes
    assert "delivered-on-time (noitems): the rules cannot read its records (KeyError: 'items')" \
        in report.ruleMismatches
    assert "delivered-on-time (runaway)" not in " ".join(report.ruleMismatches)  # it stopped before the rules ran
    assert {e.design for e in report.edgeCases} == {"alter", "hide", "drop", "noitems", "granular"}
