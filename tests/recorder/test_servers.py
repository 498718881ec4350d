"""Both MCP servers, in memory and over real stdio: every tool on every record, every bad input."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from recorder.servers import build_server
from tests.helpers import default_records

RECORDS = default_records()
ID_TOOLS = {"get_order": ("orderId", "orders"), "get_payment": ("paymentId", "payments"),
            "get_reservation": ("reservationId", "reservations"), "get_tracking": ("trackingId", "tracking")}


def run(coro):
    return asyncio.run(coro)


def stdio(design: str, *extra: str) -> StdioServerParameters:
    import os
    return StdioServerParameters(command=sys.executable, args=["-m", "recorder.servers", design, *extra],
                                 env={"PYTHONPATH": os.environ["PYTHONPATH"]})


@pytest.mark.parametrize("transport", ["memory", "stdio"])
def test_granular_returns_every_record_verbatim(transport):
    async def go():
        server = build_server("granular") if transport == "memory" else stdio("granular")
        async with Client(server) as client:
            for tool, (parameter, collection) in ID_TOOLS.items():
                for record in RECORDS[collection]:
                    result = await client.call_tool(tool, {parameter: record[parameter]})
                    assert not result.is_error
                    assert len(result.content) == 1 and result.content[0].type == "text"
                    served = json.loads(result.content[0].text)
                    expected = dict(record)
                    if collection == "tracking":
                        expected["checkedAt"] = RECORDS["clock"]
                    assert served == expected
    run(go())


@pytest.mark.parametrize("transport", ["memory", "stdio"])
def test_focused_gathers_the_same_records(transport):
    by_id = {key: {r[key]: r for r in RECORDS[coll]} for key, coll in ID_TOOLS.values()}

    async def go():
        server = build_server("focused") if transport == "memory" else stdio("focused")
        async with Client(server) as client:
            for order in RECORDS["orders"]:
                result = await client.call_tool("get_order_support_context", {"orderId": order["orderId"]})
                assert not result.is_error
                context = json.loads(result.content[0].text)
                assert set(context) == {"order", "payment", "reservations", "tracking"}
                assert context["order"] == order
                assert context["payment"] == by_id["paymentId"][order["paymentId"]]
                assert [r["reservationId"] for r in context["reservations"]] == order["reservationIds"]
                assert [t["trackingId"] for t in context["tracking"]] == order["trackingIds"]
                for tracking in context["tracking"]:
                    assert tracking["checkedAt"] == RECORDS["clock"]
    run(go())


def test_focused_reports_missing_and_unavailable_links_explicitly():
    async def go():
        async with Client(build_server("focused")) as client:
            missing = json.loads((await client.call_tool("get_order_support_context",
                                                         {"orderId": "ORD-1007"})).content[0].text)
            unavailable = json.loads((await client.call_tool("get_order_support_context",
                                                             {"orderId": "ORD-1005"})).content[0].text)
        return missing, unavailable
    missing, unavailable = run(go())
    assert missing["reservations"][1] == {"reservationId": "RSV-1007-B", "availability": "not_found"}
    tracking = unavailable["tracking"][0]
    assert tracking["availability"] == "unavailable"
    assert tracking["status"] is None and tracking["estimatedDeliveryDate"] is None and tracking["latestEvent"] is None


BAD_INPUTS = [
    ("ORD-10O4", "is malformed"),
    ("", "is empty"),
    ("../x", "is malformed"),
    ("ORD-" + "9" * 10_000, "characters long"),
]


@pytest.mark.parametrize("transport", ["memory", "stdio"])
def test_bad_ids_get_clear_errors_and_the_server_keeps_serving(transport):
    async def go():
        outcomes = []
        for design in ("granular", "focused"):
            server = build_server(design) if transport == "memory" else stdio(design)
            async with Client(server) as client:
                tools = (await client.list_tools()).tools
                for tool in tools:
                    parameter = tool.input_schema["required"][0]
                    for value, fragment in BAD_INPUTS:
                        result = await client.call_tool(tool.name, {parameter: value})
                        outcomes.append((tool.name, result.is_error, result.content[0].text, fragment))
                    result = await client.call_tool(tool.name, {parameter: 12})
                    outcomes.append((tool.name, result.is_error, result.content[0].text, "valid string"))
                    ok = await client.call_tool(tools[0].name, {tools[0].input_schema["required"][0]:
                                                                "ORD-1001"})
                    outcomes.append((tools[0].name, not ok.is_error, "alive", "alive"))
        return outcomes
    for tool, is_error, text, fragment in run(go()):
        assert is_error, (tool, text)
        assert fragment in text, (tool, text)


@pytest.mark.parametrize(("tool", "argument", "message"), [
    ("get_order", {"orderId": "ORD-9999"}, "order ORD-9999 not found"),
    ("get_payment", {"paymentId": "PAY-9999"}, "payment PAY-9999 not found"),
    ("get_reservation", {"reservationId": "RSV-1007-B"}, "reservation RSV-1007-B not found"),
    ("get_tracking", {"trackingId": "TRK-9999-Z"}, "tracking TRK-9999-Z not found"),
    ("get_payment", {"paymentId": "ORD-1001"}, "payment ID 'ORD-1001' is malformed"),
])
def test_unknown_ids_are_tool_errors_that_name_the_id(tool, argument, message):
    async def go():
        async with Client(build_server("granular")) as client:
            return await client.call_tool(tool, argument)
    result = run(go())
    assert result.is_error
    assert message in result.content[0].text


def test_unknown_order_in_focused():
    async def go():
        async with Client(build_server("focused")) as client:
            return await client.call_tool("get_order_support_context", {"orderId": "ORD-9999"})
    result = run(go())
    assert result.is_error and "order ORD-9999 not found" in result.content[0].text


def test_tools_list_carries_annotations_descriptions_and_parameter_descriptions():
    async def go():
        listings = {}
        for design in ("granular", "focused"):
            async with Client(stdio(design)) as client:
                listings[design] = (await client.list_tools()).tools
        return listings
    listings = run(go())
    assert [t.name for t in listings["granular"]] == list(ID_TOOLS)
    assert [t.name for t in listings["focused"]] == ["get_order_support_context"]
    for tool in listings["granular"] + listings["focused"]:
        assert tool.annotations.read_only_hint is True
        assert tool.annotations.open_world_hint is False
        assert len(tool.description) > 80
        [parameter] = tool.input_schema["required"]
        assert tool.input_schema["properties"][parameter]["description"]
    order_tool = listings["granular"][0]
    assert "Order status may lag carrier updates" in order_tool.description
    assert "trackingIds" in order_tool.description
    assert "not_found" in listings["focused"][0].description


def test_server_reads_only_records_json(make_dataset):
    folder = make_dataset()
    (folder / "cases.json").write_text("this file is never read by a server")

    async def go():
        async with Client(stdio("focused", "--dataset", str(folder))) as client:
            return await client.call_tool("get_order_support_context", {"orderId": "ORD-1004"})
    assert not run(go()).is_error


def test_server_with_a_bad_dataset_exits_with_a_clear_message(make_dataset):
    import subprocess
    records = default_records()
    records["orders"][0]["items"][0]["quantity"] = -1
    folder = make_dataset(records=records)
    done = subprocess.run([sys.executable, "-m", "recorder.servers", "granular", "--dataset", str(folder)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "records.json: orders[0].items[0].quantity: must be a positive integer" in done.stderr
    assert "Traceback" not in done.stderr


def test_wismo_serve_answers_a_real_mcp_client(make_dataset):
    import os
    folder = make_dataset()
    params = StdioServerParameters(command=sys.executable, args=["-m", "wismo.cli", "serve", "granular",
                                                                  "--dataset", str(folder)],
                                   env={"PYTHONPATH": os.environ["PYTHONPATH"]})

    async def go():
        async with Client(params) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            result = await client.call_tool("get_tracking", {"trackingId": "TRK-1005-A"})
            return names, result
    names, result = run(go())
    assert names == ["get_order", "get_payment", "get_reservation", "get_tracking"]
    assert json.loads(result.content[0].text)["availability"] == "unavailable"


def _rpc(process, message: dict) -> None:
    process.stdin.write(json.dumps(message) + "\n")
    process.stdin.flush()


SERVER_COMMANDS = {"python -m recorder.servers": ["-m", "recorder.servers", "granular"],
                   "wismo serve": ["-m", "wismo.cli", "serve", "granular"]}


@pytest.mark.parametrize("command", SERVER_COMMANDS)
def test_a_server_exits_with_code_0_after_stdin_closes_with_every_reply_and_log_line_out(command):
    import subprocess
    process = subprocess.Popen([sys.executable, *SERVER_COMMANDS[command]], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _rpc(process, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "test", "version": "1"}}})
    assert json.loads(process.stdout.readline())["id"] == 1
    _rpc(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    _rpc(process, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                   "params": {"name": "get_order", "arguments": {"orderId": "ORD-10O4"}}})
    _rpc(process, {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                   "params": {"name": "get_order", "arguments": {"orderId": "ORD-1004"}}})
    replies = {reply["id"]: reply for reply in (json.loads(process.stdout.readline()) for _ in range(2))}
    process.stdin.close()  # the client is done: the server must go, and leave nothing unsaid
    assert process.wait(timeout=60) == 0
    assert replies[2]["result"]["isError"] and not replies[3]["result"]["isError"]
    assert process.stdout.read() == ""
    # The SDK logs each failed tool call on stderr, which `record` keeps in runs/<run>/logs/.
    assert "Tool 'get_order' failed" in process.stderr.read()


def test_buffered_log_handlers_are_flushed_before_the_server_exits(tmp_path):
    import subprocess
    log = tmp_path / "server.log"
    # A MemoryHandler holds its records until it is flushed (or the interpreter shuts down, which no longer runs).
    code = ("import logging, logging.handlers, sys\n"
            "from recorder.servers import build_server, serve_stdio\n"
            "handler = logging.handlers.MemoryHandler(100, logging.CRITICAL, logging.FileHandler(sys.argv[1]))\n"
            "logging.getLogger('wismo.test').addHandler(handler)\n"
            "logging.getLogger('wismo.test').warning('written before serving, still in the buffer')\n"
            "serve_stdio(build_server('focused'))\n")
    done = subprocess.run([sys.executable, "-c", code, str(log)], input="", capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert log.read_text() == "written before serving, still in the buffer\n"


def test_a_session_that_fails_exits_with_its_traceback_and_code_1():
    import subprocess
    code = ("from recorder.servers import serve_stdio\n"
            "class Broken:\n"
            "    def run(self, transport):\n"
            "        raise RuntimeError('the session failed')\n"
            "serve_stdio(Broken())\n")
    done = subprocess.run([sys.executable, "-c", code], input="", capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "RuntimeError: the session failed" in done.stderr and "Traceback" in done.stderr
