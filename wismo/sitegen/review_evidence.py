"""A review item's evidence in its fixed layout, with the records each claim-check finding concerns flagged."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from analysis.evidence import GatheredEvidence
from wismo.sitegen.context import slug
from wismo.sitegen.pages import Link
from wismo.sitegen.review_views import EvidenceView, MissingView, RecordSection, RecordView, ReviewFinding

SECTIONS = (("order", "Order"), ("payment", "Payment"), ("reservation", "Reservations"), ("tracking", "Tracking"))


def _mentions(text: str, record_id: str) -> bool:
    # A whole ID only: "TRK-1005" must not match inside "TRK-1005-A".
    return re.search(rf"(?<![\w-]){re.escape(record_id)}(?![\w-])", text) is not None


def concerned_ids(finding: dict[str, Any], evidence: GatheredEvidence) -> list[tuple[str, str]]:
    """(kind, ID) of the records a finding is about: those its evidence text names, else those of its item."""
    text = str(finding.get("evidence") or "")
    refs = [(r.kind, r.record_id) for r in evidence.records] + [(m.kind, m.record_id) for m in evidence.missing]
    named = [ref for ref in dict.fromkeys(refs) if _mentions(text, ref[1])]
    if named:
        return named
    sku = finding.get("sku")
    return [(r.kind, r.record_id) for r in evidence.records if sku and r.sku == sku]


def field_text(value: Any) -> str:
    """A record field's value: text as it is, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)


def _anchor(prefix: str, kind: str, record_id: str, missing: bool = False) -> str:
    return f"{prefix}-{'missing-' if missing else ''}{kind}-{slug(record_id)}"


def evidence_view(evidence: GatheredEvidence, findings: Sequence[dict[str, Any]],
                  prefix: str) -> tuple[EvidenceView, dict[tuple[str, str], str]]:
    """The evidence by kind (every kind shown, even when empty), and each record's anchor for the findings' links."""
    flags: dict[tuple[str, str], list[str]] = {}
    for finding in findings:
        for ref in concerned_ids(finding, evidence):
            kind = str(finding.get("kind") or "finding")
            if kind not in flags.setdefault(ref, []):
                flags[ref].append(kind)
    anchors: dict[tuple[str, str], str] = {}
    sections = []
    for kind, title in SECTIONS:
        records = []
        for record in evidence.of_kind(kind):
            ref = (kind, record.record_id)
            anchors[ref] = _anchor(prefix, kind, record.record_id)
            unavailable = any(m.kind == kind and m.record_id == record.record_id for m in evidence.missing)
            # The ID heads the record; the other fields follow.
            fields = [(name, field_text(value)) for name, value in record.fields[1:]]
            records.append(RecordView(anchors[ref], record.record_id, fields, unavailable, flags.get(ref, [])))
        sections.append(RecordSection(title, records))
    missing = []
    for gap in evidence.missing:
        ref = (gap.kind, gap.record_id)
        anchor = _anchor(prefix, gap.kind, gap.record_id, missing=True)
        anchors.setdefault(ref, anchor)
        missing.append(MissingView(anchor, gap.kind, gap.record_id, gap.why, flags.get(ref, [])))
    return EvidenceView(sections, missing, list(evidence.unread)), anchors


def review_findings(findings: Sequence[dict[str, Any]], length: int, evidence: GatheredEvidence,
                    anchors: dict[tuple[str, str], str]) -> list[ReviewFinding]:
    """Each finding with its sentence and links to the records it concerns (by the evidence's anchors)."""
    views = []
    for finding in findings:
        start, end = finding.get("start"), finding.get("end")
        located = (isinstance(start, int) and isinstance(end, int) and not isinstance(start, bool)
                   and 0 <= start < end <= length)
        views.append(ReviewFinding(
            kind=str(finding.get("kind") or "finding"), severity=str(finding.get("severity") or ""),
            sentence=str(finding.get("sentence") or ""), evidence=str(finding.get("evidence") or ""),
            sku=str(finding.get("sku") or ""), located=located,
            records=[Link(record_id, f"#{anchors[(kind, record_id)]}")
                     for kind, record_id in concerned_ids(finding, evidence) if (kind, record_id) in anchors]))
    return views
