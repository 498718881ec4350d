"""The review pages' dataclasses: one item per distinct text to review, its evidence laid out by record kind."""

from __future__ import annotations

from dataclasses import dataclass, field

from markupsafe import Markup

from wismo.sitegen.pages import Link, Piece, ReviewNote, UncheckedNote


@dataclass(frozen=True)
class ReviewMember:
    """One conversation a review item stands for."""

    conversation_id: str
    design: str
    repetition: int
    passed: bool
    url: str


@dataclass(frozen=True)
class RecordView:
    """A record the conversations gathered; `flags` names the claim-check findings that concern it."""

    anchor: str
    record_id: str
    fields: list[tuple[str, str]]  # name, value (nested values as compact JSON); the ID is `record_id`
    unavailable: bool
    flags: list[str]


@dataclass(frozen=True)
class RecordSection:
    """One kind of record (order, payment, reservations, tracking): always shown, even when none was gathered."""

    title: str
    records: list[RecordView]


@dataclass(frozen=True)
class MissingView:
    """A record looked for and not obtained."""

    anchor: str
    kind: str
    record_id: str
    why: str
    flags: list[str]


@dataclass(frozen=True)
class EvidenceView:
    """The evidence in one fixed layout, whatever the tools were, so blind review cannot read the design off it."""

    sections: list[RecordSection]
    missing: list[MissingView]
    unread: list[str]  # results that held no record (their wording may name a tool: hidden in blind review)


@dataclass(frozen=True)
class ReviewFinding:
    """A claim-check finding, with the sentence it is about and links to the records it concerns."""

    kind: str
    severity: str
    sentence: str
    evidence: str
    sku: str
    located: bool
    records: list[Link]


@dataclass(frozen=True)
class ReviewItem:
    """One text to review: a summary and its evidence, identical for every conversation it stands for."""

    index: int  # 0-based across all review pages; `number` is what people read
    number: int
    run_id: str
    run_label: str
    case_id: str
    case_url: str
    members: list[ReviewMember]
    passed: int  # members that passed
    pieces: list[Piece]
    findings: list[ReviewFinding]
    evidence: EvidenceView
    imported: list[ReviewNote]
    conflict: str  # from the imported reviews; review.js keeps it current with the browser's own verdicts
    unchecked: list[UncheckedNote] = field(default_factory=list)  # claims it could not check: never findings


@dataclass(frozen=True)
class ReviewPage:
    """review.html (and review-<n>.html when there are many texts to review)."""

    number: int
    pages: list[Link]
    previous: Link | None
    next: Link | None
    total: int  # texts to review on all pages
    conversations: int  # conversations they stand for
    range_note: str
    items: list[ReviewItem]
    data: Markup  # the items' identities, summaries and filter values as JSON, for review.js
    empty_reason: str = ""
