"""From run folders to a site: run the analysis (checks first), fold reviews, build. Used by build-site and demo."""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from analysis import analyze_runs
from analysis.compare import compare_runs
from analysis.costs import Pricing
from analysis.model import ConversationDetail, RunAnalysis, RunSummary, RunValidation
from analysis.prices import PriceBook
from core.errors import WismoError
from core.runformat.read import read_manifest_json
from wismo.sitegen.build import build_site
from wismo.sitegen.comparison import ComparisonPage, comparison_page
from wismo.sitegen.mixing import check_mixing
from wismo.sitegen.output import check_output
from wismo.sitegen.reviews import ReviewTally, fold_reviews, load_reviews


@dataclass
class SiteBuild:
    """What a build did: the index page, every run's validation, and what happened to the imported reviews."""

    index: Path
    validations: list[RunValidation]
    reviews: ReviewTally | None
    mixed: list[str] = field(default_factory=list)
    summaries: list[RunSummary] = field(default_factory=list)  # the runs that passed validation (demo prints them)


def _started_at(manifest: dict[str, Any]) -> datetime:
    try:
        return datetime.fromisoformat(manifest["startedAt"])
    except (KeyError, TypeError, ValueError):
        return datetime.min.replace(tzinfo=None)


def newest_run(runs_dir: Path) -> Path:
    """The run folder whose manifest says it started last; folders without a readable manifest are skipped."""
    candidates = []
    if runs_dir.is_dir():
        for folder in sorted(p for p in runs_dir.iterdir() if p.is_dir()):
            try:
                # Only the start time is needed to pick the newest: the whole manifest is validated when
                # the chosen run is analysed (a 100,000-conversation plan is not validated per folder).
                manifest = read_manifest_json(folder)
            except WismoError:
                continue
            started = _started_at(manifest)
            candidates.append((started.timestamp() if started.tzinfo else float("-inf"), folder.name, folder))
    if not candidates:
        raise WismoError(f"no recorded run in {runs_dir}/; record one with `wismo record` (or `wismo demo`), "
                         "or name the run folder: wismo build-site RUN_DIR")
    return max(candidates)[2]


def build_from_runs(run_dirs: Sequence[Path], out_dir: Path, review_files: Sequence[Path] = (),
                    allow_mixed: bool = False, jobs: int | None = None, prices: PriceBook | None = None,
                    price_as: str | None = None, compare_with: Path | None = None) -> SiteBuild:
    """Validate every run, summarize the valid ones, gather their conversations, then build the site.

    `jobs` processes render the conversation pages (default: one per CPU). The valid runs are priced
    with `prices` (default: genai-prices alone), estimated tokens only as `price_as` (analysis.costs).
    `compare_with` names a baseline run the one run given is compared with (analysis.compare): compare.html.
    """
    with _collector_paused():
        return _build_from_runs(run_dirs, out_dir, review_files, allow_mixed, jobs, prices, price_as, compare_with)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The garbage collector off while the build makes what lives until its end (issue 21).

    The conversations, the page data and the charts are millions of objects that stay alive: each full
    collection walked all of them again, 2-3 s of this process's 9 s at 10,000 conversations. The pages it
    renders turn the collector back on while they do (wismo.sitegen.parallel.collecting).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _build_from_runs(run_dirs: Sequence[Path], out_dir: Path, review_files: Sequence[Path], allow_mixed: bool,
                     jobs: int | None, prices: PriceBook | None, price_as: str | None,
                     compare_with: Path | None) -> SiteBuild:
    # Bad review files and an output folder the build may not use fail before any work.
    entries = load_reviews(review_files) if review_files else None
    check_output(out_dir)
    if compare_with is not None and len(run_dirs) != 1:
        raise WismoError(f"--compare-with compares one candidate run with the baseline; {len(run_dirs)} runs given")
    # One load per run serves its checks, its figures, its money, its crossover view and its conversation
    # pages; no page shows the paired rows (one per case and repetition), so they are not built.
    # check_mixing below refuses runs that are not like for like before anything is written.
    # With --compare-with, what the comparison reads of the candidate is read on that load too.
    pricing = Pricing(prices or PriceBook(), price_as)
    analyses: list[RunAnalysis] = analyze_runs(list(run_dirs), details=True, paired=False, crossover=True,
                                               pricing=pricing, compare_side=compare_with is not None)
    validations = [a.validation for a in analyses]
    mixed = check_mixing([v.run for v in validations], allow_mixed)
    summaries = [a.summary for a in analyses if a.summary is not None]
    details: dict[str, list[ConversationDetail]] = {a.validation.run.run_id: a.details for a in analyses
                                                    if a.details is not None}
    findings = {a.validation.run.run_id: a.findings for a in analyses if a.findings is not None}
    unchecked = {a.validation.run.run_id: a.unchecked for a in analyses if a.unchecked is not None}
    money = {a.money.run_id: a.money for a in analyses if a.money is not None}
    crossover = [a.crossover for a in analyses if a.crossover is not None]
    shown = {s.run.run_id for s in summaries}
    # Folded once, over the summaries shown (those of runs that passed validation): the pages and the report.
    tally = fold_reviews(entries, {run_id: d for run_id, d in details.items() if run_id in shown}) \
        if entries is not None else None
    comparison = _comparison(compare_with, run_dirs[0], analyses[0], pricing) if compare_with is not None else None
    index = build_site(validations, summaries, details, out_dir, reviews=entries, findings_by_run=findings,
                       mixed=mixed, jobs=jobs, money=money, crossover=crossover, review_tally=tally,
                       comparison=comparison, unchecked_by_run=unchecked)
    return SiteBuild(index=index, validations=validations, reviews=tally, mixed=mixed, summaries=summaries)


def _comparison(baseline: Path, candidate: Path, analysis: RunAnalysis, pricing: Pricing) -> ComparisonPage | None:
    """The comparison page, for a candidate that passed validation (one that failed shows its check report only).

    The candidate's side was read on its one load (analyze_runs(compare_side=True)); only the baseline is loaded.
    """
    if not analysis.validation.passed or analysis.compare_side is None:
        return None
    return comparison_page(compare_runs(baseline, candidate, pricing=pricing, candidate=analysis.compare_side))
