"""A finding: one claim in a customer summary that the evidence does not support."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from analysis.model import CLAIM_KINDS as KINDS
from analysis.model import CLAIM_MEANING as MEANING
from analysis.model import CLAIM_SEVERITY as SEVERITY

__all__ = ["KINDS", "MEANING", "SEVERITY", "Finding", "Unchecked", "findings_to_json", "unchecked_to_json"]


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


@dataclass(frozen=True)
class Unchecked:
    """A claim the checker could not check: it did not resolve which item or which date the claim is about.

    Never a finding (precision first): it is counted and listed apart, with the kind it would have been.
    """

    kind: str
    sentence: str
    claim: str
    reason: str
    start: int
    end: int


def unchecked_to_json(u: Unchecked) -> dict[str, Any]:
    """The unchecked claim as a JSON object with camelCase keys."""
    return {"kind": u.kind, "sentence": u.sentence, "claim": u.claim, "reason": u.reason,
            "start": u.start, "end": u.end}
