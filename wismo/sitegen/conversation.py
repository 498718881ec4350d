"""Conversation pages: the model requests (carried vs new input tokens each) and the full transcript.

The page calls a model request a "model request" everywhere, and prints every tool call's arguments and
result once: where the history sends them again, it links to where they are printed in full.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from analysis.model import ConversationDetail, ToolCallDetail, TurnDetail
from core.domain.fields import BACKENDS
from wismo.sitegen import fmt
from wismo.sitegen.cases import ending_text, field_cells
from wismo.sitegen.context import SiteData, case_url, compare_anchor, conversation_url, names_baseline, slug
from wismo.sitegen.lookups import missing_reason
from wismo.sitegen.marks import summary_pieces
from wismo.sitegen.pages import (
    ConversationPage,
    Link,
    RunCard,
    ToolCallView,
    TranscriptItem,
    TranscriptTurn,
    TurnBar,
)
from wismo.sitegen.timeline import timeline
from wismo.sitegen.timing import request_time, time_totals
from wismo.sitegen.verdicts import review_notes

BAR_WIDTH = 1000  # the SVG's viewBox width; every request is drawn to the run's common scale
ANSWER_FORMATS = {"json_schema": "enforced by the API (structured output)",
                  "instructions": "asked for in the instructions only"}


# Each backend's record in words, singular and plural.
BACKEND_WORDS = {"orders": ("order", "orders"), "payments": ("payment", "payments"),
                 "reservations": ("reservation", "reservations"), "tracking": ("tracking record", "tracking records")}

def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def compare_anchor_url(card: RunCard, detail: ConversationDetail) -> str:
    """The case page's side-by-side view of this conversation's repetition (cases.py writes the anchor)."""
    return f"{case_url(detail.case_id)}#{compare_anchor(card.slug, detail.repetition)}"


def call_anchor(turn: int, call_id: str) -> str:
    """The id a tool call's full printing carries in the transcript."""
    return f"call-{turn}-{slug(call_id)}"


def tool_call_view(call: ToolCallDetail, turn: int = 0) -> ToolCallView:
    """A tool call and its result, pretty-printed."""
    return ToolCallView(
        call_id=call.call_id, name=call.name, arguments=fmt.compact_json(call.arguments),
        arguments_pretty=fmt.pretty_json(call.arguments), latency=fmt.ms(call.latency_ms),
        result=fmt.pretty_json(call.result_text) if call.result_text is not None else "(no result recorded)",
        is_error=bool(call.is_error), error_kind=call.error_kind, bytes=fmt.count(call.bytes),
        turn=turn, anchor=call_anchor(turn, call.call_id), lookups=lookups_text(call.lookups))


def lookups_text(lookups: dict[str, int] | None) -> str:
    """The backend reads a server reported, in words ("1 order, 1 payment read; 1 not found"); "" when none."""
    if lookups is None:
        return ""
    reads = [f"{lookups[b]} {BACKEND_WORDS[b][lookups[b] != 1]}" for b in BACKENDS if lookups.get(b)]
    text = f"{', '.join(reads) or 'nothing'} read"
    return text + (f"; {lookups['notFound']} not found" if lookups.get("notFound") else "")


def not_run_reason(detail: ConversationDetail, turn: TurnDetail) -> str:
    """Why a tool call the response asked for never ran: the recorder writes no tool_call line for it.

    The details (how many calls were asked for, how many used) are the conversation's error, shown once above.
    """
    last = turn is detail.turn_details[-1]
    if last and detail.budget_hit == "max_tool_calls":
        # The loop refuses the whole batch before running any of it (recorder/agent/loop.py).
        return f"refused: {fmt.BUDGET_WORDS['max_tool_calls']} was used up"
    if last and detail.status != "answered":
        return f"the conversation {fmt.ending_words(detail.status, detail.budget_hit)}"
    return "no tool call was recorded for it"


def _refused_calls(detail: ConversationDetail, turn: TurnDetail) -> list[ToolCallView]:
    ran = {call.call_id for call in turn.tool_calls}
    reason = not_run_reason(detail, turn)
    views = []
    for item in turn.output_items:
        call_id = str(item.get("callId", ""))
        if item.get("type") != "function_call" or call_id in ran:
            continue
        arguments = str(item.get("arguments", ""))
        views.append(ToolCallView(
            call_id=call_id, name=str(item.get("name", "")), arguments=fmt.compact_json(arguments),
            arguments_pretty=fmt.pretty_json(arguments), latency=fmt.DASH, result="", is_error=False,
            error_kind=None, bytes=fmt.DASH, turn=turn.turn, anchor=call_anchor(turn.turn, call_id),
            not_run=reason))
    return views


def call_views(detail: ConversationDetail) -> list[list[ToolCallView]]:
    """A conversation's tool calls per model request, pretty-printed once for the diagram and the transcript.

    The calls a response asked for that never ran (refused by a budget) follow those that ran, marked;
    a call read from the model's text is marked as such.
    """
    views = []
    for turn in detail.turn_details:
        written = {str(i.get("callId")) for i in turn.output_items if i.get("type") == "function_call"
                   and i.get("fromText")}
        views.append([replace(view, from_text=view.call_id in written) for view in
                      [tool_call_view(call, turn.turn) for call in turn.tool_calls] + _refused_calls(detail, turn)])
    return views


def _width(value: int | None, scale: int) -> int:
    return round((value or 0) / scale * BAR_WIDTH) if scale else 0


def _error_text(error: dict[str, Any] | None) -> str | None:
    if not error:
        return None
    return " · ".join(f"{k}: {v}" for k, v in error.items() if v not in (None, ""))


def _texts(items: list[dict[str, Any]]) -> str | None:
    texts = [str(i.get("text", "")) for i in items if i.get("type") == "text"]
    return "\n".join(texts) if texts else None


def text_anchor(turn: int) -> str:
    """The id of a model request's first text output in the transcript."""
    return f"text-{turn}"


def turn_bar(turn: TurnDetail, scale: int, calls: list[ToolCallView], is_last: bool = False) -> TurnBar:
    """One model request drawn as carried + new input, then output, with the tool calls it asked for (`calls`)."""
    has_tokens = turn.input_tokens is not None
    carried, new = turn.carried_tokens, turn.new_tokens
    ran = sum(not c.not_run for c in calls)
    refused = f" ({len(calls) - ran} more asked for, not run)" if len(calls) > ran else ""
    alt = (f"Model request {turn.turn}: {fmt.count(turn.input_tokens)} input tokens ({fmt.count(carried)} carried "
           f"over, {fmt.count(new)} new), {fmt.count(turn.output_tokens)} output tokens, "
           f"{_plural(ran, 'tool call')}{refused}." if has_tokens else
           f"Model request {turn.turn}: the provider reported no token counts; "
           f"{_plural(ran, 'tool call')}{refused}.")
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
        error=_error_text(turn.error), alt_text=alt, is_last=is_last, text_anchor=text_anchor(turn.turn),
        server_time=request_time(turn), ran_calls=[c for c in calls if not c.not_run],
        refused_calls=[c for c in calls if c.not_run])


class _Printed:
    """What the transcript has printed in full so far, so that a later repeat refers back to it."""

    def __init__(self) -> None:
        self.calls: dict[str, ToolCallView] = {}  # callId -> the call printed with its arguments and result
        self.results: dict[str, tuple[str | None, ToolCallView]] = {}  # callId -> (raw result text, its call)
        self.items: dict[str, int] = {}  # text and reasoning output (see _key) -> the model request it is under

    def add(self, view: ToolCallView, raw_result: str | None) -> None:
        self.calls[view.call_id] = view
        if not view.not_run:
            self.results[view.call_id] = (raw_result, view)


def _key(item: dict[str, Any]) -> str | None:
    """What a text or reasoning output item is when the history sends it back (text as an assistant message)."""
    kind = item.get("type")
    if kind == "text":
        return json.dumps(["text", str(item.get("text", ""))])
    if kind == "message" and item.get("role") == "assistant" and isinstance(item.get("content"), str):
        return json.dumps(["text", item["content"]])
    if kind == "reasoning":
        return json.dumps(item, sort_keys=True)
    return None


def _message(item: dict[str, Any]) -> TranscriptItem:
    content = item.get("content")
    body = content if isinstance(content, str) else json.dumps(content, indent=2, ensure_ascii=False)
    role = item.get("role", "")
    return TranscriptItem("user" if role == "user" else "assistant",
                          "Customer message" if role == "user" else f"{role} message", body)


def _sent_item(item: dict[str, Any], printed: _Printed) -> TranscriptItem:
    """An item sent with a model request: the history's new part, most of it printed under an earlier request."""
    kind = item.get("type", "")
    call_id = str(item.get("callId", ""))
    if kind == "function_call":
        view = printed.calls.get(call_id)
        name = str(item.get("name", ""))
        if view is not None and view.arguments_pretty == fmt.pretty_json(str(item.get("arguments", ""))):
            return TranscriptItem("function_call", f"Tool call {name} · {call_id}", "",
                                  ref_url=f"#{view.anchor}", ref_turn=view.turn)
        return TranscriptItem("function_call", f"Tool call {name} · {call_id} · arguments",
                              fmt.pretty_json(str(item.get("arguments", ""))))
    if kind == "function_call_output":
        output = item.get("output")
        shown = printed.results.get(call_id)
        name = f"{shown[1].name} · " if shown else ""
        # The result is printed in full with the call that ran it; repeat it only if what was sent differs.
        if shown is not None and shown[0] == output:
            return TranscriptItem("function_call_output", f"Result of {name}{call_id}", "",
                                  bool(item.get("isError")), ref_url=f"#{shown[1].anchor}", ref_turn=shown[1].turn)
        return TranscriptItem("function_call_output", f"Result of {name}{call_id}",
                              fmt.pretty_json(output if isinstance(output, str) else json.dumps(output)),
                              bool(item.get("isError")))
    shown_item = _other_item(item)
    key = _key(item)
    if key is not None and key in printed.items:  # the previous response's text or reasoning, sent back
        turn = printed.items[key]
        return replace(shown_item, body="", ref_url=f"#t{turn}", ref_turn=turn)
    return shown_item


def _other_item(item: dict[str, Any]) -> TranscriptItem:
    kind = item.get("type", "")
    if kind == "message":
        return _message(item)
    if kind == "text":
        return TranscriptItem("text", "Text output (raw)", str(item.get("text", "")))
    if kind == "reasoning":
        # The content is encrypted (only the API can read it); its summary, when there is one, is readable.
        summary = "\n".join(str(part.get("text", "")) for part in item.get("summary") or [] if isinstance(part, dict))
        return TranscriptItem("reasoning", f"Reasoning {item.get('id', '')} (encrypted, "
                                           f"{len(str(item.get('encryptedContent', ''))):,} characters)", summary)
    return TranscriptItem("other", kind or "item", json.dumps(item, indent=2, ensure_ascii=False))


def _call_item(view: ToolCallView) -> TranscriptItem:
    return TranscriptItem("tool_call", f"Tool call {view.name} · {view.call_id}", "", view.is_error, call=view,
                          anchor=view.anchor)


def _output_items(turn: TurnDetail, calls: list[ToolCallView], printed: _Printed) -> list[TranscriptItem]:
    """The response's items; each tool call it asked for printed once, with its arguments and its result."""
    by_id = {view.call_id: view for view in calls}
    raw = {call.call_id: call.result_text for call in turn.tool_calls}
    items, placed, first_text = [], set(), True
    for item in turn.output_items:
        view = by_id.get(str(item.get("callId", ""))) if item.get("type") == "function_call" else None
        if view is not None and view.call_id not in placed:
            placed.add(view.call_id)
            items.append(_call_item(view))
            continue
        shown = _other_item(item)
        if shown.kind == "text" and first_text:
            shown, first_text = replace(shown, anchor=text_anchor(turn.turn)), False
        key = _key(item)
        if key is not None:
            printed.items.setdefault(key, turn.turn)
        items.append(shown)
    # A call recorded as run that the response's items do not list (never in a well-formed trace): still shown.
    items += [_call_item(view) for view in calls if view.call_id not in placed]
    for view in calls:
        printed.add(view, raw.get(view.call_id))
    return items


def transcript(turns: list[TurnDetail], calls: list[list[ToolCallView]]) -> list[TranscriptTurn]:
    """Each model request's new items, then its response's items with the tool calls they asked for (`calls`)."""
    result = []
    printed = _Printed()
    for turn, turn_calls in zip(turns, calls, strict=True):
        request_items = [_sent_item(i, printed) for i in turn.new_items]
        output_items = _output_items(turn, turn_calls, printed)
        meta = (f"history {_plural(turn.history_length, 'item')} · {fmt.count(turn.request_bytes)} bytes sent · "
                f"latency {fmt.ms(turn.latency_ms)}" + (f" · model {turn.model}" if turn.model else "")
                + (f" · stop reason {turn.stop_reason}" if turn.stop_reason else "")
                + (f" · answer schema {ANSWER_FORMATS.get(turn.answer_format, turn.answer_format)}"
                   if turn.answer_format else ""))
        refused = [item.call is not None and bool(item.call.not_run) for item in output_items]
        result.append(TranscriptTurn(turn.turn, meta, request_items, output_items, _error_text(turn.error),
                                     shown_items=[i for i, r in zip(output_items, refused, strict=True) if not r],
                                     refused_items=[i for i, r in zip(output_items, refused, strict=True) if r]))
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
        info = validation.run
        # The other designs of the same group in the run's design order; the baseline named where it must be.
        order = {design: i for i, design in enumerate(info.designs)}
        marked = info.baseline if names_baseline(info) else None
        for detail in details[max(start - begin, 0):stop - begin]:
            group = sorted(by_case_rep[(detail.case_id, detail.repetition)],
                           key=lambda o: order.get(o.design, len(order)))
            others = [Link(f"{o.design}{' (baseline)' if o.design == marked else ''}, repetition {o.repetition}",
                           conversation_url(run_id, o.conversation_id)) for o in group if o is not detail]
            yield conversation_page(data, card, detail, cases.get(detail.case_id, {}), scale, others,
                                    compare_anchor_url(card, detail) if others and card.valid else "")


def _totals(detail: ConversationDetail, calls: list[list[ToolCallView]]) -> list[tuple[str, str]]:
    refused = sum(bool(c.not_run) for turn in calls for c in turn)
    return [("Model requests", fmt.count(detail.turns)),
            ("Tool calls", fmt.count(detail.tool_calls) + (f" (+{refused} not run)" if refused else "")),
            ("Input tokens", fmt.count(detail.input_tokens)),
            ("Uncached input", fmt.count(detail.uncached_input_tokens)
             if detail.uncached_input_tokens is not None else "not reported"),
            ("Output tokens", fmt.count(detail.output_tokens)),
            ("Reasoning (of output)", fmt.count(detail.reasoning_tokens)
             if detail.reasoning_tokens is not None else "not reported"),
            ("Cached tokens", fmt.count(detail.cached_tokens) if detail.cached_tokens is not None
             else "not reported"),
            ("Total tokens", fmt.count(detail.total_tokens)), ("Elapsed", fmt.ms(detail.elapsed_ms)),
            ("Backend lookups", fmt.count(detail.backend_lookups) if detail.backend_lookups is not None
             else "not recorded"), *time_totals(detail)]


def final_text_turn(detail: ConversationDetail) -> int:
    """The model request whose text output is the final text (printed there in full), 0 when none is."""
    for turn in reversed(detail.turn_details):
        texts = [str(i.get("text", "")) for i in turn.output_items if i.get("type") == "text"]
        if texts and "".join(texts) == detail.final_text:
            return turn.turn
    return 0


def conversation_page(data: SiteData, card: RunCard, detail: ConversationDetail, case: dict[str, Any], scale: int,
                      others: list[Link], compare_url: str = "") -> ConversationPage:
    """One conversation's page; `scale` is its run's largest model request, `others` the other designs' pages."""
    run_id = detail.run_id
    pieces, notes = summary_pieces(detail.customer_summary or "",
                                   data.conversation_findings(run_id, detail.conversation_id))
    # Both the diagram and the transcript show every tool call: pretty-print each once.
    calls = call_views(detail)
    return ConversationPage(
        card=card, conversation_id=detail.conversation_id, case_id=detail.case_id,
        case_url=case_url(detail.case_id), question=case.get("question", ""), design=detail.design,
        repetition=detail.repetition, attempt=detail.attempt, status=detail.status, passed=detail.passed,
        error=detail.error, budget_hit=detail.budget_hit,
        has_summary=detail.customer_summary is not None, pieces=pieces, findings=notes,
        final_text=detail.final_text, fields=field_cells(detail, case.get("expected", {})),
        totals=_totals(detail, calls),
        scale_note=(f"All bars of run {run_id} share one scale: the full width is {fmt.count(scale)} "
                    "tokens, the run's largest model request (input + output)." if scale else
                    "The provider reported no token counts, so there is nothing to draw."),
        turns=[turn_bar(t, scale, c, t is detail.turn_details[-1])
               for t, c in zip(detail.turn_details, calls, strict=True)],
        transcript=transcript(detail.turn_details, calls),
        verdict=data.verdict(run_id, detail.conversation_id), others=others,
        reviews=review_notes(data, [detail]), final_text_turn=final_text_turn(detail),
        error_text=ending_text(detail),
        timeline=timeline(detail, calls), compare_url=compare_url,
        ending=fmt.ending_words(detail.status, detail.budget_hit),
        ending_code=fmt.ending_code(detail.status, detail.budget_hit),
        lookups_note="" if detail.backend_lookups is not None else
        f"Backend lookups not recorded: {missing_reason(data.run_info(run_id), detail.design)}.")
