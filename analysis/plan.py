"""`wismo plan RUN`: how many repetitions a study needs to see a difference of a given size, and what it costs.

From a pilot run, per design pair and figure (plan_variance.sql): the paired differences' variance between
repetitions of the same case, pooled over the cases. The cases are the dataset's and fixed, so the mean
difference over C cases × R repetitions has variance s² / (C R), and a two-sided test at confidence 1 - α
finds a true difference Δ with probability `power` once

    R >= (z(1 - α/2) + z(power))² s² / (C Δ²).

Δ is --pass-rate-difference for the pass rate (a share) and --difference × the first design's mean for
every other figure (a relative difference). A pilot whose repetitions never differ is deterministic (or
too small to show any noise): one repetition shows any difference exactly, and the plan says so; a pilot
with one repetition per case cannot tell the noise at all. The cost is the study's conversations times
the pilot's per-conversation means: requests (turns), total tokens, wall time at the pilot's own rate
(its recorded span over its conversations) and money where priced.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from statistics import NormalDist

from analysis.checks import run_info, validate
from analysis.compare_model import FIGURES
from analysis.costs import Pricing, conversation_costs
from analysis.db import RunDatabase
from analysis.errors import RunValidationError
from analysis.price_table import price_run

DETERMINISTIC, TOO_SMALL, ESTIMATED = "deterministic", "too small", "estimated"


@dataclass(frozen=True)
class StudyCost:
    """What a study of `repetitions` would record: conversations, requests, tokens, time, money (None: unpriced)."""

    conversations: int
    requests: float
    total_tokens: float
    seconds: float
    usd: float | None


@dataclass(frozen=True)
class PlanRow:
    """One design pair and figure: the repetitions needed to see the difference asked for, and the cost."""

    first: str  # the baseline design (or the design, for a rerun)
    second: str
    rerun: bool  # True: the same design in two runs (what `wismo compare` pairs)
    figure: str  # a key of analysis.compare_model.FIGURES
    cases: int
    pilot_repetitions: int  # the fewest any case had in the pilot
    baseline_mean: float
    pilot_difference: float  # the pilot's mean paired difference (0 for a rerun)
    noise_sd: float | None  # sqrt of the pooled variance; None when the pilot cannot tell
    detect: float  # the difference asked for, in the figure's units per conversation
    state: str  # ESTIMATED, DETERMINISTIC or TOO_SMALL
    repetitions: int | None  # None unless ESTIMATED
    cost: StudyCost | None

    @property
    def label(self) -> str:
        """The figure's name in words."""
        return FIGURES[self.figure][0]

    @property
    def pair(self) -> str:
        """'granular → focused', or 'middle, rerun'."""
        return f"{self.first}, rerun" if self.rerun else f"{self.first} → {self.second}"


@dataclass(frozen=True)
class Plan:
    """The plan for one pilot run."""

    run_id: str
    run_dir: Path
    is_language_model: bool
    cases: int
    difference: float
    pass_rate_difference: float
    confidence: float
    power: float
    seconds_per_conversation: float
    usd_per_conversation: float | None
    rows: list[PlanRow]


def repetitions_needed(variance: float, cases: int, detect: float, confidence: float, power: float) -> int:
    """The smallest R with (z(1 - α/2) + z(power))² variance / (cases R) <= detect²."""
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2) + NormalDist().inv_cdf(power)
    return max(1, math.ceil(z * z * variance / (cases * detect * detect)))


def plan_run(run_dir: Path, *, difference: float = 0.10, pass_rate_difference: float = 0.10,
             confidence: float = 0.95, power: float = 0.80, pricing: Pricing | None = None) -> Plan:
    """The plan from a validated pilot run; RunValidationError when it fails its checks."""
    with RunDatabase(Path(run_dir)) as db:
        validation = validate(db)
        if not validation.passed:
            raise RunValidationError(validation)
        info = run_info(db)
        rows = db.query_dicts("plan_variance.sql")
        conversations = len(db.query_dicts("compare_rows.sql"))
        usd = None
        if pricing is not None:
            table = price_run(db, pricing.book, pricing.price_as)
            known = [float(c.cost.usd) for c in conversation_costs(db, table, pricing.price_as)
                     if c.cost.usd is not None]
            usd = sum(known) / len(known) if known else None
    per_conversation = _pilot_rate(info.started_at, info.finished_at, conversations)
    plan_rows = []
    for row in rows:
        detect = pass_rate_difference if row["figure"] == "passed" else difference * abs(row["baseline_mean"] or 0)
        variance = row["pooled_variance"]
        if variance is None:
            state, needed = TOO_SMALL, None
        elif variance == 0 or detect == 0:
            state, needed = DETERMINISTIC, None
        else:
            state, needed = ESTIMATED, repetitions_needed(variance, row["cases"], detect, confidence, power)
        cost = None
        if needed is not None:
            count = row["cases"] * needed * 2  # two designs, or one design in two runs
            seconds = per_conversation if per_conversation is not None else (row["elapsed_ms"] or 0) / 1000
            cost = StudyCost(count, count * row["turns"], count * (row["total_tokens"] or 0), count * seconds,
                             None if usd is None else count * usd)
        plan_rows.append(PlanRow(
            first=row["first"], second=row["second"], rerun=row["rerun"], figure=row["figure"], cases=row["cases"],
            pilot_repetitions=row["fewest_repetitions"], baseline_mean=row["baseline_mean"],
            pilot_difference=row["mean_difference"],
            noise_sd=None if variance is None else math.sqrt(variance), detect=detect, state=state,
            repetitions=needed, cost=cost))
    return Plan(info.run_id, info.run_dir, info.is_language_model, len(info.cases), difference, pass_rate_difference,
                confidence, power, per_conversation or 0.0, usd, plan_rows)


def _pilot_rate(started: str | None, finished: str | None, conversations: int) -> float | None:
    """Seconds of the pilot's own wall time per conversation (its concurrency included); None when unknown."""
    if not started or not finished or not conversations:
        return None
    try:
        span = (datetime.fromisoformat(finished) - datetime.fromisoformat(started)).total_seconds()
    except ValueError:
        return None
    return span / conversations if span > 0 else None
