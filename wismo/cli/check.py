"""`wismo check`: the deterministic comparison of the two designs, no model involved."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
from pathlib import Path

import click

from recorder.comparison import design_order, run_comparison
from recorder.dataset import load_dataset
from wismo.cli._options import dataset_option


def _server_override(_ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]) -> dict[str, list[str]]:
    commands = {}
    for value in values:
        design, sep, command = value.partition("=")
        if not sep or design not in ("granular", "focused") or not command.strip():
            raise click.BadParameter(f"{value!r}: expected granular=COMMAND or focused=COMMAND")
        commands[design] = shlex.split(command)
    return commands


@click.command()
@dataset_option
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("runs/deterministic-comparison.json"), show_default=True,
              help="Where to write the comparison as JSON.")
@click.option("--server", "servers", multiple=True, callback=_server_override, metavar="DESIGN=COMMAND",
              help="Run DESIGN's server with COMMAND instead of wismo's own (to check another implementation).")
def check(dataset_dir: Path | None, out: Path, servers: dict[str, list[str]]) -> None:
    """Check that both tool designs return exactly the same evidence for every order.

    Launches both servers over stdio, follows every ID through the granular tools, calls the
    focused tool once per order, rebuilds the focused result from the granular one and compares
    them. Also tries malformed and unknown IDs on every tool and checks that no expected
    assessment label appears in any tool result. Exits 1 when anything differs. Warns (without
    failing) about a case whose question does not contain its order ID: no model can pass it.

    Example:

        wismo check --dataset ./my-dataset --out /tmp/comparison.json
    """
    dataset = load_dataset(dataset_dir)
    for warning in dataset.warnings:
        click.echo(f"warning: {warning}", err=True)
    report = asyncio.run(run_comparison(dataset, servers))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report.to_json(), indent=2) + "\n", encoding="utf-8")

    click.echo(f"dataset {dataset.name} ({dataset.content_hash[:19]}), {len(report.orders)} orders")
    # The designs in record's default --designs order, the order the JSON lists them in too.
    first, second = design_order()
    initials = f"{first[0]}/{second[0]}"
    click.echo(f"{'order':<12}{'matched':<9}{'bytes ' + initials:>14}{'calls ' + initials:>11}"
               f"{'lookups ' + initials:>13}   ({first}/{second})")
    for order in report.orders:
        click.echo(f"{order.orderId:<12}{'yes' if order.matched else 'NO':<9}"
                   f"{order.bytes[first]:>7}/{order.bytes[second]:<6}"
                   f"{order.interactions[first]:>5}/{order.interactions[second]:<5}"
                   f"{_reads(order.lookups.get(first)):>6}/{_reads(order.lookups.get(second)):<6}")
        for difference in order.differences[:10]:
            click.echo(f"    differs at {difference}")
    refused = sum(e.ok for e in report.edgeCases)
    click.echo(f"bad inputs refused with a clear error, server alive: {refused}/{len(report.edgeCases)}")
    for edge in (e for e in report.edgeCases if not e.ok):
        click.echo(f"    {edge.design} {edge.tool} {edge.label}: isError={edge.isError} alive={edge.serverAlive}")
    for label in report.leakedExpectations:
        click.echo(f"an expectation label appears in a tool result: {label}")
    for mismatch in report.ruleMismatches:
        click.echo(f"rules disagree with cases.json: {mismatch}")
    click.echo(f"{'PASS' if report.passed else 'FAIL'}: wrote {out}")
    if not report.passed:
        sys.exit(1)


def _reads(lookups: dict[str, int] | None) -> str:
    """The backend reads of one order's gathering, or a dash when the server reported none."""
    return "–" if lookups is None else str(sum(v for k, v in lookups.items() if k != "notFound"))
