"""`wismo doctor`: what a model endpoint supports, and the `record` flags to use with it."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import click

from recorder.agent.loop import DEFAULT_MAX_OUTPUT_TOKENS
from recorder.doctor.diagnose import LOCAL_MAX_OUTPUT_TOKENS, diagnose
from recorder.doctor.report import Check
from recorder.doctor.trial import TrialSettings
from recorder.providers import REGISTRY
from recorder.run.options import Guidance
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
@click.option("--max-output-tokens", type=click.IntRange(min=1), default=None,
              help=f"Output-token cap on every request of the whole conversations, as record sends it "
                   f"[default: record's {DEFAULT_MAX_OUTPUT_TOKENS}; {LOCAL_MAX_OUTPUT_TOKENS} for a local server, "
                   f"then printed in the record command].")
@click.option("--text-tool-calls", is_flag=True,
              help="Record the whole conversations with --text-tool-calls (doctor adds it itself when the model "
                   "writes its calls as text).")
@click.option("--instructions", "instructions_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Your own system prompt, as record's --instructions: used for wismo's first request and the "
                   "whole conversations.")
@click.option("--no-trial", is_flag=True,
              help="Skip the whole conversations (the probes and wismo's first requests only; exit 0 then says "
                   "less).")
@click.option("--keep-trials", "keep_trials", type=click.Path(file_okay=False, path_type=Path), default=None,
              metavar="DIR", help="Keep each whole conversation's run in DIR (trial-1, trial-2, ...) to read, "
                                  "validate or build; by default they are recorded into a temporary folder.")
@dataset_option
def doctor_command(provider: str, model: str | None, base_url: str | None, api_key_env: str | None,
                   request_timeout: float, max_output_tokens: int | None, text_tool_calls: bool,
                   instructions_file: Path | None, no_trial: bool, keep_trials: Path | None,
                   dataset_dir: Path | None) -> None:
    """Send a handful of tiny requests, then record the first case in each design, and print the `record` flags.

    Checks: reachable, model listed, usage and cached tokens reported, tool calls with the tools
    alone and with each tool_choice, parallel calls, a text answer beside tools, whether tool
    results reach the model, which response_format is accepted; then wismo's own first request in
    each design; then a whole conversation of the first case in each design, recorded through
    `record` with the flags doctor is about to print (into a temporary folder), reporting turns,
    tool calls, records gathered and whether the answer parsed. When a design called no tool it
    names the cause and tries again with the flag that fixes it (--text-tool-calls for calls written
    as text, --instructions with a short prompt). Exits 0 only when, with the printed flags, every
    design called a tool and gave a parseable answer; 1 otherwise. Writes no run unless --keep-trials.

    Example:

        wismo doctor --provider openai-chat --base-url http://127.0.0.1:8089/v1 --model qwen2.5-coder-1.5b

        wismo doctor --provider openai --model gpt-5.4-mini
    """
    where = f" at {base_url}" if base_url else ""
    click.echo(f"wismo doctor: {provider}{where}, model {model or '(default)'}")

    def show(check: Check) -> None:
        click.echo(check.line())

    trial = TrialSettings(guidance=Guidance.read(instructions_file) if instructions_file else None,
                          text_tool_calls=text_tool_calls, max_output_tokens=max_output_tokens, enabled=not no_trial,
                          keep_in=keep_trials)
    diagnosis = asyncio.run(diagnose(provider, model=model, base_url=base_url, api_key_env=api_key_env,
                                     dataset_dir=dataset_dir, timeout_s=request_timeout, report=show, trial=trial))
    latency = diagnosis.latency_line()
    if latency:
        click.echo(f"\n{latency}")
    click.echo(f"\n{diagnosis.verdict}")
    for note in diagnosis.notes:
        click.echo(f"note: {note}")
    if not diagnosis.usable:
        if diagnosis.closest is not None:
            click.echo("closest record command (every design called a tool; the answers above did not all "
                       f"parse: expect failures):\n  {diagnosis.record_command()}")
        sys.exit(1)
    click.echo(f"record with:\n  {diagnosis.record_command()}")
