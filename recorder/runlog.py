"""Writing and reading a raw run folder: manifest.json and events.jsonl.

Durability: each event is one line written with a single os.write on an O_APPEND descriptor, so a
run killed with SIGKILL loses at most the conversations in flight, never a written line; the
manifest is replaced atomically (write a temporary file, then rename).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from recorder.errors import RunFormatError
from recorder.schema import SCHEMA_VERSION

MANIFEST_FILE = "manifest.json"
EVENTS_FILE = "events.jsonl"
COMPARISON_FILE = "deterministic-comparison.json"
SCORES_FILE = "scores.jsonl"
CLAIMS_FILE = "claims.jsonl"


def now_iso() -> str:
    """UTC now with microseconds: the `ts` of every event."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def write_json_atomic(path: Path, value: Any) -> None:
    """Replace a JSON file in one rename, so a reader never sees half of it."""
    temporary = path.with_suffix(path.suffix + ".tmp")
    temporary.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(temporary, path)


class EventWriter:
    """Appends events to a JSONL file, one whole line per os.write."""

    def __init__(self, path: Path, run_id: str) -> None:
        self.path = path
        self.run_id = run_id
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self.lines = 0

    def emit(self, event_type: str, **fields: Any) -> dict[str, Any]:
        """Write one event now; return it as written."""
        event = {"v": SCHEMA_VERSION, "type": event_type, "runId": self.run_id, "ts": now_iso(), **fields}
        data = (json.dumps(event, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        written = os.write(self._fd, data)
        if written != len(data):  # a regular file takes the whole line unless the disk is full
            raise OSError(f"short write to {self.path}: {written} of {len(data)} bytes")
        self.lines += 1
        return event

    def sync(self) -> None:
        """Flush the file to disk (at the end of a run)."""
        os.fsync(self._fd)

    def close(self) -> None:
        """Sync and close."""
        self.sync()
        os.close(self._fd)


@dataclass
class ConversationLog:
    """The events of one conversation attempt, numbered by seq from 1."""

    writer: EventWriter
    conversation_id: str
    attempt: int
    seq: int = 0

    def emit(self, event_type: str, **fields: Any) -> dict[str, Any]:
        """Write one conversation event with the next seq."""
        self.seq += 1
        return self.writer.emit(event_type, conversationId=self.conversation_id, attempt=self.attempt,
                                seq=self.seq, **fields)


@dataclass
class EventLines:
    """The parseable events of a file (with their line numbers) and the lines that were not."""

    events: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    malformed: list[tuple[int, str]] = field(default_factory=list)
    ends_with_newline: bool = True
    line_count: int = 0


def read_event_lines(path: Path) -> EventLines:
    """Read events.jsonl, keeping every malformed line's number and reason instead of dropping it."""
    if not path.exists():
        raise RunFormatError(f"{path}: no events file")
    data = path.read_bytes()
    result = EventLines(ends_with_newline=data.endswith(b"\n") or not data)
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    result.line_count = len(lines)
    for number, raw in enumerate(lines, start=1):
        try:
            event = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            result.malformed.append((number, f"not JSON: {exc}"))
            continue
        if not isinstance(event, dict) or "type" not in event:
            result.malformed.append((number, "not an event object with a type"))
            continue
        if event.get("v") != SCHEMA_VERSION:
            result.malformed.append((number, f"schema version {event.get('v')!r}, this wismo reads {SCHEMA_VERSION}"))
            continue
        result.events.append((number, event))
    return result


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """Load a run's manifest or raise a RunFormatError that says what is wrong."""
    path = run_dir / MANIFEST_FILE
    if not run_dir.is_dir():
        raise RunFormatError(f"{run_dir}: not a run folder")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RunFormatError(f"{path}: missing (is {run_dir} a run folder made by `wismo record`?)") from None
    except json.JSONDecodeError as exc:
        raise RunFormatError(f"{path}: line {exc.lineno}: not valid JSON: {exc.msg}") from None
    if manifest.get("schemaVersion") != SCHEMA_VERSION:
        raise RunFormatError(f"{path}: schema version {manifest.get('schemaVersion')!r}; "
                             f"this wismo reads version {SCHEMA_VERSION}")
    return manifest


def live_attempts(events: list[tuple[int, dict[str, Any]]]) -> dict[str, int]:
    """The attempt that counts for each conversation: the highest one not marked superseded."""
    superseded = {(e["conversationId"], e["attempt"]) for _, e in events if e["type"] == "attempt_superseded"}
    latest: dict[str, int] = {}
    for _, event in events:
        conversation = event.get("conversationId")
        if conversation and event["type"] != "attempt_superseded" \
                and (conversation, event.get("attempt")) not in superseded:
            latest[conversation] = max(latest.get(conversation, 0), event.get("attempt", 1))
    return latest
