"""wismo's analysis stage: DuckDB SQL over raw runs (analysis/sql/), returned as plain dataclasses.

validate_runs and summarize_runs load each run once (one pass over events.jsonl); summarize_runs
validates first and raises RunValidationError, naming the failing checks, for a run that fails.
A missing run folder or an unreadable manifest raises recorder.errors.RunFormatError.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from analysis import details, metrics
from analysis.checks import validate
from analysis.db import DEFAULT_RESAMPLES, DEFAULT_SEED, RunDatabase
from analysis.errors import RunFormatError, RunValidationError
from analysis.model import ConversationDetail, RunSummary, RunValidation

__all__ = ["RunFormatError", "RunValidationError", "claim_findings", "conversation_details", "summarize_runs",
           "validate_runs"]


def validate_runs(run_dirs: Sequence[Path]) -> list[RunValidation]:
    """Every check on every run; a failing check is a result, not an exception."""
    validations = []
    for run_dir in run_dirs:
        with RunDatabase(Path(run_dir)) as db:
            validations.append(validate(db))
    return validations


def summarize_runs(run_dirs: Sequence[Path], *, bootstrap_resamples: int = DEFAULT_RESAMPLES,
                   seed: int = DEFAULT_SEED) -> list[RunSummary]:
    """The metrics of every run, each validated first; RunValidationError if one fails its checks."""
    summaries = []
    for run_dir in run_dirs:
        with RunDatabase(Path(run_dir), bootstrap_resamples=bootstrap_resamples, seed=seed) as db:
            validation = validate(db)
            if not validation.passed:
                raise RunValidationError(validation)
            summaries.append(metrics.summarize(db, validation.run))
    return summaries


def conversation_details(run_dir: Path) -> list[ConversationDetail]:
    """Every finished conversation (live attempts only) turn by turn, for the conversation pages."""
    with RunDatabase(Path(run_dir)) as db:
        return details.conversations(db)


def claim_findings(run_dir: Path) -> dict[str, list[dict[str, Any]]]:
    """conversationId -> the claim findings on its customer summary (empty without claims.jsonl)."""
    with RunDatabase(Path(run_dir)) as db:
        return details.findings(db)
