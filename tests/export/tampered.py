"""A copy of the committed sample run whose first finished line claims a counter its trace does not add up to."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.helpers import ROOT

SAMPLE_RUN = ROOT / "runs" / "sample-offline"


def run_failing_validation(tmp_path: Path, counter: str) -> Path:
    """The sample run copied under tmp_path, its first conversation_finished line's `claimed[counter]` one more."""
    run = tmp_path / "run"
    shutil.copytree(SAMPLE_RUN, run)
    events = run / "events.jsonl"
    lines = events.read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if '"conversation_finished"' in line)
    finished = json.loads(lines[index])
    finished["claimed"][counter] += 1
    lines[index] = json.dumps(finished)
    events.write_text("\n".join(lines) + "\n")
    return run
