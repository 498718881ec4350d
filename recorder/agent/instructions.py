"""The instructions a conversation receives, built from the fields its case asks.

A case that asks every field of the default question gets the instructions wismo has always sent; a
narrow question (e.g. only `paymentStatus`) gets only its fields' rules and only the evidence they
need. The answer's shape comes from the contract (core.domain.answer).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from core.domain.answer import answer_fields
from core.domain.dataset import DELAY_REASONS, PAYMENT_STATUSES
from core.domain.evidence import kinds_needed
from core.domain.fields import ASSESSMENT_FIELDS, DEFAULT_ASKS

_HEAD = """\
You are a customer support assistant for an online store. A customer asks about one of their orders.
Answer only from the records the tools return; never guess.

The current time is {clock}.

"""

_CARRIER_RULES = """\
- An available carrier delivery observation takes precedence over an older order status.
- A SKU is delivered when available carrier observations with status "delivered" cover its ordered
  quantity. Every other ordered SKU is outstanding."""

_RULES = {
    "delayReasons": """\
- Delay reasons (a set, for outstanding SKUs, from {reasons} only):
  stock_shortage when its reservation is backordered; carrier_delay when its available tracking is not
  delivered and reports an exception or a delay, or estimates a date after the promised date;
  payment_issue when the payment is not captured or authorized. Unavailable evidence is not a delay.""",
    "deliveryEstimate": """\
- deliveryEstimate: when every outstanding SKU has an available carrier estimate, the latest of them;
  otherwise null. A restock date is not a delivery estimate.""",
    "missingEvidence": """\
- missingEvidence: "kind:ID" (kind is order, payment, reservation or tracking) for every linked record
  that is unavailable or not found.""",
    "paymentStatus": """\
- paymentStatus: the status of the order's payment record exactly as the record gives it, one of
  {statuses}; or "missing" when the payment record cannot be
  retrieved.""",
}

_PLACEHOLDERS = {"deliveryEstimate": '"YYYY-MM-DD" or null', "paymentStatus": '"<status>"',
                 "customerSummary": '"..."'}

_FULL_SUMMARY = """\
The customerSummary speaks to the customer in a few sentences: what has arrived, what has not and
why, and when the rest will arrive. State uncertainty as uncertainty: when evidence is unavailable,
say what you cannot confirm instead of guessing."""
_NARROW_SUMMARY = textwrap.fill(
    "The customerSummary answers the customer's question in a few sentences. State uncertainty as "
    "uncertainty: when evidence is unavailable, say what you cannot confirm instead of guessing.", width=100)

_EVIDENCE_PHRASES = {"order": "the order", "payment": "its payment", "reservation": "every warehouse reservation",
                     "tracking": "every carrier shipment"}


def _evidence_phrase(asks: Sequence[str]) -> str:
    kinds = kinds_needed(asks)
    parts = [_EVIDENCE_PHRASES[kind] for kind in kinds]
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return text + (" it links to" if kinds[-1] in ("reservation", "tracking") else "")


def _reply_shape(asks: Sequence[str]) -> str:
    items = [f'"{name}": {_PLACEHOLDERS.get(name, "[...]")}' for name in answer_fields(asks)]
    lines = [", ".join(items[i:i + 3]) for i in range(0, len(items), 3)]
    return "{" + ",\n".join(lines) + "}"


_ALLOWED = {
    "delayReasons": "- delayReasons: a set of {reasons} (for outstanding SKUs only).",
    "deliveryEstimate": '- deliveryEstimate: a date "YYYY-MM-DD", or null when it is not known.',
    "missingEvidence": '- missingEvidence: "kind:ID" (kind is order, payment, reservation or tracking) for every '
                       "linked record that is unavailable or not found.",
    "paymentStatus": '- paymentStatus: one of {statuses}; or "missing" when the payment record cannot be retrieved.',
}


def answer_format(clock: str, asks: Sequence[str] = DEFAULT_ASKS) -> str:
    """What wismo appends to the user's own instructions (--instructions): the clock and the answer's format.

    Only what makes the answer scoreable: its JSON shape and the values each field may take. How to
    gather and judge the evidence is the user's guidance to give.
    """
    asked = [name for name in ASSESSMENT_FIELDS if name in asks]
    allowed = [_ALLOWED[name].format(reasons=" | ".join(DELAY_REASONS), statuses=", ".join(PAYMENT_STATUSES))
               for name in asked if name in _ALLOWED]
    return "\n".join([
        f"The current time is {clock}.",
        "",
        "When you have the evidence, reply with exactly one JSON object and nothing else:",
        _reply_shape(asked),
        *allowed,
        "- customerSummary: a few sentences to the customer.",
    ])


def build_instructions(clock: str, asks: Sequence[str] = DEFAULT_ASKS, guidance: str | None = None) -> str:
    """The instructions for a case asking these fields, with the dataset's fixed clock.

    `guidance` (the text of --instructions FILE) replaces wismo's own guidance, the same for every
    design; the answer format is appended to it so every answer stays scoreable.
    """
    if guidance is not None:
        return guidance.strip() + "\n\n" + answer_format(clock, asks)
    asked = [name for name in ASSESSMENT_FIELDS if name in asks]
    rules = []
    if {"deliveredSkus", "outstandingSkus", "delayReasons", "deliveryEstimate"} & set(asked):
        rules.append(_CARRIER_RULES)  # outstanding SKUs are what delays and estimates are about
    rules += [_RULES[name].format(reasons=" | ".join(DELAY_REASONS), statuses=", ".join(PAYMENT_STATUSES))
              for name in asked if name in _RULES]
    summary = _FULL_SUMMARY if tuple(asked) == DEFAULT_ASKS else _NARROW_SUMMARY
    return "\n".join([
        _HEAD.format(clock=clock) + textwrap.fill(
            f"Gather the evidence first: {_evidence_phrase(asked)}. Then assess it with these rules:", width=100),
        *rules,
        "",
        "When you have the evidence, reply with exactly one JSON object and nothing else:",
        _reply_shape(asked),
        summary,
    ])
