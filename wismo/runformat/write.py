"""Writing a run folder: events appended one whole line at a time, JSON files replaced atomically.

Durability: each event is one line written with a single os.write on an O_APPEND descriptor, so a
run killed with SIGKILL loses at most the conversations in flight, never a written line; JSON files
are replaced atomically (write a temporary file, then rename). Every line is built from a body
model of `wismo.runformat.events`, so a writer cannot produce a field the format does not define.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from wismo.runformat import SCHEMA_VERSION
from wismo.runformat.events import ConversationBody, RunBody


def now_iso() -> str:
    """UTC now with microseconds: the `ts` of every event."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def write_json_atomic(path: Path, value: Any) -> None:
    """Replace a JSON file in one rename, so a reader never sees half of it."""
    temporary = path.with_suffix(path.suffix + ".tmp")
    temporary.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(temporary, path)


def _line(envelope: dict[str, Any], body: RunBody | ConversationBody) -> dict[str, Any]:
    # The envelope first, then the body's fields in their declared order: `type` leads the body.
    fields = body.model_dump(mode="json")
    return {"v": SCHEMA_VERSION, "type": fields.pop("type"), **envelope, **fields}


def run_line(run_id: str, body: RunBody) -> dict[str, Any]:
    """A whole run-level line built from its body (for files written whole, such as claims.jsonl)."""
    return _line({"runId": run_id, "ts": now_iso()}, body)


class EventWriter:
    """Appends events to a JSONL file, one whole line per os.write."""

    def __init__(self, path: Path, run_id: str) -> None:
        self.path = path
        self.run_id = run_id
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self.lines = 0

    def write(self, body: RunBody) -> dict[str, Any]:
        """Write one run-level line now; return it as written."""
        return self.write_line(run_line(self.run_id, body))

    def write_line(self, event: dict[str, Any]) -> dict[str, Any]:
        """Append one line already built from a model (ConversationLog builds conversation lines)."""
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

    def write(self, body: ConversationBody) -> dict[str, Any]:
        """Write one conversation event with the next seq; return it as written."""
        self.seq += 1
        envelope = {"runId": self.writer.run_id, "ts": now_iso(), "conversationId": self.conversation_id,
                    "attempt": self.attempt, "seq": self.seq}
        return self.writer.write_line(_line(envelope, body))
