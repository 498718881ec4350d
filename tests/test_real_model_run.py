"""The committed real-model run: it validates, it is what runs/README.md says it is, and the README's figures are
its own (every number in "What a real small model did" is computed here from its trace lines).
"""

from __future__ import annotations

import hashlib
import json
import re
import statistics
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from analysis import summarize_runs
from tests.helpers import run_wismo

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT / "runs" / "qwen2.5-coder-1.5b-llama-server"
README = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
SHORT_PROMPT = ROOT / "examples" / "instructions" / "small-model.txt"


@pytest.fixture(scope="module")
def events() -> list[dict[str, Any]]:
    return [json.loads(line) for line in (RUN / "events.jsonl").read_text(encoding="utf-8").splitlines() if line]


@pytest.fixture(scope="module")
def manifest() -> dict[str, Any]:
    return json.loads((RUN / "manifest.json").read_text(encoding="utf-8"))


def test_the_run_validates(tmp_path):
    done = run_wismo("validate", str(RUN), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASS" in done.stdout


def test_it_was_recorded_through_a_language_model_with_the_flags_doctor_printed(manifest):
    assert manifest["provider"]["name"] == "openai-chat" and manifest["provider"]["isLanguageModel"]
    assert manifest["baseUrl"] == "http://127.0.0.1:8090/v1" and manifest["tokenCounts"] == "provider-reported"
    assert (manifest["designs"], manifest["repetitions"], manifest["concurrency"]) == (["granular", "focused"], 1, 1)
    assert manifest["textToolCalls"] is True and manifest["structuredOutput"]["used"] == "off"
    assert manifest["budgets"]["maxOutputTokens"] == 1024
    assert manifest["userInstructions"]["sha256"] == "sha256:" + hashlib.sha256(SHORT_PROMPT.read_bytes()).hexdigest()


def test_every_request_carried_the_output_cap_and_the_server_reported_its_timings(events):
    responses = [e for e in events if e["type"] == "model_response"]
    assert len(responses) == 56 and all(e.get("serverTimings") for e in responses)
    assert {e.get("stopReason") for e in responses} == {"stop", "length"}


def test_both_designs_called_tools_all_of_them_written_as_text(events):
    calls = [e for e in events if e["type"] == "tool_call"]
    by_design = {d: sum(1 for c in calls if c["conversationId"].split(".")[1] == d) for d in ("granular", "focused")}
    assert all(c["fromText"] for c in calls)
    assert all(by_design.values())
    assert f"all {len(calls)} calls ({by_design['granular']} granular, {by_design['focused']} focused)" in README


def test_the_readme_states_the_run_s_own_figures(events):
    [summary] = summarize_runs([RUN])
    granular, focused = summary.designs
    n = granular.conversations
    assert (f"answered without evidence in {granular.answered_without_evidence} of {n} granular and "
            f"{focused.answered_without_evidence} of {focused.conversations} focused conversations") in README
    assert granular.passed_without_evidence == focused.passed_without_evidence == 0
    assert "(none of them right)" in README
    [pairs] = summary.pairs
    assert not pairs.beyond_chance
    assert (f"right in {granular.passed} of {n} granular and {focused.passed} of {n} focused conversations**: a "
            f"margin chance alone could give (McNemar's exact test on the {pairs.pairs} pairs: p = "
            f"{pairs.chance_p:.2f})") in README
    wrong_format = [m.status_counts.get("invalid_answer", 0) for m in summary.designs]
    assert f"7 answers per design parsed; {sum(wrong_format)} were in the wrong format ({wrong_format[0]} granular, "\
           f"{wrong_format[1]} focused)" in README
    assert all(m.status_counts.get("answered") == 7 and m.status_counts.get("budget_exhausted") == 1
               for m in summary.designs) and granular.status_counts.get("provider_limit") == 1

    timings = [e["serverTimings"] for e in events if e["type"] == "model_response"]
    prompt = sum(t["promptTokens"] for t in timings) / sum(t["promptMs"] for t in timings) * 1000
    generated = sum(t["generatedTokens"] for t in timings) / sum(t["generatedMs"] for t in timings) * 1000
    cached = sum(t["cachedTokens"] for t in timings)
    assert (f"processed prompts at {prompt:.0f} tokens/s and generated {generated:.0f} tokens/s (its own "
            f"`timings`, summed over {len(timings)} requests); {cached:,} prompt tokens") in README
    finished = [e for e in events if e["type"] == "conversation_finished"]
    conversation_s = statistics.median(e["claimed"]["elapsedMs"] for e in finished) / 1000
    assert f"The median conversation took {conversation_s:.1f} s" in README
    minutes = re.search(r"the run ([\d.]+) minutes", README)
    started, ended = (json.loads((RUN / "manifest.json").read_text(encoding="utf-8"))[k]
                      for k in ("startedAt", "finishedAt"))
    took = (datetime.fromisoformat(ended) - datetime.fromisoformat(started)).total_seconds() / 60
    assert minutes and float(minutes.group(1)) == round(took, 1)
