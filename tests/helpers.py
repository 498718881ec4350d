"""Helpers the tests share: the repository root, the CLI as a child command, dataset copies.

Plain functions and constants only: importing this module changes nothing (conftest.py sets up the
environment child processes need).
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.domain.dataset import DEFAULT_DATASET_DIR
from core.runformat.read import live_attempts, read_event_lines

ROOT = Path(__file__).resolve().parents[1]
WISMO = [sys.executable, "-m", "wismo.cli"]


def default_records() -> dict[str, Any]:
    """A fresh copy of the default records.json."""
    return json.loads((DEFAULT_DATASET_DIR / "records.json").read_text())


def default_cases() -> list[dict[str, Any]]:
    """A fresh copy of the default cases.json."""
    return json.loads((DEFAULT_DATASET_DIR / "cases.json").read_text())


CASE_COUNT = len(default_cases())
CONVERSATIONS = 2 * CASE_COUNT  # one repetition of every default case, in both designs


def renamed_dataset() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The default dataset with every ID and SKU renamed, so nothing can rely on the defaults' values."""
    text_records = json.dumps(default_records())
    text_cases = json.dumps(default_cases())
    replacements = {"ORD-10": "ORD-50", "PAY-10": "PAY-50", "RSV-10": "RSV-50", "TRK-10": "TRK-50",
                    "DOCK-USB-C": "HUB-8PORT", "KEYBOARD-TKL": "KEYPAD-NUM", "WEBCAM-4K": "MIC-STUDIO",
                    "CHAIR-ERGO": "DESK-STAND", "LAPTOP-14": "PHONE-X2", "MONITOR-27": "PRINTER-A4",
                    "HEADSET-USB": "SPEAKER-BT", "TABLET-11": "EREADER-7", "MOUSE-WL": "PEN-STYLUS",
                    "BAG-15": "CASE-HARD", "ACC-7001": "ACC-4242"}
    for old, new in replacements.items():
        text_records = text_records.replace(old, new)
        text_cases = text_cases.replace(old, new)
    return json.loads(text_records), json.loads(text_cases)


def marked_command(marker: str, document: str = "README.md") -> str:
    """The shell command in the ```sh block that follows `<!-- marker -->` in a document of the repository."""
    text = (ROOT / document).read_text()
    match = re.search(rf"<!-- {marker} -->\s*```sh\n(.+?)\n```", text, re.S)
    assert match, f"{document} has no {marker} block"
    return match.group(1).strip()


# provider -> (the loopback wire format that speaks its API, what its base URL ends with)
PROVIDER_WIRES = {"openai": ("responses", "/v1"), "openai-chat": ("chat", "/v1"), "anthropic": ("messages", "")}


def run_wismo(*args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 300,
              **options: Any) -> subprocess.CompletedProcess[str]:
    """Run the CLI of this checkout as a child process and wait for it."""
    return subprocess.run([*WISMO, *args], capture_output=True, text=True, cwd=cwd, timeout=timeout,
                          env={**os.environ, **(env or {})}, **options)


def events_of(run_dir: Path) -> list[dict[str, Any]]:
    """Every readable line of a run's events.jsonl."""
    return [event for _, event in read_event_lines(run_dir / "events.jsonl").events]


def live_finished(run_dir: Path) -> dict[str, dict[str, Any]]:
    """conversationId -> the conversation_finished line of its live attempt."""
    events = events_of(run_dir)
    live = live_attempts([(0, e) for e in events])
    return {e["conversationId"]: e for e in events
            if e["type"] == "conversation_finished" and live.get(e["conversationId"]) == e["attempt"]}


def wait_for(condition: Callable[[], bool], timeout: float = 120, what: str = "a condition") -> None:
    """Poll until `condition()` holds; fail the test after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(0.005)


def without_root_override() -> None:
    """preexec_fn: as root, drop the capability to write where permissions forbid it (a read-only folder)."""
    if os.geteuid() == 0:
        libc = ctypes.CDLL(None, use_errno=True)
        for capability in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, from the bounding set
            libc.prctl(24, capability, 0, 0, 0)  # PR_CAPBSET_DROP


def child_pids(wanted: Callable[[list[bytes]], bool]) -> set[int]:
    """The running children of this process whose arguments (read from /proc) are wanted."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            arguments = (entry / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if parent == os.getpid() and wanted(arguments):
            found.add(int(entry.name))
    return found
