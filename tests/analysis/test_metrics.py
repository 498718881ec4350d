"""Metrics against values computed by hand on a small run written by the test; pass^k on a crafted run."""

from __future__ import annotations

import json
from math import comb

import pytest

from analysis import summarize_runs, validate_runs
from analysis.labels import FIELD_LABELS, METRIC_LABELS
from analysis.model import METRICS, PairCounts
from core.domain.fields import ASSESSMENT_FIELDS
from tests.analysis.runbuilder import Conv, RunSpec, write_run

G, F = "granular", "focused"
HAND_RUN = RunSpec("hand", [G, F], 2, ["A", "B"], [
    Conv("A", G, 1, [(100, 10), (200, 20), (300, 30)], [1, 3], 30.0),
    Conv("A", F, 1, [(100, 10), (150, 20)], [1], 12.0),
    Conv("A", G, 2, [(100, 10), (220, 20), (330, 30)], [2, 2], 34.0),
    Conv("A", F, 2, [(100, 10), (160, 20)], [1], 14.0),
    Conv("B", G, 1, [(100, 10), (200, 10), (300, 10), (400, 10)], [1, 2, 2], 50.0, passed=False),
    Conv("B", F, 1, [(100, 10), (170, 10)], [1], 16.0),
    Conv("B", G, 2, [(100, 10), (150, 10)], [1], 20.0),
    Conv("B", F, 2, [(100, 10), (150, 30)], [1], 10.0, passed=False),
])


@pytest.fixture
def hand_summary(tmp_path):
    run_dir = write_run(tmp_path, HAND_RUN)
    [validation] = validate_runs([run_dir])
    assert validation.passed, [(c.name, c.rows) for c in validation.checks if c.row_count]
    [summary] = summarize_runs([run_dir])
    return summary


def test_per_design_figures_match_the_hand_computation(hand_summary):
    granular, focused = hand_summary.designs
    assert (granular.design, focused.design) == (G, F)
    assert (granular.conversations, granular.passed, granular.pass_rate) == (4, 3, 0.75)
    assert (focused.conversations, focused.passed, focused.pass_rate) == (4, 3, 0.75)
    assert granular.field_pass_rates == {"deliveredSkus": 0.75, "outstandingSkus": 1.0, "delayReasons": 1.0,
                                         "deliveryEstimate": 1.0, "missingEvidence": 1.0, "paymentStatus": None}
    assert granular.status_counts == {"answered": 4}
    # granular: turns 3,3,4,2; calls 4,4,5,1; input 600,650,1000,250; output 60,60,40,20;
    # total 660,710,1040,270; elapsed 30,34,50,20
    expected_granular = {"turns": (3.0, 2, 4), "toolCalls": (4.0, 1, 5), "inputTokens": (625.0, 250, 1000),
                         "outputTokens": (50.0, 20, 60), "totalTokens": (685.0, 270, 1040),
                         "elapsedMs": (32.0, 20.0, 50.0)}
    # focused: turns 2 x4; calls 1 x4; input 250,260,270,250; output 30,30,20,40; total 280,290,290,290;
    # elapsed 12,14,16,10
    expected_focused = {"turns": (2.0, 2, 2), "toolCalls": (1.0, 1, 1), "inputTokens": (255.0, 250, 270),
                        "outputTokens": (30.0, 20, 40), "totalTokens": (290.0, 280, 290),
                        "elapsedMs": (13.0, 10.0, 16.0)}
    for design, expected in ((granular, expected_granular), (focused, expected_focused)):
        assert list(design.stats) == list(METRICS)
        for metric, (median, low, high) in expected.items():
            stat = design.stats[metric]
            assert (stat.median, stat.min, stat.max, stat.n) == (median, low, high, 4), (design.design, metric)


def test_every_figure_a_summary_returns_has_one_label(hand_summary):
    metrics = {m for d in hand_summary.designs for m in d.stats} | {c.metric for c in hand_summary.comparisons}
    fields = {f for d in hand_summary.designs for f in d.field_pass_rates}
    assert metrics and metrics <= set(METRIC_LABELS), metrics - set(METRIC_LABELS)
    assert fields and fields <= set(FIELD_LABELS), fields - set(FIELD_LABELS)
    # No stale labels, and no two figures under one name.
    assert set(METRIC_LABELS) == set(METRICS) and set(FIELD_LABELS) == set(ASSESSMENT_FIELDS)
    assert len({label.name for label in METRIC_LABELS.values()}) == len(METRIC_LABELS)
    assert len(set(FIELD_LABELS.values())) == len(FIELD_LABELS)


def test_savings_and_paired_differences(hand_summary):
    # (A, 1) and (A, 2): both designs passed; (B, 1): only focused; (B, 2): only granular. Savings and
    # paired differences are over the two both-correct pairs only; the all-conversation figures are kept.
    assert hand_summary.pairs == [PairCounts(G, F, pairs=4, correct_pairs=2, only_baseline=1, only_other=1)]
    by_metric = {c.metric: c for c in hand_summary.comparisons}
    assert list(by_metric) == list(METRICS)
    expected = {  # saving % on the both-correct medians; their paired median difference; saving over all
        "turns": (100 / 3, -1.0, 100 / 3),                 # granular 3, 3; focused 2, 2
        "toolCalls": (75.0, -3.0, 75.0),                   # 4, 4; 1, 1
        "inputTokens": (59.2, -370.0, 59.2),               # 600, 650; 250, 260
        "outputTokens": (50.0, -30.0, 40.0),               # 60, 60; 30, 30 (all: medians 50 and 30)
        "totalTokens": (100 * 400 / 685, -400.0, 100 * 395 / 685),  # 660, 710; 280, 290
        "elapsedMs": (59.375, -19.0, 59.375),              # 30, 34; 12, 14
    }
    for metric, (saving, difference, saving_all) in expected.items():
        comparison = by_metric[metric]
        assert (comparison.baseline, comparison.other, comparison.paired_n) == (G, F, 2)
        assert comparison.saving_pct == pytest.approx(saving)
        assert comparison.all_saving_pct == pytest.approx(saving_all)
        assert comparison.median_difference == difference
        assert comparison.ci_low <= comparison.median_difference <= comparison.ci_high
    # a resample's median lies between the smallest and largest difference
    assert by_metric["totalTokens"].ci_low >= -420 and by_metric["totalTokens"].ci_high <= -380


def test_paired_rows_put_both_designs_side_by_side(hand_summary):
    rows = {(r.case_id, r.repetition): r for r in hand_summary.paired}
    assert list(rows) == [("A", 1), ("A", 2), ("B", 1), ("B", 2)]
    b1 = rows[("B", 1)]
    assert b1.passed == {G: False, F: True}
    # built like a run recorded before the servers reported lookups: not recorded (None), never 0
    assert b1.values[G] == {"turns": 4, "toolCalls": 5, "backendLookups": None, "toolResultBytes": 10,
                            "inputTokens": 1000, "uncachedInputTokens": None, "outputTokens": 40,
                            "reasoningTokens": None, "totalTokens": 1040, "elapsedMs": 50.0}


def test_pass_hat_k_of_the_hand_run(hand_summary):
    # case A passes 2 of 2 in both designs; case B passes 1 of 2: pass^1 = (1 + 1/2) / 2, pass^2 = (1 + 0) / 2
    for design in hand_summary.designs:
        assert design.pass_hat_k == {1: 0.75, 2: 0.5}


def test_pass_hat_k_against_the_formula(tmp_path):
    repetitions, passes = 4, {"w": 4, "x": 2, "y": 0, "z": 3}
    conversations = [Conv(case, F, r, [(10, 1)], [], 1.0, passed=r <= passed)
                     for case, passed in passes.items() for r in range(1, repetitions + 1)]
    run_dir = write_run(tmp_path, RunSpec("passk", [F], repetitions, list(passes), conversations))
    [summary] = summarize_runs([run_dir])
    [focused] = summary.designs
    assert summary.comparisons == []
    for k in range(1, repetitions + 1):
        formula = sum(comb(c, k) / comb(repetitions, k) for c in passes.values()) / len(passes)
        assert focused.pass_hat_k[k] == pytest.approx(formula, abs=1e-12)


def test_missing_token_counts_stay_missing(tmp_path):
    spec = RunSpec("notokens", [G, F], 1, ["A"], [
        Conv("A", G, 1, [(None, None), (None, None)], [1], 5.0),
        Conv("A", F, 1, [(None, None)], [], 3.0),
    ])
    [summary] = summarize_runs([write_run(tmp_path, spec)])
    granular = summary.designs[0]
    assert granular.stats["inputTokens"].median is None and granular.stats["inputTokens"].n == 0
    assert granular.stats["turns"].median == 2.0
    tokens = next(c for c in summary.comparisons if c.metric == "inputTokens")
    assert (tokens.paired_n, tokens.median_difference, tokens.ci_low, tokens.saving_pct) == (0, None, None, None)


def test_the_bootstrap_is_reproducible(tmp_path):
    run_dir = write_run(tmp_path, HAND_RUN)
    first = summarize_runs([run_dir], seed=7)[0].comparisons
    again = summarize_runs([run_dir], seed=7)[0].comparisons
    assert first == again
    assert all(c.bootstrap_seed == 7 and c.bootstrap_resamples == 2000 for c in first)
    fewer = summarize_runs([run_dir], bootstrap_resamples=50, seed=7)[0].comparisons
    assert all(c.bootstrap_resamples == 50 for c in fewer)


def test_deterministic_comparison_is_joined_when_present(tmp_path):
    run_dir = write_run(tmp_path, HAND_RUN)
    [without] = summarize_runs([run_dir])
    assert (without.deterministic, without.deterministic_passed) == ([], None)
    comparison = {"passed": True, "orders": [
        {"orderId": "ORD-A", "matched": True, "bytes": {G: 900, F: 950}, "interactions": {G: 4, F: 1},
         "differences": []}]}
    (run_dir / "deterministic-comparison.json").write_text(json.dumps(comparison))
    [summary] = summarize_runs([run_dir])
    [order] = summary.deterministic
    assert summary.deterministic_passed is True
    assert (order.order_id, order.matched, order.bytes, order.interactions) == (
        "ORD-A", True, {G: 900, F: 950}, {G: 4, F: 1})


def test_uncached_input_and_reasoning_tokens_are_summed_and_compared(tmp_path):
    # granular: input 100 + 300 with 0 + 250 cached -> uncached 150; reasoning 4 + 6 = 10 of output 30
    # focused: input 100 + 200 with 0 + 50 cached -> uncached 250; reasoning 2 of output 10
    spec = RunSpec("cached", [G, F], 1, ["A"], [
        Conv("A", G, 1, [(100, 10), (300, 20)], [1], 5.0, cached=[0, 250], reasoning=[4, 6]),
        Conv("A", F, 1, [(100, 5), (200, 5)], [1], 3.0, cached=[0, 50], reasoning=[2, None]),
    ])
    run_dir = write_run(tmp_path, spec)
    [validation] = validate_runs([run_dir])
    assert validation.passed, [(c.name, c.rows) for c in validation.checks if c.row_count]
    [summary] = summarize_runs([run_dir])
    granular, focused = summary.designs
    assert (granular.stats["inputTokens"].median, granular.stats["uncachedInputTokens"].median) == (400, 150)
    assert (focused.stats["inputTokens"].median, focused.stats["uncachedInputTokens"].median) == (300, 250)
    assert (granular.stats["reasoningTokens"].median, focused.stats["reasoningTokens"].median) == (10, 2)
    by_metric = {c.metric: c for c in summary.comparisons}
    # Without the cache focused saves 25 % of the input; with it, it costs 100 more uncached tokens.
    assert by_metric["inputTokens"].saving_pct == pytest.approx(25.0)
    assert by_metric["uncachedInputTokens"].median_difference == 100
    assert by_metric["uncachedInputTokens"].saving_pct == pytest.approx(-100 / 150 * 100)


def test_a_claimed_reasoning_total_that_differs_from_the_lines_fails_validation(tmp_path):
    spec = RunSpec("claims", [F], 1, ["A"], [Conv("A", F, 1, [(100, 10)], [], 1.0, reasoning=[7])])
    run_dir = write_run(tmp_path, spec)
    events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    finished = next(e for e in events if e["type"] == "conversation_finished")
    finished["claimed"]["reasoningTokens"] = 8
    (run_dir / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    [validation] = validate_runs([run_dir])
    counters = next(c for c in validation.checks if c.sql_file == "check_claimed_counters.sql")
    assert [row[2] for row in counters.rows] == ["reasoningTokens"]


def test_provider_limits_and_refusals_are_statuses_of_their_own(tmp_path):
    spec = RunSpec("stops", [G, F], 1, ["A", "B"], [
        Conv("A", G, 1, [(100, 10)], [], 1.0, passed=False, status="provider_limit"),
        Conv("A", F, 1, [(100, 10)], [], 1.0),
        Conv("B", G, 1, [(100, 10)], [], 1.0, passed=False, status="refused"),
        Conv("B", F, 1, [(100, 10)], [], 1.0),
    ])
    run_dir = write_run(tmp_path, spec)
    [validation] = validate_runs([run_dir])
    assert validation.passed, [(c.name, c.rows) for c in validation.checks if c.row_count]
    [summary] = summarize_runs([run_dir])
    granular, focused = summary.designs
    assert granular.status_counts == {"provider_limit": 1, "refused": 1}
    assert focused.status_counts == {"answered": 2}
