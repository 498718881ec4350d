"""Check every summary in a recorded run against the evidence its own conversation gathered.

The findings go to claims.jsonl beside the run (rewritten whole, atomically, since they are derived
and can always be recomputed); the raw events are never touched.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis.claims import CHECKER_VERSION, ClaimCheck, check_claims, findings_to_json, unchecked_to_json
from analysis.claims.finding import Unchecked
from core.domain.evidence import Evidence
from core.runformat import CLAIMS_FILE, EVENTS_FILE
from core.runformat.events import ClaimFound, ClaimUnchecked, SummaryChecked
from core.runformat.lock import run_lock
from core.runformat.manifest import Manifest
from core.runformat.read import live_attempts, read_event_lines, read_manifest
from core.runformat.write import run_line, write_failure


@dataclass(frozen=True)
class ClaimsResult:
    """How many summaries were checked, how many had findings, findings per kind, and claims not checked."""

    checked: int
    with_findings: int
    by_kind: dict[str, int]
    path: Path
    unreadable_lines: list[int] = field(default_factory=list)  # events.jsonl lines that are not events
    unchecked: int = 0  # claims the checker could not check: never findings


def conversation_evidence(events: list[dict[str, Any]]) -> Evidence:
    """The evidence one conversation gathered: each tool result, read by its call's parameter."""
    calls = {e["callId"]: e for e in events if e["type"] == "tool_call"}
    evidence = Evidence()
    for result in (e for e in events if e["type"] == "tool_result"):
        call = calls.get(result["callId"])
        if call is not None:
            evidence.add_call(call["arguments"], result["text"], result["isError"])
    return evidence


# What reading records of an unexpected shape raises (an order without its items, a number where a list belongs).
UNREADABLE = (KeyError, TypeError, ValueError, AttributeError, IndexError)


def _check(summary: str, evidence: Evidence, order_id: str) -> ClaimCheck:
    """The summary's check; when the contract's rules cannot read its records, the whole summary as not checked.

    A brought server can change what it returns after the comparison (an order without its items):
    one such conversation is a summary nothing can be checked against, never the end of the run's check.
    """
    try:
        return check_claims(summary, evidence, order_id)
    except UNREADABLE as exc:
        reason = f"its records cannot be read by the contract's rules ({type(exc).__name__}: {exc})"[:300]
        return ClaimCheck([], [Unchecked("records", summary, summary, reason, 0, len(summary))])


def check_run(run_dir: Path) -> ClaimsResult:
    """Check every finished conversation's customer summary and write claims.jsonl, under the run's lock."""
    manifest = read_manifest(run_dir)
    with run_lock(run_dir, "wismo claims"):
        return _check_run(run_dir, manifest)


def _check_run(run_dir: Path, manifest: Manifest) -> ClaimsResult:
    lines = read_event_lines(run_dir / EVENTS_FILE)
    live = live_attempts(lines.events)
    by_conversation: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for _, event in lines.events:
        conversation = event.get("conversationId")
        if conversation and event.get("attempt") == live.get(conversation) and event["type"] != "attempt_superseded":
            by_conversation[conversation].append(event)
    out: list[dict[str, Any]] = []
    by_kind: dict[str, int] = defaultdict(int)
    checked = with_findings = unchecked = 0
    run_id = manifest.runId
    for conversation, events in by_conversation.items():
        finished = next((e for e in events if e["type"] == "conversation_finished"), None)
        started = next((e for e in events if e["type"] == "conversation_started"), None)
        summary = ((finished or {}).get("assessment") or {}).get("customerSummary")
        if finished is None or started is None or not isinstance(summary, str):
            continue
        result = _check(summary, conversation_evidence(events), started["orderId"])
        checked += 1
        with_findings += bool(result.findings)
        unchecked += len(result.unchecked)
        ids = {"conversationId": conversation, "attempt": finished["attempt"]}
        out.append(run_line(run_id, SummaryChecked(**ids, checkerVersion=CHECKER_VERSION,
                                                   findings=len(result.findings), unchecked=len(result.unchecked))))
        for finding in result.findings:
            by_kind[finding.kind] += 1
            out.append(run_line(run_id, ClaimFound(**ids, checkerVersion=CHECKER_VERSION,
                                                   **findings_to_json(finding))))
        for claim in result.unchecked:
            out.append(run_line(run_id, ClaimUnchecked(**ids, checkerVersion=CHECKER_VERSION,
                                                       **unchecked_to_json(claim))))
    path = run_dir / CLAIMS_FILE
    temporary = path.with_suffix(".jsonl.tmp")
    try:
        temporary.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in out), encoding="utf-8")
        os.replace(temporary, path)
    except OSError as exc:
        raise write_failure(path, exc) from None
    return ClaimsResult(checked, with_findings, dict(by_kind), path, [n for n, _ in lines.malformed], unchecked)
