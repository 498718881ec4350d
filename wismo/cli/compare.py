"""`wismo compare BASELINE CANDIDATE`: did the candidate run make a design worse, on which question kinds?"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import click

from analysis.compare import compare_runs
from analysis.compare_model import (
    EVERY_KIND,
    IMPROVEMENT,
    REGRESSION,
    UNDECIDED,
    WITHIN,
    Comparison,
     ToleranceError,
    parse_tolerances,
    size_words,
)
from analysis.db import DEFAULT_RESAMPLES, DEFAULT_SEED
from wismo.cli._money import pricing, pricing_options
from wismo.cli._tables import GAP, WIDTH, cell, table, wrap

SHORT_VERDICTS = {WITHIN: "ok", IMPROVEMENT: "better"}


def comparison_json(comparison: Comparison) -> dict[str, Any]:
    """The comparison as JSON-ready data: everything in the dataclasses, the regressions named first."""
    data = asdict(comparison)
    data["baseline"]["run_dir"] = str(comparison.baseline.run_dir)
    data["candidate"]["run_dir"] = str(comparison.candidate.run_dir)
    data["unpaired"] = {d: {"baselineOnly": b, "candidateOnly": c} for d, (b, c) in comparison.unpaired.items()}
    data["regressions"] = [f.words() for f in comparison.regressions()]
    return {"regressions": data.pop("regressions"), **data}


def comparison_lines(comparison: Comparison, width: int | None = WIDTH) -> list[str]:
    """What changed, the regressions, then every figure's row: the text `wismo compare` prints."""
    base, cand = comparison.baseline, comparison.candidate
    prose = [f"baseline {base.run_id} ({base.provider} {base.model}, {base.conversations} conversations); "
             f"candidate {cand.run_id} ({cand.provider} {cand.model}, {cand.conversations} conversations)"]
    prose.append("what changed: " + ("nothing in the manifests (tools, servers, model, instructions, budgets)"
                                     if not comparison.changes else f"{len(comparison.changes)} difference(s)"))
    lines = [line for sentence in prose for line in wrap(sentence, width)]
    lines += [line for c in comparison.changes
              for line in wrap(f"{c.design + ': ' if c.design else ''}{c.what}: {c.baseline} → {c.candidate}", width,
                               first=GAP, rest=GAP * 2)]
    for design, (only_base, only_cand) in comparison.unpaired.items():
        lines += wrap(f"unpaired ({design}): {only_base} conversation(s) only in the baseline, {only_cand} only in "
                      "the candidate; left out of the figures", width)
    how = ("both runs are deterministic (no language model): every change is exact" if comparison.exact else
           f"intervals: {comparison.confidence:.0%} bootstrap over each case's repetitions "
           f"({comparison.resamples} resamples, seed {comparison.seed})")
    lines += wrap(how, width)
    regressions = comparison.regressions()
    if regressions:
        lines.append(f"REGRESSIONS ({len(regressions)}):")
        lines += [line for f in regressions
                  for line in wrap(f"{f.words()} (tolerance {_tolerance(f.figure, f.tolerance)})", width, first=GAP,
                               rest=GAP * 2)]
    else:
        lines.append("no regression beyond the tolerances")
    undecided = sum(f.verdict == UNDECIDED for f in comparison.figures)
    if undecided:
        lines += wrap(f"undecided: {undecided} figure(s) changed but have no interval (a case with one repetition "
                      "says nothing of the noise); record both runs with --repetitions 2 or more", width)
    rows = [[f.design, f.kind if f.kind != EVERY_KIND else "(all)", f.label, cell(f.pairs),
             _mean(f.figure, f.baseline_mean), _mean(f.figure, f.candidate_mean), size_words(f),
             SHORT_VERDICTS.get(f.verdict, f.verdict)]
            for f in comparison.figures]
    lines += table(["design", "question kind", "figure", "pairs", "baseline", "candidate", "change", "verdict"],
                   rows, width=width)
    return lines


def _mean(figure: str, value: float) -> str:
    if figure == "passed":
        return f"{value * 100:.0f} %"
    if figure == "costUsd":
        return f"{value:.6f}"
    return cell(value, 1 if value < 100 else 0)


def _tolerance(figure: str, amount: float) -> str:
    return f"{amount * 100:g} points" if figure == "passed" else f"{amount * 100:+g} %"


@click.command("compare")
@click.argument("baseline", type=click.Path(file_okay=False, path_type=Path))
@click.argument("candidate", type=click.Path(file_okay=False, path_type=Path))
@click.option("--tolerance", "tolerance_text", metavar="KEY=VALUE,...", default=None,
              help="How much worse a figure may get before it is a regression: passed (pass-rate drop, in points "
                   "or a share), tokens, turns, calls, lookups, money (relative growth). Default "
                   "passed=0,tokens=5%,turns=5%,calls=5%,lookups=5%,money=5%.")
@click.option("--confidence", type=click.FloatRange(0.5, 0.999), default=0.95, show_default=True,
              help="The intervals' confidence level.")
@click.option("--resamples", type=click.IntRange(100, 100000), default=DEFAULT_RESAMPLES, show_default=True,
              help="Bootstrap resamples per figure (runs of a language model only).")
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True, help="The bootstrap's seed.")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON (for CI).")
@click.option("--wide", is_flag=True, help="Do not fit the table to 100 columns.")
@pricing_options
def compare_command(baseline: Path, candidate: Path, tolerance_text: str | None, confidence: float, resamples: int,
                    seed: int, as_json: bool, wide: bool, prices: Path | None, price_as: str | None) -> None:
    """Compare a CANDIDATE run with a BASELINE run of the same dataset and designs.

    Pairs the conversations by (case, design, repetition) and, per design and question kind, gives the
    pass rate's change and the change of total tokens, turns, tool calls, backend lookups and money (when
    priced), each with an interval. A figure whose interval lies wholly on the worse side of its tolerance
    is a regression. Lists what changed between the runs first. Exits 0 when there is no regression, 1
    when there is one (each named: design, question kind, figure, size), 2 when the runs cannot be compared.

    Example:

    \b
        wismo compare runs/before runs/after
        wismo compare runs/before runs/after --tolerance tokens=10%,passed=0.05 --json
    """
    try:
        tolerances = parse_tolerances(tolerance_text)
    except ToleranceError as exc:
        raise click.BadParameter(str(exc).removeprefix("--tolerance: "), param_hint="--tolerance") from None
    priced_by = pricing(prices, price_as)
    comparison = compare_runs(baseline, candidate, tolerances=tolerances, confidence=confidence,
                              resamples=resamples, seed=seed, pricing=priced_by)
    if as_json:
        click.echo(json.dumps(comparison_json(comparison), indent=2, ensure_ascii=False))
    else:
        for line in comparison_lines(comparison, None if wide else WIDTH):
            click.echo(line)
    if any(f.verdict == REGRESSION for f in comparison.figures):
        sys.exit(1)
