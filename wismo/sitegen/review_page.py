"""The review pages: each distinct customer summary once, beside the evidence its conversations gathered.

Conversations of one run and case whose summary, gathered evidence and claim findings are identical
form one review item: one verdict applies to all of them (review.js stores it for each conversation).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from analysis.evidence import GatheredEvidence, gathered_evidence
from analysis.model import ConversationDetail
from wismo.sitegen import fmt
from wismo.sitegen.context import SiteData, case_url, conversation_url
from wismo.sitegen.marks import summary_pieces, unchecked_notes
from wismo.sitegen.pages import Link
from wismo.sitegen.review_evidence import evidence_view, review_findings
from wismo.sitegen.review_views import ReviewItem, ReviewMember, ReviewPage
from wismo.sitegen.reviews import EXPORT_VERSION, KEY_PREFIX, review_key, summary_sha
from wismo.sitegen.verdicts import conflict_text, review_notes

PAGE_SIZE = 100  # texts to review per page, so one page stays quick to open at any number of conversations


def review_url(number: int) -> str:
    """Page 1 is review.html; later pages review-2.html, review-3.html, …"""
    return "review.html" if number == 1 else f"review-{number}.html"


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class _Group:
    """Conversations sharing a run, a case, a summary, the gathered evidence and the claim findings."""

    def __init__(self, first: ConversationDetail, evidence: GatheredEvidence, findings: list[dict[str, Any]]):
        self.members = [first]
        self.evidence, self.findings = evidence, findings

    @property
    def first(self) -> ConversationDetail:
        return self.members[0]

    def sort_key(self, case_index: dict[str, int], run_index: dict[str, int]) -> tuple[int, int, int, str]:
        # A fixed pseudo-random order within a case and run, so that position does not give a design away.
        first = self.first
        return (case_index.get(first.case_id, len(case_index)), run_index[first.run_id],
                min(m.repetition for m in self.members), _hash(first.conversation_id))


def review_groups(data: SiteData) -> list[_Group]:
    """Every summary of the valid runs, grouped, in the order the review pages show them."""
    groups: dict[tuple[str, ...], _Group] = {}
    for run_id in data.valid_ids:
        for detail in data.details[run_id]:
            if detail.customer_summary is None:
                continue
            evidence = gathered_evidence(detail.turn_details)
            findings = data.conversation_findings(run_id, detail.conversation_id)
            key = (run_id, detail.case_id, detail.customer_summary, evidence.identity,
                   json.dumps(findings, sort_keys=True, default=str))
            if key in groups:
                groups[key].members.append(detail)
            else:
                groups[key] = _Group(detail, evidence, findings)
    case_index = {case_id: i for i, case_id in enumerate(data.cases)}
    run_index = {run_id: i for i, run_id in enumerate(data.valid_ids)}
    ordered = sorted(groups.values(), key=lambda g: g.sort_key(case_index, run_index))
    for group in ordered:
        group.members.sort(key=lambda d: (d.repetition, _hash(d.conversation_id)))
    return ordered


def _item(data: SiteData, index: int, group: _Group) -> ReviewItem:
    first = group.first
    prefix = f"item-{index}"
    pieces, _ = summary_pieces(first.customer_summary or "", group.findings)
    evidence, anchors = evidence_view(group.evidence, group.findings, prefix)
    return ReviewItem(
        index=index, number=index + 1, run_id=first.run_id, run_label=data.cards[first.run_id].label,
        case_id=first.case_id, case_url=case_url(first.case_id),
        members=[ReviewMember(d.conversation_id, d.design, d.repetition, d.passed,
                              conversation_url(d.run_id, d.conversation_id)) for d in group.members],
        passed=sum(d.passed for d in group.members), pieces=pieces,
        findings=review_findings(group.findings, len(first.customer_summary or ""), group.evidence, anchors),
        evidence=evidence, imported=review_notes(data, group.members),
        conflict=conflict_text(data, first.run_id, first.case_id, first.customer_summary),
        unchecked=unchecked_notes(data.conversation_unchecked(first.run_id, first.conversation_id)))


def _kinds(group: _Group) -> list[str]:
    return sorted({str(f.get("kind") or "finding") for f in group.findings})


def _filters(data: SiteData, groups: list[_Group]) -> dict[str, Any]:
    """The values each filter offers, taken from the data (claim kinds included), the same on every page."""
    designs = list(dict.fromkeys(d for run_id in data.valid_ids for d in data.summaries[run_id].run.designs))
    return {"designs": designs, "runs": [{"id": r, "label": data.cards[r].label} for r in data.valid_ids],
            "cases": list(dict.fromkeys(g.first.case_id for g in groups)),
            "kinds": sorted({k for g in groups for k in _kinds(g)})}


def _siblings(groups: list[_Group]) -> dict[int, list[int]]:
    """Items of the same run and case with the same summary but other evidence: their verdicts should agree."""
    by_text: dict[tuple[str, str, str], list[int]] = {}
    for index, group in enumerate(groups):
        first = group.first
        by_text.setdefault((first.run_id, first.case_id, first.customer_summary or ""), []).append(index)
    return {i: [j for j in same if j != i] for same in by_text.values() if len(same) > 1 for i in same}


def _payload(index: int, group: _Group, groups: list[_Group], siblings: dict[int, list[int]]) -> dict[str, Any]:
    first = group.first
    summary = first.customer_summary or ""
    return {
        "index": index, "runId": first.run_id, "caseId": first.case_id, "summary": summary, "kinds": _kinds(group),
        "members": [{"conversationId": d.conversation_id, "design": d.design, "repetition": d.repetition,
                     "passed": d.passed} for d in group.members],
        # The other items' keys are computed here (review.js computes its own items' keys from their text).
        "siblings": [{"index": j, "number": j + 1, "url": review_url(j // PAGE_SIZE + 1),
                      "keys": [review_key(d.run_id, d.conversation_id, summary_sha(summary))
                               for d in groups[j].members]} for j in siblings.get(index, [])]}


def build_review_pages(data: SiteData) -> list[ReviewPage]:
    """The review items of the valid runs, PAGE_SIZE per page; review.js finds their identities in `data`."""
    groups = review_groups(data)
    conversations = sum(len(g.members) for g in groups)
    chunks = [groups[i:i + PAGE_SIZE] for i in range(0, len(groups), PAGE_SIZE)] or [[]]
    links = [Link(str(n), review_url(n)) for n in range(1, len(chunks) + 1)]
    filters = _filters(data, groups)
    siblings = _siblings(groups)
    pages = []
    for number, chunk in enumerate(chunks, start=1):
        first = (number - 1) * PAGE_SIZE
        items = [_item(data, first + i, g) for i, g in enumerate(chunk)]
        payload = {"version": EXPORT_VERSION, "keyPrefix": KEY_PREFIX, "runs": data.valid_ids,
                   "total": len(groups), "conversations": conversations, "page": number, "pages": len(chunks),
                   "filters": filters,
                   "items": [_payload(first + i, g, groups, siblings) for i, g in enumerate(chunk)]}
        range_note = ""
        if items:
            shown = sum(len(g.members) for g in chunk)
            range_note = (f"Texts {first + 1}–{first + len(items)} of {len(groups)} "
                          f"({shown} of {conversations} conversations: identical texts with identical evidence "
                          "are reviewed once).")
        pages.append(ReviewPage(
            number=number, pages=links, previous=links[number - 2] if number > 1 else None,
            next=links[number] if number < len(links) else None, total=len(groups), conversations=conversations,
            range_note=range_note, items=items, data=fmt.script_json(payload),
            empty_reason="" if groups else "There is nothing to review: no run that passed validation holds a "
                                           "customer summary."))
    return pages
