"""`wismo summarize`: the metrics of validated runs, as a table or as JSON."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import click

from analysis import analyze_runs
from analysis.crossover import crossover_json
from analysis.db import DEFAULT_RESAMPLES, DEFAULT_SEED
from analysis.errors import RunValidationError
from analysis.headline import HEADLINE_METRIC, headline
from analysis.labels import METRIC_LABELS
from analysis.model import METRICS, RunSummary
from analysis.money_words import money_json
from analysis.summary_json import summary_to_json
from core.domain.fields import ASSESSMENT_FIELDS, BACKENDS
from wismo.cli._crossover import crossover_lines
from wismo.cli._money import money_lines, pricing, pricing_options
from wismo.cli._tables import GAP, WIDTH, cell, table, wrap

MAX_K_COLUMNS = 10


def _label(metric: str) -> str:
    label = METRIC_LABELS[metric]
    return f"{label.name} {label.unit}" if label.unit else label.name


def _decimals(metric: str) -> int:
    return 1 if metric in ("turns", "toolCalls", "backendLookups", "elapsedMs") else 0


def _shown_ks(repetitions: int) -> list[int]:
    if repetitions <= MAX_K_COLUMNS:
        return list(range(1, repetitions + 1))
    return sorted({1, 2, 3, 5, *range(10, repetitions, max(10, repetitions // 5)), repetitions})


def _share(rate: float | None) -> str:
    return "–" if rate is None else cell(rate * 100, 1)


def in_design_order(designs: list[str], present: Iterable[str]) -> list[str]:
    """The manifest's designs first, in its order, then any other design found (never dropped)."""
    found = list(present)
    return [*(d for d in designs if d in found), *sorted(set(found) - set(designs))]


def headline_lines(summary: RunSummary, width: int | None = WIDTH) -> list[str]:
    """The answer first: pass rates per design, then each design's difference from the baseline on the pairs
    both passed.

    `summarize` prints these after the per-design tables and `demo` right before the site's path, so
    both say what the site's headline says (analysis.headline), with each paired interval added after
    the sentences of its design.
    """
    words = headline(summary)
    lines = wrap(words.lead, width)
    for other, sentences in words.by_other.items():
        for sentence in sentences:
            lines += wrap(sentence, width)
        interval = _interval_sentence(summary, other)
        if interval:
            lines += wrap(interval, width)
    return lines


def _interval_sentence(summary: RunSummary, other: str) -> str | None:
    compared = next((c for c in summary.comparisons_with(other) if c.metric == HEADLINE_METRIC), None)
    if compared is None or compared.median_difference is None:
        return None
    decimals = _decimals(compared.metric)
    return (f"Median of the paired differences in {METRIC_LABELS[compared.metric].name} ({compared.other} - "
            f"{compared.baseline}) over those {compared.paired_n} pairs: "
            f"{cell(compared.median_difference, decimals)}, 95 % interval "
            f"[{cell(compared.ci_low, decimals)}, {cell(compared.ci_high, decimals)}].")


def _design_table(summary: RunSummary, width: int | None) -> list[str]:
    headers = ["design", "convs", "passed", "pass %", *(_label(m) for m in METRICS)]
    rows = []
    for design in summary.designs:
        stats = [NOT_RECORDED if m == "backendLookups" and (not (s := design.stats.get(m)) or not s.n)
                 else f"{cell(s.median, _decimals(m))} [{cell(s.min, _decimals(m))}-{cell(s.max, _decimals(m))}]"
                 if (s := design.stats.get(m)) else "–" for m in METRICS]
        rows.append([design.design, cell(design.conversations), cell(design.passed),
                     cell(design.pass_rate * 100, 1), *stats])
    return [*wrap("per design: each metric's median [min-max] over the conversations that reported it", width),
            *table(headers, rows, width=width)]


def _comparison_table(summary: RunSummary, width: int | None) -> list[str]:
    """Each design but the baseline against it: one table per design, the explanation once."""
    first = summary.comparisons[0]
    others = list(dict.fromkeys(c.other for c in summary.comparisons))
    # A run of two designs names them in the explanation; with more, each table has a title line.
    who, minus = (first.other, first.other) if len(others) == 1 else ("each design", "design")
    lines = wrap(f"{who} vs {first.baseline} over the (case, repetition) pairs where BOTH answered "
                 f"correctly: the medians and the saving on them, the median of the paired differences "
                 f"({minus} - {first.baseline}) with its 95 % bootstrap interval "
                 f"({first.bootstrap_resamples} resamples, seed {first.bootstrap_seed}); last, for reference, the "
                 "saving on the medians of all conversations, failed and errored included", width)
    for number, other in enumerate(others):
        mine = summary.comparisons_with(other)
        if len(others) > 1:
            pairs = summary.pairs_with(other)
            both = f": {pairs.correct_pairs} of {pairs.pairs} pairs both right" if pairs else ""
            lines += [*([""] if number else []), *wrap(f"{other} vs {first.baseline}{both}", width)]
        lines += table(["metric", first.baseline, other, "saving %", "pairs", "paired median diff",
                        "95 % CI", "saving % (all convs)"],
                       [[_label(c.metric), cell(c.baseline_median, _decimals(c.metric)),
                         cell(c.other_median, _decimals(c.metric)), cell(c.saving_pct, 1), cell(c.paired_n),
                         cell(c.median_difference, _decimals(c.metric)),
                         f"[{cell(c.ci_low, _decimals(c.metric))}, {cell(c.ci_high, _decimals(c.metric))}]",
                         cell(c.all_saving_pct, 1)]
                        for c in mine], width=width)
    return lines


def _extras(summary: RunSummary, width: int | None) -> list[str]:
    """pass^k, claim findings and the deterministic comparison, each in the manifest's design order."""
    run, lines = summary.run, []
    ks = _shown_ks(run.repetitions)
    if ks:
        note = "" if len(ks) == run.repetitions else " (some k; --json lists every k)"
        lines += table([f"pass^k{note}", *(f"k={k}" for k in ks)],
                       [[d.design, *(cell(d.pass_hat_k.get(k), 3) for k in ks)] for d in summary.designs],
                       width=width)
        lines.append("")
    if summary.claim_findings:
        kinds = [*sorted({k for counts in summary.claim_findings.values() for k in counts} - {"any", "checked"}),
                 "any", "checked"]
        lines += table(["summaries with claim findings", *kinds],
                       [[design, *(cell(summary.claim_findings[design].get(k, 0)) for k in kinds)]
                        for design in in_design_order(run.designs, summary.claim_findings)], width=width)
        lines.append("")
    if summary.deterministic_passed is not None:
        designs = in_design_order(run.designs, {d for order in summary.deterministic for d in order.bytes})
        lines.append(f"deterministic comparison ({'passed' if summary.deterministic_passed else 'FAILED'}), "
                     f"over {len(summary.deterministic)} orders:")
        lines += table(["design", "result bytes", "MCP interactions", "backend lookups"],
                       [[d, cell(sum(o.bytes.get(d, 0) for o in summary.deterministic)),
                         cell(sum(o.interactions.get(d, 0) for o in summary.deterministic)),
                         cell(_total([o.lookups.get(d) for o in summary.deterministic]))] for d in designs],
                       width=width)
    return lines


def summary_lines(summary: RunSummary, width: int | None = WIDTH) -> list[str]:
    """The metrics table, the comparison, pass^k and the extras of one run; lines of at most `width` (None: any)."""
    run = summary.run
    lines = wrap(f"run {run.run_id}: {run.provider_label or run.provider} / {run.model}, dataset {run.dataset_name}, "
                 f"{len(run.cases)} cases x {run.repetitions} repetitions; tokens {run.token_counts}", width)
    shape = run.request_shape()
    if shape:
        lines += wrap(f"requests: {shape}", width)
    for warning in summary.warnings:
        lines += wrap(f"warning: {warning}", width)
    lines.append("")
    lines += _design_table(summary, width)
    lines.append("")
    # A field no case asked has no rate and no column.
    asked = [f for f in ASSESSMENT_FIELDS if any(d.field_pass_rates.get(f) is not None for d in summary.designs)]
    field_rows = [[d.design, *(_share(d.field_pass_rates.get(f)) for f in asked),
                   ", ".join(f"{k} {v}" for k, v in sorted(d.status_counts.items()))] for d in summary.designs]
    if summary.designs:
        lines += table(["pass % per field", *asked, "statuses"], field_rows, width=width)
        lines.append("")
        lines += wrap("answered without evidence (the model's answer, with no tool result that was not an error): "
                      + ", ".join(f"{d.design} {d.answered_without_evidence} of {d.conversations}"
                                  + (f" ({d.passed_without_evidence} passed anyway)" if d.passed_without_evidence
                                     else "") for d in summary.designs), width)
        if run.text_tool_calls:
            lines += wrap("tool calls read from the model's text (--text-tool-calls; not native tool calls): "
                          + ", ".join(f"{d.design} {d.text_calls}" for d in summary.designs), width)
        lines.append("")
    lines += lookup_lines(summary, width)
    lines += [*headline_lines(summary, width), ""]
    if summary.comparisons:
        lines += [*_comparison_table(summary, width), ""]
    words = headline(summary)
    if words.warnings:
        lines += wrap(f"warning: {words.warnings[0]}", width)
        for line in words.warnings[1:]:
            lines += wrap(line, width, first=GAP, rest=GAP * 2)
        lines.append("")
    return lines + _extras(summary, width)


# A design's server that reported no lookups: its reads are unknown, never 0.
NOT_RECORDED = "not recorded"


def _total(values: list[int | None]) -> int | None:
    """The sum, or None (not recorded) when any value is missing: a partial sum would pass for the whole."""
    return None if any(v is None for v in values) else sum(v for v in values if v is not None)


def lookup_lines(summary: RunSummary, width: int | None = WIDTH) -> list[str]:
    """Backend reads per backend and design, added up over the conversations; one line when not recorded."""
    if not any(d.recorded for d in summary.lookups):
        return [*wrap("backend lookups: not recorded (the run predates the servers reporting them in `_meta`)",
                      width), ""]
    position = {design: index for index, design in enumerate(summary.run.designs)}
    ordered = sorted(summary.lookups, key=lambda d: position.get(d.design, len(position)))
    rows = [[d.design, cell(d.recorded), *(cell(d.per_backend.get(b)) for b in BACKENDS), cell(d.not_found),
             NOT_RECORDED if d.total is None else cell(d.total), cell(d.tool_result_bytes)] for d in ordered]
    return [*table(["backend lookups (sum)", "convs", *BACKENDS, "not found", "total", "result bytes"], rows,
                   width=width), ""]


@click.command("summarize")
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the summaries as JSON (on one line) instead of tables.")
@click.option("--cases", "with_cases", is_flag=True,
              help="With --json: include the run's case list (run.cases, one entry per case; else null).")
@click.option("--paired", "with_paired", is_flag=True,
              help="With --json: include the paired rows (one per case and repetition; else null).")
@click.option("--pretty", is_flag=True, help="With --json: indent the JSON for reading.")
@click.option("--crossover", "with_crossover", is_flag=True,
              help="Only the crossover view: per question kind and order size, each design's medians and pass "
                   "rate, and where one design stops using less (with --json: adds the `crossover` key).")
@click.option("--wide", is_flag=True,
              help=f"One table per section however wide, and no line wrapping (default: fit in {WIDTH} columns).")
@click.option("--bootstrap-resamples", type=click.IntRange(min=1), default=DEFAULT_RESAMPLES, show_default=True,
              help="Resamples for the 95 % interval of each paired median difference.")
@click.option("--seed", type=click.IntRange(min=0), default=DEFAULT_SEED, show_default=True,
              help="Seed of the bootstrap (the same run and seed give the same interval).")
@pricing_options
def summarize_command(run_dirs: tuple[Path, ...], as_json: bool, with_cases: bool, with_paired: bool, pretty: bool,
                      with_crossover: bool, wide: bool, bootstrap_resamples: int, seed: int, prices: Path | None,
                      price_as: str | None) -> None:
    """Print the metrics of recorded runs, each validated first, per design.

    Per design: conversations, pass rate (overall and per field), median [min-max] of turns, tool
    calls, input tokens and uncached input (input minus cached: what caching leaves to pay in full),
    output tokens and the reasoning tokens among them, total tokens and time. Then the headline: whether
    the designs differ in correctness (when they do, that is the result), and what each design saves
    over the baseline (the manifest's `baseline`, else the first design) over the (case, repetition)
    pairs where both answered correctly (medians, and the paired median difference with its 95 %
    bootstrap interval; the saving over all conversations beside it, labelled; nothing to compare in a
    run of one design); pass^k for k = 1..repetitions, claim findings and the deterministic comparison
    when the run has them; and a warning listing infrastructure faults (per design and status, each
    distinct cause once, biased when unequal between designs). A run that fails `wismo validate` is
    refused (exit 1). The JSON leaves out the two lists that grow with the run unless asked for: the
    cases (--cases) and the paired rows (--paired). Last, money: each conversation's cost in USD from
    its tokens and a named, dated price (genai-prices, or --prices FILE), the medians per design and
    each design's difference from the baseline over the both-correct pairs; "unknown" where a model has
    no price, and estimated tokens (the scripted policy's) priced only as the model named by --price-as.
    --crossover prints instead, per run, the crossover view of a run over several order sizes or
    question kinds (see docs/analysis.md).

    The tables fit in 100 columns: a table with more columns than fit continues in further blocks,
    each repeating the design (or metric) column; --wide prints each as one table instead.

    Example:

        wismo summarize runs/sample-offline --wide

        wismo summarize runs/sample-offline --json > summary.json

        wismo summarize runs/sample-offline --json --cases --paired --pretty

        wismo summarize runs/sample-offline --price-as gpt-5-mini --prices my-prices.json

        wismo summarize runs/study --crossover --price-as gpt-5-mini   # a `wismo dataset generate` run
    """
    for flag, given in (("--cases", with_cases), ("--paired", with_paired), ("--pretty", pretty)):
        if given and not as_json:
            raise click.UsageError(f"{flag} only applies to --json")
    if wide and as_json:
        raise click.UsageError("--wide only applies to the tables, not to --json")
    priced_by = pricing(prices, price_as)  # a bad price file fails before any run is read
    try:
        # One load per run gives its checks, figures, money and crossover view; each run's crossover on
        # its own: a view never pools runs, so runs on other datasets are not mixed.
        analyses = analyze_runs(list(run_dirs), bootstrap_resamples=bootstrap_resamples, seed=seed,
                                paired=with_paired, pricing=priced_by, crossover=with_crossover, require_valid=True)
    except RunValidationError as exc:
        raise click.ClickException(str(exc)) from None
    summaries = [a.summary for a in analyses if a.summary is not None]
    money = [a.money for a in analyses if a.money is not None]
    crossovers = [a.crossover for a in analyses if a.crossover is not None] if with_crossover else None
    if as_json:
        # The crossover key only when asked for: without --crossover the JSON stays what it was.
        documents = [{**summary_to_json(s, cases=with_cases), "money": money_json(m),
                      **({"crossover": crossover_json(crossovers[index])} if crossovers else {})}
                     for index, (s, m) in enumerate(zip(summaries, money, strict=True))]
        # Without indent, json uses its C encoder: several times faster than the indenting one.
        click.echo(json.dumps(documents, indent=2) if pretty else json.dumps(documents, separators=(",", ":")))
        return
    for index, summary in enumerate(summaries):
        if index:
            click.echo()
        width = None if wide else WIDTH
        if crossovers:
            click.echo("\n".join(crossover_lines(crossovers[index], width)))
            continue
        for line in [*summary_lines(summary, width), "", *money_lines(money[index], width)]:
            click.echo(line)
