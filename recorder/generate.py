"""A synthetic dataset of orders of every size, deterministic by seed (`wismo dataset generate`).

Each order's lines mix the situations the contract knows (delivered, carrier delay, exception,
backorder, unavailable tracking, missing records, quantities split over several shipments), its
payment may be captured, authorized, pending, declined, refunded or missing, and its status may lag
the carrier. Every order gets one case of each question kind, and every expectation is derived by
the contract's own code (core.domain.evidence.derive over what the focused tool returns), so `wismo
check` agrees with it by construction and a change to the rules changes the next generated dataset.
The same seed and options always give the same bytes: only `random.Random(seed)` draws, and the
clock is fixed.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from core.domain.dataset import CASES_FILE, RECORDS_FILE, Case, Records
from core.domain.evidence import Evidence, derive
from core.errors import WismoError
from recorder.servers.lookups import Lookups, to_json_text

CLOCK = datetime.fromisoformat("2026-10-08T12:00:00+00:00")
DEFAULT_SIZES = (1, 2, 5, 10, 25, 50)
MAX_LINES = 200  # line suffixes L001..L200 keep every ID within the grammar (a suffix is at most 8 characters)
MAX_ORDERS = 9999  # order numbers 20001..29999

# Per line: what happened to it. Several shipments ("split") carry one line when its quantity is above one.
LINE_SITUATIONS = ("delivered", "delivered_split", "partial_split", "in_transit", "out_for_delivery",
                   "label_created", "carrier_delay", "late_estimate", "exception", "backordered",
                   "backordered_restock", "reserved", "unavailable_tracking", "missing_reservation", "missing_tracking")
NOT_SHIPPED = ("reserved", "backordered", "backordered_restock", "missing_reservation")
# Per order: the payment ("missing": the order links a payment record that does not exist).
PAYMENTS = ("captured", "captured", "authorized", "pending", "authorization_failed", "refunded", "missing")
QUESTION_KINDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "full": (("deliveredSkus", "outstandingSkus", "delayReasons", "deliveryEstimate", "missingEvidence"),
             ("Where is my order {order}? What has arrived, and when will the rest arrive?",
              "Can you tell me the status of order {order}?")),
    "arrived": (("deliveredSkus", "outstandingSkus"),
                ("Has everything from order {order} arrived?", "Did all of order {order} get delivered?")),
    "rest": (("outstandingSkus", "deliveryEstimate"),
             ("When will the rest of order {order} arrive?",
              "What is still missing from {order}, and when will it come?")),
    "payment": (("paymentStatus",),
                ("Was my payment for order {order} taken?", "Did you charge my card for order {order}?")),
}

# (SKU stem, product name, price in USD, variants as (SKU suffix, name suffix))
CATALOG: tuple[tuple[str, str, float, tuple[tuple[str, str], ...]], ...] = (
    ("LAPTOP", "laptop", 1099.0, (("14", "14-inch"), ("16", "16-inch"))),
    ("MONITOR", "monitor", 329.0, (("24", "24-inch"), ("27", "27-inch"), ("32-4K", "32-inch 4K"))),
    ("DOCK", "docking station", 189.0, (("USB-C", "USB-C"), ("TB4", "Thunderbolt 4"))),
    ("KEYBOARD", "keyboard", 89.0, (("TKL", "tenkeyless"), ("FULL", "full-size"), ("ERGO", "split ergonomic"))),
    ("MOUSE", "mouse", 39.0, (("WL", "wireless"), ("VERT", "vertical"), ("TRAVEL", "travel"))),
    ("WEBCAM", "webcam", 119.0, (("1080", "1080p"), ("4K", "4K"))),
    ("HEADSET", "headset", 79.0, (("USB", "USB"), ("BT", "Bluetooth"), ("ANC", "noise-cancelling"))),
    ("CHAIR", "office chair", 449.0, (("ERGO", "ergonomic"), ("MESH", "mesh"))),
    ("DESK", "standing desk", 599.0, (("120", "120 cm"), ("160", "160 cm"))),
    ("LAMP", "desk lamp", 49.0, (("LED", "LED"), ("ARM", "swing-arm"))),
    ("CABLE-USBC", "USB-C cable", 15.0, (("1M", "1 m"), ("2M", "2 m"), ("3M", "3 m"))),
    ("CABLE-HDMI", "HDMI cable", 12.0, (("2M", "2 m"), ("5M", "5 m"))),
    ("ADAPTER", "adapter", 25.0, (("USBC-HDMI", "USB-C to HDMI"), ("USBC-ETH", "USB-C to Ethernet"))),
    ("CHARGER", "charger", 59.0, (("65W", "65 W"), ("100W", "100 W"))),
    ("SSD", "portable SSD", 129.0, (("1TB", "1 TB"), ("2TB", "2 TB"))),
    ("HUB", "USB hub", 35.0, (("4PORT", "4-port"), ("7PORT", "7-port"))),
    ("SPEAKER", "speaker", 99.0, (("BT", "Bluetooth"), ("DESK", "desktop"))),
    ("MIC", "microphone", 139.0, (("USB", "USB"), ("XLR", "XLR"))),
    ("TABLET", "tablet", 499.0, (("11", "11-inch"), ("13", "13-inch"))),
    ("PEN", "stylus", 69.0, (("STYLUS", "active"),)),
    ("BAG", "laptop bag", 59.0, (("15", "15-inch"), ("17", "17-inch"))),
    ("STAND", "laptop stand", 45.0, (("ALU", "aluminium"), ("FOLD", "folding"))),
    ("PRINTER", "printer", 249.0, (("A4", "A4 laser"), ("PHOTO", "photo"))),
    ("ROUTER", "Wi-Fi router", 179.0, (("AX", "Wi-Fi 6"), ("MESH", "mesh"))),
    ("PAD", "mouse pad", 19.0, (("XL", "extra-large"), ("GEL", "gel"))),
)
COLOURS = (("BLK", "black"), ("WHT", "white"), ("GRY", "grey"))
CARRIERS = ("UPS", "FedEx", "DHL", "USPS")
CITIES = ("Portland, OR", "Reno, NV", "Columbus, OH", "Memphis, TN", "Allentown, PA", "Denver, CO")
WAREHOUSES = ("RENO-1", "COLUMBUS-2", "ALLENTOWN-1")


@dataclass
class _Order:
    """One order being built, with the records it links to."""

    number: int
    lines: int
    payment: str
    stale: bool
    promised: date
    records: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: {
        "payments": [], "reservations": [], "tracking": []})
    items: list[dict[str, Any]] = field(default_factory=list)
    reservation_ids: list[str] = field(default_factory=list)
    tracking_ids: list[str] = field(default_factory=list)
    states: list[str] = field(default_factory=list)  # per line: delivered, moving or waiting
    total: float = 0.0

    @property
    def order_id(self) -> str:
        return f"ORD-{self.number}"


def _stamp(moment: datetime) -> str:
    return moment.isoformat()


def _day(value: date) -> str:
    return value.isoformat()


class _Builder:
    """Draws every choice from one random.Random, in a fixed order."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        base = [(f"{stem}-{suffix}", f"{variant} {name}", price) for stem, name, price, variants in CATALOG
                for suffix, variant in variants]
        # colours multiply the catalogue so that even a MAX_LINES order lists distinct products
        self.skus = base + [(f"{sku}-{code}", f"{name}, {colour}", price) for code, colour in COLOURS
                            for sku, name, price in base]

    def _hours_ago(self, low: int, high: int) -> datetime:
        return CLOCK - timedelta(hours=self.rng.randint(low, high), minutes=self.rng.randrange(0, 60, 5))

    def order(self, number: int, lines: int, payment: str, stale: bool) -> _Order:
        order = _Order(number, lines, payment, stale, CLOCK.date() + timedelta(days=self.rng.randint(-3, 3)))
        if payment in ("pending", "authorization_failed"):
            situations = [self.rng.choice(NOT_SHIPPED) for _ in range(lines)]  # nothing ships before payment
        elif lines < len(LINE_SITUATIONS):
            situations = self.rng.sample(LINE_SITUATIONS, lines)
        else:  # every situation once per len(LINE_SITUATIONS) lines, in a shuffled order
            cycle = self.rng.sample(LINE_SITUATIONS, len(LINE_SITUATIONS))
            situations = [cycle[i % len(cycle)] for i in range(lines)]
        products = self.rng.sample(self.skus, lines)
        for index, (situation, (sku, name, price)) in enumerate(zip(situations, products, strict=True), start=1):
            self._line(order, index, situation, sku, name, price)
        self._payment(order)
        return order

    def _line(self, order: _Order, index: int, situation: str, sku: str, name: str, price: float) -> None:
        split = situation in ("delivered_split", "partial_split")
        quantity = self.rng.randint(2, 4) if split else self.rng.choice((1, 1, 1, 2, 3))
        order.items.append({"sku": sku, "name": name, "quantity": quantity})
        order.total += price * quantity
        suffix = f"L{index:03d}"
        reservation_id = f"RSV-{order.number}-{suffix}"
        order.reservation_ids.append(reservation_id)
        shipped = situation not in NOT_SHIPPED
        if situation != "missing_reservation":
            backordered = situation.startswith("backordered")
            restock = _day(CLOCK.date() + timedelta(days=self.rng.randint(5, 30))) \
                if situation == "backordered_restock" else None
            order.records["reservations"].append({
                "reservationId": reservation_id, "orderId": order.order_id, "sku": sku, "quantity": quantity,
                "warehouse": self.rng.choice(WAREHOUSES),
                "status": "fulfilled" if shipped else "backordered" if backordered else "reserved",
                "expectedRestockDate": restock, "updatedAt": _stamp(self._hours_ago(48, 200))})
        if not shipped:
            order.states.append("waiting")
            return
        parts = self._split(quantity) if split else [quantity]
        kinds = {"delivered_split": ["delivered"] * len(parts),
                 "partial_split": ["delivered", *["in_transit"] * (len(parts) - 1)]}.get(situation, [situation])
        for letter, (part, kind) in zip("ABCD", zip(parts, kinds, strict=True), strict=False):
            tracking_id = f"TRK-{order.number}-{suffix}{letter if split else ''}"
            order.tracking_ids.append(tracking_id)
            if kind != "missing_tracking":
                order.records["tracking"].append(self._tracking(order, tracking_id, sku, part, kind))
        order.states.append("delivered" if set(kinds) == {"delivered"} else "moving")

    def _split(self, quantity: int) -> list[int]:
        pieces = min(quantity, self.rng.randint(2, 3))
        cuts = sorted(self.rng.sample(range(1, quantity), pieces - 1))
        return [b - a for a, b in zip([0, *cuts], [*cuts, quantity], strict=True)]

    def _tracking(self, order: _Order, tracking_id: str, sku: str, quantity: int, kind: str) -> dict[str, Any]:
        record: dict[str, Any] = {"trackingId": tracking_id, "orderId": order.order_id, "sku": sku,
                                  "quantity": quantity, "carrier": self.rng.choice(CARRIERS)}
        if kind == "unavailable_tracking":
            return {**record, "availability": "unavailable", "status": None, "latestEvent": None,
                    "estimatedDeliveryDate": None, "updatedAt": None}
        at = self._hours_ago(2, 96)
        on_time = max(CLOCK.date() + timedelta(days=1), order.promised - timedelta(days=self.rng.randint(0, 1)))
        late = max(order.promised, CLOCK.date()) + timedelta(days=self.rng.randint(1, 4))
        status, code, description, estimate = {
            "delivered": ("delivered", "delivered", "Delivered, left at front door", None),
            "in_transit": ("in_transit", "arrived_facility", "Arrived at carrier facility", on_time),
            "out_for_delivery": ("out_for_delivery", "out_for_delivery", "Out for delivery", CLOCK.date()),
            "label_created": ("label_created", "label_created", "Shipping label created", None),
            "carrier_delay": ("in_transit", "delayed", "Delayed at regional hub", late),
            "late_estimate": ("in_transit", "in_transit", "In transit", late),
            "exception": ("exception", "exception", "Package damaged in transit; carrier investigating", None),
        }[kind]
        event = {"code": code, "description": description, "location": self.rng.choice(CITIES), "at": _stamp(at)}
        return {**record, "availability": "available", "status": status, "latestEvent": event,
                "estimatedDeliveryDate": _day(estimate) if estimate else None, "updatedAt": _stamp(at)}

    def _payment(self, order: _Order) -> None:
        if order.payment == "missing":
            return
        failure = self.rng.choice(("card_declined", "insufficient_funds")) \
            if order.payment == "authorization_failed" else None
        order.records["payments"].append({
            "paymentId": f"PAY-{order.number}", "orderId": order.order_id, "status": order.payment,
            "amount": f"{order.total:.2f}", "currency": "USD", "failureReason": failure,
            "updatedAt": _stamp(self._hours_ago(100, 240))})

    def order_record(self, order: _Order) -> dict[str, Any]:
        states = set(order.states)
        if states == {"delivered"}:
            status = "shipped" if order.stale else "delivered"  # a stale status lags the carrier
        elif states == {"waiting"}:
            status = "on_hold" if order.payment in ("pending", "authorization_failed") else "processing"
        elif order.stale:
            status = "processing"
        else:
            status = "shipped" if "waiting" not in states else "partially_shipped"
        return {"orderId": order.order_id, "accountId": "ACC-9001", "status": status,
                "promisedDeliveryDate": _day(order.promised), "updatedAt": _stamp(self._hours_ago(100, 160)),
                "items": order.items, "paymentId": f"PAY-{order.number}",
                "reservationIds": order.reservation_ids, "trackingIds": order.tracking_ids}


def _cases(builder: _Builder, records: Records) -> list[dict[str, Any]]:
    """One case per order and question kind, its expectation derived by the contract's rules."""
    lookups = Lookups(records)
    cases = []
    for order in records.orders:
        evidence = Evidence()
        evidence.add_result("orderId", order.orderId, to_json_text(lookups.support_context(order.orderId)), False)
        derived = derive(evidence, order.orderId)
        for kind, (asks, questions) in QUESTION_KINDS.items():
            case = {"caseId": f"{order.orderId.lower()}-{kind}", "orderId": order.orderId,
                    "question": builder.rng.choice(questions).format(order=order.orderId),
                    "asks": list(asks), "expected": derived.as_dict(asks)}
            Case.model_validate(case)  # the generator's own output must be a valid case
            cases.append(case)
    return cases


def generate(seed: int, sizes: tuple[int, ...] = DEFAULT_SIZES,
             orders_per_size: int = 2) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The records.json and cases.json content of a generated dataset."""
    if not sizes or any(not 1 <= n <= MAX_LINES for n in sizes):
        raise WismoError(f"--lines: every order size must be between 1 and {MAX_LINES}")
    if not 1 <= orders_per_size * len(sizes) <= MAX_ORDERS:
        raise WismoError(f"--orders-per-size: at most {MAX_ORDERS} orders in all")
    builder = _Builder(seed)
    payments = list(PAYMENTS)
    builder.rng.shuffle(payments)
    orders: list[dict[str, Any]] = []
    linked: dict[str, list[dict[str, Any]]] = {"payments": [], "reservations": [], "tracking": []}
    for index, lines in enumerate(n for n in sizes for _ in range(orders_per_size)):
        # every payment situation in turn; every third order's status lags the carrier
        order = builder.order(20001 + index, lines, payments[index % len(payments)], stale=index % 3 == 1)
        orders.append(builder.order_record(order))
        for key, values in order.records.items():
            linked[key] += values
    raw = {"clock": _stamp(CLOCK), "accountId": "ACC-9001", "orders": orders, **linked}
    records = Records.model_validate(raw)  # the generator's own output must be valid records
    return raw, _cases(builder, records)


def write_dataset(out: Path, seed: int, sizes: tuple[int, ...] = DEFAULT_SIZES, orders_per_size: int = 2) -> None:
    """Write records.json and cases.json into out (which must not hold a dataset already)."""
    if any((out / name).exists() for name in (RECORDS_FILE, CASES_FILE)):
        raise WismoError(f"{out} already holds a dataset; choose another --out")
    records, cases = generate(seed, sizes, orders_per_size)
    out.mkdir(parents=True, exist_ok=True)
    for name, content in ((RECORDS_FILE, records), (CASES_FILE, cases)):
        (out / name).write_text(json.dumps(content, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
