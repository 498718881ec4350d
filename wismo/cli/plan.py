"""`wismo plan RUN`: the repetitions a study needs, per design pair and figure, from a pilot run's own noise."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import click

from analysis.plan import DETERMINISTIC, TOO_SMALL, Plan, PlanRow, plan_run
from wismo.cli._money import pricing, pricing_options
from wismo.cli._tables import WIDTH, cell, table, wrap


def _share(text: str, name: str) -> float:
    try:
        value = float(text[:-1]) / 100 if text.strip().endswith("%") else float(text)
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a number or a percentage", param_hint=name) from None
    if not 0 < value < 10:
        raise click.BadParameter(f"{text!r} must be above 0", param_hint=name)
    return value


def plan_json(plan: Plan) -> dict[str, Any]:
    """The plan as JSON-ready data."""
    data = asdict(plan)
    data["run_dir"] = str(plan.run_dir)
    return data


def _needs(row: PlanRow, language_model: bool) -> str:
    if row.state == DETERMINISTIC:
        # a model's pilot that never varied may still vary in a larger study: say what was seen, not why
        return "1 (no variation)" if language_model else "1 (deterministic)"
    if row.state == TOO_SMALL:
        return "? (pilot too small)"
    return cell(row.repetitions)


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def plan_lines(plan: Plan, width: int | None = WIDTH) -> list[str]:
    """The plan as `wismo plan` prints it: what was asked, what the pilot can tell, then one row per pair and figure."""
    lines = wrap(f"pilot {plan.run_id}: {plan.cases} cases; to see a difference of {plan.difference:.0%} "
                 f"(pass rate: {plan.pass_rate_difference * 100:g} points) at {plan.confidence:.0%} confidence "
                 f"with {plan.power:.0%} power", width)
    states = {row.state for row in plan.rows}
    if states == {DETERMINISTIC}:
        lines += wrap("the pilot is deterministic: its repetitions never differ"
                      + ("" if plan.is_language_model else " (the scripted policy, not a language model)")
                      + ", so one repetition shows any difference exactly", width)
    if TOO_SMALL in states:
        lines += wrap("too small to tell: the pilot has one repetition per case, so it shows nothing of the noise "
                      "between repetitions; record it with --repetitions 2 or more", width)
    rows = []
    for row in plan.rows:
        cost = row.cost
        rows.append([row.pair, row.label, cell(row.noise_sd, 2 if (row.noise_sd or 0) < 10 else 0),
                     cell(row.detect, 2 if row.detect < 10 else 0), _needs(row, plan.is_language_model),
                     cell(cost.conversations) if cost else "–", cell(cost.requests, 0) if cost else "–",
                     cell(cost.total_tokens, 0) if cost else "–", _duration(cost.seconds) if cost else "–",
                     (f"{cost.usd:.2f}" if cost.usd is not None else "–") if cost else "–"])
    lines += table(["pair", "figure", "noise sd", "difference", "repetitions", "conversations", "requests",
                    "tokens", "time", "USD"], rows, width=width)
    return lines


@click.command("plan")
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--difference", "difference_text", default="10%", show_default=True,
              help="The relative difference to detect in tokens, turns, tool calls and backend lookups.")
@click.option("--pass-rate-difference", "pass_text", default="0.1", show_default=True,
              help="The pass-rate difference to detect (a share, 0.1 = 10 points, or 10%).")
@click.option("--confidence", type=click.FloatRange(0.5, 0.999), default=0.95, show_default=True,
              help="The confidence of the study's intervals.")
@click.option("--power", type=click.FloatRange(0.5, 0.999), default=0.8, show_default=True,
              help="The chance that the study detects a true difference of that size.")
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON.")
@click.option("--wide", is_flag=True, help="Do not fit the table to 100 columns.")
@pricing_options
def plan_command(run_dir: Path, difference_text: str, pass_text: str, confidence: float, power: float,
                 as_json: bool, wide: bool, prices: Path | None, price_as: str | None) -> None:
    """How many repetitions a study needs, from a pilot RUN_DIR's own noise between repetitions.

    Per design pair (every design against the baseline, and every design against itself in a second run,
    which is what `wismo compare` pairs) and figure: the repetitions needed to detect the difference asked
    for, and what that study would cost in conversations, requests, tokens, time at the pilot's rate and
    money where priced. Says plainly when the pilot is deterministic or too small to tell.

    Example:

    \b
        wismo plan runs/pilot --difference 5% --pass-rate-difference 0.1
    """
    difference = _share(difference_text, "--difference")
    pass_rate = _share(pass_text, "--pass-rate-difference")
    priced_by = pricing(prices, price_as)
    plan = plan_run(run_dir, difference=difference, pass_rate_difference=pass_rate, confidence=confidence,
                    power=power, pricing=priced_by)
    if as_json:
        click.echo(json.dumps(plan_json(plan), indent=2, ensure_ascii=False))
    else:
        for line in plan_lines(plan, None if wide else WIDTH):
            click.echo(line)
