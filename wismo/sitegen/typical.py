"""The verdict's picture: one typical case, each design's model requests as bars of carried and new input.

The case is the (case, repetition) where every design answered correctly whose token difference between the
first two designs is nearest the median of those differences: the pair the headline figure describes best;
where some such pairs needed different numbers of requests, the nearest among those (they show the mechanism).
Each request is a bar on one scale for all designs (input carried from earlier requests, new input, output),
so the mechanism the verdict names, every request re-sending the conversation so far, is drawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import median

from analysis.model import ConversationDetail, RunInfo
from wismo.sitegen import fmt
from wismo.sitegen.context import case_url, conversation_url
from wismo.sitegen.pages import RequestBar, TypicalCase, TypicalDesign

WIDTH = 1000  # the SVG's viewBox width


def _tokens(detail: ConversationDetail) -> int:
    return detail.total_tokens or 0


def _pick(details: Sequence[ConversationDetail], designs: Sequence[str]) -> tuple[list[ConversationDetail], str] | None:
    """The group (one conversation per design) of the typical case; None when no case was right in every design."""
    groups: dict[tuple[str, int], dict[str, ConversationDetail]] = {}
    for detail in details:
        groups.setdefault((detail.case_id, detail.repetition), {})[detail.design] = detail
    complete = [g for g in groups.values() if all(d in g and g[d].passed and g[d].total_tokens is not None
                                                  for d in designs)]
    if not complete or len(designs) < 2:
        return None
    first, second = designs[0], designs[1]
    middle = median(_tokens(g[second]) - _tokens(g[first]) for g in complete)
    # Where some pairs needed different numbers of requests, one of those shows the mechanism the verdict
    # names (more requests re-send more); the nearest the median difference among them.
    differing = [g for g in complete if len({g[d].turns for d in designs}) > 1]
    best = min(differing or complete, key=lambda g: abs(_tokens(g[second]) - _tokens(g[first]) - middle))
    chosen = ("right in every design, and among the cases where the designs needed different numbers of requests "
              "the one whose difference in tokens is nearest the median" if differing else
              "right in every design, its difference in tokens nearest the median")
    return [best[d] for d in designs], chosen


def _width(value: int | None, scale: int) -> int:
    return round((value or 0) / scale * WIDTH) if scale else 0


def typical_case(info: RunInfo, details: Sequence[ConversationDetail]) -> TypicalCase | None:
    """The run's typical case with every design's requests, or None (one design, or no case right in all)."""
    picked = _pick(details, info.designs)
    if picked is None:
        return None
    group, chosen = picked
    scale = max(((t.input_tokens or 0) + (t.output_tokens or 0) for d in group for t in d.turn_details), default=0)
    designs = []
    for detail in group:
        bars = []
        for turn in detail.turn_details:
            carried, new = _width(turn.carried_tokens, scale), _width(turn.new_tokens, scale)
            bars.append(RequestBar(turn.turn, carried, new, carried + new + 4, _width(turn.output_tokens, scale),
                                   f"request {turn.turn}: {fmt.count(turn.carried_tokens)} carried + "
                                   f"{fmt.count(turn.new_tokens)} new input, {fmt.count(turn.output_tokens)} output"))
        resent = sum(t.carried_tokens or 0 for t in detail.turn_details)
        designs.append(TypicalDesign(
            detail.design, conversation_url(info.run_id, detail.conversation_id),
            f"{detail.turns} request{'s' * (detail.turns != 1)} · {detail.tool_calls} tool call"
            f"{'s' * (detail.tool_calls != 1)} · {fmt.count(detail.total_tokens)} tokens, {fmt.count(resent)} of "
            "them input re-sent from earlier requests", bars))
    return TypicalCase(group[0].case_id, group[0].repetition, case_url(group[0].case_id), designs, chosen)
