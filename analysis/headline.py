"""The headline of a run in words: correctness first, then the like-for-like saving, then the faults.

`wismo summarize` prints these sentences and the site shows them above a run's figures, so both say
the same thing. Every number in them is a field of the RunSummary.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from analysis.model import FaultSummary, RunSummary

HEADLINE_METRIC = "totalTokens"
MAX_CAUSES = 10


@dataclass(frozen=True)
class Headline:
    """What a run says: the lead sentence, the sentences after it, and warnings (faults) to show apart."""

    lead: str
    details: list[str]
    warnings: list[str]
    pass_rates_differ: bool
    biased: bool  # infrastructure faults are unequal between the designs


def _passed(summary: RunSummary, design: str) -> tuple[int, int]:
    metrics = next(m for m in summary.designs if m.design == design)
    return metrics.passed, metrics.conversations


def _share(passed: int, total: int) -> str:
    return f"{passed}/{total} ({passed / total * 100:.0f} %)" if total else f"{passed}/{total}"


def headline(summary: RunSummary) -> Headline:
    """The sentences for one validated run."""
    designs = [m.design for m in summary.designs]
    warnings = fault_warnings(summary.faults, designs, summary.run.run_dir)
    biased = summary.faults.unequal(designs)
    if not summary.pairs or len(designs) < 2:
        only = ", ".join(f"{d} passed {_share(*_passed(summary, d))}" for d in designs)
        return Headline(f"{only}; there is no second design to compare with.", [], warnings, False, biased)
    pairs = summary.pairs[0]
    baseline, other = pairs.baseline, pairs.other
    (b_passed, b_total), (o_passed, o_total) = _passed(summary, baseline), _passed(summary, other)
    differ = b_passed * o_total != o_passed * b_total
    if differ:
        better = other if o_passed / max(o_total, 1) > b_passed / max(b_total, 1) else baseline
        # Pass rates in the manifest's design order (baseline first), as every table lists the designs.
        lead = (f"The designs differ in correctness: {baseline} passed {_share(b_passed, b_total)}, {other} "
                f"{_share(o_passed, o_total)}. {better} was right more often; that, not a cost saving, is the "
                f"result of this run.")
    else:
        lead = f"Both designs were equally often right: {baseline} {_share(b_passed, b_total)}, {other} " \
               f"{_share(o_passed, o_total)}."
    details = [_saving_sentence(summary, baseline, other)]
    if pairs.only_baseline or pairs.only_other:
        details.append(f"Of the {pairs.pairs} (case, repetition) pairs, only {baseline} was right in "
                       f"{pairs.only_baseline} and only {other} in {pairs.only_other}.")
    return Headline(lead, details, warnings, differ, biased)


def _saving_sentence(summary: RunSummary, baseline: str, other: str) -> str:
    pairs = summary.pairs[0]
    assert pairs is not None
    if pairs.correct_pairs == 0:
        return (f"No (case, repetition) pair was answered correctly by both designs, so there is no like-for-like "
                f"cost comparison (of {pairs.pairs} pairs where both finished).")
    comparison = next((c for c in summary.comparisons if c.metric == HEADLINE_METRIC), None)
    if comparison is None or comparison.saving_pct is None:
        return (f"{pairs.correct_pairs} of {pairs.pairs} pairs were answered correctly by both designs; the "
                f"provider reported no tokens to compare.")
    direction = "fewer" if comparison.saving_pct >= 0 else "more"
    return (f"Over the {pairs.correct_pairs} of {pairs.pairs} pairs where both answered correctly, {other} used "
            f"{abs(comparison.saving_pct):.1f} % {direction} total tokens than {baseline} (medians "
            f"{comparison.other_median:,.0f} and {comparison.baseline_median:,.0f}).")


def fault_warnings(faults: FaultSummary, designs: list[str], run_dir: Path | str) -> list[str]:
    """Infrastructure faults: the count per design and status, each distinct cause once, and whether biased."""
    if not faults.total:
        return []
    per_design = "; ".join(f"{d}: " + (", ".join(f"{n} {s}" for s, n in sorted(faults.by_design.get(d, {}).items()))
                                       or "none") for d in designs)
    lines = [f"{faults.total} conversation(s) ended in an infrastructure fault, not an answer ({per_design})."]
    lines += [f"{c.conversations} × {c.status}: {c.cause} (e.g. {c.example})" for c in faults.causes[:MAX_CAUSES]]
    if len(faults.causes) > MAX_CAUSES:
        lines.append(f"... and {len(faults.causes) - MAX_CAUSES} more distinct causes.")
    if faults.unequal(designs):
        counts = ", ".join(f"{d} {n}" for d, n in faults.per_design(designs).items())
        lines.append(f"The faults are unequal between the designs ({counts}): the comparison is biased.")
    lines.append(f"Re-run them with: wismo record --resume {shlex.quote(str(run_dir))}")
    return lines
