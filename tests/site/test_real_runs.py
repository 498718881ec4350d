"""End to end on real recorded runs: `wismo record` offline, the DuckDB analysis, `build-site` and `demo`."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import CASE_COUNT, CONVERSATIONS, WISMO, default_cases


def wismo(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*WISMO, *args], capture_output=True, text=True, cwd=cwd, timeout=300)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    """One offline run, 12 cases × 2 designs × 2 repetitions."""
    runs = tmp_path_factory.mktemp("runs")
    done = wismo("record", "--out", str(runs), "--run-id", "offline-e2e", "--repetitions", "2", cwd=runs)
    assert done.returncode == 0, done.stdout + done.stderr
    return runs / "offline-e2e"


def test_build_site_from_a_recorded_run(recorded, tmp_path):
    done = wismo("build-site", str(recorded), "--out", str(tmp_path / "site"), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "run offline-e2e: every check passed" in done.stdout
    site = tmp_path / "site"
    index = (site / "index.html").read_text()
    assert "scripted, not a language model" in index and "Results: scripted-policy-v1" in index
    assert len(list((site / "cases").glob("*.html"))) == 12
    assert len(list((site / "conversations" / "offline-e2e").glob("*.html"))) == 48
    payment = (site / "cases" / "payment-taken.html").read_text()
    assert "Payment status" in payment and "captured" in payment and "Delivered" not in payment
    # the run's three charts, and the crossover view's five (its several question kinds; money unpriced), each
    # drawn for a desktop and for a phone
    assert index.count('data-chart="') - index.count('data-chart="crossover-') == 2 * 3
    assert index.count('data-chart="crossover-0-') == 2 * 5


def test_build_site_defaults_to_the_newest_run_in_runs(recorded, tmp_path):
    shutil.copytree(recorded, tmp_path / "runs" / recorded.name)
    done = wismo("build-site", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "out" / "site" / "index.html").is_file()


def test_a_tampered_run_fails_validation_and_shows_no_figures(recorded, tmp_path):
    tampered = tmp_path / "runs" / "tampered"
    shutil.copytree(recorded, tampered)
    lines = (tampered / "events.jsonl").read_text().splitlines()
    for i, line in enumerate(lines):
        event = json.loads(line)
        if event["type"] == "conversation_finished":
            event["claimed"]["inputTokens"] = (event["claimed"]["inputTokens"] or 0) + 1000
            lines[i] = json.dumps(event)
            break
    (tampered / "events.jsonl").write_text("\n".join(lines) + "\n")
    done = wismo("build-site", str(tampered), "--out", str(tmp_path / "site"), cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAILED validation" in done.stderr
    index = (tmp_path / "site" / "index.html").read_text()
    assert "failed validation and is not presented" in index and "Results:" not in index


def test_demo_records_builds_and_prints_the_index(tmp_path):
    done = wismo("demo", "--runs", str(tmp_path / "runs"), "--out", str(tmp_path / "site"), "--repetitions", "1",
                 cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    index = Path(done.stdout.strip().splitlines()[-1])
    assert index == (tmp_path / "site" / "index.html").resolve() and index.is_file()


@pytest.mark.browser
def test_the_recorded_site_in_the_browser(recorded, tmp_path, open_page):
    site = tmp_path / "site"
    done = wismo("build-site", str(recorded), "--out", str(site), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    watch = open_page()
    page = watch.page
    page.goto((site / "index.html").as_uri())
    page.click("a[href='cases/partial-delivery.html']")
    page.click("a[title='Turn diagram and transcript of partial-delivery.granular.r1']")
    assert page.locator("li.turn").count() == 3
    watch.shot("conversation")
    page.goto((site / "review.html").as_uri())
    page.wait_for_selector("body[data-review-ready='true']")
    # For a full question both designs gather the same records, so its text is reviewed once per run; for a
    # narrow one granular follows only the IDs it needs, so its evidence (and its review) differs by design.
    narrow = sum(1 for case in default_cases() if case.get("asks"))
    texts, conversations = CASE_COUNT + narrow, 2 * CONVERSATIONS
    assert page.locator("article.review-item").count() == texts
    assert page.locator("#filter-count").text_content() == f"All {texts} texts shown ({conversations} conversations)."
    page.keyboard.press("b")
    text = page.evaluate("document.body.innerText")
    assert not [word for word in ("get_order", "get_payment", "get_reservation", "get_tracking", "granular",
                                  "focused", "tool result") if word in text]
    watch.shot("review")
    watch.assert_clean()


def test_claim_findings_of_a_real_run_are_marked(recorded, tmp_path):
    """A summary edited to promise an unsupported date: `wismo claims` flags it, the case page marks it."""
    run = tmp_path / "runs" / "claims"
    shutil.copytree(recorded, run)
    target, wrong = "tracking-unavailable.granular.r1", "Your headsets (HEADSET-USB) will arrive on 2026-10-09."
    lines = (run / "events.jsonl").read_text().splitlines()
    for i, line in enumerate(lines):
        event = json.loads(line)
        if event.get("conversationId") != target:
            continue
        text = json.dumps({**(event.get("assessment") or {}), "customerSummary": wrong})
        if event["type"] == "conversation_finished":
            event["assessment"]["customerSummary"] = wrong
            event["finalText"] = text
        elif event["type"] == "model_response" and event["outputItems"][0]["type"] == "text":
            answer = json.loads(event["outputItems"][0]["text"])
            event["outputItems"][0]["text"] = event["rawOutput"][0]["text"] = json.dumps(
                {**answer, "customerSummary": wrong})
        lines[i] = json.dumps(event)
    (run / "events.jsonl").write_text("\n".join(lines) + "\n")
    claims = wismo("claims", str(run), cwd=tmp_path)
    assert claims.returncode == 0 and "1 with findings" in claims.stdout, claims.stdout + claims.stderr
    done = wismo("build-site", str(run), "--out", str(tmp_path / "site"), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    case = (tmp_path / "site" / "cases" / "tracking-unavailable.html").read_text()
    assert "<mark title=" in case and "unsupported_date" in case
    assert "Claim-check findings" in (tmp_path / "site" / "index.html").read_text()
