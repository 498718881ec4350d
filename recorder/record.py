"""`wismo record`: plan cases × designs × repetitions, run them through the loop, write the raw run."""

from __future__ import annotations

import asyncio
import os
import platform
import re
import sys
from collections.abc import Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from recorder.comparison import run_comparison
from recorder.dataset import DEFAULT_ASKS, DEFAULT_DATASET_DIR, Dataset, load_dataset
from recorder.instructions import ANSWER_SCHEMA, answer_schema, build_instructions
from recorder.loop import Budgets, Conversation, ConversationPlan, Outcome
from recorder.mcp_client import ToolServer, server_command, start_servers
from recorder.providers import create_provider
from recorder.providers.base import Provider, ProviderSettings
from wismo import __version__
from wismo.errors import WismoError
from wismo.runformat import COMPARISON_FILE, EVENTS_FILE, MANIFEST_FILE, SCHEMA_VERSION
from wismo.runformat.events import AttemptSuperseded, RunFinished, RunResumed, RunStarted
from wismo.runformat.manifest import Manifest
from wismo.runformat.read import live_attempts, read_event_lines, read_manifest
from wismo.runformat.write import ConversationLog, EventWriter, now_iso, write_json_atomic

DESIGN_NAMES = ("granular", "focused")
ERROR_STATUSES = ("provider_error", "tool_error", "timeout")


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


class _Silent:
    def start(self, total: int, skipped: int) -> None: ...
    def response(self, plan: ConversationPlan, turn: int, usage: dict[str, Any]) -> None: ...
    def finished(self, plan: ConversationPlan, outcome: Outcome) -> None: ...


@dataclass
class RunResult:
    """What a record (or resume) did: the folder, the outcomes of this invocation, and why it stopped."""

    run_dir: Path
    outcomes: list[tuple[ConversationPlan, Outcome]]
    skipped: int
    aborted: str | None = None

    @property
    def errored(self) -> int:
        """Conversations that ended in a provider, tool or timeout error."""
        return sum(outcome.status in ERROR_STATUSES for _, outcome in self.outcomes)


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
                    expected=case.expectation(), asks=tuple(case.asks)))
            pair_index += 1
    return plans


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-")[:40] or "model"


def new_run_id(provider: str, model: str) -> str:
    """A sortable, readable run folder name: UTC time, provider and model."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}-{_slug(provider)}-{_slug(model)}"


_SECRET_FLAG = re.compile(r"(key|token|secret|password)", re.I)


def redact_command_line(argv: Sequence[str]) -> list[str]:
    """The command line as recorded: values of secret-looking flags and any live key value hidden."""
    secrets = {v for k, v in os.environ.items() if _SECRET_FLAG.search(k) and len(v) >= 8}
    redacted: list[str] = []
    hide_next = False
    for arg in argv:
        if hide_next:
            redacted.append("[redacted]")
            hide_next = False
            continue
        flag, sep, _ = arg.partition("=")
        secret_flag = flag.startswith("--") and _SECRET_FLAG.search(flag) and flag != "--api-key-env"
        if secret_flag and sep:
            redacted.append(f"{flag}=[redacted]")
        elif secret_flag:
            redacted.append(arg)
            hide_next = True
        else:
            for secret in secrets:
                arg = arg.replace(secret, "[redacted]")
            redacted.append(arg)
    return redacted


def _dataset_reference(dataset: Dataset) -> str:
    # The packaged dataset is named, not pathed, so a run recorded on one machine resumes on another.
    return "default" if dataset.folder == DEFAULT_DATASET_DIR.resolve() else str(dataset.folder)


def _manifest(run_id: str, options: RecordOptions, provider: Provider, dataset: Dataset,
              plans: list[ConversationPlan], servers: dict[str, ToolServer]) -> dict[str, Any]:
    # Built through the model, so the manifest cannot hold a field the run format does not define.
    return Manifest.model_validate({
        "schemaVersion": SCHEMA_VERSION,
        "wismoVersion": __version__,
        "runId": run_id,
        "provider": {"name": provider.name, "label": provider.label, "isLanguageModel": provider.is_language_model},
        "model": provider.model,
        "baseUrl": options.base_url,
        "apiKeyEnv": options.api_key_env,
        "tokenCounts": "provider-reported" if provider.is_language_model
        else "estimated offline with o200k_base (bpe-openai) over the Responses API request",
        "dataset": {"name": dataset.name, "folder": _dataset_reference(dataset), "hash": dataset.content_hash,
                    "clock": dataset.records.clock},
        "cases": [{**case.model_dump(mode="json", include={"caseId", "orderId", "question"}),
                   "asks": list(case.asks), "expected": case.expectation()}
                  for case in dataset.cases if any(p.case_id == case.caseId for p in plans)],
        "designs": list(options.designs),
        "repetitions": options.repetitions,
        "concurrency": options.concurrency,
        "budgets": options.budgets.to_json(),
        "instructions": build_instructions(dataset.records.clock),
        "answerSchema": ANSWER_SCHEMA,
        "questionKinds": [{"asks": list(asks), "instructions": build_instructions(dataset.records.clock, asks),
                           "answerSchema": answer_schema(asks)} for asks in dict.fromkeys(p.asks for p in plans)],
        "tools": {d: [{"name": t.name, "description": t.description, "parameters": t.parameters}
                      for t in s.tool_specs()] for d, s in servers.items()},
        "toolsListed": {d: s.tools_raw for d, s in servers.items()},
        "serverCommands": {d: ["python", *s.command[1:]] for d, s in servers.items()},
        "plan": [p.to_json() for p in plans],
        "startedAt": now_iso(),
        "finishedAt": None,
        "resumes": [],
        "commandLine": redact_command_line(options.command_line),
        "host": {"python": platform.python_version(), "platform": platform.platform(), "cpus": os.cpu_count()},
    }).model_dump(mode="json")


class _Runner:
    """Runs planned conversations with bounded concurrency; a fatal provider error stops everything."""

    def __init__(self, provider: Provider, servers: dict[str, ToolServer], manifest: dict[str, Any],
                 writer: EventWriter, budgets: Budgets, concurrency: int, progress: Progress) -> None:
        self.provider, self.servers, self.manifest, self.writer = provider, servers, manifest, writer
        self.budgets, self.progress = budgets, progress
        self.semaphore = asyncio.Semaphore(max(1, concurrency))
        self.outcomes: list[tuple[ConversationPlan, Outcome]] = []
        self.aborted: str | None = None

    async def run_all(self, work: list[tuple[ConversationPlan, int]]) -> None:
        tasks = [asyncio.create_task(self._one(plan, attempt)) for plan, attempt in work]
        try:
            await asyncio.gather(*tasks)
        except _Abort:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _one(self, plan: ConversationPlan, attempt: int) -> None:
        async with self.semaphore:
            if self.aborted:
                return
            server = self.servers[plan.design]
            instructions, schema = question_for(self.manifest, plan.asks)
            conversation = Conversation(plan, self.provider, server, server.tool_specs(), instructions, schema,
                                        self.budgets,
                                        ConversationLog(self.writer, plan.conversation_id, attempt),
                                        on_response=self.progress.response)
            outcome = await conversation.run()
            self.outcomes.append((plan, outcome))
            self.progress.finished(plan, outcome)
            if outcome.fatal_error is not None:
                self.aborted = str(outcome.fatal_error)
                raise _Abort


class _Abort(Exception):
    pass


def question_for(manifest: dict[str, Any], asks: tuple[str, ...]) -> tuple[str, dict[str, Any]]:
    """The instructions and answer schema the manifest recorded for a case asking these fields."""
    for kind in manifest.get("questionKinds") or []:
        if tuple(kind["asks"]) == asks:
            return kind["instructions"], kind["answerSchema"]
    if asks == DEFAULT_ASKS:  # a run recorded before questionKinds existed asked only the default question
        return manifest["instructions"], manifest["answerSchema"]
    raise WismoError(f"the manifest records no instructions for a case asking {', '.join(asks)}")


# A tools/call (and the server's start-up handshake) gets its own limit, apart from the model's request
# timeout: a short model timeout must not make a server that is still importing look dead.
MCP_CALL_TIMEOUT_S = 60.0


async def _start_servers(stack: AsyncExitStack, designs: Sequence[str], dataset: Dataset,
                         run_dir: Path) -> dict[str, ToolServer]:
    logs = run_dir / "logs"
    logs.mkdir(exist_ok=True)
    # The comparison needs both designs even when only one is recorded.
    wanted = dict.fromkeys([*DESIGN_NAMES, *designs])
    return await start_servers(stack, {d: server_command(d, dataset.folder) for d in wanted}, logs,
                               MCP_CALL_TIMEOUT_S)


async def record(options: RecordOptions, progress: Progress | None = None) -> RunResult:
    """Record a new run; return its folder and outcomes. Bad options raise WismoError before any work."""
    progress = progress or _Silent()
    unknown = [d for d in options.designs if d not in DESIGN_NAMES]
    if unknown or not options.designs:
        raise WismoError(f"unknown design(s) {', '.join(unknown) or '(none)'}; known: {', '.join(DESIGN_NAMES)}")
    if options.repetitions < 1:
        raise WismoError("--repetitions must be at least 1")
    dataset = load_dataset(options.dataset_dir)
    plans = plan_conversations(dataset, options.designs, options.repetitions, options.case_ids)
    provider = create_provider(options.provider, ProviderSettings(
        model=options.model, base_url=options.base_url, api_key_env=options.api_key_env))
    run_id = options.run_id or new_run_id(provider.name, provider.model)
    run_dir = options.out_dir / run_id
    if run_dir.exists():
        raise WismoError(f"{run_dir} already exists; choose another --run-id or resume it with --resume {run_dir}")
    run_dir.mkdir(parents=True)
    (run_dir / "logs").mkdir()

    async with AsyncExitStack() as stack:
        servers = await _start_servers(stack, options.designs, dataset, run_dir)
        # The same servers the conversations use must first show they return the same evidence.
        comparison = await run_comparison(dataset, servers=servers)
        write_json_atomic(run_dir / COMPARISON_FILE, comparison.to_json())
        if not comparison.passed:
            raise WismoError(f"the two designs do not return the same evidence for dataset {dataset.name}; "
                             f"nothing recorded (see {run_dir / COMPARISON_FILE})")
        servers = {d: servers[d] for d in options.designs}
        manifest = _manifest(run_id, options, provider, dataset, plans, servers)
        write_json_atomic(run_dir / MANIFEST_FILE, manifest)
        writer = EventWriter(run_dir / EVENTS_FILE, run_id)
        writer.write(RunStarted(wismoVersion=__version__, planned=len(plans)))
        progress.start(len(plans), 0)
        runner = _Runner(provider, servers, manifest, writer, options.budgets, options.concurrency, progress)
        try:
            await runner.run_all([(plan, 1) for plan in plans])
        finally:
            await provider.aclose()
        _finish(writer, run_dir, manifest, runner)
    result = RunResult(run_dir, runner.outcomes, 0, runner.aborted)
    if runner.aborted:
        raise RunAborted(result)
    return result


class RunAborted(WismoError):
    """A fatal provider error (401/403) stopped the run; what was recorded stays."""

    def __init__(self, result: RunResult) -> None:
        super().__init__(f"the run stopped: {result.aborted}. Conversations recorded so far are kept in "
                         f"{result.run_dir}; fix the problem and continue with --resume {result.run_dir}")
        self.result = result


def _finish(writer: EventWriter, run_dir: Path, manifest: dict[str, Any], runner: _Runner) -> None:
    errored = sum(o.status in ERROR_STATUSES for _, o in runner.outcomes)
    writer.write(RunFinished(conversations=len(runner.outcomes), errored=errored, aborted=runner.aborted))
    writer.close()
    manifest["finishedAt"] = now_iso()
    write_json_atomic(run_dir / MANIFEST_FILE, manifest)


def _plans_from_manifest(manifest: dict[str, Any], dataset: Dataset) -> list[ConversationPlan]:
    cases = {c["caseId"]: c for c in manifest["cases"]}
    plans = []
    for entry in manifest["plan"]:
        case = cases[entry["caseId"]]
        plans.append(ConversationPlan(entry["conversationId"], entry["caseId"], case["orderId"], case["question"],
                                      entry["design"], entry["repetition"], entry["pairIndex"],
                                      entry["pairPosition"], case["expected"],
                                      tuple(case.get("asks") or DEFAULT_ASKS)))
    return plans


async def resume(run_dir: Path, *, concurrency: int | None = None, command_line: Sequence[str] = (),
                 progress: Progress | None = None) -> RunResult:
    """Re-run the conversations a run did not finish; complete ones are skipped, partial ones superseded."""
    progress = progress or _Silent()
    manifest = read_manifest(run_dir)
    folder = manifest["dataset"]["folder"]
    dataset = load_dataset(None if folder == "default" else Path(folder))
    if dataset.content_hash != manifest["dataset"]["hash"]:
        raise WismoError(f"the dataset at {dataset.folder} changed since {run_dir} was recorded "
                         f"({dataset.content_hash[:19]} ≠ {manifest['dataset']['hash'][:19]}); cannot resume")
    events_path = run_dir / EVENTS_FILE
    lines = read_event_lines(events_path) if events_path.exists() else None
    repaired = None
    if lines and not lines.ends_with_newline:
        # A line cut short by a kill stays in the file (counted as malformed); the next line starts clean.
        with open(events_path, "ab") as handle:
            handle.write(b"\n")
        repaired = lines.line_count
    events = lines.events if lines else []
    live = live_attempts(events)
    finished = {(e["conversationId"], e["attempt"]) for _, e in events if e["type"] == "conversation_finished"}
    highest: dict[str, int] = {}
    for _, event in events:
        if event.get("conversationId"):
            highest[event["conversationId"]] = max(highest.get(event["conversationId"], 0), event.get("attempt", 1))

    plans = _plans_from_manifest(manifest, dataset)
    provider = create_provider(manifest["provider"]["name"], ProviderSettings(
        model=manifest["model"], base_url=manifest.get("baseUrl"), api_key_env=manifest.get("apiKeyEnv")))
    writer = EventWriter(events_path, manifest["runId"])
    work: list[tuple[ConversationPlan, int]] = []
    superseded = 0
    for plan in plans:
        attempt = live.get(plan.conversation_id)
        if attempt is not None and (plan.conversation_id, attempt) in finished:
            continue
        if attempt is not None:
            writer.write(AttemptSuperseded(conversationId=plan.conversation_id, attempt=attempt,
                                           reason="no conversation_finished: the run stopped during this attempt"))
            superseded += 1
        work.append((plan, highest.get(plan.conversation_id, 0) + 1))
    skipped = len(plans) - len(work)
    writer.write(RunResumed(wismoVersion=__version__, repairedLine=repaired, supersededAttempts=superseded,
                            alreadyComplete=skipped))
    manifest["resumes"].append({"at": now_iso(), "commandLine": redact_command_line(command_line),
                                "rerun": len(work), "repairedLine": repaired})
    budgets = Budgets(manifest["budgets"]["maxTurns"], manifest["budgets"]["maxToolCalls"],
                      manifest["budgets"]["requestTimeoutS"], manifest["budgets"]["conversationDeadlineS"])
    progress.start(len(plans), skipped)
    async with AsyncExitStack() as stack:
        servers = await _start_servers(stack, manifest["designs"], dataset, run_dir)
        runner = _Runner(provider, servers, manifest, writer, budgets, concurrency or manifest["concurrency"],
                         progress)
        try:
            await runner.run_all(work)
        finally:
            await provider.aclose()
        _finish(writer, run_dir, manifest, runner)
    result = RunResult(run_dir, runner.outcomes, skipped, runner.aborted)
    if runner.aborted:
        raise RunAborted(result)
    return result


def default_command_line() -> tuple[str, ...]:
    """sys.argv with the program shown as `wismo`."""
    return ("wismo", *sys.argv[1:])
