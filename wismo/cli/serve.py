"""`wismo serve`: run one tool design as an MCP server for any MCP client, on stdio or streamable HTTP."""

from __future__ import annotations

from pathlib import Path

import click

from recorder.servers import DESIGNS, build_server, serve_stdio
from wismo.cli._options import dataset_option


@click.command()
@click.argument("design", type=click.Choice(sorted(DESIGNS)))
@dataset_option
@click.option("--transport", type=click.Choice(["stdio", "streamable-http"]), default="stdio", show_default=True,
              help="stdio: serve the client that started this process; streamable-http: listen at "
                   "http://HOST:PORT/mcp for any number of clients.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (streamable-http only).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port to listen on (streamable-http only; 0 picks a free one).")
def serve(design: str, dataset_dir: Path | None, transport: str, host: str, port: int) -> None:
    """Serve DESIGN (granular or focused) over stdio until the client disconnects, or over streamable HTTP.

    Only records.json is read: the expectations in cases.json never reach a server. Over streamable
    HTTP the server prints its URL on stderr once it accepts connections and runs until stopped.

    Example:

        wismo serve granular --dataset ./my-dataset

        wismo serve focused --transport streamable-http --port 8000
    """
    if transport == "stdio":
        ctx = click.get_current_context()
        given = [f"--{name}" for name in ("host", "port")
                 if ctx.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT]
        if given:
            verb = "applies" if len(given) == 1 else "apply"
            raise click.UsageError(f"{' and '.join(given)} {verb} only to --transport streamable-http")
    server = build_server(design, dataset_dir)
    if transport == "stdio":
        serve_stdio(server)
    from recorder.servers.http import serve_http  # uvicorn is loaded only when it is used

    serve_http(server, design, host, port)
