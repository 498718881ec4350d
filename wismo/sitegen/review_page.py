"""The review pages: every customer summary beside the evidence its conversation gathered."""

from __future__ import annotations

import hashlib

from analysis.model import ConversationDetail
from wismo.sitegen import fmt
from wismo.sitegen.context import SiteData, case_url, conversation_url
from wismo.sitegen.conversation import call_views
from wismo.sitegen.marks import summary_pieces
from wismo.sitegen.pages import EvidenceItem, Link, ReviewItem, ReviewPage
from wismo.sitegen.reviews import EXPORT_VERSION, KEY_PREFIX

PAGE_SIZE = 100  # summaries per page, so one page stays quick to open at any number of conversations


def review_url(number: int) -> str:
    """Page 1 is review.html; later pages review-2.html, review-3.html, …"""
    return "review.html" if number == 1 else f"review-{number}.html"


def _order(data: SiteData) -> list[ConversationDetail]:
    case_index = {case_id: i for i, case_id in enumerate(data.cases)}
    run_index = {run_id: i for i, run_id in enumerate(data.valid_ids)}
    details = [d for run_id in data.valid_ids for d in data.details[run_id] if d.customer_summary is not None]
    # Within a (case, run, repetition) the designs come in a fixed pseudo-random order, so that position
    # does not give the design away in blind review.
    return sorted(details, key=lambda d: (case_index.get(d.case_id, len(case_index)), run_index[d.run_id],
                                          d.repetition, hashlib.sha256(d.conversation_id.encode()).hexdigest()))


def _item(data: SiteData, index: int, detail: ConversationDetail) -> ReviewItem:
    pieces, notes = summary_pieces(detail.customer_summary or "",
                                   data.conversation_findings(detail.run_id, detail.conversation_id))
    evidence = [EvidenceItem(view.name, view.arguments, view.result, view.is_error)
                for turn in call_views(data, detail) for view in turn]
    return ReviewItem(
        index=index, number=index + 1, run_id=detail.run_id, run_label=data.cards[detail.run_id].label,
        conversation_id=detail.conversation_id, design=detail.design, case_id=detail.case_id,
        case_url=case_url(detail.case_id), conversation_url=conversation_url(detail.run_id, detail.conversation_id),
        repetition=detail.repetition, passed=detail.passed, pieces=pieces, findings=notes, evidence=evidence)


def build_review_pages(data: SiteData) -> list[ReviewPage]:
    """The summaries of the valid runs, PAGE_SIZE per page; review.js finds their identities in `data`."""
    ordered = _order(data)
    chunks = [ordered[i:i + PAGE_SIZE] for i in range(0, len(ordered), PAGE_SIZE)] or [[]]
    links = [Link(str(n), review_url(n)) for n in range(1, len(chunks) + 1)]
    pages = []
    for number, chunk in enumerate(chunks, start=1):
        first = (number - 1) * PAGE_SIZE
        items = [_item(data, first + i, d) for i, d in enumerate(chunk)]
        payload = {"version": EXPORT_VERSION, "keyPrefix": KEY_PREFIX, "runs": data.valid_ids, "total": len(ordered),
                   "items": [{"index": it.index, "runId": it.run_id, "conversationId": it.conversation_id,
                              "design": it.design, "summary": d.customer_summary} for it, d in zip(items, chunk,
                                                                                                   strict=True)]}
        pages.append(ReviewPage(
            number=number, pages=links, previous=links[number - 2] if number > 1 else None,
            next=links[number] if number < len(links) else None, total=len(ordered),
            range_note=f"Summaries {first + 1}–{first + len(items)} of {len(ordered)}." if items else "",
            items=items, data=fmt.script_json(payload),
            empty_reason="" if ordered else "There is nothing to review: no run that passed validation holds a "
                                            "customer summary."))
    return pages
