"""wismo's analysis stage: DuckDB SQL over raw runs (analysis/sql/), returned as plain dataclasses.

validate_runs and summarize_runs load each run once (one pass over events.jsonl); summarize_runs
validates first and raises RunValidationError, naming the failing checks, for a run that fails.
analyze_runs does both on one load, a failing run being a result rather than an error, and with
details=True also reads the conversations and claim findings the site shows (build-site uses it).
A missing run folder or an unreadable manifest raises core.errors.RunFormatError.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb

from analysis import details as detail_queries
from analysis import metrics
from analysis.checks import validate
from analysis.db import DEFAULT_RESAMPLES, DEFAULT_SEED, RunDatabase
from analysis.errors import RunFormatError, RunValidationError
from analysis.model import ConversationDetail, RunAnalysis, RunSummary, RunValidation
from core.errors import WismoError

__all__ = ["RunAnalysis", "RunFormatError", "RunValidationError", "analyze_runs", "claim_findings",
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
    summaries = []
    for run_dir in run_dirs:
        with RunDatabase(Path(run_dir), bootstrap_resamples=bootstrap_resamples, seed=seed) as db:
            validation = validate(db)
            if not validation.passed:
                raise RunValidationError(validation)
            summaries.append(metrics.summarize(db, validation.run, paired=paired))
    return summaries


def analyze_runs(run_dirs: Sequence[Path], *, details: bool = False, paired: bool = True,
                 bootstrap_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> list[RunAnalysis]:
    """Validate every run and summarize those that pass, loading each run once; details adds its conversations.

    With details, a run that passed also gets its conversations and claim findings; a run that failed gets its
    conversations when they can be read (its check report tells why they may not) and no findings.
    paired=False leaves RunSummary.paired None, as summarize_runs does.
    """
    analyses = []
    for run_dir in run_dirs:
        with RunDatabase(Path(run_dir), bootstrap_resamples=bootstrap_resamples, seed=seed) as db:
            validation = validate(db)
            summary = metrics.summarize(db, validation.run, paired=paired) if validation.passed else None
            conversations = findings = None
            if details:
                try:
                    conversations = detail_queries.conversations(db)
                except (WismoError, duckdb.Error) as exc:
                    if validation.passed:
                        raise RunFormatError(f"{db.run_dir}: cannot read the conversations: {exc}") from None
                if validation.passed:
                    findings = detail_queries.findings(db)
            analyses.append(RunAnalysis(validation, summary, conversations, findings))
    return analyses


def conversation_details(run_dir: Path) -> list[ConversationDetail]:
    """Every finished conversation (live attempt) turn by turn, for the conversation pages."""
    with RunDatabase(Path(run_dir)) as db:
        return detail_queries.conversations(db)


def claim_findings(run_dir: Path) -> dict[str, list[dict[str, Any]]]:
    """conversationId -> the claim findings on its customer summary (empty without claims.jsonl)."""
    with RunDatabase(Path(run_dir)) as db:
        return detail_queries.findings(db)
