"""`wismo summarize` and `wismo build-site` load each run once: one RunDatabase, one pass over its events.

Every SQL file DuckDB runs on a run comes through analysis.db.sql_text; the files that scan events.jsonl
are counted by what they read. The only other scan is the conversation pages' heavy fields (tool results,
history items), which build-site alone reads, on the same load.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

import analysis.db
from tests.analysis.conftest import SAMPLE_RUN
from wismo.cli import cli


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
