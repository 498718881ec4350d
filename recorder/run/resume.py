"""`wismo record --resume`: continue a run, re-running what did not finish cleanly (see recorder.run.attempts)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AsyncExitStack
from pathlib import Path

from core import __version__
from core.domain.dataset import Dataset, load_dataset
from core.domain.fields import DEFAULT_ASKS
from core.errors import WismoError
from core.runformat import EVENTS_FILE, SCHEMA_VERSION
from core.runformat.events import AttemptSuperseded, RunResumed
from core.runformat.lock import run_lock
from core.runformat.manifest import Manifest, ResumeEntry
from core.runformat.read import EventLines, read_event_lines, read_manifest
from core.runformat.redact import Redactor, strip_url_secrets
from core.runformat.write import EventWriter, now_iso, write_failure
from recorder.agent.loop import Budgets, ConversationPlan
from recorder.designs.choose import DesignSpec, designs_of_run
from recorder.designs.comparison import run_comparison
from recorder.designs.mcp_client import ToolServer
from recorder.providers import create_provider
from recorder.providers.base import Provider
from recorder.run.attempts import ResumePlan, plan_resume
from recorder.run.manifest import redact_command_line, settings_of_run
from recorder.run.record import (
    After,
    Progress,
    RunResult,
    SilentProgress,
    _Runner,
    abandoned_start,
    end_run,
    finish_run,
    run_work,
    start_run_servers,
    write_manifest,
)


def _plans_from_manifest(manifest: Manifest) -> list[ConversationPlan]:
    cases = {c.caseId: c for c in manifest.cases}
    plans = []
    for entry in manifest.plan:
        case = cases[entry.caseId]
        plans.append(ConversationPlan(entry.conversationId, entry.caseId, case.orderId, case.question,
                                      entry.design, entry.repetition, entry.pairIndex, entry.pairPosition,
                                      case.expected, tuple(case.asks or DEFAULT_ASKS)))
    return plans


def _resume_base_url(manifest: Manifest, base_url: str | None) -> str | None:
    """The manifest's base URL, or the one given to supply the credentials it was stored without."""
    stored = manifest.baseUrl
    if base_url is None:
        return stored
    if strip_url_secrets(base_url) != stored:
        raise WismoError(f"--base-url {strip_url_secrets(base_url)} is not the run's ({stored}); with --resume, "
                         "--base-url only supplies the credentials the manifest was stored without")
    return base_url


def _check_is_a_run(run_dir: Path) -> None:
    """A path that is no folder, or a folder with nothing in it, is not a run: say so, touching nothing."""
    if not run_dir.is_dir():
        what = "is not a folder" if run_dir.exists() else "does not exist"
        raise WismoError(f"--resume {run_dir}: {what}; give the folder of a recorded run (runs/<run-id>)")
    if not any(run_dir.iterdir()):
        raise WismoError(f"--resume {run_dir}: the folder is empty, so it holds no run to resume; if a `wismo "
                         f"record` was stopped during start-up, start it again with the same command (its --run-id "
                         f"{run_dir.name} takes the folder over)")


def _read_for_resume(run_dir: Path) -> Manifest:
    if abandoned_start(run_dir):
        raise WismoError(f"{run_dir} was stopped during start-up, before its manifest was written, so there is "
                         f"nothing to resume: start it again with the same `wismo record` command (its --run-id "
                         f"{run_dir.name} takes the folder over)")
    return read_manifest(run_dir)


async def resume(run_dir: Path, *, concurrency: int | None = None, command_line: Sequence[str] = (),
                 progress: Progress | None = None, keep_errors: bool = False, base_url: str | None = None,
                 headers: Sequence[tuple[str, str, str]] = (),
                 after: After | None = None) -> RunResult:
    """Continue a run: re-run what did not finish cleanly (and, unless keep_errors, what ended in a fault).

    Finished answers, invalid answers and budget hits are never re-run; an attempt that no longer
    counts is superseded (its lines stay). A finished run with nothing to re-run is left untouched.
    """
    progress = progress or SilentProgress()
    _check_is_a_run(run_dir)  # before the lock, which would create a file in whatever folder was named
    with run_lock(run_dir, "wismo record --resume"):
        manifest = _read_for_resume(run_dir)
        folder = manifest.dataset.folder
        dataset = load_dataset(None if folder == "default" else Path(folder))
        if dataset.content_hash != manifest.dataset.hash:
            raise WismoError(f"the dataset at {dataset.folder} changed since {run_dir} was recorded "
                             f"({dataset.content_hash[:19]} ≠ {manifest.dataset.hash[:19]}); cannot resume")
        for warning in dataset.warnings:
            progress.warn(warning)
        base_url = _resume_base_url(manifest, base_url)
        events_path = run_dir / EVENTS_FILE
        lines = read_event_lines(events_path) if events_path.exists() else None
        if lines is not None and lines.other_versions:
            # Another wismo's lines would be unreadable here, so their conversations would run again and
            # two versions would share one file: refused before anything is written.
            number, version = lines.other_versions[0]
            raise WismoError(f"cannot resume {run_dir}: {EVENTS_FILE} line {number} has schema version {version!r} "
                             f"(this wismo writes {SCHEMA_VERSION}); resume it with the wismo that recorded it")
        plans = _plans_from_manifest(manifest)
        todo = plan_resume(lines.events if lines else [], [p.conversation_id for p in plans], keep_errors=keep_errors)
        if not todo.rerun and not todo.supersede and lines is not None and lines.ends_with_newline:
            return RunResult(run_dir, [], todo.kept, nothing_to_do=True)

        # The same servers: wismo's own, the commands recorded, the URLs (with the headers given again).
        designs = designs_of_run(manifest, None if folder == "default" else Path(folder), headers)
        # A resumed run sends what the run settled on: the same answer format, tool choice and options.
        provider = create_provider(manifest.provider.name, settings_of_run(manifest, base_url))
        redactor = Redactor.from_environment(manifest.apiKeyEnv, [base_url]).with_secrets(
            value for spec in designs for value in spec.secret_values())
        try:
            result = await _resume_in(run_dir, manifest, dataset, plans, todo, lines, provider, redactor,
                                      concurrency, command_line, progress, designs)
        finally:
            await provider.aclose()
        return end_run(result, after)


async def _same_servers(stack: AsyncExitStack, run_dir: Path, manifest: Manifest, dataset: Dataset,
                        designs: Sequence[DesignSpec]) -> dict[str, ToolServer]:
    """Start the run's servers again and hold them to the run: the tools it recorded, the same evidence.

    A server edited since the run was recorded (other tools, other records) would mix two versions into
    one design's figures, so the resume is refused with one line naming the design and what changed,
    before anything is written. The comparison runs again on these very servers, as at record time.
    """
    targets = {spec.name: spec.target() for spec in designs}
    try:
        servers = await start_run_servers(stack, targets, run_dir, expected_tools=manifest.toolsListed)
    except WismoError as exc:
        raise WismoError(f"cannot resume {run_dir}: {exc}") from None
    comparison = await run_comparison(dataset, servers=servers, designs=manifest.designs)
    if not comparison.passed:
        problem = comparison.problem_line("the comparison") or "the designs no longer return the same evidence"
        raise WismoError(f"cannot resume {run_dir}: its servers changed since it was recorded: {problem}")
    return servers


async def _resume_in(run_dir: Path, manifest: Manifest, dataset: Dataset, plans: list[ConversationPlan],
                     todo: ResumePlan, lines: EventLines | None, provider: Provider, redactor: Redactor,
                     concurrency: int | None, command_line: Sequence[str], progress: Progress,
                     designs: Sequence[DesignSpec]) -> RunResult:
    events_path = run_dir / EVENTS_FILE
    work = [(plan, todo.rerun[plan.conversation_id]) for plan in plans if plan.conversation_id in todo.rerun]
    skipped = len(plans) - len(work)
    async with AsyncExitStack() as stack:
        # Checked before a line is written: a refused resume leaves the run exactly as it was.
        servers = await _same_servers(stack, run_dir, manifest, dataset, designs) if work else {}
        repaired = None
        if lines and not lines.ends_with_newline:
            # A line cut short by a kill stays in the file (counted as malformed); the next line starts clean.
            try:
                with open(events_path, "ab") as handle:
                    handle.write(b"\n")
            except OSError as exc:
                raise write_failure(events_path, exc) from None
            repaired = lines.line_count
        writer = EventWriter(events_path, manifest.runId, redactor)
        for mark in todo.supersede:
            writer.write(AttemptSuperseded(conversationId=mark.conversation_id, attempt=mark.attempt,
                                           reason=mark.reason))
        writer.write(RunResumed(wismoVersion=__version__, repairedLine=repaired,
                                supersededAttempts=len(todo.supersede), alreadyComplete=skipped))
        resumed = ResumeEntry(at=now_iso(), commandLine=redact_command_line(command_line, redactor), rerun=len(work),
                              repairedLine=repaired)
        manifest = manifest.model_copy(update={"resumes": [*manifest.resumes, resumed], "finishedAt": None})
        write_manifest(run_dir, manifest, redactor)
        limits = manifest.budgets
        budgets = Budgets(limits.maxTurns, limits.maxToolCalls, limits.requestTimeoutS, limits.conversationDeadlineS,
                          limits.maxOutputTokens, limits.maxToolResultBytes)
        progress.start(len(plans), skipped)
        runner = _Runner(provider, servers, manifest, writer, budgets, concurrency or manifest.concurrency,
                         progress, redactor)
        await run_work(runner, work)
        finish_run(writer, run_dir, manifest, runner, redactor)
    return runner.result(run_dir, skipped)
