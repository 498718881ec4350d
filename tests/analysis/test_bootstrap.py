"""The bootstrap draws each resample's median from its exact distribution: check that against brute force."""

from __future__ import annotations

import itertools
import statistics
from collections import Counter

import duckdb
import pytest

from analysis.db import sql_text


def resampled_medians(differences: list[float], resamples: int, seed: int = 11) -> list[float]:
    """bootstrap.sql run verbatim on a stand-in conversations table holding the given differences."""
    return resampled_by_design(differences, resamples, seed)["b"]


def resampled_by_design(differences: list[float], resamples: int, seed: int = 11,
                        designs: tuple[str, ...] = ("a", "b")) -> dict[str, list[float]]:
    """Per design but the first (the baseline), its resampled medians; every one has the same differences."""
    con = duckdb.connect()
    con.execute(f"CREATE TABLE run_manifest AS SELECT {list(designs)} AS designs, 'a' AS baseline")
    con.execute("CREATE TABLE conversations (design VARCHAR, case_id VARCHAR, repetition INT, turns DOUBLE, "
                "tool_calls INT, input_tokens INT, uncached_input_tokens INT, output_tokens INT, "
                "reasoning_tokens INT, total_tokens INT, elapsed_ms DOUBLE, backend_lookups INT, "
                "tool_result_bytes INT, "
                "passed BOOLEAN DEFAULT true)")  # both right: the pairs a saving is computed over
    for index, difference in enumerate(differences):
        con.execute("INSERT INTO conversations (design, case_id, repetition, turns) VALUES ('a', ?, 1, 0)",
                    [f"c{index}"])
        for design in designs[1:]:
            con.execute("INSERT INTO conversations (design, case_id, repetition, turns) VALUES (?, ?, 1, ?)",
                        [design, f"c{index}", difference])
    con.execute(f"SET VARIABLE bootstrap_resamples = {resamples}")
    con.execute(f"SET VARIABLE bootstrap_seed = {seed}")
    con.execute(sql_text("bootstrap.sql")).fetchall()
    rows = con.execute("SELECT other, median FROM bootstrap_medians WHERE metric = 'turns' ORDER BY other, b")
    medians: dict[str, list[float]] = {}
    for other, median in rows.fetchall():
        medians.setdefault(other, []).append(median)
    return medians


def exact_distribution(values: list[float]) -> dict[float, float]:
    """Every one of the n^n equally likely resamples, enumerated."""
    n = len(values)
    counts = Counter(statistics.median(values[i] for i in draw) for draw in itertools.product(range(n), repeat=n))
    return {median: count / n ** n for median, count in counts.items()}


@pytest.mark.parametrize("values", [[4.0], [5.0, 1.0], [3.0, 1.0, 4.0, 1.5, 9.0], [2.0, 7.0, 1.0, 8.0, 2.5, 8.5],
                                    [1.0, 1.0, 2.0, 2.0, 2.0, 7.0]])
def test_resampled_medians_follow_the_exact_bootstrap_distribution(values):
    resamples = 60_000
    observed = Counter(resampled_medians(values, resamples))
    exact = exact_distribution(values)
    assert set(observed) <= set(exact)
    for median, probability in exact.items():
        # five standard errors of a frequency over 60 000 draws
        tolerance = 5 * (probability * (1 - probability) / resamples) ** 0.5 + 1e-9
        assert abs(observed[median] / resamples - probability) <= tolerance, (median, probability)


def test_the_same_seed_gives_the_same_resamples_and_another_seed_others():
    values = [float(v) for v in range(40)]
    assert resampled_medians(values, 500, seed=3) == resampled_medians(values, 500, seed=3)
    assert resampled_medians(values, 500, seed=3) != resampled_medians(values, 500, seed=4)


def test_large_samples_agree_with_plain_resampling():
    values = [float((i * 7919) % 1000) for i in range(2001)]
    drawn = sorted(resampled_medians(values, 4000))
    # the bootstrap median of 2001 values concentrates within a few ranks of the sample median
    ranks = sorted(values)
    middle = len(values) // 2
    assert ranks[middle - 150] <= drawn[100] and drawn[-100] <= ranks[middle + 150]
    assert abs(statistics.median(drawn) - statistics.median(values)) <= ranks[middle + 20] - ranks[middle - 20]


def test_each_design_compared_draws_its_own_resamples_and_the_first_keeps_a_two_design_runs():
    values = [float((i * 37) % 101) for i in range(41)]
    two = resampled_by_design(values, 300)
    three = resampled_by_design(values, 300, designs=("a", "b", "c"))
    assert three["b"] == two["b"]  # adding a design changes no interval of the first one compared
    # c has b's differences but its own random stream: other resamples, the same distribution
    assert three["c"] != three["b"] and sorted(three["c"])[150] == pytest.approx(sorted(three["b"])[150], abs=10)
