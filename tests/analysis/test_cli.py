"""`wismo validate` and `wismo summarize` as a user runs them."""

from __future__ import annotations

import dataclasses
import json
import subprocess

from click.testing import CliRunner

from analysis import summarize_runs
from tests.analysis.conftest import SAMPLE_CASES, SAMPLE_PAIRS
from tests.analysis.test_checks import FINISHED_WITH_TOOLS, is_event
from tests.helpers import WISMO
from wismo.cli import cli


def test_validate_passes_on_the_sample(sample_copy):
    result = CliRunner().invoke(cli, ["validate", str(sample_copy.path)])
    assert result.exit_code == 0, result.output
    assert "pass  seq" in result.output and result.output.strip().endswith("PASS: 18 checks")


def test_validate_fails_naming_the_rows(sample_copy):
    sample_copy.edit(is_event(FINISHED_WITH_TOOLS, "conversation_finished"),
                     lambda e: e["claimed"].update(toolCalls=99))
    result = CliRunner().invoke(cli, ["validate", str(sample_copy.path)])
    assert result.exit_code == 1
    assert "FAIL  claimed_counters (1 row)" in result.output
    assert FINISHED_WITH_TOOLS in result.output and "toolCalls" in result.output
    assert result.output.strip().splitlines()[-1] == "FAIL: claimed_counters"


def test_validate_truncates_long_lists_with_the_total(sample_copy):
    lines = sample_copy.lines()
    sample_copy.write_lines(lines + ["garbage"] * 25)
    result = CliRunner().invoke(cli, ["validate", str(sample_copy.path)])
    assert "FAIL  malformed_lines (25 rows)" in result.output
    assert "... and 15 more (check_malformed_lines.sql lists them all)" in result.output


def test_summarize_prints_medians_savings_pass_k_and_intervals(sample_copy):
    result = CliRunner().invoke(cli, ["summarize", str(sample_copy.path)])
    assert result.exit_code == 0, result.output
    for text in ("granular", "focused", "median [min-max]", "saving %", "95 % CI", "pass^k", "k=3",
                 "deterministic comparison (passed)"):
        assert text in result.output


def test_summarize_json_is_the_dataclasses(sample_copy):
    result = CliRunner().invoke(cli, ["summarize", "--json", str(sample_copy.path)])
    assert result.exit_code == 0, result.output
    [summary] = json.loads(result.output)
    assert summary["run"]["run_id"] == "sample-offline"
    assert [d["design"] for d in summary["designs"]] == ["granular", "focused"]
    assert summary["designs"][0]["pass_hat_k"] == {"1": 1.0, "2": 1.0, "3": 1.0}
    assert {c["metric"] for c in summary["comparisons"]} >= {"turns", "totalTokens"}


def _asdict_json(run_dir) -> str:
    """What `summarize --json` printed before it built its dicts directly: asdict, indented, plus the money."""
    from analysis.costs import money_of_runs
    from analysis.money_words import money_json
    from analysis.prices import PriceBook

    [summary] = summarize_runs([run_dir], paired=True)
    [money] = money_of_runs([run_dir], PriceBook())
    return json.dumps([{**dataclasses.asdict(summary), "money": money_json(money)}], indent=2, default=str) + "\n"


def test_summarize_json_with_every_list_is_byte_for_byte_the_asdict_json(sample_copy):
    result = CliRunner().invoke(cli, ["summarize", "--json", "--cases", "--paired", "--pretty", str(sample_copy.path)])
    assert result.exit_code == 0, result.output
    assert result.output == _asdict_json(sample_copy.path)


def test_summarize_json_has_every_figure_and_leaves_out_only_the_lists_not_asked_for(sample_copy):
    result = CliRunner().invoke(cli, ["summarize", "--json", str(sample_copy.path)])
    assert result.exit_code == 0, result.output
    assert result.output.count("\n") == 1  # compact: one line
    [printed] = json.loads(result.output)
    [expected] = json.loads(_asdict_json(sample_copy.path))
    assert printed["run"]["cases"] is None and printed["paired"] is None
    assert len(expected["run"]["cases"]) == SAMPLE_CASES and len(expected["paired"]) == SAMPLE_PAIRS
    expected["run"]["cases"] = expected["paired"] = None
    assert printed == expected


def test_summarize_list_options_need_json(sample_copy):
    result = CliRunner().invoke(cli, ["summarize", "--paired", str(sample_copy.path)])
    assert result.exit_code == 2 and "--paired only applies to --json" in result.output


def test_summarize_refuses_a_run_that_fails_validation(sample_copy):
    sample_copy.edit(is_event(FINISHED_WITH_TOOLS, "conversation_finished"),
                     lambda e: e["score"].update(passed=False))
    result = CliRunner().invoke(cli, ["summarize", str(sample_copy.path)])
    assert result.exit_code == 1
    assert "fails validation: stored_scores (1 row)" in result.output


def test_a_missing_run_folder_is_one_line_without_traceback(tmp_path):
    for command in ("validate", "summarize"):
        done = subprocess.run([*WISMO, command, str(tmp_path / "nope")], capture_output=True, text=True)
        assert done.returncode == 2
        assert done.stderr.strip().count("\n") == 0 and "not a run folder" in done.stderr
        assert "Traceback" not in done.stderr


def test_summarize_shows_uncached_input_beside_input_and_reasoning_beside_output(tmp_path):
    from tests.analysis.runbuilder import Conv, RunSpec, write_run

    run_dir = write_run(tmp_path, RunSpec("cached", ["granular", "focused"], 1, ["A"], [
        Conv("A", "granular", 1, [(1000, 50), (3000, 70)], [1], 5.0, cached=[0, 2048], reasoning=[30, 40]),
        Conv("A", "focused", 1, [(1000, 40), (1800, 60)], [1], 3.0, cached=[0, 1024], reasoning=[20, 20]),
    ]))
    result = CliRunner().invoke(cli, ["summarize", "--wide", str(run_dir)])  # one table: one header to read
    assert result.exit_code == 0, result.output
    header = next(line for line in result.output.splitlines() if line.startswith("design"))
    labels = ["input tokens", "uncached input", "output tokens", "reasoning tokens", "total tokens"]
    positions = [header.index(label) for label in labels]
    assert positions == sorted(positions)  # each beside its total
    granular = next(line for line in result.output.splitlines() if line.startswith("granular "))
    assert "4,000 [4,000-4,000]" in granular and "1,952 [1,952-1,952]" in granular and "70 [70-70]" in granular
    comparison = {line.split("  ")[0]: line for line in result.output.splitlines()
                  if line.startswith(("input tokens", "uncached input"))}
    # focused saves 30 % of the input, but only 9 % of what is left to pay in full with the cache
    assert "30.0" in comparison["input tokens"] and "9.0" in comparison["uncached input tokens"]
