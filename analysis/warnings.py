"""Warnings where a run's figures would mislead, worded once for `record`, `summarize` and the site."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from analysis.model import DesignMetrics

# A conversation that ended this way may never have heard from the model (a failed or abandoned
# first request), so on its own it says nothing about tool use.
_NO_MODEL_REPLY = frozenset({"provider_error", "timeout", "interrupted"})


def no_tool_call_warning(design: str) -> str:
    """The warning for a design whose conversations made no tool call at all."""
    return (f"the model called no tool in any {design} conversation: does your server pass the tools to the "
            f"model? (`wismo doctor` checks it)")


def called_no_tool(tool_calls: Iterable[float | None], statuses: Mapping[str, int]) -> bool:
    """True when some conversation reached the model and none of them made a tool call."""
    reached_model = sum(count for status, count in statuses.items() if status not in _NO_MODEL_REPLY)
    return reached_model > 0 and not any(tool_calls)


def run_warnings(designs: Iterable[DesignMetrics]) -> list[str]:
    """The warnings of one validated run, design by design."""
    warnings = []
    for design in designs:
        stat = design.stats.get("toolCalls")
        if called_no_tool([stat.max if stat else None], design.status_counts):
            warnings.append(no_tool_call_warning(design.design))
        if design.answered_without_evidence:
            warnings.append(without_evidence_warning(design))
    return warnings


def without_evidence_warning(design: DesignMetrics) -> str:
    """The warning for a design whose model answered without any record gathered: never a quiet fail."""
    count, passed = design.answered_without_evidence, design.passed_without_evidence
    return (f"{count} of {design.conversations} {design.design} conversation{'s' * (design.conversations != 1)} "
            f"answered without evidence: no tool had returned a record"
            + (f" ({passed} passed anyway, by luck or by guessing)" if passed else ""))
