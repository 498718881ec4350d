"""The instructions every conversation shares, the answer contract's schema, and the answer parser."""

from __future__ import annotations

import json
import re
from typing import Any

from recorder.dataset import DELAY_REASONS

ASSESSMENT_FIELDS = ("deliveredSkus", "outstandingSkus", "delayReasons", "deliveryEstimate", "missingEvidence")
ANSWER_FIELDS = (*ASSESSMENT_FIELDS, "customerSummary")

_LIST_OF_STRINGS = {"type": "array", "items": {"type": "string"}}

# Strict-mode compatible (every property required, no extra properties), so OpenAI's structured
# output can enforce it; other providers get it as instructions and the answer is parsed.
ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": list(ANSWER_FIELDS),
    "properties": {
        "deliveredSkus": {**_LIST_OF_STRINGS, "description": "SKUs whose ordered quantity the carrier delivered."},
        "outstandingSkus": {**_LIST_OF_STRINGS, "description": "Every other ordered SKU."},
        "delayReasons": {"type": "array", "items": {"type": "string", "enum": list(DELAY_REASONS)},
                         "description": "Why outstanding SKUs are delayed; empty when nothing shows a delay."},
        "deliveryEstimate": {"type": ["string", "null"],
                             "description": "YYYY-MM-DD, the latest carrier estimate for the outstanding SKUs, "
                                            "or null."},
        "missingEvidence": {**_LIST_OF_STRINGS,
                            "description": "kind:ID for each linked record that is unavailable or not found."},
        "customerSummary": {"type": "string", "description": "What you tell the customer."},
    },
}

INSTRUCTIONS_TEMPLATE = """\
You are a customer support assistant for an online store. A customer asks about one of their orders.
Answer only from the records the tools return; never guess.

The current time is {clock}.

Gather the evidence first: the order, its payment, every warehouse reservation and every carrier
shipment it links to. Then assess it with these rules:
- An available carrier delivery observation takes precedence over an older order status.
- A SKU is delivered when available carrier observations with status "delivered" cover its ordered
  quantity. Every other ordered SKU is outstanding.
- Delay reasons (a set, for outstanding SKUs, from {reasons} only):
  stock_shortage when its reservation is backordered; carrier_delay when its available tracking is not
  delivered and reports an exception or a delay, or estimates a date after the promised date;
  payment_issue when the payment is not captured or authorized. Unavailable evidence is not a delay.
- deliveryEstimate: when every outstanding SKU has an available carrier estimate, the latest of them;
  otherwise null. A restock date is not a delivery estimate.
- missingEvidence: "kind:ID" (kind is order, payment, reservation or tracking) for every linked record
  that is unavailable or not found.

When you have the evidence, reply with exactly one JSON object and nothing else:
{{"deliveredSkus": [...], "outstandingSkus": [...], "delayReasons": [...],
"deliveryEstimate": "YYYY-MM-DD" or null, "missingEvidence": [...], "customerSummary": "..."}}
The customerSummary speaks to the customer in a few sentences: what has arrived, what has not and
why, and when the rest will arrive. State uncertainty as uncertainty: when evidence is unavailable,
say what you cannot confirm instead of guessing."""


def build_instructions(clock: str) -> str:
    """The shared instructions with the dataset's fixed clock."""
    return INSTRUCTIONS_TEMPLATE.format(clock=clock, reasons=" | ".join(DELAY_REASONS))


_FENCED = re.compile(r"^```(?:json)?\s*\n(.*)\n```$", re.S)


def parse_answer(text: str | None) -> tuple[dict[str, Any] | None, str | None]:
    """Parse a final answer into the contract's object; return (answer, None) or (None, why not).

    A single fenced ```json block is accepted because many models wrap JSON that way; anything
    else around the object makes the answer invalid.
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
    missing = [f for f in ANSWER_FIELDS if f not in value]
    if missing:
        return None, f"missing field(s): {', '.join(missing)}"
    for field in ("deliveredSkus", "outstandingSkus", "delayReasons", "missingEvidence"):
        if not isinstance(value[field], list) or not all(isinstance(v, str) for v in value[field]):
            return None, f"{field} must be a list of strings"
    estimate = value["deliveryEstimate"]
    if estimate is not None and not isinstance(estimate, str):
        return None, "deliveryEstimate must be a YYYY-MM-DD string or null"
    if not isinstance(value["customerSummary"], str):
        return None, "customerSummary must be a string"
    return {field: value[field] for field in ANSWER_FIELDS}, None
