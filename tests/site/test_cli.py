"""`wismo build-site` over a faked analysis (answers from the factories), so the site's CLI is tested alone."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from analysis.model import RunAnalysis
from tests.site import factories
from tests.site.test_reviews import entry, write
from wismo.cli import cli, main
from wismo.sitegen import from_runs


def fake_analysis(*sites):
    """analysis.analyze_runs answering from factory sites, by run folder name."""
    validations = {v.run.run_id: v for s in sites for v in s["validations"]}
    summaries = {s.run.run_id: s for site in sites for s in site["summaries"]}
    details_by_run = {run: d for s in sites for run, d in s["details_by_run"].items()}
    findings = factories.findings_fixture()

    def analyze_runs(dirs, details=False, paired=True, **_):
        names = [Path(d).name for d in dirs]
        return [RunAnalysis(validations[name], summaries.get(name), details_by_run.get(name) if details else None,
                            findings.get(name, {}) if details and name in summaries else None)
                for name in names]

    return analyze_runs


@pytest.fixture
def runs(tmp_path, monkeypatch):
    """A runs/ folder with two run folders (manifests only) and faked analysis functions."""
    monkeypatch.chdir(tmp_path)
    sites = [factories.offline_site(), factories.with_failing_run(factories.offline_site())]
    monkeypatch.setattr(from_runs, "analyze_runs", fake_analysis(*sites))
    started_at = {"sample-offline": "2026-11-30T02:47:17+00:00", "broken-run": "2026-11-29T09:00:00+00:00"}
    for run_id, started in started_at.items():
        (tmp_path / "runs" / run_id).mkdir(parents=True)
        (tmp_path / "runs" / run_id / "manifest.json").write_text(json.dumps({"schemaVersion": 1, "runId": run_id,
                                                                                "startedAt": started}))
    (tmp_path / "runs" / "not-a-run").mkdir()
    return tmp_path


def test_build_site_defaults_to_the_newest_run(runs):
    result = CliRunner().invoke(cli, ["build-site"])
    assert result.exit_code == 0, result.output
    assert "run sample-offline: every check passed" in result.output
    assert (runs / "out" / "site" / "index.html").is_file()
    assert "site: out/site/index.html" in result.output
    index = (runs / "out" / "site" / "index.html").read_text()
    assert "should arrive by" in (runs / "out" / "site" / "cases" / "tracking-unavailable.html").read_text()
    assert "broken-run" not in index


def test_newest_run_reads_manifests_not_names(runs):
    (runs / "runs" / "zzz-older").mkdir()
    (runs / "runs" / "zzz-older" / "manifest.json").write_text(json.dumps({"schemaVersion": 1,
                                                                            "startedAt": "2020-01-01T00:00:00+00:00"}))
    assert from_runs.newest_run(runs / "runs").name == "sample-offline"


def test_a_failing_run_is_reported_and_exits_1(runs):
    result = CliRunner().invoke(cli, ["build-site", "runs/sample-offline", "runs/broken-run",
                                                      "--out", "site"])
    assert result.exit_code == 1
    assert "run broken-run: FAILED validation (claimed_counters_match_traces)" in result.stderr
    assert "Run broken-run failed validation" in (runs / "site" / "index.html").read_text()


def test_reviews_are_folded_and_counted(runs):
    detail = factories.offline_site()["details_by_run"]["sample-offline"][0]
    path = write(runs, {"version": 1, "reviews": [
        entry("sample-offline", detail.conversation_id, detail.customer_summary),
        entry("sample-offline", "carrier-delay.focused.r1", "an older summary"),
        entry("elsewhere", "x.granular.r1", "y")]})
    result = CliRunner().invoke(cli, ["build-site", "--reviews", str(path)])
    assert result.exit_code == 0, result.output
    assert "reviews: 1 applied, 1 stale (the summary changed since), 1 for conversations not in this site" \
        in result.output


def test_a_csv_export_with_a_note_alone_is_folded(runs):
    from tests.site.test_reviews import entry2
    from wismo.sitegen.reviews import csv_text, load_reviews

    detail = factories.offline_site()["details_by_run"]["sample-offline"][0]
    document = write(runs, {"version": 2, "reviews": [
        entry2("sample-offline", detail.conversation_id, detail.customer_summary, None, note="ask the carrier")]})
    path = runs / "reviews.csv"
    path.write_text(csv_text(load_reviews([document])), encoding="utf-8")
    result = CliRunner().invoke(cli, ["build-site", "--reviews", str(path), "--out", "site"])
    assert result.exit_code == 0, result.output
    assert "reviews: 0 applied, 1 note without a verdict, 0 stale" in result.output
    assert "warning" not in result.stderr
    case = (runs / "site" / "cases" / f"{detail.case_id}.html").read_text()
    assert "ask the carrier" in case and "note without a verdict" in case


def run_main(monkeypatch, capsys, *args):
    monkeypatch.setattr(sys, "argv", ["wismo", *args])
    with pytest.raises(SystemExit) as info:
        main()
    return info.value.code, capsys.readouterr()


def test_a_malformed_reviews_file_is_one_clear_line(runs, monkeypatch, capsys):
    bad = write(runs, {"version": 1, "reviews": [{"key": "k"}]})
    code, out = run_main(monkeypatch, capsys, "build-site", "--reviews", str(bad))
    assert code == 2
    assert out.err.startswith("error: ") and "reviews[0]: missing runId" in out.err and "Traceback" not in out.err
    assert not (runs / "out").exists()


def test_no_run_is_one_clear_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, out = run_main(monkeypatch, capsys, "build-site")
    assert code == 2 and "no recorded run in runs/" in out.err


def test_a_folder_not_built_by_wismo_is_left_alone(runs, monkeypatch, capsys):
    (runs / "mine").mkdir()
    (runs / "mine" / "notes.txt").write_text("keep")
    code, out = run_main(monkeypatch, capsys, "build-site", "--out", "mine")
    assert code == 2 and "not empty and was not built by wismo" in out.err
    assert (runs / "mine" / "notes.txt").read_text() == "keep"


def test_reviews_that_match_nothing_are_called_out(runs):
    path = write(runs, {"version": 1, "reviews": [entry("sample-offline", "carrier-delay.focused.r1", "older")]})
    result = CliRunner().invoke(cli, ["build-site", "--reviews", str(path)])
    assert result.exit_code == 0
    assert "reviews: 0 applied, 1 stale" in result.output
    assert "warning: no verdict in the reviews file(s) matches a summary of this site" in result.stderr
