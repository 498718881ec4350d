"""Review verdicts: the key that binds a verdict to one summary, and folding exported files into a build.

The same key is computed by review.js with crypto.subtle, so a verdict given in the browser is found
again here: key = sha256("wismo-review-v1\\0" + runId + "\\0" + conversationId + "\\0" + summarySha),
summarySha = sha256 of the summary's UTF-8 bytes. Lone surrogates (possible in JSON text) become U+FFFD
first, because that is what the browser's TextEncoder does.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis.model import ConversationDetail
from wismo.sitegen.errors import ReviewsError

EXPORT_VERSION = 1
KEY_PREFIX = "wismo-review-v1"
VERDICTS = ("justified", "not_justified", "unsure")
ENTRY_FIELDS = ("key", "runId", "conversationId", "design", "summarySha", "verdict", "note", "reviewedAt")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def utf8(text: str) -> bytes:
    """UTF-8 bytes exactly as the browser's TextEncoder produces them."""
    return _LONE_SURROGATE.sub("\ufffd", text).encode("utf-8")


def summary_sha(summary: str) -> str:
    """The summary's SHA-256 (hex); a changed summary gets a new one, which invalidates its verdict."""
    return hashlib.sha256(utf8(summary)).hexdigest()


def review_key(run_id: str, conversation_id: str, sha: str) -> str:
    """The verdict's key in localStorage and in exported files."""
    return hashlib.sha256(utf8("\0".join((KEY_PREFIX, run_id, conversation_id, sha)))).hexdigest()


@dataclass(frozen=True)
class ReviewEntry:
    """One verdict from an exported file."""

    key: str
    run_id: str
    conversation_id: str
    design: str
    summary_sha: str
    verdict: str
    note: str
    reviewed_at: str
    source: str


def _entry(raw: Any, where: str, source: str) -> ReviewEntry:
    if not isinstance(raw, dict):
        raise ReviewsError(f"{where}: expected an object with {', '.join(ENTRY_FIELDS)}")
    missing = [name for name in ENTRY_FIELDS if name not in raw]
    if missing:
        raise ReviewsError(f"{where}: missing {', '.join(missing)}")
    for name in ENTRY_FIELDS:
        if not isinstance(raw[name], str):
            raise ReviewsError(f"{where}.{name}: must be a string")
    if raw["verdict"] not in VERDICTS:
        raise ReviewsError(f"{where}.verdict: {raw['verdict']!r} is not one of {', '.join(VERDICTS)}")
    if raw["key"] != review_key(raw["runId"], raw["conversationId"], raw["summarySha"]):
        raise ReviewsError(f"{where}.key: does not match its runId, conversationId and summarySha "
                           "(was the file edited by hand?)")
    return ReviewEntry(raw["key"], raw["runId"], raw["conversationId"], raw["design"], raw["summarySha"],
                       raw["verdict"], raw["note"], raw["reviewedAt"], source)


def load_reviews(paths: Iterable[Path]) -> list[ReviewEntry]:
    """Read exported review files; anything malformed raises ReviewsError naming the file and the entry."""
    entries: list[ReviewEntry] = []
    for path in paths:
        try:
            document = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise ReviewsError(f"{path}: cannot read it ({exc.strerror or exc})") from exc
        except (ValueError, UnicodeDecodeError) as exc:
            raise ReviewsError(f"{path}: not a JSON file exported by the review page ({exc})") from exc
        if not isinstance(document, dict) or document.get("version") != EXPORT_VERSION:
            found = document.get("version") if isinstance(document, dict) else type(document).__name__
            raise ReviewsError(f"{path}: expected an exported reviews file with \"version\": {EXPORT_VERSION}, "
                               f"found {found!r}")
        if not isinstance(document.get("reviews"), list):
            raise ReviewsError(f"{path}: \"reviews\" must be a list")
        entries.extend(_entry(raw, f"{path}: reviews[{i}]", str(path)) for i, raw in enumerate(document["reviews"]))
    return entries


@dataclass
class ReviewTally:
    """Verdicts matched against the current summaries: applied, stale (summary changed) or unknown."""

    files: list[str] = field(default_factory=list)
    verdicts: dict[tuple[str, str], str] = field(default_factory=dict)  # (run, conversation) -> verdict
    stale: set[tuple[str, str]] = field(default_factory=set)
    unknown: int = 0
    duplicates: int = 0

    @property
    def applied(self) -> int:
        """Verdicts that match a current summary."""
        return len(self.verdicts)


def fold_reviews(entries: Sequence[ReviewEntry],
                 details_by_run: Mapping[str, Sequence[ConversationDetail]]) -> ReviewTally:
    """Match verdicts to the summaries being built; the newest verdict per key wins, stale ones only count."""
    current: dict[tuple[str, str], str] = {}
    for run_id, details in details_by_run.items():
        for detail in details:
            if detail.customer_summary is not None:
                current[(run_id, detail.conversation_id)] = summary_sha(detail.customer_summary)
    tally = ReviewTally(files=sorted({entry.source for entry in entries}))
    newest: dict[str, ReviewEntry] = {}
    for entry in entries:
        kept = newest.get(entry.key)
        if kept is not None:
            tally.duplicates += 1
            if kept.reviewed_at >= entry.reviewed_at:
                continue
        newest[entry.key] = entry
    for entry in newest.values():
        conversation = (entry.run_id, entry.conversation_id)
        if conversation not in current:
            tally.unknown += 1
        elif current[conversation] != entry.summary_sha:
            tally.stale.add(conversation)
        else:
            tally.verdicts[conversation] = entry.verdict
    # A conversation with a current verdict is not also stale because an older summary was reviewed too.
    tally.stale -= set(tally.verdicts)
    return tally
