"""The answer contract: the JSON an answer must be, built from the fields a case asks, and its parser.

A case that asks every field of the default question gets the schema wismo has always sent; a narrow
question (e.g. only `paymentStatus`) gets a schema of just its fields plus `customerSummary`. Every
provider's answer is read by parse_answer, whatever the provider could enforce.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from core.domain.dataset import DELAY_REASONS, PAYMENT_MISSING, PAYMENT_STATUSES
from core.domain.fields import ASSESSMENT_FIELDS, DEFAULT_ASKS, LIST_FIELDS

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
    except RecursionError:
        return None, "not a JSON object: nested deeper than any JSON reader follows"
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
