"""The crossover view: per design, question kind and order size, the medians and the pass rate, and in words
where one design stops using less than the other (issue 15 §4).

The medians come from analysis/sql/metrics_crossover.sql and money's from analysis/sql/money_crossover.sql, on
the run's one load once analysis.costs has priced it. The points cover every design; each sentence compares one
design with the run's baseline at every order size where both have a figure (one sentence per design but the
baseline, for each kind and measure); a design that is lower but passed fewer conversations at a size does
not win that size (a cheap design that fails is not cheaper).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby, pairwise
from pathlib import Path
from typing import Any

from analysis.costs import Pricing, RunMoney, run_money
from analysis.db import RunDatabase
from analysis.model import CROSSOVER_MEASURES, Crossover, CrossoverPoint, CrossoverView
from analysis.price_table import float_median, money_scale
from core.domain.fields import DEFAULT_ASKS

# Names of the question kinds the default and generated datasets ask; any other set of fields is named by
# its fields, so a new kind needs no code.
KIND_NAMES: dict[frozenset[str], str] = {
    frozenset(DEFAULT_ASKS): "full",
    frozenset({"deliveredSkus", "outstandingSkus"}): "has everything arrived",
    frozenset({"outstandingSkus", "deliveryEstimate"}): "when will the rest arrive",
    frozenset({"paymentStatus"}): "was my payment taken",
}
# measure -> (label for tables and charts, what "less" of it is called in a sentence)
MEASURE_WORDS: dict[str, tuple[str, str]] = {
    "totalTokens": ("total tokens", "fewer total tokens"),
    "elapsedMs": ("time (ms)", "less time"),
    "turns": ("turns", "fewer turns"),
    "toolCalls": ("tool calls", "fewer tool calls"),
    "backendLookups": ("backend lookups", "fewer backend lookups"),
    "costUsd": ("cost (USD)", "less money"),
}
_SQL_COLUMNS = {"totalTokens": "total_tokens", "elapsedMs": "elapsed_ms", "turns": "turns",
                "toolCalls": "tool_calls", "backendLookups": "backend_lookups"}


def kind_name(asks: Sequence[str]) -> str:
    """The question kind's name: a known set of fields by its customer's words, any other by its fields."""
    return KIND_NAMES.get(frozenset(asks), " + ".join(asks))


def _lines(low: int, high: int) -> str:
    return f"{low} line{'s' if low != 1 else ''}" if low == high else f"{low}–{high} lines"


def crossover_words(kind: str, measure: str, designs: Sequence[str],
                    points: Sequence[CrossoverPoint], *, named: bool = False) -> Crossover:
    """The crossover of two designs (the baseline, then the other) for one kind and measure, in words.

    `points` are that kind's; `named` puts the two designs' names where a run of two says "both designs"
    (a run of more has several pairs, so "both" would not say which).
    """
    first, second = designs[0], designs[1]
    both = f"{first} and {second}" if named else "both designs"
    by_size: dict[int, dict[str, CrossoverPoint]] = {}
    for point in points:
        by_size.setdefault(point.order_lines, {})[point.design] = point
    # Each size where both designs have a figure: the design that uses less and did not pass fewer;
    # "=" for equal figures, "!" + design for a design that uses less but passed fewer.
    outcomes: list[tuple[int, str]] = []
    for size in sorted(by_size):
        a, b = by_size[size].get(first), by_size[size].get(second)
        if a is None or b is None or a.medians.get(measure) is None or b.medians.get(measure) is None:
            continue
        x, y = a.medians[measure], b.medians[measure]
        assert x is not None and y is not None
        if x == y:
            outcomes.append((size, "="))
            continue
        low, high = (a, b) if x < y else (b, a)
        outcomes.append((size, low.design if low.pass_rate >= high.pass_rate else "!" + low.design))
    label, less = MEASURE_WORDS[measure]
    sizes = tuple(size for size, _ in outcomes)
    if not outcomes:
        return Crossover(kind, measure, f"No order size has a {label} figure for {both} "
                                        f"on '{kind}' questions.", (), (), first, second)
    segments = [(winner, [size for size, _ in group]) for winner, group in groupby(outcomes, key=lambda o: o[1])]
    winners = [(winner, group[0]) for winner, group in segments if winner in (first, second)]
    crossings = tuple(size for (before, _), (winner, size) in pairwise(winners)
                      if winner != before)
    every = "at every size measured" if len(sizes) > 1 else "at the only size measured"
    if len(segments) == 1 and segments[0][0] in (first, second):
        winner = segments[0][0]
        # With several pairs a sentence per pair: it must say which design the winner beat.
        than = f" than {second if winner == first else first}" if named else ""
        sentence = f"{winner} uses {less}{than} for '{kind}' questions {every} ({_lines(sizes[0], sizes[-1])})."
    elif len(segments) == 1 and segments[0][0] == "=":
        sentence = (f"{both if named else 'Both designs'} use the same {label} for '{kind}' questions {every} "
                    f"({_lines(sizes[0], sizes[-1])}).")
    elif len(segments) == 2 and all(winner in (first, second) for winner, _ in segments) and crossings:
        (a_name, a_sizes), (b_name, b_sizes) = segments
        sentence = (f"{a_name} uses {less} for '{kind}' questions on orders up to {_lines(a_sizes[-1], a_sizes[-1])}; "
                    f"{b_name} from {_lines(b_sizes[0], b_sizes[0])}.")
    else:
        parts = [f"{_segment_name(winner)} at {_lines(group[0], group[-1])}" for winner, group in segments]
        which = f"Which of {both} uses" if named else "Which design uses"
        sentence = f"{which} {less} for '{kind}' questions: " + "; ".join(parts) + "."
    return Crossover(kind, measure, sentence, crossings, sizes, first, second)


def failure_words(kind: str, designs: Sequence[str], points: Sequence[CrossoverPoint]) -> str:
    """Where a design did not pass every conversation of this kind ("" when every design always passed)."""
    failures = []
    for design in designs:
        below = [f"{round(p.pass_rate * 100)} % at {_lines(p.order_lines, p.order_lines)}"
                 + (f" ({p.budget_stopped} of {p.conversations} stopped by a budget)" if p.budget_stopped else "")
                 for p in sorted(points, key=lambda p: p.order_lines) if p.design == design and p.pass_rate < 1]
        if below:
            failures.append(f"{design} passed " + ", ".join(below))
    return f"Not every '{kind}' conversation passed: " + "; ".join(failures) + "." if failures else ""


def _segment_name(winner: str) -> str:
    if winner == "=":
        return "neither (equal)"
    if winner.startswith("!"):
        return f"neither ({winner[1:]} is lower but passed fewer)"
    return winner


def _money_medians(db: RunDatabase, money: RunMoney | None) -> dict[tuple[str, str, int], float]:
    """(design, kind, order lines) -> the median cost in USD over that group's conversations, all of them priced."""
    if money is None:
        return {}
    scale = money_scale(db)
    # A median over only the priced part of a group would pass for the group's: unknown instead.
    return {(row["design"], kind_name(row["asks"]), row["order_lines"]): float_median(row["median"], scale)
            for row in db.query_dicts("money_crossover.sql")
            if row["conversations"] and row["priced"] == row["conversations"]}


def crossover_view(db: RunDatabase, money: RunMoney | None = None) -> CrossoverView:
    """The crossover view of a loaded, validated run; money: its costs when priced (run_money on this same db)."""
    info = db.info
    designs = tuple(info["designs"])
    baseline = info["baseline"] or (designs[0] if designs else None)
    others = [d for d in designs if d != baseline]
    costs = _money_medians(db, money)
    points, unsized = [], 0
    for row in db.query_dicts("metrics_crossover.sql"):
        if row["order_lines"] is None:
            unsized += row["conversations"]
            continue
        kind = kind_name(row["asks"])
        medians: dict[str, float | None] = {m: row[c] for m, c in _SQL_COLUMNS.items()}
        medians["costUsd"] = costs.get((row["design"], kind, row["order_lines"]))
        points.append(CrossoverPoint(row["design"], kind, tuple(row["asks"]), row["order_lines"],
                                     row["conversations"], row["passed"], row["pass_rate"], row["budget_stopped"],
                                     medians))
    kinds = tuple(dict.fromkeys(p.kind for p in points))
    crossovers, failures = [], {}
    if baseline is not None and others:
        for kind in kinds:
            mine = [p for p in points if p.kind == kind]
            failures[kind] = failure_words(kind, designs, mine)
            for measure in CROSSOVER_MEASURES:
                if measure == "costUsd" and not costs:
                    continue
                crossovers += [crossover_words(kind, measure, (baseline, other), mine, named=len(others) > 1)
                               for other in others]
    return CrossoverView(run_id=info["run_id"], designs=designs, kinds=kinds,
                         sizes=tuple(sorted({p.order_lines for p in points})), points=points,
                         crossovers=crossovers, failures=failures, unsized_conversations=unsized,
                         money_note=_money_note(money, bool(costs)),
                         money_estimated=bool(costs) and money is not None and money.estimated, baseline=baseline)


def _money_note(money: RunMoney | None, priced: bool) -> str:
    if money is None:
        return "money: not priced"
    if priced:
        sources = sorted({s.label() for d in money.designs for s in d.sources})
        estimate = " (estimated tokens priced as " + money.price_as + ")" if money.estimated and money.price_as else ""
        return f"money: priced by {', '.join(sources) or 'the price book'}{estimate}"
    return "money: unknown (" + ("; ".join(money.unknown_reasons) or "no conversation could be priced") + ")"


def shows_crossover(view: CrossoverView) -> bool:
    """Whether the run spans more than one order size or question kind (else there is nothing to cross)."""
    return len(view.designs) >= 2 and (len(view.sizes) > 1 or len(view.kinds) > 1)


def crossover_of_runs(run_dirs: Sequence[Path], pricing: Pricing | None = None) -> list[CrossoverView]:
    """crossover_view for run folders that passed validation, each loaded on its own and priced by `pricing`
    (None: not priced); summarize and build-site build the view on their one load of each run."""
    views = []
    for run_dir in run_dirs:
        with RunDatabase(Path(run_dir)) as db:
            money = run_money(db, pricing.book, price_as=pricing.price_as) if pricing is not None else None
            views.append(crossover_view(db, money))
    return views


def crossover_json(view: CrossoverView) -> dict[str, Any]:
    """The view as JSON: every point (medians keyed by measure; null = not reported or unknown) and every sentence."""
    return {"runId": view.run_id, "designs": list(view.designs), "baseline": view.baseline, "kinds": list(view.kinds),
            "orderLines": list(view.sizes), "shown": shows_crossover(view),
            "unsizedConversations": view.unsized_conversations, "money": view.money_note,
            "moneyEstimated": view.money_estimated,
            "points": [{"design": p.design, "kind": p.kind, "asks": list(p.asks), "orderLines": p.order_lines,
                        "conversations": p.conversations, "passed": p.passed, "passRate": p.pass_rate,
                        "budgetStopped": p.budget_stopped,
                        "medians": dict(p.medians)} for p in view.points],
            "crossovers": [{"kind": c.kind, "measure": c.measure, "baseline": c.baseline, "other": c.other,
                            "sentence": c.sentence, "crossings": list(c.crossings), "orderLines": list(c.sizes)}
                           for c in view.crossovers],
            "failures": dict(view.failures)}
