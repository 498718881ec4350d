"""Rough edges of issue 23, each reproduced as the user met it and now a clear line or a recovery."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

from tests.helpers import run_wismo, wait_for


@pytest.mark.parametrize(("header", "env", "message"), [
    ("remote=Bad Name: x", {}, "'Bad Name' is not a valid HTTP header name"),
    ("remote=X-Ok(: x", {}, "is not a valid HTTP header name"),
    ("remote=Authorization: Bearer ${WISMO_TEST_CRLF}", {"WISMO_TEST_CRLF": "t\r\nX-Injected: 1"},
     "its value (from the environment) holds a line break or NUL"),
])
def test_an_illegal_header_is_one_line_about_the_header_not_the_server(tmp_path, header, env, message):
    done = run_wismo("record", "--server", "remote=http://127.0.0.1:9/mcp", "--header", header, "--run-id", "h",
                     cwd=tmp_path, env=env)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "protocol" not in done.stderr.lower()
    assert "X-Injected" not in done.stderr and not (tmp_path / "runs" / "h").exists()


@pytest.mark.parametrize(("host", "warned"), [("0.0.0.0", True), ("127.0.0.1", False)])
def test_serving_beyond_loopback_warns_that_anyone_can_read_it(host, warned):
    process = subprocess.Popen([sys.executable, "-m", "wismo.cli", "serve", "focused", "--transport",
                                "streamable-http", "--host", host, "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        seen = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any("http://" in line for line in seen):
            seen.append(process.stderr.readline())
        assert any("http://" in line for line in seen), seen
        warning = [line for line in seen if line.startswith("warning:")]
        assert bool(warning) == warned, seen
        if warned:
            assert "no authentication" in warning[0] and "127.0.0.1" in warning[0]
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(20)


def test_resume_of_a_typo_or_an_empty_folder_is_one_line_and_creates_nothing(tmp_path):
    done = run_wismo("record", "--resume", "runs/no-such-run", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.strip() == (
        "error: --resume runs/no-such-run: does not exist; give the folder of a recorded run (runs/<run-id>)")
    assert not (tmp_path / "runs").exists()
    (tmp_path / "empty").mkdir()
    done = run_wismo("record", "--resume", "empty", cwd=tmp_path)
    assert done.returncode == 2 and "the folder is empty, so it holds no run to resume" in done.stderr
    assert list((tmp_path / "empty").iterdir()) == []


def test_the_documented_largest_generated_dataset_passes_the_comparison(tmp_path):
    generated = run_wismo("dataset", "generate", "--out", "ds", "--seed", "1", "--lines", "200", cwd=tmp_path)
    assert generated.returncode == 0, generated.stderr
    checked = run_wismo("check", "--dataset", "ds", cwd=tmp_path)
    assert checked.returncode == 0 and "PASS" in checked.stdout, checked.stdout[-2000:] + checked.stderr


def test_validate_and_build_site_on_a_run_being_written_say_so_instead_of_failing_it(tmp_path):
    recorder = subprocess.Popen([sys.executable, "-m", "wismo.cli", "record", "--repetitions", "3", "--run-id", "live"],
                                cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    events = tmp_path / "runs" / "live" / "events.jsonl"
    try:
        wait_for(lambda: events.exists() and events.read_bytes().count(b"conversation_finished") >= 2,
                 what="the first conversations")
        recorder.send_signal(signal.SIGSTOP)  # mid-run, holding its lock
        for command in (("validate", "runs/live"), ("build-site", "runs/live", "--out", "site"),
                        ("summarize", "runs/live")):
            done = run_wismo(*command, cwd=tmp_path)
            assert done.returncode == 2 and "FAILED" not in done.stdout + done.stderr, (command, done.stdout)
            [line] = done.stderr.strip().splitlines()
            assert f"is still being written by pid {recorder.pid}" in line and "wismo record" in line, line
        assert not (tmp_path / "site").exists()
    finally:
        recorder.send_signal(signal.SIGCONT)
        recorder.wait(300)
    assert recorder.returncode == 0
    assert run_wismo("validate", "runs/live", cwd=tmp_path).returncode == 0
