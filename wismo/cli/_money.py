"""The pricing options every command that shows figures takes (--prices, --price-as), and summarize's money lines."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from analysis.costs import Pricing, RunMoney
from analysis.money_words import (
    DESIGN_HEADERS,
    UNKNOWN,
    comparison_sentences,
    design_cells,
    estimate_note,
    price_lines,
)
from analysis.prices import PriceBook, PriceFileError, load_price_file
from wismo.cli._tables import table, wrap

F = TypeVar("F", bound=Callable[..., Any])


def pricing_options(command: F) -> F:
    """Add --prices FILE and --price-as MODEL; the command receives them as `prices` and `price_as`."""
    command = click.option(
        "--price-as", "price_as", metavar="MODEL", default=None,
        help="Price token counts that are wismo's estimates (the scripted policy's) as this model, e.g. "
             "gpt-5-mini; the costs are labelled as an estimate. Without it they are unknown.")(command)
    return click.option(
        "--prices", "prices", type=click.Path(dir_okay=False, path_type=Path), default=None,
        help="A price file (JSON, format in docs/analysis.md) that overrides genai-prices for the models it "
             "names and prices models genai-prices does not know.")(command)


def pricing(prices: Path | None, price_as: str | None) -> Pricing:
    """The Pricing for the options; a bad price file is one line naming the file and what is wrong."""
    try:
        overrides = load_price_file(prices) if prices is not None else None
    except PriceFileError as exc:
        raise click.ClickException(str(exc)) from None
    return Pricing(PriceBook(overrides), price_as.strip() or None if price_as is not None else None)


def money_lines(money: RunMoney, width: int | None = None) -> list[str]:
    """`wismo summarize`'s money section for one run, its sentences wrapped and its table fitted to `width`."""
    sentences = ["money (USD): each model response's tokens (input, cached input, output with reasoning) × the "
                 "price named below"]
    rows: list[list[str]] = []
    if not any(d.priced for d in money.designs):
        reasons = "; ".join(money.unknown_reasons) or "no conversation"
        sentences.append(f"every conversation's cost is {UNKNOWN}: {reasons}")
    else:
        rows = [[d.design, *design_cells(money, d)] for d in money.designs]
    after: list[str] = []
    if rows:
        after += comparison_sentences(money)  # one per design compared with the baseline
        after += [f"price: {line}" for line in price_lines(money)]
        after += [f"{UNKNOWN}: {reason}" for reason in money.unknown_reasons]
    if note := estimate_note(money):
        after.append(note)
    lines = [line for sentence in sentences for line in wrap(sentence, width)]
    if rows:
        lines += table(["design", *DESIGN_HEADERS], rows, width=width)
    return lines + [line for sentence in after for line in wrap(sentence, width)]
