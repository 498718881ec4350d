"""A conversation's timeline: its model requests and tool calls on one time axis, from the trace's timestamps.

Each request runs from its model_request line to its model_response line, each tool call from its tool_call
line to its tool_result line (analysis: TurnDetail/ToolCallDetail.started_ms and finished_ms). Tool calls
of one request that ran at the same time are said in words too: their latencies then add up to more than
the time they took together, which a list of latencies alone would hide.
"""

from __future__ import annotations

from collections.abc import Sequence

from analysis.model import ConversationDetail, ToolCallDetail
from wismo.sitegen import fmt
from wismo.sitegen.pages import Timeline, TimelineRow, ToolCallView

WIDTH = 1000  # the bars' viewBox width
MIN_WIDTH = 3  # a call of a few microseconds still shows as a sliver


def _ticks(span: float) -> list[str]:
    return [fmt.ms(span * i / 4) if i else "0 ms" for i in range(5)]


def _overlapping(calls: Sequence[ToolCallDetail]) -> set[str]:
    """The ids of calls that ran while another call of the same list was running."""
    timed = [(c.call_id, c.started_ms, c.finished_ms) for c in calls
             if c.started_ms is not None and c.finished_ms is not None]
    return {a for a, start_a, end_a in timed for b, start_b, end_b in timed
            if a != b and start_a < end_b and start_b < end_a}


def _overlap_words(detail: ConversationDetail) -> str:
    sentences = []
    for turn in detail.turn_details:
        together = [c for c in turn.tool_calls if c.call_id in _overlapping(turn.tool_calls)]
        if len(together) < 2:
            continue
        span = max(c.finished_ms or 0 for c in together) - min(c.started_ms or 0 for c in together)
        latencies = sum(c.latency_ms or 0 for c in together)
        sentences.append(f"model request {turn.turn}'s {len(together)} tool calls overlapped: they ran at the same "
                         f"time, so their latencies add up to {fmt.ms(latencies)} over {fmt.ms(span)}")
    if not sentences:
        return ""
    text = "; ".join(sentences)
    return text[0].upper() + text[1:] + "."


def span_ms(detail: ConversationDetail) -> float | None:
    """When the conversation's last request or tool call ended, ms after its first request (None: no timestamps)."""
    turns = detail.turn_details
    ends = [t.finished_ms for t in turns if t.finished_ms is not None]
    ends += [c.finished_ms for t in turns for c in t.tool_calls if c.finished_ms is not None]
    if not ends or all(t.started_ms is None for t in turns):
        return None
    return max(ends)


def timeline(detail: ConversationDetail, views: Sequence[Sequence[ToolCallView]] = (),
             axis_ms: float | None = None) -> Timeline | None:
    """The conversation's requests and tool calls on one axis (None when no request has a readable timestamp).

    `views` (call_views, per request) give each call its anchor on the conversation page; `axis_ms` sets a
    longer axis shared with other conversations drawn beside it.
    """
    turns = detail.turn_details
    own = span_ms(detail)
    if own is None:
        return None
    span = max(own, axis_ms or 0.0) or 1.0
    anchors = {v.call_id: v.anchor for per_turn in views for v in per_turn}

    def place(start: float | None, end: float | None) -> tuple[int, int, str] | None:
        if start is None or end is None:
            return None
        x = round(start / span * WIDTH)
        return x, max(MIN_WIDTH, min(WIDTH - x, round((end - start) / span * WIDTH))), \
            f"{fmt.ms(end - start)}, from {fmt.ms(start)} to {fmt.ms(end)}"

    rows, missing = [], 0
    for turn in turns:
        placed = place(turn.started_ms, turn.finished_ms)
        tokens = (f"{fmt.count(turn.carried_tokens)} carried + {fmt.count(turn.new_tokens)} new input, "
                  f"{fmt.count(turn.output_tokens)} output" if turn.input_tokens is not None else "no token counts")
        if placed is None:
            missing += 1
        else:
            rows.append(TimelineRow("request", f"Model request {turn.turn}", tokens, *placed, anchor=f"t{turn.turn}"))
        together = _overlapping(turn.tool_calls)
        for call in turn.tool_calls:
            placed = place(call.started_ms, call.finished_ms)
            if placed is None:
                missing += 1
                continue
            rows.append(TimelineRow("call", call.name, fmt.compact_json(call.arguments), *placed,
                                    overlapped=call.call_id in together, anchor=anchors.get(call.call_id, "")))
    return Timeline(rows, _ticks(span), _overlap_words(detail),
                    f"{missing} not drawn: a timestamp is missing or unreadable." if missing else "")
