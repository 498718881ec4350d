"""`wismo claims`: check a run's customer summaries against the evidence each conversation gathered."""

from __future__ import annotations

from pathlib import Path

import click

from analysis.claims.run import check_run


@click.command("claims")
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(file_okay=False, path_type=Path))
def claims_command(run_dirs: tuple[Path, ...]) -> None:
    """Check every customer summary in RUN_DIR… and write RUN_DIR/claims.jsonl.

    Flags claims the conversation's own tool results do not support: an item said delivered without
    a delivered carrier observation, a delay where nothing shows one, a delay blamed on the wrong cause,
    a payment statement its record contradicts, an invented date, certainty the evidence cannot give,
    unacknowledged missing evidence, an ordered item never mentioned (docs/claims.md lists the kinds).
    `record` runs it at the end of every run; run it again after changing the checker.

    Example:

        wismo claims runs/sample-offline
    """
    for run_dir in run_dirs:
        result = check_run(run_dir)
        kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(result.by_kind.items())) or "none"
        click.echo(f"{run_dir}: {result.checked} summaries checked, {result.with_findings} with findings "
                   f"({kinds}); wrote {result.path}")
        if result.unreadable_lines:
            shown = ", ".join(map(str, result.unreadable_lines[:10]))
            click.echo(f"warning: {len(result.unreadable_lines)} line(s) of {run_dir}/events.jsonl are not events "
                       f"and were skipped (line {shown}); `wismo validate {run_dir}` says more", err=True)
