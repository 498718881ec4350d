""""Not recorded" is never 0: a brought design whose results are all errors without `_meta` has no lookups.

A real brought server (tests/recorder/other_names_server.py, the official SDK, which never reports
lookups) passes the comparison, then refuses every call (a tool error without `_meta`): its
conversations' lookups are null, and summarize and the site say "not recorded" with no saving.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path

import recorder.run.record as record_module
from recorder.designs.choose import parse_server
from recorder.run.options import RecordOptions
from recorder.run.record import record
from tests.helpers import events_of, live_finished, run_wismo

SERVER = Path(__file__).with_name("other_names_server.py")


def test_a_design_whose_results_are_errors_without_meta_has_lookups_not_recorded_never_zero(tmp_path, monkeypatch):
    flag = tmp_path / "refuse"
    real_comparison = record_module.run_comparison

    async def compare_then_refuse(*args, **kwargs):
        report = await real_comparison(*args, **kwargs)
        flag.write_text("from now on every call is a tool error")  # after the comparison passed
        return report

    monkeypatch.setattr(record_module, "run_comparison", compare_then_refuse)
    options = RecordOptions(servers=(parse_server(f"other={sys.executable} {SERVER} refuse-once-flagged {flag}"),),
                            designs=("focused", "other"), repetitions=2,
                            case_ids=("delivered-on-time", "payment-taken"),
                            out_dir=tmp_path / "runs", run_id="refusing")
    asyncio.run(record(options))
    run_dir = tmp_path / "runs" / "refusing"
    other = {c: e for c, e in live_finished(run_dir).items() if ".other." in c}
    assert len(other) == 4 and all(e["claimed"]["lookups"] is None for e in other.values()), other
    results = [e for e in events_of(run_dir) if e["type"] == "tool_result" and ".other." in e["conversationId"]]
    assert results and all(r["isError"] and r.get("lookups") is None for r in results)
    focused = [e for c, e in live_finished(run_dir).items() if ".focused." in c]
    assert all(e["claimed"]["lookups"] is not None for e in focused)

    done = run_wismo("summarize", str(run_dir), "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [summary] = json.loads(done.stdout)
    stats = {d["design"]: d["stats"]["backendLookups"] for d in summary["designs"]}
    assert stats["other"]["median"] is None and stats["other"]["n"] == 0 and stats["focused"]["median"] > 0
    totals = {d["design"]: d for d in summary["lookups"]}
    assert totals["other"]["total"] is None and totals["other"]["recorded"] == 0
    assert set(totals["other"]["per_backend"].values()) == {None}
    [compared] = [c for c in summary["comparisons"] if c["metric"] == "backendLookups"]
    assert compared["saving_pct"] is None and compared["all_saving_pct"] is None
    assert compared["all_other_median"] is None

    text = run_wismo("summarize", str(run_dir), cwd=tmp_path).stdout
    design_row = next(line for line in text.splitlines() if line.startswith("other ") and "[" in line)
    assert "not recorded" in design_row
    sums = next(line for line in text.splitlines() if line.startswith("other ") and "–" in line and "[" not in line)
    assert sums.split()[1] == "0" and sums.rstrip().endswith("not recorded")  # 0 conversations reported any

    built = run_wismo("build-site", str(run_dir), "--out", "site", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    index = (tmp_path / "site" / "index.html").read_text()
    [lookups_row] = re.findall(r"<tr><th scope=\"row\">Backend lookups.*?</tr>", index)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", lookups_row)
    assert cells[0] == "6" and set(cells[1:]) == {"–"}, cells  # other's median and every saving: not recorded
    pages = sorted((tmp_path / "site" / "conversations" / "refusing").glob("*.other.*.html"))
    assert len(pages) == 4
    for page in pages:
        assert "<dt>Backend lookups</dt><dd>not recorded</dd>" in page.read_text(), page.name
