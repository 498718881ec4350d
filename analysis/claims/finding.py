"""A finding: one claim in a customer summary that the evidence does not support."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# Fixed names: the site and the analysis group findings by them; MEANING explains each where kinds are listed.
KINDS = ("unsupported_delivery", "contradicted_outstanding", "unsupported_date", "unsupported_delay",
         "wrong_delay_reason", "unsupported_payment", "unwarranted_certainty", "unacknowledged_missing_evidence",
         "unmentioned_sku")
# High tells the customer something false; medium claims more than is known or hides a gap; low leaves an item out.
SEVERITY = {"unsupported_delivery": "high", "contradicted_outstanding": "high", "unsupported_date": "high",
            "unsupported_delay": "high", "wrong_delay_reason": "high", "unsupported_payment": "high",
            "unwarranted_certainty": "medium", "unacknowledged_missing_evidence": "medium", "unmentioned_sku": "low"}
MEANING = {
    "unsupported_delivery": "an item said to be delivered that no delivered carrier observation covers",
    "contradicted_outstanding": "an item said to be on its way or not arrived that the carrier shows delivered",
    "unsupported_date": "a date no record gives for that item (another item's, the promised or a restock date)",
    "unsupported_delay": "a delay where no backorder, carrier delay or payment problem exists",
    "wrong_delay_reason": "a delay blamed on the carrier or on stock when the item's records show another cause",
    "unsupported_payment": "a statement about the payment that the payment record does not support",
    "unwarranted_certainty": "more certainty than the evidence gives: lost, soon, shipped, backordered, definitely",
    "unacknowledged_missing_evidence": "a record that could not be retrieved, never acknowledged for its item",
    "unmentioned_sku": "an ordered item the summary never names",
}


@dataclass(frozen=True)
class Finding:
    """A claim held against the evidence; `start:end` slices `claim` out of the whole summary."""

    kind: str
    severity: str
    sentence: str
    claim: str
    evidence: str
    sku: str | None
    start: int
    end: int


def findings_to_json(f: Finding) -> dict[str, Any]:
    """The finding as a JSON object with camelCase keys."""
    return {"kind": f.kind, "severity": f.severity, "sentence": f.sentence, "claim": f.claim,
            "evidence": f.evidence, "sku": f.sku, "start": f.start, "end": f.end}
