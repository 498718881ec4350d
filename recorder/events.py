"""The versioned records of a raw run: one JSON object per line of events.jsonl.

Every event carries `v` (the schema version), `type`, `runId` and `ts`; conversation events also carry
`conversationId`, `attempt` (1, or more after --resume) and `seq` (1.. per conversation attempt). A
reader validates each line against the union below and reports `events.jsonl:LINE` for a bad one.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from recorder.schema import SCHEMA_VERSION

MANIFEST_VERSION = 1

Status = Literal["answered", "invalid_answer", "provider_error", "tool_error", "budget_exhausted", "timeout"]
BudgetName = Literal["max_turns", "max_tool_calls", "deadline", "request_timeout"]


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid")

    v: Literal[1] = SCHEMA_VERSION
    runId: str
    ts: str


class _ConversationEvent(_Event):
    conversationId: str
    attempt: int = Field(ge=1)
    seq: int = Field(ge=1)


class RunStarted(_Event):
    type: Literal["run_started"] = "run_started"
    wismoVersion: str
    planned: int


class RunResumed(_Event):
    """A --resume began; `repairedLine` is the line number of a truncated last line, if any."""

    type: Literal["run_resumed"] = "run_resumed"
    wismoVersion: str
    repairedLine: int | None
    supersededAttempts: int
    alreadyComplete: int


class AttemptSuperseded(_Event):
    """An incomplete attempt's lines stay in the file but no longer count; a new attempt replaces them."""

    type: Literal["attempt_superseded"] = "attempt_superseded"
    conversationId: str
    attempt: int
    reason: str


class ConversationStarted(_ConversationEvent):
    type: Literal["conversation_started"] = "conversation_started"
    caseId: str
    orderId: str
    design: str
    repetition: int
    pairIndex: int
    pairPosition: Literal[1, 2]


class ModelRequestEvent(_ConversationEvent):
    type: Literal["model_request"] = "model_request"
    turn: int
    newItems: list[dict[str, Any]]
    historyLength: int
    requestBytes: int


class ModelResponseEvent(_ConversationEvent):
    type: Literal["model_response"] = "model_response"
    turn: int
    outputItems: list[dict[str, Any]]
    usage: dict[str, Any]
    model: str | None
    responseId: str | None
    latencyMs: float
    retries: int
    retryWaitsS: list[float] = []
    error: dict[str, Any] | None
    rawOutput: Any = None


class ToolCallEvent(_ConversationEvent):
    type: Literal["tool_call"] = "tool_call"
    turn: int
    callId: str
    name: str
    arguments: str


class ToolResultEvent(_ConversationEvent):
    type: Literal["tool_result"] = "tool_result"
    turn: int
    callId: str
    name: str
    text: str
    isError: bool
    errorKind: Literal["tool", "unknown_tool", "invalid_arguments", "server_died", "cancelled"] | None
    bytes: int
    latencyMs: float


class ConversationFinished(_ConversationEvent):
    type: Literal["conversation_finished"] = "conversation_finished"
    status: Status
    budgetHit: BudgetName | None
    error: str | None
    finalText: str | None
    assessment: dict[str, Any] | None
    score: dict[str, Any]
    claimed: dict[str, Any]


class RunFinished(_Event):
    type: Literal["run_finished"] = "run_finished"
    conversations: int
    errored: int
    aborted: str | None


Event = Annotated[
    RunStarted | RunResumed | AttemptSuperseded | ConversationStarted | ModelRequestEvent | ModelResponseEvent
    | ToolCallEvent | ToolResultEvent | ConversationFinished | RunFinished,
    Field(discriminator="type"),
]
EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)
