"""build-site deletes only the files it wrote itself; a run folder or a file it did not write is never touched."""

from __future__ import annotations

import json

from click.testing import CliRunner

from tests.helpers import ROOT, run_wismo
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


HOSTILE_MARKERS = {
    "empty": "",
    "an empty object": "{}",
    "not JSON": "built by wismo, honest\n",
    "files not a list": '{"files": "index.html"}',
    "a name that is not text": '{"files": [1]}',
    "a parent name": json.dumps({"files": ["../victim/v1.txt"]}),
    "a parent page": json.dumps({"files": ["../victim/v1.html"]}),
    "an absolute path": None,  # filled in with the victim's absolute path below
    "a user's file by name": json.dumps({"files": ["todo.txt"]}),
    "a symlink out": json.dumps({"files": ["link/v1.html"]}),
    "a symlinked page": json.dumps({"files": ["page.html"]}),
}


def test_a_marker_no_build_wrote_refuses_the_folder_and_nothing_anywhere_is_deleted(tmp_path, monkeypatch):
    """Harmful fault 1 and 2 of issue 23: an empty, `{}` or foreign marker was rmtree'd; a listed ../ name unlinked."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(from_runs, "analyze_runs", fake_analysis(factories.offline_site()))
    (tmp_path / "runs" / "sample-offline").mkdir(parents=True)
    victim = tmp_path / "victim"
    victim.mkdir()
    for name in ("v1.txt", "v1.html"):
        (victim / name).write_text("precious")
    for kind, text in HOSTILE_MARKERS.items():
        site = tmp_path / f"site-{kind.replace(' ', '-')}"
        site.mkdir()
        (site / "todo.txt").write_text("precious")
        (site / "link").symlink_to(victim, target_is_directory=True)
        (site / "page.html").symlink_to(victim / "v1.html")
        if text is None:
            text = json.dumps({"files": [str(victim / "v1.txt"), str(victim / "v1.html")]})
        (site / ".wismo-site").write_text(text)
        refused = build(site.name)
        message = str(refused.exception or refused.output)
        assert refused.exit_code != 0, kind
        assert "nothing was deleted" in message or "was not built by wismo" in message \
            or "did not write" in message, (kind, message)
        assert "\n" not in message.strip(), (kind, message)
        assert (site / "todo.txt").read_text() == "precious", kind
        assert (site / ".wismo-site").read_text() == text, kind
        assert (site / "link").is_symlink() and (site / "page.html").is_symlink(), kind
        assert [p.read_text() for p in sorted(victim.iterdir())] == ["precious", "precious"], kind
        assert not (site / "index.html").exists(), kind


def test_a_hostile_marker_is_one_line_from_the_real_command_and_the_files_survive(tmp_path):
    """The same refusal through the installed command: one line on stderr, no traceback, exit non-zero."""
    site = tmp_path / "site"
    site.mkdir()
    (site / ".wismo-site").write_text("{}")
    (site / "todo.txt").write_text("precious")
    outside = tmp_path / "outside.html"
    outside.write_text("precious")
    done = run_wismo("build-site", str(ROOT / "runs" / "sample-offline"), "--out", str(site), cwd=tmp_path)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and ".wismo-site" in done.stderr, done.stderr
    assert (site / "todo.txt").read_text() == "precious" and sorted(p.name for p in site.iterdir()) == [
        ".wismo-site", "todo.txt"]
    (site / "todo.txt").unlink()
    (site / ".wismo-site").write_text(json.dumps({"files": ["../outside.html"]}))
    done = run_wismo("build-site", str(ROOT / "runs" / "sample-offline"), "--out", str(site), cwd=tmp_path)
    assert done.returncode != 0 and "../outside.html" in done.stderr and "Traceback" not in done.stderr
    assert outside.read_text() == "precious"


def test_the_marker_lists_only_site_files_and_is_written_whole_without_following_a_planted_symlink(
        tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(from_runs, "analyze_runs", fake_analysis(factories.offline_site()))
    (tmp_path / "runs" / "sample-offline").mkdir(parents=True)
    site = tmp_path / "site"
    assert build().exit_code == 0
    files = listed(site)
    assert files and all(f.rsplit(".", 1)[-1] in {"html", "css", "js"} for f in files)
    # A temporary name planted as a symlink to a file outside: the marker is written beside it, never through it.
    outside = tmp_path / "outside.txt"
    outside.write_text("precious")
    (site / ".wismo-site.tmp").symlink_to(outside)
    assert build().exit_code == 0
    assert outside.read_text() == "precious" and sorted(listed(site)) == sorted(files)
    assert [p.name for p in site.iterdir() if p.name.startswith(".wismo-site.tmp") and not p.is_symlink()] == []
