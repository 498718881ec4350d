"""What the evidence establishes about each ordered item, in the shape the claim checks need."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any

from core.domain.evidence import Evidence, derive, reports_delay

_SHIPPED_ORDER_STATUSES = ("shipped", "delivered")
_NOT_MOVING = ("label_created", None)  # carrier statuses that show no parcel in the carrier's hands


@dataclass(frozen=True)
class ItemFacts:
    """One ordered SKU: what is known, and the record IDs it is known from."""

    sku: str
    name: str | None
    quantity: int
    delivered: bool
    delivered_quantity: int  # units available delivered observations cover ("two of the four chairs")
    delivered_days: tuple[str, ...]
    estimates: tuple[str, ...]
    restock_days: tuple[str, ...]
    delayed: bool
    carrier_delayed: bool  # its available tracking reports a delay (the carrier_delay rule)
    backordered: bool | None  # None when no warehouse record for it could be read
    moving: bool  # some record shows it left the warehouse
    lost: bool
    missing: tuple[str, ...]  # "kind:ID" refs of unretrievable evidence about this item
    notes: tuple[str, ...]  # the item's records in words, naming their IDs
    # Every day its carrier events were stamped, on the clock's offset and in the carrier's own: a date whose role
    # was not resolved only needs to be one of the item's days, in any role.
    event_days: tuple[str, ...] = ()
    # Every day its tracking and reservation records carry, in any field but when they were looked up (checkedAt):
    # the days a date about the item may be confused with (the confidence gate).
    record_days: tuple[str, ...] = ()

    def any_days(self) -> set[str]:
        """The item's days in any role: delivered, estimated, restocked or a carrier event."""
        return {*self.delivered_days, *self.estimates, *self.restock_days, *self.event_days}


@dataclass(frozen=True)
class OrderFacts:
    """The order's items plus the order-level facts (promised date, payment, unassigned gaps)."""

    order_id: str
    found: bool
    items: tuple[ItemFacts, ...]
    promised: str | None
    known_days: frozenset[str]  # every calendar day any of the order's records mentions
    order_missing: tuple[str, ...]  # missing refs that cannot be tied to one item
    payment_note: str | None
    missing_notes: dict[str, str]  # "kind:ID" -> "ID: why", for every missing ref
    clock: str | None = None  # the day the carrier was last asked, for "today" and "Friday"
    payment_status: str | None = None  # None when no payment record was gathered
    carriers: tuple[str, ...] = ()  # carrier names in the order's tracking records
    order_status: str | None = None  # the order record's own status ("delivered", "processing")
    carrier_text: tuple[str, ...] = ()  # the carrier events' descriptions and locations ("Delayed at regional hub")
    gathered: bool = True  # False when nothing about the order was gathered: no record and no failed lookup
    order_days: tuple[str, ...] = ()  # every day the order and payment records carry (placed, promised, charged)

    def item(self, sku: str) -> ItemFacts:
        """The facts for one SKU of this order."""
        return next(i for i in self.items if i.sku == sku)


def _day(value: Any) -> str | None:
    return value[:10] if isinstance(value, str) and len(value) >= 10 else None


def _offset(clock: Any) -> tzinfo | None:
    """The UTC offset of the dataset's clock (the checkedAt the lookups stamp), None when it has none."""
    try:
        return datetime.fromisoformat(clock).tzinfo if isinstance(clock, str) else None
    except ValueError:
        return None


def _local_day(value: Any, zone: tzinfo | None) -> str | None:
    """The day of a timestamp on the clock's own offset: a carrier stamping in UTC ("04:30Z") means the evening
    before on a clock at -07:00, and that evening is the day a customer is told."""
    day = _day(value)
    if day is None or zone is None:
        return day
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return day
    return moment.astimezone(zone).date().isoformat() if moment.tzinfo else day


def _days_in(record: Any, zone: tzinfo | None = None, *, skip: str = "") -> set[str]:
    """Every ISO day in a record, however deeply nested, as stamped and on the clock's offset; used to tell a real
    date from an invented one. A field named `skip` is left out."""
    if isinstance(record, dict):
        values = [v for k, v in record.items() if k != skip]
        return set().union(*(_days_in(v, zone, skip=skip) for v in values)) if values else set()
    if isinstance(record, list):
        return set().union(*(_days_in(v, zone, skip=skip) for v in record)) if record else set()
    day = _day(record)
    if not (day and day[4] == "-" and day[:4].isdigit()):
        return set()
    return {day, _local_day(record, zone) or day}


def _tracking_note(t: dict[str, Any], zone: tzinfo | None) -> str:
    if t.get("availability", "available") != "available":
        return f"{t['trackingId']}: carrier lookup {t.get('availability')}"
    event = t.get("latestEvent") or {}
    text = f"{t['trackingId']}: {t.get('status')}"
    if event.get("description"):
        text += f" ('{event['description']}', {_local_day(event.get('at'), zone)})"
    if t.get("estimatedDeliveryDate"):
        text += f", carrier estimate {t['estimatedDeliveryDate']}"
    return text


def _reservation_note(r: dict[str, Any]) -> str:
    restock = r.get("expectedRestockDate")
    text = f"{r['reservationId']}: {r.get('status')}"
    if r.get("status") == "backordered":
        text += f", restock expected {restock}" if restock else ", no restock date"
    return text


def _says_lost(t: dict[str, Any]) -> bool:
    event = t.get("latestEvent") or {}
    words = " ".join(str(x) for x in (t.get("status"), event.get("code"), event.get("description")) if x)
    return "lost" in words.lower()


def _assign_missing(refs: list[str], order: dict[str, Any], found: dict[str, list[dict[str, Any]]],
                    evidence: Evidence) -> dict[str, str | None]:
    """Tie each missing ref to a SKU: from its record if it came back unavailable, else by elimination."""
    skus = [i["sku"] for i in order["items"]]
    owner: dict[str, str | None] = {}
    for ref in refs:
        kind, ident = ref.split(":", 1)
        record = evidence.records.get(kind, {}).get(ident)
        if record is not None and record.get("sku") in skus:
            owner[ref] = record["sku"]
            continue
        if kind not in ("reservation", "tracking"):
            owner[ref] = None
            continue
        # A record that was never found names no SKU: the items no found record of this kind covers.
        uncovered = [s for s in skus if not any(r.get("sku") == s for r in found[kind])]
        gaps = [r for r in refs if r.startswith(f"{kind}:") and evidence.records[kind].get(r.split(":", 1)[1]) is None]
        owner[ref] = uncovered[0] if len(uncovered) == 1 and len(gaps) == 1 else None
    return owner


def order_facts(evidence: Evidence, order_id: str) -> OrderFacts:
    """Gather per-item facts for one order from the evidence, by the README's rules."""
    derived = derive(evidence, order_id)
    order = evidence.records["order"].get(order_id)
    missing_notes = {ref: f"{ref.split(':', 1)[1]}: {evidence.missing.get(ref, 'not found').replace('_', ' ')}"
                     for ref in derived.missingEvidence}
    if order is None:
        gathered = f"order:{order_id}" in evidence.missing
        if not gathered:
            # Nothing about the order: one stand-in item of which nothing is known, so every claim is unsupported.
            nothing = ItemFacts(sku="", name=None, quantity=1, delivered=False, delivered_quantity=0, delivered_days=(),
                                estimates=(), restock_days=(), delayed=False, carrier_delayed=False,
                                backordered=None, moving=False, lost=False, missing=(),
                                notes=(f"nothing was gathered about {order_id}: no tool result holds a record of it",))
            return OrderFacts(order_id, False, (nothing,), None, frozenset(), (), nothing.notes[0], {}, gathered=False)
        return OrderFacts(order_id, False, (), None, frozenset(), tuple(derived.missingEvidence), None, missing_notes)
    promised = order.get("promisedDeliveryDate")
    found = {
        "tracking": [evidence.records["tracking"][t] for t in order.get("trackingIds", [])
                     if t in evidence.records["tracking"]],
        "reservation": [evidence.records["reservation"][r] for r in order.get("reservationIds", [])
                        if r in evidence.records["reservation"]],
    }
    payment = evidence.records["payment"].get(order.get("paymentId", ""))
    payment_issue = payment is not None and payment.get("status") not in ("captured", "authorized")
    payment_note = None
    if payment is not None:
        reason = f" ({payment['failureReason']})" if payment.get("failureReason") else ""
        payment_note = f"{payment['paymentId']}: {payment.get('status')}{reason}"
    owner = _assign_missing(derived.missingEvidence, order, found, evidence)
    checked_at = max((c for t in found["tracking"] if isinstance(c := t.get("checkedAt"), str)), default=None)
    zone = _offset(checked_at)  # the clock's offset: every carrier time is read as a day on it
    known_days = _days_in(order, zone) | _days_in(payment or {}, zone) | _days_in(found["tracking"], zone) \
        | _days_in(found["reservation"], zone)

    items = []
    for item in order["items"]:
        sku = item["sku"]
        tracking = [t for t in found["tracking"] if t.get("sku") == sku]
        available = [t for t in tracking if t.get("availability", "available") == "available"]
        reservations = [r for r in found["reservation"] if r.get("sku") == sku]
        delivered = sku in derived.deliveredSkus
        delivered_quantity = sum(t.get("quantity", 0) for t in available if t.get("status") == "delivered")
        delivered_days = tuple(sorted({d for t in available if t.get("status") == "delivered"
                                       if (d := _local_day((t.get("latestEvent") or {}).get("at")
                                                           or t.get("updatedAt"), zone))}))
        moving_tracking = [t for t in available if t.get("status") != "delivered"]
        backordered = any(r.get("status") == "backordered" for r in reservations)
        carrier_delayed = not delivered and any(reports_delay(t, promised) for t in moving_tracking)
        if delivered:
            delayed = bool(promised and delivered_days and max(delivered_days) > promised)
        else:
            delayed = backordered or payment_issue or carrier_delayed
        missing = tuple(ref for ref in derived.missingEvidence if owner.get(ref) == sku)
        notes = [_tracking_note(t, zone) for t in tracking] or [f"no tracking record for {sku}"]
        notes += [_reservation_note(r) for r in reservations]
        notes += [missing_notes[ref] for ref in missing if ref.split(":", 1)[1] not in " ".join(notes)]
        items.append(ItemFacts(
            sku=sku, name=item.get("name"), quantity=item.get("quantity", 1), delivered=delivered,
            delivered_quantity=delivered_quantity, delivered_days=delivered_days,
            estimates=tuple(sorted({t["estimatedDeliveryDate"] for t in moving_tracking
                                    if t.get("estimatedDeliveryDate")})),
            restock_days=tuple(sorted({r["expectedRestockDate"] for r in reservations
                                       if r.get("expectedRestockDate")})),
            delayed=delayed, carrier_delayed=carrier_delayed, backordered=backordered if reservations else None,
            # A label created and awaiting pickup is no movement: "on its way" needs the carrier to have it.
            moving=any(t.get("status") not in _NOT_MOVING for t in available)
            or any(r.get("status") == "fulfilled" for r in reservations)
            or order.get("status") in _SHIPPED_ORDER_STATUSES,
            lost=any(_says_lost(t) for t in available),
            missing=missing, notes=tuple(notes),
            # On the clock's offset only: "Tuesday" for a UPS stamp of Monday 21:30 local is the UTC day, a wrong day.
            event_days=tuple(sorted({d for t in available if (d := _local_day((t.get("latestEvent") or {}).get("at"),
                                                                              zone))})),
            record_days=tuple(sorted(_days_in(tracking, zone, skip="checkedAt") | _days_in(reservations, zone)))))
    order_missing = tuple(ref for ref in derived.missingEvidence if owner.get(ref) is None)
    checked = [d for t in found["tracking"] if (d := _day(t.get("checkedAt")))]
    if payment is None:
        payment_ref = f"payment:{order.get('paymentId')}"
        payment_note = missing_notes.get(payment_ref, f"no payment record was gathered for {order_id}")
    carriers = tuple(sorted({t["carrier"] for t in found["tracking"] if isinstance(t.get("carrier"), str)}))
    events = [t.get("latestEvent") or {} for t in found["tracking"]]
    carrier_text = tuple(sorted({v for e in events for v in (e.get("description"), e.get("location"))
                                 if isinstance(v, str)}))
    return OrderFacts(order_id, True, tuple(items), promised, frozenset(known_days), order_missing, payment_note,
                      missing_notes, max(checked) if checked else None,
                      payment_status=payment.get("status") if payment else None, carriers=carriers,
                      carrier_text=carrier_text,
                      order_days=tuple(sorted(_days_in(order, zone) | _days_in(payment or {}, zone))),
                      order_status=order.get("status") if isinstance(order.get("status"), str) else None)
