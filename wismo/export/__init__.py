"""Exports of a run into tools that already exist: OTLP traces (files and OTLP/HTTP) and Inspect eval logs.

A pure reader of the run format (`wismo.export.conversations` reads it through `core.runformat`'s
models); it stands beside the site, above the analysis, whose checks decide whether a run may be
exported (`--unvalidated` overrides them, and the output then says so).
"""

from __future__ import annotations

from pathlib import Path

from analysis import validate_runs
from analysis.errors import RunValidationError
from wismo.export.conversations import RunRead, read_run


def load_run(run_dir: Path, *, unvalidated: bool = False) -> RunRead:
    """The run read for export; RunValidationError when it fails `wismo validate` and unvalidated is not set."""
    if not unvalidated:
        validation = validate_runs([run_dir])[0]
        if not validation.passed:
            raise RunValidationError(validation)
    return read_run(run_dir)
