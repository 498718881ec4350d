"""The focused design: one tool that gathers an order's linked records in code."""

from __future__ import annotations

from mcp.server import MCPServer
from mcp.types import CallToolResult

from core import __version__
from core.domain.dataset import Records
from recorder.servers._common import OrderIdParam, answer, tool
from recorder.servers.lookups import Lookups


def build_focused_server(records: Records) -> MCPServer:
    """An MCP server with get_order_support_context."""
    lookups = Lookups(records)
    server = MCPServer(
        name="wismo-focused",
        version=__version__,
        instructions="Order support context: one call returns an order with every record it links to.",
    )

    def get_order_support_context(orderId: OrderIdParam) -> CallToolResult:
        """Get everything needed to answer a question about one order, in one call: the order
        (status, promised delivery date, items), its payment, every warehouse reservation and every
        carrier shipment it links to. Order status may lag carrier updates: an available carrier
        observation is newer. A carrier shipment with availability "unavailable" could not be looked
        up; a linked record that does not exist appears as {"<idField>": ..., "availability":
        "not_found"}. A restock date is not a delivery date. Returns
        {order, payment, reservations[], tracking[]} as JSON."""
        return answer("get_order_support_context", lookups.support_context, orderId)

    tool(server, get_order_support_context)
    return server
