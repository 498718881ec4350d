"""summarize --crossover's text: per question kind, a table of medians and pass rates by order size, then the words."""

from __future__ import annotations

from decimal import Decimal

from analysis.crossover import shows_crossover
from analysis.model import CROSSOVER_MEASURES, CrossoverView
from analysis.money_words import UNKNOWN, usd
from wismo.cli._tables import WIDTH, cell, table, wrap

# Short heads: the table fits in 100 columns without wrapping into blocks.
_HEADS = {"totalTokens": "tokens", "elapsedMs": "time ms", "turns": "turns", "toolCalls": "calls",
          "backendLookups": "lookups", "costUsd": "cost USD"}
_DECIMALS = {"totalTokens": 0, "elapsedMs": 1, "turns": 1, "toolCalls": 1, "backendLookups": 1}


def _median(view: CrossoverView, measure: str, value: float | None) -> str:
    if measure == "costUsd":
        # Never 0 for a missing price: unknown, as everywhere money is shown.
        return UNKNOWN if value is None else usd(Decimal(str(value)), estimated=view.money_estimated)
    return cell(value, _DECIMALS[measure])


def crossover_lines(view: CrossoverView, width: int | None = WIDTH) -> list[str]:
    """The crossover section of one run: a table per question kind, each followed by its sentences."""
    lines = wrap(f"crossover, run {view.run_id}: medians per design and order size (order lines), pass rate "
                 f"beside each; {view.money_note}", width)
    if view.unsized_conversations:
        lines += wrap(f"{view.unsized_conversations} conversation(s) left out: their case has no order size "
                      "(the order is missing from the records, or the run predates orderLines)", width)
    if not shows_crossover(view):
        return [*lines, *wrap("nothing to cross: the run has one order size and one question kind (or one design)",
                              width), ""]
    headers = ["lines  design", "convs", "pass %", *(_HEADS[m] for m in CROSSOVER_MEASURES)]
    for kind in view.kinds:
        points = [p for p in view.points if p.kind == kind]
        rows = [[f"{p.order_lines:>5}  {p.design}", cell(p.conversations), cell(p.pass_rate * 100, 0),
                 *(_median(view, m, p.medians.get(m)) for m in CROSSOVER_MEASURES)] for p in points]
        lines += ["", f"'{kind}' questions", *table(headers, rows, width=width)]
        for crossover in view.crossovers:
            if crossover.kind == kind:
                lines += wrap(f"- {crossover.sentence}", width, rest="  ")
        if view.failures.get(kind):
            lines += wrap(f"- {view.failures[kind]}", width, rest="  ")
    return [*lines, ""]
