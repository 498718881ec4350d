"""The versioned records of a run folder: every line of events.jsonl, scores.jsonl and claims.jsonl.

Each kind of line is a small pydantic model in two parts: a *body* (the fields its writer decides,
with a literal `type`) and an *envelope* (`v`, `runId`, `ts`, and for conversation events
`conversationId`, `attempt`, `seq`) that the writer adds. The writer (`core.runformat.write`) builds
every line from a body model, so it cannot write a field the format does not define; readers validate
a whole line against the discriminated union `EVENT_ADAPTER`. Every field carries a description:
docs/run-format.md's tables are generated from them (`core.runformat.doc`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from core.domain.fields import DEFAULT_ASKS
from core.runformat import SCHEMA_VERSION

Status = Literal["answered", "invalid_answer", "provider_error", "tool_error", "budget_exhausted", "timeout",
                 "interrupted", "provider_limit", "refused"]
# The statuses of an infrastructure fault (not the model's doing): `--resume` re-runs them by default.
# provider_limit and refused are the provider's answer (cut short, or refused): counted apart, never re-run.
FAULT_STATUSES: tuple[str, ...] = ("provider_error", "tool_error", "timeout", "interrupted")
BudgetName = Literal["max_turns", "max_tool_calls", "deadline", "request_timeout", "max_tool_result_bytes"]
ToolErrorKind = Literal["tool", "unknown_tool", "invalid_arguments", "server_died", "cancelled"]
HistoryItem = dict[str, Any]


def _doc(text: str, **kwargs: Any) -> Any:
    return Field(description=text, **kwargs)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --- parts of events ---------------------------------------------------------------------------------

class Usage(_Model):
    """Token counts of one model response as the provider reported them."""

    inputTokens: int | None = _doc("input tokens of the request; null where the provider reported none")
    outputTokens: int | None = _doc("output tokens of the response")
    cachedTokens: int | None = _doc("input tokens served from the provider's prompt cache")
    reasoningTokens: int | None = _doc("of the output tokens, those the model spent reasoning (OpenAI "
                                       "output_tokens_details.reasoning_tokens, Anthropic thinking_tokens); null "
                                       "where the provider reported none", default=None)
    estimated: bool = _doc("true when wismo estimated the counts offline (the scripted policy)")


class ServerTimings(_Model):
    """Where a local server says a request's time went (llama-server's `timings` object), as it reported it."""

    promptTokens: int | None = _doc("prompt tokens it processed (timings.prompt_n), those served from its cache "
                                    "not included", default=None)
    cachedTokens: int | None = _doc("prompt tokens it reused from its cache (timings.cache_n)", default=None)
    promptMs: float | None = _doc("milliseconds processing the prompt (timings.prompt_ms)", default=None)
    generatedTokens: int | None = _doc("tokens it generated (timings.predicted_n)", default=None)
    generatedMs: float | None = _doc("milliseconds generating them (timings.predicted_ms)", default=None)


class ResponseError(_Model):
    """Why a model request failed for good."""

    kind: str = _doc("rate_limited, server_error, timeout, auth, bad_request, connection, malformed_response "
                     "(a 200 whose body is not JSON or holds no output), unexpected (an exception while reading "
                     "the response), interrupted or other")
    status: int | None = _doc("the HTTP status, when there was one")
    message: str = _doc("what the provider said, shortened, with the key scrubbed")
    fatal: bool = _doc("true when no later request can succeed (401/403): the run stops")
    retries: int = _doc("attempts that failed before this one")


class Score(_Model):
    """The asked answer fields judged against the case's expectation."""

    fields: dict[str, bool] = _doc("per asked answer field: did the answer match the expectation (a field "
                                   "not asked has no entry)")
    passed: bool = _doc("every asked field matched")


class BackendLookups(_Model):
    """Backend work behind tool calls, from each result's `_meta` (`wismo/lookups`): reads per backend, found or not."""

    orders: int = _doc("reads of the orders backend", ge=0)
    payments: int = _doc("reads of the payments backend", ge=0)
    reservations: int = _doc("reads of the warehouse reservations backend", ge=0)
    tracking: int = _doc("reads of the carrier tracking backend", ge=0)
    notFound: int = _doc("of those reads, how many found no record", ge=0)


class McpRequest(_Model):
    """The tools/call request behind a tool result, as wismo's MCP client sent it."""

    # Read from the MCP SDK's public surface (recorder/designs/mcp_requests.py): the client's negotiated
    # version, the messages its transport is handed, its HTTP client's request hook. Of the headers only
    # Mcp-Session-Id is read: the values of those wismo sends (a bearer token) never are.
    requestId: int | str = _doc("the JSON-RPC `id` the request was sent under, verbatim (the MCP SDK numbers each "
                                "connection's requests from 1, initialize first, so a restarted server's calls "
                                "start low again)")
    protocolVersion: str = _doc("the MCP protocol version negotiated at initialize by the server instance that "
                                "received the call (InitializeResult.protocolVersion; a restarted server "
                                "negotiates again)")
    sessionId: str | None = _doc("the Mcp-Session-Id header the request carried: the session the streamable HTTP "
                                 "server issued at initialize. Left out over stdio, which has no session, and "
                                 "for a server that issued none", default=None,
                                 exclude_if=lambda session: session is None)


class Claimed(_Model):
    """The counters the runner claims for a conversation; `wismo validate` re-adds them from the lines."""

    turns: int = _doc("model_response events (failed requests included)")
    toolCalls: int = _doc("tool_call events")
    inputTokens: int | None = _doc("sum of the responses' inputTokens; null when none reported any")
    outputTokens: int | None = _doc("sum of the responses' outputTokens")
    cachedTokens: int | None = _doc("sum of the responses' cachedTokens")
    reasoningTokens: int | None = _doc("sum of the responses' reasoningTokens", default=None)
    elapsedMs: float = _doc("monotonic time from conversation_started to conversation_finished")
    lookups: BackendLookups | None = _doc(
        "the tool results' lookups added up (zero when no tool was called); null in runs recorded before the "
        "servers reported them, or when a result the server answered without error reported none",
        default=None)
    elapsedExact: bool = _doc("true when elapsedMs is exactly the difference of the two lines' `ts` (both "
                              "stamped from the readings it is computed from; `wismo validate` holds it to the "
                              "microsecond); false in runs recorded before, held within 5 ms + 1 %", default=False)


# --- bodies: what a writer decides ---------------------------------------------------------------------

class RunStarted(_Model):
    """A new run began (the first line of events.jsonl)."""

    type: Literal["run_started"] = "run_started"
    wismoVersion: str = _doc("the version of wismo that recorded it")
    planned: int = _doc("conversations in the manifest's plan")


class RunResumed(_Model):
    """A `--resume` began."""

    type: Literal["run_resumed"] = "run_resumed"
    wismoVersion: str = _doc("the version of wismo that resumed it")
    repairedLine: int | None = _doc("the line number of a truncated last line, left in place; null if none")
    supersededAttempts: int = _doc("attempts marked superseded by this resume")
    alreadyComplete: int = _doc("planned conversations already finished, skipped")


class AttemptSuperseded(_Model):
    """An attempt's lines stay in the file but no longer count; a new attempt replaces them."""

    type: Literal["attempt_superseded"] = "attempt_superseded"
    conversationId: str = _doc("the conversation whose attempt no longer counts")
    attempt: int = _doc("that attempt's number")
    reason: str = _doc("why it was superseded")


class ServerOutage(_Model):
    """One time a design's MCP server that was up went away (its process died or stalled, its connection dropped)."""

    lostAt: str = _doc("when wismo let the instance go (a call to it failed or stalled)")
    backAt: str | None = _doc("when a new instance (a restarted process, a new HTTP session) served again; null "
                              "when it never did: the run stopped")
    failedTries: int = _doc("tries to start or reach it again that failed before it was back (the first is made at "
                            "once, the next after 0.5, 1, 2, 4, 8 and 16 s: at most 7)")
    waitsS: list[float] = _doc("each wait before a try, in seconds")
    lastError: str | None = _doc("why the last failed try failed; null when none failed")


class RunFinished(_Model):
    """An invocation of `record` (or `--resume`) ended."""

    type: Literal["run_finished"] = "run_finished"
    conversations: int = _doc("conversations finished by this invocation")
    errored: int = _doc("of those, how many ended in an infrastructure fault (provider_error, tool_error, "
                        "timeout, interrupted)")
    aborted: str | None = _doc("why the run stopped early; null when it ran to the end")
    serverRestarts: dict[str, int] = _doc("per design, how many times its MCP server was restarted (or, over "
                                          "HTTP, reconnected to) after it died, stalled or dropped the connection",
                                          default_factory=dict)
    serverOutages: dict[str, list[ServerOutage]] = _doc(
        "per design whose server went away during this invocation, each time it did: when, the tries to start "
        "or reach it again that failed (with bounded exponential backoff), and when it was back; left out when "
        "no server went away", default_factory=dict, exclude_if=lambda outages: not outages)


class AbandonedRequest(_Model):
    """A model request an earlier conversation gave up on, which a local server may still be working on."""

    conversationId: str = _doc("the conversation that gave up on it")
    attempt: int = _doc("that conversation's attempt")
    budgetHit: BudgetName = _doc("request_timeout or deadline")
    at: str = _doc("when it gave up")


class ConversationStarted(_Model):
    """A conversation attempt began."""

    type: Literal["conversation_started"] = "conversation_started"
    caseId: str = _doc("the case asked")
    orderId: str = _doc("the order the case is about")
    design: str = _doc("the tool design the model was given")
    repetition: int = _doc("1..repetitions")
    pairIndex: int = _doc("the (case, repetition) group this conversation belongs to (every design runs it once)")
    pairPosition: int = _doc("this design's place in its group's order: 1 when it went first (the order rotates "
                             "between groups)", ge=1)
    afterAbandonedRequest: AbandonedRequest | None = _doc(
        "on a local server, a request an earlier conversation abandoned at a timeout just before this one began: "
        "a single-slot server may still be working on it, so this conversation's time can include that wait",
        default=None)
    asks: list[str] = _doc("the answer fields the case asks (its schema holds these plus customerSummary); "
                           "only these are scored", default_factory=lambda: list(DEFAULT_ASKS))


class ModelRequestSent(_Model):
    """One stateless model request (turn n) was sent."""

    type: Literal["model_request"] = "model_request"
    turn: int = _doc("1..n within the attempt")
    newItems: list[HistoryItem] = _doc("history items appended since the previous request")
    historyLength: int = _doc("history items sent in all")
    requestBytes: int = _doc("UTF-8 bytes of instructions + tools + history as JSON")


class ModelResponseReceived(_Model):
    """The response to turn n's request, or why there was none."""

    type: Literal["model_response"] = "model_response"
    turn: int = _doc("the request's turn")
    outputItems: list[HistoryItem] = _doc("text, function_call and (Responses API) reasoning items, in the "
                                          "provider's order")
    usage: Usage = _doc("token counts (null where the provider reported nothing)")
    model: str | None = _doc("the model id as the provider returned it")
    responseId: str | None = _doc("the provider's response id")
    latencyMs: float = _doc("from sending to the parsed response, retry waits included")
    retries: int = _doc("failed attempts before this response")
    retryWaitsS: list[float] = _doc("each backoff wait, in seconds", default_factory=list)
    error: ResponseError | None = _doc("null, or why the request failed for good")
    rawOutput: Any = _doc("the provider's output as it sent it (null for a failed request)", default=None)
    stopReason: str | None = _doc("why the response ended, in the provider's words: Anthropic's stop_reason "
                                  "(end_turn, tool_use, max_tokens, refusal, …); for the Responses API the "
                                  "status (completed), incomplete_details.reason when it was incomplete "
                                  "(max_output_tokens, content_filter) or refusal; for Chat Completions the "
                                  "finish_reason (stop, tool_calls, length); null when not recorded",
                                  default=None)
    answerFormat: Literal["json_schema", "instructions"] | None = _doc(
        "how the answer's schema was asked for: json_schema (the API constrained the answer to it) or "
        "instructions (the instructions alone asked for it); null when not recorded", default=None)
    serverTimings: ServerTimings | None = _doc(
        "where the server says the request's time went (llama-server's timings); left out when it said nothing",
        default=None, exclude_if=lambda timings: timings is None)


class ToolCallMade(_Model):
    """The model asked for a tool call."""

    type: Literal["tool_call"] = "tool_call"
    turn: int = _doc("the turn whose response asked for it")
    callId: str = _doc("the provider's call id")
    name: str = _doc("the tool name")
    arguments: str = _doc("the JSON text the model produced, verbatim")
    fromText: bool = _doc("the model wrote this call in its message text and wismo read it (--text-tool-calls); "
                          "the response's function_call item carries fromText and textShape too. Left out "
                          "for a native call", default=False, exclude_if=lambda written: not written)


class ToolResultReceived(_Model):
    """A tool call's result (or the reason it has none)."""

    type: Literal["tool_result"] = "tool_result"
    turn: int = _doc("the turn of its call")
    callId: str = _doc("the call it answers")
    name: str = _doc("the tool name")
    text: str = _doc("the result text the model receives")
    isError: bool = _doc("the tool reported an error")
    errorKind: ToolErrorKind | None = _doc("null, tool, unknown_tool, invalid_arguments, server_died, or "
                                           "cancelled at the deadline")
    bytes: int = _doc("UTF-8 bytes of text")
    latencyMs: float = _doc("from sending tools/call to its result")
    lookups: BackendLookups | None = _doc(
        "the backend reads the server did for this call (its result's `_meta`, which the model never sees); "
        "null in runs recorded before the servers reported them, and for a result without them (a call the "
        "server refused before its tool ran, one that never reached the server)", default=None)
    mcp: McpRequest | None = _doc(
        "the tools/call request wismo sent for it (JSON-RPC id, negotiated protocol version, HTTP session), also "
        "when the server died before answering; left out when none was sent (unknown_tool, invalid_arguments, "
        "cancelled before it was sent, no server running) and in runs recorded before wismo recorded it",
        default=None,
        exclude_if=lambda sent: sent is None)
    cutFromBytes: int | None = _doc(
        "the UTF-8 bytes the server returned, when they exceeded the tool-result limit (the manifest's "
        "budgets.maxToolResultBytes): `text` then holds only the result's beginning and a marker saying so, the "
        "model was not sent it, and the conversation ended as budget_exhausted (max_tool_result_bytes). Left out "
        "for a result within the limit", default=None, exclude_if=lambda size: size is None)


class ConversationFinished(_Model):
    """A conversation attempt ended; only a finished conversation counts."""

    type: Literal["conversation_finished"] = "conversation_finished"
    status: Status = _doc("answered, invalid_answer, provider_error, tool_error, budget_exhausted, timeout, "
                          "interrupted (Ctrl-C, a signal, or the run stopping, while it was in flight), "
                          "provider_limit (the provider cut the response short: max tokens, context window) or "
                          "refused (the provider refused to answer)")
    budgetHit: BudgetName | None = _doc("null, max_turns, max_tool_calls, deadline, request_timeout or "
                                        "max_tool_result_bytes (a tool result above the limit: the design's doing)")
    error: str | None = _doc("what went wrong, for any status but answered")
    finalText: str | None = _doc("the model's final text, verbatim (for provider_limit and refused, the text "
                                 "of the response that was cut short)")
    assessment: dict[str, Any] | None = _doc("the parsed answer, or null when it did not parse")
    score: Score = _doc("the answer judged against the expectation")
    claimed: Claimed = _doc("the runner's counters, re-added by `wismo validate`")


class ScoreRecorded(_Model):
    """scores.jsonl: a re-score of one finished conversation by `wismo score`."""

    type: Literal["score"] = "score"
    conversationId: str = _doc("the conversation scored")
    attempt: int = _doc("its live attempt")
    caseId: str = _doc("its case")
    expected: dict[str, Any] = _doc("the expectation it was scored against")
    asks: list[str] = _doc("the answer fields scored (those the conversation was asked)",
                           default_factory=lambda: list(DEFAULT_ASKS))
    score: Score = _doc("the new score")
    scorerVersion: int = _doc("the scorer's version")
    datasetHash: str = _doc("the hash of the dataset the expectation came from")


class SummaryChecked(_Model):
    """claims.jsonl: one customer summary was checked against its own evidence."""

    type: Literal["summary_checked"] = "summary_checked"
    conversationId: str = _doc("the conversation whose summary was read")
    attempt: int = _doc("its live attempt")
    checkerVersion: int = _doc("the claim checker's version")
    findings: int = _doc("claim_finding lines that follow for it")
    unchecked: int = _doc("claim_unchecked lines that follow for it (claims the checker could not check)",
                          default=0)


class ClaimFound(_Model):
    """claims.jsonl: one claim in a summary that the evidence does not support."""

    type: Literal["claim_finding"] = "claim_finding"
    conversationId: str = _doc("the conversation")
    attempt: int = _doc("its live attempt")
    checkerVersion: int = _doc("the claim checker's version")
    kind: str = _doc("the finding's kind (docs/claims.md lists them)")
    severity: str = _doc("high, medium or low")
    sentence: str = _doc("the sentence holding the claim")
    claim: str = _doc("the words of the claim")
    evidence: str = _doc("what the records say, naming record IDs")
    sku: str | None = _doc("the item concerned, if one")
    start: int = _doc("offset of the claim in the summary")
    end: int = _doc("offset just after the claim")


class ClaimUnchecked(_Model):
    """claims.jsonl: a claim the checker could not check (which item or which date it is about was unclear).

    Never a finding: counted and listed apart, so a reviewer knows what the check did not cover.
    """

    type: Literal["claim_unchecked"] = "claim_unchecked"
    conversationId: str = _doc("the conversation")
    attempt: int = _doc("its live attempt")
    checkerVersion: int = _doc("the claim checker's version")
    kind: str = _doc("the kind of finding it would have been, had the checker resolved it")
    sentence: str = _doc("the sentence holding the claim")
    claim: str = _doc("the words of the claim")
    reason: str = _doc("why it could not be checked")
    start: int = _doc("offset of the claim in the summary")
    end: int = _doc("offset just after the claim")


RunBody = (RunStarted | RunResumed | AttemptSuperseded | RunFinished | ScoreRecorded | SummaryChecked | ClaimFound
           | ClaimUnchecked)
ConversationBody = (ConversationStarted | ModelRequestSent | ModelResponseReceived | ToolCallMade
                    | ToolResultReceived | ConversationFinished)


# --- envelopes and whole lines --------------------------------------------------------------------------

class RunEnvelope(_Model):
    """The fields every line carries."""

    v: Literal[1] = _doc("the schema version", default=SCHEMA_VERSION)
    runId: str = _doc("the run the line belongs to")
    ts: str = _doc("UTC ISO 8601 time with microseconds, when the line was written")


class ConversationEnvelope(RunEnvelope):
    """The fields every conversation event carries besides the run's."""

    conversationId: str = _doc("`<caseId>.<design>.r<repetition>`")
    attempt: int = _doc("1, or more after --resume", ge=1)
    seq: int = _doc("1, 2, … within one attempt of one conversation, gap-free", ge=1)


class RunStartedLine(RunEnvelope, RunStarted): ...
class RunResumedLine(RunEnvelope, RunResumed): ...
class AttemptSupersededLine(RunEnvelope, AttemptSuperseded): ...
class RunFinishedLine(RunEnvelope, RunFinished): ...
class ConversationStartedLine(ConversationEnvelope, ConversationStarted): ...
class ModelRequestLine(ConversationEnvelope, ModelRequestSent): ...
class ModelResponseLine(ConversationEnvelope, ModelResponseReceived): ...
class ToolCallLine(ConversationEnvelope, ToolCallMade): ...
class ToolResultLine(ConversationEnvelope, ToolResultReceived): ...
class ConversationFinishedLine(ConversationEnvelope, ConversationFinished): ...
class ScoreLine(RunEnvelope, ScoreRecorded): ...
class SummaryCheckedLine(RunEnvelope, SummaryChecked): ...
class ClaimFindingLine(RunEnvelope, ClaimFound): ...
class ClaimUncheckedLine(RunEnvelope, ClaimUnchecked): ...


EVENT_LINES: tuple[type[BaseModel], ...] = (
    RunStartedLine, ConversationStartedLine, ModelRequestLine, ModelResponseLine, ToolCallLine, ToolResultLine,
    ConversationFinishedLine, AttemptSupersededLine, RunResumedLine, RunFinishedLine)
SCORE_LINES: tuple[type[BaseModel], ...] = (ScoreLine,)
CLAIM_LINES: tuple[type[BaseModel], ...] = (SummaryCheckedLine, ClaimFindingLine, ClaimUncheckedLine)

EventLine = Annotated[
    RunStartedLine | RunResumedLine | AttemptSupersededLine | RunFinishedLine | ConversationStartedLine
    | ModelRequestLine | ModelResponseLine | ToolCallLine | ToolResultLine | ConversationFinishedLine,
    Field(discriminator="type"),
]
DerivedLine = Annotated[ScoreLine | SummaryCheckedLine | ClaimFindingLine | ClaimUncheckedLine,
                        Field(discriminator="type")]
EVENT_ADAPTER: TypeAdapter[EventLine] = TypeAdapter(EventLine)
DERIVED_ADAPTER: TypeAdapter[DerivedLine] = TypeAdapter(DerivedLine)
