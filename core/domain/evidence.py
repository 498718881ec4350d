"""Evidence gathered by tool calls, and the contract's rules (docs/dataset.md) that turn it into an assessment.

Record kinds come from names only: a result of a call whose parameter is `trackingId` is a tracking
record; inside a result, a key `tracking`/`reservations`/`payment`/`order` names its records' kind. A
dict holding such keys (with a dict or list under them) and nothing else but an ID only groups records;
any other dict carrying its kind's ID (`orderId` for an order) is a record.
FIELD_NEEDS says which kinds of record each answer field is derived from, so a narrow question
(a case that asks only some fields) needs only those records: deriving an asked field from them
gives what deriving it from everything gives.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from core.domain.dataset import PAYMENT_MISSING
from core.domain.fields import ASSESSMENT_FIELDS
from core.domain.linking import kind_of_parameter

KINDS = ("order", "payment", "reservation", "tracking")
# The records each answer field is derived from (the order is always read first: it holds the links).
FIELD_NEEDS: dict[str, tuple[str, ...]] = {
    "deliveredSkus": ("order", "tracking"),
    "outstandingSkus": ("order", "tracking"),
    "delayReasons": ("order", "payment", "reservation", "tracking"),
    "deliveryEstimate": ("order", "tracking"),
    "missingEvidence": ("order", "payment", "reservation", "tracking"),
    "paymentStatus": ("order", "payment"),
}


def kinds_needed(asks: Sequence[str]) -> tuple[str, ...]:
    """The record kinds the asked fields are derived from, in KINDS order."""
    needed = {kind for name in asks for kind in FIELD_NEEDS[name]}
    return tuple(kind for kind in KINDS if kind in needed)
_CONTAINER_KINDS = {"order": "order", "orders": "order", "payment": "payment", "payments": "payment",
                    "reservation": "reservation", "reservations": "reservation", "tracking": "tracking"}


@dataclass
class Evidence:
    """Records by kind and ID, plus the linked records that could not be retrieved."""

    records: dict[str, dict[str, dict[str, Any]]] = field(default_factory=lambda: {k: {} for k in KINDS})
    missing: dict[str, str] = field(default_factory=dict)  # "kind:ID" -> why

    def add_call(self, arguments: str, text: str | None, is_error: bool) -> bool:
        """Fold in one tool call's result, read by its one string argument; False when nothing could be read."""
        try:
            parsed = json.loads(arguments)
        except (json.JSONDecodeError, TypeError, RecursionError):  # nested past any reader: not JSON here
            return False
        if not isinstance(parsed, dict) or len(parsed) != 1 or text is None:
            return False
        [(parameter, value)] = parsed.items()
        return isinstance(value, str) and self.add_result(parameter, value, text, is_error)

    def add_result(self, parameter: str, value: str, text: str, is_error: bool) -> bool:
        """Fold in one tool result: its call's parameter says what kind of record came back.

        Returns False when the result held no record of a known kind (an error other than "not found",
        text that is not JSON, JSON naming no order, payment, reservation or tracking record).
        """
        kind = kind_of_parameter(parameter)
        if is_error:
            if "not found" in text and kind in KINDS:
                self.missing[f"{kind}:{value}"] = "not_found"
                return True
            return False
        try:
            payload = json.loads(text)
        except (json.JSONDecodeError, RecursionError):  # nested past any reader: read as text
            return False
        return self._add(kind, payload)

    def _add(self, kind: str, payload: Any) -> bool:
        if isinstance(payload, list):
            return any([self._add(kind, item) for item in payload])  # a list, so every item is added
        if not isinstance(payload, dict):
            return False
        id_key = f"{kind}Id"
        nested = {key: item for key, item in payload.items()
                  if key in _CONTAINER_KINDS and isinstance(item, dict | list)}
        # {"orderId": ..., "reservations": [...]} only groups an order's records: carrying the order's ID
        # does not make it the order. A dict with fields of its own beside its ID is a record.
        is_record = kind in KINDS and isinstance(payload.get(id_key), str) \
            and (not nested or bool(set(payload) - set(nested) - {id_key}))
        if is_record:
            self._add_record(kind, payload[id_key], payload)
            if not nested:
                return True
        return any([is_record, *(self._add(_CONTAINER_KINDS[key], item) for key, item in nested.items())])

    def _add_record(self, kind: str, ident: str, record: dict[str, Any]) -> None:
        availability = record.get("availability")
        if availability in ("not_found", "unavailable"):
            self.missing[f"{kind}:{ident}"] = availability
        if availability != "not_found":
            # A record seen twice is one record: what it said first stands, and keys only the later object
            # has are added. An object grouping an order's records with one key of its own beside `orderId`
            # reads as the order too, and must never erase the order's items.
            known = self.records[kind].get(ident)
            self.records[kind][ident] = {**record, **known} if known else record

    def knows(self, kind: str, ident: str) -> bool:
        """True when the record was gathered, or is known not to exist or to be unavailable."""
        return ident in self.records.get(kind, {}) or f"{kind}:{ident}" in self.missing

    def orders(self) -> list[dict[str, Any]]:
        """Every order record gathered."""
        return list(self.records["order"].values())


@dataclass(frozen=True)
class Derived:
    """Every field of the answer contract, derived from evidence by the contract's rules."""

    deliveredSkus: list[str]
    outstandingSkus: list[str]
    delayReasons: list[str]
    deliveryEstimate: str | None
    missingEvidence: list[str]
    paymentStatus: str

    def as_dict(self, asks: tuple[str, ...] | list[str] = ASSESSMENT_FIELDS) -> dict[str, Any]:
        """The asked fields (all by default) in the answer contract's shape and order."""
        return {name: getattr(self, name) for name in ASSESSMENT_FIELDS if name in asks}


def _available(record: dict[str, Any]) -> bool:
    return record.get("availability", "available") == "available"


def reports_delay(tracking: dict[str, Any], promised: str | None) -> bool:
    """The carrier_delay rule for one shipment: an exception or a delay, or an estimate after the promise."""
    event = tracking.get("latestEvent") or {}
    if tracking.get("status") == "exception" or event.get("code") in ("delayed", "exception"):
        return True
    estimate = tracking.get("estimatedDeliveryDate")
    return bool(estimate and promised and estimate > promised)


def derive(evidence: Evidence, order_id: str) -> Derived:
    """Apply the contract's rules to the evidence about one order."""
    order = evidence.records["order"].get(order_id)
    if order is None:
        return Derived([], [], [], None, sorted(evidence.missing) or [f"order:{order_id}"], PAYMENT_MISSING)
    linked_tracking = [evidence.records["tracking"][t] for t in order.get("trackingIds", [])
                       if t in evidence.records["tracking"]]
    linked_reservations = [evidence.records["reservation"][r] for r in order.get("reservationIds", [])
                           if r in evidence.records["reservation"]]
    payment = evidence.records["payment"].get(order.get("paymentId", ""))
    promised = order.get("promisedDeliveryDate")

    delivered: list[str] = []
    outstanding: list[str] = []
    for item in order["items"]:
        sku = item["sku"]
        covered = sum(t.get("quantity", 0) for t in linked_tracking
                      if t.get("sku") == sku and _available(t) and t.get("status") == "delivered")
        (delivered if covered >= item["quantity"] else outstanding).append(sku)

    reasons: set[str] = set()
    estimates: list[str | None] = []
    for sku in outstanding:
        if any(r.get("sku") == sku and r.get("status") == "backordered" for r in linked_reservations):
            reasons.add("stock_shortage")
        moving = [t for t in linked_tracking
                  if t.get("sku") == sku and _available(t) and t.get("status") != "delivered"]
        if any(reports_delay(t, promised) for t in moving):
            reasons.add("carrier_delay")
        sku_estimates = [t["estimatedDeliveryDate"] for t in moving if t.get("estimatedDeliveryDate")]
        estimates.append(max(sku_estimates) if sku_estimates else None)
    if outstanding and payment is not None and payment.get("status") not in ("captured", "authorized"):
        reasons.add("payment_issue")

    estimate = max(estimates) if estimates and all(estimates) else None  # type: ignore[type-var]
    linked = {f"payment:{order.get('paymentId')}"} | {f"reservation:{r}" for r in order.get("reservationIds", [])} \
        | {f"tracking:{t}" for t in order.get("trackingIds", [])}
    missing = sorted(ref for ref in evidence.missing if ref in linked)
    payment_status = payment["status"] if payment is not None and isinstance(payment.get("status"), str) \
        else PAYMENT_MISSING
    return Derived(delivered, outstanding, sorted(reasons), estimate, missing, payment_status)
