"""Write a small, consistent run folder from a compact description, so tests know every figure in it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from core.domain.scorer import score
from tests.analysis.conftest import dumps

START = datetime(2026, 10, 8, 12, 0, tzinfo=UTC)


def expected_for(case_id: str) -> dict[str, Any]:
    """The expectation every built case carries."""
    return {"deliveredSkus": [f"SKU-{case_id}"], "outstandingSkus": [], "delayReasons": [],
            "deliveryEstimate": None, "missingEvidence": []}


@dataclass
class Conv:
    """One conversation: per-turn (input, output) tokens, tool calls per turn (all but the last turn)."""

    case: str
    design: str
    repetition: int
    tokens: list[tuple[int | None, int | None]]
    calls_per_turn: list[int]
    elapsed_ms: float
    passed: bool = True
    status: str = "answered"
    cached: list[int | None] | None = None  # per turn; None: never reported
    reasoning: list[int | None] | None = None  # per turn; None: never reported

    @property
    def conversation_id(self) -> str:
        return f"{self.case}.{self.design}.r{self.repetition}"


@dataclass
class RunSpec:
    """A whole run: its conversations and what the manifest says."""

    run_id: str
    designs: list[str]
    repetitions: int
    cases: list[str]
    conversations: list[Conv] = field(default_factory=list)
    baseline: str | None = None  # the manifest's `baseline` (None: not written, as in older runs)
    # Positions rotate between (case, repetition) groups, as the recorder orders them; else every group
    # runs the designs in the manifest's order.
    rotate: bool = False
    design_sources: dict[str, dict[str, Any]] = field(default_factory=dict)  # the manifest's `designSources`
    order_lines: dict[str, int] = field(default_factory=dict)  # case -> its order's size (the crossover view)
    asks: dict[str, list[str]] = field(default_factory=dict)  # case -> the fields it asks (default: all five)
    language_model: bool = False  # the manifest's provider.isLanguageModel
    tools: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # design -> the tools as sent
    dataset_hash: str = "sha256:0"


# The statuses whose finished line holds the text of the last response (check_answers.sql).
ANSWERING = ("answered", "invalid_answer", "provider_limit", "refused")


def _ts(moment: datetime) -> str:
    return moment.isoformat(timespec="microseconds")


def conversation_events(run_id: str, conv: Conv, pair_index: int, position: int, start: datetime,
                        asks: list[str] | None = None) -> list[dict]:
    """The events of one conversation, seq 1..n, with counters that add up."""
    events: list[dict] = []
    clock = start

    def emit(event_type: str, moment: datetime, **fields: Any) -> None:
        events.append({"v": 1, "type": event_type, "runId": run_id, "ts": _ts(moment),
                       "conversationId": conv.conversation_id, "attempt": 1, "seq": len(events) + 1, **fields})

    emit("conversation_started", clock, caseId=conv.case, orderId=f"ORD-{conv.case}", design=conv.design,
         repetition=conv.repetition, pairIndex=pair_index, pairPosition=position)
    expected = expected_for(conv.case)
    assessment = dict(expected, customerSummary=f"Summary of {conv.conversation_id}.")
    if not conv.passed:
        assessment["deliveredSkus"] = ["WRONG"]
    final_text = json.dumps(assessment)
    tool_calls = 0
    for turn, (input_tokens, output_tokens) in enumerate(conv.tokens, start=1):
        emit("model_request", clock, turn=turn, newItems=[{"type": "message", "role": "user", "content": "q"}],
             historyLength=turn, requestBytes=1000 * turn)
        usage = {"inputTokens": input_tokens, "outputTokens": output_tokens,
                 "cachedTokens": conv.cached[turn - 1] if conv.cached else None,
                 "reasoningTokens": conv.reasoning[turn - 1] if conv.reasoning else None, "estimated": True}
        # The last response holds the answer's text (check_answers.sql holds finalText to it).
        last = turn == len(conv.tokens) and conv.status in ANSWERING
        emit("model_response", clock, turn=turn, outputItems=[{"type": "text", "text": final_text}] if last else [],
             usage=usage, model="built", responseId=None, latencyMs=1.0, retries=0, error=None, rawOutput=None)
        calls = conv.calls_per_turn[turn - 1] if turn <= len(conv.calls_per_turn) else 0
        for index in range(calls):
            call_id = f"call_{turn}_{index}"
            emit("tool_call", clock, turn=turn, callId=call_id, name="get_order", arguments="{}")
            emit("tool_result", clock, turn=turn, callId=call_id, name="get_order", text="{}", isError=False,
                 errorKind=None, bytes=2, latencyMs=0.5)
        tool_calls += calls
    scored = score(assessment, expected, asks)
    assert scored["passed"] == conv.passed

    def total(index: int) -> int | None:
        return _sum([t[index] for t in conv.tokens])

    claimed = {"turns": len(conv.tokens), "toolCalls": tool_calls, "inputTokens": total(0),
               "outputTokens": total(1), "cachedTokens": _sum(conv.cached or []),
               "reasoningTokens": _sum(conv.reasoning or []), "elapsedMs": conv.elapsed_ms}
    emit("conversation_finished", start + timedelta(milliseconds=conv.elapsed_ms), status=conv.status,
         budgetHit=None, error=None, finalText=final_text if conv.status in ANSWERING else None,
         assessment=assessment, score=scored,
         claimed=claimed)
    return events


def _sum(values: list[int | None]) -> int | None:
    present = [v for v in values if v is not None]
    return sum(present) if present else None


def write_run(folder: Path, spec: RunSpec) -> Path:
    """Write manifest.json and events.jsonl for spec into folder/run_id; return that folder."""
    run_dir = folder / spec.run_id
    run_dir.mkdir(parents=True)
    plan, events = [], []
    pairs: dict[tuple[str, int], int] = {}
    for number, conv in enumerate(spec.conversations):
        pair_index = pairs.setdefault((conv.case, conv.repetition), len(pairs))
        shift = pair_index % len(spec.designs) if spec.rotate else 0
        position = (spec.designs.index(conv.design) - shift) % len(spec.designs) + 1
        plan.append({"conversationId": conv.conversation_id, "caseId": conv.case, "design": conv.design,
                     "repetition": conv.repetition, "pairIndex": pair_index, "pairPosition": position})
        events += conversation_events(spec.run_id, conv, pair_index, position, START + timedelta(seconds=number),
                                      spec.asks.get(conv.case))
    manifest = {
        "schemaVersion": 1, "wismoVersion": "test", "runId": spec.run_id,
        "provider": {"name": "scripted", "label": "built by a test", "isLanguageModel": spec.language_model},
        "model": "built", "baseUrl": None, "apiKeyEnv": None, "tokenCounts": "made up",
        "dataset": {"name": "built", "folder": "built", "hash": spec.dataset_hash, "clock": _ts(START)},
        "cases": [{"caseId": c, "orderId": f"ORD-{c}", "question": "where?", "expected": expected_for(c),
                   **({"orderLines": spec.order_lines[c]} if c in spec.order_lines else {}),
                   **({"asks": spec.asks[c]} if c in spec.asks else {})} for c in spec.cases],
        "designs": spec.designs, "repetitions": spec.repetitions, "concurrency": 1,
        "budgets": {"maxTurns": 8, "maxToolCalls": 20, "requestTimeoutS": 1.0, "conversationDeadlineS": 10.0},
        "instructions": "answer", "answerSchema": {}, "tools": {d: spec.tools.get(d, []) for d in spec.designs},
        "toolsListed": {},
        "serverCommands": {}, "plan": plan, "startedAt": _ts(START), "finishedAt": _ts(START), "resumes": [],
        "commandLine": ["wismo", "record"], "host": {}}
    if spec.baseline is not None:
        manifest["baseline"] = spec.baseline
    if spec.design_sources:
        manifest["designSources"] = spec.design_sources
    (run_dir / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    run_events = [{"v": 1, "type": "run_started", "runId": spec.run_id, "ts": _ts(START), "wismoVersion": "test",
                   "planned": len(plan)}, *events,
                  {"v": 1, "type": "run_finished", "runId": spec.run_id, "ts": _ts(START), "conversations": len(plan),
                   "errored": 0, "aborted": None}]
    (run_dir / "events.jsonl").write_text("".join(dumps(e) + "\n" for e in run_events), encoding="utf-8")
    return run_dir
