"""Where a conversation's time went, from the server's own timings (llama-server's `timings`).

Per model request: prompt processing (with the tokens it reused from its cache), generation, and the
rest of the request's latency (HTTP, queueing, the SDK). Per conversation: the server's time, the tool
calls' time, and what is left of the conversation's elapsed time: wismo's own overhead. Every figure
is a sum or a difference of recorded values; a request without timings makes the totals unknown,
never smaller.
"""

from __future__ import annotations

from analysis.model import ConversationDetail, TurnDetail
from wismo.sitegen import fmt


def _number(timings: dict[str, object], key: str) -> float | None:
    value = timings.get(key)
    return float(value) if isinstance(value, int | float) else None


def request_time(turn: TurnDetail) -> str | None:
    """One request's time as the server accounted for it, in words; None when it sent no timings."""
    timings = turn.server_timings
    if not timings:
        return None
    prompt_ms, generated_ms = _number(timings, "promptMs"), _number(timings, "generatedMs")
    parts = []
    if prompt_ms is not None:
        processed, cached = timings.get("promptTokens"), timings.get("cachedTokens")
        tokens = f"{fmt.count(processed)} tokens" if isinstance(processed, int) else "tokens not reported"
        reused = f", {fmt.count(cached)} more reused from its cache" if isinstance(cached, int) else ""
        parts.append(f"prompt processing {fmt.ms(prompt_ms)} ({tokens}{reused})")
    if generated_ms is not None:
        generated = timings.get("generatedTokens")
        parts.append(f"generation {fmt.ms(generated_ms)}"
                     + (f" ({fmt.count(generated)} tokens)" if isinstance(generated, int) else ""))
    if prompt_ms is not None and generated_ms is not None and turn.latency_ms is not None:
        parts.append(f"outside the server {fmt.ms(max(0.0, turn.latency_ms - prompt_ms - generated_ms))}")
    return "server: " + " · ".join(parts) if parts else None


def time_totals(detail: ConversationDetail) -> list[tuple[str, str]]:
    """The conversation's time split into server prompt, server generation, tools and wismo; [] without timings."""
    turns = detail.turn_details
    if not turns or not any(turn.server_timings for turn in turns):
        return []
    prompt = [_number(t.server_timings or {}, "promptMs") for t in turns]
    generation = [_number(t.server_timings or {}, "generatedMs") for t in turns]
    cached = [(t.server_timings or {}).get("cachedTokens") for t in turns]
    tools = sum(call.latency_ms or 0.0 for t in turns for call in t.tool_calls)
    known = all(v is not None for v in [*prompt, *generation])
    prompt_ms = sum(v for v in prompt if v is not None)
    generation_ms = sum(v for v in generation if v is not None)
    reused = sum(v for v in cached if isinstance(v, int))
    rows = [("Server: prompt processing", fmt.ms(prompt_ms) if known else "not reported for every request"),
            ("Server: prompt tokens from its cache", fmt.count(reused)),
            ("Server: generation", fmt.ms(generation_ms) if known else "not reported for every request"),
            ("Tool calls", fmt.ms(tools))]
    if known and detail.elapsed_ms is not None:
        rows.append(("Wismo and HTTP (elapsed − server − tools)",
                     fmt.ms(max(0.0, detail.elapsed_ms - prompt_ms - generation_ms - tools))))
    return rows
