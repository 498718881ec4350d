"""A "middle" MCP tool design for order support: two tools, between wismo's granular four and focused one.

- get_order(orderId): the order and its payment, as {"order": ..., "payment": ...}
- get_fulfillment(orderId): the order's warehouse reservations and carrier shipments, as
  {"orderId": ..., "reservations": [...], "tracking": [...]}

It reads the same records.json as wismo (`--dataset DIR`) and returns the same records, each a JSON
object carrying its own orderId/paymentId/reservationId/trackingId; a linked record that does not exist
appears as {"<idField>": ID, "availability": "not_found"}. It imports only the MCP SDK and the standard
library: this is the contract any server you bring has to keep. Run: python examples/middle/server.py
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

ORDER_ID = re.compile(r"^ORD-[0-9]{1,12}(?:-[A-Z0-9]{1,8})?$")  # wismo's ID grammar for orders
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
OrderIdParam = Annotated[str, Field(description="The order ID, e.g. ORD-1004 (from the customer).")]
Record = dict[str, Any]


def default_dataset() -> Path:
    """wismo's packaged dataset: beside this checkout, or wherever wismo is installed (found, not imported)."""
    checkout = Path(__file__).resolve().parents[2] / "core" / "domain" / "data" / "default"
    if checkout.is_dir():
        return checkout
    spec = importlib.util.find_spec("core.domain")
    if spec is None or spec.origin is None:
        sys.exit("error: wismo's packaged dataset was not found; pass --dataset DIR")
    return Path(spec.origin).parent / "data" / "default"


def not_found(id_field: str, value: str) -> Record:
    """How a linked record that does not exist appears (the marker wismo's focused design uses)."""
    return {id_field: value, "availability": "not_found"}


def as_served(kind: str, record: Record) -> Record:
    """A record with the optional fields wismo fills in when records.json leaves them out."""
    if kind == "orders":
        return {**record, "items": [{"sku": i["sku"], "name": i.get("name"), "quantity": i["quantity"]}
                                    for i in record["items"]]}
    if kind == "tracking" and record.get("latestEvent") is not None:
        return {**record, "latestEvent": {**record["latestEvent"],
                                          "location": record["latestEvent"].get("location")}}
    return record


def build_server(records: Record) -> MCPServer:
    """The middle design over one records.json's content."""
    clock = records["clock"]
    index = {kind: {r[key]: as_served(kind, r) for r in records[kind]}
             for kind, key in (("orders", "orderId"), ("payments", "paymentId"),
                               ("reservations", "reservationId"), ("tracking", "trackingId"))}
    server = MCPServer(name="middle-example", version="1.0.0",
                       instructions="Order support records in two calls: the order with its payment, then its "
                                    "fulfillment (reservations and shipments).")

    def order(order_id: str) -> Record:
        if not ORDER_ID.match(order_id):
            raise ToolError(f"order ID {order_id!r} is malformed (expected ORD-<digits>[-<suffix>])")
        found = index["orders"].get(order_id)
        if found is None:
            raise ToolError(f"order {order_id} not found")
        return found

    def linked(kind: str, id_field: str, value: str) -> Record:
        return index[kind].get(value) or not_found(id_field, value)

    @server.tool(annotations=READ_ONLY, structured_output=False)
    def get_order(orderId: OrderIdParam) -> str:
        """Get one order with its payment: the order's status, promised delivery date, items (SKU,
        quantity) and the IDs of its reservations and shipments; the payment's status, amount and failure
        reason. Order status may lag carrier updates: call get_fulfillment for what the carrier last saw.
        Returns {order, payment} as JSON."""
        found = order(orderId)
        payment = linked("payments", "paymentId", found["paymentId"])
        return json.dumps({"order": found, "payment": payment}, ensure_ascii=False)

    @server.tool(annotations=READ_ONLY, structured_output=False)
    def get_fulfillment(orderId: OrderIdParam) -> str:
        """Get how one order is being fulfilled: every warehouse reservation (SKU, quantity, status,
        expected restock date when backordered; a restock date is not a delivery date) and every carrier
        shipment (SKU, quantity, status, latest event, estimated delivery date, when it was checked). A
        shipment with availability "unavailable" could not be looked up; a linked record that does not
        exist appears as {"<idField>": ..., "availability": "not_found"}. Returns {orderId,
        reservations[], tracking[]} as JSON."""
        found = order(orderId)
        reservations = [linked("reservations", "reservationId", rid) for rid in found["reservationIds"]]
        tracking = [{**shipment, "checkedAt": clock} if shipment.get("availability") != "not_found" else shipment
                    for shipment in (linked("tracking", "trackingId", tid) for tid in found["trackingIds"])]
        return json.dumps({"orderId": orderId, "reservations": reservations, "tracking": tracking},
                          ensure_ascii=False)

    return server


def main(argv: list[str] | None = None) -> None:
    """Read records.json, then serve over stdio until the client closes it."""
    parser = argparse.ArgumentParser(prog="examples/middle/server.py", description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, default=None,
                        help="dataset folder holding records.json (default: wismo's packaged dataset)")
    args = parser.parse_args(argv)
    path = (args.dataset or default_dataset()) / "records.json"
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        sys.exit(f"error: cannot read {path}: {exc}")
    build_server(records).run("stdio")


if __name__ == "__main__":
    main()
