"""`wismo score`: re-score a recorded run after an expectation or scorer change, without a model."""

from __future__ import annotations

from pathlib import Path

import click

from analysis.rescore import rescore
from wismo.cli._options import dataset_option


@click.command("score")
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))
@dataset_option
def score_command(run_dir: Path, dataset_dir: Path | None) -> None:
    """Re-score RUN_DIR's parsed answers and append the scores to RUN_DIR/scores.jsonl.

    The raw events are never rewritten. Without --dataset the expectations stored in the run's
    manifest are used (after a scorer change); with --dataset, that dataset's expectations (after
    an expectation change). The analysis uses the latest scores.jsonl lines when present.

    Example:

        wismo score runs/sample-offline --dataset ./my-dataset
    """
    result = rescore(run_dir, dataset_dir)
    click.echo(f"scored {result.scored} conversations: {result.passed} pass, {result.scored - result.passed} fail")
    if result.changed:
        click.echo(f"verdict changed for {len(result.changed)}: {', '.join(result.changed[:10])}"
                   + (" …" if len(result.changed) > 10 else ""))
    if result.unreadable_lines:
        shown = ", ".join(map(str, result.unreadable_lines[:10]))
        click.echo(f"warning: {len(result.unreadable_lines)} line(s) of events.jsonl are not events and were "
                   f"skipped (line {shown}); `wismo validate {run_dir}` says more", err=True)
    click.echo(f"wrote {result.path}")
