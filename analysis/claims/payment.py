"""Payment claims: what a clause says about the payment, and whether the payment record supports it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from analysis.claims.cues import (
    PAYMENT_AWAITED,
    PAYMENT_DECLINED,
    PAYMENT_HELD,
    PAYMENT_OK,
    PAYMENT_PENDING,
    PAYMENT_PROBLEM,
    PAYMENT_REFUNDED,
    PAYMENT_SUBJECT,
    PAYMENT_TAKEN,
)
from analysis.claims.text import stance

_OK_STATUSES = ("captured", "authorized")
# Which recorded statuses each kind of statement is true of; None (no record gathered) supports none of them.
SUPPORTED_BY = {
    "went through": _OK_STATUSES,
    "declined": ("authorization_failed",),
    "pending": ("pending",),
    "awaited": ("pending", "authorization_failed", "authorized"),
    "refunded": ("refunded",),
    "did not go through": ("pending", "authorization_failed", "refunded"),
    "held": ("authorized", "pending", "authorization_failed"),
    "not taken": ("authorized", "pending", "authorization_failed", "refunded"),
}
_NEGATED_TO = {"went through": "did not go through", "did not go through": "went through",
               "declined": "went through", "pending": "went through", "refunded": "went through",
               "held": "went through", "not taken": "went through", "awaited": "went through"}


_OFFERED = re.compile(r"\b(?:a|an|or|offer|arrange|about)\s+$", re.I)


@dataclass(frozen=True)
class PaymentClaim:
    """A statement about the payment at text[start:end] of the clause, read as one of SUPPORTED_BY's keys."""

    start: int
    end: int
    says: str


def payment_claims(text: str) -> Iterator[PaymentClaim]:
    """The asserted statements about the payment in one clause (none unless the clause is about a payment)."""
    if not PAYMENT_SUBJECT.search(text):
        return
    cues: list[tuple[re.Pattern[str], str]] = [(PAYMENT_AWAITED, "awaited"), (PAYMENT_DECLINED, "declined"),
                                               (PAYMENT_PENDING, "pending"),
                                               (PAYMENT_REFUNDED, "refunded"), (PAYMENT_HELD, "held"),
                                               (PAYMENT_PROBLEM, "did not go through"), (PAYMENT_OK, "went through")]
    taken: list[tuple[int, int]] = []
    for cue, says in cues:
        for m in cue.finditer(text):
            if any(m.start() < end and start < m.end() for start, end in taken):
                continue  # "didn't go through" is one statement, not also a "went through"
            if says == "refunded" and _OFFERED.search(text, 0, m.start()) and m.group().lower() == "refund":
                continue  # "we'll arrange a replacement or a refund": a refund offered, not the payment's status
            how = stance(text, m.start())
            if how == "negated":
                says_now = _NEGATED_TO[says]
            elif how in ("plain", "reported"):
                says_now = says
            else:
                continue
            if says_now == "went through" and PAYMENT_REFUNDED.search(text, 0, m.start()):
                says_now = "refunded"  # "the refund has gone through" says the payment was refunded
            if says_now == "did not go through" and how == "negated" and PAYMENT_TAKEN.fullmatch(m.group()):
                says_now = "not taken"  # "not charged yet" says no money was taken, not that the payment failed
            taken.append((m.start(), m.end()))
            yield PaymentClaim(m.start(), m.end(), says_now)


def supported(claim: PaymentClaim, status: str | None) -> bool:
    """Whether the recorded payment status (None: no record) supports the statement."""
    return status is not None and status in SUPPORTED_BY[claim.says]
