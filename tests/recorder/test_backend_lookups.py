"""Backend lookups: each server reports its reads in the result's `_meta`, which the model never sees."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
from mcp import Client

import analysis.model
from core.domain.fields import BACKENDS
from core.runformat.events import BackendLookups
from recorder.designs.mcp_client import reported_lookups
from recorder.servers import build_server
from recorder.servers.lookups import META_KEY
from tests.recorder.fakes import PolicyProvider, call, text
from tests.recorder.test_loop import GOOD_ANSWER, converse, finished


def reads(orders: int = 0, payments: int = 0, reservations: int = 0, tracking: int = 0,
          not_found: int = 0) -> dict[str, int]:
    return {"orders": orders, "payments": payments, "reservations": reservations, "tracking": tracking,
            "notFound": not_found}


async def _call(design: str, tool: str, arguments: dict[str, object]):
    async with Client(build_server(design)) as client:
        return await client.call_tool(tool, arguments)


@pytest.mark.parametrize(("design", "tool", "arguments", "expected"), [
    # one record per granular call, each from its own backend
    ("granular", "get_order", {"orderId": "ORD-1001"}, reads(orders=1)),
    ("granular", "get_payment", {"paymentId": "PAY-1001"}, reads(payments=1)),
    ("granular", "get_tracking", {"trackingId": "TRK-1005-A"}, reads(tracking=1)),  # unavailable, still read
    # a record that does not exist was still looked up
    ("granular", "get_reservation", {"reservationId": "RSV-1007-B"}, reads(reservations=1, not_found=1)),
    # a malformed ID is refused before any backend is asked
    ("granular", "get_order", {"orderId": "ORD-10O4"}, reads()),
    # focused reads every linked record: ORD-1001 links a payment, two reservations, two shipments
    ("focused", "get_order_support_context", {"orderId": "ORD-1001"},
     reads(orders=1, payments=1, reservations=2, tracking=2)),
    # ORD-1007 links a reservation that does not exist
    ("focused", "get_order_support_context", {"orderId": "ORD-1007"},
     reads(orders=1, payments=1, reservations=2, tracking=1, not_found=1)),
    ("focused", "get_order_support_context", {"orderId": "ORD-9999"}, reads(orders=1, not_found=1)),
])
def test_every_result_reports_its_backend_reads_in_meta_and_not_in_its_text(design, tool, arguments, expected):
    result = asyncio.run(_call(design, tool, arguments))
    assert result.meta is not None and result.meta[META_KEY] == expected
    [block] = result.content
    assert META_KEY not in block.text and "notFound" not in block.text


def test_an_error_keeps_the_text_a_raised_tool_error_gave():
    result = asyncio.run(_call("granular", "get_payment", {"paymentId": "PAY-9999"}))
    assert result.is_error
    assert result.content[0].text == "Error executing tool get_payment: payment PAY-9999 not found"


def test_the_reported_shape_is_the_run_format_s():
    assert tuple(BackendLookups.model_fields) == (*BACKENDS, "notFound")
    assert analysis.model.BACKENDS == BACKENDS  # the analysis keeps its own copy: it never imports the recorder
    assert reported_lookups({META_KEY: reads(orders=2)}) == BackendLookups(**reads(orders=2))
    # another server's use of `_meta`, or none: not reported, never guessed as zero
    assert reported_lookups(None) is None
    assert reported_lookups({"other/key": 1}) is None
    assert reported_lookups({META_KEY: {"orders": "many"}}) is None


def test_the_loop_records_each_result_s_lookups_and_claims_their_sum_without_showing_them(tmp_path: Path):
    def policy(request):
        if request.turn == 1:
            return [call("get_order", {"orderId": "ORD-1007"}, "c1"),
                    call("get_reservation", {"reservationId": "RSV-1007-B"}, "c2"),
                    call("get_payment", {"paymentId": 12}, "c3")]  # the SDK refuses it before the tool runs
        return [text(GOOD_ANSWER)]
    provider = PolicyProvider(policy)
    _outcome, events, _ = asyncio.run(converse(tmp_path, provider))
    results = {e["callId"]: e for e in events if e["type"] == "tool_result"}
    assert results["c1"]["lookups"] == reads(orders=1)
    assert results["c2"]["lookups"] == reads(reservations=1, not_found=1)
    assert results["c3"]["isError"] and results["c3"]["lookups"] is None
    assert finished(events)["claimed"]["lookups"] == reads(orders=1, reservations=1, not_found=1)
    # the model's history holds the result texts only
    history = json.dumps(provider.requests[-1].history)
    assert META_KEY not in history and "notFound" not in history


def test_a_conversation_without_tool_calls_claims_zero_lookups(tmp_path: Path):
    _outcome, events, _ = asyncio.run(converse(tmp_path, PolicyProvider(lambda request: [text(GOOD_ANSWER)])))
    assert finished(events)["claimed"]["lookups"] == reads()


def test_a_server_that_reports_no_lookups_leaves_the_claim_unknown(tmp_path: Path):
    silent = tmp_path / "silent.py"
    silent.write_text(
        "from mcp.server import MCPServer\n"
        "server = MCPServer(name='silent')\n"
        "@server.tool(structured_output=False)\n"
        "def get_order(orderId: str) -> str:\n"
        "    '''An order.'''\n"
        "    return '{}'\n"
        "server.run('stdio')\n")

    def policy(request):
        return [call("get_order", {"orderId": "ORD-1004"}, "c1")] if request.turn == 1 else [text(GOOD_ANSWER)]
    _outcome, events, _ = asyncio.run(converse(tmp_path, PolicyProvider(policy),
                                               command=[sys.executable, str(silent)]))
    [result] = [e for e in events if e["type"] == "tool_result"]
    assert result["lookups"] is None and not result["isError"]
    assert finished(events)["claimed"]["lookups"] is None
