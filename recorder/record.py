"""`wismo record`: plan cases × designs × repetitions, run them through the loop, write the raw run.

What a run survives: every conversation is isolated (an exception or an unreadable response ends
that one only); a fatal provider error, a failed write or Ctrl-C stops the run, and the
conversations in flight are then recorded as `interrupted` before anything is closed; only one
process writes to a run folder at a time (wismo.runformat.lock); no secret reaches disk
(wismo.runformat.redact). `--resume` (recorder.attempts) re-runs what did not finish cleanly.
"""

from __future__ import annotations

import asyncio
import os
import platform
import re
import shlex
import sys
from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from recorder.attempts import ResumePlan, plan_resume
from recorder.comparison import run_comparison
from recorder.dataset import DEFAULT_DATASET_DIR, Dataset, load_dataset
from recorder.instructions import ANSWER_SCHEMA, build_instructions
from recorder.loop import Budgets, Conversation, ConversationPlan, Outcome
from recorder.mcp_client import ToolServer, server_command, start_servers
from recorder.providers import create_provider
from recorder.providers.base import Provider, ProviderSettings
from wismo import __version__
from wismo.errors import WismoError
from wismo.runformat import COMPARISON_FILE, EVENTS_FILE, LOGS_DIR, MANIFEST_FILE, SCHEMA_VERSION
from wismo.runformat.events import FAULT_STATUSES, AttemptSuperseded, RunFinished, RunResumed, RunStarted
from wismo.runformat.lock import run_lock
from wismo.runformat.manifest import Manifest
from wismo.runformat.read import EventLines, read_event_lines, read_manifest
from wismo.runformat.redact import SECRET_NAME, Redactor, strip_url_secrets
from wismo.runformat.write import (
    ConversationLog,
    EventWriter,
    RunWriteError,
    now_iso,
    write_failure,
    write_json_atomic,
)

DESIGN_NAMES = ("granular", "focused")
ERROR_STATUSES = FAULT_STATUSES
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
# What a start-up killed before the manifest was written leaves in the folder: it may be taken over.
START_UP_FILES = {LOGS_DIR, COMPARISON_FILE, COMPARISON_FILE + ".tmp", ".wismo-lock"}

After = Callable[[Path], None]


@dataclass(frozen=True)
class RecordOptions:
    """Everything `wismo record` is asked to do."""

    provider: str = "scripted"
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    designs: tuple[str, ...] = DESIGN_NAMES
    repetitions: int = 3
    case_ids: tuple[str, ...] | None = None
    dataset_dir: Path | None = None
    concurrency: int = 4
    budgets: Budgets = field(default_factory=Budgets)
    out_dir: Path = Path("runs")
    run_id: str | None = None
    command_line: tuple[str, ...] = ()


class Progress(Protocol):
    """What `record` reports while it runs (the CLI draws it; tests may ignore it)."""

    def start(self, total: int, skipped: int) -> None: ...
    def response(self, plan: ConversationPlan, turn: int, usage: dict[str, Any]) -> None: ...
    def finished(self, plan: ConversationPlan, outcome: Outcome) -> None: ...
    def warn(self, message: str) -> None: ...


class _Silent:
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

    @property
    def errored(self) -> int:
        """Conversations that ended in an infrastructure fault (provider, tool, timeout, interrupted)."""
        return sum(outcome.status in ERROR_STATUSES for _, outcome in self.outcomes)

    @property
    def resume_command(self) -> str:
        """The exact command that continues this run."""
        return f"wismo record --resume {shlex.quote(str(self.run_dir))}"


class RunAborted(WismoError):
    """A fatal provider error (401/403) stopped the run; what was recorded stays."""

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
    """Repetition-major pairs (every case once, then again); the design that goes first alternates."""
    cases = [dataset.case(c) for c in case_ids] if case_ids else dataset.cases
    plans: list[ConversationPlan] = []
    pair_index = 0
    for repetition in range(1, repetitions + 1):
        for case in cases:
            order = list(designs) if pair_index % 2 == 0 else list(reversed(designs))
            for position, design in enumerate(order, start=1):
                plans.append(ConversationPlan(
                    conversation_id=f"{case.caseId}.{design}.r{repetition}", case_id=case.caseId,
                    order_id=case.orderId, question=case.question, design=design, repetition=repetition,
                    pair_index=pair_index, pair_position=position,
                    expected=case.expected.model_dump(mode="json")))
            pair_index += 1
    return plans


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-")[:40] or "model"


def new_run_id(provider: str, model: str) -> str:
    """A sortable, readable run folder name: UTC time, provider and model."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}-{_slug(provider)}-{_slug(model)}"


def redact_command_line(argv: Sequence[str], redactor: Redactor | None = None) -> list[str]:
    """The command line as recorded: secret flags' values, URL credentials and any live key value hidden."""
    redactor = redactor or Redactor.from_environment()
    redacted: list[str] = []
    hide_next = False
    for arg in argv:
        if hide_next:
            redacted.append("[redacted]")
            hide_next = False
            continue
        flag, sep, _ = arg.partition("=")
        secret_flag = flag.startswith("--") and SECRET_NAME.search(flag) and flag != "--api-key-env"
        if secret_flag and sep:
            redacted.append(f"{flag}=[redacted]")
        elif secret_flag:
            redacted.append(arg)
            hide_next = True
        else:
            redacted += redactor.scrub_args([arg])
    return redacted


def _dataset_reference(dataset: Dataset) -> str:
    # The packaged dataset is named, not pathed, so a run recorded on one machine resumes on another.
    return "default" if dataset.folder == DEFAULT_DATASET_DIR.resolve() else str(dataset.folder)


def _manifest(run_id: str, options: RecordOptions, provider: Provider, dataset: Dataset,
              plans: list[ConversationPlan], servers: dict[str, ToolServer], redactor: Redactor) -> dict[str, Any]:
    # Built through the model, so the manifest cannot hold a field the run format does not define.
    return Manifest.model_validate({
        "schemaVersion": SCHEMA_VERSION,
        "wismoVersion": __version__,
        "runId": run_id,
        "provider": {"name": provider.name, "label": redactor.scrub(provider.label),
                     "isLanguageModel": provider.is_language_model},
        "model": provider.model,
        "baseUrl": strip_url_secrets(options.base_url) if options.base_url else None,
        "apiKeyEnv": options.api_key_env,
        "tokenCounts": "provider-reported" if provider.is_language_model
        else "estimated offline with o200k_base (bpe-openai) over the Responses API request",
        "dataset": {"name": dataset.name, "folder": _dataset_reference(dataset), "hash": dataset.content_hash,
                    "clock": dataset.records.clock},
        "cases": [case.model_dump(mode="json") for case in dataset.cases
                  if any(p.case_id == case.caseId for p in plans)],
        "designs": list(options.designs),
        "repetitions": options.repetitions,
        "concurrency": options.concurrency,
        "budgets": options.budgets.to_json(),
        "instructions": build_instructions(dataset.records.clock),
        "answerSchema": ANSWER_SCHEMA,
        "tools": {d: [{"name": t.name, "description": t.description, "parameters": t.parameters}
                      for t in s.tool_specs()] for d, s in servers.items()},
        "toolsListed": {d: s.tools_raw for d, s in servers.items()},
        "serverCommands": {d: ["python", *s.command[1:]] for d, s in servers.items()},
        "plan": [p.to_json() for p in plans],
        "startedAt": now_iso(),
        "finishedAt": None,
        "resumes": [],
        "commandLine": redact_command_line(options.command_line, redactor),
        "host": {"python": platform.python_version(), "platform": platform.platform(), "cpus": os.cpu_count()},
    }).model_dump(mode="json")


class _Runner:
    """Runs planned conversations with bounded concurrency, each isolated from the others.

    A conversation's own failure ends that conversation only. A fatal provider error (401/403) or a
    failed write stops the run: no new conversation starts, and those in flight are cancelled and
    record themselves as `interrupted`; Ctrl-C (this task being cancelled) does the same. run_all
    returns only once no conversation is left running, so the servers are never closed under one.
    """

    def __init__(self, provider: Provider, servers: dict[str, ToolServer], manifest: dict[str, Any],
                 writer: EventWriter, budgets: Budgets, concurrency: int, progress: Progress) -> None:
        self.provider, self.servers, self.manifest, self.writer = provider, servers, manifest, writer
        self.budgets, self.progress = budgets, progress
        self.semaphore = asyncio.Semaphore(max(1, concurrency))
        self.outcomes: list[tuple[ConversationPlan, Outcome]] = []
        self.aborted: str | None = None
        self.interrupted = False
        self.write_error: RunWriteError | None = None
        self._tasks: list[asyncio.Task[None]] = []

    async def run_all(self, work: list[tuple[ConversationPlan, int]]) -> None:
        """Run every planned attempt; on cancellation, wait for each conversation's last line, then re-raise."""
        self._tasks = [asyncio.create_task(self._one(plan, attempt)) for plan, attempt in work]
        try:
            # A task cancelled by abort() is a result here, not a reason to stop waiting for the others.
            await asyncio.gather(*self._tasks, return_exceptions=True)
        except asyncio.CancelledError:
            self.interrupted = True
            await asyncio.gather(*self._tasks, return_exceptions=True)
            raise

    def abort(self, reason: str) -> None:
        """Stop the run: nothing new starts; conversations in flight are cancelled and end as interrupted."""
        if self.aborted:
            return
        self.aborted = reason
        current = asyncio.current_task()
        for task in self._tasks:
            if task is not current:
                task.cancel()

    def result(self, run_dir: Path, skipped: int) -> RunResult:
        """What this invocation did."""
        return RunResult(run_dir, self.outcomes, skipped, self.aborted, interrupted=self.interrupted,
                         write_error=self.write_error)

    def _interruption(self) -> str:
        if self.aborted:
            return f"the run stopped ({self.aborted}) while this conversation was in flight"
        return "the run was interrupted (Ctrl-C or a signal) while this conversation was in flight"

    async def _one(self, plan: ConversationPlan, attempt: int) -> None:
        async with self.semaphore:
            if self.aborted:
                return
            server = self.servers[plan.design]
            conversation = Conversation(plan, self.provider, server, server.tool_specs(),
                                        self.manifest["instructions"], self.manifest["answerSchema"], self.budgets,
                                        ConversationLog(self.writer, plan.conversation_id, attempt),
                                        on_response=self.progress.response, interruption=self._interruption)
            try:
                outcome = await conversation.run()
            except RunWriteError as exc:
                # Without its lines a conversation cannot count, and neither can any other: stop.
                self.write_error = self.write_error or exc
                self.abort(str(exc))
                return
            self.outcomes.append((plan, outcome))
            self.progress.finished(plan, outcome)
            if outcome.fatal_error is not None:
                self.abort(str(outcome.fatal_error))


# A tools/call (and the server's start-up handshake) gets its own limit, apart from the model's request
# timeout: a short model timeout must not make a server that is still importing look dead.
MCP_CALL_TIMEOUT_S = 60.0


async def _start_servers(stack: AsyncExitStack, designs: Sequence[str], dataset: Dataset,
                         run_dir: Path) -> dict[str, ToolServer]:
    logs = run_dir / LOGS_DIR
    try:
        logs.mkdir(exist_ok=True)
    except OSError as exc:
        raise write_failure(logs, exc) from None
    # The comparison needs both designs even when only one is recorded.
    wanted = dict.fromkeys([*DESIGN_NAMES, *designs])
    return await start_servers(stack, {d: server_command(d, dataset.folder) for d in wanted}, logs,
                               MCP_CALL_TIMEOUT_S)


def _check_options(options: RecordOptions) -> None:
    unknown = [d for d in options.designs if d not in DESIGN_NAMES]
    if unknown or not options.designs:
        raise WismoError(f"unknown design(s) {', '.join(unknown) or '(none)'}; known: {', '.join(DESIGN_NAMES)}")
    if options.repetitions < 1:
        raise WismoError("--repetitions must be at least 1")
    if options.run_id is not None and (not RUN_ID.fullmatch(options.run_id) or ".." in options.run_id):
        raise WismoError(f"--run-id {options.run_id!r} must be a plain folder name (letters, digits, '.', '_', "
                         "'-'; no '/', no '..'); use --out to choose where the run folder goes")
    if options.provider == "scripted":
        ignored = [flag for flag, value in (("--model", options.model), ("--base-url", options.base_url),
                                            ("--api-key-env", options.api_key_env)) if value]
        if ignored:
            raise WismoError(f"{', '.join(ignored)} do(es) not apply to the scripted provider (a fixed offline "
                             "policy, not a model); leave it out, or choose --provider")


def _take_folder(run_dir: Path) -> bool:
    """Create the run folder; True if it already existed (only a start-up killed before its manifest may)."""
    try:
        run_dir.mkdir(parents=True)
        return False
    except FileExistsError:
        return True
    except OSError as exc:
        raise write_failure(run_dir, exc) from None


def _abandoned_start(run_dir: Path) -> bool:
    """A folder a killed start-up left: no manifest, no events, only start-up files."""
    return run_dir.is_dir() and all(p.name in START_UP_FILES for p in run_dir.iterdir())


async def record(options: RecordOptions, progress: Progress | None = None, *, after: After | None = None) -> RunResult:
    """Record a new run; return its folder and outcomes. Bad options raise WismoError before any work.

    `after(run_dir)` runs once the run is written, still under the run's lock (the CLI checks claims).
    """
    progress = progress or _Silent()
    _check_options(options)
    dataset = load_dataset(options.dataset_dir)
    for warning in dataset.warnings:
        progress.warn(warning)
    plans = plan_conversations(dataset, options.designs, options.repetitions, options.case_ids)
    provider = create_provider(options.provider, ProviderSettings(
        model=options.model, base_url=options.base_url, api_key_env=options.api_key_env))
    run_id = options.run_id or new_run_id(provider.name, provider.model)
    run_dir = options.out_dir / run_id
    existed = _take_folder(run_dir)
    with run_lock(run_dir, "wismo record"):
        if existed and not _abandoned_start(run_dir):
            raise WismoError(f"{run_dir} already exists; choose another --run-id or resume it with "
                             f"--resume {run_dir}")
        redactor = Redactor.from_environment(options.api_key_env, [options.base_url])
        try:
            result = await _record_in(run_dir, run_id, options, dataset, plans, provider, redactor, progress)
        except asyncio.CancelledError:
            raise RunInterrupted(None, run_dir) from None
        finally:
            await provider.aclose()
        return _ended(result, after)


async def _record_in(run_dir: Path, run_id: str, options: RecordOptions, dataset: Dataset,
                     plans: list[ConversationPlan], provider: Provider, redactor: Redactor,
                     progress: Progress) -> RunResult:
    async with AsyncExitStack() as stack:
        servers = await _start_servers(stack, options.designs, dataset, run_dir)
        # The same servers the conversations use must first show they return the same evidence.
        comparison = await run_comparison(dataset, servers=servers)
        write_json_atomic(run_dir / COMPARISON_FILE, comparison.to_json(), redactor)
        if not comparison.passed:
            raise WismoError(f"the two designs do not return the same evidence for dataset {dataset.name}; "
                             f"nothing recorded (see {run_dir / COMPARISON_FILE})")
        servers = {d: servers[d] for d in options.designs}
        manifest = _manifest(run_id, options, provider, dataset, plans, servers, redactor)
        write_json_atomic(run_dir / MANIFEST_FILE, manifest, redactor)
        writer = EventWriter(run_dir / EVENTS_FILE, run_id, redactor)
        writer.write(RunStarted(wismoVersion=__version__, planned=len(plans)))
        progress.start(len(plans), 0)
        runner = _Runner(provider, servers, manifest, writer, options.budgets, options.concurrency, progress)
        await _run(runner, [(plan, 1) for plan in plans])
        _finish(writer, run_dir, manifest, runner, redactor)
    return runner.result(run_dir, 0)


async def _run(runner: _Runner, work: list[tuple[ConversationPlan, int]]) -> None:
    """Run the work; an interruption is recorded by the runner and ends here, so the run can be closed."""
    try:
        await runner.run_all(work)
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()  # handled: closing the servers and writing the last lines must not be cancelled


def _finish(writer: EventWriter, run_dir: Path, manifest: dict[str, Any], runner: _Runner,
            redactor: Redactor) -> None:
    errored = sum(o.status in ERROR_STATUSES for _, o in runner.outcomes)
    aborted = runner.aborted or ("interrupted (Ctrl-C or a signal)" if runner.interrupted else None)
    try:
        writer.write(RunFinished(conversations=len(runner.outcomes), errored=errored, aborted=aborted,
                                 serverRestarts={d: s.restarts for d, s in runner.servers.items()}))
        writer.close()
        manifest["finishedAt"] = now_iso()
        write_json_atomic(run_dir / MANIFEST_FILE, manifest, redactor)
    except RunWriteError as exc:
        runner.write_error = runner.write_error or exc


def _ended(result: RunResult, after: After | None) -> RunResult:
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


def _plans_from_manifest(manifest: dict[str, Any], dataset: Dataset) -> list[ConversationPlan]:
    cases = {c["caseId"]: c for c in manifest["cases"]}
    plans = []
    for entry in manifest["plan"]:
        case = cases[entry["caseId"]]
        plans.append(ConversationPlan(entry["conversationId"], entry["caseId"], case["orderId"], case["question"],
                                      entry["design"], entry["repetition"], entry["pairIndex"],
                                      entry["pairPosition"], case["expected"]))
    return plans


def _resume_base_url(manifest: dict[str, Any], base_url: str | None) -> str | None:
    """The manifest's base URL, or the one given to supply the credentials it was stored without."""
    stored = manifest.get("baseUrl")
    if base_url is None:
        return stored
    if strip_url_secrets(base_url) != stored:
        raise WismoError(f"--base-url {strip_url_secrets(base_url)} is not the run's ({stored}); with --resume, "
                         "--base-url only supplies the credentials the manifest was stored without")
    return base_url


def _read_for_resume(run_dir: Path) -> dict[str, Any]:
    if _abandoned_start(run_dir):
        raise WismoError(f"{run_dir} was stopped during start-up, before its manifest was written, so there is "
                         f"nothing to resume: start it again with the same `wismo record` command (its --run-id "
                         f"{run_dir.name} takes the folder over)")
    return read_manifest(run_dir)


async def resume(run_dir: Path, *, concurrency: int | None = None, command_line: Sequence[str] = (),
                 progress: Progress | None = None, keep_errors: bool = False, base_url: str | None = None,
                 after: After | None = None) -> RunResult:
    """Continue a run: re-run what did not finish cleanly (and, unless keep_errors, what ended in a fault).

    Finished answers, invalid answers and budget hits are never re-run; an attempt that no longer
    counts is superseded (its lines stay). A finished run with nothing to re-run is left untouched.
    """
    progress = progress or _Silent()
    with run_lock(run_dir, "wismo record --resume"):
        manifest = _read_for_resume(run_dir)
        folder = manifest["dataset"]["folder"]
        dataset = load_dataset(None if folder == "default" else Path(folder))
        if dataset.content_hash != manifest["dataset"]["hash"]:
            raise WismoError(f"the dataset at {dataset.folder} changed since {run_dir} was recorded "
                             f"({dataset.content_hash[:19]} ≠ {manifest['dataset']['hash'][:19]}); cannot resume")
        for warning in dataset.warnings:
            progress.warn(warning)
        base_url = _resume_base_url(manifest, base_url)
        events_path = run_dir / EVENTS_FILE
        lines = read_event_lines(events_path) if events_path.exists() else None
        plans = _plans_from_manifest(manifest, dataset)
        todo = plan_resume(lines.events if lines else [], [p.conversation_id for p in plans], keep_errors=keep_errors)
        if not todo.rerun and not todo.supersede and lines is not None and lines.ends_with_newline:
            return RunResult(run_dir, [], todo.kept, nothing_to_do=True)

        provider = create_provider(manifest["provider"]["name"], ProviderSettings(
            model=manifest["model"], base_url=base_url, api_key_env=manifest.get("apiKeyEnv")))
        redactor = Redactor.from_environment(manifest.get("apiKeyEnv"), [base_url])
        try:
            result = await _resume_in(run_dir, manifest, dataset, plans, todo, lines, provider, redactor,
                                      concurrency, command_line, progress)
        finally:
            await provider.aclose()
        return _ended(result, after)


async def _resume_in(run_dir: Path, manifest: dict[str, Any], dataset: Dataset, plans: list[ConversationPlan],
                     todo: ResumePlan, lines: EventLines | None, provider: Provider, redactor: Redactor,
                     concurrency: int | None, command_line: Sequence[str], progress: Progress) -> RunResult:
    events_path = run_dir / EVENTS_FILE
    repaired = None
    if lines and not lines.ends_with_newline:
        # A line cut short by a kill stays in the file (counted as malformed); the next line starts clean.
        try:
            with open(events_path, "ab") as handle:
                handle.write(b"\n")
        except OSError as exc:
            raise write_failure(events_path, exc) from None
        repaired = lines.line_count
    writer = EventWriter(events_path, manifest["runId"], redactor)
    for mark in todo.supersede:
        writer.write(AttemptSuperseded(conversationId=mark.conversation_id, attempt=mark.attempt, reason=mark.reason))
    work = [(plan, todo.rerun[plan.conversation_id]) for plan in plans if plan.conversation_id in todo.rerun]
    skipped = len(plans) - len(work)
    writer.write(RunResumed(wismoVersion=__version__, repairedLine=repaired, supersededAttempts=len(todo.supersede),
                            alreadyComplete=skipped))
    manifest["resumes"].append({"at": now_iso(), "commandLine": redact_command_line(command_line, redactor),
                                "rerun": len(work), "repairedLine": repaired})
    manifest["finishedAt"] = None
    write_json_atomic(run_dir / MANIFEST_FILE, manifest, redactor)
    budgets = Budgets(manifest["budgets"]["maxTurns"], manifest["budgets"]["maxToolCalls"],
                      manifest["budgets"]["requestTimeoutS"], manifest["budgets"]["conversationDeadlineS"])
    progress.start(len(plans), skipped)
    async with AsyncExitStack() as stack:
        servers = await _start_servers(stack, manifest["designs"], dataset, run_dir) if work else {}
        runner = _Runner(provider, servers, manifest, writer, budgets, concurrency or manifest["concurrency"],
                         progress)
        await _run(runner, work)
        _finish(writer, run_dir, manifest, runner, redactor)
    return runner.result(run_dir, skipped)


def default_command_line() -> tuple[str, ...]:
    """sys.argv with the program shown as `wismo`."""
    return ("wismo", *sys.argv[1:])
