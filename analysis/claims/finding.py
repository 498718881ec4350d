"""A finding: one claim in a customer summary that the evidence does not support."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# Fixed names: the site and the analysis group findings by them.
KINDS = ("unsupported_delivery", "contradicted_outstanding", "unsupported_date", "unsupported_delay",
         "unwarranted_certainty", "unacknowledged_missing_evidence", "unmentioned_sku")
# High tells the customer something false; medium claims more than is known or hides a gap; low leaves an item out.
SEVERITY = {"unsupported_delivery": "high", "contradicted_outstanding": "high", "unsupported_date": "high",
            "unsupported_delay": "high", "unwarranted_certainty": "medium",
            "unacknowledged_missing_evidence": "medium", "unmentioned_sku": "low"}


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
