"""What each conversation of a validated run cost in USD (prices from analysis.prices), and per design.

A loaded run is priced in SQL (run_money): analysis/price_table.py resolves the few prices it needs,
one per model and day, and analysis/sql/money_*.sql price every response, add them up per
conversation and per design and compare the designs, on the run's one load. design_costs and
compare_costs are the same rules over a list of costs, in Python.

The comparison in money follows the headline's rule for tokens (analysis/headline.py): every design
but the baseline is compared with it, the medians and their difference over the (case, repetition)
pairs where both answered correctly, a cheaper wrong answer being no saving; a pair one of whose
conversations has no price is left out.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

from analysis.db import RunDatabase
from analysis.price_table import PriceTable, price_run
from analysis.prices import (
    CACHED_NOTE,
    ESTIMATE_REASON,
    NO_TOKENS_REASON,
    AppliedPrice,
    Cost,
    PriceBook,
    PriceSource,
    unreported_note,
)


@dataclass(frozen=True)
class ConversationCost:
    """One finished conversation's cost."""

    conversation_id: str
    case_id: str
    design: str
    cost: Cost
    repetition: int = 0
    passed: bool = False
    dates: tuple[date, ...] = ()  # the days its responses were written: the day each price applied to


@dataclass(frozen=True)
class DesignCost:
    """One design's costs: the median over the priced conversations, and how many could not be priced."""

    design: str
    median_usd: Decimal | None  # None when no conversation could be priced
    priced: int
    unknown: int
    estimated: bool
    sources: tuple[PriceSource, ...]


@dataclass(frozen=True)
class MoneyComparison:
    """`other` against `baseline` in USD over the both-correct pairs where both conversations have a price."""

    baseline: str
    other: str
    correct_pairs: int  # both answered correctly
    priced_pairs: int  # ... and both have a price: the pairs the figures below are over
    baseline_median: Decimal | None
    other_median: Decimal | None
    difference: Decimal | None  # other_median - baseline_median (negative: other is cheaper)
    median_paired_difference: Decimal | None  # median over those pairs of (other - baseline)


@dataclass(frozen=True)
class RunMoney:
    """A run's costs: per design, the comparisons with the baseline, and every price applied (source, date)."""

    run_id: str
    designs: list[DesignCost]
    comparison: MoneyComparison | None  # the first of `comparisons`; None with fewer than two designs
    prices: tuple[AppliedPrice, ...]
    priced_on: tuple[date, date] | None  # first and last day of the responses priced
    estimated: bool  # the tokens are wismo's estimates (the scripted policy), not a provider's
    price_as: str | None
    unknown_reasons: tuple[str, ...]  # each distinct reason a conversation could not be priced
    # One per design but the baseline, in the manifest's order (RunInfo.others); empty with one design
    comparisons: list[MoneyComparison] = field(default_factory=list)
    baseline: str | None = None  # the design every other is compared with

    def compared(self) -> list[MoneyComparison]:
        """Every comparison with the baseline (`comparison` alone when only it was given)."""
        return self.comparisons or ([self.comparison] if self.comparison is not None else [])


@dataclass(frozen=True)
class Pricing:
    """What prices a run: genai-prices, overridden by a --prices file, and the model estimates are priced as."""

    book: PriceBook = field(default_factory=PriceBook)
    price_as: str | None = None

    def money(self, run_dirs: Sequence[Path]) -> list[RunMoney]:
        """Each run's money (the runs have passed validation), each run loaded on its own."""
        return money_of_runs(list(run_dirs), self.book, price_as=self.price_as)


def design_costs(costs: list[ConversationCost], designs: list[str]) -> list[DesignCost]:
    """Per design, in the given order: the median cost of the priced conversations and the count of unknown ones."""
    summaries = []
    for design in designs:
        mine = [c.cost for c in costs if c.design == design]
        known = [c.usd for c in mine if c.usd is not None]
        sources = tuple(dict.fromkeys(s for c in mine for s in c.sources))
        summaries.append(DesignCost(design, statistics.median(known) if known else None, len(known),
                                    len(mine) - len(known), any(c.estimated for c in mine), sources))
    return summaries


def _median(values: list[Decimal]) -> Decimal | None:
    return statistics.median(values) if values else None


def compare_costs(costs: list[ConversationCost], baseline: str, other: str) -> MoneyComparison:
    """The money comparison of two designs over the (case, repetition) pairs where both answered correctly."""
    by_pair = {(c.case_id, c.repetition, c.design): c for c in costs}
    correct = priced = 0
    base_usd: list[Decimal] = []
    other_usd: list[Decimal] = []
    for (case_id, repetition, design), first in by_pair.items():
        second = by_pair.get((case_id, repetition, other))
        if design != baseline or second is None or not (first.passed and second.passed):
            continue
        correct += 1
        if first.cost.usd is not None and second.cost.usd is not None:
            priced += 1
            base_usd.append(first.cost.usd)
            other_usd.append(second.cost.usd)
    b, o = _median(base_usd), _median(other_usd)
    return MoneyComparison(baseline, other, correct, priced, b, o, None if b is None or o is None else o - b,
                           _median([y - x for x, y in zip(base_usd, other_usd, strict=True)]))


def _reason(unknown: str | None, price_reason: str | None) -> str | None:
    """Why a conversation has no price, from conversation_costs' `unknown` (money_costs.sql)."""
    return {"estimate": ESTIMATE_REASON, "no tokens": NO_TOKENS_REASON}.get(unknown or "", price_reason)


def run_money(db: RunDatabase, book: PriceBook, *, price_as: str | None = None) -> RunMoney:
    """Price a loaded run (validated by the caller) in SQL and compare every design with the baseline."""
    return money_from_table(db, price_run(db, book, price_as), price_as)


def money_from_table(db: RunDatabase, table: PriceTable, price_as: str | None) -> RunMoney:
    """The RunMoney of a run priced by price_run (money_costs.sql has run)."""
    designs = list(db.info["designs"])
    baseline: str | None = db.info["baseline"] or (designs[0] if designs else None)
    first_use = db.query_dicts("money_price_order.sql")  # (design, price) by the first response it priced
    sources: dict[str, dict[PriceSource, None]] = {}
    for row in first_use:
        sources.setdefault(row["design"], {})[table.periods[row["price_id"]].applied.source] = None
    per_design = [DesignCost(row["design"], table.median(row["median"]), row["priced"], row["unknown"],
                             row["estimated"], tuple(sources.get(row["design"], {})))
                  for row in db.query_dicts("money_designs.sql")]
    comparisons = [_comparison(row, table) for row in db.query_dicts("money_comparisons.sql")] if baseline else []
    [run] = db.query_dicts("money_run.sql")
    reasons = (_reason(row["unknown"], row["price_reason"]) for row in db.query_dicts("money_reasons.sql"))
    return RunMoney(
        run_id=db.info["run_id"], designs=per_design, comparison=comparisons[0] if comparisons else None,
        comparisons=comparisons, baseline=baseline,
        prices=tuple(dict.fromkeys(table.periods[row["price_id"]].applied for row in first_use)),
        priced_on=(run["first_day"], run["last_day"]) if run["first_day"] is not None else None,
        estimated=run["estimated"], price_as=price_as,
        unknown_reasons=tuple(dict.fromkeys(reason for reason in reasons if reason)))


def _comparison(row: dict[str, Any], table: PriceTable) -> MoneyComparison:
    b, o = table.median(row["baseline_median"]), table.median(row["other_median"])
    return MoneyComparison(row["baseline"], row["other"], row["correct_pairs"], row["priced_pairs"], b, o,
                           None if b is None or o is None else o - b, table.median(row["paired_median"]))


def conversation_costs(db: RunDatabase, table: PriceTable, price_as: str | None) -> list[ConversationCost]:
    """Every finished conversation's cost (money_conversations.sql), in the order the conversations come."""
    model = db.info["model"] or ""
    costs = []
    for row in db.query_dicts("money_conversations.sql"):
        costs.append(ConversationCost(row["conversation_id"], row["case_id"], row["design"],
                                      _cost(row, table, model, price_as), row["repetition"], bool(row["passed"]),
                                      tuple(row["days"] or ())))
    return costs


def _cost(row: dict[str, Any], table: PriceTable, model: str, price_as: str | None) -> Cost:
    """One conversation's Cost, as analysis.prices.conversation_cost gives it."""
    estimated = bool(row["estimated"])
    priced_as = price_as if estimated else None
    if row["unknown"] == "estimate":
        return Cost(None, model, (), True, unknown_reason=ESTIMATE_REASON)
    if row["unknown"] == "no tokens":
        return Cost(None, priced_as or model, (), estimated, priced_as, NO_TOKENS_REASON)
    if row["unknown"] == "no price":
        return Cost(None, row["unpriced_model"], (), estimated, priced_as, row["price_reason"])
    periods = [table.periods[price_id] for price_id in row["price_ids"] or ()]
    applied = tuple(dict.fromkeys(p.applied for p in periods))
    notes = ((CACHED_NOTE,) if row["cached_unreported"] else ()) + \
        ((unreported_note(row["unreported"]),) if row["unreported"] else ())
    return Cost(table.usd(row["usd"]), ", ".join(dict.fromkeys(p.model for p in periods)),
                tuple(dict.fromkeys(a.source for a in applied)), estimated, priced_as, None, notes, applied)


def costs_of_run(run_dir: Path, book: PriceBook, *, price_as: str | None = None) -> list[ConversationCost]:
    """Every conversation's cost, for a run folder (not validated here: callers price runs that passed checks)."""
    with RunDatabase(run_dir) as db:
        return conversation_costs(db, price_run(db, book, price_as), price_as)


def money_of_runs(run_dirs: list[Path], book: PriceBook, *, price_as: str | None = None) -> list[RunMoney]:
    """run_money for run folders, each loaded on its own (summarize and build-site price on their one load)."""
    result = []
    for run_dir in run_dirs:
        with RunDatabase(Path(run_dir)) as db:
            result.append(run_money(db, book, price_as=price_as))
    return result
