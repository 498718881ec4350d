"""Conversation pages: the turn diagram (carried vs new input tokens per request) and the full transcript."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from analysis.model import ConversationDetail, ToolCallDetail, TurnDetail
from wismo.sitegen import fmt
from wismo.sitegen.cases import field_cells
from wismo.sitegen.context import SiteData, case_url, conversation_url
from wismo.sitegen.marks import summary_pieces
from wismo.sitegen.pages import (
    ConversationPage,
    Link,
    ToolCallView,
    TranscriptItem,
    TranscriptTurn,
    TurnBar,
)
from wismo.sitegen.verdicts import review_notes

BAR_WIDTH = 1000  # the SVG's viewBox width; every request is drawn to the run's common scale
ANSWER_FORMATS = {"json_schema": "enforced by the API (structured output)",
                  "instructions": "asked for in the instructions only"}


def tool_call_view(call: ToolCallDetail) -> ToolCallView:
    """A tool call and its result, pretty-printed."""
    return ToolCallView(
        call_id=call.call_id, name=call.name, arguments=fmt.compact_json(call.arguments),
        arguments_pretty=fmt.pretty_json(call.arguments), latency=fmt.ms(call.latency_ms),
        result=fmt.pretty_json(call.result_text) if call.result_text is not None else "(no result recorded)",
        is_error=bool(call.is_error), error_kind=call.error_kind, bytes=fmt.count(call.bytes))


def call_views(detail: ConversationDetail) -> list[list[ToolCallView]]:
    """A conversation's tool calls per turn, pretty-printed once for both the turn diagram and the transcript."""
    return [[tool_call_view(call) for call in turn.tool_calls] for turn in detail.turn_details]


def _width(value: int | None, scale: int) -> int:
    return round((value or 0) / scale * BAR_WIDTH) if scale else 0


def _error_text(error: dict[str, Any] | None) -> str | None:
    if not error:
        return None
    return " · ".join(f"{k}: {v}" for k, v in error.items() if v not in (None, ""))


def _texts(items: list[dict[str, Any]]) -> str | None:
    texts = [str(i.get("text", "")) for i in items if i.get("type") == "text"]
    return "\n".join(texts) if texts else None


def turn_bar(turn: TurnDetail, scale: int, calls: list[ToolCallView]) -> TurnBar:
    """One request drawn as carried + new input, then output, with the tool calls it triggered (`calls`)."""
    has_tokens = turn.input_tokens is not None
    carried, new = turn.carried_tokens, turn.new_tokens
    alt = (f"Turn {turn.turn}: {fmt.count(turn.input_tokens)} input tokens ({fmt.count(carried)} carried over, "
           f"{fmt.count(new)} new), {fmt.count(turn.output_tokens)} output tokens, "
           f"{len(turn.tool_calls)} tool calls." if has_tokens else
           f"Turn {turn.turn}: the provider reported no token counts; {len(turn.tool_calls)} tool calls.")
    uncached = (turn.input_tokens - turn.cached_tokens
                if turn.input_tokens is not None and turn.cached_tokens is not None else None)
    return TurnBar(
        turn=turn.turn, has_tokens=has_tokens, carried=fmt.count(carried), new=fmt.count(new),
        input=fmt.count(turn.input_tokens), output=fmt.count(turn.output_tokens),
        cached=fmt.count(turn.cached_tokens) if turn.cached_tokens is not None else "not reported",
        uncached=fmt.count(uncached) if uncached is not None else None,
        reasoning=fmt.count(turn.reasoning_tokens) if turn.reasoning_tokens is not None else None,
        carried_width=_width(carried, scale), new_width=_width(new, scale),
        output_x=_width(carried, scale) + _width(new, scale) + 4, output_width=_width(turn.output_tokens, scale),
        estimated=turn.estimated, latency=fmt.ms(turn.latency_ms),
        tool_calls=calls, final_text=_texts(turn.output_items),
        error=_error_text(turn.error), alt_text=alt)


def _item(item: dict[str, Any], shown_results: dict[str, str | None], previous_turn: int) -> TranscriptItem:
    kind = item.get("type", "")
    if kind == "message":
        content = item.get("content")
        body = content if isinstance(content, str) else json.dumps(content, indent=2, ensure_ascii=False)
        role = item.get("role", "")
        return TranscriptItem("user" if role == "user" else "assistant",
                              "Customer message" if role == "user" else f"{role} message", body)
    if kind == "function_call":
        return TranscriptItem("function_call", f"Function call {item.get('name', '')} · {item.get('callId', '')}",
                              fmt.pretty_json(str(item.get("arguments", ""))))
    if kind == "function_call_output":
        call_id = str(item.get("callId", ""))
        output = item.get("output")
        # The same result is printed in full under the turn that ran it; repeat it only if it differs.
        if call_id in shown_results and shown_results[call_id] == output:
            return TranscriptItem("function_call_output",
                                  f"Tool result · {call_id} (printed in full under turn {previous_turn})", "",
                                  bool(item.get("isError")))
        return TranscriptItem("function_call_output", f"Tool result · {call_id}",
                              fmt.pretty_json(output if isinstance(output, str) else json.dumps(output)),
                              bool(item.get("isError")))
    if kind == "text":
        return TranscriptItem("text", "Text output (raw)", str(item.get("text", "")))
    if kind == "reasoning":
        # The content is encrypted (only the API can read it); its summary, when there is one, is readable.
        summary = "\n".join(str(part.get("text", "")) for part in item.get("summary") or [] if isinstance(part, dict))
        return TranscriptItem("reasoning", f"Reasoning {item.get('id', '')} (encrypted, "
                                           f"{len(str(item.get('encryptedContent', ''))):,} characters)", summary)
    return TranscriptItem("other", kind or "item", json.dumps(item, indent=2, ensure_ascii=False))


def transcript(turns: list[TurnDetail], calls: list[list[ToolCallView]]) -> list[TranscriptTurn]:
    """Each request's new items, the response's output items, and the tool calls it ran (`calls`, per turn)."""
    result = []
    shown: dict[str, str | None] = {}
    for turn, turn_calls in zip(turns, calls, strict=True):
        request_items = [_item(i, shown, turn.turn - 1) for i in turn.new_items]
        output_items = [_item(i, {}, turn.turn) for i in turn.output_items]
        meta = (f"history {turn.history_length} items · request {fmt.count(turn.request_bytes)} bytes · "
                f"latency {fmt.ms(turn.latency_ms)}" + (f" · model {turn.model}" if turn.model else "")
                + (f" · stop reason {turn.stop_reason}" if turn.stop_reason else "")
                + (f" · answer schema {ANSWER_FORMATS.get(turn.answer_format, turn.answer_format)}"
                   if turn.answer_format else ""))
        result.append(TranscriptTurn(turn.turn, meta, request_items, output_items, turn_calls,
                                     _error_text(turn.error)))
        shown = {c.call_id: c.result_text for c in turn.tool_calls}
    return result


def _scale(details: list[ConversationDetail]) -> int:
    return max(((t.input_tokens or 0) + (t.output_tokens or 0) for d in details for t in d.turn_details), default=0)


def conversation_count(data: SiteData) -> int:
    """How many conversation pages the site has (build_conversation_pages numbers them 0..count-1)."""
    return sum(len(data.details.get(v.run.run_id, [])) for v in data.validations)


def build_conversation_pages(data: SiteData, start: int = 0, stop: int | None = None) -> Iterator[ConversationPage]:
    """Every conversation of every run, or those numbered start..stop-1 in that order (for one process's share).

    Those of a run that failed validation carry its banner (see template).
    """
    stop = conversation_count(data) if stop is None else stop
    end = 0  # the number after this run's last conversation
    for validation in data.validations:
        run_id = validation.run.run_id
        details = data.details.get(run_id, [])
        begin, end = end, end + len(details)
        if end <= start or begin >= stop:
            continue
        card = data.cards[run_id]
        cases = {c["caseId"]: c for c in validation.run.cases}
        scale = _scale(details)
        by_case_rep: dict[tuple[str, int], list[ConversationDetail]] = {}
        for detail in details:
            by_case_rep.setdefault((detail.case_id, detail.repetition), []).append(detail)
        for detail in details[max(start - begin, 0):stop - begin]:
            case = cases.get(detail.case_id, {})
            pieces, notes = summary_pieces(detail.customer_summary or "",
                                           data.conversation_findings(run_id, detail.conversation_id))
            totals = [("Turns", fmt.count(detail.turns)), ("Tool calls", fmt.count(detail.tool_calls)),
                      ("Input tokens", fmt.count(detail.input_tokens)),
                      ("Uncached input", fmt.count(detail.uncached_input_tokens)
                       if detail.uncached_input_tokens is not None else "not reported"),
                      ("Output tokens", fmt.count(detail.output_tokens)),
                      ("Reasoning (of output)", fmt.count(detail.reasoning_tokens)
                       if detail.reasoning_tokens is not None else "not reported"),
                      ("Cached tokens", fmt.count(detail.cached_tokens) if detail.cached_tokens is not None
                       else "not reported"),
                      ("Total tokens", fmt.count(detail.total_tokens)), ("Elapsed", fmt.ms(detail.elapsed_ms))]
            # Both the turn diagram and the transcript show every tool call: pretty-print each once.
            calls = call_views(detail)
            others = [Link(f"{o.design}, repetition {o.repetition}", conversation_url(run_id, o.conversation_id))
                      for o in by_case_rep[(detail.case_id, detail.repetition)] if o is not detail]
            yield ConversationPage(
                card=card, conversation_id=detail.conversation_id, case_id=detail.case_id,
                case_url=case_url(detail.case_id), question=case.get("question", ""), design=detail.design,
                repetition=detail.repetition, attempt=detail.attempt, status=detail.status, passed=detail.passed,
                error=detail.error, budget_hit=detail.budget_hit,
                has_summary=detail.customer_summary is not None, pieces=pieces, findings=notes,
                final_text=detail.final_text, fields=field_cells(detail, case.get("expected", {})), totals=totals,
                scale_note=(f"All bars of run {run_id} share one scale: the full width is {fmt.count(scale)} "
                            "tokens, the run's largest request (input + output)." if scale else
                            "The provider reported no token counts, so there is nothing to draw."),
                turns=[turn_bar(t, scale, c) for t, c in zip(detail.turn_details, calls, strict=True)],
                transcript=transcript(detail.turn_details, calls),
                verdict=data.verdict(run_id, detail.conversation_id), others=others,
                reviews=review_notes(data, [detail]))
