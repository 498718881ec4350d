"""Writing a run folder: events appended one whole line at a time, JSON files replaced atomically.

Durability: each event is one line written with a single os.write on an O_APPEND descriptor, so a
run killed with SIGKILL loses at most the conversations in flight, never a written line; JSON files
are replaced atomically (write a temporary file, then rename). Every line is built from a body
model of `core.runformat.events`, so a writer cannot produce a field the format does not define.
Every line and JSON file passes through the invocation's `Redactor` first, so no key reaches disk.

Time: every `ts` comes from one clock, the monotonic clock anchored once to the wall clock, read in
whole microseconds. A conversation's claimed elapsedMs is the difference of the two readings its
conversation_started and conversation_finished lines are stamped with, so `wismo validate` can hold
it to the timestamps exactly, however loaded the machine was.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from core.errors import WismoError
from core.runformat import SCHEMA_VERSION
from core.runformat.events import ConversationBody, RunBody
from core.runformat.redact import Redactor

# Wall-clock nanoseconds at monotonic zero, taken once: readings are monotonic and still read as UTC.
_ANCHOR_NS = time.time_ns() - time.monotonic_ns()
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class RunWriteError(WismoError):
    """A run file could not be written (read-only folder, disk full): the run stops, nothing written is lost."""

    exit_code = 3  # apart from 1 (a conversation ended in a fault) and 2 (bad options or input)


def write_failure(path: Path, exc: OSError) -> RunWriteError:
    """The one-line error for a failed write of `path`."""
    return RunWriteError(f"cannot write {path}: {exc.strerror or exc}")


def now_us() -> int:
    """A clock reading: UTC microseconds since the epoch, from the anchored monotonic clock."""
    return (_ANCHOR_NS + time.monotonic_ns()) // 1000


def iso_at(reading: int) -> str:
    """A reading as the `ts` text: UTC ISO 8601 with microseconds."""
    return (_EPOCH + timedelta(microseconds=reading)).isoformat(timespec="microseconds")


def now_iso() -> str:
    """UTC now with microseconds: the `ts` of every event."""
    return iso_at(now_us())


def write_json_atomic(path: Path, value: Any, redactor: Redactor | None = None) -> None:
    """Replace a JSON file in one rename, so a reader never sees half of it; secrets redacted."""
    temporary = path.with_suffix(path.suffix + ".tmp")
    text = json.dumps(value, indent=2, ensure_ascii=False) + "\n"
    try:
        temporary.write_text(redactor.scrub(text) if redactor else text, encoding="utf-8")
        os.replace(temporary, path)
    except OSError as exc:
        raise write_failure(path, exc) from None


def _line(envelope: dict[str, Any], body: RunBody | ConversationBody) -> dict[str, Any]:
    # The envelope first, then the body's fields in their declared order: `type` leads the body.
    fields = body.model_dump(mode="json")
    return {"v": SCHEMA_VERSION, "type": fields.pop("type"), **envelope, **fields}


def run_line(run_id: str, body: RunBody) -> dict[str, Any]:
    """A whole run-level line built from its body (for files written whole, such as claims.jsonl)."""
    return _line({"runId": run_id, "ts": now_iso()}, body)


class EventWriter:
    """Appends events to a JSONL file, one whole line per os.write."""

    def __init__(self, path: Path, run_id: str, redactor: Redactor | None = None) -> None:
        self.path = path
        self.run_id = run_id
        self.redactor = redactor
        try:
            self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as exc:
            raise write_failure(path, exc) from None
        self.lines = 0

    def write(self, body: RunBody) -> dict[str, Any]:
        """Write one run-level line now; return it as written."""
        return self.write_line(run_line(self.run_id, body))

    def write_line(self, event: dict[str, Any]) -> dict[str, Any]:
        """Append one line already built from a model (ConversationLog builds conversation lines)."""
        text = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
        data = ((self.redactor.scrub(text) if self.redactor else text) + "\n").encode("utf-8")
        try:
            written = os.write(self._fd, data)
        except OSError as exc:
            raise write_failure(self.path, exc) from None
        if written != len(data):  # a regular file takes the whole line unless the disk is full
            raise RunWriteError(f"cannot write {self.path}: the disk is full ({written} of {len(data)} bytes written)")
        self.lines += 1
        return event

    def sync(self) -> None:
        """Flush the file to disk (at the end of a run)."""
        try:
            os.fsync(self._fd)
        except OSError as exc:
            raise write_failure(self.path, exc) from None

    def close(self) -> None:
        """Sync and close (the descriptor is closed even when the sync fails)."""
        try:
            self.sync()
        finally:
            os.close(self._fd)


@dataclass
class ConversationLog:
    """The events of one conversation attempt, numbered by seq from 1."""

    writer: EventWriter
    conversation_id: str
    attempt: int
    seq: int = 0

    def write(self, body: ConversationBody, at: int | None = None) -> dict[str, Any]:
        """Write one conversation event with the next seq, stamped now or at the reading `at`."""
        self.seq += 1
        envelope = {"runId": self.writer.run_id, "ts": iso_at(now_us() if at is None else at),
                    "conversationId": self.conversation_id,
                    "attempt": self.attempt, "seq": self.seq}
        return self.writer.write_line(_line(envelope, body))
