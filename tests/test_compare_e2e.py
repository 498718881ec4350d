"""Issue 27 as a user meets it: a brought MCP server (examples/middle) recorded twice compares clean, and the same
server with a longer tool description (same records, so the same answers, more tokens read) is a regression
that names the design and the figure, with the changed description listed first. `wismo plan` on the
scripted pilot says it is deterministic."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT, run_wismo

EXAMPLE = ROOT / "examples" / "middle" / "server.py"
CASES = "delivered-on-time,partial-delivery,payment-not-taken"
# What the wordy copy adds to get_order's description: the kind of growth a tool server's edit brings.
EXTRA = (" Read every field of the order and of its payment with care: the customer relies on each of them, and an"
         " agent who skips one may tell them something that is not so. Quote the order ID exactly as the customer"
         " gave it, never a guess; say when a record is missing rather than assume its content; prefer the"
         " carrier's latest event over the order status when the two disagree.") * 3


def record(work: Path, run_id: str, server: Path) -> Path:
    done = run_wismo("record", "--server", f"middle={sys.executable} {server}", "--designs", "granular,middle",
                     "--cases", CASES, "--repetitions", "2", "--out", str(work / "runs"), "--run-id", run_id,
                     cwd=work, timeout=600)
    assert done.returncode == 0, done.stderr
    return work / "runs" / run_id


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    work = tmp_path_factory.mktemp("compare")
    source = EXAMPLE.read_text(encoding="utf-8")
    end = 'Returns {order, payment} as JSON."""'
    assert source.count(end) == 1
    wordy = work / "wordy_middle.py"
    wordy.write_text(source.replace(end, end[:-3] + EXTRA + '"""'), encoding="utf-8")
    return {"baseline": record(work, "baseline", EXAMPLE), "again": record(work, "again", EXAMPLE),
            "wordy": record(work, "wordy", wordy)}


def test_two_recordings_of_the_same_designs_compare_clean(recordings: dict[str, Path]):
    done = run_wismo("compare", str(recordings["baseline"]), str(recordings["again"]), cwd=recordings["again"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "what changed: nothing in the manifests" in done.stdout
    assert "every change is exact" in done.stdout and "no regression beyond the tolerances" in done.stdout


def test_a_longer_tool_description_is_a_regression_naming_the_design_and_the_figure(recordings: dict[str, Path]):
    done = run_wismo("compare", str(recordings["baseline"]), str(recordings["wordy"]), cwd=recordings["wordy"])
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    changed = lines.index(next(line for line in lines if line.startswith("what changed:")))
    regressions = lines.index(next(line for line in lines if line.startswith("REGRESSIONS")))
    assert changed < regressions  # the cause before its effect
    assert any("middle: tool get_order description: " in line for line in lines[changed:regressions])
    first = lines[regressions + 1].strip()
    assert first.startswith("middle: total tokens +") and first.endswith("(exact) on every kind (tolerance +5 %)")
    # granular's server did not change, and neither did anything it answered or read
    assert not any(line.strip().startswith("granular:") for line in lines[regressions:])
    data = json.loads(run_wismo("compare", str(recordings["baseline"]), str(recordings["wordy"]), "--json",
                                cwd=recordings["wordy"]).stdout)
    tokens = next(f for f in data["figures"] if (f["design"], f["kind"], f["figure"]) ==
                  ("middle", "every kind", "totalTokens"))
    passed = next(f for f in data["figures"] if (f["design"], f["kind"], f["figure"]) ==
                  ("middle", "every kind", "passed"))
    assert tokens["verdict"] == "regression" and tokens["change"] > 0.05 and tokens["exact"]
    assert passed["change"] == 0 and passed["verdict"] != "regression"  # same answers


def test_plan_on_a_scripted_pilot_says_it_is_deterministic(recordings: dict[str, Path]):
    done = run_wismo("plan", str(recordings["baseline"]), cwd=recordings["baseline"])
    assert done.returncode == 0, done.stderr
    assert "the pilot is deterministic" in done.stdout and "1 (deterministic)" in done.stdout
