"""The headline of a run in words: correctness first, then the like-for-like saving, then the faults.

Every design is compared with the run's baseline: one saving sentence per other design. A run of two
designs keeps the wording it always had; a run of one says there is nothing to compare with.

`wismo summarize` prints these sentences and the site shows them above a run's figures, so both say
the same thing. Every number in them is a field of the RunSummary.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path

from analysis.model import FaultSummary, PairCounts, RunSummary

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
    # The details again, split by the design compared with the baseline (manifest order), for a caller
    # that adds figures of its own after each design's sentences (summarize's interval)
    by_other: dict[str, list[str]] = field(default_factory=dict)


def _passed(summary: RunSummary, design: str) -> tuple[int, int]:
    metrics = next(m for m in summary.designs if m.design == design)
    return metrics.passed, metrics.conversations


def _share(passed: int, total: int) -> str:
    return f"{passed}/{total} ({passed / total * 100:.0f} %)" if total else f"{passed}/{total}"


def headline(summary: RunSummary) -> Headline:
    """The sentences for one validated run: every design against the baseline."""
    designs = [m.design for m in summary.designs]
    warnings = fault_warnings(summary.faults, designs, summary.run.run_dir)
    biased = summary.faults.unequal(designs)
    if not summary.pairs or len(designs) < 2:
        only = ", ".join(f"{d} passed {_share(*_passed(summary, d))}" for d in designs)
        return Headline(f"{only}; there is no second design to compare with.", [], warnings, False, biased)
    if len(summary.pairs) == 1:
        return _two_designs(summary, warnings, biased)
    baseline = summary.pairs[0].baseline
    b_passed, b_total = _passed(summary, baseline)
    # Each design against the baseline: +1 right more often, -1 less often, 0 as often (cross-multiplied:
    # no rounding decides it).
    sides = {}
    for pairs in summary.pairs:
        o_passed, o_total = _passed(summary, pairs.other)
        sides[pairs.other] = (o_passed * b_total > b_passed * o_total) - (o_passed * b_total < b_passed * o_total)
    # Pass rates baseline first, then the others in the manifest's order, as every table lists the designs.
    rates = ", ".join([f"{baseline} passed {_share(b_passed, b_total)}",
                       *(f"{other} {_share(*_passed(summary, other))}" for other in sides)])
    differ = any(sides.values())
    if differ:
        said = [f"{_names(names)} {'was' if len(names) == 1 else 'were'} right {words}"
                for words, side in (("more often", 1), ("less often", -1), ("as often", 0))
                if (names := [o for o, s in sides.items() if s == side])]
        lead = (f"The designs differ in correctness: {rates}. Against {baseline}, {'; '.join(said)}: where a "
                f"pass rate differs, that, not a cost saving, is the result of this run.")
        lead += "".join(f" {pairs.other} against {baseline}: by {by_chance(pairs)}." for pairs in summary.pairs
                        if sides[pairs.other] and not pairs.beyond_chance)
    else:
        lead = f"All {len(designs)} designs were equally often right: {rates}."
    by_other = {}
    for pairs in summary.pairs:
        mine = by_other[pairs.other] = [_saving_sentence(summary, pairs, named=True)]
        if pairs.only_baseline or pairs.only_other:
            mine.append(f"Of the {pairs.pairs} (case, repetition) pairs of {baseline} and {pairs.other}, only "
                        f"{baseline} was right in {pairs.only_baseline} and only {pairs.other} in "
                        f"{pairs.only_other}.")
    return Headline(lead, [line for mine in by_other.values() for line in mine], warnings, differ, biased, by_other)


def by_chance(pairs: PairCounts) -> str:
    """A pass-rate difference chance alone could give, in words, with the test and what to do about it."""
    return (f"a margin chance alone could give (only {pairs.baseline} was right in {pairs.only_baseline} and only "
            f"{pairs.other} in {pairs.only_other} of {pairs.pairs} pairs: McNemar's exact test p = "
            f"{pairs.chance_p:.2f}); record more repetitions (wismo plan) before choosing on it")


def _names(names: list[str]) -> str:
    """a; a and b; a, b and c."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _two_designs(summary: RunSummary, warnings: list[str], biased: bool) -> Headline:
    """The wording of a run of two designs (tests and users rely on it)."""
    pairs = summary.pairs[0]
    baseline, other = pairs.baseline, pairs.other
    (b_passed, b_total), (o_passed, o_total) = _passed(summary, baseline), _passed(summary, other)
    differ = b_passed * o_total != o_passed * b_total
    if differ:
        better = other if o_passed / max(o_total, 1) > b_passed / max(b_total, 1) else baseline
        # Pass rates baseline first, as every table lists the designs.
        lead = (f"The designs differ in correctness: {baseline} passed {_share(b_passed, b_total)}, {other} "
                f"{_share(o_passed, o_total)}. {better} was right more often"
                + ("; that, not a cost saving, is the result of this run." if pairs.beyond_chance else
                   f", but by {by_chance(pairs)}."))
    else:
        lead = f"Both designs were equally often right: {baseline} {_share(b_passed, b_total)}, {other} " \
               f"{_share(o_passed, o_total)}."
    details = [_saving_sentence(summary, pairs)]
    if pairs.only_baseline or pairs.only_other:
        details.append(f"Of the {pairs.pairs} (case, repetition) pairs, only {baseline} was right in "
                       f"{pairs.only_baseline} and only {other} in {pairs.only_other}.")
    return Headline(lead, details, warnings, differ, biased, {other: details})


def _saving_sentence(summary: RunSummary, pairs: PairCounts, *, named: bool = False) -> str:
    """What `pairs.other` saves over the baseline; `named` says which two designs "both" are (N > 2)."""
    baseline, other = pairs.baseline, pairs.other
    both = f"both {baseline} and {other}" if named else "both designs"
    if pairs.correct_pairs == 0:
        return (f"No (case, repetition) pair was answered correctly by {both}, so there is no like-for-like "
                f"cost comparison (of {pairs.pairs} pairs where both finished).")
    comparison = next((c for c in summary.comparisons_with(other) if c.metric == HEADLINE_METRIC), None)
    if comparison is None or comparison.saving_pct is None:
        return (f"{pairs.correct_pairs} of {pairs.pairs} pairs were answered correctly by {both}; the "
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
