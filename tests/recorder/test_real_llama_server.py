"""Through llama.cpp's own C++ llama-server (`--jinja`, one slot) with a small model: the quirks of issue 22, for real.

Runs when a llama-server answers at WISMO_LLAMA_SERVER_URL (default http://127.0.0.1:8090, as
`../shared/tools/llama-server-cpp.sh DIR 8090` starts it); skipped at once otherwise. The model is
whatever it serves (Qwen2.5-Coder-1.5B-Instruct Q4_K_M here). A small model rarely answers right:
these tests hold the plumbing (the cap sent and obeyed, calls written as text read in both designs,
timings recorded, a timeout that frees the slot), never the pass rate.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.request
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from analysis import validate_runs
from core.runformat.read import read_event_lines
from tests.helpers import WISMO

ROOT = os.environ.get("WISMO_LLAMA_SERVER_URL", "http://127.0.0.1:8090").rstrip("/").removesuffix("/v1")
INSTRUCTIONS = Path(__file__).parents[2] / "examples" / "instructions" / "small-model.txt"

pytestmark = [pytest.mark.local_server, pytest.mark.timeout(3600)]


def _get(path: str, timeout: float = 2.0) -> Any:
    with urllib.request.urlopen(ROOT + path, timeout=timeout) as reply:
        return json.load(reply)


@cache
def served_model() -> str | None:
    """The model the server lists, or None when no llama-server answers within two seconds."""
    try:
        if _get("/health").get("status") != "ok":
            return None
        listed = _get("/v1/models").get("data") or []
    except (OSError, ValueError):
        return None
    return listed[0]["id"] if listed else None


@pytest.fixture
def model() -> str:
    found = served_model()
    if found is None:
        pytest.skip(f"no llama-server answers at {ROOT} (set WISMO_LLAMA_SERVER_URL)")
    return found


def record(model: str, tmp_path: Path, run_id: str, *flags: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    done = subprocess.run([*WISMO, "record", "--provider", "openai-chat", "--base-url", ROOT + "/v1", "--model", model,
                           "--repetitions", "1", "--concurrency", "1", "--out", str(tmp_path), "--run-id", run_id,
                           *flags], capture_output=True, text=True, cwd=tmp_path, timeout=3500, env=dict(os.environ))
    return done, tmp_path / run_id


def lines(run_dir: Path) -> list[dict[str, Any]]:
    return [event for _, event in read_event_lines(run_dir / "events.jsonl").events]


def test_a_tiny_cap_cuts_the_reply_and_the_server_says_length(model, tmp_path):
    done, run_dir = record(model, tmp_path, "capped", "--designs", "focused", "--cases", "delivered-on-time",
                           "--structured-output", "off", "--max-output-tokens", "8", "--request-timeout", "900")
    assert done.returncode == 0, done.stdout + done.stderr
    [response] = [e for e in lines(run_dir) if e["type"] == "model_response"]
    assert response["stopReason"] == "length"
    assert response["usage"]["outputTokens"] <= 8
    assert response["serverTimings"]["generatedTokens"] <= 8
    [finished] = [e for e in lines(run_dir) if e["type"] == "conversation_finished"]
    assert finished["status"] == "provider_limit"


def test_the_short_instructions_and_text_calls_gather_records_in_both_designs(model, tmp_path):
    done, run_dir = record(model, tmp_path, "text", "--cases", "delivered-on-time", "--structured-output", "off",
                           "--text-tool-calls", "--instructions", str(INSTRUCTIONS), "--max-output-tokens", "512",
                           "--request-timeout", "900", "--deadline", "3000")
    assert done.returncode == 0, done.stdout + done.stderr
    events = lines(run_dir)
    calls = [e for e in events if e["type"] == "tool_call"]
    assert {c["conversationId"].split(".")[1] for c in calls} == {"granular", "focused"}
    assert any(r["type"] == "tool_result" and not r["isError"] for r in events)
    responses = [e for e in events if e["type"] == "model_response"]
    assert all(r["serverTimings"]["promptMs"] > 0 for r in responses)
    assert any(r["usage"]["cachedTokens"] for r in responses[1:])  # the prefix is reused between turns
    [validation] = validate_runs([run_dir])
    assert validation.passed, [(c.name, c.rows) for c in validation.checks if not c.passed]


def test_a_request_timeout_frees_the_server_s_only_slot(model, tmp_path):
    # A 2 s timeout on a prompt that takes the server far longer: wismo closes the connection, and
    # llama-server cancels the task ("srv stop: cancel task") instead of finishing it.
    done, run_dir = record(model, tmp_path, "timeout", "--designs", "granular", "--cases", "delivered-on-time",
                           "--request-timeout", "2")
    assert done.returncode == 1, done.stdout + done.stderr  # a timeout is a fault
    [finished] = [e for e in lines(run_dir) if e["type"] == "conversation_finished"]
    assert finished["status"] == "timeout"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        slots = _get("/slots", timeout=10)
        if not any(slot.get("is_processing") for slot in slots):
            break
        time.sleep(0.5)
    else:
        pytest.fail(f"the slot was still busy 20 s after the timeout: {slots}")
