"""What a conversation gathered, told without its tools: records by kind, what was missing, what was unreadable.

The review pages show this instead of the raw tool results, so that blind review cannot read the
design off the evidence: the granular design's six results and the focused design's one result come
out as the same order, payment, reservation and tracking records. Results are read by parameter
name, exactly as the claim checker reads them (core.domain.evidence.Evidence.add_call).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

from analysis.model import TurnDetail
from core.domain.evidence import KINDS, Evidence

MISSING_WORDS = {"not_found": "not found", "unavailable": "could not be looked up"}


@dataclass(frozen=True)
class GatheredRecord:
    """One record the conversation holds: its fields, the ID first, the others sorted by name."""

    kind: str  # one of core.domain.evidence.KINDS
    record_id: str
    sku: str | None
    fields: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class MissingRecord:
    """A record the conversation looked for and could not get."""

    kind: str
    record_id: str
    why: str  # "not found", "could not be looked up"


@dataclass(frozen=True)
class GatheredEvidence:
    """Everything one conversation's tool results said, in a fixed layout whatever the tools were."""

    records: tuple[GatheredRecord, ...]  # by kind in KINDS order, then by ID
    missing: tuple[MissingRecord, ...]
    unread: tuple[str, ...]  # result texts that held no record of a known kind (errors, plain text)

    def of_kind(self, kind: str) -> list[GatheredRecord]:
        """The records of one kind."""
        return [r for r in self.records if r.kind == kind]

    @cached_property
    def identity(self) -> str:
        """A canonical text of the whole evidence: equal for two conversations that gathered the same."""
        return json.dumps([[(r.kind, r.record_id, r.fields) for r in self.records],
                           [(m.kind, m.record_id, m.why) for m in self.missing], list(self.unread)],
                          sort_keys=True, default=str)


def _fields(kind: str, record: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    # The ID first, then the fields in a fixed (sorted) order: servers may build a record's keys in any order.
    id_key = f"{kind}Id"
    return ((id_key, record[id_key]), *((k, record[k]) for k in sorted(record) if k != id_key))


def gathered_evidence(turns: Sequence[TurnDetail]) -> GatheredEvidence:
    """Read every tool result of a conversation into records by kind; nothing about which tool returned it."""
    return _gathered(tuple((call.arguments, call.result_text, bool(call.is_error))
                           for turn in turns for call in turn.tool_calls))


# The repetitions of a case read the same records with the same calls: each distinct sequence of calls is read
# once (the evidence is frozen, so conversations that gathered the same share it).
@lru_cache(maxsize=4096)
def _gathered(calls: tuple[tuple[str, str | None, bool], ...]) -> GatheredEvidence:
    evidence = Evidence()
    unread: list[str] = []
    for arguments, result_text, is_error in calls:
        if not evidence.add_call(arguments, result_text, is_error):
            unread.append(result_text if result_text is not None else "(no result recorded)")
    records = tuple(GatheredRecord(kind, ident, record.get("sku") if isinstance(record.get("sku"), str) else None,
                                   _fields(kind, record))
                    for kind in KINDS for ident, record in sorted(evidence.records[kind].items()))
    missing = []
    for ref, why in sorted(evidence.missing.items()):
        kind, ident = ref.split(":", 1)
        missing.append(MissingRecord(kind, ident, MISSING_WORDS.get(why, why.replace("_", " "))))
    # The order the results came in depends on the design (one call or several): sort them.
    return GatheredEvidence(records, tuple(missing), tuple(sorted(unread)))
