"""The customer summary the scripted model writes: built only from evidence, uncertainty stated as such."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from core.domain.dataset import PAYMENT_MISSING
from core.domain.evidence import Derived, Evidence
from core.domain.fields import DEFAULT_ASKS


def _item_label(item: dict[str, Any]) -> str:
    name = item.get("name")
    quantity = item.get("quantity", 1)
    label = f"{name} ({item['sku']})" if name else item["sku"]
    return f"{quantity} × {label}" if quantity > 1 else label


def _day(timestamp: str | None, clock: str | None = None) -> str | None:
    """The day of a timestamp as the customer lives it: on the offset of the clock the records were read at (a
    carrier stamping in UTC, "04:30Z", delivered the evening before on a clock at -07:00)."""
    if not timestamp:
        return None
    try:
        moment, now = datetime.fromisoformat(timestamp), datetime.fromisoformat(clock) if clock else None
    except ValueError:
        return timestamp[:10]
    if now is None or moment.tzinfo is None or now.tzinfo is None:
        return timestamp[:10]
    return moment.astimezone(now.tzinfo).date().isoformat()


def _delivered_on(tracking: list[dict[str, Any]]) -> str:
    """ "on D", or "in parts, N on D1 and M on D2" when the units came on different days (a day for each parcel)."""
    units: dict[str, int] = {}
    for t in tracking:
        when = _day((t.get("latestEvent") or {}).get("at") or t.get("updatedAt"), t.get("checkedAt")) or "?"
        units[when] = units.get(when, 0) + t.get("quantity", 0)
    if len(units) == 1:
        return f"on {next(iter(units))}"
    days = sorted(units)
    return "in parts, " + ", ".join(f"{units[d]} on {d}" for d in days[:-1]) + f" and {units[days[-1]]} on {days[-1]}"


def _delivered_units(tracking: list[dict[str, Any]]) -> int:
    return sum(t.get("quantity", 0) for t in tracking
               if t.get("availability") == "available" and t.get("status") == "delivered")


def _delivered_part(item: dict[str, Any], tracking: list[dict[str, Any]]) -> str:
    """ "2 of your 3 × ... were delivered on D. " when some units of an outstanding item arrived, else ""."""
    done = [t for t in tracking if t.get("availability") == "available" and t.get("status") == "delivered"]
    units = _delivered_units(tracking)
    if not done or units >= item.get("quantity", 1):
        return ""
    name = item.get("name") or item["sku"]
    return f"{units} of your {item.get('quantity', 1)} × {name} ({item['sku']}) {'were' if units > 1 else 'was'} " \
           f"delivered {_delivered_on(done)}. "


def _sentence_for(item: dict[str, Any], order: dict[str, Any], evidence: Evidence, derived: Derived) -> str:
    sku = item["sku"]
    label = _item_label(item)
    plural = item.get("quantity", 1) > 1
    it, is_, has = ("they", "are", "have") if plural else ("it", "is", "has")
    tracking = [evidence.records["tracking"][t] for t in order.get("trackingIds", [])
                if t in evidence.records["tracking"] and evidence.records["tracking"][t].get("sku") == sku]
    reservations = [evidence.records["reservation"][r] for r in order.get("reservationIds", [])
                    if r in evidence.records["reservation"]
                    and evidence.records["reservation"][r].get("sku") == sku]
    payment = evidence.records["payment"].get(order.get("paymentId", ""))

    if sku in derived.deliveredSkus:
        delivered = [t for t in tracking if t.get("status") == "delivered"]
        return f"Your {label} {'were' if plural else 'was'} delivered {_delivered_on(delivered)}, according to the " \
               "carrier."
    available = [t for t in tracking if t.get("availability") == "available"]
    unavailable = [t for t in tracking if t.get("availability") == "unavailable"]
    if any(r.get("status") == "backordered" for r in reservations):
        restock = next((r["expectedRestockDate"] for r in reservations if r.get("expectedRestockDate")), None)
        when = (f" The warehouse expects new stock on {restock}, but that is not a delivery date."
                if restock else " There is no restock date yet, so I can't give you a delivery date for it.")
        return f"Your {label} {is_} backordered and {has} not shipped yet.{when}"
    missing = [ref.split(":", 1)[1] for ref in derived.missingEvidence if ref.startswith("reservation:")]
    gap = (f" I also can't find its warehouse record ({', '.join(missing)})." if missing and not reservations
           else "")
    if payment is not None and payment.get("status") == "refunded" and not available:
        # A refund is no reason to ship later: say only what the records show.
        return f"Your {label} {has} not shipped, and the payment for the order was refunded.{gap}"
    if payment is not None and payment.get("status") not in ("captured", "authorized"):
        reason = f" ({payment['failureReason'].replace('_', ' ')})" if payment.get("failureReason") else ""
        status = payment.get("status", "").replace("_", " ")
        return (f"Your {label} {has} not shipped because the payment status is {status}{reason}; "
                f"{it} can ship once the payment goes through.{gap}")
    outstanding = [t for t in available if t.get("status") != "delivered"]
    if available and not outstanding and unavailable:
        # Some units delivered, the rest in a parcel whose tracking is down: say so, not "on the way" with the
        # delivered parcel's event.
        rest = item.get("quantity", 1) - _delivered_units(tracking)
        return (f"{_delivered_part(item, tracking)}I can't confirm where the other {rest} {'are' if rest > 1 else 'is'}"
                f" or when {'they' if rest > 1 else 'it'} will arrive because the carrier's tracking "
                f"({unavailable[-1]['trackingId']}) is unavailable right now.")
    if available:
        shipment = (outstanding or available)[-1]
        event = (shipment.get("latestEvent") or {}).get("description")
        part = _delivered_part(item, tracking)
        rest = item.get("quantity", 1) - _delivered_units(tracking)
        subject = f"Your {label}" if not part else f"{part}{rest} more"
        verb = is_ if not part else ("are" if rest > 1 else "is")
        if shipment.get("status") == "label_created":
            # A label is no parcel in the carrier's hands: not "on the way" until the carrier reports it moving.
            text = (f"{subject} {'have' if verb == 'are' else 'has'} a shipping label with {shipment.get('carrier')}, "
                    f"but the carrier has not reported {'them' if verb == 'are' else 'it'} moving yet; the latest "
                    f"carrier update says: {event or 'label created'}.")
        elif shipment.get("status") == "exception":
            # Damaged, returned, held: not "on the way"; a date only if the carrier still gives one.
            text = (f"{subject} {'have' if verb == 'are' else 'has'} not been delivered: the latest update from "
                    f"{shipment.get('carrier')} says: {event or 'a problem in transit'}.")
        else:
            text = f"{subject} {verb} on the way with {shipment.get('carrier')}"
            text += f"; the latest carrier update says: {event}." if event else "."
        if shipment.get("estimatedDeliveryDate"):
            text += f" The carrier estimates delivery on {shipment['estimatedDeliveryDate']}"
            promised = order.get("promisedDeliveryDate")
            if promised and shipment["estimatedDeliveryDate"] > promised:
                text += f", later than the promised {promised}"
            text += "."
        return text
    if unavailable:
        shipment = unavailable[-1]
        return (f"Your {label} left our warehouse, but I can't confirm where {it} {is_} or when {it} will "
                f"arrive because the carrier's tracking ({shipment['trackingId']}) is unavailable right now.")
    if missing and not reservations:
        return (f"I can't confirm the status of your {label}: its warehouse record ({', '.join(missing)}) "
                f"could not be found and there is no shipment for it yet.")
    return f"Your {label} {has} not shipped yet."


_PAYMENT_WORDS = {
    "captured": "was taken",
    "authorized": "is authorized: the amount is reserved on your card but has not been taken yet",
    "pending": "is still pending: it has not been taken yet",
    "authorization_failed": "was not taken: the authorization failed",
    "refunded": "was refunded",
}


def _items_phrase(order: dict[str, Any]) -> str:
    labels = [_item_label(item) for item in order.get("items", [])]
    if not labels:  # a brought design may serve an order without items; the sentence still reads
        return "the items"
    if len(labels) > 3:  # a payment answer names a few items, not a whole large order
        return f"the {len(labels)} items"
    return "the " + (labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1])


def _payment_sentence(evidence: Evidence, order: dict[str, Any], derived: Derived) -> str:
    payment = evidence.records["payment"].get(order.get("paymentId", ""))
    if derived.paymentStatus == PAYMENT_MISSING or payment is None:
        return (f"I can't find the payment record ({order.get('paymentId')}) for {_items_phrase(order)} on order "
                f"{order['orderId']}, so I can't confirm whether your payment was taken.")
    amount = f" of {payment['amount']} {payment['currency']}" if payment.get("amount") else ""
    words = _PAYMENT_WORDS.get(derived.paymentStatus, f"has the status {derived.paymentStatus.replace('_', ' ')}")
    reason = f" ({payment['failureReason'].replace('_', ' ')})" if payment.get("failureReason") else ""
    return f"Your payment{amount} for {_items_phrase(order)} on order {order['orderId']} {words}{reason}."


def compose_summary(evidence: Evidence, order_id: str, derived: Derived,
                    asks: Sequence[str] = DEFAULT_ASKS) -> str:
    """One sentence per ordered item and what can be said about timing, then the payment when it is asked."""
    order = evidence.records["order"].get(order_id)
    if order is None:
        return f"I couldn't find order {order_id}, so I can't tell you anything about it yet."
    if set(asks) == {"paymentStatus"}:
        return _payment_sentence(evidence, order, derived)
    sentences = [_sentence_for(item, order, evidence, derived) for item in order["items"]]
    rest = "the remaining items" if derived.deliveredSkus else "your order"
    cancelled = order.get("status") == "cancelled"
    if cancelled:  # nothing is coming: no "delivery date ... yet"
        sentences.insert(0, f"Order {order_id} is cancelled.")
    # With one item its own sentence already says everything about timing.
    if derived.outstandingSkus and len(order["items"]) > 1 and not cancelled:
        if derived.deliveryEstimate:
            sentences.append(f"The carrier's latest estimate for {rest} is {derived.deliveryEstimate}.")
        else:
            sentences.append(f"I don't have a delivery date for {rest} yet.")
    lost = [ref.split(":", 1)[1] for ref in derived.missingEvidence
            if ref.startswith("tracking:") and ref.split(":", 1)[1] not in evidence.records["tracking"]]
    if lost:  # a shipment whose record was never found names no item: say so rather than leave it out
        sentences.append(f"I also can't find the carrier's tracking record ({', '.join(lost)}) for this order.")
    if "paymentStatus" in asks:
        sentences.append(_payment_sentence(evidence, order, derived))
    return " ".join(sentences)
