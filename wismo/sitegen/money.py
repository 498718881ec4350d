"""The overview's money section of each valid run: a page dataclass built from analysis.costs.RunMoney.

The wording comes from analysis.money_words, so the site and `wismo summarize` say the same; the
template (_money.html) only lays the strings out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from analysis.costs import RunMoney
from analysis.money_words import (
    DESIGN_HEADERS,
    comparison_sentence,
    design_cells,
    estimate_note,
    price_lines,
)


@dataclass(frozen=True)
class MoneyRow:
    """One design: median per conversation, priced and unknown counts, median over the both-correct pairs."""

    design: str
    cells: list[str]


@dataclass(frozen=True)
class MoneySection:
    """What the overview shows about a run's cost in USD; every amount is labelled with its price."""

    run_id: str
    priced: bool  # at least one conversation has a price; else only `unknown` is shown
    estimated: bool
    headers: list[str]
    rows: list[MoneyRow]
    sentence: str  # the difference over the both-correct pairs, or why there is none
    prices: list[str]  # each price applied: model, rates, source, date
    unknown: str  # why conversations could not be priced ("" when all were)
    note: str  # the estimate label for the scripted policy's tokens ("" for provider-reported tokens)


def money_section(money: RunMoney) -> MoneySection:
    """The section for one run."""
    priced = any(d.priced for d in money.designs)
    return MoneySection(
        run_id=money.run_id, priced=priced, estimated=money.estimated, headers=list(DESIGN_HEADERS),
        rows=[MoneyRow(d.design, design_cells(money, d)) for d in money.designs],
        sentence=comparison_sentence(money) if priced else "", prices=price_lines(money),
        unknown="; ".join(money.unknown_reasons), note=estimate_note(money))


def money_sections(money: Mapping[str, RunMoney] | None, valid_ids: Sequence[str]) -> dict[str, MoneySection]:
    """run_id → section, for the runs that passed validation (no figure of a failed run is shown)."""
    if not money:
        return {}
    return {run_id: money_section(money[run_id]) for run_id in valid_ids if run_id in money}
