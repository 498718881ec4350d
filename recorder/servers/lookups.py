"""The lookup functions both tool designs are built from, so both return exactly the same evidence.

Every lookup by ID is one read of one backend (orders, payments, reservations, tracking), counted in
the LookupTally of the tool call it serves: that is the backend work a design costs, which the
servers report in each result's `_meta` under META_KEY (see docs/recording.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import partial
from typing import Any, TypeVar

from core.domain.dataset import Records, id_problem

_Record = TypeVar("_Record")

# The `_meta` key of a tool result that holds its LookupTally: namespaced, as MCP asks of `_meta` keys.
META_KEY = "wismo/lookups"


@dataclass
class LookupTally:
    """The backend work of one tool call: reads per backend (found or not), and how many found no record.

    A malformed ID is refused before any backend is asked, so it costs nothing here.
    """

    orders: int = 0
    payments: int = 0
    reservations: int = 0
    tracking: int = 0
    notFound: int = 0  # the name the `_meta` object and the run format use

    def read(self, backend: str, found: bool) -> None:
        """Count one read of `backend`."""
        setattr(self, backend, getattr(self, backend) + 1)
        if not found:
            self.notFound += 1

    def to_meta(self) -> dict[str, int]:
        """As reported in a result's `_meta` under META_KEY."""
        return asdict(self)


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

    @staticmethod
    def _read(index: dict[str, _Record], backend: str, key: str, tally: LookupTally | None) -> _Record | None:
        """One backend read: the record, or None when there is none; counted in tally when one is given."""
        record = index.get(key)
        if tally is not None:
            tally.read(backend, found=record is not None)
        return record

    def order(self, order_id: object, tally: LookupTally | None = None) -> dict[str, Any]:
        """The order record: status, promised date, items and the IDs of its linked records."""
        key = self._checked("order", order_id)
        record = self._read(self._orders, "orders", key, tally)
        if record is None:
            raise NotFound(f"order {key} not found")
        return record.model_dump(mode="json")

    def payment(self, payment_id: object, tally: LookupTally | None = None) -> dict[str, Any]:
        """The payment record."""
        key = self._checked("payment", payment_id)
        record = self._read(self._payments, "payments", key, tally)
        if record is None:
            raise NotFound(f"payment {key} not found")
        return record.model_dump(mode="json")

    def reservation(self, reservation_id: object, tally: LookupTally | None = None) -> dict[str, Any]:
        """The warehouse reservation record."""
        key = self._checked("reservation", reservation_id)
        record = self._read(self._reservations, "reservations", key, tally)
        if record is None:
            raise NotFound(f"reservation {key} not found")
        return record.model_dump(mode="json")

    def tracking(self, tracking_id: object, tally: LookupTally | None = None) -> dict[str, Any]:
        """The carrier observation, stamped with when it was checked; kept with nulls when unavailable."""
        key = self._checked("tracking", tracking_id)
        record = self._read(self._tracking, "tracking", key, tally)
        if record is None:
            raise NotFound(f"tracking {key} not found")
        return {**record.model_dump(mode="json"), "checkedAt": self.clock}

    def support_context(self, order_id: object, tally: LookupTally | None = None) -> dict[str, Any]:
        """Everything linked to one order, gathered in code; a missing link is reported, never dropped."""
        order = self.order(order_id, tally)
        return {
            "order": order,
            "payment": _or_not_found(partial(self.payment, tally=tally), "paymentId", order["paymentId"]),
            "reservations": [_or_not_found(partial(self.reservation, tally=tally), "reservationId", rid)
                             for rid in order["reservationIds"]],
            "tracking": [_or_not_found(partial(self.tracking, tally=tally), "trackingId", tid)
                         for tid in order["trackingIds"]],
        }


def not_found_marker(id_field: str, value: str) -> dict[str, str]:
    """How a linked record that does not exist appears in the focused context."""
    return {id_field: value, "availability": "not_found"}


def _or_not_found(lookup: Callable[[str], dict[str, Any]], id_field: str, value: str) -> dict[str, Any]:
    try:
        return lookup(value)
    except NotFound:
        return not_found_marker(id_field, value)
