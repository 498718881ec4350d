"""`wismo export`: a run as OpenTelemetry traces (a file or an OTLP/HTTP receiver) or an Inspect eval log."""

from __future__ import annotations

import json
from pathlib import Path

import click

from core.errors import WismoError
from wismo.export import load_run
from wismo.export.files import replace_text
from wismo.export.options import ExportOptions
from wismo.export.otlp import otlp_json
from wismo.export.send import PROTOCOLS, headers_from_environment, send_run

FORMATS = ("otlp", "inspect")


def _check_out(out: Path, run_dir: Path, export_format: str) -> None:
    if out.resolve().is_relative_to(run_dir.resolve()):
        raise WismoError(f"--out {out}: inside the run folder {run_dir}; write the export elsewhere")
    if export_format == "inspect" and out.suffix not in (".json", ".eval"):
        raise WismoError(f"--out {out}: an Inspect log is a .json or .eval file")
    if out.is_dir():
        raise WismoError(f"--out {out}: a folder; give a file name")
    if not out.parent.is_dir():
        raise WismoError(f"--out {out}: no folder {out.parent}")


@click.command("export")
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--format", "export_format", type=click.Choice(FORMATS), default="otlp", show_default=True,
              help="otlp: OpenTelemetry GenAI/MCP traces (OTLP/JSON); inspect: an Inspect eval log.")
@click.option("--out", type=click.Path(path_type=Path), help="The file to write (.json; for inspect also .eval).")
@click.option("--otlp-endpoint", metavar="URL",
              help="Send the traces over OTLP/HTTP to URL (e.g. http://localhost:6006/v1/traces).")
@click.option("--otlp-protocol", type=click.Choice(PROTOCOLS), default="http/protobuf", show_default=True,
              help="How --otlp-endpoint is sent; protobuf needs `pip install 'wismo[export]'`.")
@click.option("--include-content", is_flag=True,
              help="Include messages, tool arguments and results, and the claim checker's quotes (opt-in).")
@click.option("--unvalidated", is_flag=True,
              help="Export a run that fails `wismo validate` (the output is marked unvalidated).")
def export_command(run_dir: Path, export_format: str, out: Path | None, otlp_endpoint: str | None,
                   otlp_protocol: str, include_content: bool, unvalidated: bool) -> None:
    """Export a run into tools that already exist: trace viewers (OTLP) and Inspect (`inspect view`).

    --format otlp writes one trace per conversation under the OpenTelemetry GenAI and MCP semantic
    conventions: an invoke_agent span, a chat span per model request, an execute_tool span per tool
    call, the score and claim findings as gen_ai.evaluation.result events. --otlp-endpoint sends the
    same spans to a receiver, with headers from OTEL_EXPORTER_OTLP_HEADERS. --format inspect writes an
    Inspect eval log, one sample per conversation. A run that fails validation is refused unless
    --unvalidated. Details: docs/export.md.

    Example:

        wismo export runs/sample-offline --format otlp --out sample.otlp.json
        wismo export runs/sample-offline --otlp-endpoint http://localhost:6006/v1/traces
        wismo export runs/sample-offline --format inspect --out sample.eval
    """
    if out is None and otlp_endpoint is None:
        raise WismoError("give --out FILE, or --otlp-endpoint URL to send the traces")
    if otlp_endpoint is not None and export_format != "otlp":
        raise WismoError("--otlp-endpoint sends OTLP traces; it does not go with --format inspect")
    if out is not None:
        _check_out(out, run_dir, export_format)
    headers = headers_from_environment() if otlp_endpoint else {}
    run = load_run(run_dir, unvalidated=unvalidated)
    options = ExportOptions(include_content=include_content, validated=not unvalidated)
    if out is not None and export_format == "otlp":
        replace_text(out, json.dumps(otlp_json(run, options), ensure_ascii=False) + "\n")
        click.echo(f"wrote {out}: {len(run.conversations)} conversations as OTLP/JSON traces")
    elif out is not None:
        from wismo.export.inspect_log import write_inspect_log

        write_inspect_log(run, out, options)
        click.echo(f"wrote {out}: an Inspect eval log of {len(run.conversations)} samples")
    if otlp_endpoint is not None:
        report = send_run(run, otlp_endpoint, options, protocol=otlp_protocol, headers=headers)
        click.echo(f"sent {report.conversations} conversations ({report.spans} spans, {report.requests} "
                   f"requests) to {otlp_endpoint}")
    if unvalidated:
        click.echo("note: exported with --unvalidated; the output says so", err=True)
