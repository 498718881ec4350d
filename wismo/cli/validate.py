"""`wismo validate`: run every check on recorded runs and show the rows that fail them."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from analysis import validate_runs
from analysis.model import CheckResult, RunValidation
from core.errors import WismoError
from core.runformat import EVENTS_FILE, MANIFEST_FILE
from wismo.cli._tables import cell, table

SHOWN_ROWS = 10


def check_lines(check: CheckResult, shown: int = SHOWN_ROWS) -> list[str]:
    """One check: its verdict and, when it found rows, the first of them and how many there are."""
    if not check.row_count:
        return [f"  pass  {check.name}"]
    verdict = "note" if check.severity == "notice" else "FAIL"
    first_sentence = check.description.split(". ")[0].rstrip(".")
    lines = [f"  {verdict:<4}  {check.name} ({check.row_count} row{'s' * (check.row_count != 1)}): {first_sentence}"]
    rows = [[cell(v, 3) for v in row] for row in check.rows[:shown]]
    lines += table(check.columns, rows, indent="          ")
    if check.row_count > len(rows):
        lines.append(f"          ... and {check.row_count - len(rows)} more ({check.sql_file} lists them all)")
    return lines


def report_lines(validation: RunValidation) -> list[str]:
    """Every check of one run, then a one-line verdict."""
    run = validation.run
    lines = [f"{run.run_dir}: run {run.run_id}, {run.provider} / {run.model}"]
    for check in validation.checks:
        lines += check_lines(check)
    failed = [c.name for c in validation.checks if not c.passed]
    notes = []
    if validation.superseded_events:
        notes.append(f"{validation.superseded_events} events of superseded attempts excluded")
    verdict = f"FAIL: {', '.join(failed)}" if failed else f"PASS: {len(validation.checks)} checks"
    lines.append(verdict + (f" ({'; '.join(notes)})" if notes else ""))
    return lines


@click.command("validate")
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path))
def validate_command(run_dirs: tuple[Path, ...]) -> None:
    """Check recorded runs against their own traces; exit 1 when any check fails.

    Every check is a SQL query (analysis/sql/check_*.sql) that returns the offending rows: lines
    that are not events, lines from another run, counters the events do not add up to, tool calls
    without their result, gaps in seq or turns, planned conversations that are missing, stored
    scores that a re-computation does not confirm. Notices (superseded attempts, a line a resume
    repaired) are shown but do not fail. Paths that are not run folders (`runs/*` also matches
    runs/README.md) are skipped with a note.

    Example:

        wismo validate runs/sample-offline
    """
    runs = []
    for path in run_dirs:
        # A path that does not exist is a mistake to report; one that exists but holds no run is skipped.
        if not path.exists() or is_run_entry(path):
            runs.append(path)
        else:
            click.echo(f"skipping {path}: not a run folder (no {MANIFEST_FILE} or {EVENTS_FILE})", err=True)
    if not runs:
        raise WismoError("none of the paths given is a run folder")
    validations = validate_runs(runs)
    for index, validation in enumerate(validations):
        if index:
            click.echo()
        for line in report_lines(validation):
            click.echo(line)
    if not all(v.passed for v in validations):
        sys.exit(1)


def is_run_entry(path: Path) -> bool:
    """A folder that holds a run (or a run's remains): `runs/*` also lists README.md and other folders."""
    return path.is_dir() and ((path / MANIFEST_FILE).exists() or (path / EVENTS_FILE).exists())
