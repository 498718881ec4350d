"""The agent loop: stateless model requests, tool calls run concurrently, every step logged.

Each turn sends the instructions, the tool definitions and the whole history; whatever tools the
model asks for run at once; their calls and results join the history; the loop stops when the model
answers with text or a budget runs out. Every budget is enforced and recorded when hit.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

from recorder.dataset import DEFAULT_ASKS
from recorder.instructions import parse_answer
from recorder.linking import ToolSpec
from recorder.mcp_client import ServerDied, ToolServer
from recorder.providers.base import ModelRequest, ModelResponse, Provider, ProviderError
from recorder.scorer import score
from wismo.runformat.events import (
    ConversationFinished,
    ConversationStarted,
    ModelRequestSent,
    ModelResponseReceived,
    ToolCallMade,
    ToolResultReceived,
    Usage,
)
from wismo.runformat.write import ConversationLog

# The usage block of a request that got no response: nothing was reported, nothing is guessed.
NO_USAGE = Usage(inputTokens=None, outputTokens=None, cachedTokens=None, estimated=False)


@dataclass(frozen=True)
class Budgets:
    """Limits on one conversation; each is recorded as budgetHit when it stops one."""

    max_turns: int = 8
    max_tool_calls: int = 20
    request_timeout_s: float = 120.0
    conversation_deadline_s: float = 600.0

    def to_json(self) -> dict[str, Any]:
        """As stored in the manifest."""
        return {"maxTurns": self.max_turns, "maxToolCalls": self.max_tool_calls,
                "requestTimeoutS": self.request_timeout_s, "conversationDeadlineS": self.conversation_deadline_s}


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
    pair_position: int
    expected: dict[str, Any]  # the asked fields' expected values
    asks: tuple[str, ...] = DEFAULT_ASKS  # the answer fields the case asks; only these are scored

    def to_json(self) -> dict[str, Any]:
        """As listed in the manifest's plan."""
        return {"conversationId": self.conversation_id, "caseId": self.case_id, "design": self.design,
                "repetition": self.repetition, "pairIndex": self.pair_index, "pairPosition": self.pair_position}


@dataclass
class Outcome:
    """What a conversation ended with, and the counters the runner claims."""

    status: str
    passed: bool
    turns: int
    tool_calls: int
    input_tokens: int | None
    output_tokens: int | None
    cached_tokens: int | None
    elapsed_ms: float
    fatal_error: ProviderError | None = None


@dataclass
class _Tally:
    turns: int = 0
    tool_calls: int = 0
    tokens: dict[str, int | None] = field(
        default_factory=lambda: {"inputTokens": None, "outputTokens": None, "cachedTokens": None})

    def add_usage(self, usage: dict[str, Any]) -> None:
        for key in self.tokens:
            if usage.get(key) is not None:
                self.tokens[key] = (self.tokens[key] or 0) + usage[key]


class _Stop(Exception):
    def __init__(self, status: str, budget: str | None = None, error: str | None = None,
                 fatal: ProviderError | None = None) -> None:
        super().__init__(error or status)
        self.status, self.budget, self.error, self.fatal = status, budget, error, fatal


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
        elif item["type"] == "function_call":
            items.append(dict(item))
    return items


class Conversation:
    """One fresh conversation of one plan against one provider and one design's server."""

    def __init__(self, plan: ConversationPlan, provider: Provider, server: ToolServer, tools: list[ToolSpec],
                 instructions: str, answer_schema: dict[str, Any], budgets: Budgets, log: ConversationLog,
                 on_response: Any = None) -> None:
        self.plan, self.provider, self.server, self.tools = plan, provider, server, tools
        self.instructions, self.answer_schema, self.budgets, self.log = instructions, answer_schema, budgets, log
        self.on_response = on_response
        self.tally = _Tally()
        self._tool_names = {t.name for t in tools}

    async def run(self) -> Outcome:
        """Run to a final answer or a budget; log everything; never raise for a model's mistakes."""
        plan = self.plan
        started = time.perf_counter()
        self.log.write(ConversationStarted(caseId=plan.case_id, orderId=plan.order_id, design=plan.design,
                                           repetition=plan.repetition, pairIndex=plan.pair_index,
                                           pairPosition=plan.pair_position, asks=list(plan.asks)))
        status, budget, error, final_text, fatal = "answered", None, None, None, None
        try:
            final_text = await asyncio.wait_for(self._turns(started), timeout=self.budgets.conversation_deadline_s)
        except TimeoutError:
            status, budget, error = "timeout", "deadline", \
                f"conversation deadline of {self.budgets.conversation_deadline_s:g} s reached"
        except _Stop as stop:
            status, budget, error, fatal = stop.status, stop.budget, stop.error, stop.fatal

        assessment = None
        if status == "answered":
            assessment, parse_error = parse_answer(final_text, plan.asks)
            if assessment is None:
                status, error = "invalid_answer", parse_error
        scored = score(assessment, plan.expected, plan.asks)
        elapsed_ms = (time.perf_counter() - started) * 1000
        claimed = {"turns": self.tally.turns, "toolCalls": self.tally.tool_calls, **self.tally.tokens,
                   "elapsedMs": round(elapsed_ms, 3)}
        self.log.write(ConversationFinished(status=status, budgetHit=budget, error=error, finalText=final_text,
                                            assessment=assessment, score=scored, claimed=claimed))
        return Outcome(status, scored["passed"], self.tally.turns, self.tally.tool_calls,
                       self.tally.tokens["inputTokens"], self.tally.tokens["outputTokens"],
                       self.tally.tokens["cachedTokens"], elapsed_ms, fatal)

    async def _turns(self, started: float) -> str:
        history: list[dict[str, Any]] = [{"type": "message", "role": "user", "content": self.plan.question}]
        new_items = list(history)
        while True:
            if self.tally.turns >= self.budgets.max_turns:
                raise _Stop("budget_exhausted", "max_turns",
                            f"no final answer within {self.budgets.max_turns} model turns")
            response = await self._request(history, new_items)
            calls = [item for item in response.output_items if item["type"] == "function_call"]
            if not calls:
                return "".join(item.get("text", "") for item in response.output_items if item["type"] == "text")
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
                               self.budgets.request_timeout_s)
        self.log.write(ModelRequestSent(turn=turn, newItems=new_items, historyLength=len(history),
                                        requestBytes=_request_bytes(request)))
        sent = time.perf_counter()
        try:
            response = await asyncio.wait_for(self.provider.complete(request),
                                              timeout=self.budgets.request_timeout_s)
        except TimeoutError:
            failure = ProviderError("timeout", f"no response within {self.budgets.request_timeout_s:g} s")
            self._log_failed_response(turn, sent, failure)
            raise _Stop("timeout", "request_timeout", str(failure)) from None
        except asyncio.CancelledError:
            # The conversation deadline cancelled this request: the trace still gets its response line,
            # so every request has one and the claimed turns match the lines.
            self._log_failed_response(turn, sent, ProviderError("timeout", "cancelled: conversation deadline reached"))
            raise
        except ProviderError as failure:
            self._log_failed_response(turn, sent, failure)
            status = "timeout" if failure.kind == "timeout" else "provider_error"
            raise _Stop(status, "request_timeout" if failure.kind == "timeout" else None,
                        f"{failure.kind}: {failure}", failure if failure.fatal else None) from None
        usage = response.usage.to_json()
        self.tally.add_usage(usage)
        self.log.write(ModelResponseReceived(
            turn=turn, outputItems=response.output_items, usage=usage, model=response.model,
            responseId=response.response_id, latencyMs=round((time.perf_counter() - sent) * 1000, 3),
            retries=response.retries, retryWaitsS=[round(w, 3) for w in response.retry_waits_s], error=None,
            rawOutput=response.raw_output))
        if self.on_response:
            self.on_response(self.plan, turn, usage)
        return response

    def _log_failed_response(self, turn: int, sent: float, failure: ProviderError) -> None:
        self.log.write(ModelResponseReceived(
            turn=turn, outputItems=[], usage=NO_USAGE, model=None, responseId=None,
            latencyMs=round((time.perf_counter() - sent) * 1000, 3), retries=failure.retries, retryWaitsS=[],
            error=failure.to_json(), rawOutput=None))

    async def _run_tools(self, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
        turn = self.tally.turns
        for call in calls:
            self.tally.tool_calls += 1
            self.log.write(ToolCallMade(turn=turn, callId=call["callId"], name=call["name"],
                                        arguments=call["arguments"]))
        results = await asyncio.gather(*(self._run_tool(turn, call) for call in calls))
        died = [r for r in results if r["errorKind"] == "server_died"]
        outputs = [{"type": "function_call_output", "callId": r["callId"], "output": r["text"],
                    "isError": r["isError"]} for r in results]
        if died:
            raise _Stop("tool_error", None, died[0]["text"])
        return outputs

    async def _run_tool(self, turn: int, call: dict[str, Any]) -> dict[str, Any]:
        started = time.perf_counter()
        try:
            text, is_error, kind = await self._call_tool(call)
        except asyncio.CancelledError:
            # Cancelled by the conversation deadline: record the call's end so no call is left without a result.
            self.log.write(ToolResultReceived(
                turn=turn, callId=call["callId"], name=call["name"], text="cancelled: conversation deadline reached",
                isError=True, errorKind="cancelled", bytes=0,
                latencyMs=round((time.perf_counter() - started) * 1000, 3)))
            raise
        result = {"callId": call["callId"], "text": text, "isError": is_error, "errorKind": kind}
        self.log.write(ToolResultReceived(
            turn=turn, callId=call["callId"], name=call["name"], text=text, isError=is_error, errorKind=kind,
            bytes=len(text.encode("utf-8")), latencyMs=round((time.perf_counter() - started) * 1000, 3)))
        return result

    async def _call_tool(self, call: dict[str, Any]) -> tuple[str, bool, str | None]:
        if call["name"] not in self._tool_names:
            return (f"unknown tool {call['name']!r}; the tools are: {', '.join(sorted(self._tool_names))}",
                    True, "unknown_tool")
        try:
            arguments = json.loads(call["arguments"] or "{}")
        except json.JSONDecodeError as exc:
            return f"the arguments are not valid JSON ({exc.msg}); send a JSON object", True, "invalid_arguments"
        if not isinstance(arguments, dict):
            return "the arguments must be a JSON object", True, "invalid_arguments"
        try:
            outcome = await self.server.call(call["name"], arguments)
        except ServerDied as exc:
            return f"the tool server failed: {exc}", True, "server_died"
        return outcome.text, outcome.is_error, "tool" if outcome.is_error else None
