"""An events.jsonl converted to CRLF line endings: no invented blank lines, and real faults keep their numbers."""

from __future__ import annotations

import shutil

from analysis import validate_runs
from tests.helpers import ROOT

SAMPLE = ROOT / "runs" / "sample-offline"


def test_a_crlf_file_validates_and_a_real_fault_in_it_is_numbered_exactly(tmp_path):
    run = tmp_path / "crlf"
    shutil.copytree(SAMPLE, run)
    events = run / "events.jsonl"
    lines = events.read_bytes().split(b"\n")[:-1]
    events.write_bytes(b"".join(line + b"\r\n" for line in lines))
    [validation] = validate_runs([run])
    assert validation.passed and validation.malformed_lines == []

    # A blank line and a line that is not JSON, both with CRLF, at known places.
    broken = [*lines[:10], b"", *lines[10:20], b"not json", *lines[20:]]
    events.write_bytes(b"".join(line + b"\r\n" for line in broken))
    [validation] = validate_runs([run])
    assert [number for number, _ in validation.malformed_lines] == [11, 22]
