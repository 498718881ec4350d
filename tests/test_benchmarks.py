"""The benchmark suite's own machinery (not its timings): synthetic runs must be valid runs."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from analysis import validate_runs
from benchmarks.synthetic import generate_run, record_template
from tests.helpers import ROOT


def test_synthetic_runs_pass_every_check(tmp_path):
    # Browser tests earlier in the session may hold an event loop in this thread.
    with ThreadPoolExecutor(1) as pool:
        template = pool.submit(record_template, tmp_path).result()
    run = generate_run(template, tmp_path / "synthetic-60", 60)
    [validation] = validate_runs([run])
    assert validation.passed, [(c.name, c.rows[:3]) for c in validation.checks if not c.passed]
    lines = (run / "events.jsonl").read_text().splitlines()
    finished = [line for line in lines if '"type":"conversation_finished"' in line]
    assert len(finished) == 60  # 10 cases × 2 designs × 3 repetitions


def test_the_suite_explains_itself():
    done = subprocess.run([sys.executable, "-m", "benchmarks", "--help"], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 0 and "--only" in done.stdout and "--quick" in done.stdout
    assert "startup" in done.stdout and "--merge" in done.stdout
    done = subprocess.run([sys.executable, "-m", "benchmarks.before_after", "--help"], capture_output=True,
                          text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0 and "git ref" in done.stdout and "--repeats" in done.stdout


def test_before_after_gives_summarize_as_a_ratio_to_the_bare_scan_of_the_same_round():
    from benchmarks.before_after import BARE_SCAN_NAME, _ratios

    samples = {f"{BARE_SCAN_NAME}, 100,000 conversations (s)": [1.0, 0.5, 2.0],
               "wismo summarize --json, 100,000 conversations (s)": [3.0, 2.5, 10.0],
               "wismo build-site, 10,000 conversations (s)": [9.0, 9.0, 9.0]}
    [ratio] = _ratios(samples, "after")
    assert ratio["name"] == "summarize --json / bare scan, 100,000 conversations [after]"
    assert (ratio["median"], ratio["min"], ratio["max"]) == (5.0, 3.0, 5.0)  # 3/1, 5/1 (2.5/0.5), 5/1 (10/2)
    assert ratio["met"] is False and ratio["goal"] == "≤ 4 ×"


def test_before_after_also_gives_the_cpu_time_ratio_when_it_was_measured():
    from benchmarks.before_after import BARE_SCAN_NAME, _ratios

    samples = {f"{BARE_SCAN_NAME}, 100,000 conversations (s)": [1.0, 2.0],
               "  its CPU time (bare scan), 100,000 conversations (s)": [0.5, 0.5],
               "wismo summarize --json, 100,000 conversations (s)": [3.0, 4.0],
               "  its CPU time (summarize), 100,000 conversations (s)": [2.0, 3.0]}
    wall, cpu = _ratios(samples, "after")
    assert (wall["median"], wall["met"]) == (2.5, True)  # 3/1 and 4/2
    assert cpu["name"] == "  CPU time, summarize --json / bare scan, 100,000 conversations [after]"
    assert (cpu["min"], cpu["max"], cpu["goal"]) == (4.0, 6.0, None)
