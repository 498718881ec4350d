"""`wismo score`: re-score a recorded run without calling any model; scores go beside the raw events."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.domain.dataset import Dataset, load_dataset
from core.domain.fields import DEFAULT_ASKS
from core.domain.scorer import SCORER_VERSION, score
from core.errors import RunFormatError, WismoError
from core.runformat import EVENTS_FILE, SCORES_FILE
from core.runformat.events import Score, ScoreRecorded
from core.runformat.lock import run_lock
from core.runformat.manifest import Manifest
from core.runformat.read import live_attempts, read_event_lines, read_manifest
from core.runformat.write import EventWriter


@dataclass(frozen=True)
class RescoreResult:
    """How many conversations were scored, how many now pass, and how many changed verdict."""

    scored: int
    passed: int
    changed: list[str]
    path: Path
    unreadable_lines: list[int] = field(default_factory=list)  # events.jsonl lines that are not events


def _expectations(manifest: Manifest, dataset: Dataset | None) -> tuple[dict[str, dict[str, Any]], str]:
    if dataset is None:
        return {c.caseId: c.expected for c in manifest.cases}, manifest.dataset.hash
    return {c.caseId: c.expectation() for c in dataset.cases}, dataset.content_hash


def rescore(run_dir: Path, dataset_dir: Path | None = None) -> RescoreResult:
    """Re-score under the run's lock: score lines are written beside the events, one writer at a time."""
    manifest = read_manifest(run_dir)
    with run_lock(run_dir, "wismo score"):
        return _rescore(run_dir, manifest, dataset_dir)


def _rescore(run_dir: Path, manifest: Manifest, dataset_dir: Path | None) -> RescoreResult:
    """Score every finished conversation's parsed answer against the expectations and append scores.jsonl.

    Without --dataset the manifest's own expectations are used (after a scorer change); with it, the
    expectations of that dataset (after an expectation change), whose cases must cover the run's cases.
    Only the fields each conversation was asked (its conversation_started line) are scored.
    """
    dataset = load_dataset(dataset_dir) if dataset_dir is not None else None
    expectations, dataset_hash = _expectations(manifest, dataset)
    lines = read_event_lines(run_dir / EVENTS_FILE)
    live = live_attempts(lines.events)
    finished = [e for _, e in lines.events
                if e["type"] == "conversation_finished" and live.get(e["conversationId"]) == e["attempt"]]
    if not finished:
        raise RunFormatError(f"{run_dir / EVENTS_FILE}: no finished conversation to score")
    started = {(e["conversationId"], e["attempt"]): e for _, e in lines.events if e["type"] == "conversation_started"}
    writer = EventWriter(run_dir / SCORES_FILE, manifest.runId)
    changed, passed = [], 0
    try:
        for event in finished:
            key = (event["conversationId"], event["attempt"])
            case_id = started[key]["caseId"] if key in started else None
            asks = started[key].get("asks", DEFAULT_ASKS) if key in started else DEFAULT_ASKS
            if case_id not in expectations:
                raise WismoError(f"case {case_id!r} of {event['conversationId']} has no expectation in "
                                 f"{'the dataset given' if dataset else 'the manifest'}")
            unexpected = [name for name in asks if name not in expectations[case_id]]
            if unexpected:
                raise WismoError(f"{event['conversationId']} was asked {', '.join(unexpected)}, which case "
                                 f"{case_id} of {'the dataset given' if dataset else 'the manifest'} does not expect")
            expected = {name: expectations[case_id][name] for name in asks}
            new = score(event.get("assessment"), expected, asks)
            passed += new["passed"]
            if new["passed"] != event["score"]["passed"]:
                changed.append(event["conversationId"])
            writer.write(ScoreRecorded(conversationId=event["conversationId"], attempt=event["attempt"],
                                       caseId=case_id, expected=expected, asks=list(asks),
                                       score=Score.model_validate(new),
                                       scorerVersion=SCORER_VERSION, datasetHash=dataset_hash))
    finally:
        writer.close()
    return RescoreResult(len(finished), passed, changed, run_dir / SCORES_FILE, [n for n, _ in lines.malformed])
