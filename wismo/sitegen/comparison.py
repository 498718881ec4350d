"""The comparison page (compare.html): `wismo compare`'s findings for the site, regressions first.

Everything is computed into plain dataclasses here (from analysis.compare_model's Comparison); the
template only lays the rows out. Run and design names come from manifests and are autoescaped there.
"""

from __future__ import annotations

from dataclasses import dataclass

from analysis.compare_model import EVERY_KIND, IMPROVEMENT, REGRESSION, Comparison, FigureChange, size_words

COMPARE_PAGE = "compare.html"


@dataclass(frozen=True)
class FigureRow:
    """One figure as a table row: the words, and a class the stylesheet colours by verdict."""

    kind: str
    figure: str
    pairs: int
    baseline: str
    candidate: str
    change: str
    verdict: str
    css: str  # "fail" for a regression, "pass" for an improvement, "" otherwise


@dataclass(frozen=True)
class DesignSection:
    """One design's figures: every kind first, then each question kind."""

    design: str
    regressions: int
    rows: list[FigureRow]


@dataclass(frozen=True)
class ComparisonPage:
    """What compare.html shows, and what the overview's link to it says."""

    baseline: str
    candidate: str
    how: str
    changes: list[str]
    regressions: list[str]
    unpaired: list[str]
    designs: list[DesignSection]

    @property
    def link_text(self) -> str:
        """The overview's one line about the comparison."""
        count = len(self.regressions)
        found = f"{count} regression{'s' if count != 1 else ''}" if count else "no regression"
        return f"Compared with the baseline run {self.baseline}: {found}."


def _mean(figure: str, value: float) -> str:
    if figure == "passed":
        return f"{value * 100:.0f} %"
    if figure == "costUsd":
        return f"{value:.6f}"
    return f"{value:,.1f}" if value < 100 else f"{value:,.0f}"


def _row(figure: FigureChange) -> FigureRow:
    css = "fail" if figure.verdict == REGRESSION else "pass" if figure.verdict == IMPROVEMENT else ""
    return FigureRow(figure.kind, figure.label, figure.pairs, _mean(figure.figure, figure.baseline_mean),
                     _mean(figure.figure, figure.candidate_mean), size_words(figure), figure.verdict, css)


def comparison_page(comparison: Comparison) -> ComparisonPage:
    """The page's data: the regressions, what changed, then every design's figures."""
    how = ("Both runs are deterministic (no language model): every change is exact." if comparison.exact else
           f"Intervals: {comparison.confidence:.0%} bootstrap over each case's repetitions "
           f"({comparison.resamples} resamples, seed {comparison.seed}).")
    changes = [f"{c.design + ': ' if c.design else ''}{c.what}: {c.baseline} → {c.candidate}"
               for c in comparison.changes]
    unpaired = [f"{design}: {base} conversation(s) only in the baseline, {cand} only in the candidate"
                for design, (base, cand) in comparison.unpaired.items()]
    sections = []
    for design in dict.fromkeys([*comparison.designs, *(f.design for f in comparison.figures)]):
        mine = [f for f in comparison.figures if f.design == design]
        if mine:
            sections.append(DesignSection(design, sum(f.verdict == REGRESSION for f in mine),
                                          [_row(f) for f in mine]))
    return ComparisonPage(baseline=comparison.baseline.run_id, candidate=comparison.candidate.run_id, how=how,
                          changes=changes, regressions=[f.words() for f in comparison.regressions()],
                          unpaired=unpaired, designs=sections)


__all__ = ["COMPARE_PAGE", "EVERY_KIND", "ComparisonPage", "comparison_page"]
