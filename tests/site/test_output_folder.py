"""build-site deletes only the files it wrote itself; a run folder or a file it did not write is never touched."""

from __future__ import annotations

import json

from click.testing import CliRunner

from tests.helpers import run_wismo
from tests.site import factories
from tests.site.test_cli import fake_analysis
from wismo.cli import cli
from wismo.sitegen import from_runs


def build(out: str = "site") -> object:
    return CliRunner().invoke(cli, ["build-site", "runs/sample-offline", "--out", out])


def listed(site) -> list[str]:
    return json.loads((site / ".wismo-site").read_text())["files"]


def test_a_rebuild_deletes_its_own_files_and_refuses_a_run_or_a_foreign_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(from_runs, "analyze_runs", fake_analysis(factories.offline_site()))
    (tmp_path / "runs" / "sample-offline").mkdir(parents=True)
    (tmp_path / "runs" / "sample-offline" / "manifest.json").write_text('{"schemaVersion": 1}')
    site = tmp_path / "site"
    assert build().exit_code == 0
    files = listed(site)
    assert "index.html" in files and all((site / f).is_file() for f in files)

    # A file the last build wrote and this one does not write again is deleted; nothing else is.
    (site / "cases" / "retired-case.html").write_text("old")
    marker = json.loads((site / ".wismo-site").read_text())
    (site / ".wismo-site").write_text(json.dumps({**marker, "files": [*marker["files"], "cases/retired-case.html"]}))
    assert build().exit_code == 0
    assert not (site / "cases" / "retired-case.html").exists() and sorted(listed(site)) == sorted(files)

    # A recorded run inside the site folder (a user ran `wismo record --out site`): refused, kept.
    run = site / "runs" / "precious"
    run.mkdir(parents=True)
    (run / "manifest.json").write_text("{}")
    (run / "events.jsonl").write_text("a line\n")
    refused = build()
    assert refused.exit_code != 0 and "holds a recorded run" in str(refused.exception or refused.output)
    assert (run / "events.jsonl").read_text() == "a line\n" and (site / "index.html").exists()

    # A file no build wrote: refused, kept.
    (run / "manifest.json").unlink()
    (run / "events.jsonl").unlink()
    (site / "notes.txt").write_text("mine")
    refused = build()
    assert refused.exit_code != 0 and "notes.txt" in str(refused.exception or refused.output)
    assert (site / "notes.txt").read_text() == "mine"


def test_a_site_from_before_file_lists_still_never_loses_a_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(from_runs, "analyze_runs", fake_analysis(factories.offline_site()))
    (tmp_path / "runs" / "sample-offline").mkdir(parents=True)
    site = tmp_path / "site"
    (site / "recorded").mkdir(parents=True)
    (site / ".wismo-site").write_text("Built by wismo build-site; the next build replaces this whole folder.\n")
    (site / "recorded" / "events.jsonl").write_text("{}\n")
    refused = build()
    assert refused.exit_code != 0 and (site / "recorded" / "events.jsonl").exists()


def test_demo_refuses_to_record_into_the_site_folder_before_doing_anything(tmp_path):
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "keep.txt").write_text("mine")
    done = run_wismo("demo", "--runs", "site", "--out", "site", cwd=tmp_path)
    assert done.returncode == 2 and "choose separate folders" in done.stderr
    assert [p.name for p in (tmp_path / "site").iterdir()] == ["keep.txt"]
