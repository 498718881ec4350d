"""The headline tells the truth about failures: correctness first, savings only where both designs were right.

Two real recordings a user could make by mistake: one where a budget makes granular fail every
conversation, one where every request hits a connection error. Neither may print a saving as its
result, and faults are shown (in `record`, `summarize` and on the site) with their causes.
"""

from __future__ import annotations

import json
import re

from analysis import summarize_runs, validate_runs
from analysis.headline import headline
from tests.helpers import CASE_COUNT, CONVERSATIONS, run_wismo

METRICS_SHOWN = ("turns", "tool calls", "input tokens", "output tokens", "total tokens", "time ms")


def test_a_design_that_never_passes_makes_correctness_the_headline_and_no_saving_is_shown(tmp_path):
    # Two turns are enough for focused (one call, then the answer), never for granular.
    done = run_wismo("record", "--repetitions", "1", "--max-turns", "2", "--out", "runs", "--run-id", "budget",
                     cwd=tmp_path)
    assert done.returncode == 0, done.stderr  # a budget hit is the model's result, not a fault
    run = tmp_path / "runs" / "budget"
    [summary] = summarize_runs([run])
    granular, focused = summary.designs
    assert (granular.passed, focused.passed) == (0, CASE_COUNT)
    assert summary.pairs and (summary.pairs[0].pairs, summary.pairs[0].correct_pairs) == (CASE_COUNT, 0)
    for comparison in summary.comparisons:
        assert comparison.paired_n == 0 and comparison.saving_pct is None and comparison.median_difference is None
        if comparison.metric not in ("uncachedInputTokens", "reasoningTokens"):  # the scripted policy reports none
            assert comparison.all_saving_pct is not None  # kept beside, labelled
    words = headline(summary)
    n = CASE_COUNT
    assert words.pass_rates_differ and f"granular passed 0/{n} (0 %), focused {n}/{n} (100 %)" in words.lead
    assert words.details[0].startswith("No (case, repetition) pair was answered correctly by both designs")

    shown = run_wismo("summarize", "--wide", str(run), cwd=tmp_path)  # one table, each sentence on one line
    assert shown.returncode == 0
    assert words.lead in shown.stdout and "where BOTH answered correctly" in shown.stdout
    rows = [line.split() for line in shown.stdout.splitlines() if line.startswith(METRICS_SHOWN)]
    assert rows and all("0" in row and row.count("–") >= 3 for row in rows), rows  # no median, no saving

    site = run_wismo("build-site", str(run), "--out", "site", cwd=tmp_path)
    assert site.returncode == 0, site.stderr
    index = (tmp_path / "site" / "index.html").read_text()
    assert "The designs differ in correctness" in index and "No (case, repetition) pair was answered" in index


def test_a_run_of_connection_errors_is_never_a_silent_saving(tmp_path):
    done = run_wismo("record", "--provider", "openai-chat", "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
                     "--repetitions", "1", "--concurrency", str(CONVERSATIONS), "--out", "runs", "--run-id", "down",
                     cwd=tmp_path)
    # The same connection error three times in a row stops the run; the rest were in flight: interrupted
    # (on a loaded machine a fourth error may land before the stop reaches the others: counted as such).
    reason = "provider_error: connection: could not reach the server at http://127.0.0.1:9/v1"
    assert done.returncode == 1
    assert "3 conversations in a row ended with the same error" in done.stderr and "wismo doctor" in done.stderr
    run = tmp_path / "runs" / "down"
    [validation] = validate_runs([run])
    assert validation.passed  # every line adds up: the run is consistent, and its faults are shown

    shown = run_wismo("summarize", str(run), cwd=tmp_path)
    flat = " ".join(shown.stdout.split())  # sentences wrap at 100 columns
    errors = int(re.search(rf"(\d+) × {re.escape(reason)}", flat).group(1))
    assert errors >= 3
    cause = f"{errors} × {reason}"
    assert f"warning: {CONVERSATIONS} conversation(s) ended in an infrastructure fault" in flat
    assert f"{CONVERSATIONS - errors} × interrupted: the run stopped" in flat
    assert "No (case, repetition) pair was answered correctly by both designs" in flat
    assert "called no tool" not in flat  # the model was never heard: no warning about its tool use
    as_json = json.loads(run_wismo("summarize", "--json", str(run), cwd=tmp_path).stdout)[0]
    by_design = as_json["faults"]["by_design"]
    assert sum(n for statuses in by_design.values() for n in statuses.values()) == CONVERSATIONS
    assert sorted(c["conversations"] for c in as_json["faults"]["causes"]) == sorted([errors, CONVERSATIONS - errors])

    site = run_wismo("build-site", str(run), "--out", "site", cwd=tmp_path)
    index = (tmp_path / "site" / "index.html").read_text()
    assert "Infrastructure faults" in index and cause in index
    assert f"{CONVERSATIONS} conversations ended in an infrastructure fault" in index  # on the run's card too
    assert site.returncode == 0
