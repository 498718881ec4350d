"""`wismo record`: plan cases × designs × repetitions, run them through the loop, write the raw run.

What a run survives: every conversation is isolated (an exception or an unreadable response ends
that one only); a fatal provider error, a failed write or Ctrl-C stops the run, and the
conversations in flight are then recorded as `interrupted` before anything is closed; only one
process writes to a run folder at a time (core.runformat.lock); no secret reaches disk
(core.runformat.redact). `--resume` (recorder.run.attempts) re-runs what did not finish cleanly.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import shlex
import shutil
import sys
from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from core import __version__
from core.domain.dataset import Dataset, load_dataset
from core.domain.fields import DEFAULT_ASKS
from core.errors import WismoError
from core.runformat import COMPARISON_FILE, EVENTS_FILE, LOGS_DIR, MANIFEST_FILE
from core.runformat.events import FAULT_STATUSES, RunFinished, RunStarted, ServerOutage
from core.runformat.lock import run_lock
from core.runformat.manifest import Manifest
from core.runformat.redact import Redactor
from core.runformat.write import (
    ConversationLog,
    EventWriter,
    RunWriteError,
    now_iso,
    write_failure,
    write_json_atomic,
)
from recorder.agent.loop import Budgets, Conversation, ConversationPlan, Outcome
from recorder.designs.choose import DesignChoice, choose_designs
from recorder.designs.comparison import run_comparison
from recorder.designs.mcp_client import ServerTarget, ToolServer, start_servers
from recorder.providers import create_provider, traits_of
from recorder.providers.base import Provider
from recorder.providers.tokens import vocabulary_ready
from recorder.run.fault_watch import FaultWatch
from recorder.run.local_server import AbandonedRequests
from recorder.run.manifest import build_manifest, provider_settings, with_changes
from recorder.run.options import RecordOptions

ERROR_STATUSES = FAULT_STATUSES
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
# What a start-up killed before the manifest was written leaves in the folder: it may be taken over.
START_UP_FILES = {LOGS_DIR, COMPARISON_FILE, COMPARISON_FILE + ".tmp", ".wismo-lock"}

After = Callable[[Path], None]


class Progress(Protocol):
    """What `record` reports while it runs (the CLI draws it; tests may ignore it)."""

    def start(self, total: int, skipped: int) -> None: ...
    def response(self, plan: ConversationPlan, turn: int, usage: dict[str, Any]) -> None: ...
    def finished(self, plan: ConversationPlan, outcome: Outcome) -> None: ...
    def warn(self, message: str) -> None: ...


class SilentProgress:
    def start(self, total: int, skipped: int) -> None: ...
    def response(self, plan: ConversationPlan, turn: int, usage: dict[str, Any]) -> None: ...
    def finished(self, plan: ConversationPlan, outcome: Outcome) -> None: ...
    def warn(self, message: str) -> None: ...


@dataclass
class RunResult:
    """What a record (or resume) did: the folder, the outcomes of this invocation, and why it stopped."""

    run_dir: Path
    outcomes: list[tuple[ConversationPlan, Outcome]]
    skipped: int
    aborted: str | None = None
    nothing_to_do: bool = False
    interrupted: bool = False
    write_error: RunWriteError | None = None
    after_abandoned: int = 0  # conversations that began while a local server may still have been busy

    @property
    def errored(self) -> int:
        """Conversations that ended in an infrastructure fault (provider, tool, timeout, interrupted)."""
        return sum(outcome.status in ERROR_STATUSES for _, outcome in self.outcomes)

    @property
    def resume_command(self) -> str:
        """The exact command that continues this run."""
        return f"wismo record --resume {shlex.quote(str(self.run_dir))}"


class RunAborted(WismoError):
    """A fatal or repeating fault stopped the run; what was recorded stays.

    Exit 1, as for any run whose conversations ended in faults: `--resume` re-runs them once the cause is fixed.
    """

    exit_code = 1

    def __init__(self, result: RunResult) -> None:
        super().__init__(f"the run stopped: {result.aborted}. Conversations recorded so far are kept in "
                         f"{result.run_dir}; fix the problem and continue with: {result.resume_command}")
        self.result = result


class RunInterrupted(WismoError):
    """Ctrl-C or a signal stopped the run; the conversations in flight were recorded as interrupted."""

    exit_code = 130

    def __init__(self, result: RunResult | None, run_dir: Path | None = None) -> None:
        if result is None:
            super().__init__(f"interrupted during start-up, before anything was recorded; start it again with "
                             f"the same command (it takes over {run_dir})")
        else:
            in_flight = sum(o.status == "interrupted" for _, o in result.outcomes)
            super().__init__(f"interrupted: {in_flight} conversation(s) in flight recorded as interrupted, "
                             f"everything finished is kept in {result.run_dir}; continue with: "
                             f"{result.resume_command}")
        self.result = result


def plan_conversations(dataset: Dataset, designs: Sequence[str], repetitions: int,
                       case_ids: Sequence[str] | None = None) -> list[ConversationPlan]:
    """Repetition-major groups (every case once, then again), each running every design once.

    The order rotates from group to group (a b c, b c a, c a b, ...), so every design goes first,
    second, ... equally often over N groups and none always meets a server or a provider warmed by
    another; with two designs this alternates, as pairs always did.
    """
    if len(set(designs)) != len(designs) or not designs:
        raise WismoError(f"designs {', '.join(designs) or '(none)'}: a group runs each design once")
    cases = [dataset.case(c) for c in case_ids] if case_ids else dataset.cases
    plans: list[ConversationPlan] = []
    pair_index = 0
    for repetition in range(1, repetitions + 1):
        for case in cases:
            shift = pair_index % len(designs)
            order = [*designs[shift:], *designs[:shift]]
            for position, design in enumerate(order, start=1):
                plans.append(ConversationPlan(
                    conversation_id=f"{case.caseId}.{design}.r{repetition}", case_id=case.caseId,
                    order_id=case.orderId, question=case.question, design=design, repetition=repetition,
                    pair_index=pair_index, pair_position=position,
                    expected=case.expectation(), asks=tuple(case.asks)))
            pair_index += 1
    return plans


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-")[:40] or "model"


def new_run_id(provider: str, model: str) -> str:
    """A sortable, readable run folder name: UTC time, provider and model."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}-{_slug(provider)}-{_slug(model)}"


class _Runner:
    """Runs planned conversations with bounded concurrency, each isolated from the others.

    A conversation's own failure ends that conversation only. A fatal provider error (401/403) or a
    failed write stops the run: no new conversation starts, and those in flight are cancelled and
    record themselves as `interrupted`; Ctrl-C (this task being cancelled) does the same. run_all
    returns only once no conversation is left running, so the servers are never closed under one.
    """

    def __init__(self, provider: Provider, servers: dict[str, ToolServer], manifest: Manifest,
                 writer: EventWriter, budgets: Budgets, concurrency: int, progress: Progress,
                 redactor: Redactor | None = None) -> None:
        self.provider, self.servers, self.manifest, self.writer = provider, servers, manifest, writer
        self.budgets, self.progress = budgets, progress
        self.redactor = redactor or Redactor()  # what this invocation prints is scrubbed like what it writes
        self.semaphore = asyncio.Semaphore(max(1, concurrency))
        self.outcomes: list[tuple[ConversationPlan, Outcome]] = []
        self.aborted: str | None = None
        self.interrupted = False
        self.write_error: RunWriteError | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self.watch = FaultWatch.for_provider(provider, api_key_env=manifest.apiKeyEnv)
        # Only a provider that may talk to a server on this machine leaves it working on a request given up on.
        self.abandoned = AbandonedRequests(provider.base_url if provider.traits.local_server else None)

    async def run_all(self, work: list[tuple[ConversationPlan, int]]) -> None:
        """Run every planned attempt; on cancellation, wait for each conversation's last line, then re-raise."""
        # The scripted policy's vocabulary loads in a background thread during start-up; a conversation
        # started before it is ready would count the wait (and the thread's hold on the GIL) in its time.
        await vocabulary_ready()
        self._tasks = [asyncio.create_task(self._one(plan, attempt)) for plan, attempt in work]
        try:
            # A task cancelled by abort() is a result here, not a reason to stop waiting for the others.
            results = await asyncio.gather(*self._tasks, return_exceptions=True)
        except asyncio.CancelledError:
            self.interrupted = True
            await asyncio.gather(*self._tasks, return_exceptions=True)
            raise
        # A bug in the runner itself surfaces, but only now that no conversation is left running.
        failures = [r for r in results if isinstance(r, Exception)]
        if failures:
            raise failures[0]

    def abort(self, reason: str) -> None:
        """Stop the run: nothing new starts; conversations in flight are cancelled and end as interrupted."""
        if self.aborted:
            return
        self.aborted = self.redactor.scrub(reason)
        current = asyncio.current_task()
        for task in self._tasks:
            if task is not current:
                task.cancel()

    def result(self, run_dir: Path, skipped: int) -> RunResult:
        """What this invocation did."""
        return RunResult(run_dir, self.outcomes, skipped, self.aborted, interrupted=self.interrupted,
                         write_error=self.write_error, after_abandoned=self.abandoned.noted)

    def _interruption(self) -> str:
        if self.aborted:
            return f"the run stopped ({self.aborted}) while this conversation was in flight"
        return "the run was interrupted (Ctrl-C or a signal) while this conversation was in flight"

    async def _one(self, plan: ConversationPlan, attempt: int) -> None:
        async with self.semaphore:
            if self.aborted:
                return
            server = self.servers[plan.design]
            instructions, schema = question_for(self.manifest, plan.asks)
            conversation = Conversation(plan, self.provider, server, server.tool_specs(), instructions, schema,
                                        self.budgets,
                                        ConversationLog(self.writer, plan.conversation_id, attempt),
                                        on_response=self.progress.response, interruption=self._interruption,
                                        after_abandoned=self.abandoned.take(),
                                        text_tool_calls=self.manifest.textToolCalls)
            try:
                outcome = await conversation.run()
            except RunWriteError as exc:
                # Without its lines a conversation cannot count, and neither can any other: stop.
                self.write_error = self.write_error or exc
                self.abort(str(exc))
                return
            if outcome.error:
                outcome.error = self.redactor.scrub(outcome.error)
            self.outcomes.append((plan, outcome))
            self.progress.finished(plan, outcome)
            self.abandoned.observe(plan, attempt, outcome)
            # A fatal error (401/403), a fault that would only repeat, a server that came back with other
            # tools (its conversations end as tool errors, never as answers) or one that did not come back
            # within its reconnection backoff stops the run.
            stop = server.changed or server.gone or self.watch.observe(outcome)
            if stop is not None:
                self.abort(stop)


def question_for(manifest: Manifest, asks: tuple[str, ...]) -> tuple[str, dict[str, Any]]:
    """The instructions and answer schema the manifest recorded for a case asking these fields."""
    for kind in manifest.questionKinds:
        if tuple(kind.asks) == asks:
            return kind.instructions, kind.answerSchema
    if asks == DEFAULT_ASKS:  # a run recorded before questionKinds existed asked only the default question
        return manifest.instructions, manifest.answerSchema
    raise WismoError(f"the manifest records no instructions for a case asking {', '.join(asks)}")


# A tools/call gets its own limit, apart from the model's request timeout (the server's start-up has
# another, mcp_client.START_TIMEOUT_S): a stalled server is noticed after this, and restarted once.
MCP_CALL_TIMEOUT_S = 60.0


async def start_run_servers(stack: AsyncExitStack, targets: dict[str, ServerTarget], run_dir: Path,
                            expected_tools: dict[str, list[dict[str, Any]]] | None = None) -> dict[str, ToolServer]:
    """Start (or connect to) every design's server at once; their stderr goes to the run's logs/.

    Each server must keep listing the tools it first listed (or, on a resume, `expected_tools`: the run's).
    """
    logs = run_dir / LOGS_DIR
    try:
        logs.mkdir(exist_ok=True)
    except OSError as exc:
        raise write_failure(logs, exc) from None
    return await start_servers(stack, targets, logs, MCP_CALL_TIMEOUT_S, expected_tools=expected_tools)


def run_targets(choice: DesignChoice) -> dict[str, ServerTarget]:
    """Every design's server, and the reference the comparison needs even when it is not recorded."""
    return {**{choice.reference.name: choice.reference.target()}, **{d.name: d.target() for d in choice.designs}}


def _check_options(options: RecordOptions) -> DesignChoice:
    choice = choose_designs(options.servers, options.designs, options.baseline, options.headers,
                            options.dataset_dir)
    if options.repetitions < 1:
        raise WismoError("--repetitions must be at least 1")
    if options.run_id is not None and (not RUN_ID.fullmatch(options.run_id) or ".." in options.run_id):
        raise WismoError(f"--run-id {options.run_id!r} must be a plain folder name (letters, digits, '.', '_', "
                         "'-'; no '/', no '..'); use --out to choose where the run folder goes")
    traits = traits_of(options.provider)
    ignored = [flag for flag, use, value in (("--model", traits.model, options.model),
                                             ("--base-url", traits.base_url, options.base_url),
                                             ("--api-key-env", traits.api_key_env, options.api_key_env))
               if value and use == "unused"]
    if ignored:
        raise WismoError(f"{', '.join(ignored)} do(es) not apply to the {options.provider} provider ({traits.about}); "
                         "leave it out, or choose --provider")
    return choice


def _take_folder(run_dir: Path) -> bool:
    """Create the run folder; True if it already existed (only a start-up killed before its manifest may)."""
    try:
        run_dir.mkdir(parents=True)
        return False
    except FileExistsError:
        return True
    except OSError as exc:
        raise write_failure(run_dir, exc) from None


def abandoned_start(run_dir: Path) -> bool:
    """A folder a killed start-up left: no manifest, no events, only start-up files."""
    return run_dir.is_dir() and all(p.name in START_UP_FILES for p in run_dir.iterdir())


async def record(options: RecordOptions, progress: Progress | None = None, *, after: After | None = None) -> RunResult:
    """Record a new run; return its folder and outcomes. Bad options raise WismoError before any work.

    `after(run_dir)` runs once the run is written, still under the run's lock (the CLI checks claims).
    """
    progress = progress or SilentProgress()
    choice = _check_options(options)
    dataset = load_dataset(options.dataset_dir)
    for warning in [*dataset.warnings, *(w for spec in choice.designs for w in spec.url_warnings())]:
        progress.warn(warning)
    plans = plan_conversations(dataset, choice.names, options.repetitions, options.case_ids)
    provider = create_provider(options.provider, provider_settings(
        options.provider, options.model, options.base_url, options.api_key_env,
        {"requested": options.structured_output}, options.tool_choice, reasoning_effort=options.reasoning_effort,
        prompt_cache=options.prompt_cache, strict_tools=options.strict_tools))
    run_id = options.run_id or new_run_id(provider.name, provider.model)
    run_dir = options.out_dir / run_id
    existed = _take_folder(run_dir)
    if existed and not abandoned_start(run_dir):
        raise WismoError(f"{run_dir} already exists; choose another --run-id or resume it with --resume {run_dir}")
    try:
        return await _record_locked(run_dir, run_id, existed, options, choice, dataset, plans, provider, progress,
                                    after)
    except WismoError as exc:
        if not existed and not isinstance(exc, RunInterrupted):  # an interrupted start-up is taken over
            _remove_failed_start(run_dir)
        raise


def _remove_failed_start(run_dir: Path) -> None:
    """A server that would not start leaves nothing to keep: no comparison, no manifest (its log tail is in
    the message). A failed comparison's report stays for the user to read."""
    with contextlib.suppress(OSError):
        if run_dir.is_dir() and not any(p.name in (COMPARISON_FILE, MANIFEST_FILE, EVENTS_FILE)
                                        for p in run_dir.iterdir()):
            shutil.rmtree(run_dir)


async def _record_locked(run_dir: Path, run_id: str, existed: bool, options: RecordOptions, choice: DesignChoice,
                         dataset: Dataset, plans: list[ConversationPlan], provider: Provider, progress: Progress,
                         after: After | None) -> RunResult:
    with run_lock(run_dir, "wismo record"):
        if existed and not abandoned_start(run_dir):  # another record took it over meanwhile
            raise WismoError(f"{run_dir} already exists; choose another --run-id or resume it with "
                             f"--resume {run_dir}")
        redactor = design_redactor(choice, Redactor.from_environment(options.api_key_env, [options.base_url]))
        try:
            result = await _record_in(run_dir, run_id, options, choice, dataset, plans, provider, redactor,
                                      progress)
        except asyncio.CancelledError:
            raise RunInterrupted(None, run_dir) from None
        finally:
            await provider.aclose()
        return end_run(result, after)


def design_redactor(choice: DesignChoice, redactor: Redactor) -> Redactor:
    """The run's redactor, also hiding every header value sent to a design (a bearer token)."""
    return redactor.with_secrets(v for spec in choice.designs for v in spec.secret_values())


async def _record_in(run_dir: Path, run_id: str, options: RecordOptions, choice: DesignChoice, dataset: Dataset,
                     plans: list[ConversationPlan], provider: Provider, redactor: Redactor,
                     progress: Progress) -> RunResult:
    async with AsyncExitStack() as stack:
        servers = await start_run_servers(stack, run_targets(choice), run_dir)
        # The same servers the conversations use must first show they return the same evidence.
        comparison = await run_comparison(dataset, servers=servers, designs=choice.names)
        write_json_atomic(run_dir / COMPARISON_FILE, comparison.to_json(), redactor)
        if not comparison.passed:
            problem = comparison.problem_line(str(run_dir / COMPARISON_FILE))
            raise WismoError(f"{problem or 'the designs do not return the same evidence'}; nothing recorded "
                             f"(see {run_dir / COMPARISON_FILE})")
        servers = {d: servers[d] for d in choice.names}
        manifest = build_manifest(run_id, options, choice, provider, dataset, plans, servers, redactor)
        write_manifest(run_dir, manifest, redactor)
        writer = EventWriter(run_dir / EVENTS_FILE, run_id, redactor)
        writer.write(RunStarted(wismoVersion=__version__, planned=len(plans)))
        progress.start(len(plans), 0)
        runner = _Runner(provider, servers, manifest, writer, options.budgets, options.concurrency, progress,
                         redactor)
        await run_work(runner, [(plan, 1) for plan in plans])
        finish_run(writer, run_dir, manifest, runner, redactor)
    return runner.result(run_dir, 0)


async def run_work(runner: _Runner, work: list[tuple[ConversationPlan, int]]) -> None:
    """Run the work; an interruption is recorded by the runner and ends here, so the run can be closed."""
    try:
        await runner.run_all(work)
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()  # handled: closing the servers and writing the last lines must not be cancelled


def write_manifest(run_dir: Path, manifest: Manifest, redactor: Redactor) -> None:
    """Write manifest.json from its model (atomically, secrets scrubbed)."""
    write_json_atomic(run_dir / MANIFEST_FILE, manifest.model_dump(mode="json"), redactor)


def finish_run(writer: EventWriter, run_dir: Path, manifest: Manifest, runner: _Runner,
            redactor: Redactor) -> None:
    errored = sum(o.status in ERROR_STATUSES for _, o in runner.outcomes)
    aborted = runner.aborted or ("interrupted (Ctrl-C or a signal)" if runner.interrupted else None)
    try:
        outages = {d: [ServerOutage.model_validate(o.to_json()) for o in s.outages]
                   for d, s in runner.servers.items() if s.outages}
        writer.write(RunFinished(conversations=len(runner.outcomes), errored=errored, aborted=aborted,
                                 serverRestarts={d: s.restarts for d, s in runner.servers.items()},
                                 serverOutages=outages))
        writer.close()
        finished = with_changes(manifest, {**runner.provider.request_shape(), "finishedAt": now_iso()})
        write_manifest(run_dir, finished, redactor)
    except RunWriteError as exc:
        runner.write_error = runner.write_error or exc


def end_run(result: RunResult, after: After | None) -> RunResult:
    """Raise for a run that did not end normally; else run `after` (under the lock) and return the result."""
    if result.write_error is not None:
        raise result.write_error
    if result.interrupted:
        raise RunInterrupted(result)
    if after is not None and not result.nothing_to_do:
        after(result.run_dir)
    if result.aborted:
        raise RunAborted(result)
    return result


def default_command_line() -> tuple[str, ...]:
    """sys.argv with the program shown as `wismo`."""
    return ("wismo", *sys.argv[1:])
