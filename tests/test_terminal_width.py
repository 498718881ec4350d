"""`wismo summarize` fits in 100 columns by default, whatever the run; `--wide` keeps one table per section.

Three runs a user meets: the committed sample, two runs summarized together, and a run of a language
model (uncached and reasoning tokens reported, six-digit token counts, a provider fault whose cause is
a long sentence). Every line of the default output must fit, and nothing may be dropped to make it fit.
"""

from __future__ import annotations

import io
import os
import re
import shutil
from pathlib import Path

import pytest

from analysis import summarize_runs
from analysis.crossover import crossover_of_runs
from analysis.labels import METRIC_LABELS
from analysis.model import METRICS
from analysis.prices import PriceBook
from recorder.agent.loop import ConversationPlan
from tests.analysis.runbuilder import Conv, RunSpec, write_run
from tests.helpers import ROOT, run_wismo
from wismo.cli._crossover import crossover_lines
from wismo.cli._money import Pricing, money_lines
from wismo.cli._progress import ProgressLine
from wismo.cli._tables import WIDTH, column_blocks, table, wrap
from wismo.cli.summarize import summary_lines
from wismo.loopback.process import loopback_process

SAMPLE = ROOT / "runs" / "sample-offline"
CASES = "delivered-on-time,carrier-delay,partial-delivery,payment-declined"
THREE_DESIGNS = ["granular", "focused", "orders-and-payments-middle"]
LONG_CAUSE = ("the upstream gateway rejected the request because the organisation's monthly quota for this "
              "project was exceeded; ask an administrator to raise it")


def too_wide(text: str) -> list[str]:
    return [line for line in text.splitlines() if len(line) > WIDTH]


def flat(text: str) -> str:
    """The output with every run of whitespace as one space: wrapped sentences read whole again."""
    return " ".join(text.split())


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    """A folder holding a copy of the sample, a recorded language-model run and a built one with big figures."""
    folder = tmp_path_factory.mktemp("width")
    shutil.copytree(SAMPLE, folder / "runs" / "sample-offline")
    plan = {"faults": [{"do": "status", "status": 400, "message": LONG_CAUSE, "order": "ORD-1002", "times": 1}]}
    with loopback_process("responses", plan) as server:
        done = run_wismo("record", "--provider", "openai", "--base-url", server.url + "/v1", "--model",
                         "gpt-loopback", "--repetitions", "1", "--cases", CASES, "--concurrency", "4",
                         "--out", "runs", "--run-id", "hosted", cwd=folder, env={"OPENAI_API_KEY": "sk-width-test"})
    assert done.returncode == 1, done.stderr  # the planned fault, reported as such
    write_run(folder / "runs", RunSpec("big", ["granular", "focused"], 1, ["A", "B"], [
        Conv(case, design, 1, [(98_765, 4_321), (187_654, 12_345)], [3], 123_456.0,
             cached=[0, 65_432], reasoning=[3_210, 9_876])
        for case in ("A", "B") for design in ("granular", "focused")]))
    # Three designs (issue 16), one with a user's long name, six-digit figures, a failure in each group of B,
    # and two order sizes (the crossover view).
    write_run(folder / "runs", RunSpec("three", THREE_DESIGNS, 2, ["A", "B"], [
        Conv(case, design, r, [(98_765 - 1_000 * i, 4_321), (187_654 + 3_000 * r, 12_345)], [3 + i], 123_456.0 + i,
             cached=[0, 65_432], reasoning=[3_210, 9_876], passed=not (case == "B" and i == r))
        for case in ("A", "B") for r in (1, 2) for i, design in enumerate(THREE_DESIGNS)],
        rotate=True, order_lines={"A": 1, "B": 12}))
    return folder / "runs"


def test_the_sample_run_fits_in_100_columns_and_keeps_every_column(runs):
    done = run_wismo("summarize", str(runs / "sample-offline"), cwd=runs)
    assert done.returncode == 0, done.stderr
    assert too_wide(done.stdout) == []
    wide = run_wismo("summarize", "--wide", str(runs / "sample-offline"), cwd=runs)
    assert too_wide(wide.stdout), "the sample's one-table layout is wider than 100: the test would prove nothing"
    headers = [line for line in done.stdout.splitlines() if line.startswith("design ")]
    for metric in METRICS:  # every metric still has its column, in some block
        assert any(METRIC_LABELS[metric].name in header for header in headers), metric
    # Each block repeats the design column, so every row names its design.
    section = done.stdout.split("per design:")[1].split("pass % per field")[0]
    metric_rows = [line.split()[0] for line in section.splitlines()[1:] if line.strip()]
    assert set(metric_rows) == {"design", "granular", "focused"}
    assert metric_rows.count("granular") == metric_rows.count("design") >= 2


def test_the_money_section_fits_in_100_columns_too(runs):
    done = run_wismo("summarize", str(runs / "sample-offline"), "--price-as", "gpt-5-mini", cwd=runs)
    assert done.returncode == 0, done.stderr
    assert "money (USD)" in done.stdout and "price: gpt-5-mini" in done.stdout
    assert too_wide(done.stdout) == []
    wide = run_wismo("summarize", "--wide", str(runs / "sample-offline"), "--price-as", "gpt-5-mini", cwd=runs)
    assert [line for line in too_wide(wide.stdout) if "pairs where both answered correctly" in line]


def test_two_runs_summarized_together_fit_in_100_columns(runs):
    done = run_wismo("summarize", str(runs / "sample-offline"), str(runs / "hosted"), cwd=runs)
    assert done.returncode == 0, done.stderr
    assert too_wide(done.stdout) == []
    assert "run sample-offline:" in done.stdout and "run hosted:" in done.stdout


def test_a_language_model_run_with_a_fault_fits_and_says_everything_the_wide_layout_says(runs):
    for run in ("hosted", "big"):
        done = run_wismo("summarize", str(runs / run), cwd=runs)
        assert done.returncode == 0, done.stderr
        assert too_wide(done.stdout) == [], run
        wide = run_wismo("summarize", "--wide", str(runs / run), cwd=runs).stdout
        # The same words and figures, only laid out differently: every cell of the wide tables is printed.
        # ("design" and "metric" head the repeated first column of each block; "medians" shows in both.)
        cells = {cell for line in wide.splitlines() for cell in re.split(r"\s{2,}", line.strip()) if cell}
        assert [c for c in cells if c not in done.stdout and c not in flat(done.stdout)] == []
    hosted = run_wismo("summarize", str(runs / "hosted"), cwd=runs).stdout
    assert "uncached input tokens" in hosted and "reasoning tokens (of output)" in hosted
    assert LONG_CAUSE in flat(hosted)  # the cause wraps at word boundaries, whole
    big = run_wismo("summarize", str(runs / "big"), cwd=runs).stdout
    assert "286,419 [286,419-286,419]" in big  # input tokens 98,765 + 187,654: six digits still fit


def test_a_run_of_three_designs_fits_in_80_and_100_columns_and_keeps_every_figure(runs):
    run = str(runs / "three")
    done = run_wismo("summarize", run, "--price-as", "gpt-5-mini", cwd=runs)
    assert done.returncode == 0, done.stderr
    assert too_wide(done.stdout) == []
    wide = run_wismo("summarize", "--wide", run, "--price-as", "gpt-5-mini", cwd=runs).stdout
    cells = {cell for line in wide.splitlines() for cell in re.split(r"\s{2,}", line.strip()) if cell}
    assert [c for c in cells if c not in done.stdout and c not in flat(done.stdout)] == []
    for other in THREE_DESIGNS[1:]:  # each design against the baseline, with its interval
        assert f"{other} vs granular:" in done.stdout
        assert re.search(rf"\({re.escape(other)} - granular\) over those \d+ pairs: -?[\d,]+, 95 % interval",
                         flat(done.stdout))
    # The same sections laid out for an 80-column terminal: nothing dropped, no line longer.
    [summary] = summarize_runs([runs / "three"])
    [money] = Pricing(PriceBook(), "gpt-5-mini").money([runs / "three"])
    [view] = crossover_of_runs([runs / "three"], Pricing(PriceBook(), "gpt-5-mini"))
    narrow = [*summary_lines(summary, 80), *money_lines(money, 80), *crossover_lines(view, 80)]
    assert [line for line in narrow if len(line) > 80] == []
    text = "\n".join(narrow)
    assert all(design in text for design in THREE_DESIGNS)
    assert [c for c in cells if c not in text and c not in flat(text)] == []
    crossover = run_wismo("summarize", "--crossover", run, cwd=runs).stdout
    assert too_wide(crossover) == [] and "orders-and-payments-middle uses" in crossover


def test_wide_prints_one_table_per_section_and_refuses_json(runs):
    wide = run_wismo("summarize", "--wide", str(runs / "sample-offline"), cwd=runs)
    headers = [line for line in wide.stdout.splitlines() if line.startswith("design ")]
    assert len(headers) == 2  # the metrics and the deterministic comparison, each one table
    assert all(METRIC_LABELS[m].name in headers[0] for m in METRICS)
    refused = run_wismo("summarize", "--wide", "--json", str(runs / "sample-offline"), cwd=runs)
    assert refused.returncode == 2 and "--wide only applies to the tables" in refused.stderr


def test_column_blocks_repeat_the_first_column_and_keep_each_block_within_the_width():
    headers = ["design", *(f"metric number {i}" for i in range(12))]
    rows = [["granular", *(f"{i * 1000:,} [1-{i * 2000:,}]" for i in range(12))]]
    lines = table(headers, rows, width=60)
    assert all(len(line) <= 60 for line in lines)
    blocks = "\n".join(lines).split("\n\n")
    assert len(blocks) > 1 and all(block.startswith("design") for block in blocks)
    assert all(f"metric number {i}" in "\n".join(lines) for i in range(12))
    assert table(headers, rows) == table(headers, rows, width=None) and len(table(headers, rows)) == 2
    # A column wider than the room left still gets a block of its own rather than being cut.
    assert column_blocks([10, 95, 5], 100) == [[0, 1], [0, 2]]
    assert column_blocks([10, 40, 40, 40], 100) == [[0, 1, 2], [0, 3]]


def test_wrap_keeps_long_words_whole_and_indents_what_follows():
    path = "/a/" + "very-long-folder/" * 8 + "run"
    lines = wrap(f"Re-run them with: wismo record --resume {path}", 40)
    assert lines == ["Re-run them with: wismo record --resume", "  " + path]  # too long for 40, but whole
    assert wrap("short", None) == ["short"] and wrap("", 40) == [""]
    # A percentage stays with its number: "95" ends no line when "%" follows.
    sentence = "x" * 13 + " a 95 % interval"
    assert all(not line.endswith(" 95") for width in range(20, 60) for line in wrap(sentence, width))
    assert wrap("saved 49.8 % of it", 12) == ["saved 49.8 %", "  of it"]
    assert wrap("saved 49.8 % of it", 11) == ["saved", "  49.8 % of", "  it"]


def test_demo_ends_with_the_headline_then_the_path_of_the_index(tmp_path):
    done = run_wismo("demo", "--runs", "runs", "--out", "site", "--repetitions", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert Path(lines[-1]) == (tmp_path / "site" / "index.html").resolve()  # still the last line
    assert lines[-2] == ""
    answer = flat("\n".join(lines[:-1]))
    # Pass rates in the manifest's order, then the difference on the pairs both passed, with its interval.
    assert re.search(r"Both designs were equally often right: granular \d+/\d+ \(100 %\), focused", answer)
    assert re.search(r"Over the \d+ of \d+ pairs where both answered correctly, focused used [\d.]+ % fewer total "
                     r"tokens than granular", answer)
    assert re.search(r"\(focused - granular\) over those \d+ pairs: -[\d,]+, 95 % interval \[-[\d,]+, -[\d,]+\]\.",
                     answer)
    assert answer.index("every check passed") < answer.index("Both designs")
    assert too_wide("\n".join(lines[:-1])) == []


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_line_never_outgrows_the_terminal(monkeypatch):
    # A longer line would wrap, and each "\r" redraw would then leave a row behind.
    monkeypatch.setattr(shutil, "get_terminal_size", lambda fallback=(80, 24): os.terminal_size((60, 24)))
    terminal = _Terminal()
    progress = ProgressLine(terminal)
    progress.start(48, 0)
    plan = ConversationPlan("when-the-rest-of-my-order-arrives.granular.r12", "when-the-rest-of-my-order-arrives",
                            "ORD-1004", "Where is the rest?", "granular", 12, 0, 1, {})
    progress.response(plan, 3, {"inputTokens": 123_456, "outputTokens": 7_890, "estimated": True})
    drawn = terminal.getvalue().split("\r")[1:]
    assert drawn and all(len(line) <= 59 for line in drawn)  # 59 characters and the "\r": the 60 columns
    assert drawn[0].startswith("[") and "when-the-rest" in drawn[0]
