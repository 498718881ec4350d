"""A run as OTLP/JSON traces under the OpenTelemetry GenAI and MCP semantic conventions.

One trace per conversation: an `invoke_agent` root span (case, design, repetition, outcome) holding a
`chat` span per model request and an `execute_tool` span per tool call (linked to the chat span whose
response asked for it, which has ended by the time the tool runs). The tool spans carry the MCP
client attributes (the MCP conventions say to add them to the GenAI tool span rather than make a
second one). Every span is timed from the run's own line timestamps. The score and each claim
finding are `gen_ai.evaluation.result` events on the root span.

What is left out on purpose: message contents, tool arguments and results, and the claim checker's
quotes, unless `include_content` (the conventions make contents opt-in); the run itself never holds
keys (core.runformat.redact). Attributes the run did not record are left out rather than guessed:
`jsonrpc.request.id`, `mcp.protocol.version` and `mcp.session.id` come from the tool result's recorded
request (`mcp`), so a run recorded before wismo kept it, a call that never reached a server, and a
stdio server (no session) export without them.

The output follows the OTLP/JSON encoding: trace and span IDs as hex, enums as integers, 64-bit
integers as decimal strings, and lowerCamelCase field names.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from core import __version__
from core.runformat.events import FAULT_STATUSES, ClaimFindingLine, HistoryItem
from core.runformat.manifest import pricing_vendor
from wismo.export.conversations import Conversation, RunRead, Turn, parse_ts
from wismo.export.options import ExportOptions

SPAN_KIND_INTERNAL = 1
SPAN_KIND_CLIENT = 3
STATUS_ERROR = 2
SCOPE_NAME = "wismo.export"
AGENT_NAME = "wismo"


def _value(value: Any) -> dict[str, Any]:
    """One OTLP AnyValue (bool before int: a bool is an int in Python)."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list | tuple):
        return {"arrayValue": {"values": [_value(v) for v in value]}}
    return {"stringValue": str(value)}


def attributes(pairs: dict[str, Any]) -> list[dict[str, Any]]:
    """OTLP KeyValues of the pairs whose value was recorded (None is left out, never sent as a guess)."""
    return [{"key": key, "value": _value(value)} for key, value in pairs.items() if value is not None]


def _nanos(ts: str) -> str:
    moment = parse_ts(ts)
    seconds = int(moment.timestamp())
    return str(seconds * 1_000_000_000 + moment.microsecond * 1_000)


def _id(*parts: str, size: int) -> str:
    """A stable ID from the run, conversation and attempt, so exporting twice gives the same trace."""
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[: size * 2]


def provider_name(run: RunRead) -> str:
    """gen_ai.provider.name: the vendor the provider recorded (the convention's well-known values, openai and
    anthropic, are genai-prices' ids too) when it talked to that vendor's own API; any other provider, or one
    pointed at another server by a base URL, keeps its registry name under wismo's own prefix."""
    name = run.manifest.provider.name
    vendor = pricing_vendor(name, run.manifest.provider.pricingVendor)
    return vendor if vendor is not None and run.manifest.baseUrl is None else f"wismo.{name}"


def _transport(run: RunRead, design: str) -> tuple[str, str | None, int | None]:
    """network.transport for a design's server (pipe for stdio, tcp for streamable HTTP) and its address."""
    source = run.manifest.designSources.get(design)
    if source is not None and source.url:
        parts = urlsplit(source.url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        return "tcp", parts.hostname, port
    return "pipe", None, None


class _TraceBuilder:
    def __init__(self, run: RunRead, conversation: Conversation, options: ExportOptions) -> None:
        self.run = run
        self.conversation = conversation
        self.options = options
        started = conversation.started
        self.trace_id = _id(run.manifest.runId, started.conversationId, str(started.attempt), size=16)
        self.estimated = any(t.response is not None and t.response.usage.estimated for t in conversation.turns)

    def span_id(self, *parts: str) -> str:
        return _id(self.trace_id, *parts, size=8)

    def end_ts(self) -> str:
        """The finish line's time, or (a conversation cut off before it) the last line it wrote."""
        conversation = self.conversation
        if conversation.finished is not None:
            return conversation.finished.ts
        stamps = [conversation.started.ts]
        for turn in conversation.turns:
            stamps.append(turn.request.ts)
            if turn.response is not None:
                stamps.append(turn.response.ts)
            stamps += [t.result.ts if t.result else t.call.ts for t in turn.tools]
        return max(stamps, key=parse_ts)

    def spans(self) -> list[dict[str, Any]]:
        root_id = self.span_id("invoke_agent")
        spans = [self.root_span(root_id)]
        history: list[HistoryItem] = []
        for turn in self.conversation.turns:
            history += turn.request.newItems
            chat_id = self.span_id("chat", str(turn.request.turn))
            spans.append(self.chat_span(turn, chat_id, root_id, list(history)))
            spans += [self.tool_span(turn, index, root_id, chat_id) for index in range(len(turn.tools))]
        return spans

    def _span(self, span_id: str, parent: str | None, name: str, kind: int, start: str, end: str,
              attrs: dict[str, Any], error: str | None = None, events: list[dict[str, Any]] | None = None,
              ) -> dict[str, Any]:
        span: dict[str, Any] = {"traceId": self.trace_id, "spanId": span_id, "name": name, "kind": kind,
                                "startTimeUnixNano": _nanos(start), "endTimeUnixNano": _nanos(end),
                                "attributes": attributes(attrs)}
        if parent is not None:
            span["parentSpanId"] = parent
        if events:
            span["events"] = events
        if error:  # otherwise left unset: the trace API says instrumentation should not set Ok
            span["status"] = {"code": STATUS_ERROR, "message": error}
        return span

    def _usage_sums(self) -> dict[str, Any]:
        """The conversation's token sums per kind; a kind no response reported stays absent, never 0."""
        usages = [t.response.usage for t in self.conversation.turns if t.response is not None]

        def total(values: list[int | None]) -> int | None:
            present = [v for v in values if v is not None]
            return sum(present) if present else None

        return {"gen_ai.usage.input_tokens": total([u.inputTokens for u in usages]),
                "gen_ai.usage.output_tokens": total([u.outputTokens for u in usages]),
                "gen_ai.usage.cache_read.input_tokens": total([u.cachedTokens for u in usages]),
                "gen_ai.usage.reasoning.output_tokens": total([u.reasoningTokens for u in usages]),
                # not the convention's: says these counts are wismo's offline estimate, not a provider's
                "wismo.usage.estimated": self.estimated}

    def root_span(self, span_id: str) -> dict[str, Any]:
        conversation, manifest = self.conversation, self.run.manifest
        started, finished = conversation.started, conversation.finished
        status = finished.status if finished else "unfinished"
        score = conversation.score
        error = status if status in (*FAULT_STATUSES, "unfinished") else None
        attrs = {
            "gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": provider_name(self.run),
            "gen_ai.agent.name": AGENT_NAME, "gen_ai.conversation.id": started.conversationId,
            "gen_ai.request.model": manifest.model, **self._usage_sums(),
            "wismo.run.id": manifest.runId, "wismo.case.id": started.caseId, "wismo.order.id": started.orderId,
            "wismo.design": started.design, "wismo.repetition": started.repetition,
            "wismo.attempt": started.attempt, "wismo.asks": started.asks, "wismo.outcome": status,
            "wismo.passed": score.passed if score else None,
            "wismo.budget_hit": finished.budgetHit if finished else None,
            "wismo.turns": len(conversation.turns),
            "wismo.tool_calls": sum(len(t.tools) for t in conversation.turns),
            "error.type": error,
        }
        if self.options.include_content and finished is not None:
            attrs["gen_ai.output.messages"] = json.dumps(
                [{"role": "assistant", "parts": [{"type": "text", "content": finished.finalText or ""}]}])
        return self._span(span_id, None, f"invoke_agent {AGENT_NAME}", SPAN_KIND_INTERNAL, started.ts,
                          self.end_ts(), attrs, error, self.evaluation_events())

    def evaluation_events(self) -> list[dict[str, Any]]:
        conversation = self.conversation
        events = []
        last_response = next((t.response for t in reversed(conversation.turns) if t.response), None)
        response_id = last_response.responseId if last_response else None
        if conversation.score is not None and conversation.finished is not None:
            score = conversation.score
            wrong = [name for name, right in score.fields.items() if not right]
            explanation = ("every asked field matched the evidence" if score.passed
                           else "fields that did not match: " + ", ".join(wrong))
            events.append({"timeUnixNano": _nanos(conversation.finished.ts), "name": "gen_ai.evaluation.result",
                           "attributes": attributes({
                               "gen_ai.evaluation.name": "wismo.answer_score",
                               "gen_ai.evaluation.score.value": 1.0 if score.passed else 0.0,
                               "gen_ai.evaluation.score.label": "pass" if score.passed else "fail",
                               "gen_ai.evaluation.explanation": explanation,
                               "gen_ai.response.id": response_id,
                               "wismo.rescored": conversation.rescored})})
        events += [self.finding_event(f, response_id) for f in conversation.findings]
        return events

    def finding_event(self, finding: ClaimFindingLine, response_id: str | None) -> dict[str, Any]:
        # The claim and its evidence quote the summary and the records: content, so only when asked.
        explanation = (f"{finding.claim!r}: {finding.evidence}" if self.options.include_content
                       else f"{finding.kind} ({finding.severity})")
        return {"timeUnixNano": _nanos(finding.ts), "name": "gen_ai.evaluation.result",
                "attributes": attributes({
                    "gen_ai.evaluation.name": "wismo.claim_check",
                    "gen_ai.evaluation.score.value": 0.0, "gen_ai.evaluation.score.label": finding.kind,
                    "gen_ai.evaluation.explanation": explanation, "gen_ai.response.id": response_id,
                    "wismo.claim.severity": finding.severity, "wismo.claim.sku": finding.sku})}

    def chat_span(self, turn: Turn, span_id: str, parent: str, history: list[HistoryItem]) -> dict[str, Any]:
        manifest, response = self.run.manifest, turn.response
        attrs: dict[str, Any] = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": provider_name(self.run),
                                 "gen_ai.request.model": manifest.model, "gen_ai.conversation.id":
                                 self.conversation.conversation_id, "wismo.turn": turn.request.turn,
                                 "wismo.request.bytes": turn.request.requestBytes}
        if manifest.baseUrl:  # the API's own host is not recorded when the SDK's default was used: not guessed
            parts = urlsplit(manifest.baseUrl)
            attrs |= {"server.address": parts.hostname,
                      "server.port": parts.port or (443 if parts.scheme == "https" else 80)}
        error = None
        if response is not None:
            usage = response.usage
            attrs |= {"gen_ai.response.model": response.model, "gen_ai.response.id": response.responseId,
                      "gen_ai.response.finish_reasons": [response.stopReason] if response.stopReason else None,
                      "gen_ai.usage.input_tokens": usage.inputTokens,
                      "gen_ai.usage.output_tokens": usage.outputTokens,
                      "gen_ai.usage.cache_read.input_tokens": usage.cachedTokens,
                      "gen_ai.usage.reasoning.output_tokens": usage.reasoningTokens,
                      "wismo.usage.estimated": usage.estimated, "wismo.retries": response.retries}
            if response.error is not None:
                error = response.error.kind
                attrs["error.type"] = str(response.error.status or response.error.kind)
        else:
            error = "no response"
            attrs["error.type"] = "no_response"
        if self.options.include_content:
            attrs["gen_ai.system_instructions"] = json.dumps([{"type": "text", "content": self.instructions()}])
            attrs["gen_ai.input.messages"] = json.dumps(messages(history))
            if response is not None:
                attrs["gen_ai.output.messages"] = json.dumps(messages(response.outputItems, role="assistant"))
        end = response.ts if response is not None else self.end_ts()
        return self._span(span_id, parent, f"chat {manifest.model}", SPAN_KIND_CLIENT, turn.request.ts, end,
                          attrs, error)

    def instructions(self) -> str:
        asks = self.conversation.started.asks
        kind = next((k for k in self.run.manifest.questionKinds if k.asks == asks), None)
        return kind.instructions if kind else self.run.manifest.instructions

    def tool_span(self, turn: Turn, index: int, parent: str, asked_by: str) -> dict[str, Any]:
        """A tool call runs after the response that asked for it ends, so it is the chat span's sibling
        under the agent span (as in the conventions' agent examples), linked to that chat span."""
        exchange = turn.tools[index]
        call, result = exchange.call, exchange.result
        transport, address, port = _transport(self.run, self.conversation.started.design)
        attrs: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": call.name, "gen_ai.tool.call.id": call.callId,
            "gen_ai.tool.type": "function", "mcp.method.name": "tools/call", "network.transport": transport,
            "server.address": address, "server.port": port, "wismo.design": self.conversation.started.design}
        error = None
        if result is None:
            error, attrs["error.type"] = "no result", "no_result"
        else:
            attrs |= {"wismo.tool.result_bytes": result.bytes, "wismo.tool.latency_ms": result.latencyMs}
            if result.mcp is not None:  # the request as sent; the convention's id is a string
                attrs |= {"jsonrpc.request.id": str(result.mcp.requestId),
                          "mcp.protocol.version": result.mcp.protocolVersion, "mcp.session.id": result.mcp.sessionId}
            if result.lookups is not None:
                attrs |= {f"wismo.lookups.{name}": value for name, value in result.lookups.model_dump().items()}
            if result.isError:
                # The MCP conventions: a CallToolResult with isError is `tool_error`; wismo's other kinds
                # (unknown tool, bad arguments, a dead server) are its own names for what failed.
                error = attrs["error.type"] = ("tool_error" if result.errorKind in (None, "tool")
                                               else result.errorKind)
        if self.options.include_content:
            attrs["gen_ai.tool.call.arguments"] = call.arguments
            if result is not None and not result.isError:
                attrs["gen_ai.tool.call.result"] = result.text
        end = result.ts if result is not None else self.end_ts()
        span = self._span(self.span_id("tool", call.callId, str(index)), parent, f"execute_tool {call.name}",
                          SPAN_KIND_CLIENT, call.ts, end, attrs, error)
        span["links"] = [{"traceId": self.trace_id, "spanId": asked_by,
                          "attributes": attributes({"wismo.link": "asked_by_response"})}]
        return span


def messages(items: list[HistoryItem], role: str | None = None) -> list[dict[str, Any]]:
    """History items in the convention's message shape (role, parts): text, tool_call, tool_call_response."""
    found: list[dict[str, Any]] = []
    for item in items:
        kind = item.get("type")
        if kind == "message":
            part = {"type": "text", "content": item.get("content")}
            who = item.get("role", "user")
        elif kind == "text":
            part, who = {"type": "text", "content": item.get("text")}, role or "assistant"
        elif kind == "function_call":
            part = {"type": "tool_call", "id": item.get("callId"), "name": item.get("name"),
                    "arguments": item.get("arguments")}
            who = "assistant"
        elif kind == "function_call_output":
            part, who = {"type": "tool_call_response", "id": item.get("callId"), "response": item.get("output")}, "tool"
        elif kind == "reasoning":
            part, who = {"type": "reasoning", "content": item.get("summary")}, "assistant"
        else:
            continue
        if found and found[-1]["role"] == who:
            found[-1]["parts"].append(part)
        else:
            found.append({"role": who, "parts": [part]})
    return found


def conversation_spans(run: RunRead, options: ExportOptions) -> Iterator[list[dict[str, Any]]]:
    """Each conversation's spans, in the order the conversations started."""
    for conversation in run.conversations:
        yield _TraceBuilder(run, conversation, options).spans()


def export_request(run: RunRead, spans: list[dict[str, Any]], options: ExportOptions) -> dict[str, Any]:
    """An ExportTraceServiceRequest (OTLP/JSON) holding the spans, under the run's resource and wismo's scope."""
    manifest = run.manifest
    resource = {"service.name": "wismo", "service.version": __version__, "wismo.run.id": manifest.runId,
                "wismo.provider": manifest.provider.name, "wismo.provider.is_language_model":
                manifest.provider.isLanguageModel, "wismo.token_counts": manifest.tokenCounts,
                "wismo.dataset": manifest.dataset.name, "wismo.dataset.hash": manifest.dataset.hash,
                # false when exported with --unvalidated: its counters were not checked against its traces
                "wismo.run.validated": options.validated}
    return {"resourceSpans": [{"resource": {"attributes": attributes(resource)},
                               "scopeSpans": [{"scope": {"name": SCOPE_NAME, "version": __version__},
                                               "spans": spans}]}]}


def otlp_json(run: RunRead, options: ExportOptions) -> dict[str, Any]:
    """The whole run as one ExportTraceServiceRequest."""
    return export_request(run, [s for spans in conversation_spans(run, options) for s in spans], options)
