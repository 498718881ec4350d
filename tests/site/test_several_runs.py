"""Several runs on one site (issue 7): models side by side, claim marks in the browser, mixed runs refused."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from recorder.providers import REGISTRY
from recorder.run.options import RecordOptions
from recorder.run.record import record
from tests.helpers import WISMO, renamed_dataset
from tests.recorder.fake_registry import SEED_SUMMARY, SeedWordingProvider
from wismo.cli.record import check_claims
from wismo.sitegen.from_runs import build_from_runs


def wismo(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*WISMO, *args], capture_output=True, text=True, cwd=cwd, timeout=300)


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory) -> tuple[Path, Path]:
    """Two offline runs of the default dataset with different settings."""
    runs = tmp_path_factory.mktemp("runs")
    first = wismo("record", "--out", str(runs), "--run-id", "two-reps", "--repetitions", "2", cwd=runs)
    second = wismo("record", "--out", str(runs), "--run-id", "one-rep-tight", "--repetitions", "1",
                   "--max-turns", "4", "--concurrency", "1", cwd=runs)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    return runs / "two-reps", runs / "one-rep-tight"


def test_two_runs_compare_side_by_side(two_runs, tmp_path):
    site = tmp_path / "site"
    done = wismo("build-site", *map(str, two_runs), "--out", str(site), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    index = (site / "index.html").read_text()
    table = index.split('<h2 id="models">', 1)[1].split("</table>", 1)[0]
    rows = table.split("<tbody>", 1)[1].count("<tr>")
    assert rows == 4
    assert table.count("two-reps") == 2 and table.count("one-rep-tight") == 2
    assert "24/24 (100.0 %)" in table and "12/12 (100.0 %)" in table  # passed, per run and design
    assert "(baseline)" in table and "vs granular" in table
    assert table.count("0 of 24") == 2 and table.count("0 of 12") == 2  # claim checks ran, nothing found
    case = (site / "cases" / "partial-delivery.html").read_text()
    assert case.count("two-reps") >= 2 and case.count("one-rep-tight") >= 2
    assert "Mixed runs" not in index


def test_mixed_datasets_are_refused_unless_allowed(two_runs, tmp_path, make_dataset):
    records, cases = renamed_dataset()
    folder = make_dataset(records=records, cases=cases)
    other = wismo("record", "--out", str(tmp_path / "runs"), "--run-id", "renamed", "--repetitions", "1",
                  "--dataset", str(folder), cwd=tmp_path)
    assert other.returncode == 0, other.stderr
    runs = [str(two_runs[0]), str(tmp_path / "runs" / "renamed")]
    refused = wismo("build-site", *runs, "--out", str(tmp_path / "site"), cwd=tmp_path)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "cannot be compared like for like: datasets differ" in refused.stderr
    assert "--allow-mixed" in refused.stderr
    assert not (tmp_path / "site").exists()

    allowed = wismo("build-site", *runs, "--out", str(tmp_path / "site"), "--allow-mixed", cwd=tmp_path)
    assert allowed.returncode == 0, allowed.stderr
    assert "warning: mixed runs (datasets differ" in allowed.stderr
    index = (tmp_path / "site" / "index.html").read_text()
    assert "Mixed runs: these runs are not like for like." in index and "datasets differ" in index
    assert "Mixed runs" in (tmp_path / "site" / "cases" / "partial-delivery.html").read_text()


def test_changed_tool_definitions_are_refused(two_runs, tmp_path):
    changed = tmp_path / "changed"
    shutil.copytree(two_runs[1], changed)
    manifest = json.loads((changed / "manifest.json").read_text())
    manifest["runId"] = "changed"
    manifest["tools"]["granular"][0]["description"] += " Now with a longer description."
    (changed / "manifest.json").write_text(json.dumps(manifest))
    events = (changed / "events.jsonl").read_text().replace('"runId":"one-rep-tight"', '"runId":"changed"')
    (changed / "events.jsonl").write_text(events)
    for derived in ("claims.jsonl",):
        (changed / derived).write_text((changed / derived).read_text().replace('"one-rep-tight"', '"changed"'))
    refused = wismo("build-site", str(two_runs[0]), str(changed), "--out", str(tmp_path / "site"), cwd=tmp_path)
    assert refused.returncode == 2
    assert "the granular design's tool definitions differ (two-reps vs changed)" in refused.stderr


def test_claim_marks_show_in_the_browser(tmp_path, monkeypatch, open_page):
    monkeypatch.setitem(REGISTRY, "seed-wording", SeedWordingProvider)
    options = RecordOptions(provider="seed-wording", repetitions=1, out_dir=tmp_path, run_id="seed",
                            case_ids=("tracking-unavailable", "partial-delivery"))
    # Playwright's sync API keeps an event loop running in this thread; record in another one.
    with ThreadPoolExecutor(1) as pool:
        result = pool.submit(asyncio.run, record(options, after=check_claims)).result()
    site = tmp_path / "site"
    build = build_from_runs([result.run_dir], site)
    assert all(v.passed for v in build.validations)
    watch = open_page()
    page = watch.page
    page.goto((site / "cases" / "tracking-unavailable.html").as_uri())
    marks = page.locator("blockquote.summary mark")
    assert marks.count() >= 1
    assert "reason for the delay" in marks.first.inner_text()
    assert "unsupported_delay" in (marks.first.get_attribute("title") or "")
    assert SEED_SUMMARY.startswith(page.locator("blockquote.summary").first.inner_text().strip()[:40])
    watch.shot("case-marks")
    page.goto((site / "cases" / "partial-delivery.html").as_uri())
    assert page.locator("blockquote.summary mark").count() == 0
    page.goto((site / "index.html").as_uri())
    assert "Claim-check findings" in page.content()
    watch.assert_clean()
