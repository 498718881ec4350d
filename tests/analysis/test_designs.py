"""Runs of any number of designs (issue 16): every design against the baseline, figures computed by hand.

The three-design run is test_metrics' hand run (granular and focused) with a third design, middle, whose
conversations are below; each (case, repetition) group runs the three in an order that rotates between
groups. Its granular and focused conversations are the two-design run's, so the comparison of focused
with granular must come out exactly as it does there, interval included.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from analysis import RunValidationError, summarize_runs, validate_runs
from analysis.costs import costs_of_run, money_of_runs
from analysis.crossover import crossover_of_runs
from analysis.headline import headline
from analysis.model import METRICS, PairCounts, RunSummary
from analysis.money_words import PER_COMPARISON, comparison_sentences, design_cells
from analysis.prices import PriceBook
from tests.analysis.runbuilder import Conv, RunSpec, write_run
from tests.analysis.test_metrics import HAND_RUN
from wismo.cli import cli

G, F, M = "granular", "focused", "middle"
# Totals (input + output): A1 330, A2 380, B1 430, B2 240; two turns, two tool calls each; every one right.
MIDDLE = [Conv("A", M, 1, [(100, 10), (200, 20)], [2], 20.0), Conv("A", M, 2, [(100, 10), (250, 20)], [2], 22.0),
          Conv("B", M, 1, [(100, 10), (300, 20)], [2], 24.0), Conv("B", M, 2, [(100, 10), (120, 10)], [2], 18.0)]
SOURCES = {M: {"command": ["python", "middle_server.py"], "builtIn": False, "serverName": "middle",
               "serverVersion": "0.1"}}
THREE = RunSpec("three", [G, F, M], 2, ["A", "B"], HAND_RUN.conversations + MIDDLE, rotate=True,
                design_sources=SOURCES)


def passed_validation(run_dir: Path) -> None:
    [validation] = validate_runs([run_dir])
    assert validation.passed, [(c.name, c.rows) for c in validation.checks if c.row_count]


def summary_of(folder: Path, spec: RunSpec) -> RunSummary:
    run_dir = write_run(folder, spec)
    passed_validation(run_dir)
    [summary] = summarize_runs([run_dir])
    return summary


@pytest.fixture(scope="module")
def three(tmp_path_factory) -> RunSummary:
    return summary_of(tmp_path_factory.mktemp("three"), THREE)


def by_metric(summary: RunSummary, other: str) -> dict:
    return {c.metric: c for c in summary.comparisons_with(other)}


def test_the_groups_rotate_and_the_manifest_names_the_baseline_and_the_sources(three, tmp_path):
    plan = json.loads((three.run.run_dir / "manifest.json").read_text())["plan"]
    first = {(p["caseId"], p["repetition"]): p["design"] for p in plan if p["pairPosition"] == 1}
    assert first == {("A", 1): G, ("A", 2): F, ("B", 1): M, ("B", 2): G}
    assert (three.run.baseline_design, three.run.baseline, three.run.others) == (G, G, [F, M])
    assert three.run.design_sources == SOURCES
    # A run written before `baseline` existed compares with its first design.
    [older] = summarize_runs([write_run(tmp_path, replace(THREE, run_id="older", design_sources={}))])
    assert (older.run.baseline, older.run.design_sources) == (G, {})


def test_every_other_design_is_compared_with_the_baseline(three):
    assert [(c.other, c.metric) for c in three.comparisons] == [(o, m) for o in (F, M) for m in METRICS]
    assert {c.baseline for c in three.comparisons} == {G}
    # middle and granular were both right in A1, A2 and B2 (granular failed B1).
    assert three.pairs == [PairCounts(G, F, pairs=4, correct_pairs=2, only_baseline=1, only_other=1),
                           PairCounts(G, M, pairs=4, correct_pairs=3, only_baseline=0, only_other=1)]
    assert three.pairs_with(M) == three.pairs[1] and three.pairs_with(G) is None
    middle = by_metric(three, M)
    expected = {  # granular's and middle's medians over A1, A2, B2; the median of middle - granular there
        "totalTokens": (660.0, 330.0, 50.0, -330.0),    # granular 660, 710, 270; middle 330, 380, 240
        "turns": (3.0, 2.0, 100 / 3, -1.0),              # 3, 3, 2; 2, 2, 2
        "toolCalls": (4.0, 2.0, 50.0, -2.0),             # 4, 4, 1; 2, 2, 2 (differences -2, -2, 1)
        "elapsedMs": (30.0, 20.0, 100 / 3, -10.0),       # 30, 34, 20; 20, 22, 18
    }
    for metric, (baseline_median, other_median, saving, difference) in expected.items():
        c = middle[metric]
        assert (c.baseline, c.other, c.paired_n) == (G, M, 3), metric
        assert (c.baseline_median, c.other_median, c.median_difference) == (baseline_median, other_median,
                                                                            difference), metric
        assert c.saving_pct == pytest.approx(saving), metric
        assert c.ci_low <= c.median_difference <= c.ci_high, metric
    total = middle["totalTokens"]
    assert total.ci_low >= -330 and total.ci_high <= -30  # a resampled median lies among the differences
    # over all conversations: granular 660, 710, 1040, 270 -> 685; middle 330, 380, 430, 240 -> 355
    assert (total.all_baseline_median, total.all_other_median) == (685.0, 355.0)
    assert total.all_saving_pct == pytest.approx((685 - 355) / 685 * 100)


def test_the_first_design_compared_keeps_the_figures_of_the_two_design_run(three, tmp_path):
    two = summary_of(tmp_path, HAND_RUN)
    # The same conversations, the same random streams: every figure equal, bootstrap intervals included.
    assert [replace(c, run_id="three") for c in two.comparisons] == three.comparisons_with(F)
    assert two.pairs == [three.pairs_with(F)]


def test_pass_hat_k_is_per_design(three):
    # granular and focused: case A right 2 of 2, case B 1 of 2; middle always right
    assert {d.design: d.pass_hat_k for d in three.designs} == {G: {1: 0.75, 2: 0.5}, F: {1: 0.75, 2: 0.5},
                                                                M: {1: 1.0, 2: 1.0}}


def test_the_manifest_baseline_decides_what_everything_is_compared_with(tmp_path):
    summary = summary_of(tmp_path, replace(THREE, run_id="focused-first", baseline=F))
    assert (summary.run.baseline, summary.run.others) == (F, [G, M])
    assert [d.design for d in summary.designs] == [G, F, M]  # tables keep the manifest's order
    assert [(c.baseline, c.other) for c in summary.comparisons] == [(F, G)] * len(METRICS) + [(F, M)] * len(METRICS)
    assert summary.pairs == [PairCounts(F, G, pairs=4, correct_pairs=2, only_baseline=1, only_other=1),
                             PairCounts(F, M, pairs=4, correct_pairs=3, only_baseline=0, only_other=1)]
    granular, middle = by_metric(summary, G)["totalTokens"], by_metric(summary, M)["totalTokens"]
    # granular - focused over A1, A2: 660 - 280, 710 - 290
    assert (granular.baseline_median, granular.other_median, granular.median_difference) == (285.0, 685.0, 400.0)
    assert granular.saving_pct == pytest.approx((285 - 685) / 285 * 100)
    # middle - focused over A1, A2, B1 (focused failed B2): 330 - 280, 380 - 290, 430 - 290
    assert (middle.baseline_median, middle.other_median, middle.median_difference) == (290.0, 380.0, 90.0)
    assert 50 <= middle.ci_low <= middle.ci_high <= 140
    words = headline(summary)
    assert words.lead.startswith("The designs differ in correctness: focused passed 3/4 (75 %), granular 3/4 "
                                 "(75 %), middle 4/4 (100 %). Against focused, middle was right more often; "
                                 "granular was right as often")


def test_a_two_design_run_with_the_second_as_baseline_keeps_the_two_design_wording(tmp_path):
    summary = summary_of(tmp_path, replace(HAND_RUN, run_id="flipped", baseline=F))
    assert summary.pairs == [PairCounts(F, G, pairs=4, correct_pairs=2, only_baseline=1, only_other=1)]
    words = headline(summary)
    assert words.lead == "Both designs were equally often right: focused 3/4 (75 %), granular 3/4 (75 %)."
    assert words.details == [
        "Over the 2 of 4 pairs where both answered correctly, granular used 140.4 % more total tokens than "
        "focused (medians 685 and 285).",
        "Of the 4 (case, repetition) pairs, only focused was right in 1 and only granular in 1."]


def test_the_headline_states_every_pass_rate_and_one_saving_per_design(three):
    words = headline(three)
    assert words.lead == ("The designs differ in correctness: granular passed 3/4 (75 %), focused 3/4 (75 %), "
                          "middle 4/4 (100 %). Against granular, middle was right more often; focused was right "
                          "as often: where a pass rate differs, that, not a cost saving, is the result of this run. "
                          "middle against granular: by a margin chance alone could give (only granular was right in 0 "
                          "and only middle in 1 of 4 pairs: McNemar's exact test p = 1.00); record more repetitions "
                          "(wismo plan) before choosing on it.")
    assert words.pass_rates_differ and list(words.by_other) == [F, M]
    assert words.by_other[M] == [
        "Over the 3 of 4 pairs where both answered correctly, middle used 50.0 % fewer total tokens than granular "
        "(medians 330 and 660).",
        "Of the 4 (case, repetition) pairs of granular and middle, only granular was right in 0 and only middle "
        "in 1."]
    assert words.details == [*words.by_other[F], *words.by_other[M]]


def test_equal_pass_rates_over_three_designs_are_said_once(tmp_path):
    spec = RunSpec("equal", [G, F, M], 1, ["A"], [Conv("A", d, 1, [(100, 10)], [], 1.0) for d in (G, F, M)],
                   rotate=True)
    words = headline(summary_of(tmp_path, spec))
    assert words.lead == "All 3 designs were equally often right: granular passed 1/1 (100 %), focused 1/1 " \
                         "(100 %), middle 1/1 (100 %)."
    assert not words.pass_rates_differ and len(words.details) == 2


def test_summarize_shows_each_design_against_the_baseline(three):
    result = CliRunner().invoke(cli, ["summarize", str(three.run.run_dir)])
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())
    assert "focused vs granular: 2 of 4 pairs both right" in flat
    assert "middle vs granular: 3 of 4 pairs both right" in flat
    assert ("Median of the paired differences in total tokens (middle - granular) over those 3 pairs: -330, "
            "95 % interval [") in flat
    # each design's interval right after its own sentences
    assert flat.index("middle used 50.0 %") < flat.index("(middle - granular) over those 3 pairs")
    assert flat.index("(focused - granular) over those 2 pairs") < flat.index("middle used 50.0 %")
    assert "pass^k k=1 k=2 granular 0.750 0.500 focused 0.750 0.500 middle 1.000 1.000" in flat

    printed = json.loads(CliRunner().invoke(cli, ["summarize", "--json", str(three.run.run_dir)]).output)[0]
    assert printed["run"]["baseline_design"] == G and printed["run"]["design_sources"] == SOURCES
    assert [(c["other"], c["metric"]) for c in printed["comparisons"]] == [(o, m) for o in (F, M) for m in METRICS]
    assert [(p["baseline"], p["other"], p["correct_pairs"]) for p in printed["pairs"]] == [(G, F, 2), (G, M, 3)]
    assert printed["money"]["baseline"] == G
    assert [c["other"] for c in printed["money"]["comparisons"]] == [F, M]


def test_money_compares_every_design_with_the_baseline(three):
    [money] = money_of_runs([three.run.run_dir], PriceBook(), price_as="gpt-5-mini")
    assert money.baseline == G and [(c.baseline, c.other) for c in money.comparisons] == [(G, F), (G, M)]
    assert money.comparison == money.comparisons[0]
    assert [(c.correct_pairs, c.priced_pairs) for c in money.comparisons] == [(2, 2), (3, 3)]
    middle = money.comparisons[1]
    # the pairs are A1, A2 and B2, as for tokens: middle's median is its median cost over them
    costs = {(c.case_id, c.repetition, c.design): c.cost.usd
             for c in costs_of_run(three.run.run_dir, PriceBook(), price_as="gpt-5-mini")}
    mine = sorted(costs[(case, r, M)] for case, r in (("A", 1), ("A", 2), ("B", 2)))
    assert middle.other_median == mine[1]
    sentences = comparison_sentences(money)
    assert len(sentences) == 2 and "middle cost" in sentences[1] and "than granular" in sentences[1]
    granular = next(d for d in money.designs if d.design == G)
    # granular's median over the pairs it shares with focused (A1, A2) is not its median over A1, A2, B2
    assert design_cells(money, granular)[-1] == PER_COMPARISON


def test_the_crossover_view_has_every_design_and_compares_each_with_the_baseline(tmp_path):
    run_dir = write_run(tmp_path, replace(THREE, run_id="sized", order_lines={"A": 1, "B": 5}))
    passed_validation(run_dir)
    [view] = crossover_of_runs([run_dir])
    assert (view.designs, view.baseline, view.sizes) == ((G, F, M), G, (1, 5))
    tokens = [c for c in view.crossovers if c.measure == "totalTokens"]
    assert [(c.baseline, c.other) for c in tokens] == [(G, F), (G, M)]
    # middle's medians: 355 on the 1-line order (A), 335 on the 5-line one (B); granular's 685 and 655
    assert tokens[1].sentence == "middle uses fewer total tokens than granular for 'full' questions at every size " \
                                 "measured (1–5 lines)."
    lookups = next(c for c in view.crossovers if c.measure == "backendLookups" and c.other == M)
    assert lookups.sentence == "No order size has a backend lookups figure for granular and middle on 'full' " \
                               "questions."
    assert "granular passed" in view.failures["full"] and "focused passed" in view.failures["full"]


def test_a_one_design_run_summarizes_without_a_comparison(tmp_path):
    spec = RunSpec("alone", [F], 2, ["A", "B"], [c for c in HAND_RUN.conversations if c.design == F])
    summary = summary_of(tmp_path, spec)
    assert (summary.comparisons, summary.pairs, summary.run.others) == ([], [], [])
    assert headline(summary).lead == "focused passed 3/4 (75 %); there is no second design to compare with."
    result = CliRunner().invoke(cli, ["summarize", "--price-as", "gpt-5-mini", str(summary.run.run_dir)])
    assert result.exit_code == 0, result.output
    assert "there is no second design to compare with" in result.output
    assert "95 % CI" not in result.output and "paired differences" not in result.output
    assert "pairs where both answered correctly" not in result.output  # no money comparison either
    printed = json.loads(CliRunner().invoke(cli, ["summarize", "--json", str(summary.run.run_dir)]).output)[0]
    assert (printed["comparisons"], printed["pairs"], printed["run"]["baseline_design"]) == ([], [], F)
    assert (printed["money"]["comparison"], printed["money"]["comparisons"]) == (None, [])


def failing_rows(run_dir: Path) -> tuple[set[str], list[dict]]:
    [validation] = validate_runs([run_dir])
    groups = next(c for c in validation.checks if c.name == "design_groups")
    return ({c.name for c in validation.checks if not c.passed},
            [dict(zip(groups.columns, row, strict=True)) for row in groups.rows])


def test_a_baseline_that_is_not_a_design_fails_validation_naming_it(tmp_path):
    run_dir = write_run(tmp_path, replace(HAND_RUN, run_id="stranger", baseline="middle"))
    failing, rows = failing_rows(run_dir)
    assert failing == {"design_groups"}
    assert [(r["problem"], r["detail"]) for r in rows] == [
        ("baseline not a design", "the baseline middle is not one of the designs (granular, focused)")]
    with pytest.raises(RunValidationError, match="design_groups"):
        summarize_runs([run_dir])
    shown = CliRunner().invoke(cli, ["validate", str(run_dir)])
    assert shown.exit_code == 1 and "FAIL  design_groups (1 row)" in shown.output
    assert "the baseline middle is not one of the designs" in shown.output


def test_a_group_without_one_of_the_designs_fails_validation(tmp_path):
    spec = replace(THREE, run_id="gap", conversations=[c for c in THREE.conversations
                                                       if (c.case, c.repetition, c.design) != ("B", 2, M)])
    failing, rows = failing_rows(write_run(tmp_path, spec))
    assert failing == {"design_groups"}  # the plan itself lacks it: plan_coverage finds nothing missing
    assert [(r["case_id"], r["repetition"], r["problem"]) for r in rows] == [
        ("B", 2, "design missing from its group"), ("B", 2, "positions not 1..N")]
    assert rows[0]["detail"].startswith("middle has no conversation in this group")


def test_two_designs_in_one_position_fail_validation(tmp_path):
    run_dir = write_run(tmp_path, replace(THREE, run_id="clash"))
    moved = "A.focused.r1"  # group (A, 1) runs granular 1, focused 2, middle 3: focused moves to 1
    manifest = json.loads((run_dir / "manifest.json").read_text())
    for entry in manifest["plan"]:
        if entry["conversationId"] == moved:
            entry["pairPosition"] = 1
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    for event in events:
        if event["type"] == "conversation_started" and event["conversationId"] == moved:
            event["pairPosition"] = 1
    (run_dir / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    failing, rows = failing_rows(run_dir)
    assert failing == {"design_groups"}  # the events agree with the plan
    assert [(r["case_id"], r["repetition"], r["problem"], r["detail"]) for r in rows] == [
        ("A", 1, "positions not 1..N", "positions focused 1, granular 1, middle 3; with 3 designs each of 1..3 once")]
