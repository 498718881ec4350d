"""What each conversation of a validated run cost in USD (prices from analysis.prices), and per design."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from decimal import Decimal
from itertools import groupby
from pathlib import Path

from analysis.db import RunDatabase
from analysis.prices import Cost, PriceBook, PriceSource, TokenUsage, TurnUsage, conversation_cost


@dataclass(frozen=True)
class ConversationCost:
    """One finished conversation's cost."""

    conversation_id: str
    case_id: str
    design: str
    cost: Cost


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
    provider = info["provider"]
    model, base_url = info["model"] or "", info["base_url"]
    costs = []
    for (conversation_id, case_id, design), rows in groupby(
            db.query_dicts("turn_usage_rows.sql"), key=lambda r: (r["conversation_id"], r["case_id"], r["design"])):
        turns = [TurnUsage(TokenUsage(r["input_tokens"], r["output_tokens"], r["cached_tokens"], r["estimated"]),
                           r["model"], r["at"]) for r in rows]
        cost = conversation_cost(book, turns, model=model, provider=provider, base_url=base_url, price_as=price_as)
        costs.append(ConversationCost(conversation_id, case_id, design, cost))
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
