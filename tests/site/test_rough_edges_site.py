"""Rough edges of issue 23 in build-site, each reproduced as the user met it, through the real command."""

from __future__ import annotations

import json
import signal
from pathlib import Path

from tests.helpers import ROOT, default_cases, default_records, run_wismo, without_root_override

SAMPLE = ROOT / "runs" / "sample-offline"
RLO = "\u202e"


def test_a_reviews_file_far_bigger_than_any_export_is_refused_in_one_line(tmp_path):
    huge = tmp_path / "reviews.json"
    huge.write_text(json.dumps({"version": 2, "reviews": [], "padding": "x" * 21_000_000}))
    done = run_wismo("build-site", str(SAMPLE), "--out", "site", "--reviews", str(huge), cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    assert "21.0 MB is more than a reviews export holds" in line and not (tmp_path / "site").exists()
    note = {"version": 1, "reviews": [{"key": "k", "runId": "r", "conversationId": "c.granular.r1",
                                       "design": "granular", "summarySha": "s", "verdict": "justified",
                                       "note": "n" * 20_001, "reviewedAt": "x"}]}
    huge.write_text(json.dumps(note))
    done = run_wismo("build-site", str(SAMPLE), "--out", "site", "--reviews", str(huge), cwd=tmp_path)
    assert done.returncode == 2 and "reviews[0].note: 20,001 characters" in done.stderr


def test_a_read_only_folder_is_one_line_with_exit_3(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    done = run_wismo("build-site", str(SAMPLE), "--out", str(locked / "site"), cwd=tmp_path,
                     preexec_fn=without_root_override)
    assert done.returncode == 3 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"error: cannot write the site into {locked / 'site'}: {locked / 'site'}: Permission denied"]


def test_a_full_disk_is_one_line_with_exit_3_and_the_next_build_is_not_refused(tmp_path):
    def small_disk() -> None:
        import resource
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails with EFBIG instead of killing us
        resource.setrlimit(resource.RLIMIT_FSIZE, (12_000, 12_000))  # no page above 12 kB can be written

    done = run_wismo("build-site", str(SAMPLE), "--out", "site", "--jobs", "2", cwd=tmp_path, preexec_fn=small_disk)
    assert done.returncode == 3 and "Traceback" not in done.stderr, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("error: cannot write the site into site: ") and "File too large" in line, line
    again = run_wismo("build-site", str(SAMPLE), "--out", "site", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "site" / "index.html").is_file() and (tmp_path / "site" / ".wismo-site").is_file()


def test_direction_controls_in_a_product_name_are_isolated_on_the_review_page(tmp_path, open_page):
    records, cases = default_records(), default_cases()
    for order in records["orders"]:
        for item in order["items"]:
            if item["sku"] == "DOCK-USB-C":
                item["name"] = f"USB-C {RLO}dock"
    dataset = tmp_path / "ds"
    dataset.mkdir()
    (dataset / "records.json").write_text(json.dumps(records))
    (dataset / "cases.json").write_text(json.dumps(cases))
    recorded = run_wismo("record", "--dataset", "ds", "--repetitions", "1", "--cases", "delivered-on-time",
                         "--run-id", "bidi", cwd=tmp_path)
    assert recorded.returncode == 0, recorded.stderr
    built = run_wismo("build-site", "runs/bidi", "--out", "site", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    pages = [p for p in (tmp_path / "site").rglob("*.html") if RLO in p.read_text()]
    assert any(p.name.startswith("review") for p in pages)
    watch = open_page()
    for page in pages:
        watch.page.goto(Path(page).as_uri())
        # Every text holding the control sits inside a <bdi>: what follows it on the page reads as written.
        stray = watch.page.evaluate("""(rlo) => {
            const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
            const found = [];
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                if (node.data.includes(rlo) && !node.parentElement.closest('bdi')) found.push(node.data);
            }
            return found;
        }""", RLO)
        assert stray == [], (page.name, stray)
    watch.assert_clean()
