"""The plain dataclasses the analysis returns; the site and the CLI read only these.

Every figure here comes from a SQL query over a run's raw lines (see analysis/sql/), so each one can
be traced back to events.jsonl. Token figures are None where the provider reported nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import comb
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.domain.fields import BACKENDS

if TYPE_CHECKING:
    from analysis.costs import RunMoney

# Uncached input = input - cached (what a run pays full price for); reasoning tokens are part of the output.
# Backend lookups are the records the servers read (reported in each tool result's `_meta`), None in runs
# recorded before the servers reported them; tool result bytes are the bytes of every result the model read.
METRICS = ("turns", "toolCalls", "backendLookups", "toolResultBytes", "inputTokens", "uncachedInputTokens",
           "outputTokens", "reasoningTokens", "totalTokens", "elapsedMs")


@dataclass(frozen=True)
class CheckResult:
    """One validation check: a query that returns the offending rows; none means it passed."""

    name: str
    description: str
    sql_file: str
    columns: list[str]
    rows: list[tuple[Any, ...]]
    row_count: int  # rows may be truncated for display; row_count never is
    severity: str = "error"  # "error" fails the run; "notice" is reported (e.g. superseded attempts)

    @property
    def passed(self) -> bool:
        """True when the check found nothing (notices always pass)."""
        return self.row_count == 0 or self.severity == "notice"


@dataclass(frozen=True)
class RunInfo:
    """What a run is: provider, model, dataset, designs, and what the model was given."""

    run_id: str
    run_dir: Path
    provider: str
    provider_label: str
    is_language_model: bool
    model: str
    base_url: str | None
    token_counts: str
    dataset_name: str
    dataset_hash: str
    clock: str
    designs: list[str]
    repetitions: int
    instructions: str
    tools: dict[str, list[dict[str, Any]]]  # design -> [{name, description, parameters}] as sent
    cases: list[dict[str, Any]]  # [{caseId, orderId, question, asks, expected}]
    started_at: str | None
    finished_at: str | None
    budgets: dict[str, Any]
    structured_output: dict[str, Any] | None = None  # {requested, used, fallbacks} (openai-chat)
    tool_choice: str | None = None
    # The design every other is compared with (manifest `baseline`; the first design when absent).
    baseline_design: str | None = None
    # design -> {"command": [...]} or {"url": ...} (secrets stripped), "serverName", "serverVersion";
    # empty for runs recorded before designs could be brought
    design_sources: dict[str, dict[str, Any]] = field(default_factory=dict)
    # --text-tool-calls: calls the model wrote as text were read as calls (each marked fromText)
    text_tool_calls: bool = False
    user_instructions: dict[str, Any] | None = None  # --instructions: {file, sha256}; None: wismo's default

    @property
    def baseline(self) -> str:
        """The design every other is compared with."""
        return self.baseline_design or self.designs[0]

    @property
    def others(self) -> list[str]:
        """The designs compared with the baseline, in the manifest's order."""
        return [d for d in self.designs if d != self.baseline]

    def request_shape(self) -> str | None:
        """How openai-chat shaped the requests: the answer format (with any fallback) and the tool choice."""
        if self.structured_output is None and self.tool_choice is None and not self.text_tool_calls \
                and self.user_instructions is None:
            return None
        parts = []
        if self.structured_output is not None:
            answer = self.structured_output
            text = f"structured output {answer.get('used')}"
            fallbacks = answer.get("fallbacks") or []
            refused = ", ".join(f["rejected"] for f in fallbacks if f.get("cause") != "schema_grammar")
            grammar = [f for f in fallbacks if f.get("cause") == "schema_grammar"]
            if refused:
                text += f" ({answer.get('requested')}: the server refused {refused})"
            if grammar:
                text += (f" ({answer.get('requested')}: the server's json_schema grammar left no room for a tool "
                         "call, so none is sent while tools are offered)")
            if not fallbacks and answer.get("requested") != answer.get("used"):
                text += f" ({answer.get('requested')})"
            parts.append(text)
        if self.tool_choice is not None:
            parts.append(f"tool_choice {self.tool_choice}")
        if self.text_tool_calls:
            parts.append("tool calls read from the model's text (--text-tool-calls), not native tool calling")
        if self.user_instructions is not None:
            digest = str(self.user_instructions.get("sha256") or "").removeprefix("sha256:")[:12]
            parts.append(f"the user's own instructions ({self.user_instructions.get('file')}, sha256 {digest})")
        return "; ".join(parts)


@dataclass(frozen=True)
class RunValidation:
    """Every check on one run; figures from a run that fails are not presented."""

    run: RunInfo
    checks: list[CheckResult]
    malformed_lines: list[tuple[int, str]]  # (line number, why)
    superseded_events: int

    @property
    def passed(self) -> bool:
        """True when every error-severity check passed."""
        return all(check.passed for check in self.checks)


@dataclass(frozen=True)
class Stat:
    """Median, minimum and maximum over the conversations that reported a value (n of them)."""

    median: float | None
    min: float | None
    max: float | None
    n: int


@dataclass(frozen=True)
class DesignMetrics:
    """One design in one run: reliability and cost."""

    run_id: str
    provider: str
    model: str
    design: str
    conversations: int
    passed: int
    pass_rate: float
    # FIELDS -> share of the conversations asked that field with it right; None when no case asked it
    field_pass_rates: dict[str, float | None]
    status_counts: dict[str, int]
    stats: dict[str, Stat]  # METRICS -> Stat
    pass_hat_k: dict[int, float]  # k -> pass^k (tau-bench), k = 1..repetitions
    # Conversations that ended with the model's answer without one tool result that was not an error,
    # and those of them that passed anyway (metrics_designs.sql)
    answered_without_evidence: int = 0
    passed_without_evidence: int = 0
    text_calls: int = 0  # tool calls read from the model's text (--text-tool-calls), of all its tool calls


@dataclass(frozen=True)
class DesignLookups:
    """One design's backend work over a run: the servers' reported reads added up over its conversations."""

    design: str
    conversations: int
    recorded: int  # conversations whose lookups were recorded: 0 in a run recorded before the servers reported them
    per_backend: dict[str, int | None]  # orders, payments, reservations, tracking -> reads; None when not recorded
    not_found: int | None  # of those reads, the ones that found no record
    total: int | None
    tool_result_bytes: int  # every run records these


@dataclass(frozen=True)
class MetricComparison:
    """How much `other` saves over `baseline` on one metric, over the pairs where both answered correctly.

    A cheaper wrong answer is no saving: the medians, the saving and the paired difference with its
    bootstrap interval are over the (case, repetition) pairs where both designs passed. The all_*
    figures are over every finished conversation, kept beside them for reference.
    """

    run_id: str
    metric: str
    baseline: str  # design, e.g. "granular"
    other: str  # design, e.g. "focused"
    baseline_median: float | None  # over the both-correct pairs
    other_median: float | None
    saving_pct: float | None  # (baseline - other) / baseline * 100 on those medians
    paired_n: int  # both-correct (case, repetition) pairs where both have a value for this metric
    median_difference: float | None  # median over those pairs of (other - baseline)
    ci_low: float | None  # 95 % bootstrap interval of that median difference (seeded)
    ci_high: float | None
    bootstrap_resamples: int
    bootstrap_seed: int
    all_baseline_median: float | None = None  # over every finished conversation, failed and errored included
    all_other_median: float | None = None
    all_saving_pct: float | None = None


# A pass-rate difference is called beyond chance below this p (McNemar's exact test on the pairs).
CHANCE_LEVEL = 0.05


@dataclass(frozen=True)
class PairCounts:
    """The (case, repetition) pairs where both designs finished, and who answered them correctly."""

    baseline: str
    other: str
    pairs: int
    correct_pairs: int  # both passed: the pairs every saving is computed over
    only_baseline: int  # only the baseline passed
    only_other: int  # only the other passed

    @property
    def chance_p(self) -> float:
        """How likely chance alone splits the pairs only one design got right at least this unevenly.

        McNemar's exact test: under "neither design is more often right", each such pair is a fair coin, so the
        two-sided p is twice the binomial tail of the smaller count (1.0 when no pair split them).
        """
        split = self.only_baseline + self.only_other
        tail = sum(comb(split, k) for k in range(min(self.only_baseline, self.only_other) + 1)) / 2 ** split
        return min(1.0, 2 * tail)

    @property
    def beyond_chance(self) -> bool:
        """The pass rates differ by more than chance gives in 1 study of 20 (p < 0.05)."""
        return self.chance_p < CHANCE_LEVEL


@dataclass(frozen=True)
class FaultCause:
    """One distinct infrastructure fault (status and error text): how many conversations, per design, an example."""

    status: str
    cause: str
    conversations: int
    by_design: dict[str, int]
    example: str  # a conversation id that ended with it


@dataclass(frozen=True)
class FaultSummary:
    """Conversations that ended in an infrastructure fault (provider_error, tool_error, timeout, interrupted)."""

    by_design: dict[str, dict[str, int]] = field(default_factory=dict)  # design -> status -> conversations
    causes: list[FaultCause] = field(default_factory=list)  # most frequent first

    @property
    def total(self) -> int:
        """All faulted conversations."""
        return sum(sum(counts.values()) for counts in self.by_design.values())

    def per_design(self, designs: list[str]) -> dict[str, int]:
        """Faulted conversations of each design (0 for a design without any)."""
        return {d: sum(self.by_design.get(d, {}).values()) for d in designs}

    def unequal(self, designs: list[str]) -> bool:
        """The designs suffered different numbers of faults: a comparison of them is biased."""
        return len(set(self.per_design(designs).values())) > 1


@dataclass(frozen=True)
class PairedRow:
    """One (case, repetition) with both designs' figures side by side."""

    run_id: str
    case_id: str
    repetition: int
    values: dict[str, dict[str, float | None]]  # design -> metric -> value
    passed: dict[str, bool]


@dataclass(frozen=True)
class DeterministicOrder:
    """The deterministic comparison for one order (from deterministic-comparison.json)."""

    order_id: str
    matched: bool
    bytes: dict[str, int]
    interactions: dict[str, int]
    lookups: dict[str, int | None] = field(default_factory=dict)  # backend reads; None: not recorded
    lookups_not_found: dict[str, int | None] = field(default_factory=dict)  # of those, found no record


@dataclass(frozen=True)
class RunSummary:
    """Everything summarize returns for one run (only for runs that passed validation)."""

    run: RunInfo
    designs: list[DesignMetrics]
    # every design but the baseline against it, metric by metric: RunInfo.others order, then METRICS
    comparisons: list[MetricComparison]
    paired: list[PairedRow] | None  # None when the caller did not ask for them (summarize(paired=False))
    deterministic: list[DeterministicOrder]
    deterministic_passed: bool | None  # None when the file is absent
    claim_findings: dict[str, dict[str, int]] = field(default_factory=dict)  # design -> kind -> summaries
    # One per design compared with the baseline (RunInfo.others order); empty with a single design
    pairs: list[PairCounts] = field(default_factory=list)
    faults: FaultSummary = field(default_factory=FaultSummary)
    warnings: list[str] = field(default_factory=list)  # where the figures would mislead (analysis.warnings)
    lookups: list[DesignLookups] = field(default_factory=list)  # per design, in the manifest's order

    def comparisons_with(self, other: str) -> list[MetricComparison]:
        """`other` against the baseline on every metric, in METRICS order."""
        return [c for c in self.comparisons if c.other == other]

    def pairs_with(self, other: str) -> PairCounts | None:
        """The (case, repetition) groups of the baseline and `other`; None when `other` is not compared."""
        return next((p for p in self.pairs if p.other == other), None)


@dataclass(frozen=True)
class ToolCallDetail:
    """One tool call joined to its result by call id."""

    call_id: str
    name: str
    arguments: str
    result_text: str | None
    is_error: bool | None
    error_kind: str | None
    bytes: int | None
    latency_ms: float | None
    lookups: dict[str, int] | None = None  # backend reads the server reported; None where it reported none
    # When the call was made and its result recorded, ms after the conversation's first model request (the
    # lines' own timestamps); None where a timestamp is missing or does not parse.
    started_ms: float | None = None
    finished_ms: float | None = None


@dataclass(frozen=True)
class TurnDetail:
    """One model request and its response; carried + new = input tokens (carried = previous input)."""

    turn: int
    input_tokens: int | None
    output_tokens: int | None
    cached_tokens: int | None
    carried_tokens: int | None
    new_tokens: int | None
    estimated: bool
    latency_ms: float | None
    request_bytes: int
    history_length: int
    new_items: list[dict[str, Any]]
    output_items: list[dict[str, Any]]
    tool_calls: list[ToolCallDetail]
    error: dict[str, Any] | None
    model: str | None
    reasoning_tokens: int | None = None
    stop_reason: str | None = None  # in the provider's words; None when not recorded
    answer_format: str | None = None  # json_schema or instructions; None when not recorded
    # the server's own account of the request (promptTokens, cachedTokens, promptMs, generatedTokens,
    # generatedMs: llama-server's timings); None when it sent none
    server_timings: dict[str, Any] | None = None
    # When the request was sent and its response recorded, ms after the conversation's first request (the
    # lines' own timestamps); None where a timestamp is missing or does not parse.
    started_ms: float | None = None
    finished_ms: float | None = None


@dataclass(frozen=True)
class ConversationDetail:
    """One finished conversation (live attempt) with its turns, as the case and conversation pages need."""

    run_id: str
    conversation_id: str
    attempt: int
    case_id: str
    order_id: str
    design: str
    repetition: int
    pair_position: int
    status: str
    budget_hit: str | None
    error: str | None
    passed: bool
    field_scores: dict[str, bool]  # the asked fields only
    assessment: dict[str, Any] | None
    customer_summary: str | None
    final_text: str | None
    turns: int
    tool_calls: int
    input_tokens: int | None
    output_tokens: int | None
    cached_tokens: int | None
    total_tokens: int | None
    elapsed_ms: float
    turn_details: list[TurnDetail]
    uncached_input_tokens: int | None = None  # input - cached; None when no cached count was reported
    reasoning_tokens: int | None = None
    # orders, payments, reservations, tracking, notFound -> reads the servers reported; None when not recorded
    lookups: dict[str, int] | None = None
    tool_result_bytes: int | None = None

    @property
    def backend_lookups(self) -> int | None:
        """Reads of every backend together (the backendLookups metric); None when not recorded."""
        return None if self.lookups is None else sum(self.lookups[backend] for backend in BACKENDS)


@dataclass(frozen=True)
class RunAnalysis:
    """One run, loaded once: its validation, its summary when it passed, and what else was asked of it.

    Only a run that passed validation has figures: its money (when priced) and its crossover view.
    """

    validation: RunValidation
    summary: RunSummary | None  # None when the run failed validation
    details: list[ConversationDetail] | None = None  # None unless asked for, or unreadable in a failed run
    findings: dict[str, list[dict[str, Any]]] | None = None  # conversationId -> claim findings (passed runs)
    money: RunMoney | None = None  # None unless priced
    crossover: CrossoverView | None = None  # None unless asked for
    # conversationId -> the claims the checker could not check (passed runs): listed apart, never findings.
    unchecked: dict[str, list[dict[str, Any]]] | None = None
    compare_side: CompareSide | None = None  # None unless asked for (build-site --compare-with's candidate)


@dataclass(frozen=True)
class CompareSide:
    """A validated run as `wismo compare` reads it: what its manifest says, and one row per conversation
    (analysis/sql/compare_rows.sql, with its cost in USD when priced)."""

    info: RunInfo
    rows: list[dict[str, Any]]


# The claim checker's finding kinds (analysis.claims): fixed names the site and the analysis group findings by,
# and what each flags, in words, for wherever kinds are listed.
CLAIM_KINDS = ("unsupported_delivery", "contradicted_outstanding", "unsupported_date", "unsupported_delay",
               "wrong_delay_reason", "unsupported_payment", "unwarranted_certainty", "unacknowledged_missing_evidence",
               "unmentioned_sku")
# High tells the customer something false; medium claims more than is known or hides a gap; low leaves an item out.
CLAIM_SEVERITY = {"unsupported_delivery": "high", "contradicted_outstanding": "high", "unsupported_date": "high",
                  "unsupported_delay": "high", "wrong_delay_reason": "high", "unsupported_payment": "high",
                  "unwarranted_certainty": "medium", "unacknowledged_missing_evidence": "medium",
                  "unmentioned_sku": "low"}
# Rows of the claim counts (metrics_claims.sql) that are not finding kinds: summaries read, and summaries holding a
# claim the checker could not check. Neither is ever counted as a finding.
CLAIM_COUNT_TOTALS = frozenset({"checked", "unchecked"})
CLAIM_MEANING = {
    "unsupported_delivery": "an item said to be delivered that no delivered carrier observation covers",
    "contradicted_outstanding": "an item said to be on its way or not arrived that the carrier shows delivered",
    "unsupported_date": "a date no record gives for that item (another item's, the promised or a restock date)",
    "unsupported_delay": "a delay where no backorder, carrier delay or payment problem exists",
    "wrong_delay_reason": "a delay blamed on the carrier or on stock when the item's records show another cause",
    "unsupported_payment": "a statement about the payment that the payment record does not support",
    "unwarranted_certainty": "more certainty than the evidence gives: lost, soon, shipped, backordered, definitely",
    "unacknowledged_missing_evidence": "a record that could not be retrieved, never acknowledged for its item",
    "unmentioned_sku": "an ordered item the summary never names",
}


# The crossover view's measures (analysis.crossover): five SQL medians, then money (priced by analysis.costs,
# the one place prices are applied).
CROSSOVER_MEASURES = ("totalTokens", "elapsedMs", "turns", "toolCalls", "backendLookups", "costUsd")


@dataclass(frozen=True)
class CrossoverPoint:
    """One design's conversations of one question kind on orders of one size: pass rate and medians."""

    design: str
    kind: str  # the question kind's name, from its asks
    asks: tuple[str, ...]
    order_lines: int
    conversations: int
    passed: int
    pass_rate: float
    budget_stopped: int  # conversations a budget stopped (status budget_exhausted)
    medians: dict[str, float | None]  # CROSSOVER_MEASURES -> median; None: not reported / unknown price


@dataclass(frozen=True)
class Crossover:
    """Where one design stops using less of a measure than the baseline (or back), for one question kind, in words."""

    kind: str
    measure: str
    sentence: str
    crossings: tuple[int, ...]  # the order sizes from which the other design of the two uses less
    sizes: tuple[int, ...]  # the sizes where both designs have a figure
    baseline: str | None = None  # the two designs compared: the run's baseline ...
    other: str | None = None  # ... and one other design (one Crossover per other design, kind and measure)


@dataclass(frozen=True)
class CrossoverView:
    """One run's crossover view: every point, and the crossover per question kind and measure."""

    run_id: str
    designs: tuple[str, ...]  # every design of the run, in the manifest's order (one series each)
    kinds: tuple[str, ...]
    sizes: tuple[int, ...]
    points: list[CrossoverPoint]
    crossovers: list[Crossover]
    failures: dict[str, str]  # kind -> where a design did not pass every conversation ("" when none)
    unsized_conversations: int  # left out: their case has no order size (missing order or an older run)
    money_note: str  # where the prices came from, or why money is unknown
    money_estimated: bool = False  # the priced tokens are wismo's estimates (the scripted policy's)
    baseline: str | None = None  # the design every other is compared with (None: a run of no design)
