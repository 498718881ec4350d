"""Doctor's last step: the first case recorded once per design, through `record` itself, with the flags it prints.

Probes say what a server accepts; only a whole conversation says whether the model gathers evidence
and gives a parseable answer under wismo's real instructions. Each trial records into a temporary
folder (never the user's runs) and reads its trace back: turns, tool calls (native or read from text),
whether the answer parsed, whether any record was gathered. When a design called no tool, the trace
names the cause, and the next trial adds the flag that fixes it: calls written as text
(`--text-tool-calls`), or wismo's long instructions (`--instructions` with a short prompt).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from core.domain.dataset import load_dataset
from core.errors import WismoError
from recorder.agent.loop import DEFAULT_MAX_OUTPUT_TOKENS, Budgets
from recorder.doctor.report import Check, Diagnosis
from recorder.providers.text_calls import parse_text_calls
from recorder.run.options import Guidance, RecordOptions
from recorder.run.record import record

# A short prompt that made Qwen2.5-Coder-1.5B behind llama-server call its tools (docs/recording.md):
# offered when a model calls nothing under wismo's own instructions, as a file the user can edit.
SHORT_INSTRUCTIONS = Path(__file__).resolve().parents[2] / "examples" / "instructions" / "small-model.txt"
Cause = str  # "text_calls" | "instructions"
DESIGNS = ("granular", "focused")
# What each cause is, in a few words, and the flag that fixes it.
CAUSES = {"text_calls": ("the model wrote its tool calls as text, which the server does not parse",
                         "--text-tool-calls"),
          "instructions": ("the model called no tool under wismo's own instructions", "--instructions"),
          "answer_format": ("the model gave no answer wismo could read under wismo's own instructions",
                            "--instructions")}
AddChecks = Callable[..., None]


@dataclass(frozen=True)
class TrialSettings:
    """What doctor's whole conversations record with besides what the probes chose (the user's own flags)."""

    guidance: Guidance | None = None  # --instructions FILE
    text_tool_calls: bool = False
    max_output_tokens: int | None = None  # --max-output-tokens; None: doctor chooses (diagnose.output_cap)
    enabled: bool = True  # --no-trial: the probes and first requests only
    keep_in: Path | None = None  # --keep-trials DIR: each trial's run kept there (trial-1, trial-2, ...)


@dataclass(frozen=True)
class DesignTrial:
    """One design's conversation, as its trace tells it."""

    design: str
    status: str
    turns: int
    tool_calls: int
    from_text: int  # of the tool calls, those read from the model's text
    written_unread: int  # calls the model wrote as text that were not read (no --text-tool-calls)
    records_gathered: int  # tool results that were not errors
    answer_parsed: bool
    passed: bool
    seconds: float
    slowest_request_s: float  # the longest model request, for the budgets doctor suggests

    @property
    def ok(self) -> bool:
        """It called a tool and gave an answer wismo could score."""
        return self.tool_calls > 0 and self.answer_parsed

    def line(self) -> str:
        """What happened, in a few words."""
        calls = f"{self.tool_calls} tool call(s)" + (f" ({self.from_text} read from text)" if self.from_text else "")
        unread = f", {self.written_unread} call(s) written as text and not read" if self.written_unread else ""
        answer = ("answer parsed" + (" and right" if self.passed else ", not right")) if self.answer_parsed \
            else f"no parseable answer ({self.status})"
        gathered = f"{self.records_gathered} record(s) gathered" if self.records_gathered else "no record gathered"
        return f"{self.turns} turn(s), {calls}{unread}, {gathered}, {answer}, {self.seconds:.0f} s"


@dataclass(frozen=True)
class Trial:
    """One trial: the options it recorded with, each design's conversation, and the run's answer format."""

    options: RecordOptions
    designs: list[DesignTrial]
    structured_output: dict[str, Any] | None

    @property
    def ok(self) -> bool:
        """Every design called a tool and gave a parseable answer."""
        return bool(self.designs) and all(design.ok for design in self.designs)

    @property
    def schema_grammar(self) -> bool:
        """auto found that json_schema left the model no room for a tool call."""
        fallbacks = (self.structured_output or {}).get("fallbacks") or []
        return any(fallback.get("cause") == "schema_grammar" for fallback in fallbacks)

    def cause(self) -> Cause | None:
        """Why a design called no tool, when the trace shows a cause a flag can fix; None when it shows none."""
        silent = [design for design in self.designs if design.tool_calls == 0]
        short_prompt = self.options.guidance is None and SHORT_INSTRUCTIONS.is_file()
        if not silent:
            # Every design called a tool: a short prompt that spells the answer out may still make it readable.
            unread = any(not design.answer_parsed for design in self.designs)
            return "answer_format" if unread and short_prompt else None
        if not self.options.text_tool_calls and any(design.written_unread for design in silent):
            return "text_calls"
        return "instructions" if short_prompt else None

    @property
    def every_design_called(self) -> bool:
        """Every design called a tool (whether or not its answer could be read)."""
        return bool(self.designs) and all(design.tool_calls > 0 for design in self.designs)


def remedy(options: RecordOptions, cause: Cause) -> RecordOptions:
    """The options with the flag that fixes `cause`."""
    if cause == "text_calls":
        return replace(options, text_tool_calls=True)
    return replace(options, guidance=Guidance.read(_shown(SHORT_INSTRUCTIONS)))


def _shown(path: Path) -> Path:
    """The path as the printed command should name it: relative to the working folder when inside it."""
    return path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path


def flags_of(options: RecordOptions) -> list[str]:
    """The record flags a trial's options add to the defaults."""
    flags = ["--text-tool-calls"] if options.text_tool_calls else []
    if options.guidance is not None:
        flags.append(f"--instructions {options.guidance.file}")
    return flags


async def run_trial(options: RecordOptions, keep_in: Path | None = None, number: int = 1) -> Trial:
    """Record the first case once per design and read what happened: into a temporary folder, or kept as
    `keep_in/trial-<number>` so that its trace can be read (and validated, and built) afterwards."""
    with tempfile.TemporaryDirectory(prefix="wismo-doctor-trial-") as folder:
        out_dir, run_id = (keep_in, f"trial-{number}") if keep_in is not None else (Path(folder), "trial")
        trial_options = replace(options, out_dir=out_dir, run_id=run_id, repetitions=1, concurrency=1)
        try:
            result = await record(trial_options)
        except WismoError as exc:
            raise WismoError(f"doctor's trial conversation could not be recorded: {exc}") from None
        manifest = json.loads((result.run_dir / "manifest.json").read_text(encoding="utf-8"))
        events = [json.loads(line) for line in (result.run_dir / "events.jsonl").read_text(encoding="utf-8")
                  .splitlines() if line.strip()]
    tool_names = [tool["name"] for tools in (manifest.get("tools") or {}).values() for tool in tools]
    designs = [_design_trial(design, events, tool_names) for design in manifest.get("designs") or []]
    return Trial(options, [design for design in designs if design is not None], manifest.get("structuredOutput"))


def _design_trial(design: str, events: list[dict[str, Any]], tool_names: list[str]) -> DesignTrial | None:
    mine = [event for event in events if str(event.get("conversationId", "")).split(".")[1:2] == [design]]
    finished = next((event for event in mine if event["type"] == "conversation_finished"), None)
    if finished is None:
        return None
    calls = [event for event in mine if event["type"] == "tool_call"]
    results = [event for event in mine if event["type"] == "tool_result"]
    texts = ["".join(item.get("text", "") for item in event.get("outputItems") or [] if item.get("type") == "text")
             for event in mine if event["type"] == "model_response"]
    unread = 0 if any(call.get("fromText") for call in calls) else sum(
        len(parse_text_calls(text, tool_names)) for text in texts)
    score = finished.get("score") or {}
    claimed = finished.get("claimed") or {}
    return DesignTrial(
        design=design, status=str(finished.get("status")), turns=int(claimed.get("turns") or 0),
        tool_calls=len(calls), from_text=sum(bool(call.get("fromText")) for call in calls),
        written_unread=unread, records_gathered=sum(not result.get("isError") for result in results),
        answer_parsed=finished.get("status") == "answered", passed=bool(score.get("passed")),
        seconds=float(claimed.get("elapsedMs") or 0.0) / 1000,
        slowest_request_s=max((float(event.get("latencyMs") or 0.0) / 1000 for event in mine
                               if event["type"] == "model_response"), default=0.0))


def first_case_id(dataset_dir: Path | None) -> str:
    """The dataset's first case: the one doctor's first requests ask about, and its trials record."""
    return load_dataset(dataset_dir).cases[0].caseId


def trial_options(diagnosis: Diagnosis, chosen: dict[str, Any], api_key_env: str | None, dataset_dir: Path | None,
                  timeout_s: float, settings: TrialSettings, written: bool) -> RecordOptions:
    """The record options of the first trial: what the probes chose, the user's flags, the first case only."""
    answer_format = chosen.get("structured_output") or "auto"
    tool_choice = next((flag.split()[-1] for flag in diagnosis.flags if flag.startswith("--tool-choice ")), "auto")
    deadline = max(Budgets().conversation_deadline_s, 4 * timeout_s)
    return RecordOptions(
        provider=diagnosis.provider, model=diagnosis.model, base_url=diagnosis.base_url, api_key_env=api_key_env,
        designs=DESIGNS, case_ids=(first_case_id(dataset_dir),), dataset_dir=dataset_dir, repetitions=1,
        concurrency=1,
        structured_output="auto" if answer_format == "json_schema" else answer_format, tool_choice=tool_choice,
        text_tool_calls=settings.text_tool_calls or written, guidance=settings.guidance,
        budgets=Budgets(request_timeout_s=timeout_s, conversation_deadline_s=deadline,
                        max_output_tokens=settings.max_output_tokens or DEFAULT_MAX_OUTPUT_TOKENS))


async def run_trials(diagnosis: Diagnosis, options: RecordOptions, add: AddChecks,
                     keep_in: Path | None = None) -> None:
    """Whole conversations until every design called a tool and answered, or no flag is left to try.

    The verdict is the last trial's: usable only when it succeeded; otherwise it names the cause (or
    what failed when no flag fixes it). The flags that made it work join the record command. With `keep_in`
    (--keep-trials) each trial's run stays there, named trial-1, trial-2, ... in the order they ran.
    """
    tried: list[Cause] = []
    tried_flags: list[str] = []
    while True:
        trial = await run_trial(options, keep_in, len(tried) + 1)
        for design in trial.designs:
            add(Check(f"a whole conversation, {design.design}", design.ok, design.line()))
            diagnosis.latencies_s.append(design.slowest_request_s)
        if trial.schema_grammar:
            add(Check("json_schema leaves room for a tool call", False,
                      "the server's schema grammar constrains every reply: auto sends no response_format "
                      "while tools are offered (recorded in the manifest)"))
        if trial.ok:
            diagnosis.usable = True
            diagnosis.flags += [flag for flag in flags_of(options) if flag not in diagnosis.flags]
            diagnosis.verdict = ("record can work: in a whole conversation of the first case every design called "
                                 "a tool and gave a parseable answer" + (f" (with {', '.join(tried_flags)})"
                                                                         if tried_flags else ""))
            return
        cause = trial.cause()
        if cause is None or cause in tried:
            diagnosis.usable = False
            diagnosis.verdict = _failure(trial, tried_flags)
            if trial.every_design_called:  # the command that gets tool calls, for a user to take on from
                diagnosis.closest = [flag for flag in flags_of(options) if flag not in diagnosis.flags]
            return
        what, flag = CAUSES[cause]
        options = remedy(options, cause)
        flag = next(shown for shown in flags_of(options) if shown.startswith(flag))
        add(Check(f"cause: {what}", None, f"trying again with {flag}"))
        tried.append(cause)
        tried_flags.append(flag)


def _failure(trial: Trial, tried: list[str]) -> str:
    """Why record would say nothing about the designs, in the last trial's own figures."""
    after = f" (even with {', '.join(tried)})" if tried else ""
    silent = [design.design for design in trial.designs if design.tool_calls == 0]
    if silent:
        return (f"record would run, but in a whole conversation the model called no tool in {', '.join(silent)}"
                f"{after}: its figures would say nothing about the designs")
    unparsed = [f"{design.design} ({design.status})" for design in trial.designs if not design.answer_parsed]
    return (f"record would run, but the model gave no parseable answer in {', '.join(unparsed)}{after}: every "
            "conversation would count as a failure")
