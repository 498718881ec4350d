"""A design wismo has never seen, for the tests: four tools under other names, one record each.

`python other_names_server.py [FLAW]` plants one flaw, so the comparison has something to catch:
  alter-status   TRK-1003-A's status is "in_transit" (the carrier says delivered)
  hide-payment   PAY-1002 comes back as a not_found marker although it exists
  by-sku         the only tool takes a SKU: nothing takes an orderId
  no-items       orders come without their items
  crash          the process exits when asked for ORD-1003
  runaway        every order links to another order, without end
  refuse-once-flagged FILE   every call is a tool error once FILE exists
Records come from wismo's lookups (so an unflawed server returns exactly granular's records); the tool
names, the missing-record errors and the absence of `_meta` lookups are this design's own.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from core.domain.dataset import load_records
from recorder.servers.lookups import LookupFailure, Lookups

FLAW = sys.argv[1] if len(sys.argv) > 1 else ""
lookups = Lookups(load_records())
server = MCPServer(name="other-names")


def served(lookup: Any, value: str) -> str:
    if FLAW == "refuse-once-flagged" and Path(sys.argv[2]).exists():
        raise ToolError("the backend is unavailable")
    try:
        return json.dumps(lookup(value))
    except LookupFailure as exc:
        raise ToolError(str(exc)) from None


if FLAW == "by-sku":
    @server.tool(structured_output=False)
    def find_by_sku(sku: str) -> str:
        """Orders holding a SKU."""
        return json.dumps([])
else:
    @server.tool(structured_output=False)
    def lookup_order(orderId: str) -> str:
        """An order."""
        if FLAW == "crash" and orderId == "ORD-1003":
            os._exit(3)
        if FLAW == "runaway":
            return json.dumps({"orderId": orderId, "status": "shipped", "replacedBy": {"orderId": orderId + "1"}})
        if FLAW == "no-items":
            return json.dumps({k: v for k, v in lookups.order(orderId).items() if k != "items"})
        return served(lookups.order, orderId)

    @server.tool(structured_output=False)
    def payment_details(paymentId: str) -> str:
        """A payment."""
        if FLAW == "hide-payment" and paymentId == "PAY-1002":
            return json.dumps({"paymentId": paymentId, "availability": "not_found"})
        return served(lookups.payment, paymentId)

    @server.tool(structured_output=False)
    def shipment_status(trackingId: str) -> str:
        """A shipment."""
        record = json.loads(served(lookups.tracking, trackingId))
        if FLAW == "alter-status" and trackingId == "TRK-1003-A":
            record["status"] = "in_transit"
        return json.dumps(record)

    @server.tool(structured_output=False)
    def stock_hold(reservationId: str) -> str:
        """A warehouse hold."""
        return served(lookups.reservation, reservationId)

server.run("stdio")
