"""A run read into its conversations, through the run format's own models, for the exporters.

Both exports (OTLP traces, Inspect logs) need the same thing: each live conversation with its model
requests, the tool calls each response asked for and their results, its final score (a later
`wismo score` line replaces the recorded one) and its claim findings. This module reads those from the
run folder with `core.runformat`'s typed readers and nothing else, so an export cannot drift from the
format the recorder writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from pydantic import ValidationError

from core.errors import RunFormatError
from core.runformat import CLAIMS_FILE, EVENTS_FILE, SCORES_FILE
from core.runformat.events import (
    DERIVED_ADAPTER,
    EVENT_ADAPTER,
    ClaimFindingLine,
    ConversationFinishedLine,
    ConversationStartedLine,
    ModelRequestLine,
    ModelResponseLine,
    Score,
    ScoreLine,
    ToolCallLine,
    ToolResultLine,
)
from core.runformat.manifest import Manifest
from core.runformat.read import live_attempts, read_event_lines, read_manifest


@dataclass
class ToolExchange:
    """One tools/call: what the model asked for and what the server answered (None if it never did)."""

    call: ToolCallLine
    result: ToolResultLine | None


@dataclass
class Turn:
    """One model request, its response (None if the conversation ended before one) and its tool calls."""

    request: ModelRequestLine
    response: ModelResponseLine | None
    tools: list[ToolExchange] = field(default_factory=list)


@dataclass
class Conversation:
    """One live attempt of one planned conversation, from its start line to its finish line."""

    started: ConversationStartedLine
    finished: ConversationFinishedLine | None
    turns: list[Turn]
    score: Score | None  # the latest `wismo score` line, else the recorded one; None if it never finished
    rescored: bool
    findings: list[ClaimFindingLine]
    claims_checked: bool

    @property
    def conversation_id(self) -> str:
        return self.started.conversationId


@dataclass
class RunRead:
    """The manifest and every live conversation, in the order they started."""

    run_dir: Path
    manifest: Manifest
    conversations: list[Conversation]


def parse_ts(ts: str) -> datetime:
    """A line's `ts` (UTC ISO 8601 with microseconds) as an aware datetime."""
    return datetime.fromisoformat(ts)


def _derived_lines(path: Path) -> list[ScoreLine | ClaimFindingLine]:
    """The score and claim-finding lines of scores.jsonl or claims.jsonl (absent: none)."""
    if not path.exists():
        return []
    lines = read_event_lines(path)
    if lines.malformed:
        number, reason = lines.malformed[0]
        raise RunFormatError(f"{path}:{number}: {reason}")
    found: list[ScoreLine | ClaimFindingLine] = []
    for number, raw in lines.events:
        try:
            line = DERIVED_ADAPTER.validate_python(raw)
        except ValidationError as exc:
            raise RunFormatError(f"{path}:{number}: {_first_error(exc)}") from None
        if isinstance(line, ScoreLine | ClaimFindingLine):
            found.append(line)
    return found


def _first_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    return f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"


def read_run(run_dir: Path) -> RunRead:
    """Read a run folder into its live conversations; RunFormatError (file:line) on a line the format rejects."""
    manifest = read_manifest(run_dir)
    path = run_dir / EVENTS_FILE
    lines = read_event_lines(path)
    if lines.malformed:
        number, reason = lines.malformed[0]
        raise RunFormatError(f"{path}:{number}: {reason}")
    live = live_attempts(lines.events)
    started: dict[str, ConversationStartedLine] = {}
    finished: dict[str, ConversationFinishedLine] = {}
    turns: dict[str, list[Turn]] = {}
    for number, raw in lines.events:
        try:
            line = EVENT_ADAPTER.validate_python(raw)
        except ValidationError as exc:
            raise RunFormatError(f"{path}:{number}: {_first_error(exc)}") from None
        conversation = getattr(line, "conversationId", None)
        if conversation is None or live.get(conversation) != getattr(line, "attempt", None):
            continue  # a run line, or an attempt that a resume superseded
        conversation_turns = turns.setdefault(conversation, [])
        if isinstance(line, ConversationStartedLine):
            started[conversation] = line
        elif isinstance(line, ModelRequestLine):
            conversation_turns.append(Turn(request=line, response=None))
        elif isinstance(line, ModelResponseLine):
            _turn(conversation_turns, line.turn, path, number).response = line
        elif isinstance(line, ToolCallLine):
            _turn(conversation_turns, line.turn, path, number).tools.append(ToolExchange(call=line, result=None))
        elif isinstance(line, ToolResultLine):
            exchange = next((t for t in _turn(conversation_turns, line.turn, path, number).tools
                             if t.call.callId == line.callId and t.result is None), None)
            if exchange is None:
                raise RunFormatError(f"{path}:{number}: a tool result for call {line.callId!r} that was never made")
            exchange.result = line
        elif isinstance(line, ConversationFinishedLine):
            finished[conversation] = line
    scores: dict[tuple[str, int], Score] = {}
    for score_line in _derived_lines(run_dir / SCORES_FILE):
        if isinstance(score_line, ScoreLine):
            scores[(score_line.conversationId, score_line.attempt)] = score_line.score  # the last one counts
    findings: dict[tuple[str, int], list[ClaimFindingLine]] = {}
    claim_lines = _derived_lines(run_dir / CLAIMS_FILE)
    for finding in claim_lines:
        if isinstance(finding, ClaimFindingLine):
            findings.setdefault((finding.conversationId, finding.attempt), []).append(finding)
    checked = _checked_conversations(run_dir / CLAIMS_FILE)
    conversations = []
    for conversation_id, start in started.items():
        key = (conversation_id, start.attempt)
        end = finished.get(conversation_id)
        rescore = scores.get(key)
        conversations.append(Conversation(
            started=start, finished=end, turns=turns.get(conversation_id, []),
            score=rescore or (end.score if end else None), rescored=rescore is not None,
            findings=findings.get(key, []), claims_checked=key in checked))
    return RunRead(run_dir=run_dir, manifest=manifest, conversations=conversations)


def _checked_conversations(path: Path) -> set[tuple[str, int]]:
    """The (conversation, attempt) pairs whose summary the claim checker read (summary_checked lines)."""
    if not path.exists():
        return set()
    return {(raw["conversationId"], raw["attempt"]) for _, raw in read_event_lines(path).events
            if raw.get("type") == "summary_checked"}


def _turn(turns: list[Turn], number: int, path: Path, line: int) -> Turn:
    """The turn a response or tool line belongs to (turns are numbered 1..n in request order)."""
    if not 1 <= number <= len(turns):
        raise RunFormatError(f"{path}:{line}: turn {number} has no model_request before it")
    return turns[number - 1]
