"""Fixtures for the analysis tests: copies of the recorded sample run and a way to edit its lines."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ROOT

SAMPLE_RUN = ROOT / "runs" / "sample-offline"
_SAMPLE_MANIFEST = json.loads((SAMPLE_RUN / "manifest.json").read_text())
SAMPLE_CASES = len(_SAMPLE_MANIFEST["cases"])
SAMPLE_PAIRS = SAMPLE_CASES * _SAMPLE_MANIFEST["repetitions"]  # (case, repetition): one per design
SAMPLE_CONVERSATIONS = SAMPLE_PAIRS * len(_SAMPLE_MANIFEST["designs"])


def dumps(event: dict[str, Any]) -> str:
    """An event line as the recorder writes it."""
    return json.dumps(event, ensure_ascii=False, separators=(",", ":"))


class RunCopy:
    """A copy of a run folder whose events.jsonl a test may rewrite line by line."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.events_path = path / "events.jsonl"

    def lines(self) -> list[str]:
        """The lines of events.jsonl, without their newlines."""
        return self.events_path.read_text(encoding="utf-8").splitlines()

    def write_lines(self, lines: list[str], *, final_newline: bool = True) -> None:
        """Replace events.jsonl."""
        self.events_path.write_text("\n".join(lines) + ("\n" if final_newline else ""), encoding="utf-8")

    def events(self) -> list[dict[str, Any]]:
        """Every line parsed (the copy is well-formed until a test breaks it)."""
        return [json.loads(line) for line in self.lines()]

    def index_of(self, predicate: Callable[[dict[str, Any]], bool]) -> int:
        """The 0-based index of the first event matching predicate."""
        return next(i for i, event in enumerate(self.events()) if predicate(event))

    def edit(self, predicate: Callable[[dict[str, Any]], bool], change: Callable[[dict[str, Any]], None]) -> dict:
        """Apply change to the first matching event and write the file back; return the changed event."""
        lines = self.lines()
        index = self.index_of(predicate)
        event = json.loads(lines[index])
        change(event)
        lines[index] = dumps(event)
        self.write_lines(lines)
        return event


@pytest.fixture
def sample_copy(tmp_path: Path) -> RunCopy:
    """A fresh copy of runs/sample-offline."""
    target = tmp_path / "sample-offline"
    shutil.copytree(SAMPLE_RUN, target)
    # The planted faults are in the events; the derived claims file would also (rightly) flag the
    # conversations a fault removes, so it is left out; tests of claims.jsonl write their own.
    (target / "claims.jsonl").unlink(missing_ok=True)
    return RunCopy(target)
