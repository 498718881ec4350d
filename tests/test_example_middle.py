"""examples/middle: a design brought from outside returns, record for record, what wismo's granular server returns.

The example is run as a user runs it (its own process over stdio, only the SDK in common with wismo);
the comparison names every record that differs, and a planted copy that drops a reservation is caught.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import sys
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from core.domain.dataset import DEFAULT_DATASET_DIR
from recorder.servers import build_server
from recorder.servers.lookups import not_found_marker
from tests.helpers import ROOT, default_records

EXAMPLE = ROOT / "examples" / "middle" / "server.py"
KINDS = (("payment", "paymentId", "get_payment"), ("reservation", "reservationId", "get_reservation"),
         ("tracking", "trackingId", "get_tracking"))
DATASET_LISTS = {"payment": "payments", "reservation": "reservations", "tracking": "tracking"}


def run_async(coroutine: Any) -> Any:
    """asyncio.run in a thread of its own: a session's sync Playwright keeps an event loop running in this one."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def example(script: Path = EXAMPLE, dataset: Path | None = None) -> StdioServerParameters:
    extra = ["--dataset", str(dataset)] if dataset else []
    return StdioServerParameters(command=sys.executable, args=[str(script), *extra],
                                 env={"PYTHONPATH": os.environ["PYTHONPATH"]})


async def _json(client: Client, tool: str, arguments: dict[str, str]) -> Any:
    result = await client.call_tool(tool, arguments)
    [block] = result.content
    return json.loads(block.text) if not result.is_error else ("error", block.text)


async def served_by_example(params: StdioServerParameters, order_ids: list[str]) -> dict[str, dict[str, Any]]:
    """Per order: its order, payment, reservations and tracking as the example serves them."""
    served = {}
    async with Client(params) as client:
        for order_id in order_ids:
            head = await _json(client, "get_order", {"orderId": order_id})
            body = await _json(client, "get_fulfillment", {"orderId": order_id})
            assert body["orderId"] == order_id
            served[order_id] = {"order": head["order"], "payment": [head["payment"]],
                                "reservation": body["reservations"], "tracking": body["tracking"]}
    return served


async def differences(served: dict[str, dict[str, Any]], dataset: Path | None = None) -> list[str]:
    """Every record the example serves differently from the granular server (a missing one as its marker)."""
    problems = []
    async with Client(build_server("granular", dataset)) as granular:
        for order_id, records in served.items():
            order = await _json(granular, "get_order", {"orderId": order_id})
            if records["order"] != order:
                problems.append(f"{order_id}: order differs")
            links = {"payment": [order["paymentId"]], "reservation": order["reservationIds"],
                     "tracking": order["trackingIds"]}
            for kind, id_field, tool in KINDS:
                got = records[kind]
                if [r.get(id_field) for r in got] != links[kind]:
                    problems.append(f"{order_id}: {kind} records {[r.get(id_field) for r in got]}, "
                                    f"the order links {links[kind]}")
                    continue
                for record_id, record in zip(links[kind], got, strict=True):
                    expected = await _json(granular, tool, {id_field: record_id})
                    if isinstance(expected, tuple):  # granular: "... not found"; the example: the marker
                        assert expected[1].endswith(f"{kind} {record_id} not found"), expected
                        expected = not_found_marker(id_field, record_id)
                    if record != expected:
                        problems.append(f"{order_id}: {kind} {record_id} differs")
    return problems


def test_every_order_s_records_are_the_granular_server_s_record_for_record():
    order_ids = [o["orderId"] for o in default_records()["orders"]]
    served = run_async(served_by_example(example(), order_ids))
    assert run_async(differences(served)) == []
    # Every record of the dataset came back, and ORD-1007's missing reservation as its marker.
    records = default_records()
    for kind, id_field, _tool in KINDS:
        found = {r[id_field] for o in served.values() for r in o[kind] if r.get("availability") != "not_found"}
        assert found == {r[id_field] for r in records[DATASET_LISTS[kind]]}
    assert not_found_marker("reservationId", "RSV-1007-B") in served["ORD-1007"]["reservation"]


def test_missing_linked_records_get_wismo_s_not_found_marker(make_dataset):
    records = default_records()
    [order] = [o for o in records["orders"] if o["orderId"] == "ORD-1006"]
    order["trackingIds"] = ["TRK-1006-Z"]
    order["paymentId"] = "PAY-9006"
    folder = make_dataset(records)
    served = run_async(served_by_example(example(dataset=folder), ["ORD-1006"]))
    assert served["ORD-1006"]["tracking"] == [not_found_marker("trackingId", "TRK-1006-Z")]
    assert served["ORD-1006"]["payment"] == [not_found_marker("paymentId", "PAY-9006")]
    assert run_async(differences(served, folder)) == []


def test_an_unknown_order_is_the_same_error_as_granular_s():
    async def both() -> tuple[Any, Any]:
        async with Client(example()) as middle, Client(build_server("granular")) as granular:
            return (await _json(middle, "get_order", {"orderId": "ORD-9999"}),
                    await _json(granular, "get_order", {"orderId": "ORD-9999"}))
    middle, granular = run_async(both())
    assert middle == granular == ("error", "Error executing tool get_order: order ORD-9999 not found")


def test_the_comparison_names_a_dropped_reservation(tmp_path: Path):
    planted = tmp_path / "server.py"
    source = EXAMPLE.read_text(encoding="utf-8")
    dropping = source.replace('for rid in found["reservationIds"]]', 'for rid in found["reservationIds"][1:]]')
    assert dropping != source
    planted.write_text(dropping, encoding="utf-8")
    served = run_async(served_by_example(example(planted, DEFAULT_DATASET_DIR), ["ORD-1001", "ORD-1002"]))
    assert run_async(differences(served)) == [
        "ORD-1001: reservation records ['RSV-1001-B'], the order links ['RSV-1001-A', 'RSV-1001-B']",
        "ORD-1002: reservation records [], the order links ['RSV-1002-A']",
    ]
