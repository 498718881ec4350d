"""Claim checks over a recorded run: findings land in claims.jsonl; the raw events stay untouched."""

from __future__ import annotations

import asyncio
import hashlib
import json

from analysis.claims.run import check_run
from recorder.providers import REGISTRY
from recorder.run.options import RecordOptions
from recorder.run.record import record
from tests.recorder.fake_registry import SEED_SUMMARY, SeedWordingProvider


def test_the_seed_wording_is_flagged_and_the_scripted_summaries_are_not(tmp_path, monkeypatch):
    monkeypatch.setitem(REGISTRY, "seed-wording", SeedWordingProvider)
    result = asyncio.run(record(RecordOptions(provider="seed-wording", repetitions=1, out_dir=tmp_path,
                                              run_id="seed", case_ids=("tracking-unavailable", "partial-delivery"))))
    assert not (result.run_dir / "claims.jsonl").exists()  # the recorder never runs a later stage
    first = check_run(result.run_dir)
    assert (first.checked, first.with_findings) == (4, 2)
    lines = [json.loads(line) for line in (result.run_dir / "claims.jsonl").read_text().splitlines()]
    checked = {line["conversationId"]: line["findings"] for line in lines if line["type"] == "summary_checked"}
    assert checked == {"tracking-unavailable.granular.r1": 1, "tracking-unavailable.focused.r1": 1,
                       "partial-delivery.granular.r1": 0, "partial-delivery.focused.r1": 0}
    findings = [line for line in lines if line["type"] == "claim_finding"]
    assert {(f["conversationId"], f["kind"]) for f in findings} == {
        ("tracking-unavailable.granular.r1", "unsupported_delay"),
        ("tracking-unavailable.focused.r1", "unsupported_delay")}
    for finding in findings:
        assert SEED_SUMMARY[finding["start"]:finding["end"]] == finding["claim"]
        assert "reason for the delay" in finding["claim"]
        assert "TRK-1005-A" in finding["evidence"]

    events = result.run_dir / "events.jsonl"
    before = hashlib.sha256(events.read_bytes()).hexdigest()
    again = check_run(result.run_dir)
    assert (again.checked, again.with_findings, again.by_kind) == (4, 2, {"unsupported_delay": 2})
    assert hashlib.sha256(events.read_bytes()).hexdigest() == before


def test_unreadable_lines_are_named_not_silently_skipped(tmp_path):
    import shutil
    import subprocess

    from tests.helpers import ROOT, WISMO
    run = tmp_path / "run"
    shutil.copytree(ROOT / "runs" / "sample-offline", run)
    with open(run / "events.jsonl", "a") as events:
        events.write('{"v": 1, "type": "tool_res\n')
    lines = len((run / "events.jsonl").read_text().splitlines())
    for command in ("claims", "score"):
        done = subprocess.run([*WISMO, command, str(run)], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "1 line(s) of" in done.stderr and f"(line {lines})" in done.stderr, done.stderr
