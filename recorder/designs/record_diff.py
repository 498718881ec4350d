"""The records one design returned for one order, by kind and ID, and how they differ from the reference's.

Whatever the tools are named and however they group records, a result is read as core.domain.evidence
reads it: JSON objects carrying their own `orderId`/`paymentId`/`reservationId`/`trackingId` are
records, and a `{"<idField>": ID, "availability": "not_found"}` marker or a "... not found" tool error
says a linked record does not exist. Two designs return the same evidence when they return the same
records (as JSON) and say "not found" of the same IDs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from core.domain.evidence import KINDS, Evidence

NOT_FOUND = "not_found"  # in a collection: the design said this linked record does not exist
Version = dict[str, Any] | str  # a record's JSON, or NOT_FOUND
_SHOWN = 60  # characters of a differing value shown in a difference


@dataclass
class Collection:
    """Every record a design returned about one order: each distinct version by (kind, ID), in the order seen."""

    versions: dict[tuple[str, str], list[Version]] = field(default_factory=dict)

    def add(self, parameter: str, value: str, text: str, is_error: bool) -> None:
        """Fold in one tool result, read by the parameter it was called with."""
        evidence = Evidence()
        evidence.add_result(parameter, value, text, is_error)
        for kind, records in evidence.records.items():
            for ident, record in records.items():
                self._put((kind, ident), record)
        for ref, why in evidence.missing.items():
            if why == NOT_FOUND:
                kind, _, ident = ref.partition(":")
                self._put((kind, ident), NOT_FOUND)

    def _put(self, key: tuple[str, str], version: Version) -> None:
        known = self.versions.setdefault(key, [])
        if version not in known:
            known.append(version)


def differences(design: str, reference_name: str, reference: Collection, other: Collection) -> list[str]:
    """What `other` returns differently from `reference`, one line per record or field, in the reference's order."""
    position = {key: index for index, key in enumerate(reference.versions)}
    keys = sorted(set(reference.versions) | set(other.versions),
                  key=lambda k: (KINDS.index(k[0]) if k[0] in KINDS else len(KINDS), position.get(k, len(position)), k))
    out: list[str] = []
    for kind, ident in keys:
        theirs = other.versions.get((kind, ident), [])
        ours = reference.versions.get((kind, ident), [])
        name = f"{kind} {ident}"
        if not theirs:
            said = "says it is not found" if ours[0] == NOT_FOUND else "returns it"
            out.append(f"{name} missing ({reference_name} {said})")
        elif not ours:
            said = "says it is not found" if NOT_FOUND in theirs else "returns it"
            out.append(f"{name} extra ({design} {said}, {reference_name} never mentions it)")
        else:
            for version in theirs:
                out += [f"{name}: {line}" for line in _version_differences(design, reference_name, ours[0], version)]
    return out


def _version_differences(design: str, reference_name: str, ours: Version, theirs: Version) -> list[str]:
    if ours == NOT_FOUND and theirs == NOT_FOUND:
        return []
    if ours == NOT_FOUND:
        return [f"{reference_name} says it is not found, {design} returns a record"]
    if theirs == NOT_FOUND:
        return [f"{design} says it is not found, {reference_name} returns it"]
    out: list[str] = []
    _diff("$", ours, theirs, (reference_name, design), out)
    return out


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= _SHOWN else text[:_SHOWN - 1] + "…"


def _diff(path: str, left: Any, right: Any, names: tuple[str, str], out: list[str]) -> None:
    """Append one line per path where two JSON values differ: the path and both values, shortened."""
    ours, theirs = names
    if isinstance(left, dict) and isinstance(right, dict):
        for key in [*left, *(k for k in right if k not in left)]:
            if key not in right:
                out.append(f"{path}.{key}: only in {ours} ({_shown(left[key])})")
            elif key not in left:
                out.append(f"{path}.{key}: only in {theirs} ({_shown(right[key])})")
            else:
                _diff(f"{path}.{key}", left[key], right[key], names, out)
    elif isinstance(left, list) and isinstance(right, list):
        if len(left) != len(right):
            out.append(f"{path}: {len(left)} items in {ours}, {len(right)} in {theirs}")
        for index, (a, b) in enumerate(zip(left, right, strict=False)):
            _diff(f"{path}[{index}]", a, b, names, out)
    elif type(left) is not type(right) or left != right:
        out.append(f"{path}: {ours} {_shown(left)} vs {theirs} {_shown(right)}")
