"""`wismo record`: run cases × designs × repetitions through the agent loop and write a raw run."""

from __future__ import annotations

import asyncio
import statistics
import sys
from collections import defaultdict
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import click

from recorder.loop import Budgets
from recorder.providers import REGISTRY
from recorder.record import RecordOptions, RunAborted, RunResult, default_command_line, record, resume
from wismo.cli._options import dataset_option
from wismo.cli._progress import ProgressLine


def _median(values: list[float | int | None], decimals: int = 0) -> str:
    present = [v for v in values if v is not None]
    if not present:
        return "–"
    return f"{statistics.median(present):,.{decimals}f}"


def print_outcome_table(result: RunResult) -> None:
    """Per design: conversations, passed, medians of turns, tool calls, tokens and time (not yet validated)."""
    by_design = defaultdict(list)
    for plan, outcome in result.outcomes:
        by_design[plan.design].append(outcome)
    click.echo(f"\n{'design':<10}{'convs':>6}{'passed':>8}{'turns':>7}{'tools':>7}{'in tok':>9}{'out tok':>9}"
               f"{'time s':>8}   (medians; unvalidated until `wismo validate`)")
    for design, outcomes in sorted(by_design.items()):
        click.echo(f"{design:<10}{len(outcomes):>6}{sum(o.passed for o in outcomes):>8}"
                   f"{_median([o.turns for o in outcomes], 1):>7}{_median([o.tool_calls for o in outcomes], 1):>7}"
                   f"{_median([o.input_tokens for o in outcomes]):>9}{_median([o.output_tokens for o in outcomes]):>9}"
                   f"{_median([o.elapsed_ms / 1000 for o in outcomes], 2):>8}")
    for design, outcomes in sorted(by_design.items()):
        stopped = sum(o.status == "budget_exhausted" for o in outcomes)
        if stopped:  # a budget stop is the run's limit, not a wrong answer: say so
            click.echo(f"{design}: {stopped} of {len(outcomes)} conversation(s) stopped by a budget "
                       f"(status budget_exhausted; see --max-turns and --max-tool-calls), not by a wrong answer")
    if result.skipped:
        click.echo(f"({result.skipped} conversations were already complete and were skipped)")
    click.echo(f"\nrun folder: {result.run_dir}")


def run_and_check_claims(recording: Coroutine[Any, Any, RunResult]) -> RunResult:
    """Run a record or resume, then check the claims of every summary recorded so far (claims.jsonl).

    The claim checker is the analysis stage's; it runs here, after the recorder has finished, so the
    recorder never imports a later stage. A run stopped by a fatal error is checked too.
    """
    from analysis.claims.run import check_run

    try:
        result = asyncio.run(recording)
    except RunAborted as stopped:
        check_run(stopped.result.run_dir)
        raise
    check_run(result.run_dir)
    return result


def _csv(value: str | None) -> tuple[str, ...] | None:
    return tuple(v.strip() for v in value.split(",") if v.strip()) if value else None


@click.command("record")
@click.option("--provider", type=click.Choice(sorted(REGISTRY)), default="scripted", show_default=True,
              help="Model provider; `scripted` is the offline policy (not a language model).")
@click.option("--model", default=None, help="Model id to request (e.g. gpt-5.4-mini, claude-sonnet-4-6, llama3.1).")
@click.option("--base-url", default=None, help="API base URL (required by openai-chat: Ollama, vLLM, LM Studio).")
@click.option("--api-key-env", default=None, metavar="VAR",
              help="Read the API key from this environment variable instead of the provider's default.")
@click.option("--designs", default="granular,focused", show_default=True, help="Comma-separated tool designs.")
@click.option("--repetitions", type=click.IntRange(min=1), default=3, show_default=True)
@click.option("--cases", "case_ids", default=None, help="Comma-separated case IDs (default: every case).")
@dataset_option
@click.option("--concurrency", type=click.IntRange(min=1), default=4, show_default=True,
              help="Conversations in flight at once.")
@click.option("--max-turns", type=click.IntRange(min=1), default=8, show_default=True)
@click.option("--max-tool-calls", type=click.IntRange(min=0), default=20, show_default=True)
@click.option("--request-timeout", type=click.FloatRange(min=0.01), default=120.0, show_default=True,
              help="Seconds one model request may take.")
@click.option("--deadline", type=click.FloatRange(min=0.01), default=600.0, show_default=True,
              help="Seconds one conversation may take in all.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("runs"),
              show_default=True, help="Folder the run folder is created in.")
@click.option("--run-id", default=None, help="Name of the run folder (default: time, provider and model).")
@click.option("--resume", "resume_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Finish an interrupted run: re-run incomplete conversations, skip complete ones.")
def record_command(provider: str, model: str | None, base_url: str | None, api_key_env: str | None, designs: str,
                   repetitions: int, case_ids: str | None, dataset_dir: Path | None, concurrency: int,
                   max_turns: int, max_tool_calls: int, request_timeout: float, deadline: float, out_dir: Path,
                   run_id: str | None, resume_dir: Path | None) -> None:
    """Record every case with both tool designs and write the raw run to runs/<run-id>/.

    Runs the deterministic comparison first (stored in the run), then for each (case, repetition)
    both designs, the design that goes first alternating between pairs. Every conversation is fresh.
    Exits 1 when any conversation ended in a provider, tool or timeout error.

    Example:

        wismo record                                   # offline, scripted policy, 12 × 2 × 3

        wismo record --provider openai --model gpt-5.4-mini --repetitions 5

        wismo record --provider openai-chat --base-url http://localhost:11434/v1 --model llama3.1

        wismo record --resume runs/20261130T101500Z-openai-gpt-5.4-mini
    """
    progress = ProgressLine()
    try:
        if resume_dir is not None:
            result = run_and_check_claims(resume(resume_dir, command_line=default_command_line(), progress=progress))
        else:
            options = RecordOptions(
                provider=provider, model=model, base_url=base_url, api_key_env=api_key_env,
                designs=_csv(designs) or (), repetitions=repetitions, case_ids=_csv(case_ids),
                dataset_dir=dataset_dir, concurrency=concurrency,
                budgets=Budgets(max_turns, max_tool_calls, request_timeout, deadline),
                out_dir=out_dir, run_id=run_id, command_line=default_command_line())
            result = run_and_check_claims(record(options, progress))
    finally:
        progress.close()
    print_outcome_table(result)
    if result.errored:
        click.echo(f"{result.errored} conversation(s) ended in an error; see {result.run_dir}", err=True)
        sys.exit(1)
