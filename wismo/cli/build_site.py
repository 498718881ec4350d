"""`wismo build-site`: validate runs, then write the static report site."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from wismo.cli._money import pricing, pricing_options
from wismo.sitegen.from_runs import SiteBuild, build_from_runs, newest_run


def report(build: SiteBuild, *, site_line: bool = True) -> None:
    """Say which runs are shown, which failed validation, what the reviews did, and where the site is.

    site_line=False leaves out where the site is, for a caller that ends with the path itself (demo).
    """
    for validation in build.validations:
        run = validation.run
        if validation.passed:
            click.echo(f"run {run.run_id}: every check passed")
        else:
            failed = ", ".join(c.name for c in validation.checks if not c.passed)
            click.echo(f"run {run.run_id}: FAILED validation ({failed}); its figures are left out, "
                       "see checks.html", err=True)
    if build.reviews is not None:
        tally = build.reviews
        notes = f"{tally.notes_only} note{'s' if tally.notes_only != 1 else ''} without a verdict, " \
            if tally.notes_only else ""
        click.echo(f"reviews: {tally.applied} applied, {notes}{len(tally.stale)} stale (the summary changed since), "
                   f"{tally.unknown} for conversations not in this site"
                   + (f", {tally.duplicates} duplicates (newest kept)" if tally.duplicates else ""))
        if not tally.entries and (tally.stale or tally.unknown):
            click.echo("warning: no verdict in the reviews file(s) matches a summary of this site: were they "
                       "exported from another run, or did the summaries change?", err=True)
    for difference in build.mixed:
        click.echo(f"warning: mixed runs ({difference}); the site says so", err=True)
    if site_line:
        click.echo(f"site: {build.index}")


@click.command("build-site")
@click.argument("run_dirs", nargs=-1, type=click.Path(file_okay=False, path_type=Path))
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("out/site"),
              show_default=True, help="Folder to write the site into; a rebuild deletes only the files the last "
                                      "build wrote, and a folder holding a run or other files is refused.")
@click.option("--reviews", "review_files", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
              help="A reviews file (.json or .csv) exported from the review page; repeat for several. Verdicts and "
                   "notes show on the review, case and overview pages.")
@click.option("--allow-mixed", is_flag=True,
              help="Allow runs on different datasets or tool definitions on one site (marked as mixed).")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="Processes rendering the conversation pages [default: one per CPU]; the site is the same.")
@click.option("--runs", "runs_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("runs"),
              show_default=True, help="Where to find the newest run when no RUN_DIR is given.")
@click.option("--compare-with", "compare_with", type=click.Path(file_okay=False, path_type=Path), default=None,
              metavar="BASELINE_RUN", help="Compare the run with this baseline run as `wismo compare` does: "
                                           "compare.html, regressions first, linked from the overview.")
@pricing_options
def build_site_command(run_dirs: tuple[Path, ...], out_dir: Path, review_files: tuple[Path, ...],
                       allow_mixed: bool, jobs: int | None, runs_dir: Path, compare_with: Path | None,
                       prices: Path | None, price_as: str | None) -> None:
    """Build the static report site from recorded runs (default: the newest run in runs/).

    Runs the analysis checks first: a run that fails them is shown only with its check report, never
    with figures. Several runs (other models, providers or settings) compare side by side; runs on
    different datasets or tool definitions are refused unless --allow-mixed. Then writes overview,
    case, conversation, review and check-report pages that open from disk with no server and no
    network. The overview shows each valid run's cost in USD, priced as `wismo summarize` does
    (--prices, --price-as). Exits 1 when a run failed validation.

    Example:

    \b
        wismo build-site                        # the newest run in runs/ -> out/site/
        wismo build-site runs/gpt runs/claude --out /tmp/site   # two models side by side
        wismo build-site --reviews ~/Downloads/wismo-reviews.json
        wismo build-site runs/sample-offline --price-as gpt-5-mini   # the scripted run's estimate in USD
        wismo build-site runs/after --compare-with runs/before   # compare.html: did it get worse?
    """
    priced_by = pricing(prices, price_as)  # a bad price file fails before any work
    dirs = list(run_dirs) or [newest_run(runs_dir)]
    build = build_from_runs(dirs, out_dir, review_files, allow_mixed=allow_mixed, jobs=jobs,
                            prices=priced_by.book, price_as=priced_by.price_as, compare_with=compare_with)
    report(build)
    if not all(v.passed for v in build.validations):
        sys.exit(1)
