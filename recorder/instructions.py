"""The instructions and the answer schema a conversation receives, built from the fields its case asks.

A case that asks every field of the default question gets the instructions and schema wismo has
always sent; a narrow question (e.g. only `paymentStatus`) gets only its fields' rules, only the
evidence they need, and a schema of just those fields plus `customerSummary`.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Sequence
from typing import Any

from recorder.dataset import (
    ASSESSMENT_FIELDS,
    DEFAULT_ASKS,
    DELAY_REASONS,
    LIST_FIELDS,
    PAYMENT_MISSING,
    PAYMENT_STATUSES,
)
from recorder.evidence import kinds_needed

ANSWER_FIELDS = (*DEFAULT_ASKS, "customerSummary")

_LIST_OF_STRINGS = {"type": "array", "items": {"type": "string"}}
_PROPERTIES: dict[str, dict[str, Any]] = {
    "deliveredSkus": {**_LIST_OF_STRINGS, "description": "SKUs whose ordered quantity the carrier delivered."},
    "outstandingSkus": {**_LIST_OF_STRINGS, "description": "Every other ordered SKU."},
    "delayReasons": {"type": "array", "items": {"type": "string", "enum": list(DELAY_REASONS)},
                     "description": "Why outstanding SKUs are delayed; empty when nothing shows a delay."},
    "deliveryEstimate": {"type": ["string", "null"],
                         "description": "YYYY-MM-DD, the latest carrier estimate for the outstanding SKUs, "
                                        "or null."},
    "missingEvidence": {**_LIST_OF_STRINGS,
                        "description": "kind:ID for each linked record that is unavailable or not found."},
    "paymentStatus": {"type": "string", "enum": [*PAYMENT_STATUSES, PAYMENT_MISSING],
                      "description": "The payment record's status, or missing when it cannot be retrieved."},
    "customerSummary": {"type": "string", "description": "What you tell the customer."},
}


def answer_fields(asks: Sequence[str] = DEFAULT_ASKS) -> tuple[str, ...]:
    """The keys of an answer to a case asking these fields: the asked ones in contract order, then the summary."""
    return (*(name for name in ASSESSMENT_FIELDS if name in asks), "customerSummary")


def answer_schema(asks: Sequence[str] = DEFAULT_ASKS) -> dict[str, Any]:
    """The JSON schema of the answer: the asked fields plus customerSummary.

    Strict-mode compatible (every property required, no extra properties), so OpenAI's structured
    output can enforce it; other providers get it as instructions and the answer is parsed.
    """
    fields = answer_fields(asks)
    return {"type": "object", "additionalProperties": False, "required": list(fields),
            "properties": {name: _PROPERTIES[name] for name in fields}}


ANSWER_SCHEMA: dict[str, Any] = answer_schema(DEFAULT_ASKS)


def asks_from_schema(schema: dict[str, Any]) -> tuple[str, ...]:
    """The contract fields an answer schema requires (what a policy reading the request can see it is asked)."""
    required = schema.get("required", ())
    return tuple(name for name in ASSESSMENT_FIELDS if name in required)


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


def build_instructions(clock: str, asks: Sequence[str] = DEFAULT_ASKS) -> str:
    """The instructions for a case asking these fields, with the dataset's fixed clock."""
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


_FENCED = re.compile(r"^```(?:json)?\s*\n(.*)\n```$", re.S)


def parse_answer(text: str | None, asks: Sequence[str] = DEFAULT_ASKS) -> tuple[dict[str, Any] | None, str | None]:
    """Parse a final answer into the asked fields plus customerSummary; return (answer, None) or (None, why not).

    A single fenced ```json block is accepted because many models wrap JSON that way; anything
    else around the object makes the answer invalid. Keys that were not asked are dropped.
    """
    if text is None or not text.strip():
        return None, "the final answer is empty"
    body = text.strip()
    fenced = _FENCED.match(body)
    if fenced:
        body = fenced.group(1).strip()
    try:
        value = json.loads(body)
    except json.JSONDecodeError as exc:
        return None, f"not a JSON object: {exc.msg} at line {exc.lineno} column {exc.colno}"
    if not isinstance(value, dict):
        return None, f"expected a JSON object, got {type(value).__name__}"
    fields = answer_fields(asks)
    missing = [f for f in fields if f not in value]
    if missing:
        return None, f"missing field(s): {', '.join(missing)}"
    for field in (f for f in fields if f in LIST_FIELDS):
        if not isinstance(value[field], list) or not all(isinstance(v, str) for v in value[field]):
            return None, f"{field} must be a list of strings"
    if "deliveryEstimate" in fields and value["deliveryEstimate"] is not None \
            and not isinstance(value["deliveryEstimate"], str):
        return None, "deliveryEstimate must be a YYYY-MM-DD string or null"
    for field in ("paymentStatus", "customerSummary"):
        if field in fields and not isinstance(value[field], str):
            return None, f"{field} must be a string"
    return {field: value[field] for field in fields}, None
