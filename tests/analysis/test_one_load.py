"""`wismo summarize` and `wismo build-site` load each run once: one RunDatabase, one pass over its events;
build-site --compare-with reads the candidate on that load too, and imported reviews are folded once.

Every SQL file DuckDB runs on a run comes through analysis.db.sql_text; the files that scan events.jsonl
are counted by what they read. The only other scan is the conversation pages' heavy fields (tool results,
history items), which build-site alone reads, on the same load.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

import analysis.db
from tests.analysis.conftest import SAMPLE_RUN
from tests.site.test_reviews import entry
from wismo.cli import cli
from wismo.sitegen import build, from_runs


@pytest.fixture
def counted(monkeypatch) -> tuple[Counter[str], list[Path]]:
    """(SQL files that read events.jsonl, by name; the run folder of every RunDatabase opened)."""
    scans: Counter[str] = Counter()
    opened: list[Path] = []
    text_of = analysis.db.sql_text
    init = analysis.db.RunDatabase.__init__

    def sql_text(name: str) -> str:
        text = text_of(name)
        if "/events.jsonl'" in text:
            scans[name] += 1
        return text

    def counting_init(self, run_dir, **options):
        opened.append(Path(run_dir))
        init(self, run_dir, **options)

    monkeypatch.setattr(analysis.db, "sql_text", sql_text)
    monkeypatch.setattr(analysis.db.RunDatabase, "__init__", counting_init)
    return scans, opened


@pytest.fixture
def two_runs(tmp_path) -> list[Path]:
    first = tmp_path / "sample-offline"
    shutil.copytree(SAMPLE_RUN, first, ignore=shutil.ignore_patterns("logs"))
    second = tmp_path / "copy"
    shutil.copytree(first, second)
    for name in ("manifest.json", "events.jsonl", "claims.jsonl"):
        path = second / name
        if path.exists():
            path.write_text(path.read_text().replace('"sample-offline"', '"copy"'))
    return [first, second]


@pytest.mark.parametrize("flags", [["--json"], ["--json", "--crossover", "--price-as", "gpt-5-mini"], []])
def test_summarize_loads_each_run_once(counted, two_runs, flags):
    scans, opened = counted
    result = CliRunner().invoke(cli, ["summarize", *flags, *map(str, two_runs)])
    assert result.exit_code == 0, result.output
    assert opened == two_runs
    assert scans == {"load_run.sql": 2}  # one pass each (the money is priced on it, not on a pass of its own)


def test_build_site_loads_each_run_once(counted, two_runs, tmp_path):
    scans, opened = counted
    result = CliRunner().invoke(cli, ["build-site", *map(str, two_runs), "--out", str(tmp_path / "site"),
                                      "--price-as", "gpt-5-mini", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert opened == two_runs
    # The figures, money and crossover from the one pass; the conversation pages' text on the same load.
    assert scans == {"load_run.sql": 2, "load_details.sql": 2}
    page = (tmp_path / "site" / "index.html").read_text()
    assert "≈$" in page  # priced on that load: an estimate, as the scripted policy's tokens are


def test_build_site_compare_with_loads_the_candidate_once_and_the_baseline_once(counted, two_runs, tmp_path):
    scans, opened = counted
    candidate, baseline = two_runs
    result = CliRunner().invoke(cli, ["build-site", str(candidate), "--compare-with", str(baseline),
                                      "--out", str(tmp_path / "site"), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert opened == [candidate, baseline]  # the candidate's comparison rows come from its one load
    assert scans == {"load_run.sql": 2, "load_details.sql": 1}
    page = (tmp_path / "site" / "compare.html").read_text()
    assert "copy" in page and "sample-offline" in page


def _first_summary(run: Path) -> tuple[str, str]:
    for line in (run / "events.jsonl").read_text().splitlines():
        event = json.loads(line)
        if event["type"] == "conversation_finished" and (event.get("assessment") or {}).get("customerSummary"):
            return event["conversationId"], event["assessment"]["customerSummary"]
    raise AssertionError("the sample run has no customer summary")


def test_build_site_folds_the_reviews_once(counted, two_runs, tmp_path, monkeypatch):
    folded: list[int] = []
    fold = from_runs.fold_reviews

    def counting_fold(entries, details):
        folded.append(len(entries))
        return fold(entries, details)
    monkeypatch.setattr(from_runs, "fold_reviews", counting_fold)
    monkeypatch.setattr(build, "fold_reviews", counting_fold)
    conversation, summary = _first_summary(two_runs[0])
    reviews = tmp_path / "reviews.json"
    reviews.write_text(json.dumps({"version": 1, "reviews": [entry("sample-offline", conversation, summary)]}))
    result = CliRunner().invoke(cli, ["build-site", *map(str, two_runs), "--out", str(tmp_path / "site"),
                                      "--reviews", str(reviews), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert folded == [1]
    assert "reviews: 1 applied" in result.output
