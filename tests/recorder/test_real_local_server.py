"""End to end through a real OpenAI-compatible model server on this machine, with no proxy in between.

Runs when a server answers at WISMO_LOCAL_SERVER_URL (default http://127.0.0.1:8089/v1, the llama.cpp
server `/work/shared/tools/llama-server.sh`-style setups start); skipped at once otherwise, so CI
without a model server pays nothing. The model is WISMO_LOCAL_SERVER_MODEL, else the first one the
server lists. A small model rarely answers right: these tests hold the plumbing (tools called, real
usage recorded, a run that validates and builds), never the pass rate. A request can take a minute
on a loaded machine, so each test gets a long timeout.
"""

from __future__ import annotations

import json
import os
import subprocess
import urllib.request
from functools import cache
from pathlib import Path

import pytest

from analysis import validate_runs
from core.runformat.read import read_event_lines
from tests.helpers import WISMO

URL = os.environ.get("WISMO_LOCAL_SERVER_URL", "http://127.0.0.1:8089/v1").rstrip("/")

pytestmark = [pytest.mark.local_server, pytest.mark.timeout(3600)]


@cache
def served_model() -> str | None:
    """The model to use, or None when no server answers within two seconds."""
    try:
        with urllib.request.urlopen(f"{URL}/models", timeout=2.0) as reply:
            listed = json.load(reply).get("data") or []
    except (OSError, ValueError):
        return None
    return os.environ.get("WISMO_LOCAL_SERVER_MODEL") or (listed[0]["id"] if listed else None)


@pytest.fixture
def model() -> str:
    found = served_model()
    if found is None:
        pytest.skip(f"no model server answers at {URL} (set WISMO_LOCAL_SERVER_URL)")
    return found


def wismo(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*WISMO, *args], capture_output=True, text=True, cwd=cwd, timeout=3500,
                          env=dict(os.environ))


def test_doctor_then_record_with_the_flags_it_printed(model, tmp_path):
    doctor = wismo("doctor", "--base-url", URL, "--model", model, "--request-timeout", "900", cwd=tmp_path)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    command = doctor.stdout.split("record with:\n", 1)[1].strip().split()
    assert command[:2] == ["wismo", "record"]
    record = wismo(*command[1:], "--designs", "granular", "--cases", "delivered-on-time", "--repetitions", "1",
                   "--request-timeout", "900", "--deadline", "3000", "--out", str(tmp_path), "--run-id", "real",
                   cwd=tmp_path)
    run_dir = tmp_path / "real"
    # An invalid answer is fine (exit 0); a provider error is not.
    assert record.returncode == 0, record.stdout + record.stderr
    events = [event for _, event in read_event_lines(run_dir / "events.jsonl").events]
    assert any(e["type"] == "tool_call" for e in events), "the model called no tool"
    responses = [e for e in events if e["type"] == "model_response"]
    assert responses and all(r["error"] is None and r["usage"]["inputTokens"] > 0 for r in responses)
    [validation] = validate_runs([run_dir])
    assert validation.passed, [(c.name, c.rows) for c in validation.checks if not c.passed]
    built = wismo("build-site", str(run_dir), "--out", str(tmp_path / "site"), cwd=tmp_path)
    assert built.returncode == 0, built.stdout + built.stderr
