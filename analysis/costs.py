"""What each conversation of a validated run cost in USD (prices from analysis.prices), and per design.

The comparison in money follows the headline's rule for tokens (analysis/headline.py): every design
but the baseline is compared with it, the medians and their difference over the (case, repetition)
pairs where both answered correctly, a cheaper wrong answer being no saving; a pair one of whose
conversations has no price is left out.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from itertools import groupby
from pathlib import Path

from analysis.db import RunDatabase
from analysis.prices import AppliedPrice, Cost, PriceBook, PriceSource, TokenUsage, TurnUsage, conversation_cost


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


def run_costs(db: RunDatabase, book: PriceBook, *, price_as: str | None = None) -> list[ConversationCost]:
    """Every finished conversation (live attempt) of a loaded run, priced response by response."""
    db.run_reading_script("load_turn_usage.sql")
    info = db.info
    provider, vendor = info["provider"], info["pricing_vendor"]
    model, base_url = info["model"] or "", info["base_url"]
    costs = []
    for (conversation_id, case_id, design), group in groupby(
            db.query_dicts("turn_usage_rows.sql"), key=lambda r: (r["conversation_id"], r["case_id"], r["design"])):
        rows = list(group)
        # A conversation without any model_response line has one row of nulls (load_turn_usage.sql).
        turns = [TurnUsage(TokenUsage(r["input_tokens"], r["output_tokens"], r["cached_tokens"], r["estimated"]),
                           r["model"], r["at"]) for r in rows if r["turn"] is not None]
        cost = conversation_cost(book, turns, model=model, provider=provider, base_url=base_url, price_as=price_as,
                                 vendor=vendor)
        dates = tuple(sorted({r["at"].date() for r in rows if r["at"] is not None}))
        costs.append(ConversationCost(conversation_id, case_id, design, cost, rows[0]["repetition"],
                                      bool(rows[0]["passed"]), dates))
    return costs


def costs_of_run(run_dir: Path, book: PriceBook, *, price_as: str | None = None) -> list[ConversationCost]:
    """run_costs for a run folder (not validated here: callers price runs that passed `wismo validate`)."""
    with RunDatabase(run_dir) as db:
        return run_costs(db, book, price_as=price_as)


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
    conversations: list[ConversationCost] = field(default_factory=list)
    # One per design but the baseline, in the manifest's order (RunInfo.others); empty with one design
    comparisons: list[MoneyComparison] = field(default_factory=list)
    baseline: str | None = None  # the design every other is compared with

    def compared(self) -> list[MoneyComparison]:
        """Every comparison with the baseline (`comparison` alone when only it was given)."""
        return self.comparisons or ([self.comparison] if self.comparison is not None else [])


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


def run_money(db: RunDatabase, book: PriceBook, *, price_as: str | None = None) -> RunMoney:
    """Price a loaded run (validated by the caller) and compare every design with the baseline, as the headline does."""
    costs = run_costs(db, book, price_as=price_as)
    designs = list(db.info["designs"])
    baseline: str | None = db.info["baseline"] or (designs[0] if designs else None)
    comparisons = [compare_costs(costs, baseline, other) for other in designs if baseline and other != baseline]
    days = sorted({d for c in costs if c.cost.known for d in c.dates})
    return RunMoney(
        run_id=db.info["run_id"], designs=design_costs(costs, designs),
        comparison=comparisons[0] if comparisons else None, comparisons=comparisons, baseline=baseline,
        prices=tuple(dict.fromkeys(p for c in costs for p in c.cost.prices)),
        priced_on=(days[0], days[-1]) if days else None, estimated=any(c.cost.estimated for c in costs),
        price_as=price_as,
        unknown_reasons=tuple(dict.fromkeys(c.cost.unknown_reason for c in costs
                                            if c.cost.usd is None and c.cost.unknown_reason)),
        conversations=costs)


def money_of_runs(run_dirs: list[Path], book: PriceBook, *, price_as: str | None = None) -> list[RunMoney]:
    """run_money for run folders (validated by the caller: summarize and build-site price only valid runs)."""
    result = []
    for run_dir in run_dirs:
        with RunDatabase(Path(run_dir)) as db:
            result.append(run_money(db, book, price_as=price_as))
    return result
