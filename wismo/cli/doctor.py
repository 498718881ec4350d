"""`wismo doctor`: what a model endpoint supports, and the `record` flags to use with it."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import click

from recorder.doctor.diagnose import diagnose
from recorder.doctor.report import Check
from recorder.providers import REGISTRY
from wismo.cli._options import dataset_option

# The providers doctor has probes for (the scripted policy has no endpoint to probe).
PROVIDERS = sorted(name for name, cls in REGISTRY.items() if cls.traits.doctor is not None)


@click.command("doctor")
@click.option("--provider", type=click.Choice(PROVIDERS), default="openai-chat", show_default=True,
              help="The provider to check.")
@click.option("--model", default=None, help="Model id, as the endpoint knows it.")
@click.option("--base-url", default=None, help="API base URL (required by openai-chat).")
@click.option("--api-key-env", default=None, metavar="VAR", help="Read the API key from this environment variable.")
@click.option("--request-timeout", type=click.FloatRange(min=0.1), default=120.0, show_default=True,
              help="Seconds one probe request may take (a local server may be slow).")
@dataset_option
def doctor_command(provider: str, model: str | None, base_url: str | None, api_key_env: str | None,
                   request_timeout: float, dataset_dir: Path | None) -> None:
    """Send a handful of tiny requests and print what the endpoint supports, then the `record` flags.

    Checks: reachable, model listed, usage and cached tokens reported, tool calls with the tools
    alone and with each tool_choice, parallel calls, a text answer beside tools, whether tool
    results reach the model, which response_format is accepted; then wismo's own first request in
    each design. Exits 0 when `record` can work, 1 otherwise. Never writes a run.

    Example:

        wismo doctor --provider openai-chat --base-url http://127.0.0.1:8089/v1 --model qwen2.5-coder-1.5b

        wismo doctor --provider openai --model gpt-5.4-mini
    """
    where = f" at {base_url}" if base_url else ""
    click.echo(f"wismo doctor: {provider}{where}, model {model or '(default)'}")

    def show(check: Check) -> None:
        click.echo(check.line())

    diagnosis = asyncio.run(diagnose(provider, model=model, base_url=base_url, api_key_env=api_key_env,
                                     dataset_dir=dataset_dir, timeout_s=request_timeout, report=show))
    latency = diagnosis.latency_line()
    if latency:
        click.echo(f"\n{latency}")
    click.echo(f"\n{diagnosis.verdict}")
    for note in diagnosis.notes:
        click.echo(f"note: {note}")
    if not diagnosis.usable:
        sys.exit(1)
    click.echo(f"record with:\n  {diagnosis.record_command()}")
