"""wismo's analysis stage: DuckDB SQL over raw runs (analysis/sql/), returned as plain dataclasses.

Each run is loaded once (one pass over events.jsonl) and everything asked of it comes from that load:
validate_runs checks it; summarize_runs validates it first and raises RunValidationError, naming the
failing checks, for a run that fails; analyze_runs does both, a failing run being a result rather than an
error, and adds what the caller asks for: the money (priced in SQL on the same load), the crossover view,
and with details=True the conversations and claim findings the site shows (build-site uses it).
A missing run folder or an unreadable manifest raises core.errors.RunFormatError.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from pathlib import Path
from threading import Event
from typing import Any

import duckdb

from analysis import details as detail_queries
from analysis import metrics
from analysis.checks import run_info, validate
from analysis.costs import Pricing, RunMoney, money_from_table
from analysis.crossover import crossover_view
from analysis.db import DEFAULT_RESAMPLES, DEFAULT_SEED, RunDatabase
from analysis.errors import RunFormatError, RunValidationError
from analysis.model import (
    CompareSide,
    ConversationDetail,
    CrossoverView,
    RunAnalysis,
    RunInfo,
    RunSummary,
    RunValidation,
)
from analysis.price_table import price_run
from core.errors import WismoError

__all__ = ["Pricing", "RunAnalysis", "RunFormatError", "RunValidationError", "analyze_runs", "claim_findings",
           "conversation_details", "summarize_runs", "validate_runs"]


def validate_runs(run_dirs: Sequence[Path]) -> list[RunValidation]:
    """Every check on every run; a failing check is a result, not an exception."""
    validations = []
    for run_dir in run_dirs:
        with RunDatabase(Path(run_dir)) as db:
            validations.append(validate(db))
    return validations


def summarize_runs(run_dirs: Sequence[Path], *, bootstrap_resamples: int = DEFAULT_RESAMPLES,
                   seed: int = DEFAULT_SEED, paired: bool = True) -> list[RunSummary]:
    """The metrics of every run, each validated first; RunValidationError if one fails its checks.

    paired=False leaves RunSummary.paired None instead of building one row per (case, repetition).
    """
    analyses = analyze_runs(run_dirs, bootstrap_resamples=bootstrap_resamples, seed=seed, paired=paired,
                            require_valid=True)
    return [a.summary for a in analyses if a.summary is not None]


def analyze_runs(run_dirs: Sequence[Path], *, details: bool = False, paired: bool = True,
                 pricing: Pricing | None = None, crossover: bool = False, require_valid: bool = False,
                 compare_side: bool = False, bootstrap_resamples: int = DEFAULT_RESAMPLES,
                 seed: int = DEFAULT_SEED) -> list[RunAnalysis]:
    """Validate every run and summarize those that pass, loading each run once; the rest as asked.

    `pricing` prices the runs that passed (RunAnalysis.money) and `crossover` builds their crossover view.
    With details, a run that passed also gets its conversations and claim findings; a run that failed gets
    its conversations when they can be read (its check report tells why they may not) and no findings.
    require_valid raises RunValidationError at the first run that fails, before the next is read.
    paired=False leaves RunSummary.paired None, as summarize_runs does. compare_side reads what `wismo compare`
    reads of a run that passed (its conversations' rows, priced with `pricing`), on this same load.
    """
    analyses = []
    for run_dir in run_dirs:
        with RunDatabase(Path(run_dir), bootstrap_resamples=bootstrap_resamples, seed=seed) as db:
            analysis = analyze_run(db, details=details, paired=paired, pricing=pricing, crossover=crossover,
                                   require_valid=require_valid, compare=compare_side)
        analyses.append(analysis)
    return analyses


def analyze_run(db: RunDatabase, *, details: bool = False, paired: bool = True, pricing: Pricing | None = None,
                crossover: bool = False, require_valid: bool = False, compare: bool = False) -> RunAnalysis:
    """analyze_runs for one loaded run."""
    # The checks decide whether a run's figures are shown, not what they are: the figures (metrics, money, the
    # crossover view) are computed meanwhile on a second connection (each of these small queries keeps one core
    # busy) and dropped when a check fails; the conversations, when asked for, are read on a third meanwhile.
    stop = Event()
    with db.branch() as other, db.branch() as reader, ThreadPoolExecutor(2) as pool:
        figures = pool.submit(_figures, other, run_info(db), stop, paired=paired, pricing=pricing,
                              crossover=crossover, compare=compare)
        read = pool.submit(detail_queries.conversations, reader) if details else None
        validation = validate(db)
        if not validation.passed:
            stop.set()
            other.con.interrupt()
            wait([figures])  # its result, or the error a broken run may give it, is not used
            if require_valid:
                reader.con.interrupt()
                raise RunValidationError(validation)
            return RunAnalysis(validation, None, _conversations(db, read, passed=False) if read else None)
        summary, money, view, side = figures.result()
        conversations = _conversations(db, read, passed=True) if read else None
        return RunAnalysis(validation, summary, conversations, detail_queries.findings(db) if details else None,
                           money, view, detail_queries.unchecked(db) if details else None, side)


def _figures(db: RunDatabase, info: RunInfo, stop: Event, *, paired: bool, pricing: Pricing | None,
             crossover: bool, compare: bool) -> tuple[RunSummary, RunMoney | None, CrossoverView | None,
                                                      CompareSide | None]:
    """A run's metrics, then its money, crossover view and compare rows as asked; the rest left undone once
    `stop` is set."""
    summary = metrics.summarize(db, info, paired=paired)
    table = price_run(db, pricing.book, pricing.price_as) if pricing is not None and not stop.is_set() else None
    money = money_from_table(db, table, pricing.price_as) if pricing is not None and table is not None else None
    view = crossover_view(db, money) if crossover and not stop.is_set() else None
    side = None
    if compare and not stop.is_set():
        from analysis.compare import compare_side  # only build-site --compare-with reads it

        side = compare_side(db, table, pricing.price_as if pricing is not None else None)
    return summary, money, view, side


def _conversations(db: RunDatabase, read: Future[list[ConversationDetail]], *,
                   passed: bool) -> list[ConversationDetail] | None:
    """The conversations of a run (as `read` read them); for a run that failed validation, None when they cannot
    be read."""
    try:
        return read.result()
    except (WismoError, duckdb.Error) as exc:
        if passed:
            raise RunFormatError(f"{db.run_dir}: cannot read the conversations: {exc}") from None
        return None


def conversation_details(run_dir: Path) -> list[ConversationDetail]:
    """Every finished conversation (live attempt) turn by turn, for the conversation pages."""
    with RunDatabase(Path(run_dir)) as db:
        return detail_queries.conversations(db)


def claim_findings(run_dir: Path) -> dict[str, list[dict[str, Any]]]:
    """conversationId -> the claim findings on its customer summary (empty without claims.jsonl)."""
    with RunDatabase(Path(run_dir)) as db:
        return detail_queries.findings(db)
