"""Designs appear in the manifest's order everywhere: record's table, summarize, its JSON, claims, the
deterministic comparison and the site.

Two real recordings: the default `granular,focused` (not alphabetical: sorting would put focused
first) and `focused,granular` (not the default: hard-coding the default order would show granular first).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from analysis import summarize_runs
from recorder.designs.comparison import design_order
from tests.analysis.runbuilder import Conv, RunSpec, write_run
from tests.helpers import run_wismo

ORDERS = {"gf": ["granular", "focused"], "fg": ["focused", "granular"]}
ROW = re.compile(r"^(granular|focused)\s{2,}")  # a table row: the design, then the column gap


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> dict[str, tuple[Path, str]]:
    """Both runs (one repetition each) and what `record` printed for each."""
    folder = tmp_path_factory.mktemp("order")
    runs = {}
    for run_id, designs in ORDERS.items():
        done = run_wismo("record", "--designs", ",".join(designs), "--repetitions", "1", "--out", "runs",
                         "--run-id", run_id, cwd=folder)
        assert done.returncode == 0, done.stderr
        runs[run_id] = (folder / "runs" / run_id, done.stdout)
    return runs


def rows_in_order(text: str, designs: list[str]) -> None:
    """Every table's rows list the designs in `designs` order."""
    names = [m.group(1) for line in text.splitlines() if (m := ROW.match(line))]
    assert names and names == designs * (len(names) // len(designs)), names


@pytest.mark.parametrize("run_id", sorted(ORDERS))
def test_the_manifest_keeps_the_order_given(recorded, run_id):
    run, _ = recorded[run_id]
    assert json.loads((run / "manifest.json").read_text())["designs"] == ORDERS[run_id]


@pytest.mark.parametrize("run_id", sorted(ORDERS))
def test_record_prints_its_table_in_the_manifest_order(recorded, run_id):
    _, printed = recorded[run_id]
    rows_in_order(printed, ORDERS[run_id])


@pytest.mark.parametrize("run_id", sorted(ORDERS))
def test_summarize_lists_the_designs_in_the_manifest_order_in_every_table_and_sentence(recorded, run_id):
    run, _ = recorded[run_id]
    first, second = ORDERS[run_id]
    for wide in ([], ["--wide"]):
        done = run_wismo("summarize", *wide, str(run), cwd=run.parent)
        assert done.returncode == 0, done.stderr
        rows_in_order(done.stdout, ORDERS[run_id])
        # design table blocks, fields, pass^k, claim findings, deterministic comparison
        assert len([line for line in done.stdout.splitlines() if ROW.match(line)]) >= 2 * 5
        assert "summaries with claim findings" in done.stdout and "deterministic comparison (passed)" in done.stdout
        comparison = next(line for line in done.stdout.splitlines() if line.startswith("metric "))
        assert comparison.index(first) < comparison.index(second)
        flat = " ".join(done.stdout.split())
        assert f"Both designs were equally often right: {first} " in flat


@pytest.mark.parametrize("run_id", sorted(ORDERS))
def test_summarize_json_and_the_stored_comparison_follow_the_manifest_order(recorded, run_id):
    run, _ = recorded[run_id]
    [summary] = json.loads(run_wismo("summarize", "--json", str(run), cwd=run.parent).stdout)
    assert [d["design"] for d in summary["designs"]] == ORDERS[run_id]
    assert list(summary["claim_findings"]) == ORDERS[run_id]
    assert all(list(o["bytes"]) == ORDERS[run_id] == list(o["interactions"]) for o in summary["deterministic"])
    stored = json.loads((run / "deterministic-comparison.json").read_text())
    assert all(list(o["bytes"]) == ORDERS[run_id] for o in stored["orders"])
    assert list(stored["toolCounts"]) == ORDERS[run_id]
    assert list(dict.fromkeys(e["design"] for e in stored["edgeCases"])) == ORDERS[run_id]


@pytest.mark.parametrize("run_id", sorted(ORDERS))
def test_the_site_heads_its_columns_in_the_manifest_order(recorded, run_id, tmp_path):
    run, _ = recorded[run_id]
    done = run_wismo("build-site", str(run), "--out", str(tmp_path / "site"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for page in ("index.html", "cases/partial-delivery.html"):
        html = (tmp_path / "site" / page).read_text(encoding="utf-8")
        # column heads: of the overview's tables, and of the case page's run × design columns; a
        # difference's head ("granular − focused …") is not a design's column
        heads = re.findall(r'<(?:th scope="col"[^>]*|h3 id="col-\d+(?:-\d+)?")>(granular|focused)\b(?! −)', html)
        assert heads and heads == ORDERS[run_id] * (len(heads) // 2), (page, heads)
    # one sign convention, taken from the manifest's order: the second design minus the first
    first, second = ORDERS[run_id]
    overview = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert f">{second} − {first}" in overview and f">{first} − {second}" not in overview


def test_check_lists_the_designs_in_records_default_order(tmp_path):
    done = run_wismo("check", "--out", str(tmp_path / "comparison.json"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "bytes g/f" in done.stdout and "(granular/focused)" in done.stdout
    stored = json.loads((tmp_path / "comparison.json").read_text())
    assert all(list(o["bytes"]) == ["granular", "focused"] for o in stored["orders"])


def test_a_run_of_one_design_puts_it_first_in_the_comparison():
    assert design_order(("focused",)) == ["focused", "granular"]
    assert design_order(("granular", "focused")) == ["granular", "focused"]
    assert design_order() == ["granular", "focused"]


def test_fault_counts_per_design_follow_the_manifest_order(tmp_path):
    # Sorted by status, focused's "interrupted" would come before granular's "timeout".
    run = write_run(tmp_path, RunSpec("faults", ["granular", "focused"], 1, ["A", "B"], [
        Conv("A", "granular", 1, [(100, 10)], [], 5.0, passed=False, status="timeout"),
        Conv("A", "focused", 1, [(100, 10)], [], 5.0, passed=False, status="interrupted"),
        Conv("B", "granular", 1, [(100, 10)], [], 5.0),
        Conv("B", "focused", 1, [(100, 10)], [], 5.0, passed=False, status="timeout"),
    ]))
    [summary] = summarize_runs([run])
    assert list(summary.faults.by_design) == ["granular", "focused"]
    timeout = next(c for c in summary.faults.causes if c.status == "timeout")
    assert list(timeout.by_design) == ["granular", "focused"]
    assert "(granular: 1 timeout; focused: 1 interrupted, 1 timeout)" in " ".join(
        run_wismo("summarize", str(run), cwd=tmp_path).stdout.split())
