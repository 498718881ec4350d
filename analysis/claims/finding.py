"""A finding: one claim in a customer summary that the evidence does not support."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from analysis.model import CLAIM_KINDS as KINDS
from analysis.model import CLAIM_MEANING as MEANING
from analysis.model import CLAIM_SEVERITY as SEVERITY

__all__ = ["KINDS", "MEANING", "SEVERITY", "Finding", "findings_to_json"]


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
