"""Backend lookups end to end: server `_meta` -> tool_result -> SQL -> summarize and the site's headline table.

The planted case: "was my payment taken?" asks only paymentStatus, so the scripted granular conversation
reads the order and its payment (2 lookups) while focused reads everything ORD-1001 links to (6).
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from analysis import conversation_details, summarize_runs, validate_runs
from recorder.run.options import RecordOptions
from recorder.run.record import record
from tests.analysis.conftest import RunCopy
from wismo.cli import cli
from wismo.sitegen.overview import headline_table

G, F = "granular", "focused"


def reads(orders: int = 0, payments: int = 0, reservations: int = 0, tracking: int = 0,
          not_found: int = 0) -> dict[str, int]:
    return {"orders": orders, "payments": payments, "reservations": reservations, "tracking": tracking,
            "notFound": not_found}


@pytest.fixture(scope="module")
def lookups_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs")
    options = RecordOptions(repetitions=1, out_dir=out, run_id="lookups", concurrency=1,
                            case_ids=("payment-taken", "missing-warehouse-record"))
    return asyncio.run(record(options)).run_dir


def _copy(run_dir: Path, tmp_path: Path) -> RunCopy:
    target = tmp_path / run_dir.name
    shutil.copytree(run_dir, target)
    return RunCopy(target)


def test_each_conversation_adds_up_what_its_servers_reported(lookups_run):
    [validation] = validate_runs([lookups_run])
    assert validation.passed, [(c.name, c.rows) for c in validation.checks if c.row_count]
    details = {d.conversation_id: d for d in conversation_details(lookups_run)}
    assert details["payment-taken.granular.r1"].lookups == reads(orders=1, payments=1)
    assert details["payment-taken.focused.r1"].lookups == reads(orders=1, payments=1, reservations=2, tracking=2)
    # RSV-1007-B does not exist: both designs looked for it
    assert details["missing-warehouse-record.granular.r1"].lookups == reads(1, 1, 2, 1, not_found=1)
    assert details["missing-warehouse-record.focused.r1"].lookups == reads(1, 1, 2, 1, not_found=1)
    for detail in details.values():
        calls = [call for turn in detail.turn_details for call in turn.tool_calls]
        assert detail.tool_result_bytes == sum(call.bytes for call in calls) > 0
        # each call keeps what its server reported; the conversation's figures are their sums
        assert detail.lookups == {key: sum(call.lookups[key] for call in calls) for key in reads()}
    assert [c.lookups for t in details["payment-taken.granular.r1"].turn_details for c in t.tool_calls] == \
        [reads(orders=1), reads(payments=1)]


def test_summaries_put_the_lookups_beside_the_tokens(lookups_run):
    [summary] = summarize_runs([lookups_run])
    stats = {d.design: d.stats for d in summary.designs}
    # per conversation: granular 2 and 5, focused 6 and 5
    assert (stats[G]["backendLookups"].median, stats[G]["backendLookups"].min) == (3.5, 2)
    assert (stats[F]["backendLookups"].median, stats[F]["backendLookups"].max) == (5.5, 6)
    by_design = {d.design: d for d in summary.lookups}
    assert by_design[G].per_backend == {"orders": 2, "payments": 2, "reservations": 2, "tracking": 1}
    assert by_design[F].per_backend == {"orders": 2, "payments": 2, "reservations": 4, "tracking": 3}
    assert (by_design[G].total, by_design[F].total, by_design[F].not_found, by_design[F].recorded) == (7, 11, 1, 2)
    lookups = next(c for c in summary.comparisons if c.metric == "backendLookups")
    assert (lookups.baseline_median, lookups.other_median, lookups.paired_n) == (3.5, 5.5, 2)
    assert lookups.median_difference == 2.0  # (6 - 2 + 5 - 5) / 2

    text = CliRunner().invoke(cli, ["summarize", "--wide", str(lookups_run)]).output  # each table whole
    assert any(line.startswith("design ") and "backend lookups" in line for line in text.splitlines())
    row = next(line for line in text.splitlines() if line.startswith("focused ") and " 11 " in line)
    assert row.split() == ["focused", "2", "2", "2", "4", "3", "1", "11", f"{by_design[F].tool_result_bytes:,}"]
    [printed] = json.loads(CliRunner().invoke(cli, ["summarize", "--json", str(lookups_run)]).output)
    assert printed["designs"][0]["stats"]["backendLookups"]["median"] == 3.5
    assert printed["lookups"][1]["per_backend"]["tracking"] == 3

    table = headline_table(summary)
    [row] = [r for r in table.rows if r.label == "Backend lookups"]
    assert row.cells == ["3.5 (2–5)", "5.5 (5–6)"]


def test_a_run_recorded_before_the_servers_reported_lookups_shows_not_recorded_never_zero(lookups_run, tmp_path):
    run = _copy(lookups_run, tmp_path)
    old = []
    for event in run.events():
        if event["type"] == "tool_result":
            event.pop("lookups")
        if event["type"] == "conversation_finished":
            event["claimed"].pop("lookups")
        old.append(json.dumps(event, ensure_ascii=False, separators=(",", ":")))
    run.write_lines(old)
    [validation] = validate_runs([run.path])
    assert validation.passed, [(c.name, c.rows) for c in validation.checks if c.row_count]
    [summary] = summarize_runs([run.path])
    for design in summary.designs:
        stat = design.stats["backendLookups"]
        assert (stat.median, stat.n) == (None, 0)
        assert design.stats["toolResultBytes"].n == 2  # bytes were always recorded
    assert all(d.total is None and d.recorded == 0 for d in summary.lookups)
    assert all(d.lookups is None for d in conversation_details(run.path))
    text = CliRunner().invoke(cli, ["summarize", str(run.path)]).output
    assert "backend lookups: not recorded" in text
    [row] = [r for r in headline_table(summary).rows if r.label == "Backend lookups"]
    assert row.cells == ["–", "–"]


def test_a_claimed_total_that_the_lines_do_not_add_up_to_fails_validation(lookups_run, tmp_path):
    run = _copy(lookups_run, tmp_path)
    run.edit(lambda e: e["type"] == "tool_result" and e["conversationId"] == "payment-taken.focused.r1",
             lambda e: e["lookups"].update(tracking=0))
    [validation] = validate_runs([run.path])
    check = next(c for c in validation.checks if c.name == "claimed_counters")
    assert check.rows == [("payment-taken.focused.r1", 1, "lookups.tracking", 2.0, 0.0)]


def test_the_stored_comparison_s_lookups_reach_the_summary(sample_copy):
    path = sample_copy.path / "deterministic-comparison.json"
    report = json.loads(path.read_text())
    for order in report["orders"]:
        del order["lookups"]  # as a comparison stored before the servers reported lookups
    path.write_text(json.dumps(report))
    [before] = summarize_runs([sample_copy.path], paired=False)
    assert before.deterministic and all(set(o.lookups.values()) == {None} for o in before.deterministic)
    for order in report["orders"]:
        order["lookups"] = {G: reads(1, 1, 2, 1, not_found=1), F: reads(1, 1, 2, 1, not_found=1)}
    path.write_text(json.dumps(report))
    [after] = summarize_runs([sample_copy.path], paired=False)
    assert all(o.lookups == {G: 5, F: 5} and o.lookups_not_found == {G: 1, F: 1} for o in after.deterministic)
