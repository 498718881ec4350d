"""Issue 16 end to end, as a user runs it: three designs recorded offline through the CLI (granular over stdio,
focused over streamable HTTP from `wismo serve`, the examples/middle server as a design brought from outside),
then validate, summarize (every design against the baseline, with intervals) and a site with three columns.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import ROOT, marked_command, run_wismo
from tests.recorder.test_serve_http import serving_over_http

EXAMPLE = ROOT / "examples" / "middle" / "server.py"
CASES = "delivered-on-time,partial-delivery,payment-not-taken"
DESIGNS = ["granular", "focused", "middle"]


@pytest.fixture(scope="module")
def focused_over_http() -> Iterator[str]:
    """`wismo serve focused --transport streamable-http` in its own process, stopped with SIGTERM."""
    with serving_over_http("focused") as url:
        yield url


@pytest.fixture(scope="module")
def three_design_run(tmp_path_factory: pytest.TempPathFactory, focused_over_http: str) -> Path:
    work = tmp_path_factory.mktemp("own-designs")
    done = run_wismo("record", "--server", f"focused={focused_over_http}",
                     "--server", f"middle={sys.executable} {EXAMPLE}", "--cases", CASES, "--repetitions", "2",
                     "--out", str(work / "runs"), "--run-id", "three", cwd=work, timeout=600)
    assert done.returncode == 0, done.stderr
    return work / "runs" / "three"


def test_three_designs_are_recorded_in_rotating_groups_one_of_them_over_http(three_design_run: Path,
                                                                              focused_over_http: str):
    manifest = json.loads((three_design_run / "manifest.json").read_text())
    assert manifest["designs"] == DESIGNS and manifest["baseline"] == "granular"
    sources = manifest["designSources"]
    assert sources["granular"]["builtIn"] and sources["granular"]["command"][:3] == ["python", "-m", "recorder.servers"]
    assert sources["focused"]["url"] == focused_over_http and sources["focused"]["serverName"] == "wismo-focused"
    assert sources["middle"]["command"] == [sys.executable, str(EXAMPLE)]
    assert (sources["middle"]["serverName"], sources["middle"]["serverVersion"]) == ("middle-example", "1.0.0")
    assert [t["name"] for t in manifest["toolsListed"]["middle"]] == ["get_order", "get_fulfillment"]
    groups: dict[int, list[str]] = {}
    for entry in sorted(manifest["plan"], key=lambda e: e["pairPosition"]):
        groups.setdefault(entry["pairIndex"], []).append(entry["design"])
    assert len(groups) == 6 and all(sorted(order) == sorted(DESIGNS) for order in groups.values())
    assert {order[0] for order in groups.values()} == set(DESIGNS)  # every design went first somewhere
    comparison = json.loads((three_design_run / "deterministic-comparison.json").read_text())
    assert comparison["passed"] and comparison["designs"] == DESIGNS


def test_the_run_validates_and_summarize_compares_every_design_with_the_baseline(three_design_run: Path):
    done = run_wismo("validate", str(three_design_run), cwd=three_design_run)
    assert done.returncode == 0, done.stdout + done.stderr
    done = run_wismo("summarize", str(three_design_run), "--json", cwd=three_design_run)
    assert done.returncode == 0, done.stderr
    [summary] = json.loads(done.stdout)
    assert [d["design"] for d in summary["designs"]] == DESIGNS
    assert all(d["passed"] == d["conversations"] == 6 for d in summary["designs"])
    compared = {(c["baseline"], c["other"]) for c in summary["comparisons"]}
    assert compared == {("granular", "focused"), ("granular", "middle")}
    tokens = {c["other"]: c for c in summary["comparisons"] if c["metric"] == "totalTokens"}
    for other in ("focused", "middle"):
        assert tokens[other]["paired_n"] == 6
        assert tokens[other]["ci_low"] <= tokens[other]["median_difference"] <= tokens[other]["ci_high"]
    text = run_wismo("summarize", str(three_design_run), cwd=three_design_run).stdout
    assert "focused vs granular:" in text and "middle vs granular:" in text
    assert "(middle - granular)" in text and "95 %" in text


def test_the_readme_s_one_command_records_a_brought_server_and_builds_its_site(tmp_path: Path):
    command = marked_command("own-server-command")
    assert command.startswith("wismo record --server middle=")
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    wismo = f"{shlex.quote(sys.executable)} -m wismo.cli "  # this checkout's wismo, as `wismo` would be
    done = subprocess.run(["bash", "-c", command.replace("wismo ", wismo)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=900, env=os.environ.copy())
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / "runs" / "middle" / "manifest.json").read_text())
    assert manifest["designs"] == DESIGNS
    assert (tmp_path / "out" / "site" / "index.html").is_file()


def test_the_site_of_a_three_design_run_has_three_columns_and_names_where_each_design_came_from(
        three_design_run: Path, focused_over_http: str):
    out = three_design_run.parent.parent / "site"
    done = run_wismo("build-site", str(three_design_run), "--out", str(out), cwd=three_design_run.parent)
    assert done.returncode == 0, done.stderr
    case = (out / "cases" / "partial-delivery.html").read_text(encoding="utf-8")
    columns = re.findall(r'<section class="column"[^>]*>\s*<h3[^>]*>([^<]+)</h3>', case)
    assert columns == DESIGNS, columns
    assert case.count('class="versus small"') == 3 and case.count('>vs granular<') == 2
    index = (out / "index.html").read_text(encoding="utf-8")
    assert focused_over_http in index and "middle-example" in index
    assert "middle vs granular" in index or "middle − granular" in index
