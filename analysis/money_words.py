"""A run's money (analysis.costs.RunMoney) in words and as JSON, so `summarize` and the site say the same.

Every amount is labelled: where its prices came from and their date (`price_lines`), and "≈ … estimate"
when the tokens are wismo's estimates rather than a provider's. A figure without a price is "unknown",
never $0.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from analysis.costs import DesignCost, MoneyComparison, RunMoney
from analysis.prices import AppliedPrice

UNKNOWN = "unknown"
PER = 1000  # the difference is also shown per this many conversations, where cents become readable


def usd(amount: Decimal | None, *, estimated: bool = False, signed: bool = False) -> str:
    """`$0.001444`, `−$0.000669` (signed), `≈$0.001444` (estimated) or `unknown`; four significant digits."""
    if amount is None:
        return UNKNOWN
    sign = "−" if amount < 0 else "+" if signed and amount > 0 else ""
    size = abs(amount)
    # Four significant digits, at least two decimals: a conversation often costs a fraction of a cent.
    decimals = max(2, 4 - size.adjusted() - 1) if size else 2
    return f"{'≈' if estimated else ''}{sign}${size:,.{decimals}f}"


def _range(money: RunMoney) -> str:
    if money.priced_on is None:
        return ""
    first, last = money.priced_on
    return f"{first}" if first == last else f"{first} to {last}"


def price_lines(money: RunMoney) -> list[str]:
    """Each price applied, with its source and date, and the days it was applied to."""
    days = _range(money)
    return [f"{p.label()}; applied to responses of {days}" if days else p.label() for p in money.prices]


def estimate_note(money: RunMoney) -> str:
    """Why the amounts are marked ≈ (or cannot be shown), or "" for provider-reported tokens."""
    if not money.estimated:
        return (f"--price-as {money.price_as} was not applied: this run's tokens were reported by its provider and "
                "are priced as the model that answered." if money.price_as else "")
    if money.price_as is None:
        return ("The tokens are wismo's estimates (the scripted policy calls no model): they are priced only as "
                "a model you name with --price-as MODEL.")
    return (f"Estimate: the tokens are wismo's estimates (the scripted policy calls no model), priced as "
            f"{money.price_as} (--price-as); no model was billed for them.")


def comparison_sentences(money: RunMoney) -> list[str]:
    """Per design compared with the baseline: the difference in money over the both-correct pairs, or why none."""
    compared = money.compared()
    # With several designs compared, "both designs" would not say which two: they are named.
    return [_comparison_sentence(money, c, named=len(compared) > 1) for c in compared]


def comparison_sentence(money: RunMoney) -> str:
    """Every comparison's sentence in one paragraph ("" with a single design)."""
    return " ".join(comparison_sentences(money))


def _comparison_sentence(money: RunMoney, c: MoneyComparison, *, named: bool) -> str:
    both = f"both {c.baseline} and {c.other}" if named else "both designs"
    if c.correct_pairs == 0:
        return f"No (case, repetition) pair was answered correctly by {both}, so there is no money comparison."
    if c.difference is None or c.baseline_median is None or c.other_median is None:
        return (f"{c.correct_pairs} pairs were answered correctly by {both}, but none has a price for both "
                f"conversations: the difference in money is {UNKNOWN}.")
    est = money.estimated
    per = usd(abs(c.difference) * PER, estimated=est)
    amount = (f"{usd(abs(c.difference), estimated=est)} {'less' if c.difference < 0 else 'more'} per conversation "
              f"({per} per {PER:,}) than" if c.difference else "the same per conversation as")
    return (f"Over the {c.priced_pairs} of {c.correct_pairs} pairs where both answered correctly and both have a "
            f"price, {c.other} cost {amount} {c.baseline}: medians {usd(c.other_median, estimated=est)} "
            f"and {usd(c.baseline_median, estimated=est)}; median paired difference ({c.other} − {c.baseline}) "
            f"{usd(c.median_paired_difference, estimated=est, signed=True)}.")


# The baseline's median over the both-correct pairs depends on which design it is paired with: with several,
# its cell points to the sentences, which give each pairing's medians.
PER_COMPARISON = "per comparison below"


def design_cells(money: RunMoney, design: DesignCost) -> list[str]:
    """A design's row: median over its priced conversations, priced and unknown counts, median on both-correct pairs."""
    compared = money.compared()
    mine = next((c.other_median for c in compared if c.other == design.design), None)
    if compared and design.design == compared[0].baseline:
        medians = {c.baseline_median for c in compared}
        paired = usd(medians.pop(), estimated=money.estimated) if len(medians) == 1 else PER_COMPARISON
    else:
        paired = usd(mine, estimated=money.estimated)
    return [usd(design.median_usd, estimated=money.estimated), str(design.priced), str(design.unknown), paired]


DESIGN_HEADERS = ["median per conversation", "priced", "unknown", "median where both right"]


def _number(amount: Decimal | None) -> float | None:
    return None if amount is None else float(amount)


def _price(price: AppliedPrice) -> dict[str, Any]:
    rate = price.rate
    return {"model": price.model, "source": price.source.name, "version": price.source.version,
            "date": price.source.date, "since": None if price.since is None else price.since.isoformat(),
            "input_per_mtok": _number(rate.input if rate else None),
            "cached_input_per_mtok": _number(rate.cached_input if rate else None),
            "output_per_mtok": _number(rate.output if rate else None), "label": price.label()}


def _comparison(c: MoneyComparison) -> dict[str, Any]:
    return {"baseline": c.baseline, "other": c.other, "correct_pairs": c.correct_pairs,
            "priced_pairs": c.priced_pairs, "baseline_median_usd": _number(c.baseline_median),
            "other_median_usd": _number(c.other_median), "difference_usd": _number(c.difference),
            "median_paired_difference_usd": _number(c.median_paired_difference)}


def money_json(money: RunMoney) -> dict[str, Any]:
    """The money section of `summarize --json`: USD as numbers, null (never 0) where unknown.

    `comparisons` holds every design against the baseline; `comparison` is the first of them, as before.
    """
    compared = [_comparison(c) for c in money.compared()]
    return {
        "currency": "USD", "estimated": money.estimated, "price_as": money.price_as,
        "designs": [{"design": d.design, "median_usd": _number(d.median_usd), "priced": d.priced,
                     "unknown": d.unknown} for d in money.designs],
        "baseline": money.baseline,
        "comparison": compared[0] if compared else None,
        "comparisons": compared,
        "prices": [_price(p) for p in money.prices],
        "priced_on": None if money.priced_on is None else [d.isoformat() for d in money.priced_on],
        "unknown_reasons": list(money.unknown_reasons),
        "note": estimate_note(money) or None,
    }
