"""`wismo record`: run cases × designs × repetitions through the agent loop and write a raw run."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import statistics
import sys
from collections import Counter, defaultdict
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from core.errors import WismoError
from recorder.agent.loop import DEFAULT_MAX_OUTPUT_TOKENS, DEFAULT_MAX_TOOL_RESULT_BYTES, Budgets, Outcome
from recorder.designs.choose import parse_header, parse_server
from recorder.providers import REGISTRY, honoured_by
from recorder.providers.base import RequestOption
from recorder.providers.chat_compat import STRUCTURED_OUTPUT_MODES, TOOL_CHOICES
from recorder.run.local_server import concurrency_note
from recorder.run.options import Guidance, RecordOptions
from recorder.run.record import ERROR_STATUSES, RunInterrupted, RunResult, default_command_line, record
from recorder.run.resume import resume
from wismo.cli._options import dataset_option
from wismo.cli._progress import ProgressLine
from wismo.cli._tables import WIDTH, table


def _median(values: Sequence[float | None], decimals: int = 0) -> str:
    present = [v for v in values if v is not None]
    if not present:
        return "–"
    return f"{statistics.median(present):,.{decimals}f}"


def run_designs(result: RunResult) -> list[str]:
    """The run's designs in its manifest's order (then any other recorded, as first seen)."""
    from core.runformat.read import read_manifest

    seen = list(dict.fromkeys(plan.design for plan, _ in result.outcomes))
    try:
        listed = read_manifest(result.run_dir).designs
    except WismoError:  # an unreadable manifest is validate's to report; the table still prints
        listed = []
    return list(dict.fromkeys([*listed, *seen]))


def print_outcome_table(result: RunResult) -> None:
    """Per design: conversations, passed, medians of turns, tool calls, tokens and time (not yet validated)."""
    from analysis.warnings import called_no_tool, no_tool_call_warning  # here: the record path skips DuckDB

    by_design: dict[str, list[Outcome]] = defaultdict(list)
    for plan, outcome in result.outcomes:
        by_design[plan.design].append(outcome)
    designs = [d for d in run_designs(result) if d in by_design]
    rows = []
    for design in designs:
        outcomes = by_design[design]
        uncached = [o.input_tokens - o.cached_tokens if o.input_tokens is not None and o.cached_tokens is not None
                    else None for o in outcomes]
        rows.append([design, f"{len(outcomes):,}", f"{sum(o.passed for o in outcomes):,}",
                     _median([o.turns for o in outcomes], 1), _median([o.tool_calls for o in outcomes], 1),
                     _median([o.input_tokens for o in outcomes]), _median(uncached),
                     _median([o.output_tokens for o in outcomes]), _median([o.elapsed_ms / 1000 for o in outcomes], 2)])
    click.echo("\nmedians per design (unvalidated until `wismo validate`):")
    for line in table(["design", "convs", "passed", "turns", "tools", "in tok", "uncached", "out tok", "time s"],
                      rows, width=WIDTH):
        click.echo(line)
    for design in designs:
        outcomes = by_design[design]
        if called_no_tool([o.tool_calls for o in outcomes], Counter(o.status for o in outcomes)):
            click.echo(f"warning: {no_tool_call_warning(design)}")
        stopped = Counter(o.budget_hit or "?" for o in outcomes if o.status == "budget_exhausted")
        if stopped:  # a budget stop is the run's limit, not a wrong answer: say so, naming the option
            which = "; ".join(f"{count} by {BUDGET_OPTIONS.get(hit, hit)}" for hit, count in sorted(stopped.items()))
            click.echo(f"{design}: {stopped.total()} of {len(outcomes)} conversation(s) stopped by a budget "
                       f"(status budget_exhausted: {which}), not by a wrong answer")
    if result.after_abandoned:
        click.echo(f"note: {result.after_abandoned} conversation(s) began just after a request was abandoned at a "
                   f"timeout; a single-slot local server may still have been busy with it, so their time can "
                   f"include that wait (marked afterAbandonedRequest in events.jsonl)")
    if result.skipped:
        click.echo(f"({result.skipped} conversations were already complete and were skipped)")
    click.echo(f"\nrun folder: {result.run_dir}")


# The option that sets each budget, as a budget stop names it.
BUDGET_OPTIONS = {"max_turns": "--max-turns", "max_tool_calls": "--max-tool-calls", "deadline": "--deadline",
                  "request_timeout": "--request-timeout",
                  "max_tool_result_bytes": "--max-tool-result-bytes, a tool result above it: the design's doing"}


def check_claims(run_dir: Path) -> None:
    """Check the claims of every summary recorded so far (claims.jsonl), as `record` does at its end.

    The claim checker is the analysis stage's; the recorder calls this back once the run is written,
    so it never imports a later stage.
    """
    from analysis.claims.run import check_run

    check_run(run_dir)


def run_recording(recording: Coroutine[Any, Any, RunResult]) -> RunResult:
    """Run a record or resume; SIGTERM stops it like Ctrl-C (conversations in flight recorded as interrupted)."""

    async def with_signals() -> RunResult:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signal.SIGTERM, task.cancel)  # type: ignore[union-attr]
        return await recording

    return asyncio.run(with_signals())


def fault_report(result: RunResult) -> list[str]:
    """This invocation's infrastructure faults, in the words `wismo summarize` and the site use."""
    from analysis.headline import fault_warnings
    from analysis.model import FaultCause, FaultSummary

    designs = run_designs(result)
    by_design: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    causes: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for plan, outcome in result.outcomes:
        if outcome.status in ERROR_STATUSES:
            by_design[plan.design][outcome.status] += 1
            causes[(outcome.status, outcome.error or "(no message)")].append((plan.design, plan.conversation_id))
    ranked = [FaultCause(status, cause, len(hits), dict(Counter(d for d, _ in hits)), min(c for _, c in hits))
              for (status, cause), hits in causes.items()]
    ranked.sort(key=lambda c: (-c.conversations, c.status, c.cause))
    faults = FaultSummary({d: dict(counts) for d, counts in by_design.items()}, ranked)
    return [f"warning: {line}" if i == 0 else f"  {line}"
            for i, line in enumerate(fault_warnings(faults, designs, result.run_dir))]


def _honouring(option: RequestOption, *, named: bool = False) -> str:
    """The providers that honour a request option, from their traits (`named`: with what their API calls it)."""
    honoured = honoured_by(option)
    if named:
        return "; ".join(f"{name}: {wire}" for name, wire in honoured.items())
    return ", ".join(honoured)


def _csv(value: str | None) -> tuple[str, ...] | None:
    return tuple(v.strip() for v in value.split(",") if v.strip()) if value else None


@click.command("record")
@click.option("--provider", type=click.Choice(sorted(REGISTRY)), default="scripted", show_default=True,
              help="Model provider; `scripted` is the offline policy (not a language model).")
@click.option("--model", default=None, help="Model id to request (e.g. gpt-5.4-mini, claude-sonnet-4-6, llama3.1).")
@click.option("--base-url", default=None, help="API base URL (required by openai-chat: Ollama, vLLM, LM Studio).")
@click.option("--api-key-env", default=None, metavar="VAR",
              help="Read the API key from this environment variable instead of the provider's default.")
@click.option("--server", "servers", multiple=True, metavar="NAME=COMMAND|URL",
              help="Add a design (or replace focused) with your own MCP server: a command run over stdio, or an "
                   "http(s)://…/mcp URL reached over streamable HTTP. Repeatable.")
@click.option("--header", "headers", multiple=True, metavar="NAME=Header: value",
              help="An HTTP header for design NAME's URL; $VAR or ${VAR} in the value is read from the environment "
                   "(single-quote it), and the value is never written. Repeatable.")
@click.option("--designs", default=None,
              help="Comma-separated designs to record, in order [default: granular,focused, then each --server].")
@click.option("--baseline", default=None, metavar="NAME",
              help="The design every other is compared with [default: the first of --designs].")
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
@click.option("--max-output-tokens", type=click.IntRange(min=1), default=DEFAULT_MAX_OUTPUT_TOKENS,
              show_default=True,
              help="Output-token cap on every model request (max_tokens, max_output_tokens as each API names it); "
                   "a reply cut by it is recorded as provider_limit, not as the model's answer.")
@click.option("--max-tool-result-bytes", type=click.IntRange(min=1), default=DEFAULT_MAX_TOOL_RESULT_BYTES,
              show_default=True,
              help="UTF-8 bytes one tool result may hold; a bigger one is the design's doing: never sent to the model, "
                   "kept in the trace only as its beginning, and its conversation ends as budget_exhausted.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("runs"),
              show_default=True, help="Folder the run folder is created in.")
@click.option("--run-id", default=None, help="Name of the run folder (default: time, provider and model).")
@click.option("--structured-output", type=click.Choice(STRUCTURED_OUTPUT_MODES), default="auto", show_default=True,
              help=f"{_honouring('structured_output')}: the answer format asked for; auto starts with json_schema and "
                   "falls back to json_object, then none, when the server refuses it.")
@click.option("--tool-choice", type=click.Choice(TOOL_CHOICES), default="auto", show_default=True,
              help=f"{_honouring('tool_choice')}: auto on every request, or force a tool call on each conversation's "
                   "first request (required, or first-tool: name the design's first tool, for servers that refuse "
                   "required).")
@click.option("--reasoning-effort", type=click.Choice(["none", "minimal", "low", "medium", "high", "xhigh", "max"]),
              default=None, help=f"Reasoning effort to ask for ({_honouring('reasoning_effort', named=True)}). "
                                 "Default: the model's own.")
@click.option("--cache/--no-cache", "prompt_cache", default=True, show_default=True,
              help="Send Anthropic's prompt-cache markers (OpenAI caches automatically and has no switch).")
@click.option("--strict-tools", is_flag=True,
              help=f"Send function tools with strict: true ({_honouring('strict_tools')}).")
@click.option("--text-tool-calls", is_flag=True,
              help="Read tool calls the model wrote in its message text (fenced JSON, <tool_call> tags, <function> "
                   "elements, bare JSON naming a tool) as calls, for small local models whose server parses none. "
                   "Every such call is marked fromText; the manifest, summarize and the site say the run used it.")
@click.option("--instructions", "instructions_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Your own system prompt, replacing wismo's guidance for every design; wismo appends the answer "
                   "format it scores. Its hash and text are recorded in the manifest and shown on the site.")
@click.option("--resume", "resume_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Continue a run: re-run what did not finish and what ended in a provider, tool, timeout or "
                   "interrupted fault; keep everything else.")
@click.option("--keep-errors", is_flag=True,
              help="With --resume: keep conversations that ended in a fault instead of re-running them.")
@click.pass_context
def record_command(ctx: click.Context, provider: str, model: str | None, base_url: str | None,
                   api_key_env: str | None, servers: tuple[str, ...], headers: tuple[str, ...],
                   designs: str | None, baseline: str | None, repetitions: int, case_ids: str | None,
                   dataset_dir: Path | None, concurrency: int, max_turns: int, max_tool_calls: int,
                   request_timeout: float, deadline: float, max_output_tokens: int, max_tool_result_bytes: int,
                   out_dir: Path, run_id: str | None,
                   structured_output: str, tool_choice: str, reasoning_effort: str | None, prompt_cache: bool,
                   strict_tools: bool, text_tool_calls: bool, instructions_file: Path | None,
                   resume_dir: Path | None, keep_errors: bool) -> None:
    """Record every case with every tool design and write the raw run to runs/<run-id>/.

    Runs the deterministic comparison first (every design's records against wismo's granular
    server, stored in the run), then for each (case, repetition) every design once, the order
    rotating between groups so no design always goes first. Every conversation is fresh.
    Exit codes: 0 done; 1 some conversation ended in a provider, tool, timeout or interrupted fault
    (listed at the end; --resume re-runs them); 2 bad options or input, or another process is writing
    the run; 3 a run file could not be written; 130 interrupted (Ctrl-C or SIGTERM: the conversations
    in flight are recorded as interrupted and the exact --resume command is printed).

    Example:

        wismo record                                   # offline, scripted policy, 12 × 2 × 3

        wismo record --provider openai --model gpt-5.4-mini --repetitions 5 --reasoning-effort low

        wismo record --provider anthropic --no-cache          # compare with a cached run

        wismo record --provider openai-chat --base-url http://localhost:11434/v1 --model llama3.1 --concurrency 1

        (`wismo doctor` first says which --structured-output and --tool-choice a server needs)

        wismo record --server mine="python my_server.py"      # your own design beside the built-in two

        wismo record --server mine=https://mcp.example.com/mcp --header 'mine=Authorization: Bearer ${MINE_TOKEN}'

        wismo record --resume runs/20261130T101500Z-openai-gpt-5.4-mini
    """
    given = {name for name in ctx.params
             if ctx.get_parameter_source(name) in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)}
    note = concurrency_note(base_url, concurrency) if resume_dir is None else None
    if note:
        click.echo(note, err=True)
    progress = ProgressLine()
    interrupted = None
    try:
        if resume_dir is not None:
            ignored = sorted(given - RESUME_OPTIONS)
            if ignored:
                raise click.UsageError(f"--resume continues the run as it was recorded; it would ignore "
                                       f"{', '.join(_flag(ctx, name) for name in ignored)}")
            result = run_recording(resume(resume_dir, command_line=default_command_line(), progress=progress,
                                          concurrency=concurrency if "concurrency" in given else None,
                                          keep_errors=keep_errors, base_url=base_url, after=check_claims,
                                          headers=tuple(parse_header(h) for h in headers)))
        else:
            if keep_errors:
                raise click.UsageError("--keep-errors applies only with --resume")
            options = RecordOptions(
                provider=provider, model=model, base_url=base_url, api_key_env=api_key_env,
                designs=_csv(designs), servers=tuple(parse_server(s) for s in servers),
                headers=tuple(parse_header(h) for h in headers), baseline=baseline,
                repetitions=repetitions, case_ids=_csv(case_ids),
                dataset_dir=dataset_dir, concurrency=concurrency,
                budgets=Budgets(max_turns, max_tool_calls, request_timeout, deadline, max_output_tokens,
                                max_tool_result_bytes),
                out_dir=out_dir, run_id=run_id, command_line=default_command_line(),
                structured_output=structured_output, tool_choice=tool_choice,
                reasoning_effort=reasoning_effort, prompt_cache=prompt_cache, strict_tools=strict_tools,
                text_tool_calls=text_tool_calls,
                guidance=Guidance.read(instructions_file) if instructions_file else None)
            result = run_recording(record(options, progress, after=check_claims))
    except RunInterrupted as stopped:
        interrupted = stopped
    finally:
        progress.close()
    if interrupted is not None:
        click.echo(str(interrupted), err=True)
        sys.exit(interrupted.exit_code)
    if result.nothing_to_do:
        click.echo(f"nothing to do: all {result.skipped} planned conversations of {result.run_dir} have finished"
                   + ("" if keep_errors else " without an infrastructure fault"))
        return
    print_outcome_table(result)
    for line in fault_report(result):
        click.echo(line, err=True)
    if result.errored:
        sys.exit(1)


# What --resume accepts: the run folder, and what is not stored with the run.
RESUME_OPTIONS = {"resume_dir", "concurrency", "keep_errors", "base_url", "headers"}


def _flag(ctx: click.Context, name: str) -> str:
    option = next((p for p in ctx.command.params if p.name == name), None)
    return option.opts[0] if option is not None else name
