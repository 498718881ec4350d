"""`wismo serve`: run one tool design as an MCP server on stdio for any MCP client."""

from __future__ import annotations

from pathlib import Path

import click

from recorder.servers import DESIGNS, build_server, serve_stdio
from wismo.cli._options import dataset_option


@click.command()
@click.argument("design", type=click.Choice(sorted(DESIGNS)))
@dataset_option
def serve(design: str, dataset_dir: Path | None) -> None:
    """Serve DESIGN (granular or focused) over stdio until the client disconnects.

    Only records.json is read: the expectations in cases.json never reach a server.

    Example:

        wismo serve granular --dataset ./my-dataset
    """
    serve_stdio(build_server(design, dataset_dir))
