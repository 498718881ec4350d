"""The agent loop: stateless model requests, tool calls run concurrently, every step logged.

Each turn sends the instructions, the tool definitions and the whole history; whatever tools the
model asks for run at once; their calls and results join the history; the loop stops when the model
answers with text or a budget runs out. Every budget is enforced and recorded when hit.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.domain.answer import parse_answer
from core.domain.fields import DEFAULT_ASKS
from core.domain.linking import ToolSpec
from core.domain.scorer import score
from core.runformat.events import (
    AbandonedRequest,
    BackendLookups,
    BudgetName,
    Claimed,
    ConversationFinished,
    ConversationStarted,
    McpRequest,
    ModelRequestSent,
    ModelResponseReceived,
    ResponseError,
    Score,
    ServerTimings,
    Status,
    ToolCallMade,
    ToolErrorKind,
    ToolResultReceived,
    Usage,
)
from core.runformat.write import ConversationLog, RunWriteError, now_us
from recorder.designs.mcp_client import ServerDied, ToolServer
from recorder.providers.base import ModelRequest, ModelResponse, Provider, ProviderError
from recorder.providers.text_calls import as_output_items, parse_text_calls

# The usage block of a request that got no response: nothing was reported, nothing is guessed.
NO_USAGE = Usage(inputTokens=None, outputTokens=None, cachedTokens=None, estimated=False)
DEFAULT_MAX_OUTPUT_TOKENS = 4096
# The bytes one tool result may hold. The largest any built-in design returns (focused, for an order of
# 200 lines, the largest `dataset generate` makes) is 0.14 MB; a megabyte is some 250,000 tokens, past
# most models' context windows, so a result above it is the design's doing and would only fill the trace
# (and every later request) with it.
DEFAULT_MAX_TOOL_RESULT_BYTES = 1_000_000
# What the trace keeps of a result above the limit: its beginning, then a marker saying what was cut.
KEPT_OF_CUT_RESULT_CHARS = 1_000


@dataclass(frozen=True)
class Budgets:
    """Limits on one conversation; each is recorded as budgetHit when it stops one."""

    max_turns: int = 8
    max_tool_calls: int = 20
    request_timeout_s: float = 120.0
    conversation_deadline_s: float = 600.0
    # Sent on every model request as the API names it (max_tokens, max_output_tokens): without a cap a
    # small local model can generate until the request timeout and hold the server's only slot.
    # None only for runs recorded before the cap existed (a resume sends what the run sent).
    max_output_tokens: int | None = DEFAULT_MAX_OUTPUT_TOKENS
    # A tool result above this many UTF-8 bytes is never sent to the model and ends its conversation as
    # budget_exhausted (max_tool_result_bytes); the trace keeps its beginning. None: no limit (runs recorded
    # before it existed: a resume applies what the run recorded).
    max_tool_result_bytes: int | None = DEFAULT_MAX_TOOL_RESULT_BYTES

    def to_json(self) -> dict[str, Any]:
        """As stored in the manifest."""
        return {"maxTurns": self.max_turns, "maxToolCalls": self.max_tool_calls,
                "requestTimeoutS": self.request_timeout_s, "conversationDeadlineS": self.conversation_deadline_s,
                "maxOutputTokens": self.max_output_tokens, "maxToolResultBytes": self.max_tool_result_bytes}


@dataclass(frozen=True)
class ConversationPlan:
    """One planned conversation: a case, a design, a repetition, and its place in the pair."""

    conversation_id: str
    case_id: str
    order_id: str
    question: str
    design: str
    repetition: int
    pair_index: int
    pair_position: int  # its design's place in the group's order: 1 when it went first
    expected: dict[str, Any]  # the asked fields' expected values
    asks: tuple[str, ...] = DEFAULT_ASKS  # the answer fields the case asks; only these are scored

    def to_json(self) -> dict[str, Any]:
        """As listed in the manifest's plan."""
        return {"conversationId": self.conversation_id, "caseId": self.case_id, "design": self.design,
                "repetition": self.repetition, "pairIndex": self.pair_index, "pairPosition": self.pair_position}


@dataclass
class Outcome:
    """What a conversation ended with, and the counters the runner claims."""

    status: Status
    passed: bool
    turns: int
    tool_calls: int
    input_tokens: int | None
    output_tokens: int | None
    cached_tokens: int | None
    elapsed_ms: float
    fatal_error: ProviderError | None = None
    error: str | None = None
    provider_error: ProviderError | None = None  # the failure that ended it, fatal or not
    budget_hit: BudgetName | None = None


@dataclass
class _Tally:
    turns: int = 0
    tool_calls: int = 0
    tokens: dict[str, int | None] = field(
        default_factory=lambda: {"inputTokens": None, "outputTokens": None, "cachedTokens": None,
                                 "reasoningTokens": None})

    lookups: dict[str, int] = field(default_factory=lambda: dict.fromkeys(BackendLookups.model_fields, 0))
    # A result the server answered without error but without lookups: the server does not report them,
    # so the conversation's total is unknown (an error without them, e.g. arguments the SDK refused
    # before the tool ran, did no backend work).
    lookups_unreported: bool = False
    # Whether any result reported lookups: a conversation whose results are all errors without them
    # (a server that never reports) has an unknown total, never 0.
    lookups_reported: bool = False
    results_from_server: int = 0

    def add_usage(self, usage: dict[str, Any]) -> None:
        for key in self.tokens:
            if usage.get(key) is not None:
                self.tokens[key] = (self.tokens[key] or 0) + usage[key]

    def add_lookups(self, lookups: BackendLookups | None, is_error: bool, from_server: bool = True) -> None:
        """Add one result's lookups; `from_server` is False for an error wismo made itself (unknown tool)."""
        self.results_from_server += from_server
        if lookups is None:
            self.lookups_unreported = self.lookups_unreported or not is_error
            return
        self.lookups_reported = True
        for key, value in lookups.model_dump().items():
            self.lookups[key] += value

    def claimed_lookups(self) -> BackendLookups | None:
        """The total, or None ("not recorded") when a result lacked lookups or no server result reported any."""
        if self.lookups_unreported or (self.results_from_server and not self.lookups_reported):
            return None
        return BackendLookups.model_validate(self.lookups)


class _Stop(Exception):
    def __init__(self, status: Status, budget: BudgetName | None = None, error: str | None = None,
                 failure: ProviderError | None = None, text: str | None = None) -> None:
        super().__init__(error or status)
        self.status, self.budget, self.error, self.failure, self.text = status, budget, error, failure, text


def _request_bytes(request: ModelRequest) -> int:
    neutral = {"instructions": request.instructions,
               "tools": [{"name": t.name, "description": t.description, "parameters": t.parameters}
                         for t in request.tools],
               "history": request.history}
    return len(json.dumps(neutral, ensure_ascii=False).encode("utf-8"))


def _history_items(response: ModelResponse) -> list[dict[str, Any]]:
    items = []
    for item in response.output_items:
        if item["type"] == "text":
            items.append({"type": "message", "role": "assistant", "content": item["text"]})
        elif item["type"] in ("function_call", "reasoning"):
            items.append(dict(item))  # reasoning (Responses API only) goes back in order, before its calls
    return items


def cut_result(text: str, size: int, limit: int) -> str:
    """What the trace keeps of a result above the limit: its beginning and a marker naming what was cut."""
    kept = text[:min(KEPT_OF_CUT_RESULT_CHARS, limit)]
    return (f"{kept}\n…[wismo: cut here; the result held {size:,} bytes, above the tool-result limit of {limit:,} "
            "(--max-tool-result-bytes), and was not sent to the model]")


def _text(response: ModelResponse) -> str:
    return "".join(item.get("text", "") for item in response.output_items if item["type"] == "text")


class Conversation:
    """One fresh conversation of one plan against one provider and one design's server."""

    def __init__(self, plan: ConversationPlan, provider: Provider, server: ToolServer, tools: list[ToolSpec],
                 instructions: str, answer_schema: dict[str, Any], budgets: Budgets, log: ConversationLog,
                 on_response: Any = None, interruption: Callable[[], str] | None = None,
                 after_abandoned: AbandonedRequest | None = None, text_tool_calls: bool = False) -> None:
        self.plan, self.provider, self.server, self.tools = plan, provider, server, tools
        self.instructions, self.answer_schema, self.budgets, self.log = instructions, answer_schema, budgets, log
        self.on_response, self.after_abandoned = on_response, after_abandoned
        self.text_tool_calls = text_tool_calls
        # What to say when the conversation is cancelled from outside (the runner knows why).
        self.interruption = interruption or (lambda: "the run was interrupted (Ctrl-C or a signal)")
        self.tally = _Tally()
        self._tool_names = {t.name for t in tools}
        self._deadline: asyncio.Timeout | None = None
        self._oversized: list[tuple[str, int]] = []  # (tool, bytes) of the results above the limit

    async def run(self) -> Outcome:
        """Run to a final answer or a budget; log everything; never raise for a model's or a provider's mistakes.

        Only a failed write (RunWriteError) escapes: without its trace a conversation cannot count.
        """
        plan = self.plan
        started = now_us()
        self.log.write(ConversationStarted(caseId=plan.case_id, orderId=plan.order_id, design=plan.design,
                                           repetition=plan.repetition, pairIndex=plan.pair_index,
                                           pairPosition=plan.pair_position, asks=list(plan.asks),
                                           afterAbandonedRequest=self.after_abandoned), at=started)
        status: Status = "answered"
        budget: BudgetName | None = None
        error: str | None = None
        final_text: str | None = None
        failure: ProviderError | None = None
        try:
            async with asyncio.timeout(self.budgets.conversation_deadline_s) as self._deadline:
                final_text = await self._turns()
        except TimeoutError as exc:
            if self._deadline_reached():
                status, budget, error = "timeout", "deadline", \
                    f"conversation deadline of {self.budgets.conversation_deadline_s:g} s reached"
            else:  # a timeout from somewhere unexpected: still this conversation's fault only
                status, error = "provider_error", f"unexpected: TimeoutError: {exc}"
        except _Stop as stop:
            status, budget, error, failure = stop.status, stop.budget, stop.error, stop.failure
            final_text = stop.text
        except asyncio.CancelledError:
            # Ctrl-C, a signal or the run stopping: this attempt ends here, recorded as such, and the
            # runner waits for this line before it closes anything.
            status, error = "interrupted", self.interruption()
        except RunWriteError:
            raise
        except Exception as exc:  # a bug must end this conversation only, never the run
            status, error = "provider_error", f"unexpected: {type(exc).__name__}: {exc}"

        assessment = None
        if status == "answered":
            assessment, parse_error = parse_answer(final_text, plan.asks)
            if assessment is None:
                status, error = "invalid_answer", parse_error
        scored = score(assessment, plan.expected, plan.asks)
        finished = now_us()
        # Both readings stamp the lines' ts, so the claimed time is exactly what the timestamps say.
        elapsed_ms = (finished - started) / 1000
        tokens = self.tally.tokens
        claimed = Claimed(turns=self.tally.turns, toolCalls=self.tally.tool_calls, inputTokens=tokens["inputTokens"],
                          outputTokens=tokens["outputTokens"], cachedTokens=tokens["cachedTokens"],
                          reasoningTokens=tokens["reasoningTokens"], lookups=self.tally.claimed_lookups(),
                          elapsedMs=elapsed_ms, elapsedExact=True)
        self.log.write(ConversationFinished(status=status, budgetHit=budget, error=error, finalText=final_text,
                                            assessment=assessment, score=Score.model_validate(scored),
                                            claimed=claimed), at=finished)
        return Outcome(status, scored["passed"], self.tally.turns, self.tally.tool_calls,
                       self.tally.tokens["inputTokens"], self.tally.tokens["outputTokens"],
                       self.tally.tokens["cachedTokens"], elapsed_ms,
                       fatal_error=failure if failure is not None and failure.fatal else None,
                       error=error, provider_error=failure, budget_hit=budget)

    def _deadline_reached(self) -> bool:
        return self._deadline is not None and self._deadline.expired()

    def _cancelled(self) -> ProviderError:
        """Why a request or tool call in flight was cancelled: the deadline, or the run being interrupted."""
        if self._deadline_reached():
            return ProviderError("timeout", "cancelled: conversation deadline reached")
        return ProviderError("interrupted", f"cancelled: {self.interruption()}")

    async def _turns(self) -> str:
        history: list[dict[str, Any]] = [{"type": "message", "role": "user", "content": self.plan.question}]
        new_items = list(history)
        while True:
            if self.tally.turns >= self.budgets.max_turns:
                raise _Stop("budget_exhausted", "max_turns",
                            f"no final answer within {self.budgets.max_turns} model turns")
            response = await self._request(history, new_items)
            if response.early_stop is not None:
                # Cut short by the provider (a token limit, a refusal): not the model's answer to score.
                raise _Stop(response.early_stop, None, f"the provider ended the response early: stop reason "
                            f"{response.stop_reason}", text=_text(response) or None)
            calls = [item for item in response.output_items if item["type"] == "function_call"]
            if not calls:
                return _text(response)
            if self.tally.tool_calls + len(calls) > self.budgets.max_tool_calls:
                raise _Stop("budget_exhausted", "max_tool_calls",
                            f"the model asked for {len(calls)} more tool call(s) with "
                            f"{self.tally.tool_calls} of {self.budgets.max_tool_calls} used")
            new_items = _history_items(response)
            history += new_items
            outputs = await self._run_tools(calls)
            history += outputs
            new_items += outputs

    async def _request(self, history: list[dict[str, Any]], new_items: list[dict[str, Any]]) -> ModelResponse:
        self.tally.turns += 1
        turn = self.tally.turns
        request = ModelRequest(self.instructions, self.tools, list(history), self.answer_schema, turn,
                               self.budgets.request_timeout_s, self.budgets.max_output_tokens,
                               text_tool_calls=self.text_tool_calls)
        self.log.write(ModelRequestSent(turn=turn, newItems=new_items, historyLength=len(history),
                                        requestBytes=_request_bytes(request)))
        sent = time.perf_counter()
        try:
            response = await asyncio.wait_for(self.provider.complete(request),
                                              timeout=self.budgets.request_timeout_s)
        except TimeoutError:
            if self._deadline_reached():
                raise  # the conversation's deadline, not this request's timeout: run() records it
            failure = ProviderError("timeout", f"no response within {self.budgets.request_timeout_s:g} s")
            self._log_failed_response(turn, sent, failure)
            raise _Stop("timeout", "request_timeout", str(failure), failure) from None
        except asyncio.CancelledError:
            # The deadline or an interruption cancelled this request: the trace still gets its response
            # line, so every request has one and the claimed turns match the lines.
            self._log_failed_response(turn, sent, self._cancelled())
            raise
        except ProviderError as failure:
            self._log_failed_response(turn, sent, failure)
            status: Status = "timeout" if failure.kind == "timeout" else "provider_error"
            raise _Stop(status, "request_timeout" if failure.kind == "timeout" else None,
                        f"{failure.kind}: {failure}", failure) from None
        except Exception as exc:  # the adapter could not read what came back: this conversation's fault only
            unexpected = ProviderError("unexpected", f"{type(exc).__name__}: {exc}")
            self._log_failed_response(turn, sent, unexpected)
            raise _Stop("provider_error", None, f"{unexpected.kind}: {unexpected}", unexpected) from None
        if self.text_tool_calls:
            response = self._with_text_calls(response, turn)
        usage = response.usage.to_json()
        self.tally.add_usage(usage)
        # A 200 with nothing in it (no choices, no output items, no content blocks) is the provider's
        # fault, not an answer the model gave: it must not be scored as the model's invalid answer.
        empty = not response.output_items and not response.raw_output
        malformed = ProviderError("malformed_response", "the provider answered without any output "
                                  "(no choices, output items or content blocks)") if empty else None
        self.log.write(ModelResponseReceived(
            turn=turn, outputItems=response.output_items, usage=Usage.model_validate(usage), model=response.model,
            responseId=response.response_id, latencyMs=round((time.perf_counter() - sent) * 1000, 3),
            retries=response.retries, retryWaitsS=[round(w, 3) for w in response.retry_waits_s],
            error=ResponseError.model_validate(malformed.to_json()) if malformed else None,
            rawOutput=response.raw_output,
            stopReason=response.stop_reason, answerFormat=response.answer_format,
            serverTimings=ServerTimings.model_validate(response.server_timings) if response.server_timings else None))
        if self.on_response:
            self.on_response(self.plan, turn, usage)
        if malformed is not None:
            raise _Stop("provider_error", None, f"{malformed.kind}: {malformed}", malformed)
        return response

    def _with_text_calls(self, response: ModelResponse, turn: int) -> ModelResponse:
        """The response with the calls its text holds added as function_call items (marked fromText).

        Only when it made no native call and was not cut short: a server that parsed the calls, or a
        reply the cap ended, is taken as it came.
        """
        if response.early_stop is not None or any(i["type"] == "function_call" for i in response.output_items):
            return response
        calls = parse_text_calls(_text(response), self._tool_names)
        if not calls:
            return response
        return dataclasses.replace(response, output_items=[*response.output_items, *as_output_items(calls, turn)])

    def _log_failed_response(self, turn: int, sent: float, failure: ProviderError) -> None:
        self.log.write(ModelResponseReceived(
            turn=turn, outputItems=[], usage=NO_USAGE, model=None, responseId=None,
            latencyMs=round((time.perf_counter() - sent) * 1000, 3), retries=failure.retries,
            retryWaitsS=[round(w, 3) for w in failure.retry_waits_s],
            error=ResponseError.model_validate(failure.to_json()), rawOutput=None))

    async def _run_tools(self, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
        turn = self.tally.turns
        for call in calls:
            self.tally.tool_calls += 1
            self.log.write(ToolCallMade(turn=turn, callId=call["callId"], name=call["name"],
                                        arguments=call["arguments"], fromText=bool(call.get("fromText"))))
        results: dict[int, dict[str, Any]] = {}
        try:
            await asyncio.gather(*(self._run_tool(turn, index, call, results) for index, call in enumerate(calls)))
        except asyncio.CancelledError:
            # Cancelled by the deadline or an interruption: every call still gets its result line (a call
            # cancelled before it even started included), so no call is left without one.
            reason = self._cancelled()
            for index, call in enumerate(calls):
                if index not in results:
                    self.log.write(ToolResultReceived(
                        turn=turn, callId=call["callId"], name=call["name"], text=str(reason), isError=True,
                        errorKind="cancelled", bytes=0, latencyMs=0.0))
            raise
        ordered = [results[index] for index in range(len(calls))]
        died = [r for r in ordered if r["errorKind"] == "server_died"]
        outputs = [{"type": "function_call_output", "callId": r["callId"], "output": r["text"],
                    "isError": r["isError"]} for r in ordered]
        if died:
            raise _Stop("tool_error", None, died[0]["text"])
        if self._oversized:  # the design's doing: never sent on, and not a fault --resume would only repeat
            name, size = self._oversized[0]
            raise _Stop("budget_exhausted", "max_tool_result_bytes",
                        f"the design's tool {name} returned {size:,} bytes, above the tool-result limit of "
                        f"{self.budgets.max_tool_result_bytes:,} (--max-tool-result-bytes); the result was not sent "
                        "to the model")
        return outputs

    async def _run_tool(self, turn: int, index: int, call: dict[str, Any], results: dict[int, dict[str, Any]]) -> None:
        started = time.perf_counter()
        text, is_error, kind, lookups, request = await self._call_tool(call)
        size = len(text.encode("utf-8"))
        limit = self.budgets.max_tool_result_bytes
        cut_from = None
        if limit is not None and size > limit:
            cut_from, text = size, cut_result(text, size, limit)
            self._oversized.append((call["name"], size))
        results[index] = {"callId": call["callId"], "text": text, "isError": is_error, "errorKind": kind}
        self.tally.add_lookups(lookups, is_error, from_server=kind in (None, "tool"))
        self.log.write(ToolResultReceived(
            turn=turn, callId=call["callId"], name=call["name"], text=text, isError=is_error, errorKind=kind,
            bytes=len(text.encode("utf-8")), latencyMs=round((time.perf_counter() - started) * 1000, 3),
            lookups=lookups, mcp=request, cutFromBytes=cut_from))

    async def _call_tool(self, call: dict[str, Any]) -> tuple[str, bool, ToolErrorKind | None, BackendLookups | None,
                                                              McpRequest | None]:
        """The result text, whether it is an error, its kind, the lookups the server reported for it, and the
        tools/call request it was sent as (None when none was sent)."""
        if call["name"] not in self._tool_names:
            return (f"unknown tool {call['name']!r}; the tools are: {', '.join(sorted(self._tool_names))}",
                    True, "unknown_tool", None, None)
        try:
            arguments = json.loads(call["arguments"] or "{}")
        except json.JSONDecodeError as exc:
            return (f"the arguments are not valid JSON ({exc.msg}); send a JSON object", True, "invalid_arguments",
                    None, None)
        except RecursionError:
            return "the arguments are nested too deeply to read; send a flat JSON object", True, \
                "invalid_arguments", None, None
        if not isinstance(arguments, dict):
            return "the arguments must be a JSON object", True, "invalid_arguments", None, None
        try:
            outcome = await self.server.call(call["name"], arguments)
        except ServerDied as exc:
            return f"the tool server failed: {exc}", True, "server_died", None, exc.request
        except Exception as exc:  # e.g. a restart that failed: still this conversation's tool fault only
            return f"the tool server failed: {type(exc).__name__}: {exc}", True, "server_died", None, None
        return outcome.text, outcome.is_error, "tool" if outcome.is_error else None, outcome.lookups, outcome.request
