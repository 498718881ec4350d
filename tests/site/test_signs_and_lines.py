"""Figures that cannot contradict (issue 25): one sign convention, disagreements explained; failures off the line."""

from __future__ import annotations

from analysis.model import CrossoverPoint, CrossoverView, MetricComparison
from wismo.sitegen import fmt
from wismo.sitegen.answer import difference, disagreement
from wismo.sitegen.crossover import on_line
from wismo.sitegen.overview import comparison_cells


def _comparison(median_difference: float, saving_pct: float) -> MetricComparison:
    return MetricComparison(run_id="r", metric="totalTokens", baseline="granular", other="focused",
                            baseline_median=400.0, other_median=400.0 * (1 - saving_pct / 100),
                            saving_pct=saving_pct, paired_n=12, median_difference=median_difference, ci_low=-27.0,
                            ci_high=-12.0, bootstrap_resamples=2000, bootstrap_seed=1, all_saving_pct=saving_pct)


def test_numbers_use_the_true_minus_sign():
    assert fmt.count(-5) == "−5" and fmt.pct(-28.6) == "−28.6 %" and fmt.ms(-4.5) == "−4.5 ms"
    assert fmt.signed_pct(-49.8) == "−49.8 %" and fmt.signed_pct(5) == "+5.0 %" and fmt.signed_pct(0.01) == "±0.0 %"


def test_a_difference_and_a_change_that_disagree_are_marked_with_the_reason():
    # The cell: the paired difference says fewer (−20), the medians more (a −5 % saving is 5 % more).
    contradicting = _comparison(-20.0, -5.0)
    reason = disagreement("totalTokens", contradicting)
    assert "the median per pair is −20 but the medians differ by +5.0 %" in reason
    notes: list[str] = []
    paired, change, change_all = comparison_cells("totalTokens", [("granular", "focused")],
                                                   {("totalTokens", "granular", "focused"): contradicting},
                                                   footnotes=notes)
    assert paired == "−20 [−27, −12] · 12 pairs" and change == "+5.0 % †" and change_all == "+5.0 %"
    assert notes == [reason]
    assert reason in difference(contradicting, 12)
    # ±0 per pair against a 28.6 % change of the medians is a disagreement too; the same direction is none.
    assert disagreement("totalTokens", _comparison(0.0, -28.6))
    agreeing = _comparison(-20.0, 5.0)
    assert disagreement("totalTokens", agreeing) == "" and "†" not in difference(agreeing, 12)


def _point(design: str, lines: int, passed: int, of: int = 3, stopped: int = 0) -> CrossoverPoint:
    return CrossoverPoint(design=design, kind="full", asks=(), order_lines=lines, conversations=of, passed=passed,
                          pass_rate=passed / of, budget_stopped=stopped, medians={"totalTokens": 100.0 * lines})


def test_a_point_joins_its_line_only_where_its_design_was_right_as_often_as_the_best():
    points = [_point("granular", 1, 3), _point("focused", 1, 3), _point("granular", 25, 0, stopped=3),
              _point("focused", 25, 3), _point("granular", 50, 2), _point("focused", 50, 3),
              _point("granular", 100, 0), _point("focused", 100, 0)]
    view = CrossoverView(run_id="r", designs=("granular", "focused"), kinds=("full",), sizes=(1, 25, 50, 100),
                         points=points, crossovers=[], failures={}, unsized_conversations=0, money_note="")
    joined = on_line(view)
    assert joined[("granular", "full", 1)] and joined[("focused", "full", 25)] and joined[("focused", "full", 50)]
    assert not joined[("granular", "full", 25)]  # stopped by the budget: never the cheap one
    assert not joined[("granular", "full", 50)]  # right less often than focused
    # Nobody right at all: no line for either.
    assert not joined[("granular", "full", 100)] and not joined[("focused", "full", 100)]
