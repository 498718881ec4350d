"""`wismo check`: the deterministic comparison of every design with the granular one, no model involved."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import click

from core.domain.dataset import load_dataset
from core.errors import WismoError
from recorder.designs.choose import DesignSpec, parse_header, parse_server, with_headers
from recorder.designs.comparison import COMPARED_DESIGNS, ComparisonReport, run_comparison
from recorder.designs.mcp_client import ServerTarget
from wismo.cli._options import dataset_option


def _server_override(_ctx: click.Context, _param: click.Parameter,
                     values: tuple[str, ...]) -> tuple[DesignSpec, ...]:
    try:
        return tuple(parse_server(value) for value in values)
    except WismoError as exc:
        raise click.BadParameter(str(exc)) from None


def _targets(servers: tuple[DesignSpec, ...], headers: tuple[str, ...]) -> dict[str, ServerTarget]:
    """Each --server's command or URL, with the --header values read from the environment."""
    specs = with_headers({s.name: s for s in servers}, [parse_header(h) for h in headers])
    return {name: spec.target() for name, spec in specs.items()}


@click.command()
@dataset_option
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("runs/deterministic-comparison.json"), show_default=True,
              help="Where to write the comparison as JSON.")
@click.option("--server", "servers", multiple=True, callback=_server_override, metavar="NAME=COMMAND|URL",
              help="Also check design NAME, served on stdio by COMMAND or reached at an http(s)://…/mcp URL "
                   "(granular or focused: instead of wismo's own server). Repeatable.")
@click.option("--header", "headers", multiple=True, metavar="NAME=Header: value",
              help="An HTTP header for design NAME's URL; $VAR or ${VAR} is read from the environment. Repeatable.")
def check(dataset_dir: Path | None, out: Path, servers: tuple[DesignSpec, ...], headers: tuple[str, ...]) -> None:
    """Check that every tool design returns exactly the granular design's evidence for every order.

    Launches each design's server over stdio (wismo's granular and focused, and every --server), and
    for each order calls every tool taking its orderId, then follows every ID the results link to.
    The records each design returns (JSON objects carrying their own orderId, paymentId,
    reservationId or trackingId, or a not_found marker) are compared with granular's, record by
    record; each difference names the design, the order and the record. Also tries malformed and
    unknown IDs on every tool, derives each case's answer from each design's evidence, and checks
    that no expected assessment label appears in any tool result. Exits 1 when anything differs.
    Warns (without failing) about a case whose question does not contain its order ID: no model
    can pass it.

    Example:

        wismo check --dataset ./my-dataset --out /tmp/comparison.json
        wismo check --server middle="python examples/middle/server.py"
    """
    dataset = load_dataset(dataset_dir)
    for warning in dataset.warnings:
        click.echo(f"warning: {warning}", err=True)
    # wismo's designs in record's default --designs order, then the user's, in the order given.
    targets = _targets(servers, headers)
    designs = [*COMPARED_DESIGNS, *(d for d in targets if d not in COMPARED_DESIGNS)]
    report = asyncio.run(run_comparison(dataset, targets, designs=designs))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report.to_json(), indent=2) + "\n", encoding="utf-8")

    click.echo(f"dataset {dataset.name} ({dataset.content_hash[:19]}), {len(report.orders)} orders")
    for line in _order_table(report):
        click.echo(line)
    for problem in report.designProblems:
        click.echo(problem)
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


def _order_table(report: ComparisonReport) -> list[str]:
    """One row per order: matched, then bytes, calls and lookups per design (a – where a design has none)."""
    designs = report.designs
    short = "/".join(_abbreviations(designs))
    rows = [["order", "matched", f"bytes {short}", f"calls {short}", f"lookups {short}"]]
    for order in report.orders:
        rows.append([order.orderId, "yes" if order.matched else "NO",
                     "/".join(_figure(order.bytes.get(d)) for d in designs),
                     "/".join(_figure(order.interactions.get(d)) for d in designs),
                     "/".join(_reads(order.lookups[d]) if d in order.lookups else "–" for d in designs)])
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) if i < 2 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths,
                                                                                                 strict=True)))
             for row in rows]
    lines[0] += f"   ({'/'.join(designs)})"
    out = []
    for line, order in zip(lines[1:], report.orders, strict=True):
        out.append(line)
        out += [f"    {difference}" for difference in order.differences[:10]]
        if len(order.differences) > 10:
            out.append(f"    ... {len(order.differences) - 10} more in the JSON")
    return [lines[0], *out]


def _abbreviations(designs: list[str]) -> list[str]:
    """The shortest prefixes (one letter for granular/focused) that tell the designs apart."""
    for length in range(1, max(map(len, designs), default=1) + 1):
        prefixes = [d[:length] for d in designs]
        if len(set(prefixes)) == len(prefixes):
            return prefixes
    return list(designs)


def _figure(value: int | None) -> str:
    return "–" if value is None else str(value)


def _reads(lookups: dict[str, int] | None) -> str:
    """The backend reads of one order's gathering, or a dash when the server reported none."""
    return "–" if lookups is None else str(sum(v for k, v in lookups.items() if k != "notFound"))
