"""Review verdicts and notes: the key that binds them to one summary, reading exported files, folding them into a build.

The same key is computed by review.js with crypto.subtle, so a review given in the browser is found
again here: key = sha256("wismo-review-v1\\0" + runId + "\\0" + conversationId + "\\0" + summarySha),
summarySha = sha256 of the summary's UTF-8 bytes. Lone surrogates (possible in JSON text) become U+FFFD
first, because that is what the browser's TextEncoder does.

Export versions: 1 held verdicts only (no reviewer, no case); 2 adds `caseId` and `reviewer` and lets
`verdict` be null, so a note without a verdict is kept. Both are read; the page writes version 2, as
JSON or as CSV (one row per entry, a `version` column on every row so sorting a spreadsheet is harmless).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis.model import ConversationDetail
from wismo.sitegen.errors import ReviewsError

EXPORT_VERSION = 2
READABLE_VERSIONS = (1, 2)
KEY_PREFIX = "wismo-review-v1"  # part of every key: unchanged by the export version, so old verdicts still match
VERDICTS = ("justified", "not_justified", "unsure")
ENTRY_FIELDS_V1 = ("key", "runId", "conversationId", "design", "summarySha", "verdict", "note", "reviewedAt")
ENTRY_FIELDS = ("key", "runId", "conversationId", "caseId", "design", "summarySha", "verdict", "note", "reviewer",
                "reviewedAt")
CSV_COLUMNS = ("version", *ENTRY_FIELDS)
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


# What an export holds at most: far above any review session (a note is a few sentences), far below a
# file that would make every site built with it that much bigger.
MAX_REVIEWS_BYTES = 20_000_000
MAX_NOTE_CHARS = 20_000


def utf8(text: str) -> bytes:
    """UTF-8 bytes exactly as the browser's TextEncoder produces them."""
    return _LONE_SURROGATE.sub("\ufffd", text).encode("utf-8")


def summary_sha(summary: str) -> str:
    """The summary's SHA-256 (hex); a changed summary gets a new one, which invalidates its verdict."""
    return hashlib.sha256(utf8(summary)).hexdigest()


def review_key(run_id: str, conversation_id: str, sha: str) -> str:
    """The review's key in localStorage and in exported files."""
    return hashlib.sha256(utf8("\0".join((KEY_PREFIX, run_id, conversation_id, sha)))).hexdigest()


@dataclass(frozen=True)
class ReviewEntry:
    """One review from an exported file: a verdict, a note, or both (neither: the review was cleared)."""

    key: str
    run_id: str
    conversation_id: str
    design: str
    summary_sha: str
    verdict: str | None
    note: str
    reviewed_at: str
    source: str
    reviewer: str = ""
    case_id: str = ""

    @property
    def cleared(self) -> bool:
        """Neither a verdict nor a note: a newer entry saying an older review was taken back."""
        return self.verdict is None and not self.note

    def to_json(self) -> dict[str, Any]:
        """The entry as the current export version writes it."""
        return {"key": self.key, "runId": self.run_id, "conversationId": self.conversation_id,
                "caseId": self.case_id, "design": self.design, "summarySha": self.summary_sha,
                "verdict": self.verdict, "note": self.note, "reviewer": self.reviewer, "reviewedAt": self.reviewed_at}


def _entry(raw: Any, version: int, where: str, source: str) -> ReviewEntry:
    fields = ENTRY_FIELDS if version == 2 else ENTRY_FIELDS_V1
    if not isinstance(raw, dict):
        raise ReviewsError(f"{where}: expected an object with {', '.join(fields)}")
    missing = [name for name in fields if name not in raw]
    if missing:
        raise ReviewsError(f"{where}: missing {', '.join(missing)}")
    for name in fields:
        if not isinstance(raw[name], str) and not (name == "verdict" and version == 2 and raw[name] is None):
            raise ReviewsError(f"{where}.{name}: must be a string" + (" or null" if name == "verdict" and version == 2
                                                                       else ""))
    if raw["verdict"] is not None and raw["verdict"] not in VERDICTS:
        raise ReviewsError(f"{where}.verdict: {raw['verdict']!r} is not one of {', '.join(VERDICTS)}"
                           + (" (or null)" if version == 2 else ""))
    if len(raw["note"]) > MAX_NOTE_CHARS:
        raise ReviewsError(f"{where}.note: {len(raw['note']):,} characters, more than a review note holds (at most "
                           f"{MAX_NOTE_CHARS:,})")
    if raw["key"] != review_key(raw["runId"], raw["conversationId"], raw["summarySha"]):
        raise ReviewsError(f"{where}.key: does not match its runId, conversationId and summarySha "
                           "(was the file edited by hand?)")
    return ReviewEntry(raw["key"], raw["runId"], raw["conversationId"], raw["design"], raw["summarySha"],
                       raw["verdict"], raw["note"], raw["reviewedAt"], source, raw.get("reviewer", ""),
                       raw.get("caseId", ""))


def _json_entries(path: Path, text: str) -> list[ReviewEntry]:
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise ReviewsError(f"{path}: not a JSON file exported by the review page ({exc})") from exc
    version = document.get("version") if isinstance(document, dict) else None
    if version not in READABLE_VERSIONS or isinstance(version, bool):
        found = version if isinstance(document, dict) else type(document).__name__
        raise ReviewsError(f"{path}: expected an exported reviews file with \"version\": "
                           f"{' or '.join(map(str, READABLE_VERSIONS))}, found {found!r}")
    if not isinstance(document.get("reviews"), list):
        raise ReviewsError(f"{path}: \"reviews\" must be a list")
    return [_entry(raw, version, f"{path}: reviews[{i}]", str(path)) for i, raw in enumerate(document["reviews"])]


def _verdict_cell(value: str) -> str | None:
    # A spreadsheet user may type the label ("not justified") or leave the cell empty.
    cleaned = value.strip().lower().replace(" ", "_")
    return cleaned or None


def _csv_entries(path: Path, text: str) -> list[ReviewEntry]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [name for name in CSV_COLUMNS if name not in (reader.fieldnames or [])]
    if missing:
        raise ReviewsError(f"{path}: not a CSV file exported by the review page (missing columns: "
                           f"{', '.join(missing)})")
    entries = []
    for row in reader:
        where = f"{path}: line {reader.line_num}"
        if row["version"] != str(EXPORT_VERSION):
            raise ReviewsError(f"{where}: expected version {EXPORT_VERSION}, found {row['version']!r}")
        raw: dict[str, Any] = {name: row[name] or "" for name in ENTRY_FIELDS}
        raw["verdict"] = _verdict_cell(raw["verdict"])
        entries.append(_entry(raw, EXPORT_VERSION, where, str(path)))
    return entries


def load_reviews(paths: Iterable[Path]) -> list[ReviewEntry]:
    """Read exported review files (.json, or .csv); anything malformed raises ReviewsError naming file and entry."""
    entries: list[ReviewEntry] = []
    for path in paths:
        try:
            size = Path(path).stat().st_size
        except OSError as exc:
            raise ReviewsError(f"{path}: cannot read it ({exc.strerror or exc})") from exc
        if size > MAX_REVIEWS_BYTES:
            # Every entry is carried into the site (so an export keeps it): a huge file makes a huge site.
            raise ReviewsError(f"{path}: {size / 1e6:.1f} MB is more than a reviews export holds (at most "
                               f"{MAX_REVIEWS_BYTES // 1_000_000} MB, notes of at most {MAX_NOTE_CHARS:,} "
                               "characters); is it the file the review page exported?")
        try:
            text = Path(path).read_text(encoding="utf-8-sig")
        except OSError as exc:
            raise ReviewsError(f"{path}: cannot read it ({exc.strerror or exc})") from exc
        except UnicodeDecodeError as exc:
            raise ReviewsError(f"{path}: not a reviews file exported by the review page ({exc})") from exc
        reader = _csv_entries if Path(path).suffix.lower() == ".csv" else _json_entries
        entries.extend(reader(Path(path), text))
    return entries


def csv_text(entries: Sequence[ReviewEntry]) -> str:
    """Entries as the review page's CSV export writes them (used by tests and documentation)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for entry in entries:
        row = entry.to_json()
        writer.writerow([EXPORT_VERSION, *("" if row[n] is None else row[n] for n in ENTRY_FIELDS)])
    return out.getvalue()


@dataclass
class ReviewTally:
    """Reviews matched against the current summaries: applied, stale (summary changed) or unknown."""

    files: list[str] = field(default_factory=list)
    entries: dict[tuple[str, str], ReviewEntry] = field(default_factory=dict)  # (run, conversation) -> review
    stale: set[tuple[str, str]] = field(default_factory=set)
    unknown: int = 0
    duplicates: int = 0
    # Reviews that match no current summary, kept so that the rebuilt page exports them again unchanged.
    carried: list[ReviewEntry] = field(default_factory=list)
    # (run, case, summarySha) -> verdict -> conversations, for texts judged in more than one way.
    conflicts: dict[tuple[str, str, str], dict[str, int]] = field(default_factory=dict)

    @property
    def verdicts(self) -> dict[tuple[str, str], str]:
        """(run, conversation) -> verdict, for the reviews that gave one."""
        return {k: e.verdict for k, e in self.entries.items() if e.verdict is not None}

    @property
    def applied(self) -> int:
        """Verdicts that match a current summary."""
        return sum(e.verdict is not None for e in self.entries.values())

    @property
    def notes_only(self) -> int:
        """Notes without a verdict that match a current summary."""
        return sum(e.verdict is None for e in self.entries.values())


def fold_reviews(entries: Sequence[ReviewEntry],
                 details_by_run: Mapping[str, Sequence[ConversationDetail]]) -> ReviewTally:
    """Match reviews to the summaries being built; the newest review per key wins, stale ones only count."""
    current: dict[tuple[str, str], ConversationDetail] = {}
    for run_id, details in details_by_run.items():
        for detail in details:
            if detail.customer_summary is not None:
                current[(run_id, detail.conversation_id)] = detail
    tally = ReviewTally(files=sorted({entry.source for entry in entries}))
    newest: dict[str, ReviewEntry] = {}
    for entry in entries:
        kept = newest.get(entry.key)
        if kept is not None:
            tally.duplicates += 1
            if kept.reviewed_at >= entry.reviewed_at:
                continue
        newest[entry.key] = entry
    judged: dict[tuple[str, str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for entry in newest.values():
        if entry.cleared:
            continue
        conversation = (entry.run_id, entry.conversation_id)
        found = current.get(conversation)
        if found is None:
            tally.unknown += 1
            tally.carried.append(entry)
        elif summary_sha(found.customer_summary or "") != entry.summary_sha:
            tally.stale.add(conversation)
            tally.carried.append(entry)
        else:
            tally.entries[conversation] = entry
            if entry.verdict is not None:
                judged[(entry.run_id, found.case_id, entry.summary_sha)][entry.verdict] += 1
    # A conversation with a current review is not also stale because an older summary was reviewed too.
    tally.stale -= set(tally.entries)
    tally.conflicts = {text: dict(verdicts) for text, verdicts in judged.items() if len(verdicts) > 1}
    return tally
