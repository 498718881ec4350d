"""What the analysis's figures are called: the one table the CLI and the site print their names from."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MetricLabel:
    """A metric as people read it: a lower-case name, and the unit of its raw values ("" for counts)."""

    name: str
    unit: str = ""

    @property
    def title(self) -> str:
        """The name as a heading: `Tool calls`."""
        return self.name[:1].upper() + self.name[1:]


# Keyed by analysis.model.METRICS: the per-design stats and the comparisons of a RunSummary
# (tests/analysis/test_metrics.py holds every metric a summary returns to a label here).
METRIC_LABELS: dict[str, MetricLabel] = {
    "turns": MetricLabel("turns"),
    "toolCalls": MetricLabel("tool calls"),
    "backendLookups": MetricLabel("backend lookups"),
    "toolResultBytes": MetricLabel("tool result bytes"),
    "inputTokens": MetricLabel("input tokens"),
    "uncachedInputTokens": MetricLabel("uncached input tokens"),
    "outputTokens": MetricLabel("output tokens"),
    "reasoningTokens": MetricLabel("reasoning tokens (of output)"),
    "totalTokens": MetricLabel("total tokens"),
    "elapsedMs": MetricLabel("time", "ms"),
}

# Keyed by analysis.model.FIELDS: the per-field pass rates of a design and the fields of an assessment.
FIELD_LABELS: dict[str, str] = {
    "deliveredSkus": "Delivered",
    "outstandingSkus": "Outstanding",
    "delayReasons": "Delay reasons",
    "deliveryEstimate": "Delivery estimate",
    "missingEvidence": "Missing evidence",
    "paymentStatus": "Payment status",
}
