"""Realistic analysis dataclasses built directly, so the site can be tested before (and apart from) DuckDB.

Two runs of the default dataset: an offline scripted run (7 cases × 2 designs × 3 repetitions, token
counts estimated, cached tokens None) and a language-model run (7 × 2 × 2, cached tokens reported).
Granular conversations take 3 turns and 3–6 tool calls (as the dataset links them), focused ones 2
turns and 1 call; input tokens grow with every turn. One granular conversation fails a field, one
focused conversation ends in `invalid_answer`. Everything is deterministic, so the golden pages stay stable.

Issue 16's runs of N designs: `three_design_site` adds "middle", a design a user brought (two tools, as
examples/middle/server.py has them: 2 turns, 2 calls), with where each design came from; its variant with
another baseline, and a run of one design.
"""

from __future__ import annotations

import json
import random
import statistics
from collections import Counter, defaultdict
from dataclasses import replace
from math import comb
from pathlib import Path
from typing import Any

from analysis.model import (
    METRICS,
    CheckResult,
    ConversationDetail,
    DesignMetrics,
    DeterministicOrder,
    FaultCause,
    FaultSummary,
    MetricComparison,
    PairCounts,
    PairedRow,
    RunInfo,
    RunSummary,
    RunValidation,
    Stat,
    ToolCallDetail,
    TurnDetail,
)
from core.domain.dataset import DEFAULT_DATASET_DIR
from core.domain.fields import ASSESSMENT_FIELDS

RECORDS: dict[str, Any] = json.loads((DEFAULT_DATASET_DIR / "records.json").read_text())
# The default question's cases (those naming no `asks`): the gold pages were written for them.
CASES: list[dict[str, Any]] = [c for c in json.loads((DEFAULT_DATASET_DIR / "cases.json").read_text())
                               if "asks" not in c]
DESIGNS = ["granular", "focused"]
INSTRUCTIONS = ("You are a customer support assistant for an online store. A customer asks about one of "
                "their orders.\nAnswer only from the records the tools return; never guess.")
_ID = {"type": "string"}
TOOLS = {
    "granular": [
        {"name": "get_order", "description": "Get one order: status, promised delivery date, items and the IDs "
         "of its payment, reservations and carrier shipments. Returns the order as JSON.",
         "parameters": {"type": "object", "properties": {"orderId": _ID}, "required": ["orderId"]}},
        {"name": "get_payment", "description": "Get one payment: status, amount, currency and failure reason.",
         "parameters": {"type": "object", "properties": {"paymentId": _ID}, "required": ["paymentId"]}},
        {"name": "get_reservation", "description": "Get one warehouse reservation. A restock date is not a "
         "delivery date.", "parameters": {"type": "object", "properties": {"reservationId": _ID},
                                          "required": ["reservationId"]}},
        {"name": "get_tracking", "description": "Get one carrier shipment: availability, status, latest event "
         "and the carrier's estimate.", "parameters": {"type": "object", "properties": {"trackingId": _ID},
                                                      "required": ["trackingId"]}},
    ],
    "focused": [
        {"name": "get_order_support_context", "description": "Get everything needed to answer a question about "
         "one order, in one call: the order, its payment, every reservation and every carrier shipment.",
         "parameters": {"type": "object", "properties": {"orderId": _ID}, "required": ["orderId"]}},
    ],
}
SUMMARIES = {
    "delivered-on-time": "Both your USB-C dock (DOCK-USB-C) and your tenkeyless keyboard (KEYBOARD-TKL) were "
                         "delivered on 2026-10-05, according to the carrier.",
    "carrier-delay": "Your 4K webcam (WEBCAM-4K) is on the way with DHL; the latest carrier update says: Delayed "
                     "at regional hub. The carrier estimates delivery on 2026-10-10, later than the promised "
                     "2026-10-07.",
    "status-lags-carrier": "Your ergonomic chair (CHAIR-ERGO) was delivered on 2026-10-07, according to the "
                           "carrier, even though the order still says shipped.",
    "partial-delivery": "Your 14-inch laptop (LAPTOP-14) was delivered on 2026-10-06, according to the carrier. "
                        "Your 27-inch monitor (MONITOR-27) is backordered and has not shipped yet. There is no "
                        "restock date yet, so I can't give you a delivery date for it.",
    "tracking-unavailable": "Your 2 × USB headset (HEADSET-USB) left the warehouse, but I can't reach the "
                            "carrier's tracking (TRK-1005-A) right now, so I can't confirm where they are or when "
                            "they will arrive.",
    "payment-declined": "Your 11-inch tablet (TABLET-11) has not shipped because the payment status is "
                        "authorization failed (card declined); it can ship once the payment goes through.",
    "missing-warehouse-record": "Your wireless mouse (MOUSE-WL) was delivered on 2026-10-06, according to the "
                                "carrier. I can't find the warehouse record for your laptop bag (BAG-15), so I "
                                "can't tell you where it is yet.",
}
MIDDLE = "middle"
# examples/middle/server.py's two tools, as a brought design's server lists them.
MIDDLE_TOOLS = [
    {"name": "get_order", "description": "Get one order with its payment: the order's status, promised delivery "
     "date, items and the IDs of its reservations and shipments; the payment's status, amount and failure reason. "
     "Returns {order, payment} as JSON.",
     "parameters": {"type": "object", "properties": {"orderId": _ID}, "required": ["orderId"]}},
    {"name": "get_fulfillment", "description": "Get how one order is being fulfilled: every warehouse reservation "
     "and every carrier shipment. Returns {orderId, reservations[], tracking[]} as JSON.",
     "parameters": {"type": "object", "properties": {"orderId": _ID}, "required": ["orderId"]}},
]
THREE_DESIGNS = ["granular", "focused", MIDDLE]
# Where each design of a three-design run came from, as the manifest's designSources has it.
DESIGN_SOURCES: dict[str, dict[str, Any]] = {
    "granular": {"command": ["wismo", "serve", "granular"], "url": None, "headers": [], "builtIn": True,
                 "serverName": "wismo-granular", "serverVersion": "0.1.0"},
    "focused": {"command": ["wismo", "serve", "focused"], "url": None, "headers": [], "builtIn": True,
                "serverName": "wismo-focused", "serverVersion": "0.1.0"},
    MIDDLE: {"command": ["python", "examples/middle/server.py"], "url": None, "headers": [], "builtIn": False,
             "serverName": "middle-example", "serverVersion": "1.0.0"},
}
# The middle design's one planted failure: a wrong delivery estimate in one repetition.
MIDDLE_FAILING = "carrier-delay.middle.r2"
DETERMINISTIC = [("ORD-1001", 1845, 1909, 6), ("ORD-1002", 1119, 1179, 4), ("ORD-1003", 1117, 1177, 4),
                 ("ORD-1004", 1412, 1474, 5), ("ORD-1005", 964, 1024, 4), ("ORD-1006", 703, 763, 3),
                 ("ORD-1007", 1263, 1315, 5)]
FAILING = "tracking-unavailable.granular.r2"
INVALID = "payment-declined.focused.r3"
INVALID_REASON = "not a JSON object: Expecting value at line 1 column 1"


def tokens(text: str) -> int:
    """A stable stand-in for a tokenizer."""
    return max(1, len(text) // 4)


def _by_id(kind: str, key: str) -> dict[str, dict[str, Any]]:
    return {r[key]: r for r in RECORDS[kind]}


def _tracking(tracking_id: str) -> dict[str, Any]:
    return {**_by_id("tracking", "trackingId")[tracking_id], "checkedAt": RECORDS["clock"]}


def evidence(order_id: str, design: str) -> list[list[tuple[str, dict[str, str], str, bool]]]:
    """Tool calls per model turn: (tool, arguments, result text, is_error), as each design gathers them."""
    order = _by_id("orders", "orderId")[order_id]
    reservations = _by_id("reservations", "reservationId")
    if design == MIDDLE:
        order_with_payment = {"order": order, "payment": _by_id("payments", "paymentId")[order["paymentId"]]}
        fulfillment = {"orderId": order_id,
                       "reservations": [reservations.get(r, {"reservationId": r, "availability": "not_found"})
                                        for r in order["reservationIds"]],
                       "tracking": [_tracking(t) for t in order["trackingIds"]]}
        return [[("get_order", {"orderId": order_id}, json.dumps(order_with_payment), False),
                 ("get_fulfillment", {"orderId": order_id}, json.dumps(fulfillment), False)]]
    if design == "focused":
        context = {"order": order, "payment": _by_id("payments", "paymentId")[order["paymentId"]],
                   "reservations": [reservations.get(r, {"reservationId": r, "availability": "not_found"})
                                    for r in order["reservationIds"]],
                   "tracking": [_tracking(t) for t in order["trackingIds"]]}
        return [[("get_order_support_context", {"orderId": order_id}, json.dumps(context), False)]]
    second = [("get_payment", {"paymentId": order["paymentId"]},
               json.dumps(_by_id("payments", "paymentId")[order["paymentId"]]), False)]
    for rid in order["reservationIds"]:
        found = rid in reservations
        second.append(("get_reservation", {"reservationId": rid},
                       json.dumps(reservations[rid]) if found else f"reservation {rid} not found", not found))
    second += [("get_tracking", {"trackingId": t}, json.dumps(_tracking(t)), False) for t in order["trackingIds"]]
    return [[("get_order", {"orderId": order_id}, json.dumps(order), False)], second]


def run_info(run_id: str = "sample-offline", *, language_model: bool = False, repetitions: int = 3,
             cases: list[dict[str, Any]] | None = None, tools: dict[str, Any] | None = None,
             instructions: str = INSTRUCTIONS, model: str | None = None, designs: list[str] | None = None,
             baseline: str | None = None, design_sources: dict[str, dict[str, Any]] | None = None) -> RunInfo:
    """A run's description as the analysis reads it from manifest.json (by default: granular and focused)."""
    provider, label = ("openai", "OpenAI Responses API") if language_model else \
        ("scripted", "scripted, not a language model")
    return RunInfo(
        run_id=run_id, run_dir=Path("runs") / run_id, provider=provider, provider_label=label,
        is_language_model=language_model,
        model=model or ("gpt-5-mini-2025-08-07" if language_model else "scripted-policy-v1"),
        base_url=None, token_counts="provider-reported" if language_model else
        "estimated offline with o200k_base (bpe-openai) over the Responses API request",
        dataset_name="default", dataset_hash="sha256:8fcb0f7dd40e32df0649f8f559ff2a2f930a3a61022db605bec1925ff34e609a",
        clock=RECORDS["clock"], designs=list(designs or DESIGNS), repetitions=repetitions,
        instructions=instructions, tools=tools or TOOLS, cases=cases or CASES,
        started_at="2026-11-30T02:47:17.795482+00:00", finished_at="2026-11-30T02:47:19.101000+00:00",
        budgets={"maxTurns": 8, "maxToolCalls": 20, "requestTimeoutS": 120.0, "conversationDeadlineS": 600.0},
        baseline_design=baseline, design_sources=design_sources or {})


def _answer(case: dict[str, Any], summary: str) -> dict[str, Any]:
    return {**case["expected"], "customerSummary": summary}


def conversation(run: RunInfo, case: dict[str, Any], design: str, repetition: int, *,
                 summary: str | None = None, answer: dict[str, Any] | None = None, status: str = "answered",
                 final_text: str | None = None, results: list[list[tuple[str, dict[str, str], str, bool]]] | None
                 = None) -> ConversationDetail:
    """One finished conversation with its turns; tokens grow turn by turn (carried = the previous input)."""
    conversation_id = f"{case['caseId']}.{design}.r{repetition}"
    rng = random.Random(f"{run.run_id}/{conversation_id}")
    summary = SUMMARIES[case["caseId"]] if summary is None and status == "answered" else summary
    answer = answer if answer is not None else (_answer(case, summary) if status == "answered" else None)
    final_text = final_text if final_text is not None else json.dumps(answer)
    base = tokens(run.instructions + json.dumps(run.tools[design])) + 800
    turns: list[TurnDetail] = []
    previous_input: int | None = None
    new_items: list[dict[str, Any]] = [{"type": "message", "role": "user", "content": case["question"]}]
    elapsed = 0.0
    for turn, calls in enumerate([*(results or evidence(case["orderId"], design)), None], start=1):
        new_tokens = sum(tokens(json.dumps(item)) for item in new_items) + (base if turn == 1 else 0)
        input_tokens = (previous_input or 0) + new_tokens
        latency = round(rng.uniform(600, 1400) if run.is_language_model else rng.uniform(1.2, 9.0), 3)
        if calls is None:
            outputs = [{"type": "text", "text": final_text}]
            tool_calls: list[ToolCallDetail] = []
            output_tokens = tokens(final_text)
        else:
            outputs = [{"type": "function_call", "callId": f"call_{turn}_{i}", "name": name,
                        "arguments": json.dumps(args)} for i, (name, args, _, _) in enumerate(calls, start=1)]
            tool_calls = [ToolCallDetail(call_id=f"call_{turn}_{i}", name=name, arguments=json.dumps(args),
                                         result_text=text, is_error=error, error_kind="tool" if error else None,
                                         bytes=len(text.encode()), latency_ms=round(rng.uniform(3, 7), 3))
                          for i, (name, args, text, error) in enumerate(calls, start=1)]
            output_tokens = 12 * len(calls) + 2
        cached = (previous_input // 128 * 128 if previous_input else 0) if run.is_language_model else None
        turns.append(TurnDetail(
            turn=turn, input_tokens=input_tokens, output_tokens=output_tokens, cached_tokens=cached,
            carried_tokens=previous_input or 0, new_tokens=new_tokens, estimated=not run.is_language_model,
            latency_ms=latency, request_bytes=input_tokens * 4, history_length=1 + 2 * sum(
                len(t.tool_calls) for t in turns), new_items=new_items, output_items=outputs, tool_calls=tool_calls,
            error=None, model=run.model,
            reasoning_tokens=output_tokens // 3 if run.is_language_model else None,
            stop_reason=("completed" if run.is_language_model else None),
            answer_format="json_schema" if run.is_language_model else None))
        elapsed += latency + sum(c.latency_ms or 0 for c in tool_calls)
        previous_input = input_tokens
        new_items = [*(o for o in outputs if o["type"] == "function_call"),
                     *({"type": "function_call_output", "callId": c.call_id, "output": c.result_text,
                        "isError": c.is_error} for c in tool_calls)]
    fields = {f: bool(answer) and answer.get(f) == case["expected"][f]
              for f in ASSESSMENT_FIELDS if f in case["expected"]}
    total_in = sum(t.input_tokens or 0 for t in turns)
    total_out = sum(t.output_tokens or 0 for t in turns)
    cached = sum(t.cached_tokens or 0 for t in turns) if run.is_language_model else None
    return ConversationDetail(
        run_id=run.run_id, conversation_id=conversation_id, attempt=1, case_id=case["caseId"],
        order_id=case["orderId"], design=design, repetition=repetition, pair_position=run.designs.index(design) + 1,
        status=status, budget_hit=None, error=None, passed=status == "answered" and all(fields.values()),
        field_scores=fields, assessment=answer, customer_summary=summary if answer else None,
        final_text=final_text, turns=len(turns), tool_calls=sum(len(t.tool_calls) for t in turns),
        input_tokens=total_in, output_tokens=total_out, cached_tokens=cached,
        total_tokens=total_in + total_out, elapsed_ms=round(elapsed + 0.4, 3), turn_details=turns,
        uncached_input_tokens=total_in - cached if cached is not None else None,
        reasoning_tokens=sum(t.reasoning_tokens or 0 for t in turns) if run.is_language_model else None)


def offline_details(run: RunInfo) -> list[ConversationDetail]:
    """The scripted run: identical summaries across repetitions, one failing field, one invalid answer."""
    details = []
    for case in run.cases:
        for repetition in range(1, run.repetitions + 1):
            for design in run.designs:
                conversation_id = f"{case['caseId']}.{design}.r{repetition}"
                if conversation_id == FAILING:
                    wrong = {**_answer(case, "Your 2 × USB headset (HEADSET-USB) left the warehouse and should "
                                             "arrive by 2026-10-09."), "missingEvidence": []}
                    details.append(conversation(run, case, design, repetition, summary=wrong["customerSummary"],
                                                answer=wrong))
                elif conversation_id == MIDDLE_FAILING:
                    late = {**_answer(case, "Your 4K webcam (WEBCAM-4K) is on the way with DHL and should arrive "
                                            "on 2026-10-07, as promised."), "deliveryEstimate": "2026-10-07"}
                    details.append(conversation(run, case, design, repetition, summary=late["customerSummary"],
                                                answer=late))
                elif conversation_id == INVALID:
                    invalid = conversation(run, case, design, repetition, status="invalid_answer",
                                           final_text="Sorry, the tablet's payment was declined so it has "
                                                      "not shipped. {deliveredSkus: []")
                    # As the recorder writes it: the parser's reason (recorder/agent/instructions.py parse_answer).
                    details.append(replace(invalid, error=INVALID_REASON))
                else:
                    details.append(conversation(run, case, design, repetition))
    return details


def model_details(run: RunInfo) -> list[ConversationDetail]:
    """The language-model run: summaries vary between repetitions, so some groups hold one repetition."""
    details = []
    for case in run.cases:
        for repetition in range(1, run.repetitions + 1):
            for design in run.designs:
                summary = SUMMARIES[case["caseId"]]
                if repetition == 2 and design == "granular":
                    summary = "Thanks for waiting! " + summary
                details.append(conversation(run, case, design, repetition, summary=summary))
    return details


def _stat(values: list[float | None]) -> Stat:
    present = [v for v in values if v is not None]
    if not present:
        return Stat(None, None, None, 0)
    return Stat(float(statistics.median(present)), float(min(present)), float(max(present)), len(present))


_METRIC_ATTR = {"turns": "turns", "toolCalls": "tool_calls", "backendLookups": "backend_lookups",
                "toolResultBytes": "tool_result_bytes", "inputTokens": "input_tokens",
                "uncachedInputTokens": "uncached_input_tokens", "outputTokens": "output_tokens",
                "reasoningTokens": "reasoning_tokens", "totalTokens": "total_tokens", "elapsedMs": "elapsed_ms"}


def _rate(verdicts: list[bool]) -> float | None:
    return sum(verdicts) / len(verdicts) if verdicts else None


def _pass_hat_k(details: list[ConversationDetail], repetitions: int) -> dict[int, float]:
    per_case: dict[str, list[bool]] = defaultdict(list)
    for d in details:
        per_case[d.case_id].append(d.passed)
    return {k: statistics.fmean(comb(sum(v), k) / comb(len(v), k) for v in per_case.values())
            for k in range(1, repetitions + 1)}


def summarize(run: RunInfo, details: list[ConversationDetail],
              claim_findings: dict[str, dict[str, int]] | None = None) -> RunSummary:
    """What analysis.summarize_runs returns, computed the simple way (a seeded bootstrap of paired medians)."""
    designs = []
    for design in run.designs:
        mine = [d for d in details if d.design == design]
        status_counts: dict[str, int] = defaultdict(int)
        for d in mine:
            status_counts[d.status] += 1
        passed = sum(d.passed for d in mine)
        designs.append(DesignMetrics(
            run_id=run.run_id, provider=run.provider, model=run.model, design=design, conversations=len(mine),
            passed=passed, pass_rate=passed / len(mine),
            field_pass_rates={f: _rate([d.field_scores[f] for d in mine if f in d.field_scores])
                              for f in ASSESSMENT_FIELDS},
            status_counts=dict(status_counts),
            stats={m: _stat([getattr(d, _METRIC_ATTR[m]) for d in mine]) for m in METRICS},
            pass_hat_k=_pass_hat_k(mine, run.repetitions)))
    index = {(d.case_id, d.repetition, d.design): d for d in details}
    pairs = sorted({(d.case_id, d.repetition) for d in details})
    paired = [PairedRow(run.run_id, case, rep,
                        {design: {m: getattr(index[(case, rep, design)], _METRIC_ATTR[m]) for m in METRICS}
                         for design in run.designs},
                        {design: index[(case, rep, design)].passed for design in run.designs}) for case, rep in pairs]
    comparisons, pair_counts = [], []
    baseline = run.baseline
    by_design = {m.design: m for m in designs}
    # Like the analysis: every other design against the baseline, over the (case, repetition) groups where both
    # answered correctly; all_* over everything. RunInfo.others order, then METRICS.
    for other in run.others:
        correct = [row for row in paired if row.passed[baseline] and row.passed[other]]
        for metric in METRICS:
            b, o = (_stat([row.values[d][metric] for row in correct]).median for d in (baseline, other))
            all_b, all_o = by_design[baseline].stats[metric].median, by_design[other].stats[metric].median
            diffs = [row.values[other][metric] - row.values[baseline][metric] for row in correct
                     if row.values[other][metric] is not None and row.values[baseline][metric] is not None]
            rng = random.Random(20261130)
            boot = sorted(statistics.median(rng.choices(diffs, k=len(diffs))) for _ in range(1000)) if diffs else []
            comparisons.append(MetricComparison(
                run_id=run.run_id, metric=metric, baseline=baseline, other=other, baseline_median=b, other_median=o,
                saving_pct=(b - o) / b * 100 if b else None, paired_n=len(diffs),
                median_difference=float(statistics.median(diffs)) if diffs else None,
                ci_low=float(boot[24]) if boot else None, ci_high=float(boot[974]) if boot else None,
                bootstrap_resamples=1000, bootstrap_seed=20261130, all_baseline_median=all_b,
                all_other_median=all_o, all_saving_pct=(all_b - all_o) / all_b * 100 if all_b else None))
        pair_counts.append(PairCounts(baseline, other, len(paired), len(correct),
                                      sum(r.passed[baseline] and not r.passed[other] for r in paired),
                                      sum(r.passed[other] and not r.passed[baseline] for r in paired)))
    faults: dict[str, dict[str, int]] = defaultdict(dict)
    causes: dict[tuple[str, str], list[ConversationDetail]] = defaultdict(list)
    for d in details:
        if d.status in ("provider_error", "tool_error", "timeout", "interrupted"):
            faults[d.design][d.status] = faults[d.design].get(d.status, 0) + 1
            causes[(d.status, d.error or "(no message)")].append(d)
    fault_summary = FaultSummary(dict(faults), [
        FaultCause(status, cause, len(hit), dict(Counter(d.design for d in hit)), min(d.conversation_id for d in hit))
        for (status, cause), hit in sorted(causes.items(), key=lambda item: (-len(item[1]), item[0]))])
    deterministic = _deterministic(run.designs)
    return RunSummary(run=run, designs=designs, comparisons=comparisons, paired=paired, deterministic=deterministic,
                      deterministic_passed=True if deterministic else None, claim_findings=claim_findings or {},
                      pairs=pair_counts, faults=fault_summary)


def _deterministic(designs: list[str]) -> list[DeterministicOrder]:
    """The stored deterministic comparison: none for a single design (nothing to compare it with).

    Runs of granular and focused have it as recorded before the servers reported their reads; a run with the
    middle design has each design's backend reads too (every design reads the same records).
    """
    if len(designs) < 2:
        return []
    orders = []
    for order, g, f, n in DETERMINISTIC:
        sizes = {"granular": g, "focused": f, MIDDLE: f + 38}
        calls = {"granular": n, "focused": 1, MIDDLE: 2}
        lookups: dict[str, int | None] = {d: n for d in designs} if MIDDLE in designs else {}
        orders.append(DeterministicOrder(order, True, {d: sizes[d] for d in designs}, {d: calls[d] for d in designs},
                                         lookups, {d: 0 for d in lookups}))
    return orders


CHECKS = [
    ("every_conversation_finished", "Every planned conversation has a conversation_finished line.", "checks/01.sql"),
    ("claimed_counters_match_traces", "turns, tool calls and tokens claimed equal those summed from the trace.",
     "checks/02.sql"),
    ("tool_calls_have_results", "Every tool_call has exactly one tool_result with the same callId.",
     "checks/03.sql"),
    ("sequence_is_gap_free", "seq runs 1, 2, … without gaps within every attempt.", "checks/04.sql"),
]


def validation(run: RunInfo, *, failing: bool = False) -> RunValidation:
    """All checks passing (plus a notice); with `failing`, the counters check finds an offending row."""
    checks = [CheckResult(name, description, sql, ["conversationId", "claimed", "traced"], [], 0)
              for name, description, sql in CHECKS]
    if failing:
        checks[1] = CheckResult(CHECKS[1][0], CHECKS[1][1], CHECKS[1][2], ["conversationId", "claimed", "traced"],
                                [("carrier-delay.focused.r1", 2411, 2390)], 1)
    checks.append(CheckResult("superseded_attempts", "Attempts superseded by --resume (reported, not an error).",
                              "checks/05.sql", ["conversationId", "attempt"], [], 0, severity="notice"))
    return RunValidation(run=run, checks=checks, malformed_lines=[], superseded_events=0)


def offline_site() -> dict[str, Any]:
    """build_site's arguments for one valid scripted run."""
    run = run_info()
    details = offline_details(run)
    return {"validations": [validation(run)], "summaries": [summarize(run, details)],
            "details_by_run": {run.run_id: details}}


def two_run_site() -> dict[str, Any]:
    """build_site's arguments for the scripted run and a language-model run, side by side."""
    offline = run_info()
    model = run_info("20261130T101500Z-openai-gpt-5-mini", language_model=True, repetitions=2)
    offline_convs, model_convs = offline_details(offline), model_details(model)
    return {"validations": [validation(offline), validation(model)],
            "summaries": [summarize(offline, offline_convs),
                          summarize(model, model_convs, {"granular": {"unsupported_date": 1}})],
            "details_by_run": {offline.run_id: offline_convs, model.run_id: model_convs}}


THREE_RUN = "20261201T090000Z-three-designs"


def three_design_run(run_id: str = THREE_RUN, *, baseline: str | None = None) -> RunInfo:
    """A scripted run of granular, focused and the brought middle design, with where each came from."""
    return run_info(run_id, designs=list(THREE_DESIGNS), tools={**TOOLS, MIDDLE: MIDDLE_TOOLS},
                    baseline=baseline, design_sources=DESIGN_SOURCES)


def three_design_site(*, baseline: str | None = None) -> dict[str, Any]:
    """build_site's arguments for one scripted run of three designs: focused and middle against the baseline.

    The baseline is granular (the manifest names none: the first design) unless `baseline` names another.
    """
    run = three_design_run(baseline=baseline)
    details = offline_details(run)
    return {"validations": [validation(run)], "summaries": [summarize(run, details)],
            "details_by_run": {run.run_id: details}}


def baseline_not_first_site() -> dict[str, Any]:
    """The three-design run with focused as its baseline: granular and middle are compared with it."""
    return three_design_site(baseline="focused")


def one_design_site() -> dict[str, Any]:
    """A scripted run of the granular design alone: nothing to compare it with."""
    run = run_info("20261201T100000Z-granular-alone", designs=["granular"],
                   design_sources={"granular": DESIGN_SOURCES["granular"]})
    details = offline_details(run)
    return {"validations": [validation(run)], "summaries": [summarize(run, details)],
            "details_by_run": {run.run_id: details}}


def with_failing_run(site: dict[str, Any]) -> dict[str, Any]:
    """Add a third run whose counters check fails: the analysis gives no summary for it."""
    run = run_info("broken-run", model="scripted-policy-v1")
    details = offline_details(run)
    return {"validations": [*site["validations"], validation(run, failing=True)], "summaries": site["summaries"],
            "details_by_run": {**site["details_by_run"], run.run_id: details}}


def _finding(summary: str, kind: str, severity: str, claim: str, evidence: str, sku: str | None) -> dict[str, Any]:
    """A finding as analysis.claims writes it; an empty claim is about the summary as a whole (0:0)."""
    start = summary.index(claim) if claim else 0
    sentence = next((s for s in summary.split(". ") if claim and claim in s), "")
    return {"kind": kind, "severity": severity, "sentence": sentence, "claim": claim, "evidence": evidence,
            "sku": sku, "start": start, "end": start + len(claim)}


def findings_fixture() -> dict[str, dict[str, list[dict[str, Any]]]]:
    """Claim-check findings on the failing conversation: overlapping date spans, and one without a span."""
    summary = "Your 2 × USB headset (HEADSET-USB) left the warehouse and should arrive by 2026-10-09."
    return {"sample-offline": {FAILING: [
        _finding(summary, "unwarranted_certainty", "medium", "should arrive by 2026-10-09",
                 "carrier lookup TRK-1005-A unavailable", "HEADSET-USB"),
        _finding(summary, "unsupported_date", "high", "2026-10-09", "no carrier estimate for HEADSET-USB",
                 "HEADSET-USB"),
        _finding(summary, "unacknowledged_missing_evidence", "medium", "", "tracking:TRK-1005-A unavailable",
                 "HEADSET-USB"),
    ]}}


HOSTILE = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'


def hostile_site() -> dict[str, Any]:
    """A run whose dataset, tools, summaries, tool results and final text all carry markup that must stay text."""
    cases = [{**CASES[0], "question": "Where is my order? " + HOSTILE}]
    tools = {d: [{**t, "description": t["description"] + HOSTILE} for t in ts] for d, ts in TOOLS.items()}
    run = run_info("hostile-run", cases=cases, tools=tools, instructions=INSTRUCTIONS + HOSTILE, repetitions=1,
                   model="model " + HOSTILE)
    hostile_results = [[("get_order_support_context", {"orderId": "ORD-1001"},
                         json.dumps({"order": {"orderId": "ORD-1001", "note": HOSTILE}}), False)]]
    details = [conversation(run, cases[0], "granular", 1, summary="Delivered. " + HOSTILE),
               conversation(run, cases[0], "focused", 1, summary=HOSTILE + " delivered.", results=hostile_results,
                            final_text="</script>" + HOSTILE)]
    findings = {run.run_id: {details[0].conversation_id: [{"kind": HOSTILE, "severity": HOSTILE, "start": 0,
                                                           "end": 9, "sku": HOSTILE, "evidence": HOSTILE}]}}
    return {"validations": [validation(run)], "summaries": [summarize(run, details)],
            "details_by_run": {run.run_id: details}, "findings_by_run": findings}


def large_site(conversations: int = 10_000) -> dict[str, Any]:
    """One run with `conversations` conversations (light turn details), to check the overview's size."""
    repetitions = conversations // (len(CASES) * len(DESIGNS))
    run = run_info("large-run", language_model=True, repetitions=repetitions)
    rng = random.Random(5)
    details = []
    for case in CASES:
        results = {d: evidence(case["orderId"], d) for d in DESIGNS}
        for repetition in range(1, repetitions + 1):
            for design in DESIGNS:
                base = conversation(run, case, design, repetition, results=results[design])
                spread = rng.randint(-900, 900)
                details.append(ConversationDetail(**{**base.__dict__, "total_tokens": base.total_tokens + spread,
                                                     "input_tokens": base.input_tokens + spread,
                                                     "elapsed_ms": base.elapsed_ms + rng.uniform(0, 9000)}))
    return {"validations": [validation(run)], "summaries": [summarize(run, details)],
            "details_by_run": {run.run_id: details}}


def one_case_site(case_id: str = "tracking-unavailable") -> dict[str, Any]:
    """The scripted run restricted to one case: a review page small enough for a golden copy."""
    run = run_info(cases=[c for c in CASES if c["caseId"] == case_id])
    details = offline_details(run)
    return {"validations": [validation(run)], "summaries": [summarize(run, details)],
            "details_by_run": {run.run_id: details}, "findings_by_run": findings_fixture()}
