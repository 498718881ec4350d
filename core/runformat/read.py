"""Readers of a run folder: the manifest and the event lines, reporting file:line on bad input.

Runs are read into the same models they are written from: `read_manifest` returns the Manifest model
(core.runformat.manifest). The event lines stay plain dicts on this path: a resume reads every line of
a large run, and the analysis reads events with DuckDB, not here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from core.errors import RunFormatError
from core.runformat import MANIFEST_FILE, SCHEMA_VERSION
from core.runformat.manifest import Manifest


@dataclass
class EventLines:
    """The parseable events of a file (with their line numbers) and the lines that were not."""

    events: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    malformed: list[tuple[int, str]] = field(default_factory=list)
    ends_with_newline: bool = True
    line_count: int = 0
    # Lines another version of wismo wrote (a `v` this one does not read), by number: a writer must not mix in
    other_versions: list[tuple[int, Any]] = field(default_factory=list)


def read_event_lines(path: Path) -> EventLines:
    """Read a JSONL file of the run, keeping every malformed line's number and reason instead of dropping it."""
    if not path.exists():
        raise RunFormatError(f"{path}: no events file")
    try:
        data = path.read_bytes()
    except OSError as exc:  # a folder or an unreadable file where the events belong
        raise RunFormatError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    result = EventLines(ends_with_newline=data.endswith(b"\n") or not data)
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    result.line_count = len(lines)
    for number, raw in enumerate(lines, start=1):
        try:
            event = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
            result.malformed.append((number, f"not JSON: {exc}"))
            continue
        if not isinstance(event, dict) or "type" not in event:
            result.malformed.append((number, "not an event object with a type"))
            continue
        if event.get("v") != SCHEMA_VERSION:
            result.malformed.append((number, f"schema version {event.get('v')!r}, this wismo reads {SCHEMA_VERSION}"))
            result.other_versions.append((number, event.get("v")))
            continue
        result.events.append((number, event))
    return result


def read_manifest_json(run_dir: Path) -> dict[str, Any]:
    """A run's manifest as JSON, its schema version checked; a RunFormatError says what is wrong.

    The analysis reads a run with DuckDB and needs only to know the manifest is there and readable;
    everything else reads the typed `read_manifest`.
    """
    path = run_dir / MANIFEST_FILE
    if not run_dir.is_dir():
        raise RunFormatError(f"{run_dir}: not a run folder")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RunFormatError(f"{path}: missing (is {run_dir} a run folder made by `wismo record`?)") from None
    except json.JSONDecodeError as exc:
        raise RunFormatError(f"{path}: line {exc.lineno}: not valid JSON: {exc.msg}") from None
    except UnicodeDecodeError as exc:
        raise RunFormatError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if not isinstance(manifest, dict):
        raise RunFormatError(f"{path}: not a JSON object")
    if manifest.get("schemaVersion") != SCHEMA_VERSION:
        raise RunFormatError(f"{path}: schema version {manifest.get('schemaVersion')!r}; "
                             f"this wismo reads version {SCHEMA_VERSION}")
    return manifest


def read_manifest(run_dir: Path) -> Manifest:
    """A run's manifest read into the model it was written from; a RunFormatError names the first wrong field."""
    raw = read_manifest_json(run_dir)
    try:
        return Manifest.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise RunFormatError(f"{run_dir / MANIFEST_FILE}: {where}: {first['msg']}") from None


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
