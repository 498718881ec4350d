"""`wismo demo`: record the default dataset offline, build the site, print where index.html is."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from analysis.headline import headline
from analysis.model import RunSummary
from core.errors import WismoError
from recorder.run.options import RecordOptions
from recorder.run.record import default_command_line, record
from wismo.cli._money import pricing, pricing_options
from wismo.cli._progress import ProgressLine
from wismo.cli._tables import WIDTH, wrap
from wismo.cli.build_site import report
from wismo.cli.record import check_claims, run_recording
from wismo.cli.summarize import headline_lines
from wismo.sitegen.from_runs import build_from_runs
from wismo.sitegen.output import check_output


def demo_headline(summary: RunSummary) -> list[str]:
    """The run's headline as `summarize` words it, and the first line of any fault warning."""
    lines = headline_lines(summary)
    warnings = headline(summary).warnings
    if warnings:
        lines += wrap(f"warning: {warnings[0]} (`wismo summarize` lists the causes)", WIDTH)
    return lines


@click.command()
@click.option("--runs", "runs_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("runs"),
              show_default=True, help="Folder the new run folder is created in.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("out/site"),
              show_default=True, help="Folder to write the site into.")
@click.option("--repetitions", type=click.IntRange(min=1), default=3, show_default=True)
@pricing_options
def demo(runs_dir: Path, out_dir: Path, repetitions: int, prices: Path | None, price_as: str | None) -> None:
    """Record the default dataset offline (scripted, not a language model) and build the report site.

    No key and no network: the scripted policy plays the model against both designs' real MCP
    servers, the run is validated and the site is written. The last line printed is the path of
    index.html; before it, the headline: each design's pass rate and the difference in total tokens
    over the pairs both designs answered correctly, with its 95 % interval. Open index.html in a
    browser straight from disk.

    Example:

    \b
        wismo demo
        wismo demo --repetitions 5 --out /tmp/wismo-site
    """
    runs, out = runs_dir.resolve(), out_dir.resolve()
    if runs == out or out in runs.parents:
        raise WismoError(f"--runs {runs_dir} would put the run inside the site folder --out {out_dir}; "
                         "choose separate folders (a site build never deletes a run)")
    check_output(out_dir)  # refuse before recording, not after
    priced_by = pricing(prices, price_as)
    progress = ProgressLine()
    try:
        result = run_recording(record(RecordOptions(out_dir=runs_dir, repetitions=repetitions,
                                                    command_line=default_command_line()), progress,
                                      after=check_claims))
    finally:
        progress.close()
    build = build_from_runs([result.run_dir], out_dir, prices=priced_by.book, price_as=priced_by.price_as)
    report(build, site_line=False)
    # The answer before the path: what a reader would otherwise open the site to find first.
    for summary in build.summaries:  # right under report's "run ...: every check passed"
        for line in demo_headline(summary):
            click.echo(line)
    click.echo()
    click.echo(build.index.resolve())
    if not all(v.passed for v in build.validations):
        sys.exit(1)
