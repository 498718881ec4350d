"""Readers of a run folder: the manifest and the event lines, reporting file:line on bad input.

These readers use only the standard library on the hot path (the analysis reads runs with DuckDB and
must start fast); `read_manifest` validates against the pydantic model only when asked to.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.errors import RunFormatError
from core.runformat import MANIFEST_FILE, SCHEMA_VERSION


@dataclass
class EventLines:
    """The parseable events of a file (with their line numbers) and the lines that were not."""

    events: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    malformed: list[tuple[int, str]] = field(default_factory=list)
    ends_with_newline: bool = True
    line_count: int = 0


def read_event_lines(path: Path) -> EventLines:
    """Read a JSONL file of the run, keeping every malformed line's number and reason instead of dropping it."""
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


def read_manifest(run_dir: Path, *, validate: bool = False) -> dict[str, Any]:
    """Load a run's manifest or raise a RunFormatError that says what is wrong.

    validate=True also holds it against the Manifest model and names the first field that is wrong.
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
    if not isinstance(manifest, dict):
        raise RunFormatError(f"{path}: not a JSON object")
    if manifest.get("schemaVersion") != SCHEMA_VERSION:
        raise RunFormatError(f"{path}: schema version {manifest.get('schemaVersion')!r}; "
                             f"this wismo reads version {SCHEMA_VERSION}")
    if validate:
        from pydantic import ValidationError

        from core.runformat.manifest import Manifest

        try:
            Manifest.model_validate(manifest)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise RunFormatError(f"{path}: {where}: {first['msg']}") from None
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
