"""A pass-rate difference chance alone could give is said to be one, in summarize's headline and the site's verdict.

McNemar's exact test on the (case, repetition) pairs only one design got right; the expected p-values are the
binomial tails worked out by hand below, and a simulation of fair coins checks the test's reading of them.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from analysis import summarize_runs
from analysis.headline import headline
from analysis.model import PairCounts
from tests.helpers import run_wismo


def _pairs(only_baseline: int, only_other: int, pairs: int = 36) -> PairCounts:
    return PairCounts("granular", "focused", pairs, pairs - only_baseline - only_other, only_baseline, only_other)


@pytest.mark.parametrize(("only_baseline", "only_other", "p"), [
    (0, 0, 1.0),  # no pair split them
    (2, 1, 1.0),  # 2 × (1 + 3) / 8, capped
    (5, 0, 0.0625),  # 2 / 32: five in a row is not rare enough
    (0, 6, 0.03125),  # 2 / 64
    (8, 2, 0.109375),  # 2 × (1 + 10 + 45) / 1024
    (12, 1, 0.003418),  # 2 × 14 / 8192
])
def test_the_exact_test_gives_the_binomial_tail(only_baseline, only_other, p):
    assert _pairs(only_baseline, only_other).chance_p == pytest.approx(p, abs=1e-6)
    assert _pairs(only_baseline, only_other).beyond_chance == (p < 0.05)


def test_fair_coins_are_called_beyond_chance_at_most_one_time_in_twenty():
    rng = random.Random(20261203)
    called = 0
    for _ in range(2000):
        heads = sum(rng.random() < 0.5 for _ in range(15))
        called += _pairs(heads, 15 - heads).beyond_chance
    assert called / 2000 <= 0.05  # exact tests are conservative: about 0.035 for 15 coins


def test_summarize_says_a_small_difference_is_within_chance_and_a_large_one_is_the_result(tmp_path):
    done = run_wismo("record", "--repetitions", "1", "--out", "runs", "--run-id", "r", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [summary] = summarize_runs([tmp_path / "runs" / "r"])
    granular, focused = summary.designs
    [pairs] = summary.pairs
    n = granular.conversations
    # focused loses 2 of the pairs: chance gives that half the time
    small = replace(summary, designs=[granular, replace(focused, passed=n - 2, pass_rate=(n - 2) / n)],
                    pairs=[replace(pairs, correct_pairs=n - 2, only_baseline=2)])
    lead = headline(small).lead
    assert "granular was right more often, but by a margin chance alone could give" in lead
    assert "McNemar's exact test p = 0.50" in lead and "not a cost saving" not in lead
    # ... and all of them: 12 coins all heads, 1 time in 2,048
    large = replace(summary, designs=[granular, replace(focused, passed=0, pass_rate=0.0)],
                    pairs=[replace(pairs, correct_pairs=0, only_baseline=n)])
    lead = headline(large).lead
    assert "granular was right more often; that, not a cost saving, is the result of this run." in lead
    assert "chance" not in lead
