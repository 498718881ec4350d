"""What every page builder shares: the runs (valid or not), their conversations by case, and the site's URLs."""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from analysis.model import ConversationDetail, RunInfo, RunSummary, RunValidation
from wismo.sitegen import fmt
from wismo.sitegen.errors import SiteError
from wismo.sitegen.pages import ReviewCounts, RunCard
from wismo.sitegen.reviews import ReviewTally
from wismo.sitegen.run_names import budget_words, run_names

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def slug(text: str) -> str:
    """A file name for an ID: kept as is when safe, else cleaned and suffixed with a hash so two IDs never collide."""
    cleaned = _UNSAFE.sub("-", text).strip(".-")[:80]
    if cleaned == text and cleaned:
        return cleaned
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{cleaned or 'id'}-{digest}"


def case_url(case_id: str) -> str:
    """The case page, relative to the site root."""
    return f"cases/{slug(case_id)}.html"


def conversation_url(run_id: str, conversation_id: str) -> str:
    """The conversation page, relative to the site root."""
    return f"conversations/{slug(run_id)}/{slug(conversation_id)}.html"


def compare_anchor(run_slug: str, repetition: int) -> str:
    """The id of one repetition's side-by-side view of the designs on a case page."""
    return f"compare-{run_slug}-r{repetition}"


def check_url(run_id: str) -> str:
    """The run's section of the check report."""
    return f"checks.html#run-{slug(run_id)}"


def fault_badge(summary: RunSummary) -> str:
    """A valid run's infrastructure faults in a few words ("" when it had none)."""
    faults = summary.faults
    if not faults.total:
        return ""
    designs = summary.run.designs
    counts = ", ".join(f"{d} {n}" for d, n in faults.per_design(designs).items())
    return (f"{faults.total} conversation{'s' * (faults.total != 1)} ended in an infrastructure fault ({counts})"
            + ("; unequal between the designs: the comparison is biased" if faults.unequal(designs) else ""))


def names_baseline(info: RunInfo) -> bool:
    """Whether a run's pages must say which design is its baseline, the one every other is compared with.

    With two designs, the first the baseline, every comparison's "focused − granular" already says it (and
    such a run's pages read as they did before a run could hold more designs); with three or more designs, or
    a baseline that is not the first, the reader is told.
    """
    return len(info.designs) > 2 or (len(info.designs) == 2 and info.baseline != info.designs[0])


def run_card(run: RunInfo, validation: RunValidation, summary: RunSummary | None = None) -> RunCard:
    """How every page names a run; the summary's warnings when there is one."""
    provider = fmt.provider_text(run.provider_label or run.provider, run.is_language_model)
    return RunCard(
        run_id=run.run_id, slug=slug(run.run_id), provider=provider, model=run.model,
        is_language_model=run.is_language_model,
        label=f"{run.model} · {provider}",
        dataset=f"{run.dataset_name} ({run.dataset_hash.removeprefix('sha256:')[:12]})",
        token_counts=run.token_counts, started_at=fmt.timestamp(run.started_at), repetitions=run.repetitions,
        valid=validation.passed, check_url=check_url(run.run_id),
        failed_checks=[check.name for check in validation.checks if not check.passed],
        requests=run.request_shape(), warnings=tuple(summary.warnings) if summary else (),
        budgets=budget_words(run))


@dataclass
class SiteData:
    """The analysis results, indexed; only runs that passed validation feed figures into pages."""

    validations: list[RunValidation]
    summaries: dict[str, RunSummary]
    details: dict[str, list[ConversationDetail]]
    findings: dict[str, dict[str, list[dict[str, Any]]]]
    reviews: ReviewTally | None
    # run -> conversationId -> claims the checker could not check: listed apart, never counted as findings
    unchecked: dict[str, dict[str, list[dict[str, Any]]]] = field(default_factory=dict)
    cards: dict[str, RunCard] = field(default_factory=dict)
    valid_ids: list[str] = field(default_factory=list)
    invalid_ids: list[str] = field(default_factory=list)
    cases: dict[str, dict[str, Any]] = field(default_factory=dict)  # caseId -> {orderId, question, expected}
    by_case: dict[tuple[str, str, str], list[ConversationDetail]] = field(default_factory=dict)

    @classmethod
    def create(cls, validations: Sequence[RunValidation], summaries: Sequence[RunSummary],
               details_by_run: Mapping[str, Sequence[ConversationDetail]],
               findings_by_run: Mapping[str, Mapping[str, list[dict[str, Any]]]] | None,
               reviews: ReviewTally | None,
               unchecked_by_run: Mapping[str, Mapping[str, list[dict[str, Any]]]] | None = None) -> SiteData:
        """Index the analysis results; a run without a passing validation gets a card but no figures."""
        ids = [v.run.run_id for v in validations]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise SiteError(f"run id(s) {', '.join(duplicates)} appear more than once; give each run its own id")
        summary_by_id = {s.run.run_id: s for s in summaries}
        data = cls(validations=list(validations), summaries={}, details={}, reviews=reviews,
                   findings={run: {c: list(f) for c, f in by_conv.items()}
                             for run, by_conv in (findings_by_run or {}).items()},
                   unchecked={run: {c: list(u) for c, u in by_conv.items()}
                              for run, by_conv in (unchecked_by_run or {}).items()})
        slugs: dict[str, str] = {}
        for validation in validations:
            run_id = validation.run.run_id
            card = run_card(validation.run, validation,
                            summary_by_id.get(run_id) if validation.passed else None)
            if card.slug in slugs:
                raise SiteError(f"runs {slugs[card.slug]!r} and {run_id!r} would share a folder; rename one")
            slugs[card.slug] = run_id
            data.cards[run_id] = card
            data.details[run_id] = sorted(details_by_run.get(run_id, []),
                                          key=lambda d: (d.case_id, d.repetition, d.design))
            # A summary is shown only for a run whose every check passed.
            if validation.passed and run_id in summary_by_id:
                data.valid_ids.append(run_id)
                data.summaries[run_id] = summary_by_id[run_id]
                data.cards[run_id] = replace(card, faults=fault_badge(summary_by_id[run_id]))
            else:
                data.invalid_ids.append(run_id)
        # Named once, so each page tells apart runs that share a model: the runs shown with figures (side by
        # side in every table) among themselves; a run not shown by what tells it from all the others.
        shown = run_names([v.run for v in validations if v.run.run_id in data.summaries])
        for run_id, name in {**run_names([v.run for v in validations]), **shown}.items():
            data.cards[run_id] = replace(data.cards[run_id], label=name.label, short=name.short, differs=name.differs)
        for run_id in data.valid_ids:
            info = data.summaries[run_id].run
            for case in info.cases:
                data.cases.setdefault(case["caseId"], case)
            groups: dict[tuple[str, str, str], list[ConversationDetail]] = defaultdict(list)
            for detail in data.details[run_id]:
                groups[(run_id, detail.case_id, detail.design)].append(detail)
            data.by_case.update(groups)
        return data

    def run_info(self, run_id: str) -> RunInfo:
        """The manifest of a run on the site, valid or not."""
        return next(v.run for v in self.validations if v.run.run_id == run_id)

    def designs(self) -> list[str]:
        """Every design of the valid runs, in the order they first appear: what the charts' colours follow."""
        return list(dict.fromkeys(d for run_id in self.valid_ids for d in self.summaries[run_id].run.designs))

    def columns(self) -> list[tuple[str, str]]:
        """(run, design) pairs side by side on case pages: every valid run's designs in its own order."""
        return [(run_id, design) for run_id in self.valid_ids for design in self.summaries[run_id].run.designs]

    def column_head(self, run_id: str, design: str) -> tuple[str, str]:
        """A column's heading: the design, and (when the site holds several runs) the run's model and what differs."""
        return design, "" if len(self.valid_ids) == 1 else self.cards[run_id].short

    def conversation_findings(self, run_id: str, conversation_id: str) -> list[dict[str, Any]]:
        """Claim-check findings for one conversation's summary (none when the claim check did not run)."""
        return self.findings.get(run_id, {}).get(conversation_id, [])

    def conversation_unchecked(self, run_id: str, conversation_id: str) -> list[dict[str, Any]]:
        """The claims the checker could not check on one conversation's summary (never findings)."""
        return self.unchecked.get(run_id, {}).get(conversation_id, [])

    def verdict(self, run_id: str, conversation_id: str) -> str | None:
        """The imported verdict for a conversation, `stale` when its summary changed since the review."""
        if self.reviews is None:
            return None
        entry = self.reviews.entries.get((run_id, conversation_id))
        if entry is not None and entry.verdict is not None:
            return fmt.VERDICT_LABELS[entry.verdict]
        if entry is None and (run_id, conversation_id) in self.reviews.stale:
            return "stale"
        return None


def review_counts(data: SiteData, run_id: str, design: str, case_id: str | None = None) -> ReviewCounts | None:
    """Imported verdicts for one run × design (optionally one case); None when no reviews were imported."""
    if data.reviews is None:
        return None
    tally = {"justified": 0, "not_justified": 0, "unsure": 0, "stale": 0}
    summaries = 0
    for detail in data.details.get(run_id, []):
        if detail.design != design or (case_id is not None and detail.case_id != case_id):
            continue
        if detail.customer_summary is None:
            continue
        summaries += 1
        key = (run_id, detail.conversation_id)
        entry = data.reviews.entries.get(key)
        if entry is not None and entry.verdict is not None:
            tally[entry.verdict] += 1
        elif entry is None and key in data.reviews.stale:
            tally["stale"] += 1
    return ReviewCounts(design=design, summaries=summaries, **tally)
