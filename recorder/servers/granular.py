"""The granular design: four read-only tools, one record each; the model follows the IDs itself."""

from __future__ import annotations

from typing import Annotated

from mcp.server import MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from core import __version__
from core.domain.dataset import Records
from recorder.servers._common import OrderIdParam, answer, tool
from recorder.servers.lookups import Lookups


def build_granular_server(records: Records) -> MCPServer:
    """An MCP server with get_order, get_payment, get_reservation and get_tracking."""
    lookups = Lookups(records)
    server = MCPServer(
        name="wismo-granular",
        version=__version__,
        instructions="Order support records, one record per call. Follow the IDs an order links to.",
    )

    def get_order(orderId: OrderIdParam) -> CallToolResult:
        """Get one order: status, promised delivery date, items (SKU, quantity) and the IDs of its
        payment (paymentId), warehouse reservations (reservationIds) and carrier shipments
        (trackingIds). Order status may lag carrier updates: look up each tracking ID for what the
        carrier last saw. Returns the order as JSON."""
        return answer("get_order", lookups.order, orderId)

    def get_payment(
        paymentId: Annotated[str, Field(description="The payment ID from an order's paymentId, e.g. PAY-1004.")],
    ) -> CallToolResult:
        """Get one payment: status (captured, authorized, pending, authorization_failed, refunded),
        amount, currency and failure reason. Returns the payment as JSON."""
        return answer("get_payment", lookups.payment, paymentId)

    def get_reservation(
        reservationId: Annotated[str, Field(
            description="A reservation ID from an order's reservationIds, e.g. RSV-1004-B.")],
    ) -> CallToolResult:
        """Get one warehouse reservation: the SKU and quantity it holds, the warehouse, its status
        (fulfilled, reserved, backordered) and the expected restock date when backordered. A restock
        date is not a delivery date. Returns the reservation as JSON."""
        return answer("get_reservation", lookups.reservation, reservationId)

    def get_tracking(
        trackingId: Annotated[str, Field(description="A tracking ID from an order's trackingIds, e.g. TRK-1004-A.")],
    ) -> CallToolResult:
        """Get one carrier shipment: the SKU and quantity it carries, availability of the carrier
        lookup, status, latest event, the carrier's estimated delivery date and when it was checked.
        When availability is "unavailable" the carrier could not be reached and nothing about the
        shipment is known. An available carrier observation is newer than the order status. Returns
        the shipment as JSON."""
        return answer("get_tracking", lookups.tracking, trackingId)

    tool(server, get_order)
    tool(server, get_payment)
    tool(server, get_reservation)
    tool(server, get_tracking)
    return server
