"""The lookup functions both tool designs are built from, so both return exactly the same evidence."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from recorder.dataset import Records, id_problem


class LookupFailure(Exception):
    """A lookup that cannot answer: a malformed ID or a record that does not exist."""


class MalformedId(LookupFailure):
    """The ID does not follow the grammar for its kind."""


class NotFound(LookupFailure):
    """No record has this ID."""


def to_json_text(value: Any) -> str:
    """Serialize a tool result the same way everywhere (the bytes are compared and counted)."""
    return json.dumps(value, ensure_ascii=False)


class Lookups:
    """Index the records by ID and answer one record per call, as each backend would."""

    def __init__(self, records: Records) -> None:
        self.clock = records.clock
        self._orders = {o.orderId: o for o in records.orders}
        self._payments = {p.paymentId: p for p in records.payments}
        self._reservations = {r.reservationId: r for r in records.reservations}
        self._tracking = {t.trackingId: t for t in records.tracking}

    @staticmethod
    def _checked(kind: str, value: object) -> str:
        problem = id_problem(kind, value)
        if problem:
            raise MalformedId(problem)
        assert isinstance(value, str)
        return value

    def order(self, order_id: object) -> dict[str, Any]:
        """The order record: status, promised date, items and the IDs of its linked records."""
        key = self._checked("order", order_id)
        if key not in self._orders:
            raise NotFound(f"order {key} not found")
        return self._orders[key].model_dump(mode="json")

    def payment(self, payment_id: object) -> dict[str, Any]:
        """The payment record."""
        key = self._checked("payment", payment_id)
        if key not in self._payments:
            raise NotFound(f"payment {key} not found")
        return self._payments[key].model_dump(mode="json")

    def reservation(self, reservation_id: object) -> dict[str, Any]:
        """The warehouse reservation record."""
        key = self._checked("reservation", reservation_id)
        if key not in self._reservations:
            raise NotFound(f"reservation {key} not found")
        return self._reservations[key].model_dump(mode="json")

    def tracking(self, tracking_id: object) -> dict[str, Any]:
        """The carrier observation, stamped with when it was checked; kept with nulls when unavailable."""
        key = self._checked("tracking", tracking_id)
        if key not in self._tracking:
            raise NotFound(f"tracking {key} not found")
        return {**self._tracking[key].model_dump(mode="json"), "checkedAt": self.clock}

    def support_context(self, order_id: object) -> dict[str, Any]:
        """Everything linked to one order, gathered in code; a missing link is reported, never dropped."""
        order = self.order(order_id)
        return {
            "order": order,
            "payment": _or_not_found(self.payment, "paymentId", order["paymentId"]),
            "reservations": [_or_not_found(self.reservation, "reservationId", rid)
                             for rid in order["reservationIds"]],
            "tracking": [_or_not_found(self.tracking, "trackingId", tid) for tid in order["trackingIds"]],
        }


def not_found_marker(id_field: str, value: str) -> dict[str, str]:
    """How a linked record that does not exist appears in the focused context."""
    return {id_field: value, "availability": "not_found"}


def _or_not_found(lookup: Callable[[str], dict[str, Any]], id_field: str, value: str) -> dict[str, Any]:
    try:
        return lookup(value)
    except NotFound:
        return not_found_marker(id_field, value)
